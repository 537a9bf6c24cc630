"""Pooling: pool2d, pool3d and lp_pool2d, with Paddle's window rules.

Paddle's CPU pooling (phi funcs::Pool2dFunctor) visits, for each output, the input cells of
its window that lie inside the input (padding never enters a max) in row-major order.  A max
is the fold `y = y > x ? y : x` from -FLT_MAX (`_max_fold`: a NaN is forgotten by the next
cell, where torch's pooling keeps it; `max_pool_nan_fold` refolds those windows).  An
average sums the cells in that order and divides by the number of those cells (exclusive,
adaptive) or by the number of window cells inside input plus padding.  ceil_mode adds a last
window that may hang past the padding.  torch's max_pool / avg_pool compute the same numbers
where their output size and padding rules agree with Paddle's (`_torch_pool` says when) and
run those cases; the others (torch drops a ceil_mode window Paddle keeps, asymmetric padding
of an average, half types) build the windows here from explicit padding and unfolding and
accumulate the sum cell by cell in Paddle's order.
"""

from __future__ import annotations

import math

import numpy as np
import torch
import torch.nn.functional as F

from ...runtime.registry import REGISTRY
# imported once, read as control_flow._tracing at the call (tests replace it there): an
# import statement in a kernel costs 0.6 us a call
from .. import control_flow
from ..specialize import specializer
from . import padding
from .elementwise import float_pow
from .operands import int_list

# Beyond this many cells per window the sum uses torch's reduction instead of a chain of
# adds (same value to rounding; keeps the graph small for global pooling of large maps).
_SEQUENTIAL_CELLS = 64


def _out_size(size, k, before, after, stride, ceil_mode):
    span = size - k + before + after
    return (span + stride - 1) // stride + 1 if ceil_mode else span // stride + 1


def _windows(x, kernel, strides, pads, outs, fill):
    """x padded (with `fill`) and unfolded: shape (N, C, *outs, *kernel)."""
    spatial = len(kernel)
    extra = []
    for i in range(spatial):
        size = x.shape[2 + i]
        needed = (outs[i] - 1) * strides[i] + kernel[i]
        before = pads[i][0]
        after = max(needed - size - before, 0)
        extra.append((before, after))
    x = F.pad(x, padding.torch_pad_list(extra), value=fill)
    for i in range(spatial):
        x = x.unfold(2 + i, kernel[i], strides[i])
    # unfold may leave more windows than Paddle's output when padding exceeds what is needed
    index = [slice(None), slice(None)] + [slice(0, o) for o in outs]
    return x[tuple(index)]


# phi MaxPool<T>::initial(): static_cast<T>(-FLT_MAX), for double too (-inf in float16)
_FLT_MAX = float(np.finfo(np.float32).max)


def _max_fold(flat, valid):
    """Paddle's max of each window: phi funcs::MaxPool (pooling.h) starts from
    static_cast<T>(-FLT_MAX) and folds the window's cells in row-major order with
    `y = y > x ? y : x`, padding skipped.  A NaN cell makes y NaN and the next cell replaces
    it (NaN > x is false), so the result is the max of the cells after the window's last NaN,
    NaN when no cell follows it, and max(-FLT_MAX, max of the cells) in a window without NaN
    (a window of -inf gives -FLT_MAX; in float64 so does one of values below -FLT_MAX).  An
    equal cell replaces y too, so of equal maxima the last is taken: a window of +0 then -0
    gives -0 (Paddle 3.3.1, tools/paddle_oracle/max_pool_zero_sign.py), where torch's pooling
    and argmax take the first.

    flat: [..., cells] with padding cells -inf; valid: bool, broadcastable, False at padding.
    Each value is gathered from the one cell it came from (for -FLT_MAX, a max cell whose
    value it replaces), so autograd sends pool2d_grad to that cell alone: the first cell
    equal to the max, as Paddle's MaxPoolGrad does (it stops at the first `x == y`); a zero
    max then takes its sign from the last zero cell, through `_ZeroSign` under autograd
    (the value comes from the last zero, the gradient goes to the first).
    """
    nan = torch.isnan(flat)
    after = nan.flip(-1).cumsum(-1).flip(-1) == 0  # no NaN at or after this cell
    key = torch.where(after, flat, -math.inf)
    index = key.argmax(-1, keepdim=True)  # the first max after the last NaN
    has_nan = nan.any(-1, keepdim=True)
    cells = flat.shape[-1]
    last_nan = (cells - 1) - nan.flip(-1).to(torch.uint8).argmax(-1, keepdim=True)
    nothing_after = has_nan & ~(after & valid).any(-1, keepdim=True)
    index = torch.where(nothing_after, last_nan, index)
    # (a window whose max after its last NaN is -inf may pick a cell before it: -inf too)
    picked = torch.where(after | (nan & nothing_after), flat, -math.inf)
    value = picked.gather(-1, index)
    # +0 and -0 compare equal: a zero max has the last zero's sign
    last = (cells - 1) - key.flip(-1).argmax(-1, keepdim=True)
    signed = picked.gather(-1, last)
    if value.requires_grad and torch.is_grad_enabled():
        value = _ZeroSign.apply(value, signed.detach())
    else:
        value = torch.where(value == 0, signed, value)
    floor = torch.full((), -_FLT_MAX, dtype=flat.dtype, device=flat.device)
    value = torch.where(has_nan, value, torch.maximum(value, floor))
    return value.squeeze(-1)



