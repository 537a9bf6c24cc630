"""Neural-network layers: conv2d, depthwise_conv2d, conv3d, batch_norm(_), layer_norm, group_norm,
instance_norm, dropout, one_hot, pad3d.

Normalisations are written in the order Paddle's CPU kernels evaluate them (batch norm in
inference folds mean and inverse std into a per-channel scale and bias first), so float32
results agree to the last bit more often than torch's fused kernels would.  One exception,
for speed: layer_norm's specialisation (pirc.lower.specialize, at the end of this module)
calls torch's fused layer_norm, which on the kernel cases is exactly as close to Paddle's
numbers as the decomposition (neither is bit for bit: reduction order).
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F

from ...runtime.registry import REGISTRY, Behaviour
from ..specialize import specializer
from . import padding
from .operands import int_list, number
from .random import generator


def _channels_last_to_first(x):
    return x.permute(0, x.dim() - 1, *range(1, x.dim() - 1))


def _channels_first_to_last(x):
    return x.permute(0, *range(2, x.dim()), 1)


def _conv(fn, input, filter, strides, paddings, padding_algorithm, dilations, groups,  # noqa: A002
          data_format):
    """phi ConvKernel's shape rules (UpdatePaddingAndDilation) over torch's convolution `fn`;
    asymmetric padding is applied with F.pad first."""
    channels_last = data_format in ("NHWC", "NDHWC")
    x = _channels_last_to_first(input) if channels_last else input
    kernel = list(filter.shape[2:])
    dilations = list(dilations)
    if padding_algorithm == "SAME":
        dilations = [1] * len(kernel)  # Paddle ignores dilation under SAME
    pads = padding.resolve(paddings, padding_algorithm, list(x.shape[2:]), kernel, list(strides))
    if all(b == a for b, a in pads):
        out = fn(x, filter, None, list(strides), [b for b, _ in pads], dilations, groups)
    else:
        out = fn(F.pad(x, padding.torch_pad_list(pads)), filter, None, list(strides), 0,
                 dilations, groups)
    return _channels_first_to_last(out) if channels_last else out


@REGISTRY.register("pd_op.conv2d", since=1)
def conv2d(input, filter, *, strides=(1, 1), paddings=(0, 0), padding_algorithm="EXPLICIT",  # noqa: A002
           dilations=(1, 1), groups=1, data_format="NCHW"):
    return _conv(F.conv2d, input, filter, strides, paddings, padding_algorithm, dilations,
                 groups, data_format)


@REGISTRY.register("pd_op.conv3d", since=1)
def conv3d(input, filter, *, strides=(1, 1, 1), paddings=(0, 0, 0),  # noqa: A002
           padding_algorithm="EXPLICIT", groups=1, dilations=(1, 1, 1), data_format="NCDHW"):
    return _conv(F.conv3d, input, filter, strides, paddings, padding_algorithm, dilations,
                 groups, data_format)


# What nn.Conv2D emits when groups == in_channels: Paddle runs the same shape rules
# (UpdatePaddingAndDilation, SAME resets dilation) with a depthwise kernel; the filter is
# [out_channels, 1, kh, kw], i.e. an ordinary grouped convolution with groups = in_channels.
@REGISTRY.register("pd_op.depthwise_conv2d", since=1)
def depthwise_conv2d(input, filter, *, strides=(1, 1), paddings=(0, 0),  # noqa: A002
                     padding_algorithm="EXPLICIT", groups=1, dilations=(1, 1), data_format="NCHW"):
    return conv2d(input, filter, strides=strides, paddings=paddings,
                  padding_algorithm=padding_algorithm, dilations=dilations, groups=groups,
                  data_format=data_format)


def _per_channel(t, x, channel_axis):
    shape = [1] * x.dim()
    shape[channel_axis] = -1
    return t.reshape(shape)


# batch_norm (what _C_ops.batch_norm builds) is batch_norm_ without the in-place statistics.
@REGISTRY.register("pd_op.batch_norm", since=1, flags=Behaviour(
    epsilon_placement="inside_sqrt",
    notes="inference: y = x * (scale/sqrt(var+eps)) + (bias - mean/sqrt(var+eps)*scale)"))
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
        # in place on the fresh product: the same two roundings, one allocation less
        y = (x * _per_channel(new_scale, x, channel_axis)).add_(_per_channel(new_bias, x, channel_axis))
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
    centred = rows - mean[:, None]
    var = torch.mean(centred * centred, 1)
    # The same operations as (x - mean) / sqrt(var + eps) * scale + bias; scale and bias in
    # place on the fresh quotient: same numbers, fewer allocations.  (Not `centred.div_`:
    # autograd keeps `centred` for the variance's gradient.)
    out = centred / torch.sqrt(var + epsilon)[:, None]
    if scale is not None:
        out = out.mul_(scale.reshape(1, -1))
    if bias is not None:
        out = out.add_(bias.reshape(1, -1))
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


@REGISTRY.register("pd_op.instance_norm", since=1, flags=Behaviour(epsilon_placement="inside_sqrt"))
def instance_norm(x, scale=None, bias=None, *, epsilon=1e-5):
    # phi InstanceNormKernel: per (sample, channel) over the spatial cells; saved_variance is
    # the inverse standard deviation 1/sqrt(var + eps), as Paddle saves it.
    n, c = x.shape[0], x.shape[1]
    rows = x.reshape(n * c, -1)
    mean = torch.mean(rows, 1)
    centred = rows - mean[:, None]
    var = torch.mean(centred * centred, 1)
    inv_std = 1 / torch.sqrt(var + epsilon)
    y = (centred * inv_std[:, None]).reshape(x.shape)
    if scale is not None:
        y = y * _per_channel(scale, y, 1)
    if bias is not None:
        y = y + _per_channel(bias, y, 1)
    return y, mean, inv_std


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


@REGISTRY.register("pd_op.rrelu", since=1)
def rrelu(x, *, lower=1.0 / 8, upper=1.0 / 3, is_test=False):
    """phi RReluKernel: negative x times a slope (x < 0: NaN and -0 pass through), with the
    slope as the noise output (1 elsewhere).  Testing uses (lower + upper) / 2, the sum in
    float and the halving in double, cast to x's dtype; training draws it in [lower, upper)."""
    negative = x < 0
    if is_test:
        mid = float(np.float32(np.float32(lower) + np.float32(upper))) / 2.0
        slope = torch.tensor(mid, dtype=torch.float32).to(x.dtype)
        noise = torch.where(negative, slope, torch.ones_like(x))
    else:
        draw = torch.rand(x.shape, dtype=x.dtype, device=x.device) * (upper - lower) + lower
        noise = torch.where(negative, draw, torch.ones_like(x))
    return torch.where(negative, x * noise, x), noise


