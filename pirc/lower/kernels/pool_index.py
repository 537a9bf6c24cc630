"""Max pooling with indices and its inverse: max_pool2d/3d_with_index, fractional_max_pool2d/3d,
unpool, unpool3d.

phi's MaxPool*WithIndexFunctor and FractionalMaxPool*Functor scan each window (cells inside
the input only) in row-major order from ele = -FLT_MAX, index = -1, and take a cell when
`ele < x`: the first maximum wins, NaN never does, and a window with nothing above -FLT_MAX
(all -inf or NaN, or empty) gives -FLT_MAX with index -1.  torch's max pooling propagates NaN
and starts from -inf, so the windows are gathered here with index tables built at trace time
(the window bounds of each output cell per dim, Paddle's integer and float32 arithmetic) and
the rule applied to them.  The mask is the flat index into the sample's spatial cells, int32.
unpool scatters each input value to its index in a zero output.
"""

from __future__ import annotations

import numpy as np
import torch

from ...runtime.registry import REGISTRY
from .c_numerics import wrap_int32
from .operands import c_int_cast, int_list

F32 = np.float32
_LOWEST = float(-np.finfo(np.float32).max)


def _regular_bounds(size, k, stride, pad, out):
    bounds = []
    for o in range(out):
        start = o * stride - pad
        bounds.append((max(start, 0), min(start + k, size)))
    return bounds


def _adaptive_bounds(size, out):
    # AdaptStartIndex / AdaptEndIndex: floor / ceil of a float32 quotient
    return [(int(np.floor(F32(o * size) / F32(out))), int(np.ceil(F32((o + 1) * size) / F32(out))))
            for o in range(out)]


def _index_table(bounds, sizes):
    """(outputs, cells) flat input indices of each output's window, row-major over the window
    (Paddle's loop order); -1 pads the shorter windows."""
    spatial = len(sizes)
    tables, valid = [], []
    for d in range(spatial):
        k = max([e - s for s, e in bounds[d]] + [1])
        t = np.full((len(bounds[d]), k), -1, np.int64)
        for o, (s, e) in enumerate(bounds[d]):
            if e > s:
                t[o, :e - s] = np.arange(s, e)
        tables.append(t)
    outs = [t.shape[0] for t in tables]
    ks = [t.shape[1] for t in tables]
    flat = np.zeros(outs + ks, np.int64)
    ok = np.ones(outs + ks, bool)
    stride = 1
    for d in reversed(range(spatial)):
        shape = [1] * (2 * spatial)
        shape[d], shape[spatial + d] = outs[d], ks[d]
        t = tables[d].reshape(shape)
        flat = flat + np.maximum(t, 0) * stride
        ok = ok & (t >= 0)
        stride *= sizes[d]
    return np.where(ok, flat, -1).reshape(int(np.prod(outs)), int(np.prod(ks))), outs


def _max_with_index(x, bounds):
    sizes = list(x.shape[2:])
    table, outs = _index_table(bounds, sizes)
    cells = int(np.prod(sizes))
    sentinel = torch.full((*x.shape[:2], 1), -torch.inf, dtype=x.dtype, device=x.device)
    flat = torch.cat([x.reshape(*x.shape[:2], cells), sentinel], -1)
    gather = torch.as_tensor(np.where(table >= 0, table, cells), device=x.device)
    vals = flat[..., gather]                                      # (N, C, outputs, cells)
    candidates = torch.where(vals > _LOWEST, vals, -torch.inf)    # NaN and <= -FLT_MAX lose
    pick = candidates.argmax(-1, keepdim=True)                    # the first maximum
    best = vals.gather(-1, pick).squeeze(-1)
    found = candidates.gather(-1, pick).squeeze(-1) > -torch.inf
    index = torch.as_tensor(table, device=x.device)[torch.arange(table.shape[0]), pick.squeeze(-1)]
    out = torch.where(found, best, torch.full_like(best, _LOWEST))
    mask = torch.where(found, index, -1).to(torch.int32)
    shape = [*x.shape[:2], *outs]
    return out.reshape(shape), mask.reshape(shape)