class _ZeroSign(torch.autograd.Function):
    """`value` where it is not zero, else `signed` (a zero of the sign Paddle gives); the
    gradient goes to `value` whole: a torch.where would send a zero max's gradient to the
    branch taken, `signed`, which is not the cell MaxPoolGrad picks, and copysign's gradient
    is 0 at 0."""

    @staticmethod
    def forward(ctx, value, signed):
        return torch.where(value == 0, signed, value)

    @staticmethod
    def backward(ctx, grad):
        return grad, None


def max_pool_nan_fold(x, fast, kernel, strides, pads, outs):
    """torch's max pool `fast` made Paddle's (`_max_fold`): torch takes a window with a NaN
    as NaN, Paddle the max of the cells after its last NaN; and Paddle's max starts from
    -FLT_MAX.  x: the N, C, spatial... input; pads: Paddle's (before, after) pairs."""
    bounds = [_regular_bounds(x.shape[2 + i], kernel[i], strides[i], pads[i][0], outs[i])
              for i in range(len(kernel))]
    return _refold(x, fast, bounds)


def _regular_bounds(size, k, stride, pad, out):
    """Each output's window [start, end) along one dim, padding cut off (Paddle skips it)."""
    return [(max(o * stride - pad, 0), min(o * stride - pad + k, size)) for o in range(out)]


def _refold(x, fast, bounds):
    """`fast` with the windows torch made NaN refolded by `_max_fold`, their cells gathered
    from x (bounds: per spatial dim, each output's [start, end)); the other windows raised to
    -FLT_MAX."""
    # Run on data, a sum that is neither NaN nor -inf says no window is NaN or -inf: a
    # float32 fast is Paddle's as it is (one pass; a sum made NaN or -inf otherwise, by
    # +inf and -inf or by overflow, only takes the exact path below); float64 also needs
    # no value below -FLT_MAX.  Traced, all of it is in the graph.
    # A zero max may be -0 in Paddle where torch took a +0 before it (`_max_fold`: the last
    # of equal maxima): refolded too where x holds a -0 at all (rare: asked only when some
    # window's max is zero).
    zero = fast == 0
    if not control_flow._tracing(fast):
        total = fast.sum().item()   # one reduction and one read, no tensor-valued tests
        plain = not (math.isnan(total) or total == -math.inf)
        if plain and fast.dtype != torch.float32 and fast.numel():
            plain = bool(fast.amin() >= -_FLT_MAX)
        if plain and bool(zero.any()):
            plain = not bool(((x == 0) & torch.signbit(x)).any())
        if plain:
            return fast
    floor = torch.full((), -_FLT_MAX, dtype=fast.dtype, device=fast.device)
    out = torch.maximum(fast, floor)  # NaN stays NaN
    at = torch.nonzero(torch.isnan(fast) | zero, as_tuple=True)  # (n, c, *out position) of each
    spatial = len(bounds)
    grid = [-1] + [1] * spatial  # [K, k0, k1, ...] by broadcasting
    flat_index = (at[0] * x.shape[1] + at[1]).reshape(grid)
    valid = torch.ones((), dtype=torch.bool, device=x.device)
    for i, dim in enumerate(bounds):
        k = max([e - b for b, e in dim] + [1])
        # the window's cells along dim i in order, the last repeated past its end
        table = torch.tensor([[min(b + j, max(e - 1, 0)) for j in range(k)] for b, e in dim],
                             dtype=torch.int64, device=x.device)
        inside = torch.tensor([[j < e - b for j in range(k)] for b, e in dim],
                              device=x.device)
        shape = [-1] + [k if j == i else 1 for j in range(spatial)]
        valid = valid & inside[at[2 + i]].reshape(shape)
        flat_index = flat_index * x.shape[2 + i] + table[at[2 + i]].reshape(shape)
    cells = math.prod(flat_index.shape[1:])
    flat_index, valid = flat_index.reshape(-1, cells), valid.reshape(-1, cells)
    window = torch.where(valid, x.reshape(-1)[flat_index], -math.inf)
    return out.index_put_(at, _max_fold(window, valid))


