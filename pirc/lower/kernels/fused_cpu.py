"""Paddle's CPU fusion ops, the ops its inference passes put in place of op chains, as
its CPU kernels (phi/kernels/fusion/cpu/*, phi/kernels/cpu/*) compute them."""

from __future__ import annotations

import math

import torch

from ...runtime.registry import REGISTRY
from ..specialize import specializer
from ..softmax_rows import softmax_last

_BINARY = {"elementwise_add": torch.add, "elementwise_mul": torch.mul}


def _clip(t):
    # phi funcs/functors.h: sigmoid and tanh clip their input to [-40, 13] first
    return torch.clamp(t, -40.0, 13.0)


def _relu(t):
    # phi funcs ReluFunctor: x * (x > 0), so a negative x gives -0 and NaN stays NaN
    return t * (t > 0).to(t.dtype)


def _sigmoid(t):
    return 1 / (1 + torch.exp(-_clip(t)))


def _tanh(t):
    return 2 / (1 + torch.exp(-2 * _clip(t))) - 1


def _unary(name, scale):
    return {"relu": _relu, "tanh": _tanh, "sigmoid": _sigmoid,
            "scale": lambda t: t * torch.tensor(scale, dtype=t.dtype)}[name]


def _y_for(x, y, axis):
    # Paddle's elementwise axis: y's dims line up with x's from `axis` (-1: trailing)
    if axis == -1 or y.dim() == x.dim():
        return y
    return y.reshape(list(y.shape) + [1] * (x.dim() - axis - y.dim()))


@REGISTRY.register("pd_op.fused_elemwise_activation", since=1)
def fused_elemwise_activation(x, y, *, functor_list=(), axis=-1, scale=0.0,
                              save_intermediate_out=False):
    # phi RunFunctors: [binary, unary] is Z = binary(X, unary(Y)), intermediate unary(Y);
    # [unary, binary] is Z = unary(binary(X, Y)), intermediate binary(X, Y)
    f0, f1 = functor_list[0], functor_list[1]
    y = _y_for(x, y, axis)
    if f0 in _BINARY:
        mid = _unary(f1, scale)(y)
        out = _BINARY[f0](x, mid)
    else:
        mid = _BINARY[f1](x, y)
        out = _unary(f0, scale)(mid)
    return out, (mid if save_intermediate_out else None)


REGISTRY.register("pd_op.fused_elemwise_add_activation", since=1)(fused_elemwise_activation)


@REGISTRY.register("pd_op.fused_softmax_mask", since=1)
def fused_softmax_mask(x, mask):
    # softmax over the last axis of x + mask, the mask [b, 1, s, t] broadcast over heads
    return softmax_last(x + mask)


@REGISTRY.register("pd_op.fused_bias_residual_layernorm", since=1)
def fused_bias_residual_layernorm(x, bias=None, residual=None, norm_weight=None,
                                  norm_bias=None, *, epsilon=1e-5, residual_alpha=1.0,
                                  begin_norm_axis=1, quant_scale=-1.0, quant_round_type=0,
                                  quant_max_bound=0.0, quant_min_bound=0.0):
    # phi FusedLayerNormAvxKernel (float32, AVX-512): without norm weight and bias, out =
    # x + residual * alpha + bias and nothing else is written; else v = x, plus residual *
    # alpha and bias ONLY when a residual is given (bias alone is ignored), residual_out = v;
    # mean = E[v]; variance holds 1 / sqrt(E[v^2] - mean^2 + eps) (the inverse std), out =
    # (v - mean) * gamma * inv + beta over the dims from begin_norm_axis
    rows = math.prod(x.shape[:begin_norm_axis])
    v = x.reshape(rows, -1)
    alpha = torch.tensor(residual_alpha, dtype=x.dtype)
    if norm_weight is None and norm_bias is None:
        out = v
        if residual is not None:
            out = out + residual.reshape(rows, -1) * alpha
        if bias is not None:
            out = out + bias.reshape(1, -1)
        mean = torch.zeros(rows, dtype=x.dtype)
        return out.reshape(x.shape), None, mean, mean
    res_out = None
    if residual is not None:
        v = v + residual.reshape(rows, -1) * alpha
        if bias is not None:
            v = v + bias.reshape(1, -1)
        res_out = v.reshape(x.shape)
    n = v.shape[1]
    mean = v.sum(1) / n
    inv = 1 / torch.sqrt((v * v).sum(1) / n - mean * mean + epsilon)
    out = (v - mean[:, None])
    if norm_weight is not None:
        out = out * norm_weight.reshape(1, -1)
    out = out * inv[:, None]
    if norm_bias is not None:
        out = out + norm_bias.reshape(1, -1)
    return out.reshape(x.shape), res_out, mean, inv


