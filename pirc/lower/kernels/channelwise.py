"""Per-channel layers: prelu, maxout, affine_channel.

Each follows its phi CPU kernel's element rule rather than torch's builtin where the two can
differ: prelu is `x > 0 ? x : alpha * x` (NaN and -0 take the alpha branch), maxout folds
`ele > x ? ele : x` from -FLT_MAX over each group (a NaN is kept only until the next value,
-inf never beats -FLT_MAX), affine_channel is x * scale + bias, two roundings.
"""

from __future__ import annotations

import numpy as np
import torch

from ...runtime.registry import REGISTRY


def _channel_axis(x, data_format):
    return x.dim() - 1 if data_format in ("NHWC", "NDHWC", "NLC") and x.dim() > 2 else 1


@REGISTRY.register("pd_op.prelu", since=1)
def prelu(x, alpha, *, data_format="NCHW", mode="all"):
    if mode == "all":
        a = alpha.reshape(())
    elif mode == "channel":
        shape = [1] * x.dim()
        shape[_channel_axis(x, data_format)] = -1
        a = alpha.reshape(shape)
    else:  # element: one alpha per element of a sample
        a = alpha.reshape([1, *x.shape[1:]])
    return torch.where(x > 0, x, a * x)


@REGISTRY.register("pd_op.maxout", since=1)
def maxout(x, *, groups=1, axis=1):
    axis = axis + x.dim() if axis < 0 else axis
    channels = x.shape[axis]
    grouped = x.reshape(*x.shape[:axis], channels // groups, groups, *x.shape[axis + 1:])
    ele = torch.full_like(grouped.select(axis + 1, 0), float(-np.finfo(np.float32).max))
    for g in range(groups):
        v = grouped.select(axis + 1, g)
        ele = torch.where(ele > v, ele, v)
    return ele


@REGISTRY.register("pd_op.affine_channel", since=1)
def affine_channel(x, scale, bias, *, data_layout="AnyLayout"):
    shape = [1] * x.dim()
    shape[x.dim() - 1 if data_layout == "NHWC" else 1] = -1
    return x * scale.reshape(shape) + bias.reshape(shape)
