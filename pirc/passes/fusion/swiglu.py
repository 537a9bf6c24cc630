"""fuse-swiglu: `silu(a) * b` (either order) -> `swiglu(a, b)`; and where a and b are the first
and second half of one tensor x's last axis (`paddle.chunk(x, 2, -1)`: a `split_with_num`
with num 2) -> `swiglu(x)` with y absent, which splits x itself.

It matches the `silu` that fuse-silu made of x * sigmoid(x) (may_rewrite_after), so it runs
after fuse-silu; the halves rule is tried first (the larger pattern).

What Paddle's fused op computes (phi cpu/swiglu_kernel.cc, both wheels, float and double
only -- float16/bfloat16 have no CPU swiglu kernel, so they are not fused): per row,
z[j] = SwiGLUFunctor(x[j], y[j]) = x / (1 + exp(-x)) * y, with y = x + n (the second half of
the row) when y is absent; SwiGLUInferMeta requires y of x's shape.  That is phi's silu
(x / (1 + exp(-x))) times b: the same float operations, bit for bit (tolerance atol 1e-6,
rtol 1e-6, docs/PARITY.md).  Hence a, b and the product must have one static shape: a
broadcast b ("swiglu" of a [2, 8] by a [8]) is another computation, and a dynamic dim the
rule cannot prove equal is a near miss.  A chunk along another axis, in three, or with the
halves swapped is not swiglu(x) (the two-operand rule may still take it: swapped halves are
swiglu(second, first)).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..infra.declarative import (ANY_OP_VERSIONS, Capture, Const, Constraint, DeclarativePass, New,
                                 Op, Rule)
from ..infra.registry import register_pass

FLOATS = ("f32", "f64")   # phi's CPU swiglu kernel: float, double


def _static_same_shape(m, *names) -> bool:
    shapes = [tuple(m.root.results[0].type.shape)] + [m.shape(n) for n in names]
    return all(d >= 0 for d in shapes[0]) and all(s == shapes[0] for s in shapes)


def _floats(m, *names) -> bool:
    return all(m.dtype(n) in FLOATS and m.dtype(n) == m.dtype(names[0]) for n in names)


def _half(index: int) -> Op:
    """Result `index` of a chunk of x in two (split_with_num, num 2, axis a constant)."""
    return Op("builtin.split", (Op("pd_op.split_with_num", ("x", Const(Capture("axis"))),
                                   attrs={"num": 2}),), result=index, bind=f"half{index}")


def _last_axis(m) -> bool:
    rank = len(m.shape("x"))
    return m.captured["axis"] in (-1, rank - 1)


SWIGLU_HALVES = Rule(
    "swiglu-halves",
    source=Op("pd_op.multiply", (Op("pd_op.silu", (_half(0),)), _half(1)), commutative=True),
    versions={"pd_op.multiply": (1,), "pd_op.silu": (1,), "pd_op.split_with_num": (1,),
              "builtin.split": ANY_OP_VERSIONS},
    constraints=(
        Constraint("float32 or float64 (Paddle's CPU swiglu kernel has no other dtype)",
                   lambda m: _floats(m, "x")),
        Constraint("both halves of one chunk", lambda m: m.ops["half0"] is m.ops["half1"]),
        Constraint("chunked along the last axis", _last_axis),
        Constraint("the last axis has a static size", lambda m: m.shape("x")[-1] >= 0),
    ),
    result=(New("pd_op.swiglu", {"x": "x", "y": None}),),
)

SWIGLU = Rule(
    "swiglu",
    source=Op("pd_op.multiply", (Op("pd_op.silu", ("a",)), "b"), commutative=True),
    versions={"pd_op.multiply": (1,), "pd_op.silu": (1,)},
    constraints=(
        Constraint("float32 or float64 (Paddle's CPU swiglu kernel has no other dtype)",
                   lambda m: _floats(m, "a", "b")),
        Constraint("a, b and the product have one static shape (swiglu does not broadcast)",
                   lambda m: _static_same_shape(m, "a", "b")),
    ),
    result=(New("pd_op.swiglu", {"x": "a", "y": "b"}),),
)


@register_pass
@dataclass(frozen=True)
class FuseSwiglu(DeclarativePass):
    """Fuses silu(a) * b into swiglu(a, b), or swiglu(x) for the two halves of x (float32/64)."""

    name = "fuse-swiglu"
    rules = (SWIGLU_HALVES, SWIGLU)
    may_rewrite_after = ("fuse-silu",)
