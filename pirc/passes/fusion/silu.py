"""fuse-silu: `x * sigmoid(x)` (either order) -> `pd_op.silu(x)`.

Paddle's CPU silu kernel computes x / (1 + exp(-x)) (phi's SiluFunctor), the composition
x * (1 / (1 + exp(-x))): one rounding more, so outputs agree within an ulp of float32, not bit
for bit (docs/PARITY.md, "Fusion tolerances").  Any float dtype: the two compute in the
input's type either way.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..infra.declarative import DeclarativePass, New, Op, Rule
from ..infra.registry import register_pass

SILU = Rule(
    "silu",
    source=Op("pd_op.multiply", ("x", Op("pd_op.sigmoid", ("x",))), commutative=True),
    versions={"pd_op.multiply": (1,), "pd_op.sigmoid": (1,)},
    result=(New("pd_op.silu", {"x": "x"}),),
)


@register_pass
@dataclass(frozen=True)
class FuseSilu(DeclarativePass):
    """Fuses x * sigmoid(x) into silu(x)."""

    name = "fuse-silu"
    rules = (SILU,)
