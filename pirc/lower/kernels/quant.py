"""Quantisation ops: Paddle's fake quantisers (abs max, channel-wise, moving average, range),
their dequantisers, quantize_linear / dequantize_linear, the int8 / int16 / log dequantisers
and weight_quantize, after phi's funcs/fake_quantize_functor.cc and the CPU kernels.

What differs from torch's builtins:
- the abs max is std::abs(*std::max_element(x, |a| < |b|)): a NaN first in the tensor is kept
  (no comparison with it is true), a NaN anywhere else is skipped;
- the scale's inverse is 1 / (s + 1e-6) when s <= 1e-30, else 1 / s;
- round_type 0 rounds half to even (roundWithTiesToEven) and then clamps to
  [-bin_cnt - 1, bin_cnt]; round_type 1 first clips x to [-s, s] (x < -s ? -s : x > s ? s : x,
  so NaN passes) and rounds half away from zero (std::round / Eigen's round), which torch has
  no builtin for; bin_cnt = 2^(bit_length - 1) - 1;
- every product is formed in Paddle's order, (bin_cnt * inv_s) * x and (q * s) / bin_cnt, in
  float32 (the kernels are float32 only), so the results are bit for bit Paddle's.
"""

from __future__ import annotations

import torch

from ...runtime.registry import REGISTRY


def round_away(t):
    """std::round: halves away from zero (trunc, then one step where |t - trunc| >= 0.5;
    the difference is exact in floating point, so no double rounding as with floor(t + .5))."""
    r = torch.trunc(t)
    return torch.where(torch.abs(t - r) >= 0.5, r + torch.sign(t), r)


def abs_max(x):
    """FindAbsMaxFunctor over all of x, as a [1] tensor."""
    a = torch.abs(x.reshape(-1))
    m = torch.where(torch.isnan(a), torch.zeros_like(a), a).amax().reshape(1)
    return torch.where(torch.isnan(a[:1]), a[:1], m)


def _inverse(s):
    return torch.where(s <= torch.tensor(1e-30, dtype=s.dtype), 1 / (s + 1e-6), 1 / s)


def _clip(x, s):
    return torch.where(x < -s, -s, torch.where(x > s, s, x))


def _bins(bit_length):
    return float(2 ** (bit_length - 1) - 1)


def quant_values(x, s, bin_cnt, round_type):
    """ClipAndFakeQuantFunctor (s broadcasts against x: one scale, or a channel's)."""
    inv_s = _inverse(s)
    if round_type == 0:
        q = torch.round(bin_cnt * inv_s * x)
        q = torch.where(q > bin_cnt, torch.full_like(q, bin_cnt), q)
        return torch.where(q < -bin_cnt - 1, torch.full_like(q, -bin_cnt - 1), q)
    return round_away(bin_cnt * inv_s * _clip(x, s))


def quant_dequant_values(x, s, bin_cnt, round_type):
    """ClipAndFakeQuantDequantFunctor: the quantised value times s over bin_cnt."""
    return quant_values(x, s, bin_cnt, round_type) * s / bin_cnt


def _channel_view(t, axis, x):
    """A per-channel tensor shaped to broadcast along `axis` of x."""
    shape = [1] * x.dim()
    shape[axis] = -1
    return t.reshape(shape)


def channel_abs_max(x, quant_axis):
    """FindChannelAbsMaxFunctor: axis 0 takes each channel's abs max (NaN-first rule); axis 1
    folds the abs max of every (row, channel) block with std::max from 0, which drops a NaN
    block max (0 < NaN is false)."""
    if quant_axis == 0:
        blocks = torch.abs(x.reshape(x.shape[0], -1))
    else:
        blocks = torch.abs(x.reshape(x.shape[0], x.shape[1], -1))
    nan = torch.isnan(blocks)
    m = torch.where(nan, torch.zeros_like(blocks), blocks).amax(-1)
    m = torch.where(nan[..., 0], blocks[..., 0], m)
    if quant_axis == 0:
        return m
    return torch.where(torch.isnan(m), torch.zeros_like(m), m).amax(0)