@specializer(fused_bias_residual_layernorm)
def _residual_layernorm_call(site):
    """The residual form (a residual, a norm weight or bias: what fuse-residual-layer-norm
    makes) as 13 torch calls on x's own dims, decided once: no 2-D reshape round trip, no
    0-D alpha tensor per call (alpha 1 is skipped: residual * 1 is the residual), the
    statistics as keepdim means (CPU torch.mean is sum then div_(n): the kernel's sum / n),
    the rest in place on the fresh temporaries; 1 / sqrt stays sqrt_ and reciprocal_ (torch's
    AVX-512 rsqrt differs from it in the last bit on ~0.6% of floats, addcmul fuses into an
    FMA).  mean and the inverse std are flattened only where read.  The kernel's formula
    and operation order throughout (E[v^2] - mean^2, Paddle's cancellation included): the
    same bits where v is dense (its reduction then runs over the same rows)."""
    p = site.p
    x, residual = p["x"], p["residual"]
    shape, dtype = site.shape(x), site.dtype(x)
    begin, alpha = p["begin_norm_axis"], p["residual_alpha"]
    if (residual is None or (p["norm_weight"] is None and p["norm_bias"] is None)
            or dtype not in (torch.float32, torch.float64) or shape is None
            or type(begin) is not int or not 0 <= begin < len(shape)
            or type(alpha) not in (int, float) or site.shape(residual) != shape
            or site.dtype(residual) != dtype or min(shape[begin:]) < 0):
        return None
    normalized = list(shape[begin:])
    weights = {}
    for name in ("bias", "norm_weight", "norm_bias"):
        t = p[name]
        if t is None:
            continue
        if site.dtype(t) != dtype or site.static_shape(t) not in ((math.prod(normalized),),
                                                                 (1, math.prod(normalized))):
            return None
        weights[name] = t if site.shape(t) == (normalized[-1],) and len(normalized) == 1 \
            else site.call(torch.reshape, t, normalized)
    dims = list(range(begin, len(shape)))
    if alpha != 1:
        residual = site.call(torch.mul, residual, float(alpha))
    v = site.call(torch.add, x, residual)
    if "bias" in weights:
        v = site.method("add_", v, weights["bias"])
    mean = site.call(torch.mean, v, dims, keepdim=True)
    inv = site.call(torch.mean, site.call(torch.mul, v, v), dims, keepdim=True)
    inv = site.method("sub_", inv, site.call(torch.mul, mean, mean))
    inv = site.method("sqrt_", site.method("add_", inv, float(p["epsilon"])))
    inv = site.method("reciprocal_", inv)
    out = site.call(torch.sub, v, mean)
    if "norm_weight" in weights:
        out = site.method("mul_", out, weights["norm_weight"])
    out = site.method("mul_", out, inv)
    if "norm_bias" in weights:
        out = site.method("add_", out, weights["norm_bias"])
    return (out, v, site.call(torch.reshape, mean, (-1,)), site.call(torch.reshape, inv, (-1,)))


@REGISTRY.register("pd_op.fusion_repeated_fc_relu", since=1)
def fusion_repeated_fc_relu(x, w, bias):
    # relu(x W_i + b_i) for every layer, the last one included; relu_out holds each
    # layer's output but the last
    outs, h = [], x
    for wi, bi in zip(w, bias):
        h = torch.relu(h @ wi + bi.reshape(1, -1))
        outs.append(h)
    return outs[:-1], h


@REGISTRY.register("pd_op.fusion_squared_mat_sub", since=1)
def fusion_squared_mat_sub(x, y, *, scalar=1.0):
    # ((x y)^2 - (x^2)(y^2)) * scalar, also giving x^2, y^2 and (x y)^2
    sx, sy = x * x, y * y
    xy = x @ y
    sxy = xy * xy
    return sx, sy, sxy, (sxy - sx @ sy) * torch.tensor(scalar, dtype=x.dtype)


@REGISTRY.register("pd_op.add_position_encoding", since=1)
def add_position_encoding(x, *, alpha=1.0, beta=1.0):
    # phi AddPositionEncodingKernel: for position j and k < half = D / 2,
    # val = j / 10000^(k / (half - 1)) (j / 10000 when half == 1) in double;
    # out[..., k] = x * alpha + sin(val) * beta, out[..., half + k] = x * alpha + cos(val) * beta
    seq, d = x.shape[1], x.shape[2]
    half = d // 2
    j = torch.arange(seq, dtype=torch.float64)[:, None]
    k = torch.arange(half, dtype=torch.float64)[None, :]
    val = j / torch.pow(10000.0, k / (half - 1)) if half > 1 else j / 10000.0
    pe = torch.cat([torch.sin(val), torch.cos(val)], 1)
    a = torch.tensor(alpha, dtype=x.dtype)
    if x.dtype == torch.float64:
        return x * a + pe * beta
    # float: sin(val) * beta in double, x * alpha in float, the sum rounded to float
    return (x * a).to(torch.float64).add(pe * float(beta)).to(x.dtype)