def _with_index(x, kernel_size, strides, paddings, global_pooling, adaptive, ceil_mode, spatial):
    sizes = list(x.shape[2:])
    kernel = int_list(kernel_size)
    if adaptive:
        return _max_with_index(x, [_adaptive_bounds(sizes[d], kernel[d]) for d in range(spatial)])
    strides, pads = [int(s) for s in strides], [int(p) for p in paddings][:spatial]
    if global_pooling:
        kernel, pads = sizes, [0] * spatial
    bounds = []
    for d in range(spatial):
        span = sizes[d] - kernel[d] + 2 * pads[d] + (strides[d] - 1 if ceil_mode else 0)
        bounds.append(_regular_bounds(sizes[d], kernel[d], strides[d], pads[d],
                                      span // strides[d] + 1))
    return _max_with_index(x, bounds)


@REGISTRY.register("pd_op.max_pool2d_with_index", since=1)
def max_pool2d_with_index(x, *, kernel_size=(1, 1), strides=(1, 1), paddings=(0, 0),
                          global_pooling=False, adaptive=False, ceil_mode=False):
    return _with_index(x, kernel_size, strides, paddings, global_pooling, adaptive, ceil_mode, 2)


@REGISTRY.register("pd_op.max_pool3d_with_index", since=1)
def max_pool3d_with_index(x, *, kernel_size=(1, 1, 1), strides=(1, 1, 1), paddings=(0, 0, 0),
                          global_pooling=False, adaptive=False, ceil_mode=False):
    return _with_index(x, kernel_size, strides, paddings, global_pooling, adaptive, ceil_mode, 3)


def _i32(v) -> int:
    return c_int_cast(float(v), torch.int32)


def _fractional_bounds(size, out, k, u):
    """FractionalRationalU / FractionalStartIndex / FractionalEndIndex in float32."""
    with np.errstate(all="ignore"):
        return _fractional_bounds_f32(size, out, k, u)


def _fractional_bounds_f32(size, out, k, u):
    alpha = F32(size - k) / F32(out - (1 if k > 0 else 0))
    if k <= 0:
        base = size // out
        u_max1 = F32(base + 2) / alpha - F32(1)
        u_max2 = F32(size + 1 - base) / alpha - F32(out - 1)
        u = F32(u) * min(u_max1, u_max2)
    u = F32(u)
    # static_cast<int> as x86 does it: one output and a kernel make alpha (size - k) / 0 = inf,
    # so every index is INT_MIN and start = INT_MIN - INT_MIN = 0 (Paddle 3.3.1: the window
    # at 0); int sums wrap
    offset = _i32(u * alpha)
    bounds = []
    for o in range(out):
        start = wrap_int32(_i32((F32(o) + u) * alpha) - offset)
        end = wrap_int32(start + k) if k > 0 else wrap_int32(_i32((F32(o + 1) + u) * alpha)
                                                              - offset)
        bounds.append((max(start, 0), min(end, size)))
    return bounds


def _fractional(x, output_size, kernel_size, random_u, spatial):
    sizes = list(x.shape[2:])
    outs = int_list(output_size)
    ks = int_list(kernel_size) or [0] * spatial
    # random_u == 0: Paddle draws u from its CPU engine; a draw of torch's stands in for it
    u = float(random_u) if random_u else float(torch.rand(()))
    return _max_with_index(x, [_fractional_bounds(sizes[d], outs[d], ks[d], u)
                               for d in range(spatial)])


@REGISTRY.register("pd_op.fractional_max_pool2d", since=1)
def fractional_max_pool2d(x, *, output_size=(), kernel_size=(0, 0), random_u=0.0,
                          return_mask=True):
    return _fractional(x, output_size, kernel_size, random_u, 2)


@REGISTRY.register("pd_op.fractional_max_pool3d", since=1)
def fractional_max_pool3d(x, *, output_size=(), kernel_size=(0, 0, 0), random_u=0.0,
                          return_mask=True):
    return _fractional(x, output_size, kernel_size, random_u, 3)


def _unpool(x, indices, outs, channels_last):
    if channels_last:
        x = x.permute(0, x.dim() - 1, *range(1, x.dim() - 1))
        indices = indices.permute(0, indices.dim() - 1, *range(1, indices.dim() - 1))
    n, c = x.shape[:2]
    out = torch.zeros((n, c, int(np.prod(outs))), dtype=x.dtype, device=x.device)
    out = out.scatter(2, indices.reshape(n, c, -1).to(torch.int64), x.reshape(n, c, -1))
    out = out.reshape(n, c, *outs)
    return out.permute(0, *range(2, out.dim()), 1) if channels_last else out


def _unpool_sizes(x, output_size, ksize, strides, paddings, spatial, channels_last):
    outs = int_list(output_size)[-spatial:] if output_size is not None else []
    if not outs or not any(outs):
        sizes = x.shape[1:-1] if channels_last else x.shape[2:]
        outs = [(int(sizes[d]) - 1) * int(strides[d]) - 2 * int(paddings[d]) + int(ksize[d])
                for d in range(spatial)]
    return outs


@REGISTRY.register("pd_op.unpool", since=1)
def unpool(x, indices, output_size=None, *, ksize=(), strides=(), padding=(),
           data_format="NCHW"):
    last = data_format == "NHWC"
    return _unpool(x, indices, _unpool_sizes(x, output_size, ksize, strides, padding, 2, last),
                   last)


@REGISTRY.register("pd_op.unpool3d", since=1)
def unpool3d(x, indices, *, ksize=(), strides=(1, 1, 1), paddings=(0, 0, 0),
             output_size=(0, 0, 0), data_format="NCDHW"):
    last = data_format == "NDHWC"
    return _unpool(x, indices,
                   _unpool_sizes(x, list(output_size), ksize, strides, paddings, 3, last), last)
