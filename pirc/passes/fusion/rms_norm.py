"""fuse-rms-norm: RMSNorm spelled out, `x * rsqrt(mean(x^2, -1, keepdim) + eps) * w`, with or
without a residual add in front (`x = a + b`) -> Paddle's fused RMS norm at the program's
version: `pd_op.rms_norm` at PIR 1-3, `pd_op.fused_rms_norm_quant` at PIR 4 (Paddle 3.3 gave
the old op that name and reused `rms_norm` for paddle.nn.functional.rms_norm).

Forms matched, in every operand order (both multiplies are commutative): the square as
`pow(x, 2)` or `multiply(x, x)`; epsilon as `scale(m, 1, bias=eps)` (either bias_after_scale:
with a factor of 1 both are m + eps) or `add(m, full(eps))`; the inverse root as `rsqrt` or
`pow(., -0.5)`.  With the residual, x = add(a, b) is matched too and the fused op's
`residual_out` replaces the add's result everywhere (its other uses are allowed).

Why it is sound.  Paddle's CPU kernel (phi/kernels/fusion/cpu/rms_norm_avx_kernel.cc, 3.0.0;
the same code as fused_rms_norm_quant_avx_kernel.cc in 3.3.1) computes, per row of the dims
from begin_norm_axis, in float32: v = x (+ residual (+ bias)), written to residual_out;
inv = 1 / sqrt(sum(v*v) / cols + epsilon) (epsilon inside the root, added to the mean of
squares); out = v * inv * norm_weight (+ norm_bias).  That is the composition's order of
operations; the differences are rounding: the mean's summation order, and rsqrt (Eigen's
estimate refined once, 1-2 ulp) or pow(., -0.5) against 1/sqrt (<= 1 ulp).  Tolerance:
atol 1e-5, rtol 1e-4 on float32 (docs/PARITY.md); the near-miss corpus and the dev zoo are
checked at it.  inv_var is never written by the CPU kernel: it is an intermediate no matched
value stands for.

Not fused (near misses, with the check's name): x not float32 (the CPU kernel is registered
for float only; for float16/bfloat16 Paddle's composition rounds every step to the half type
while the fused op would compute in float32: not the same numbers); a weight that is not 1-D
of x's static last dim (2-D, another length, a broadcast scalar); the mean over another axis
or without keepdim; a pow exponent other than 2 (or -0.5); epsilon outside the root, or not
> 0 (the fx rewrite's condition; with eps <= 0 a zero row is inf/NaN in both, but nothing
here was checked on it); a residual whose operands' types differ from x's (a broadcast add:
the kernel reads residual with x's row stride).  Dynamic leading dims are allowed (the kernel
takes rows from x at run time); two residual operands of one type with a dynamic dim are
taken as equal, as the add's inferred type says: were one broadcast at run time, pirc's
reference of the fused op broadcasts as the add did (the same numbers), Paddle's kernel would
not.

Device fusion: both kernels are AVX-512 only (`__m512` intrinsics, registered for float on
CPU), so the pass is in pipelines/npu.yaml, not `fuse` (docs/FUSION.md, "Portable targets").
PIR 4's new `pd_op.rms_norm(x, scale, normalized_shape, epsilon)` is not a target: the 3.3.1
CPU wheel has no kernel for it (docs/COVERAGE.md).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...ir.ops import null_value
from ...ir.types import NULL_TYPE, DenseTensorType
from ..folding.constants import int_array_values
from ..infra.declarative import (Capture, Check, Const, Constraint, DeclarativePass, Either, New, Op,
                                 Rule)
from ..infra.registry import register_pass

QUANT_OFF = {"quant_scale": -1.0, "quant_round_type": 0, "quant_max_bound": 0.0,
             "quant_min_bound": 0.0}


def _rsqrt_of_mean_square(x: str):
    """rsqrt(mean(x^2, axis, keepdim) + eps), each spelling."""
    square = Either(
        Op("pd_op.pow", (x,), attrs={"y": Check("pow exponent is 2", lambda v: v == 2)}),
        Op("pd_op.multiply", (x, x)),
    )
    # the axis operand is read by a constraint, not matched: cse shares one full_int_array
    # between every mean over the same axes
    mean = Op("pd_op.mean", (square, "_"), bind="mean",
              attrs={"keepdim": Check("mean keeps its dim (keepdim)", lambda v: v is True)})
    plus_eps = Either(
        Op("pd_op.scale", (mean, Const(Check("scale factor is 1", lambda v: v == 1))),
           attrs={"bias": Capture("eps")}),
        Op("pd_op.add", (mean, Const(Capture("eps"))), commutative=True),
    )
    return Either(
        Op("pd_op.rsqrt", (plus_eps,)),
        Op("pd_op.pow", (plus_eps,), attrs={"y": Check("pow exponent is -0.5", lambda v: v == -0.5)}),
    )


def _source(x):
    """(x * r) * w, both multiplies either way round (r is matched first: a near miss then
    names the failed part of the root's chain, not the operand that is not x)."""
    return Op("pd_op.multiply", (Op("pd_op.multiply", (_rsqrt_of_mean_square("x"), x),
                                    commutative=True), "w"), commutative=True)


def _last_axis(m) -> bool:
    rank = len(m.shape("x"))
    return int_array_values(m.ops["mean"].operands[1], m.pc.aliases) in ((-1,), (rank - 1,))


def _weight_fits(m) -> bool:
    xs, ws = m.shape("x"), m.shape("w")
    return ws == (xs[-1],) and m.dtype("w") == "f32" and tuple(m.root.results[0].type.shape) == xs


def _residual_fits(m) -> bool:
    if "add" not in m.ops:
        return True
    return m["a"].type == m["b"].type == m["x"].type


CONSTRAINTS = (
    Constraint("x is float32 (the fused CPU kernel is float only; a half-type composition "
               "rounds every step, the fused op computes in float32)", lambda m: m.dtype("x") == "f32"),
    Constraint("x has a static last dim", lambda m: m.shape("x")[-1] >= 0),
    Constraint("mean over the last axis", _last_axis),
    Constraint("weight is 1-D of x's last dim (float32)", _weight_fits),
    Constraint("epsilon > 0", lambda m: m["eps"] > 0),
    Constraint("residual add without broadcast (both operands of x's type)", _residual_fits),
)

VERSIONS = {"pd_op.multiply": (1,), "pd_op.rsqrt": (1,), "pd_op.pow": (1,), "pd_op.mean": (1,),
            "pd_op.scale": (1,), "pd_op.add": (1,)}


def _inv_var_type(m):
    """float32 of x's leading dims: one inverse RMS per row (Paddle's RmsNormInferMeta: the
    3.0.0 and 3.3.1 programs hold tensor<2x8xf32> for x of 2x8x16)."""
    return DenseTensorType.make(m["x"].type.dtype, list(m.shape("x")[:-1]))


def _with_add(present, absent):
    """A reference that depends on whether the optional residual add was matched."""
    return lambda m: present(m) if "add" in m.ops else absent(m)


def _rule(target: str) -> Rule:
    """x * rsqrt(mean(x^2) + eps) * w, x optionally a residual add(a, b), building `target`:
    with the add, the fused op adds a + b itself and its residual_out replaces the add."""
    return Rule(
        target.split(".")[1],
        source=_source(Op("pd_op.add", ("a", "b"), bind="add", value="x", optional=True)),
        versions=VERSIONS,
        constraints=CONSTRAINTS,
        result=(New(target, {"x": _with_add(lambda m: m["a"], lambda m: m["x"]),
                             "residual": _with_add(lambda m: m["b"], lambda m: null_value()),
                             "norm_weight": "w"},
                    {"epsilon": lambda m: m["eps"],
                     "begin_norm_axis": lambda m: len(m.shape("x")) - 1, **QUANT_OFF},
                    types=("root", _with_add(lambda m: m["x"].type, lambda m: NULL_TYPE),
                           _inv_var_type),
                    bind="n"),),
        replace={"root": ("n.0",), "add": ("n.1",)},
    )


# One rule per target, each skipped with a `version:` reason where its target is not the op
# it builds (and then recording no near misses): `pd_op.fused_rms_norm_quant` does not exist
# at PIR 1-3, and at PIR 4 `pd_op.rms_norm` is another op (x, scale, normalized_shape,
# epsilon).  At PIR 4 a site is skipped by the rms_norm rule, then fused by the other.
RULES = (_rule("pd_op.rms_norm"), _rule("pd_op.fused_rms_norm_quant"))


@register_pass
@dataclass(frozen=True)
class FuseRmsNorm(DeclarativePass):
    """Fuses x * rsqrt(mean(x^2) + eps) * w (optional residual add) into Paddle's fused rms norm."""

    name = "fuse-rms-norm"
    rules = RULES
