"""fuse-residual-layer-norm: `layer_norm(add(x, residual), scale, bias)` ->
`pd_op.fused_bias_residual_layernorm(x, residual=residual, norm_weight=scale, norm_bias=bias)`,
whose `residual_out` (x + residual) replaces the add's result everywhere (its other uses, the
residual stream, are allowed).

Why it is sound.  Paddle's CPU kernel (phi/kernels/fusion/cpu/fused_layer_norm_avx_kernel.cc,
the same in 3.0.0 and 3.3.1, registered for float only) flattens x to [rows, cols] at
begin_norm_axis and, when a norm weight or bias is given, computes per row in float32:
v = x + residual * residual_alpha (+ bias), written to residual_out; mean = sum(v) / cols;
inv = 1 / sqrt(sum(v*v) / cols - mean^2 + epsilon); out = (v - mean) * gamma * inv + beta.
With residual_alpha = 1 (exact) and no bias, v is the add's result bit for bit.  The
normalisation is layer_norm's formula with the variance taken as E[v^2] - mean^2 instead of
E[(v - mean)^2]: the same number up to rounding while |mean| is not large against the standard
deviation (the cancellation costs about mean^2 / var float32 ulps; the hidden states of the dev
zoo's BERT family agree within atol 1e-5, rtol 1e-4, docs/PARITY.md).  Near-constant rows of
large magnitude do not: 64 values within 1e-3 of 100.3 come out 0.14 off, of 1000.7 NaN
(E[v^2] - mean^2 rounds below -epsilon) -- Paddle's fused kernel's own behaviour
(docs/FUSION.md).

Not fused (near misses): x not float32 (float-only kernel); neither a scale nor a bias (the
kernel then only adds, it does not normalise); the layer_norm's mean or variance used (the
fused op's `variance` holds 1/sqrt(var + eps), and its mean is summed in another order); an
add whose operands' types differ (a broadcast "residual": the kernel reads the residual with
x's row stride); a scale or bias that is not 1-D of the normalised size.  Two operands of
one type with a dynamic dim are taken as equal, as the add's inferred type says (were one
broadcast at run time, pirc's reference of the fused op fails loudly reshaping it).

Device fusion: the kernel is AVX-512 only (`__m512` intrinsics), so the pass is in
pipelines/npu.yaml, not `fuse` (docs/FUSION.md, "Portable targets").
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod

from ..infra.declarative import Constraint, DeclarativePass, New, Op, Rule
from ..infra.registry import register_pass


def _cols(m):
    shape, begin = m.shape("x"), m.attr("ln", "begin_norm_axis")
    dims = shape[begin:]
    return -1 if any(d < 0 for d in dims) else prod(dims)


def _params_fit(m) -> bool:
    present = [v for v in ("scale", "bias") if v in m.values]
    cols = _cols(m)
    return bool(present) and cols > 0 and all(
        m.shape(v) == (cols,) and m.dtype(v) == "f32" for v in present)


def _statistics_unused(m) -> bool:
    return all(r.first_use is None for r in m.root.results[1:])


def _axis_ok(m) -> bool:
    begin = m.attr("ln", "begin_norm_axis")
    return 0 < begin < len(m.shape("x"))


RESIDUAL_LAYER_NORM = Rule(
    "residual-layer-norm",
    source=Op("pd_op.layer_norm", (Op("pd_op.add", ("x", "residual"), bind="add"), "scale?", "bias?"),
              bind="ln"),
    versions={"pd_op.layer_norm": (1,), "pd_op.add": (1,)},
    constraints=(
        Constraint("x is float32 (the fused CPU kernel is float only)",
                   lambda m: m.dtype("x") == "f32"),
        Constraint("residual add without broadcast (both operands of one type)",
                   lambda m: m["x"].type == m["residual"].type == m["add"].results[0].type),
        Constraint("begin_norm_axis inside x's rank", _axis_ok),
        Constraint("layer_norm has a scale or a bias, 1-D of the normalised size (float32)",
                   _params_fit),
        Constraint("layer_norm statistics unused (the fused op's variance holds "
                   "1/sqrt(var + eps))", _statistics_unused),
    ),
    result=(New("pd_op.fused_bias_residual_layernorm",
                {"x": "x", "residual": "residual", "norm_weight": "scale?", "norm_bias": "bias?"},
                {"epsilon": lambda m: m.attr("ln", "epsilon"), "residual_alpha": 1.0,
                 "begin_norm_axis": lambda m: m.attr("ln", "begin_norm_axis"),
                 "quant_scale": -1.0, "quant_round_type": 0, "quant_max_bound": 0.0,
                 "quant_min_bound": 0.0},
                types=("root", lambda m: m["add"].results[0].type,
                       lambda m: m.root.results[1].type, lambda m: m.root.results[2].type),
                bind="n"),),
    replace={"root": ("n.0",), "add": ("n.1",)},
)


@register_pass
@dataclass(frozen=True)
class FuseResidualLayerNorm(DeclarativePass):
    """Fuses a residual add + layer_norm into fused_bias_residual_layernorm."""

    name = "fuse-residual-layer-norm"
    rules = (RESIDUAL_LAYER_NORM,)
