"""fuse-rotary: the rotate-half rotary embedding `x * cos + concat([-x2, x1], -1) * sin`
(x1, x2 the halves of x's last axis, by two `slice`s or one `split` / `split_with_num`; -x2
as `scale(x2, -1, bias 0)`; the products and the sum in any operand order) ->
`pd_op.fused_rotary_position_embedding` where its layout provably holds, else
`npu.rotary_mul(x, cos, sin, rotary_mode="half")`.

Why it is sound: Paddle's fused kernel (phi/kernels/fusion/gpu/fused_rope_utils.h,
FusedRopeKernelImpl) computes, per element and in float32, x*cos + rotate(x)*sin with, for
use_neox_rotary_style=False, rotate(x)[d] = d < D/2 ? -x[d + D/2] : x[d - D/2] — exactly
concat(-x2, x1).  Its q is [batch, seq, heads, head_dim] (time_major=False) and sin/cos are
[1, seq, 1, head_dim] (row s for position s), or [seq', head_dim] read at row
position_ids[b, s].  The rule emits it only when the static types prove that layout:

* x is 4-D float32 with a static even head_dim; cos and sin are float32 and either both
  [1, S, 1, D] with x's S and D, or both `unsqueeze(gather_nd(T, unsqueeze(pos, -1)), 2)`
  of 2-D [S', D] tables with one int64 pos [B, S] (x's B and S) — the kernel's
  position_ids form, LLaMA's `cos[position_ids]`;
* float32 only: the kernel computes in float32 and rounds once (float16/bfloat16 would round
  differently from the composition, which rounds after each op) and reads float64 as float32.
  In float32 the two products and the sum are the composition's, so pirc's CPU kernel
  (pirc/lower/kernels/rotary.py) gives Paddle's unfused numbers bit for bit; Paddle's GPU
  kernel may contract x*cos + r*sin into an FMA (a float32 ulp).  Tolerance: atol 1e-6,
  rtol 1e-6.

Elsewhere (f16/bf16, cos/sin broadcast another way) the npu dialect's rotary_mul takes it as
the fx rewrite did: torch_npu's 'half' mode is r1*x + r2*cat(-x2, x1), the same two products
and sum in the input's dtype (bit for bit on the CPU reference), for x, cos, sin of one rank
with cos/sin ending in x's (static, even) last dim.

The halves are checked, not swallowed: the slices or the split stay (dce removes them when
nothing else reads them), and x must be written in place nowhere (the alias model).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...ir.types import NULL_TYPE
from ..folding.constants import constant_value
from ..infra.declarative import (Capture, Const, Constraint, DeclarativePass, New, Op, Rule, attr_value,
                                 dtype_of)
from ..infra.forwarding import unwritten
from ..infra.registry import register_pass

F32 = "f32"


def _ints(value, m):
    """The integers a full_int_array (or a one-element full) holds, else None."""
    import numpy

    array = constant_value(value, lambda: numpy, m.pc.aliases)
    if array is None:
        return None
    return [int(v) for v in array.reshape(-1)]


def _producer(value, name):
    op = getattr(value, "op", None)
    return op if op is not None and op.name == name else None


def _last_axis(axis, rank):
    return rank is not None and axis in (-1, rank - 1)


def _source_of(value):
    """The tensor a half was cut from: a slice's input, or a split's through builtin.split."""
    op = getattr(value, "op", None)
    if op is not None and op.name == "pd_op.slice":
        return op.operands[0]
    if op is not None and op.name == "builtin.split":
        split = getattr(op.operands[0], "op", None)
        if split is not None and split.name in ("pd_op.split", "pd_op.split_with_num"):
            return split.operands[0]
    return None


def _halves(m) -> bool:
    """x1 and x2 are the first and second half of x's last axis (static, even), x being
    one factor of the other product (the other is cos): which one is read off the halves,
    so the product may come in either order."""
    x1, x2 = m["x1"], m["x2"]
    x = _source_of(x2)
    if x is None or x is not _source_of(x1):
        return False
    if x is m["xa"]:
        m.captured["x"], m.captured["cos"] = m["xa"], m["xb"]
    elif x is m["xb"]:
        m.captured["x"], m.captured["cos"] = m["xb"], m["xa"]
    else:
        return False
    shape = m.shape("x")
    if shape is None or not shape or shape[-1] <= 0 or shape[-1] % 2:
        return False
    rank, size = len(shape), shape[-1]
    half = size // 2
    lo, hi = _producer(x1, "pd_op.slice"), _producer(x2, "pd_op.slice")
    if lo is not None and hi is not None:
        if lo.operands[0] is not x or hi.operands[0] is not x:
            return False
        for op in (lo, hi):
            axes = attr_value(op, "axes", ())
            if len(axes) != 1 or not _last_axis(axes[0], rank) or attr_value(op, "decrease_axis", ()):
                return False
        ls, le = _ints(lo.operands[1], m), _ints(lo.operands[2], m)
        hs, he = _ints(hi.operands[1], m), _ints(hi.operands[2], m)
        return (ls == [0] and le == [half] and hs == [half] and he is not None
                and len(he) == 1 and he[0] >= size)
    parts = getattr(x1, "op", None)
    if parts is None or parts is not getattr(x2, "op", None) or parts.name != "builtin.split":
        return False
    if x1.index != 0 or x2.index != 1 or len(parts.results) != 2:
        return False
    split = getattr(parts.operands[0], "op", None)
    if split is None or split.operands[0] is not x:
        return False
    if split.name == "pd_op.split_with_num":
        axis = _ints(split.operands[1], m)
        return attr_value(split, "num") == 2 and axis is not None and _last_axis(axis[0], rank)
    if split.name == "pd_op.split":
        sections, axis = _ints(split.operands[1], m), _ints(split.operands[2], m)
        return (axis is not None and _last_axis(axis[0], rank) and sections is not None
                and len(sections) == 2 and all(s in (half, -1) for s in sections)
                and sections != [-1, -1])
    return False


def _x_unwritten(m) -> bool:
    return unwritten(m.pc.aliases, m["x"])


def _gathered(m, name):
    """(table, pos) when `name` = unsqueeze(gather_nd(table [S', D], unsqueeze(pos, [-1])), [2])."""
    outer = _producer(m[name], "pd_op.unsqueeze")
    if outer is None or _ints(outer.operands[1], m) not in ([2], [-2]):
        return None
    gather = _producer(outer.operands[0], "pd_op.gather_nd")
    if gather is None:
        return None
    index = _producer(gather.operands[1], "pd_op.unsqueeze")
    if index is None or _ints(index.operands[1], m) not in ([-1], [2]):
        return None
    table, pos = gather.operands[0], index.operands[0]
    return table, pos


def _fused_layout(m) -> bool:
    """The kernel's layout holds: cos/sin [1, S, 1, D], or the position_ids form."""
    xs, cs, ss = m.shape("x"), m.shape("cos"), m.shape("sin")
    if xs is None or len(xs) != 4 or any(d < 0 for d in xs[1:]):
        return False
    b, s, _, d = xs
    m.captured["position_ids"] = None
    m.captured["sin_t"], m.captured["cos_t"] = m["sin"], m["cos"]
    if cs == ss == (1, s, 1, d):
        return True
    gc, gs = _gathered(m, "cos"), _gathered(m, "sin")
    if gc is None or gs is None or gc[1] is not gs[1]:
        return False
    (tc, pos), (ts, _) = gc, gs
    tcs, tss, ps = _shape(tc), _shape(ts), _shape(pos)
    if tcs is None or tss is None or len(tcs) != 2 or tcs != tss or tcs[1] != d or tcs[0] < 0:
        return False
    if ps != (b, s) or b < 0 or dtype_of(pos) != "i64" or dtype_of(tc) != F32 or dtype_of(ts) != F32:
        return False
    if not all(unwritten(m.pc.aliases, v) for v in (tc, ts, pos)):
        return False
    m.captured.update(position_ids=pos, sin_t=ts, cos_t=tc)
    return True


def _shape(value):
    shape = getattr(value.type, "shape", None)
    return None if shape is None else tuple(shape)


def _rotary_mul_layout(m) -> bool:
    xs, cs, ss = m.shape("x"), m.shape("cos"), m.shape("sin")
    return (xs is not None and cs is not None and ss is not None and len(xs) == len(cs) == len(ss)
            and cs[-1] == ss[-1] == xs[-1])


def _source():
    rotated = Op("pd_op.concat", (
        Op("builtin.combine", (
            Op("pd_op.scale", ("x2", Const(-1.0)), attrs={"bias": 0.0}, bind="neg"), "x1")),
        Const(Capture("cat_axis"))), bind="cat")
    return Op("pd_op.add", (
        Op("pd_op.multiply", (rotated, "sin"), commutative=True, bind="rot_sin"),
        Op("pd_op.multiply", ("xa", "xb"), bind="x_cos")), commutative=True)


VERSIONS = {"pd_op.add": (1,), "pd_op.multiply": (1,), "pd_op.concat": (1,),
            "builtin.combine": "*", "pd_op.scale": (1,)}
COMMON = (
    Constraint("x1 and x2 are the halves of x's static, even last axis, x a factor of "
               "the other product", _halves),
    Constraint("concat along the last axis",
               lambda m: _last_axis(int(m.captured["cat_axis"]), len(m.shape("x")))),
    Constraint("x is written in place nowhere (the alias model)", _x_unwritten),
)

FUSED = Rule(
    "rotary-fused",
    source=_source(),
    versions=VERSIONS,
    constraints=COMMON + (
        Constraint("x, cos and sin are float32 (the fused kernel computes in float32)",
                   lambda m: m.dtype("x") == m.dtype("cos") == m.dtype("sin") == F32),
        Constraint("x is [B, S, H, D] with cos/sin [1, S, 1, D] or gathered by [B, S] "
                   "position ids from [S', D] tables", _fused_layout),
    ),
    result=(New("pd_op.fused_rotary_position_embedding",
                {"q": "x", "sin": lambda m: m.captured["sin_t"], "cos": lambda m: m.captured["cos_t"],
                 "position_ids": lambda m: _or_null(m.captured["position_ids"])},
                {"use_neox_rotary_style": False, "time_major": False, "rotary_emb_base": 10000.0},
                types=("root", lambda m: NULL_TYPE, lambda m: NULL_TYPE), bind="rope"),),
    replace={"root": ("rope.0",)},
)

NPU = Rule(
    "rotary-npu",
    source=_source(),
    versions=VERSIONS,
    constraints=COMMON + (
        Constraint("x, cos and sin are one float dtype",
                   lambda m: m.dtype("x") == m.dtype("cos") == m.dtype("sin")
                   and m.dtype("x") in ("f32", "f16", "bf16")),
        Constraint("cos and sin have x's rank and end in its last dim", _rotary_mul_layout),
    ),
    result=(New("npu.rotary_mul", {"self": "x", "r1": "cos", "r2": "sin"}, {"rotary_mode": "half"}),),
)


def _or_null(value):
    from ...ir.ops import null_value
    return null_value() if value is None else value


@register_pass
@dataclass(frozen=True)
class FuseRotary(DeclarativePass):
    """Fuses the rotate-half rotary embedding into fused_rotary_position_embedding (else npu.rotary_mul)."""

    name = "fuse-rotary"
    devices = ("npu",)
    rules = (FUSED, NPU)