@REGISTRY.register("pd_op.sequence_mask", since=1)
def sequence_mask(x, max_len=-1, *, out_dtype=None):
    """y[..., j] = j < x[...], j over [0, max_len); max_len < 0 means max(x)."""
    n = int(number(max_len))
    if n < 0:
        n = int(x.max()) if x.numel() else 0
    out = torch.arange(n, device=x.device) < x.unsqueeze(-1)
    return out.to(out_dtype if isinstance(out_dtype, torch.dtype) else torch.int64)


@REGISTRY.register("pd_op.embedding_with_scaled_gradient", since=1)
def embedding_with_scaled_gradient(x, weight, *, padding_idx=-1):
    """Forward is embedding's (the gradient is what it scales)."""
    from .grad_nn import embedding  # registered after the forward modules
    return embedding(x, weight, padding_idx=padding_idx)


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


# -- specialisations (pirc.lower.specialize) ---------------------------------------------------

def _conv2d_call(site):
    x, w = site.p["input"], site.p["filter"]
    shape, wshape = site.shape(x), site.static_shape(w)
    if site.p["data_format"] != "NCHW" or shape is None or len(shape) != 4 or wshape is None:
        return None
    algorithm = site.p["padding_algorithm"]
    if algorithm == "SAME" and any(d < 0 for d in shape[2:]):
        return None  # SAME's padding depends on the input size
    dilations = [1, 1] if algorithm == "SAME" else list(site.p["dilations"])
    pads = padding.resolve(site.p["paddings"], algorithm, list(shape[2:]), list(wshape[2:]),
                           list(site.p["strides"]))
    if any(b != a for b, a in pads):
        return None
    return site.call(F.conv2d, x, w, None, list(site.p["strides"]), [b for b, _ in pads],
                     dilations, site.p["groups"])