@REGISTRY.register("pd_op.fake_quantize_abs_max", since=1)
def fake_quantize_abs_max(x, *, bit_length=8, round_type=1):
    s = abs_max(x)
    return quant_values(x, s, _bins(bit_length), round_type), s


@REGISTRY.register("pd_op.fake_quantize_dequantize_abs_max", since=1)
def fake_quantize_dequantize_abs_max(x, *, bit_length=8, round_type=1):
    s = abs_max(x)
    return quant_dequant_values(x, s, _bins(bit_length), round_type), s


@REGISTRY.register("pd_op.fake_channel_wise_quantize_abs_max", since=1)
def fake_channel_wise_quantize_abs_max(x, *, bit_length=8, round_type=1, quant_axis=0,
                                       is_test=False):
    # is_test reads the scales from the (uninitialised) output: only training is defined.
    s = channel_abs_max(x, quant_axis)
    return quant_values(x, _channel_view(s, quant_axis, x), _bins(bit_length), round_type), s


@REGISTRY.register("pd_op.fake_channel_wise_quantize_dequantize_abs_max", since=1)
def fake_channel_wise_quantize_dequantize_abs_max(x, *, bit_length=8, round_type=1,
                                                  quant_axis=0):
    s = channel_abs_max(x, quant_axis)
    sv = _channel_view(s, quant_axis, x)
    return quant_dequant_values(x, sv, _bins(bit_length), round_type), s


@REGISTRY.register("pd_op.fake_dequantize_max_abs", since=1)
def fake_dequantize_max_abs(x, scale, *, max_range=None):
    return x * scale.reshape(-1)[0] / torch.tensor(max_range, dtype=x.dtype)


@REGISTRY.register("pd_op.fake_channel_wise_dequantize_max_abs", since=1)
def fake_channel_wise_dequantize_max_abs(x, scales, *, quant_bits=(8,), quant_axis=0,
                                         x_num_col_dims=1):
    """ChannelDequantizeFunctor: one scale tensor per channel of quant_axis, x * s / max_range;
    two: the first per channel of axis x_num_col_dims, x * s * s2 / max_range, with max_range
    the product of both bin counts (an int, then cast to x's type)."""
    if len(scales) == 1:
        max_range = torch.tensor(int(_bins(quant_bits[0])), dtype=x.dtype)
        return x * _channel_view(scales[0], quant_axis, x) / max_range
    max_range = int(_bins(quant_bits[0])) * int(_bins(quant_bits[1]))
    s = _channel_view(scales[0], x_num_col_dims, x)
    return x * s * scales[1].reshape(-1)[0] / torch.tensor(max_range, dtype=x.dtype)


def _moving_average(cur, in_accum, in_state, rate):
    """FindMovingAverageAbsMaxFunctor: state = rate*state + 1, accum = rate*accum + cur,
    scale = accum / state (rate is a float, so all float32)."""
    state = rate * in_state + 1
    accum = rate * in_accum + cur
    return accum / state, state, accum


def _moving_quant(values, x, in_scale, in_accum, in_state, moving_rate, bit_length, is_test,
                  round_type):
    bins = _bins(bit_length)
    if is_test:  # the kernel writes out only; out_scale stays the input scale's buffer
        return values(x, in_scale, bins, round_type), in_scale, None, None
    s, state, accum = _moving_average(abs_max(x), in_accum.reshape(1), in_state.reshape(1),
                                      moving_rate)
    return values(x, s, bins, round_type), s, state, accum


@REGISTRY.register("pd_op.fake_quantize_moving_average_abs_max", since=1)
def fake_quantize_moving_average_abs_max(x, in_scale, in_accum=None, in_state=None, *,
                                         moving_rate=0.9, bit_length=8, is_test=False,
                                         round_type=1):
    return _moving_quant(quant_values, x, in_scale, in_accum, in_state, moving_rate,
                         bit_length, is_test, round_type)


