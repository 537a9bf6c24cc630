"""fuse-silu: `x * sigmoid(x)` (either order) -> `pd_op.silu(x)`.

Paddle's CPU silu kernel computes x / (1 + exp(-x)) (phi's SiluFunctor), the composition
x * (1 / (1 + exp(-x))): a rounding more or less, so outputs agree within a few float32 ulp
(3 measured by the fusion fuzzer), not bit for bit (docs/PARITY.md, "Fusion tolerances").
float32 and float64 only: Paddle's CPU silu kernel has no float16 / bfloat16 form in either
wheel (pirc/passes/fusion/targets.yaml), and `fuse` must write what real Paddle runs.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..infra.declarative import Constraint, DeclarativePass, New, Op, Rule
from ..infra.registry import register_pass

SILU = Rule(
    "silu",
    source=Op("pd_op.multiply", ("x", Op("pd_op.sigmoid", ("x",))), commutative=True),
    versions={"pd_op.multiply": (1,), "pd_op.sigmoid": (1,)},
    constraints=(Constraint("x is float32 or float64 (Paddle's CPU silu kernel)",
                            lambda m: m.dtype("x") in ("f32", "f64")),),
    result=(New("pd_op.silu", {"x": "x"}),),
)


@register_pass
@dataclass(frozen=True)
class FuseSilu(DeclarativePass):
    """Fuses x * sigmoid(x) into silu(x)."""

    name = "fuse-silu"
    rules = (SILU,)
