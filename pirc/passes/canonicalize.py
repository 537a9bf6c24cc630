"""canonicalize: remove ops that compute their input, and fold chains of casts and transposes.

Each rewrite is one pattern, run by the greedy driver (pirc.passes.infra.greedy) until none
fires:

* `pd_op.assign(x)` is `x` (so a chain of assigns is its first input);
* `pd_op.dropout` with `is_test` is `x` in `upscale_in_train` mode (the scaling happened in
  training); in `downgrade_in_infer` mode it multiplies by `1 - p` and is `x` only for p = 0;
  its mask must be unused;
* `pd_op.scale` by 1 with bias 0 is `x` (bias before or after the scale) only where the
  result is `x` bit for bit: an integer `x`, or a bias of -0.0.  A float `x` holding -0.0
  gives +0.0 with a bias of +0.0 (-0.0 * 1 + 0.0, as Paddle's kernel computes it), so that
  scale is kept; with a bias of -0.0 every value, -0.0 included, comes back unchanged;
* `pd_op.cast` to the type it has is `x`; a cast of a cast whose first step widens without
  loss (float16 -> float32, int32 -> int64, ...) is one cast from the source.  That is exact
  only when every cast rounds to nearest: PIR version 1's float32 -> float16 truncates (the
  cast's semantics before version 3), so casts are declared for semantic version 3 alone;
* `pd_op.reshape` to the static shape its input has is `x`;
* `pd_op.transpose` by the identity is `x`; a transpose of a transpose is one transpose by
  the composed permutation, or `x` when that is the identity.

Replacing a result by an input asks the alias model (pirc.ir.aliasing, through
pirc.passes.infra.forwarding): no op may change the result's buffer, nor the input's after
the identity op, and a fetch keeps reading a value computed in its block that no other fetch
reads; composing two casts or transposes needs the inner result unwritten and the source
unwritten between the two.  A rewrite those rules forbid is counted as a skip.  A
`full` a rewrite matched (a scale's factor, a dropout's p) goes with it when nothing else
uses it; other ops the rewrites leave unused (the first of two transposes) are dce's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..ir import attrs as A
from ..ir.types import ELEMENT_TYPE_NAMES
from .folding.constants import full_scalar
from .infra.forwarding import may_forward, may_reread
from .infra.greedy import DEFAULT_MAX_ITERATIONS, Pattern, apply_patterns, replace_op
from .infra.pass_base import PassContext, PircPass
from .infra.registry import register_pass
from .infra.rewrites import ANY_OP, OpUse

ALIASING = "aliasing: the value is written in place or a fetch would change what it reads"


def _forward(pc, op, value, matched=None):
    """Replace `op` (whose other results are unused) by `value`, through the gate."""
    pc.matched()
    result = op.results[0]
    if any(r.first_use is not None for r in op.results[1:]):
        return None
    if not may_forward(op, result, value, pc.aliases):
        pc.skip(ALIASING, op)
        return None
    matched = matched or [op]
    rewrite = pc.begin(matched)
    if rewrite is None:
        return None
    users = replace_op(op, [value], [m for m in matched if m is not op])
    rewrite.done()
    return users


def _producer(value, name: str):
    owner = getattr(value, "op", None)
    return owner if owner is not None and owner.name == name else None


class ForwardAssign(Pattern):
    root = "pd_op.assign"
    operands = 1

    def match_and_rewrite(self, op, pc):
        return _forward(pc, op, op.operands[0])


class DropInferenceDropout(Pattern):
    root = "pd_op.dropout"
    operands = 3

    def match_and_rewrite(self, op, pc):
        attrs = op.attributes
        is_test = attrs.get("is_test")
        if is_test is None or not A.scalar_value(is_test):
            return None
        p = op.operands[2]
        full = _producer(p, "pd_op.full")
        if getattr(attrs.get("mode"), "data", "downgrade_in_infer") != "upscale_in_train" \
                and full_scalar(p, pc.aliases) != 0:
            return None
        # p's full is matched (read, or left unused: erased with the dropout when so).
        return _forward(pc, op, op.operands[0], [op] + ([full] if full is not None else []))


class DropIdentityScale(Pattern):
    root = "pd_op.scale"
    operands = 2

    def match_and_rewrite(self, op, pc):
        bias = op.attributes.get("bias")
        if bias is None or A.scalar_value(bias) != 0:
            return None
        # x * 1 + 0.0 (or (x + 0.0) * 1) turns a float -0.0 into +0.0; adding -0.0 changes
        # no float, and an integer has no -0.
        if _element(op.operands[0]) not in _INTS \
                and math.copysign(1.0, float(A.scalar_value(bias))) > 0:
            return None
        scale = op.operands[1]
        if full_scalar(scale, pc.aliases) != 1:
            return None
        return _forward(pc, op, op.operands[0], [op, scale.op])


class DropSameTypeCast(Pattern):
    root = "pd_op.cast"
    operands = 1

    def match_and_rewrite(self, op, pc):
        x = op.operands[0]
        if x.type is not op.results[0].type and x.type != op.results[0].type:
            return None
        return _forward(pc, op, x)


# (from, to) element types a cast widens without loss: every value of `from` is one of `to`.
_WIDENING = {("f16", "f32"), ("f16", "f64"), ("bf16", "f32"), ("bf16", "f64"), ("f32", "f64"),
             ("i8", "i16"), ("i8", "i32"), ("i8", "i64"), ("i16", "i32"), ("i16", "i64"),
             ("i32", "i64"), ("u8", "i16"), ("u8", "i32"), ("u8", "i64")}
_FLOATS = {"f16", "bf16", "f32", "f64"}
_INTS = {"i8", "i16", "i32", "i64", "u8"}


def _element(value):
    return ELEMENT_TYPE_NAMES.get(getattr(value.type, "dtype", None))


class ComposeCasts(Pattern):
    """cast(cast(x, T -> U), U -> V) with T -> U lossless is cast(x, T -> V): the value
    reaching the second cast is x's exactly, so one rounding to V happens either way.  V must
    be a float, or all three integers (integer narrowing wraps modulo 2**n either way)."""

    root = "pd_op.cast"
    operands = 1

    def match_and_rewrite(self, op, pc):
        inner = _producer(op.operands[0], "pd_op.cast")
        if inner is None or len(inner.operands) != 1:
            return None
        x = inner.operands[0]
        t, u, v = _element(x), _element(inner.results[0]), _element(op.results[0])
        if (t, u) not in _WIDENING or not (v in _FLOATS or {t, u, v} <= _INTS):
            return None
        pc.matched()
        if not may_reread(pc.aliases, inner, op, x):
            pc.skip(ALIASING, op)
            return None
        rewrite = pc.begin([inner, op])
        if rewrite is None:
            return None
        op.operands = [x]
        rewrite.done([op])
        return [op]


def _perm(op):
    perm = op.attributes.get("perm")
    if perm is None or len(op.operands) != 1:  # a program read without the verifier
        return None
    rank = len(getattr(op.operands[0].type, "shape", ()))
    perm = [A.scalar_value(p) for p in perm.data]
    if rank == 0 or len(perm) != rank:
        return None
    perm = [p % rank for p in perm]
    return perm if sorted(perm) == list(range(rank)) else None


class ComposeTransposes(Pattern):
    """transpose(transpose(x, p), q) is transpose(x, [p[q[i]]]); the identity is x."""

    root = "pd_op.transpose"
    operands = 1

    def match_and_rewrite(self, op, pc):
        outer = _perm(op)
        if outer is None:
            return None
        if outer == sorted(outer):
            return _forward(pc, op, op.operands[0])
        inner_op = _producer(op.operands[0], "pd_op.transpose")
        inner = None if inner_op is None else _perm(inner_op)
        if inner is None:
            return None
        x = inner_op.operands[0]
        composed = [inner[i] for i in outer]
        if composed == sorted(composed):
            return _forward(pc, op, x, [inner_op, op])
        pc.matched()
        if not may_reread(pc.aliases, inner_op, op, x):
            pc.skip(ALIASING, op)
            return None
        rewrite = pc.begin([inner_op, op])
        if rewrite is None:
            return None
        op.operands = [x]
        op.attributes["perm"] = A.array_attr([A.int32_attr(p) for p in composed])
        rewrite.done([op])
        return [op]


class DropSameShapeReshape(Pattern):
    root = "pd_op.reshape"
    operands = 2

    def match_and_rewrite(self, op, pc):
        x = op.operands[0]
        out = op.results[0].type
        shape = getattr(out, "shape", None)
        if shape is None or any(d < 0 for d in shape) or (x.type is not out and x.type != out):
            return None
        return _forward(pc, op, x)


PATTERNS = (ForwardAssign(), DropInferenceDropout(), DropIdentityScale(), DropSameTypeCast(),
            ComposeCasts(), ComposeTransposes(), DropSameShapeReshape())


@register_pass
@dataclass(frozen=True)
class Canonicalize(PircPass):
    """Removes identity ops (assign, inference dropout, scale by 1, ...), composes casts and transposes.

    The identities: assign, dropout with is_test, scale by 1 with bias 0 (integer x, or
    bias -0.0: bit for bit), a cast to the same type, a reshape to the same static shape, an
    identity transpose."""

    name = "canonicalize"
    version = 1
    invariants = ("verified",)
    # It reads the `full` ops const-fold writes (a scale's factor, a dropout's p).
    may_rewrite_after = ("const-fold",)
    rewrites = {
        "pd_op.assign": OpUse(ANY_OP),      # no kernel entry: it is its input by definition
        "pd_op.dropout": OpUse((1,)),
        "pd_op.scale": OpUse((1,)),
        "pd_op.full": OpUse((1,)),          # read: the scale's factor, the dropout's p
        "pd_op.cast": OpUse((3,)),          # see the module docstring
        "pd_op.reshape": OpUse((1,)),
        "pd_op.transpose": OpUse((1,)),
    }
    max_iterations: int = DEFAULT_MAX_ITERATIONS

    def run(self, pc: PassContext) -> None:
        apply_patterns(pc, PATTERNS, self.max_iterations)