@REGISTRY.register("pd_op.fake_quantize_dequantize_moving_average_abs_max", since=1)
def fake_quantize_dequantize_moving_average_abs_max(x, in_scale, in_accum=None, in_state=None,
                                                    *, moving_rate=0.9, bit_length=8,
                                                    is_test=False, round_type=1):
    return _moving_quant(quant_dequant_values, x, in_scale, in_accum, in_state, moving_rate,
                         bit_length, is_test, round_type)


@REGISTRY.register("pd_op.moving_average_abs_max_scale", since=1)
def moving_average_abs_max_scale(x, in_accum=None, in_state=None, *, moving_rate=0.9,
                                 is_test=False):
    """out is a copy of x; training also gives the moving-average scale and its state."""
    if is_test:
        return x.clone(), None, None, None
    s, state, accum = _moving_average(abs_max(x), in_accum.reshape(1), in_state.reshape(1),
                                      moving_rate)
    return x.clone(), s, state, accum


@REGISTRY.register("pd_op.fake_quantize_range_abs_max", since=1)
def fake_quantize_range_abs_max(x, in_scale, iter=None, *, window_size=10000,  # noqa: A002
                                bit_length=8, is_test=False, round_type=1):
    """FindRangeAbsMaxFunctor: the window array (out_scales) is a fresh buffer, taken as zeros
    here, with the current abs max stored at iter % window; the scale is max(last, cur), or
    the window's abs max when the value it replaced equalled the last scale (|d| < 1e-6)."""
    bins = _bins(bit_length)
    if is_test:
        return quant_values(x, in_scale, bins, round_type), in_scale, None
    cur = abs_max(x)
    it = int(iter.reshape(-1)[0])
    window = torch.zeros(window_size, dtype=x.dtype, device=x.device)
    window[it % window_size] = cur[0]
    last = in_scale.reshape(1)
    if bool(last < cur):
        s = cur
    elif bool(torch.abs(0 - last) < 1e-6):
        s = abs_max(window[:min(it, window_size)])
    else:
        s = last
    return quant_values(x, s, bins, round_type), s, window


@REGISTRY.register("pd_op.quantize_linear", since=1)
def quantize_linear(x, scale, zero_point, in_accum=None, in_state=None, *, quant_axis=0,
                    bit_length=8, qmin=-128, qmax=127, round_type=0, is_test=True,
                    only_observer=False):
    """QuantizeLinearKernel (float output, the quantised values; qmin is unused).  Training
    takes the moving average with rate 0.9 per tensor, the channel abs max per channel."""
    state = accum = None
    if is_test:
        s = scale
    elif quant_axis < 0:
        s, state, accum = _moving_average(abs_max(x), in_accum.reshape(1),
                                          in_state.reshape(1), 0.9)
    else:
        s = channel_abs_max(x, quant_axis)
    if only_observer:
        y = x.clone()
    elif quant_axis < 0:
        y = quant_values(x, s.reshape(-1)[:1], float(qmax), round_type)
    else:
        y = quant_values(x, _channel_view(s, quant_axis, x), float(qmax), round_type)
    return y, state, accum, (None if is_test else s)


# pd_op.dequantize_linear's kernel is quantize_linear in both releases (the op definition's
# `kernel` field, and Paddle's outputs: dequantize_linear clamps to [qmin, qmax]); phi's
# DeQuantizeLinearKernel is only reached from the legacy (non-PIR) operator.
REGISTRY.register("pd_op.dequantize_linear", since=1)(quantize_linear)


@REGISTRY.register("pd_op.dequantize_abs_max", since=1)
def dequantize_abs_max(x, scale, *, max_range=None):
    """scale[0] * x / max_range in float32 (x int8 or int16)."""
    return scale.reshape(-1)[0] * x.to(torch.float32) / torch.tensor(max_range,
                                                                     dtype=torch.float32)


@REGISTRY.register("pd_op.dequantize_log", since=1)
def dequantize_log(x, dict):  # noqa: A002 - the operand's name
    """x int8 indexes the float table: dict[x] for x >= 0, -dict[x + 128] below."""
    i = x.to(torch.int64)
    neg = i < 0
    v = dict.reshape(-1)[torch.where(neg, i + 128, i)]
    return torch.where(neg, -v, v)