def _window_sum(win, spatial):
    cells = math.prod(win.shape[-spatial:])
    if cells > _SEQUENTIAL_CELLS:
        return win.sum(list(range(-spatial, 0)))
    flat = win.reshape(*win.shape[:-spatial], cells)
    total = flat[..., 0]
    for i in range(1, cells):
        total = total + flat[..., i]
    return total


def _adaptive(x, outs, pooling_type):
    spatial = len(outs)
    if pooling_type == "max":
        fn = F.adaptive_max_pool2d if spatial == 2 else F.adaptive_max_pool3d
    else:
        fn = F.adaptive_avg_pool2d if spatial == 2 else F.adaptive_avg_pool3d
    return fn(x, outs)


def _torch_out_size(size, k, pad, stride, ceil_mode):
    """torch's pooling output size (pooling_output_shape): ceil_mode drops a last window that
    would start inside the right padding, which Paddle keeps."""
    out = (size + 2 * pad - k + ((stride - 1) if ceil_mode else 0)) // stride + 1
    if ceil_mode and (out - 1) * stride >= size + pad:
        out -= 1
    return out


def max_pool2d_nchw(x, kernel, strides, pads, *, ceil_mode=False):
    """F.max_pool2d through torch's channels-last kernel, back in NCHW.

    The same maximum of the same cells, NaN propagation included (both kernels take a NaN
    cell as the max), so the numbers are torch's NCHW kernel's; but the NCHW kernel is a
    scalar loop, ~12x slower on a [1, 192, 28, 28] 3x3 window (3.3 ms vs 0.26 ms measured,
    0.49 ms with both layout copies), which made googlenet slower than Paddle. The result is
    made contiguous again so that what follows (a conv picking its algorithm by layout)
    computes exactly as before.
    """
    # torch.max_pool2d is what F.max_pool2d calls (dilation 1), without its Python wrapper
    if x.numel() <= _SMALL_POOL_INPUT and x.is_contiguous() and not control_flow._tracing(x):
        # a small map: the two layout copies cost more than the scalar loop (measured on
        # [1, 16, 8, 8]: 3.8 us direct, 6.2 us through channels-last); the same maxima
        return torch.max_pool2d(x, kernel, strides, pads, 1, ceil_mode)
    y = torch.max_pool2d(x.contiguous(memory_format=torch.channels_last), kernel, strides,
                         pads, 1, ceil_mode)
    return y.contiguous()


_SMALL_POOL_INPUT = 4096   # elements; [64, 8, 16, 16] already runs 4x faster channels-last


