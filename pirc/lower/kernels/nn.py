"""Neural-network layers: conv2d, batch_norm_, layer_norm, group_norm, dropout, one_hot, pad3d.

Normalisations are written in the order Paddle's CPU kernels evaluate them (batch norm in
inference folds mean and inverse std into a per-channel scale and bias first), so float32
results agree to the last bit more often than torch's fused kernels would.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from ...runtime.registry import REGISTRY, Behaviour
from . import padding
from .operands import int_list, number
from .random import generator


def _channels_last_to_first(x):
    return x.permute(0, x.dim() - 1, *range(1, x.dim() - 1))


def _channels_first_to_last(x):
    return x.permute(0, *range(2, x.dim()), 1)


@REGISTRY.register("pd_op.conv2d", since=1)
def conv2d(input, filter, *, strides=(1, 1), paddings=(0, 0), padding_algorithm="EXPLICIT",  # noqa: A002
           dilations=(1, 1), groups=1, data_format="NCHW"):
    x = _channels_last_to_first(input) if data_format == "NHWC" else input
    kernel = list(filter.shape[2:])
    dilations = list(dilations)
    if padding_algorithm == "SAME":
        dilations = [1] * len(kernel)  # Paddle ignores dilation under SAME
    pads = padding.resolve(paddings, padding_algorithm, list(x.shape[2:]), kernel, list(strides))
    if all(b == a for b, a in pads):
        out = F.conv2d(x, filter, None, list(strides), [b for b, _ in pads], dilations, groups)
    else:
        out = F.conv2d(F.pad(x, padding.torch_pad_list(pads)), filter, None, list(strides), 0,
                       dilations, groups)
    return _channels_first_to_last(out) if data_format == "NHWC" else out


def _per_channel(t, x, channel_axis):
    shape = [1] * x.dim()
    shape[channel_axis] = -1
    return t.reshape(shape)


@REGISTRY.register("pd_op.batch_norm_", since=1, flags=Behaviour(
    epsilon_placement="inside_sqrt",
    notes="inference: y = x * (scale/sqrt(var+eps)) + (bias - mean/sqrt(var+eps)*scale)"))
def batch_norm_(x, mean, variance, scale=None, bias=None, *, is_test=False, momentum=0.9,
                epsilon=1e-5, data_format="NCHW", use_global_stats=False,
                trainable_statistics=False):
    channel_axis = x.dim() - 1 if data_format in ("NHWC", "NDHWC", "NLC") and x.dim() > 2 else 1
    channels = x.shape[channel_axis]
    if scale is None:
        scale = torch.ones(channels, dtype=x.dtype)
    if bias is None:
        bias = torch.zeros(channels, dtype=x.dtype)
    global_stats = use_global_stats or (is_test and not trainable_statistics)
    if global_stats:
        inv_std = 1 / torch.sqrt(variance + epsilon)
        new_scale = inv_std * scale
        new_bias = bias - mean * inv_std * scale
        y = x * _per_channel(new_scale, x, channel_axis) + _per_channel(new_bias, x, channel_axis)
        return y, mean, variance, mean, inv_std, None
    dims = [d for d in range(x.dim()) if d != channel_axis]
    batch_mean = torch.mean(x, dims)
    batch_var = torch.mean(torch.square(x - _per_channel(batch_mean, x, channel_axis)), dims)
    inv_std = 1 / torch.sqrt(batch_var + epsilon)
    y = (x - _per_channel(batch_mean, x, channel_axis)) * _per_channel(inv_std * scale, x, channel_axis) \
        + _per_channel(bias, x, channel_axis)
    mean_out = mean * momentum + batch_mean * (1 - momentum)
    var_out = variance * momentum + batch_var * (1 - momentum)
    return y, mean_out, var_out, batch_mean, inv_std, None


@REGISTRY.register("pd_op.layer_norm", since=1, flags=Behaviour(epsilon_placement="inside_sqrt"))
def layer_norm(x, scale=None, bias=None, *, epsilon=1e-5, begin_norm_axis=1):
    left = 1
    for s in x.shape[:begin_norm_axis]:
        left *= s
    rows = x.reshape(left, -1)
    mean = torch.mean(rows, 1)
    var = torch.mean(torch.square(rows - mean[:, None]), 1)
    out = (rows - mean[:, None]) / torch.sqrt(var[:, None] + epsilon)
    if scale is not None:
        out = out * scale.reshape(1, -1)
    if bias is not None:
        out = out + bias.reshape(1, -1)
    return out.reshape(x.shape), mean, var


@REGISTRY.register("pd_op.group_norm", since=1, flags=Behaviour(epsilon_placement="inside_sqrt"))
def group_norm(x, scale=None, bias=None, *, epsilon=1e-5, groups=-1, data_format="NCHW"):
    channels_last = data_format in ("NHWC", "NDHWC", "NLC")
    xc = _channels_last_to_first(x) if channels_last else x
    n = xc.shape[0]
    g = xc.reshape(n, groups, -1)
    mean = torch.mean(g, 2)
    var = torch.mean(torch.square(g - mean[..., None]), 2)
    y = ((g - mean[..., None]) / torch.sqrt(var[..., None] + epsilon)).reshape(xc.shape)
    if scale is not None:
        y = y * _per_channel(scale, y, 1)
    if bias is not None:
        y = y + _per_channel(bias, y, 1)
    if channels_last:
        y = _channels_first_to_last(y)
    return y, mean, var


@REGISTRY.register("pd_op.dropout", since=1)
def dropout(x, seed_tensor=None, p=0.5, *, is_test=False, mode="downgrade_in_infer", seed=0,
            fix_seed=False):
    p = float(number(p))
    if is_test:
        # upscale_in_train scaled at training time; downgrade_in_infer scales now.
        out = x.clone() if mode == "upscale_in_train" else x * (1.0 - p)
        return out, None
    keep = torch.rand(x.shape, generator=generator(seed if fix_seed else 0)) >= p
    mask = keep.to(torch.uint8)
    if mode == "upscale_in_train":
        out = torch.zeros_like(x) if p == 1.0 else x * mask.to(x.dtype) / (1.0 - p)
    else:
        out = x * mask.to(x.dtype)
    return out, mask


@REGISTRY.register("pd_op.one_hot", since=1)
def one_hot(x, num_classes=-1):
    return F.one_hot(x.to(torch.int64), int(number(num_classes))).to(torch.float32)


@REGISTRY.register("pd_op.pad3d", since=1)
def pad3d(x, paddings=(), *, mode="constant", pad_value=0.0, data_format="NCDHW"):
    pads = int_list(paddings)  # [left, right, top, bottom, front, back]: F.pad's order
    xc = _channels_last_to_first(x) if data_format == "NDHWC" else x
    if mode == "constant":
        out = F.pad(xc, pads, mode="constant", value=pad_value)
    else:
        out = F.pad(xc, pads, mode=mode)
    return _channels_first_to_last(out) if data_format == "NDHWC" else out
