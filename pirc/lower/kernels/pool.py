"""Pooling: pool2d, pool3d and lp_pool2d, with Paddle's window rules.

Paddle's CPU pooling (phi funcs::Pool2dFunctor) visits, for each output, the input cells of
its window that lie inside the input (padding never enters a max), sums them in row-major
order, and divides by the number of those cells (exclusive, adaptive) or by the number of
window cells inside input plus padding.  ceil_mode adds a last window that may hang past the padding; torch's pooling differs
there and in asymmetric padding, so windows are built here from explicit padding and
unfolding, and the sum is accumulated cell by cell in Paddle's order.
"""

from __future__ import annotations

import math

import numpy as np
import torch
import torch.nn.functional as F

from ...runtime.registry import REGISTRY
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
    if global_pooling:
        kernel, pads, strides = sizes, [(0, 0)] * spatial, [1] * spatial
    elif adaptive:
        out = _adaptive(x, kernel, pooling_type)
        return out.permute(0, *range(2, out.dim()), 1) if channels_last else out
    else:
        pads = padding.resolve(paddings, padding_algorithm, sizes, kernel, strides)
    outs = [_out_size(sizes[i], kernel[i], pads[i][0], pads[i][1], strides[i], ceil_mode)
            for i in range(spatial)]
    if pooling_type == "max":
        win = _windows(x, kernel, strides, pads, outs, -math.inf)
        out = win.amax(list(range(-spatial, 0)))
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
    powered = float_pow(x, norm_type)
    total = pool(powered, kernel_size, strides, paddings, ceil_mode, False, data_format, "sum",
                 global_pooling, adaptive, padding_algorithm, 2)
    # the root's exponent is 1.0f / p, a float (bit-exact against Paddle only that way)
    return float_pow(total, float(np.float32(1.0 / norm_type)))