def max_pool2d_tiles(x, kh: int, kw: int):
    """A max pool whose windows tile the map (kernel = stride, no padding, kh | H, kw | W) of
    an input without NaN and without -0 (value_facts: a relu's output), as element-wise
    maxima of its strided rows, then columns, where the map is not small.

    Without NaN and -0, elements that compare equal have equal bits, so every window has one
    max whatever the order of the comparisons: torch's pooling's and Paddle's.  Two passes
    over the map against the pooling kernels (measured: [64, 8, 16, 16] 54 us against 219
    channels-last; [1, 192, 28, 28] 61 against 164); a small map keeps the one direct call
    (6 us against 12.5 on [1, 8, 16, 16]).  Contiguous, as max_pool2d_nchw's result.
    """
    if x.numel() <= _SMALL_POOL_INPUT and x.is_contiguous() and not control_flow._tracing(x):
        return torch.max_pool2d(x, [kh, kw], [kh, kw], [0, 0], 1, False)
    rows = x[:, :, 0::kh]
    for i in range(1, kh):
        rows = torch.maximum(rows, x[:, :, i::kh])
    out = rows[..., 0::kw]
    for j in range(1, kw):
        out = torch.maximum(out, rows[..., j::kw])
    return out.contiguous()


_TORCH_POOL = {("max", 2): max_pool2d_nchw, ("max", 3): F.max_pool3d,
               ("avg", 2): F.avg_pool2d, ("avg", 3): F.avg_pool3d}


def _torch_pool(x, kernel, strides, pads, outs, ceil_mode, exclusive, pooling_type):
    """torch's max/avg pooling when it gives Paddle's numbers, else None.

    Same numbers means: same output size (torch's ceil_mode rule can drop a window Paddle
    keeps), and for max a padding torch takes (symmetric, at most half the window; a
    -inf pad in front covers the rest, padding never wins a max in either).  For avg torch's
    CPU kernel sums each window cell by cell in row-major order and divides once, exactly as
    Paddle's Pool2dFunctor; its divisor matches Paddle's (exclusive: cells inside the input;
    not exclusive: cells inside input plus padding) only for symmetric padding.  float32 and
    float64 only: torch accumulates half types in float32.
    """
    if x.dtype not in (torch.float32, torch.float64) \
            or (pooling_type, len(kernel)) not in _TORCH_POOL:
        return None
    sizes = x.shape[2:]
    fn = _TORCH_POOL[(pooling_type, len(kernel))]
    symmetric = all(b == a and 2 * b <= k for (b, a), k in zip(pads, kernel))
    if not symmetric:
        if pooling_type != "max":
            return None
        x = F.pad(x, padding.torch_pad_list(pads), value=-math.inf)
        sizes, pads = x.shape[2:], [(0, 0)] * len(kernel)
    if any(_torch_out_size(sizes[i], kernel[i], pads[i][0], strides[i], ceil_mode) != outs[i]
           for i in range(len(kernel))):
        return None
    torch_pads = [b for b, _ in pads]
    if pooling_type == "max":
        return fn(x, kernel, strides, torch_pads, ceil_mode=ceil_mode)
    return fn(x, kernel, strides, torch_pads, ceil_mode=ceil_mode, count_include_pad=not exclusive)


