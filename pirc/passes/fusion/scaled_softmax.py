"""fuse-scaled-softmax: `softmax(scale(x, s, bias 0), axis -1)` ->
`npu.scaled_masked_softmax(x, mask, scale=s)` with an all-False mask (nothing masked).

Why it is sound: Paddle computes x*s (+0, exact) then softmax over the last axis; torch_npu's
scaled_masked_softmax computes softmax(x*scale) with the masked positions filled, here none
(pirc.lower.npu.reference: x*scale in float32, masked_fill of nothing, softmax(-1), back to
x's dtype).  float32 only: for float16 the reference scales and normalises in float32 while
Paddle's composition rounds x*s to float16 first.  Tolerance: atol 1e-6, rtol 1e-5 (the
softmax's own rounding; the products are the same).

Not fused: an additive mask (softmax(x*s + M)): torch_npu's mask is boolean with a -1e4
fill, not Paddle's additive numbers.  Runs after fuse-attention, which takes the softmaxes
between two matmuls; the all-False mask is `full_like(x, 0, bool)`.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...ir import attrs as A
from ...ir.types import ELEMENT_TYPES, DenseTensorType
from ..infra.declarative import Capture, Const, Constraint, DeclarativePass, New, Op, Rule
from ..infra.registry import register_pass



def _last_axis(m) -> bool:
    axis, rank = m.attr("soft", "axis"), len(m.shape("x"))
    return axis in (-1, rank - 1)


SCALED_SOFTMAX = Rule(
    "scaled-softmax",
    source=Op("pd_op.softmax", (Op("pd_op.scale", ("x", Const(Capture("s"))),
                                   attrs={"bias": 0.0}, bind="scale"),),
              bind="soft"),
    versions={"pd_op.softmax": (1,), "pd_op.scale": (1,)},
    constraints=(
        Constraint("x is float32 (the reference scales in float32)", lambda m: m.dtype("x") == "f32"),
        Constraint("x has a static rank", lambda m: m.shape("x") is not None),
        Constraint("softmax over the last axis", _last_axis),
    ),
    result=(
        New("pd_op.full", {}, {"shape": lambda m: (1,), "value": A.float_attr(0.0, double=True), "dtype": "bool",
                               "place": lambda m: _place()},
            types=(lambda m: _bool_type(m, (1,)),), bind="zero"),
        New("pd_op.full_like", {"x": "x", "value": "zero.0"},
            {"dtype": "bool", "place": lambda m: _place()},
            types=(lambda m: _bool_type(m, m.shape("x")),), bind="mask"),
        New("npu.scaled_masked_softmax", {"x": "x", "mask": "mask.0"},
            {"scale": lambda m: A.float_attr(float(m.captured["s"]), double=True),
             "fixed_triu_mask": False}),
    ),
)


def _place():
    return A.place_attr(0)   # Place(undefined): where the program runs, as Paddle's data ops


def _bool_type(m, shape):
    return DenseTensorType.make(ELEMENT_TYPES["b"], shape)


@register_pass
@dataclass(frozen=True)
class FuseScaledSoftmax(DeclarativePass):
    """Fuses softmax(scale(x, s)) over the last axis into npu.scaled_masked_softmax."""

    name = "fuse-scaled-softmax"
    devices = ("npu",)
    may_rewrite_after = ("fuse-attention",)
    rules = (SCALED_SOFTMAX,)
