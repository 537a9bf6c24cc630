"""Transformer building blocks: rsqrt, silu, swiglu and the two ops named pd_op.rms_norm.

`pd_op.rms_norm` is the registry's example of a name that changed meaning (tools/opdefs,
checked on the four releases):

* PIR versions 1-3 (Paddle 3.0-3.2): the fused op of paddle.incubate.nn.functional.
  fused_rms_norm, inputs [x, bias, residual, norm_weight, norm_bias], attributes [epsilon,
  begin_norm_axis, quant_*], results [out, residual_out, inv_var]. Paddle 3.3 renamed it
  `pd_op.fused_rms_norm_quant`, which therefore runs the same kernel from version 4 on.
* PIR version 4 (Paddle 3.3): paddle.nn.functional.rms_norm, inputs [x, scale], attributes
  [normalized_shape, epsilon], results [y, invvar].

Both entries are registered with their own [since, until) range; a program keeps the meaning
of the version it was saved at.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from ...runtime.registry import REGISTRY, Behaviour
from ..specialize import specializer
from .eigen_packets import FLT_MIN, eigen_packet_lanes

_RMS_FLAGS = Behaviour(
    epsilon_placement="inside_sqrt", accumulation="float32",
    notes="y = x * 1/sqrt(mean(x^2) + eps) * w: epsilon added to the mean of squares, "
          "inside the square root; statistics in float32")


@REGISTRY.register("pd_op.rsqrt", since=1)
def rsqrt(x):
    # float32: Eigen's vectorised rsqrt (an estimate refined once, 1-2 ulp) flushes a
    # denormal to +-0 first, so gives +-inf there in full packets (eigen_packets.py)
    out = torch.rsqrt(x)
    if x.dtype != torch.float32:
        return out
    from ..control_flow import _tracing

    # On data, one reduction first: no |x| below FLT_MIN (an RMSNorm's mean + eps never has
    # one) leaves nothing to fix, and neither the zeros test nor the lane mask (an arange per
    # call) is built; then no nonzero one; traced, all of it is in the graph.
    tiny = torch.abs(x) < FLT_MIN
    if not _tracing(x) and (not bool(tiny.any()) or not bool((tiny & (x != 0)).any())):
        return out
    denormal = tiny & (x != 0) & eigen_packet_lanes(x)
    return torch.where(denormal, torch.copysign(torch.full_like(x, math.inf), x), out)


@specializer(rsqrt)
def _rsqrt_call(site):
    """torch.rsqrt alone where the kernel would return it: x not float32 (no denormal fix),
    or float32 that value_facts proves never below FLT_MIN when not NaN (no denormal, zero
    or negative element: an RMSNorm's mean(x^2) + eps, eps >= FLT_MIN), where the kernel's
    check (abs, <, any and a read back to Python) finds nothing."""
    x = site.p["x"]
    dtype = site.dtype(x)
    if dtype is None or (dtype == torch.float32 and not site.facts(x).at_least(FLT_MIN)):
        return None
    return site.call(torch.rsqrt, x)


_SILU_NATIVE = (torch.float32, torch.float64)


@REGISTRY.register("pd_op.silu", since=1)
def silu(x):
    # phi SiluFunctor: x / (1 + exp(-x)) with Eigen's vectorised exp, which no torch call
    # has.  float32 / float64: torch's silu kernel, the same formula with torch's own exp in
    # one call, as close to Paddle as the formula written out with torch.exp (four calls):
    # of all 2^32 float32 inputs, 2.80% against 2.78% differ from Paddle 3.3.1, both by at
    # most 5 ulp, NaN where Paddle's is (tools/paddle_oracle/activation_all_floats.log).
    # The half types keep the written-out formula: Paddle rounds each step to the half
    # type, as those calls do.
    if x.dtype in _SILU_NATIVE:
        return F.silu(x)
    if x.requires_grad or not x.is_floating_point():
        return x / (1 + torch.exp(-x))
    t = torch.neg(x)   # the same operations in place on the temporary: the same bits
    t.exp_().add_(1)
    return torch.div(x, t)



@REGISTRY.register("pd_op.swiglu", since=1)
def swiglu(x, y=None):
    """silu(x) * y; without y, x's last axis is cut in two halves (paddle.chunk(x, 2, -1))."""
    if y is None:
        if x.shape[-1] % 2:
            raise ValueError(f"swiglu: without y the last dim of x must be even, got {x.shape[-1]}")
        x, y = torch.chunk(x, 2, -1)
    return silu(x) * y


def _rows_cols(x, begin: int) -> tuple[int, int]:
    rows = 1
    for d in x.shape[:begin]:
        rows *= d
    return rows, x.numel() // max(rows, 1)


def _rms(rows: torch.Tensor, epsilon: float) -> torch.Tensor:
    """1 / sqrt(mean(x^2) + eps) per row of a 2-D float32 tensor."""
    return 1 / torch.sqrt(torch.mean(rows * rows, 1, keepdim=True) + epsilon)


@REGISTRY.register("pd_op.rms_norm", since=1, until=4, flags=_RMS_FLAGS)
def fused_rms_norm(x, bias=None, residual=None, norm_weight=None, norm_bias=None, *,
                   epsilon=1e-5, begin_norm_axis=1, quant_scale=-1.0, quant_round_type=0,
                   quant_max_bound=0.0, quant_min_bound=0.0):
    """Paddle's CPU kernel (phi fusion RmsNormAvxKernel), checked on the 3.0.0 wheel.

    x' = x + residual (+ bias, added only when a residual is given: the CPU kernel ignores a
    bias without residual); out = x' * 1/sqrt(mean(x'^2) + eps) * norm_weight (+ norm_bias),
    over dims [begin_norm_axis:] with a flat norm_weight; residual_out = x' (None without a
    residual). inv_var is an intermediate result Paddle's CPU kernel never writes; it is
    returned computed, shape [rows]. quant_scale > 0 asks for int8 output, which Paddle's
    CPU kernel refuses ("NOT supported quant int8"); so does this one.
    """
    if quant_scale > 0:
        raise NotImplementedError(
            "rms_norm with quant_scale > 0 (int8 output) is GPU-only in Paddle; its CPU kernel "
            "refuses it ('NOT supported quant int8') and so does pirc")
    begin = begin_norm_axis + x.dim() if begin_norm_axis < 0 else begin_norm_axis
    rows_n, cols = _rows_cols(x, begin)
    residual_out = None
    if residual is not None:
        x = x + residual
        if bias is not None:
            x = x + bias.reshape(x.shape[begin:])
        residual_out = x
    rows = x.reshape(rows_n, cols).float()
    inv = _rms(rows, epsilon)
    out = rows * inv * norm_weight.reshape(1, cols).float()
    if norm_bias is not None:
        out = out + norm_bias.reshape(1, cols).float()
    return out.to(x.dtype).reshape(x.shape), residual_out, inv.reshape(rows_n)


REGISTRY.register("pd_op.fused_rms_norm_quant", since=4, flags=_RMS_FLAGS)(fused_rms_norm)


@REGISTRY.register("pd_op.rms_norm", since=4, flags=_RMS_FLAGS)
def rms_norm(x, scale=None, *, normalized_shape=(), epsilon=1e-5):
    """paddle.nn.functional.rms_norm (Paddle 3.3): normalised over the last
    len(normalized_shape) dims; y = x * invvar * scale in float32, cast back to x's dtype;
    invvar float32 "of shape [rows], the inverse standard deviation of each row" (the API's
    docstring; x is flattened to [rows, cols]). Paddle's CPU wheel has no kernel for it, so
    there is no oracle: the formula is the documented one, tested against F.rms_norm."""
    k = len(normalized_shape)
    if k == 0 or list(x.shape[x.dim() - k:]) != list(normalized_shape):
        raise ValueError(f"rms_norm: normalized_shape {list(normalized_shape)} does not end "
                         f"x's shape {list(x.shape)}")
    begin = x.dim() - k
    rows_n, cols = _rows_cols(x, begin)
    rows = x.reshape(rows_n, cols).float()
    inv = _rms(rows, epsilon)
    y = rows * inv
    if scale is not None:
        y = y * scale.reshape(1, cols).float()
    return y.to(x.dtype).reshape(x.shape), inv.reshape(rows_n)