def pool(x, kernel_size, strides, paddings, ceil_mode, exclusive, data_format, pooling_type,
         global_pooling, adaptive, padding_algorithm, spatial):
    channels_last = data_format in ("NHWC", "NDHWC")
    if channels_last:
        x = x.permute(0, x.dim() - 1, *range(1, x.dim() - 1))
    sizes = list(x.shape[2:])
    kernel = int_list(kernel_size)
    if len(kernel) == 1:
        kernel = kernel * spatial
    strides = [int(s) for s in strides]
    if global_pooling:  # the whole map (and with adaptive, an output of the map's size)
        kernel, pads = sizes, [(0, 0)] * spatial
        strides = strides if adaptive else [1] * spatial
    if adaptive and pooling_type == "max":
        # phi PoolRawKernel calls the max functor with adaptive=false: the output has the
        # adaptive size (kernel_size), but each window is kernel_size cells from
        # out * stride, padding zeroed (UpdatePadding), cut at the input's end, -FLT_MAX
        # where nothing is left (checked against Paddle 3.0.0 and 3.3.1).
        # F.adaptive_max_pool* build max_pool*_with_index instead.
        pads = [(0, 0)] * spatial
    elif adaptive:
        out = _adaptive(x, kernel, pooling_type)
        return out.permute(0, *range(2, out.dim()), 1) if channels_last else out
    elif not global_pooling:
        pads = padding.resolve(paddings, padding_algorithm, sizes, kernel, strides)
    if adaptive:
        outs = list(kernel)
        fast = None
    else:
        outs = [_out_size(sizes[i], kernel[i], pads[i][0], pads[i][1], strides[i], ceil_mode)
                for i in range(spatial)]
        fast = _torch_pool(x, kernel, strides, pads, outs, ceil_mode, exclusive, pooling_type)
    if fast is not None and pooling_type == "max":
        fast = max_pool_nan_fold(x, fast, kernel, strides, pads, outs)
    if fast is not None:
        return fast.permute(0, *range(2, fast.dim()), 1) if channels_last else fast
    if pooling_type == "max":
        win = _windows(x, kernel, strides, pads, outs, -math.inf)
        ones = torch.ones([1, 1, *sizes], dtype=x.dtype, device=x.device)
        valid = _windows(ones, kernel, strides, pads, outs, 0.0) > 0
        # One cell of each window picked rather than reduced (_max_fold): autograd
        # (pool2d_grad) then sends the gradient to that cell as Paddle's MaxPool grad does,
        # where amax would split it between ties.
        out = _max_fold(win.reshape(*win.shape[:-spatial], -1),
                        valid.reshape(*valid.shape[:-spatial], -1))
    else:
        win = _windows(x, kernel, strides, pads, outs, 0.0)
        total = _window_sum(win, spatial)
        if pooling_type == "sum":  # lp_pool2d's inner sum
            count = None
        elif exclusive:
            ones = torch.ones([1, 1, *sizes], dtype=x.dtype, device=x.device)
            count = _window_sum(_windows(ones, kernel, strides, pads, outs, 0.0), spatial)
        else:
            # Not exclusive: padding counts, but the part of a ceil_mode window hanging past
            # the padding does not (checked against Paddle 3.0.0 and 3.3.1).
            ones = F.pad(torch.ones([1, 1, *sizes], dtype=x.dtype, device=x.device), padding.torch_pad_list(pads),
                         value=1.0)
            count = _window_sum(_windows(ones, kernel, strides, [(0, 0)] * spatial, outs, 0.0),
                                spatial)
        out = total if count is None else total / count
    return out.permute(0, *range(2, out.dim()), 1) if channels_last else out


# strides/paddings are int32 arrays before PIR version 2 and int64 after: same meaning.
@REGISTRY.register("pd_op.pool2d", since=1)
def pool2d(x, kernel_size=(1, 1), *, strides=(1, 1), paddings=(0, 0), ceil_mode=False,
           exclusive=True, data_format="NCHW", pooling_type="max", global_pooling=False,
           adaptive=False, padding_algorithm="EXPLICIT"):
    return pool(x, kernel_size, strides, paddings, ceil_mode, exclusive, data_format,
                pooling_type, global_pooling, adaptive, padding_algorithm, 2)


@REGISTRY.register("pd_op.pool3d", since=1)
def pool3d(x, *, kernel_size=(1, 1, 1), strides=(1, 1, 1), paddings=(0, 0, 0), ceil_mode=False,
           exclusive=True, data_format="NCDHW", pooling_type="max", global_pooling=False,
           adaptive=False, padding_algorithm="EXPLICIT"):
    return pool(x, kernel_size, strides, paddings, ceil_mode, exclusive, data_format,
                pooling_type, global_pooling, adaptive, padding_algorithm, 3)


@REGISTRY.register("pd_op.lp_pool2d", since=1)
def lp_pool2d(x, *, kernel_size=(1, 1), strides=(1, 1), paddings=(0, 0), ceil_mode=False,
              exclusive=True, data_format="NCHW", pooling_type="lp", global_pooling=False,
              adaptive=False, padding_algorithm="EXPLICIT", norm_type=0.0):
    # (sum over the window of x^p)^(1/p); padding adds nothing to the sum.
    if norm_type == 0:  # pool_kernel_impl.h checks it before any arithmetic
        raise ValueError("lp_pool2d: norm_type of LPPool op cannot be 0 (Paddle's "
                         "InvalidArgument)")
    powered = float_pow(x, norm_type)
    total = pool(powered, kernel_size, strides, paddings, ceil_mode, False, data_format, "sum",
                 global_pooling, adaptive, padding_algorithm, 2)
    # the root's exponent is 1.0f / p, a float (bit-exact against Paddle only that way)
    with np.errstate(over="ignore"):  # 1 / a tiny p is inf in float, as 1.0f / p is
        return float_pow(total, float(np.float32(1.0 / norm_type)))


