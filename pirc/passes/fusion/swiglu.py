"""fuse-swiglu: `silu(a) * b` (either order) -> `swiglu(a, b)`; and where a and b are the first
and second half of one tensor x's last axis -> `swiglu(x)` with y absent, which splits x
itself.  The halves as Paddle writes them: `paddle.chunk(x, 2, -1)` (`split_with_num`, num
2), `paddle.split(x, [h, h], -1)` (`split` with two equal sections), or `x[..., :h]` and
`x[..., h:]` (two `slice`s with constant bounds).

It matches the `silu` that fuse-silu made of x * sigmoid(x) (may_rewrite_after), so it runs
after fuse-silu; the halves rule is tried first (the larger pattern).

What Paddle's fused op computes (phi cpu/swiglu_kernel.cc, both wheels, float and double
only -- float16/bfloat16 have no CPU swiglu kernel, so they are not fused): per row,
z[j] = SwiGLUFunctor(x[j], y[j]) = x / (1 + exp(-x)) * y, with y = x + n (the second half of
the row) when y is absent; SwiGLUInferMeta requires y of x's shape.  That is phi's silu
(x / (1 + exp(-x))) times b: pirc's lowering computes the same float operations, bit for bit.
Paddle 3.3.1's kernels do not (its silu op vectorises exp): on 300k float32 values swiglu and
silu(a) * b differ on 43% of them, by at most 2.9e-7 relative.  Tolerance: atol 1e-6, rtol
1e-6 (docs/PARITY.md).  Hence a, b and the product must have one shape: a broadcast b
("swiglu" of a [2, 8] by a [8]) is another computation.  A dynamic dim counts where it is
provably the same one in all three (pirc.passes.infra.same_dim: LLaMA's gate and up
projections of one hidden state, [-1, S, I] both, copy its batch dim); two feeds of [-1, 16]
are not (one may be 1 at run time and broadcast): a near miss.  A chunk along another axis, in three, or with the
halves swapped is not swiglu(x) (the two-operand rule may still take it: swapped halves are
swiglu(second, first)).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..infra.declarative import (ANY_OP, Capture, Const, Constraint, DeclarativePass,
                                 Either, New, Op, Rule, attr_value)
from ..folding.constants import int_array_values
from ..infra.registry import register_pass
from ..infra.same_dim import same_dim

FLOATS = ("f32", "f64")   # phi's CPU swiglu kernel: float, double


def _same_shape(m, *names) -> bool:
    """The product and every named value have one shape: each dim static and equal, or a
    dynamic dim provably the same one (pirc.passes.infra.same_dim: copied from one dim of
    one value, so no operand can broadcast another at run time)."""
    out = m.root.results[0]
    values = [m[n] for n in names]
    rank = len(out.type.shape)
    if any(m.shape(n) is None or len(m.shape(n)) != rank for n in names):
        return False
    return all(same_dim(out, i, v, i, m.pc.aliases) for v in values for i in range(rank))


def _half(index: int) -> Op:
    """Result `index` of a split of x in two: a chunk (`split_with_num`, num 2) or `split`
    with two sections; the axis a constant."""
    return Op("builtin.split", (Either(
        Op("pd_op.split_with_num", ("x", Const(Capture("axis"))), attrs={"num": 2}, bind="chunk"),
        Op("pd_op.split", ("x", "_", Const(Capture("axis"))), bind="chunk"),
    ),), result=index, bind=f"half{index}")


def _slice(index: int) -> Op:
    """x[..., :h] (index 0) or x[..., h:] (index 1): a `slice` of one axis, bounds constant."""
    return Op("pd_op.slice", ("x", "_", "_"), attrs={"decrease_axis": ()}, bind=f"slice{index}")


def _last_axis(m) -> bool:
    rank = len(m.shape("x"))
    if "slice0" in m.ops:
        axes = {attr_value(m.ops[k], "axes") for k in ("slice0", "slice1")}
        return axes in ({(-1,)}, {(rank - 1,)})
    return m.captured["axis"] in (-1, rank - 1)


def _halves(m) -> bool:
    """The two pieces are the first and the second half of x's last axis, in that order."""
    size = m.shape("x")[-1]
    h = size // 2
    if size < 0 or size % 2:
        return False
    if "slice0" in m.ops:
        lo, hi = m.ops["slice0"], m.ops["slice1"]
        bounds = [int_array_values(v, m.pc.aliases)
                  for v in (lo.operands[1], lo.operands[2], hi.operands[1], hi.operands[2])]
        if None in bounds or any(len(b) != 1 for b in bounds):
            return False
        (s0,), (e0,), (s1,), (e1,) = bounds
        return s0 in (0, -size) and e0 in (h, -h) and s1 in (h, -h) and e1 >= size
    if m.ops["half0"] is not m.ops["half1"]:
        return False
    chunk = m.ops["chunk"]
    if chunk.name == "pd_op.split_with_num":
        return True
    sections = int_array_values(chunk.operands[1], m.pc.aliases)
    return sections is not None and sorted(sections) in ([h, h], [-1, h])


_HALVES_VERSIONS = {"pd_op.multiply": (1,), "pd_op.silu": (1,), "pd_op.split_with_num": (1,),
                    "pd_op.split": (1,), "pd_op.slice": (1,), "builtin.split": ANY_OP}

SWIGLU_HALVES = Rule(
    "swiglu-halves",
    source=Either(
        Op("pd_op.multiply", (Op("pd_op.silu", (_half(0),)), _half(1)), commutative=True),
        Op("pd_op.multiply", (Op("pd_op.silu", (_slice(0),)), _slice(1)), commutative=True),
    ),
    versions=_HALVES_VERSIONS,
    constraints=(
        Constraint("float32 or float64 (Paddle's CPU swiglu kernel has no other dtype)",
                   lambda m: m.dtype("x") in FLOATS),
        Constraint("split along the last axis", _last_axis),
        Constraint("the first half under silu, the second half beside it (a static, even "
                   "last axis)", _halves),
    ),
    result=(New("pd_op.swiglu", {"x": "x", "y": None}),),
)

SWIGLU = Rule(
    "swiglu",
    source=Op("pd_op.multiply", (Op("pd_op.silu", ("a",)), "b"), commutative=True),
    versions={"pd_op.multiply": (1,), "pd_op.silu": (1,)},
    constraints=(
        Constraint("float32 or float64 (Paddle's CPU swiglu kernel has no other dtype)",
                   lambda m: m.one_dtype("a", "b") in FLOATS),
        Constraint("a, b and the product have one static shape, a dynamic dim provably "
                   "the same one (swiglu does not broadcast)",
                   lambda m: _same_shape(m, "a", "b")),
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