specializer(conv2d)(_conv2d_call)
specializer(depthwise_conv2d)(_conv2d_call)


@specializer(batch_norm_)
def _batch_norm_call(site):
    """Inference with parameter statistics: the per-channel scale and bias the kernel folds on
    every call are folded once, by the kernel itself, into buffers; x * s + b remains."""
    p = site.p
    x = p["x"]
    rank = site.rank(x)
    if not (p["use_global_stats"] or (p["is_test"] and not p["trainable_statistics"])) or not rank:
        return None
    consts = [site.constant(p[k]) for k in ("mean", "variance", "scale", "bias")]
    if any(c is None for c in consts) or not site.root:
        return None
    channel_axis = rank - 1 if p["data_format"] in ("NHWC", "NDHWC", "NLC") and rank > 2 else 1
    shape = [1] * rank
    shape[channel_axis] = -1
    mean, variance, scale, bias = consts
    inv_std = 1 / torch.sqrt(variance + p["epsilon"])
    new_scale = (inv_std * scale).reshape(shape)
    new_bias = (bias - mean * inv_std * scale).reshape(shape)  # the kernel's formulas
    s_node = site.buffer(new_scale.clone(), "bn_scale")
    b_node = site.buffer(new_bias.clone(), "bn_bias")
    y = site.method("add_", site.call(torch.mul, x, s_node), b_node)
    # the other results as the kernel returns them (parameters, never updated at inference)
    return (y, p["mean"], p["variance"], p["mean"], None, None)


@specializer(dropout)
def _dropout_call(site):
    p = site.p
    if not p["is_test"] or type(p["p"]) not in (int, float):
        return None
    x = p["x"]
    if p["mode"] == "upscale_in_train":
        return (x, None)  # an identity (taken only where x is computed in the graph)
    return (site.call(torch.mul, x, 1.0 - float(p["p"])), None)


@specializer(layer_norm)
def _layer_norm_call(site):
    """torch's fused layer_norm when only the normalised value is used.  Its float32 numbers
    are as close to Paddle's as the kernel's mean / variance decomposition: neither is bit
    for bit (reduction order), both are within 5e-7 on the kernel cases
    (tests/fixtures/kernel_cases, layer_norm_axis2: same largest difference)."""
    p = site.p
    x, scale, bias = p["x"], p["scale"], p["bias"]
    shape = site.shape(x)
    if shape is None or site.dtype(x) not in (torch.float32, torch.float64):
        return None
    axis = p["begin_norm_axis"]
    normalized = list(shape[axis:])
    if not normalized or min(normalized) < 0:
        return None
    size = 1
    for d in normalized:
        size *= d
    weights = []
    for t in (scale, bias):
        if t is not None:
            ts = site.shape(t)
            if ts is None or list(ts) != [size] or site.dtype(t) != site.dtype(x):
                return None
            if len(normalized) > 1:
                t = site.call(torch.reshape, t, normalized)
        weights.append(t)
    # torch.layer_norm: the aten op F.layer_norm calls, without its Python frame (its last
    # argument, cudnn_enable, is ignored by aten)
    return (site.call(torch.layer_norm, x, normalized, weights[0], weights[1], p["epsilon"]),
            None, None)