@specializer(pool2d)
def _pool2d_call(site):
    """torch's pooling called directly when the static input size says `_torch_pool` would be
    taken (NCHW, no adaptive, float32/float64)."""
    p = site.p
    x = p["x"]
    shape = site.shape(x)  # the batch may be dynamic, the window rules see H and W only
    if (shape is None or len(shape) != 4 or min(shape[2:]) < 0
            or p["data_format"] != "NCHW" or p["adaptive"]
            or site.dtype(x) not in (torch.float32, torch.float64)
            or p["pooling_type"] not in ("max", "avg")):
        return None
    sizes = list(shape[2:])
    if not isinstance(p["kernel_size"], (list, tuple)) \
            or not all(type(k) is int for k in p["kernel_size"]):
        return None  # a run-time tensor
    kernel = int_list(p["kernel_size"])
    kernel = kernel * 2 if len(kernel) == 1 else kernel
    strides = [int(s) for s in p["strides"]]
    if p["global_pooling"]:
        kernel, pads, strides = sizes, [(0, 0), (0, 0)], [1, 1]
    else:
        pads = padding.resolve(p["paddings"], p["padding_algorithm"], sizes, kernel, strides)
    ceil_mode = p["ceil_mode"]
    outs = [_out_size(sizes[i], kernel[i], pads[i][0], pads[i][1], strides[i], ceil_mode)
            for i in range(2)]
    paddle_pads = pads
    if not all(b == a and 2 * b <= k for (b, a), k in zip(pads, kernel)):
        if p["pooling_type"] != "max":
            return None
        # as _torch_pool: a -inf pad in front, then unpadded pooling
        x = site.call(F.pad, x, padding.torch_pad_list(pads), value=-math.inf)
        sizes = [s + b + a for s, (b, a) in zip(sizes, pads)]
        pads = [(0, 0), (0, 0)]
    if any(_torch_out_size(sizes[i], kernel[i], pads[i][0], strides[i], ceil_mode) != outs[i]
           for i in range(2)):
        return None
    torch_pads = [b for b, _ in pads]
    if p["pooling_type"] == "max":
        facts = site.facts(p["x"])
        if _needs_no_refold(facts, shape[2:], kernel, strides, paddle_pads, outs):
            if not facts.negzero and _tiles(shape[2:], kernel, strides, paddle_pads):
                return site.call(max_pool2d_tiles, x, *kernel)
            return site.call(max_pool2d_nchw, x, kernel, strides, torch_pads, ceil_mode=ceil_mode)
        fast = site.call(max_pool2d_nchw, x, kernel, strides, torch_pads, ceil_mode=ceil_mode)
        return site.call(max_pool_nan_fold, p["x"], fast, kernel, strides, paddle_pads, outs)
    return site.call(F.avg_pool2d, x, kernel, strides, torch_pads, ceil_mode=ceil_mode,
                     count_include_pad=not p["exclusive"])


def _needs_no_refold(facts, sizes, kernel, strides, pads, outs) -> bool:
    """torch's max pool is Paddle's as it is (`max_pool_nan_fold` would return it unchanged)
    where value_facts says the input is never NaN (no NaN window to refold) and never below
    -FLT_MAX (no max under Paddle's -FLT_MAX start: a window of -inf, or float64 values below
    it) and never -0 (no +0 torch takes before a -0 Paddle takes after it), and every window
    holds an input cell (a window of padding alone is Paddle's
    -FLT_MAX, torch's -inf).  A relu's output is such an input."""
    if facts.nan or facts.negzero or not facts.at_least(-_FLT_MAX):
        return False
    return all(b < e for i in range(len(kernel))
               for b, e in _regular_bounds(sizes[i], kernel[i], strides[i], pads[i][0], outs[i]))


def _tiles(sizes, kernel, strides, pads) -> bool:
    """The windows tile the map: stride = kernel, no padding, each dim a multiple of its
    window (then ceil_mode adds no window either)."""
    return (list(kernel) == list(strides) and all(b == a == 0 for b, a in pads)
            and all(s > 0 and s % k == 0 for s, k in zip(sizes, kernel)))
