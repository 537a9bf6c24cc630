"""Paddle ops that lower to one torch_npu fused call on device npu: one emitter per op.

The lowering emits, it does not decide what to fuse: the fusions that replace several ops
are passes (pirc/passes/fusion, pipeline `npu`), visible in the IR.  What is left here is the
choice of call for ONE op, made from that op alone: its attributes, its static types
(operands' and results' PIR shapes and dtypes) and whether its results are used.  No
emitter looks at another op or at the graph.  Where an emitter declines, the op lowers to
its registered kernel as on every other device.

An emitter is one declarative entry:
  * `op` and `semantics`: the op name and the semantic versions it was written for (the
    `since` of the kernel registry entries whose numerics it keeps: `pd_op.rms_norm` is the
    fused op with residual at semantic 1 and paddle.nn.functional.rms_norm at 4);
  * `when(op, view)`: None when the call computes what the op computes, else the reason it
    does not (read from the PIR op only);
  * `build(e)`: the call, on the operands' nodes (`e.args`) and the attributes (`e.attrs`);
    returns {result index: node} for every result that is used.
Each entry's docstring says why the call keeps Paddle's numbers.  The calls are the
pirc.lower.npu.ops entry points: torch_npu on an NPU tensor, the CPU reference elsewhere.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from math import prod
from typing import Callable

import torch
from torch import fx

from ...ir.ops import is_null_value
from ...ir.types import DenseTensorType
from ..values import python_value, torch_dtype_of_type
from . import ops


@dataclass(frozen=True)
class Emitter:
    op: str
    semantics: tuple[int, ...]
    when: Callable  # (op, OpView) -> str | None (why not)
    build: Callable  # (Emit) -> {result index: fx.Node}


class OpView:
    """What an emitter may read of one PIR op: attributes, static types, result uses."""

    def __init__(self, op):
        self.op = op

    def attr(self, name: str, default=None):
        a = self.op.attributes.get(name)
        return default if a is None else python_value(a)

    def has(self, i: int) -> bool:
        """Whether operand i is given (not <<NULL VALUE>>)."""
        return i < len(self.op.operands) and not is_null_value(self.op.operands[i])

    def shape(self, value) -> tuple | None:
        t = value.type
        return tuple(t.shape) if isinstance(t, DenseTensorType) else None

    def operand_shape(self, i: int) -> tuple | None:
        return self.shape(self.op.operands[i]) if self.has(i) else None

    def operand_dtype(self, i: int):
        return torch_dtype_of_type(self.op.operands[i].type) if self.has(i) else None

    def used(self, i: int) -> bool:
        """Whether result i has a use.  (An unused result is never an output: a program
        without fetch ops returns the unused values the lowering binds, and it binds a
        multi-result op's results only where used: GraphBuilder.bind_results.)"""
        return i < len(self.op.results) and bool(self.op.results[i].uses)


@dataclass
class Emit:
    """What `build` gets: the graph, the operands' nodes (None for null) and attributes."""

    graph: fx.Graph
    view: OpView
    args: tuple
    attrs: dict

    def call(self, fn, args, kwargs=None) -> fx.Node:
        return self.graph.call_function(fn, tuple(args), kwargs or {})

    def item(self, node, i: int) -> fx.Node:
        return self.graph.call_function(operator.getitem, (node, i))

    def trailing_dims(self, x, operand: int, begin: int):
        """x.shape[begin:]: a literal list where the operand's static type knows those dims,
        else read from the tensor (a dynamic dim stays symbolic)."""
        dims = self.view.operand_shape(operand)
        if dims is not None and all(d >= 0 for d in dims[begin:]):
            return list(dims[begin:])
        return self.call(operator.getitem, (self.call(getattr, (x, "shape")), slice(begin, None)))

    def reshaped(self, t, operand: int, dims):
        """t viewed as `dims`; t itself where the operand's static type already has them (a
        reshape to its own shape is t: one torch call less per run)."""
        if isinstance(dims, list) and self.view.operand_shape(operand) == tuple(dims):
            return t
        return self.call(torch.reshape, (t, dims))


EMITTERS: dict[tuple[str, int], Emitter] = {}


def emitter(op: str, *, semantics: tuple[int, ...], when=None):
    """Register `build` as the emitter of `op` at those semantic versions."""
    def decorate(build):
        for s in semantics:
            EMITTERS[(op, s)] = Emitter(op, semantics, when or (lambda o, v: None), build)
        return build
    return decorate


# -- gelu -------------------------------------------------------------------------------


@emitter("pd_op.gelu", semantics=(1,))
def gelu(e: Emit):
    """pd_op.gelu -> npu_gelu(x, approximate='tanh'|'none').

    Why npu_gelu: aten gelu on an NPU ignores `approximate` and uses tanh (Ascend's npu_gelu
    page), so an erf gelu must be this call to keep Paddle's numbers.  Same formula on the CPU.
    """
    approximate = "tanh" if e.attrs.get("approximate", False) else "none"
    return {0: e.call(ops.npu_gelu, (e.args[0],), {"approximate": approximate})}


# -- layer_norm -------------------------------------------------------------------------


def _layer_norm_when(op, v: OpView):
    if v.used(1) or v.used(2):
        return "its mean or variance is used (npu_layer_norm_eval returns neither)"
    begin = v.attr("begin_norm_axis", 1)
    if not isinstance(begin, int) or begin < 0:
        return f"begin_norm_axis {begin!r} is not a non-negative int"
    return None


@emitter("pd_op.layer_norm", semantics=(1,), when=_layer_norm_when)
def layer_norm(e: Emit):
    """pd_op.layer_norm whose mean and variance nobody uses -> npu_layer_norm_eval.

    Paddle normalises over dims [begin_norm_axis:] with a flattened 1-D scale and bias;
    npu_layer_norm_eval (= F.layer_norm) takes normalized_shape and weight of that shape, so
    scale and bias are reshaped to x.shape[begin_norm_axis:] (views, no copies).  Same
    epsilon placement (inside the rsqrt) and float32 statistics.
    """
    x, scale, bias = (list(e.args) + [None, None])[:3]
    normalized = e.trailing_dims(x, 0, e.attrs.get("begin_norm_axis", 1))
    weight = e.reshaped(scale, 1, normalized) if scale is not None else None
    b = e.reshaped(bias, 2, normalized) if bias is not None else None
    return {0: e.call(ops.npu_layer_norm_eval, (x, normalized),
                      {"weight": weight, "bias": b, "eps": e.attrs.get("epsilon", 1e-5)})}


# -- fused_bias_residual_layernorm -------------------------------------------------------


def _add_layer_norm_when(op, v: OpView):
    # operands: x, bias, residual, norm_weight, norm_bias; results: out, residual_out, mean,
    # variance
    if len(op.operands) != 5:
        return f"{len(op.operands)} operands, fused_bias_residual_layernorm has 5"
    if v.attr("quant_scale", -1.0) > 0:
        return "quant_scale > 0 asks for int8 output"
    if not v.has(2):
        return "no residual (the kernel then normalises x alone and ignores the bias)"
    if v.has(1):
        return "a bias (npu_add_layer_norm's schema takes none)"
    if not (v.has(3) and v.has(4)):
        return "norm_weight and norm_bias not both given (npu_add_layer_norm takes gamma and beta)"
    if v.attr("residual_alpha", 1.0) != 1:
        return "residual_alpha is not 1 (npu_add_layer_norm adds x1 + x2)"
    if v.used(2) or v.used(3):
        return ("its mean or variance is used (Paddle's are [rows] and the variance holds "
                "1/sqrt(var + eps); npu's keep x's leading dims)")
    xs = v.operand_shape(0)
    begin = v.attr("begin_norm_axis", 1)
    if xs is None or not isinstance(begin, int) or not 0 < begin < len(xs):
        return f"begin_norm_axis {begin!r} is not inside x's static rank"
    if v.operand_shape(2) != xs:
        return "the residual's static shape is not x's (npu_add_layer_norm does not broadcast)"
    if any(v.operand_dtype(i) is not torch.float32 for i in (0, 2, 3, 4)):
        return "not float32 (Paddle's kernel is float only)"
    cols = xs[begin:]
    if any(d < 0 for d in cols) or any(
            v.operand_shape(i) not in ((prod(cols),), (1, prod(cols))) for i in (3, 4)):
        return "norm_weight or norm_bias is not one row of the normalised dims' (static) size"
    return None


@emitter("pd_op.fused_bias_residual_layernorm", semantics=(1,), when=_add_layer_norm_when)
def fused_bias_residual_layernorm(e: Emit):
    """The residual form (what fuse-residual-layer-norm builds: x, residual, norm_weight,
    norm_bias, alpha 1, no bias, no quantisation, statistics unused) ->
    npu_add_layer_norm(x, residual, gamma, beta, epsilon, additional_output).

    Both compute v = x + residual, then layer_norm(v) over dims [begin_norm_axis:] with
    epsilon inside the square root, in float32; gamma and beta are the flat norm_weight and
    norm_bias viewed as those dims.  The result x1 + x2 (asked for with additional_output
    only where residual_out is read) is Paddle's residual_out.  Numerics: torch_npu's
    variance is layer_norm's, E[(v - mean)^2] (its AddLayerNorm formula), where Paddle's
    AVX-512 CPU kernel takes E[v^2] - mean^2: the same within the fusion's tolerance (atol
    1e-5, rtol 1e-4) while |mean| is not large against the standard deviation; where it is,
    the kernel cancels and this call keeps the unfused add + layer_norm's numbers
    (docs/FUSION.md, docs/PARITY.md).
    """
    x, _, residual, weight, bias = e.args
    normalized = e.trailing_dims(x, 0, e.attrs.get("begin_norm_axis", 1))
    gamma, beta = e.reshaped(weight, 3, normalized), e.reshaped(bias, 4, normalized)
    keep_x = e.view.used(1)
    fused = e.call(ops.npu_add_layer_norm, (x, residual, gamma, beta),
                   {"epsilon": e.attrs.get("epsilon", 1e-5), "additional_output": keep_x})
    return {0: e.item(fused, 0), **({1: e.item(fused, 3)} if keep_x else {})}


# -- rms_norm ---------------------------------------------------------------------------


def _fused_rms_when(op, v: OpView):
    # operands: x, bias, residual, norm_weight, norm_bias; results: out, residual_out, inv_var
    if len(op.operands) != 5:
        return f"{len(op.operands)} operands, the fused rms_norm has 5"
    if v.attr("quant_scale", -1.0) > 0:
        return "quant_scale > 0 asks for int8 output"
    if v.has(1) or v.has(4):
        return "a bias or norm_bias (npu_(add_)rms_norm take neither)"
    if v.used(2):
        return "inv_var is used (npu's rstd has another shape)"
    begin = v.attr("begin_norm_axis", 1)
    if not isinstance(begin, int) or begin < 0:
        return f"begin_norm_axis {begin!r} is not a non-negative int"
    if v.has(2):
        xs, rs = v.operand_shape(0), v.operand_shape(2)
        if xs is None or xs != rs:
            return "the residual's static shape is not x's (npu_add_rms_norm does not broadcast)"
    elif v.used(1):
        return "residual_out is used without a residual"
    return None


@emitter("pd_op.rms_norm", semantics=(1,), when=_fused_rms_when)
@emitter("pd_op.fused_rms_norm_quant", semantics=(4,), when=_fused_rms_when)
def fused_rms_norm(e: Emit):
    """The fused rms_norm of PIR 1-3 (`fused_rms_norm_quant` at 4) -> npu_(add_)rms_norm.

    Its kernel (registry flags: epsilon inside the square root, float32 statistics) computes
    y = x' * rsqrt(mean(x'^2) + eps) * w over dims [begin_norm_axis:], x' = x + residual:
    npu_rms_norm's formula over the last gamma.dim() dims, with the flat norm_weight
    reshaped (a view) to x.shape[begin_norm_axis:].  With a residual it is
    npu_add_rms_norm(x, residual, w), whose third result x1 + x2 is Paddle's residual_out.
    """
    x, _, residual, weight, _ = e.args
    gamma = e.reshaped(weight, 3, e.trailing_dims(x, 0, e.attrs.get("begin_norm_axis", 1)))
    eps = {"epsilon": e.attrs.get("epsilon", 1e-5)}
    if residual is None:
        return {0: e.item(e.call(ops.npu_rms_norm, (x, gamma), eps), 0)}
    fused = e.call(ops.npu_add_rms_norm, (x, residual, gamma), eps)
    return {0: e.item(fused, 0), 1: e.item(fused, 2)}


def _rms_when(op, v: OpView):
    # operands: x, scale; results: y, invvar
    if not v.has(1):
        return "no scale (npu_rms_norm needs gamma)"
    if not v.attr("normalized_shape", ()):
        return "an empty normalized_shape"
    if v.used(1):
        return "invvar is used (Paddle's is [rows], npu's rstd keeps x's rank)"
    return None


@emitter("pd_op.rms_norm", semantics=(4,), when=_rms_when)
def rms_norm(e: Emit):
    """paddle.nn.functional.rms_norm's op (PIR 4) -> npu_rms_norm(x, scale, epsilon)[0].

    Both normalise over the last len(normalized_shape) dims in float32 with epsilon inside
    the square root and cast back (registry flags); the scale is reshaped (a view) to those
    dims of x.
    """
    x, scale = e.args
    # x's trailing dims are normalized_shape (Paddle's kernel refuses anything else)
    gamma = e.reshaped(scale, 1, list(e.attrs["normalized_shape"]))
    fused = e.call(ops.npu_rms_norm, (x, gamma), {"epsilon": e.attrs.get("epsilon", 1e-5)})
    return {0: e.item(fused, 0)}


# -- swiglu -----------------------------------------------------------------------------


def _swiglu_when(op, v: OpView):
    return None if not v.has(1) else "y is given (npu_swiglu takes one tensor: it would need a concat)"


@emitter("pd_op.swiglu", semantics=(1,), when=_swiglu_when)
def swiglu(e: Emit):
    """pd_op.swiglu(x) without y -> npu_swiglu(x, dim=-1).

    Paddle's swiglu without y is silu(first half) * second half of x's last axis
    (paddle.chunk(x, 2, -1)): npu_swiglu's definition with dim=-1.
    """
    return {0: e.call(ops.npu_swiglu, (e.args[0],), {"dim": -1})}


# -- fc ---------------------------------------------------------------------------------


def _fc_when(op, v: OpView):
    # operands: input, w, bias
    if v.attr("padding_weights", False):
        return "padding_weights (w carries padding rows and columns)"
    act = v.attr("activation_type", "")
    if act not in ("", "relu"):
        return f"activation_type {act!r} (Paddle's CPU fc runs none but relu)"
    xs, ws = v.operand_shape(0), v.operand_shape(1)
    if xs is None or ws is None or len(ws) != 2:
        return "the input or weight has no static rank, or the weight is not 2-D"
    if v.attr("in_num_col_dims", 1) != len(xs) - 1:
        return "in_num_col_dims does not fold every dim but the last (npu_linear does)"
    if v.has(2):
        bs = v.operand_shape(2)
        if bs is None or len(bs) > 2 or any(d != 1 for d in bs[:-1]) or bs[-1] != ws[1] or ws[1] < 0:
            return "the bias is not one row of the output's width"
    return None


@emitter("pd_op.fc", semantics=(1,), when=_fc_when)
def fc(e: Emit):
    """pd_op.fc(input, w[K, N], bias) -> npu_linear(input, w.T, bias) (then relu if asked).

    fc folds input's first in_num_col_dims dims into rows and multiplies by w; with
    in_num_col_dims = rank - 1 that is linear over the last dim.  torch_npu's weight is
    (N, K): the graph passes torch.t(w), a view (a parameter w is transposed once, into a
    buffer: ops._weight_transposed_once); a [1, N] bias is read as [N].  Numerics:
    linear adds the bias inside the GEMM (addmm), fc after it: equal within float32
    rounding, not bit-exact (docs/NPU.md).
    """
    x, w = e.args[0], e.args[1]
    bias = e.args[2] if len(e.args) > 2 else None
    if bias is not None and len(e.view.operand_shape(2)) != 1:
        bias = e.call(torch.reshape, (bias, (-1,)))
    out = e.call(ops.npu_linear, (x, e.call(torch.t, (w,))), {"bias": bias})
    if e.attrs.get("activation_type", "") == "relu":
        out = e.call(torch.relu, (out,))
    return {0: out}


# -- fused_rotary_position_embedding ----------------------------------------------------


def _rope_when(op, v: OpView):
    # operands: q, k, v, sin, cos, position_ids; results: out_q, out_k, out_v
    if v.has(1) or v.has(2) or v.used(1) or v.used(2):
        return "k or v given (npu_rotary_mul rotates one tensor per call)"
    if not (v.has(3) and v.has(4)) or v.has(5):
        return "sin and cos not both given, or position_ids given (npu_rotary_mul reads no table)"
    if v.attr("use_neox_rotary_style", True) or v.attr("time_major", False):
        return "the neox (interleaved) style or time_major (npu's 'half' mode is rotate-half of [B, S, N, D])"
    q = v.operand_shape(0)
    if q is None or len(q) != 4 or any(d < 0 for d in q[1:]) or q[3] % 2:
        return "q is not 4-D [B, S, N, D] with static S, N and even D"
    if any(v.operand_dtype(i) is not torch.float32 for i in (0, 3, 4)):
        return "not float32 (the fused kernel computes in float32 and rounds once; npu_rotary_mul in the input's type)"
    table = (1, q[1], 1, q[3])
    if not all(v.operand_shape(i) in (table, table[1::2]) for i in (3, 4)):
        return "sin / cos are not [1, S, 1, D] or [S, D] of q's S and D"
    return None


@emitter("pd_op.fused_rotary_position_embedding", semantics=(1,), when=_rope_when)
def fused_rotary_position_embedding(e: Emit):
    """pd_op.fused_rotary_position_embedding(q, sin, cos), rotate-half, not time major ->
    npu_rotary_mul(q, cos, sin, rotary_mode='half').

    Paddle's kernel computes q*cos + rotate(q)*sin per element in float32 with
    rotate(q) = concat(-q[D/2:], q[:D/2]) and row s of the tables for position s;
    npu_rotary_mul's 'half' mode is r1*x + r2*cat(-x2, x1): the same two products and one sum
    (float32 only, where both round once per op).  A [S, D] table is viewed as [1, S, 1, D].
    """
    q, sin, cos = e.args[0], e.args[3], e.args[4]
    s, d = e.view.operand_shape(0)[1], e.view.operand_shape(0)[3]
    tables = []
    for i, t in ((4, cos), (3, sin)):
        tables.append(t if len(e.view.operand_shape(i)) == 4 else e.call(torch.reshape, (t, (1, s, 1, d))))
    return {0: e.call(ops.npu_rotary_mul, (q, tables[0], tables[1]), {"rotary_mode": "half"})}


# -- self_dp_attention ------------------------------------------------------------------


def _self_dp_when(op, v: OpView):
    x = v.operand_shape(0)
    if x is None or len(x) != 5 or x[2] != 3 or x[3] < 0:
        return "x is not [B, S, 3, N, H] with a static N"
    if x[3] != v.attr("head_number", 1):
        return "head_number is not x's head dim"
    if v.operand_dtype(0) is not torch.float32:
        return "not float32"
    return None


@emitter("pd_op.self_dp_attention", semantics=(1,), when=_self_dp_when)
def self_dp_attention(e: Emit):
    """pd_op.self_dp_attention(x[B, S, 3, N, H], alpha) -> npu_fusion_attention(q, k, v,
    N, 'BSND', scale=alpha)[0], q, k, v = x.unbind(2) (x[:, :, 0|1|2], views).

    Both are softmax(alpha * q k^T) v per batch and head, nothing masked or dropped, computed
    in float32, in Paddle's BSND layout in and out.  Paddle's CPU kernel tiles the keys with an
    online softmax, the reference does the plain float32 ops: equal within float32 rounding
    (the fusion's tolerance, atol 1e-5 / rtol 1e-4).
    """
    x = e.args[0]
    # one unbind: the three selects' views in one torch call (2 fewer a forward)
    parts = e.call(torch.unbind, (x, 2))
    q, k, v = (e.item(parts, i) for i in range(3))
    fused = e.call(ops.npu_fusion_attention, (q, k, v, e.attrs.get("head_number", 1), "BSND"),
                   {"scale": e.attrs.get("alpha", 1.0)})
    return {0: e.item(fused, 0)}


# -- the lowering's entry ---------------------------------------------------------------


def emit(graph: fx.Graph, op, semantic: int, args: tuple, attrs: dict) -> dict | None:
    """The nodes standing for op's used results, or None: no emitter, or it declines."""
    entry = EMITTERS.get((op.name, semantic))
    if entry is None:
        return None
    view = OpView(op)
    if entry.when(op, view) is not None:
        return None
    return entry.build(Emit(graph, view, args, attrs))


def why_not(op, semantic: int) -> str | None:
    """Why op does not lower to its fused call on device npu (None: it does)."""
    entry = EMITTERS.get((op.name, semantic))
    if entry is None:
        return f"no npu emitter for {op.name} at semantic version {semantic}"
    return entry.when(op, OpView(op))
