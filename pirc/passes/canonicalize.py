"""canonicalize: remove ops that compute their input, and fold chains of casts and transposes.

Each rewrite is one declarative rule (pirc.passes.infra.declarative), run by the greedy
driver until none fires:

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

The identities are `Forward` results: the root's result is replaced by its input, which
the alias model must allow (`may_forward`, pirc.passes.infra.forwarding: no op changes the
result's buffer, nor the input's after the identity op, and a fetch keeps reading a value
computed in its block that no other fetch reads; through a matched transpose, `may_reread`
too).  The compositions are `Update` results: the second cast or transpose reads the
first one's input (`may_reread`: the first one's result unwritten, the source unwritten
between the two); the first one stays for its other users, or for dce.  A rewrite those
rules forbid is a skip with the aliasing reason.  A `full` a rule matched (a scale's
factor, a dropout's p) goes with it when nothing else uses it.

The facts each rule reads from its operands are named constraints, so a candidate that
matched a producer and then failed is a near miss in `--explain=canonicalize` ("scale
factor is 1", "bias is -0.0 or x is an integer", ...).  A program read without the
verifier may hold malformed ops (a transpose without perm, a cast without operand): the
patterns never index past what is there.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..ir import attrs as A
from ..ir.types import ELEMENT_TYPE_NAMES
from .folding.constants import full_scalar
from .infra.declarative import ANY, Check, Const, Constraint, DeclarativePass, Forward, Op, Rule, Update
from .infra.greedy import DEFAULT_MAX_ITERATIONS
from .infra.registry import register_pass
from .infra.rewrites import ANY_OP


def _element(value):
    return ELEMENT_TYPE_NAMES.get(getattr(value.type, "dtype", None))


def _same_type(a, b) -> bool:
    return a.type is b.type or a.type == b.type


# What the rules work out from attributes and types alone, kept by the objects' identity.
# Both are immutable, and the readers intern them (one object per distinct perm or type in a
# program), so a program's thousands of transposes and reshapes ask a handful of questions;
# xDSL's `==` on two types and a perm's scalars cost more than the rest of a candidate.  The
# objects are kept with the answer (no id is reused while it is here); a bounded number.
_KEEP = 1024
_FACTS: dict = {}


def _remembered(kind: str, a, b, compute):
    key = (kind, id(a), id(b))
    entry = _FACTS.get(key)
    if entry is not None and entry[0] is a and entry[1] is b:
        return entry[2]
    answer = compute(a, b)
    if len(_FACTS) >= _KEEP:
        _FACTS.clear()
    _FACTS[key] = (a, b, answer)
    return answer


# -- identities -----------------------------------------------------------------------------

FORWARD_ASSIGN = Rule(
    "forward-assign",
    source=Op("pd_op.assign", ("x",)),
    versions={"pd_op.assign": ANY_OP},   # no kernel entry: it is its input by definition
    result=(Forward("x"),),
)


def _dropout_is_identity(m) -> bool:
    root = m.root
    if getattr(root.attributes.get("mode"), "data", "downgrade_in_infer") == "upscale_in_train":
        return True
    p = root._operands[2]   # xDSL's tuple: no view made
    return full_scalar(p, m.aliases_for(p)) == 0


INFERENCE_DROPOUT = Rule(
    "inference-dropout",
    # p's `full`, when a full makes it, is matched: erased with the dropout once unused.
    source=Op("pd_op.dropout", ("x", ANY, Op("pd_op.full", optional=True)), attrs={"is_test": True}),
    versions={"pd_op.dropout": (1,), "pd_op.full": (1,)},
    constraints=(Constraint("mode is upscale_in_train, or p is 0 (downgrade_in_infer scales by 1 - p)",
                            _dropout_is_identity),),
    result=(Forward("x"),),
)

_INTS = {"i8", "i16", "i32", "i64", "u8"}


def _bias_keeps_bits(m) -> bool:
    # x * 1 + 0.0 (or (x + 0.0) * 1) turns a float -0.0 into +0.0; adding -0.0 changes no
    # float, and an integer has no -0.
    bias = float(A.scalar_value(m.root.attributes["bias"]))
    return _element(m["x"]) in _INTS or math.copysign(1.0, bias) < 0


IDENTITY_SCALE = Rule(
    "identity-scale",
    source=Op("pd_op.scale", ("x", Const(Check("scale factor is 1", lambda v: v == 1))),
              attrs={"bias": Check("bias is 0", lambda v: v == 0)}),
    versions={"pd_op.scale": (1,)},
    constraints=(Constraint("bias is -0.0 or x is an integer", _bias_keeps_bits),),
    result=(Forward("x"),),
)

SAME_TYPE_CAST = Rule(
    "same-type-cast",
    source=Op("pd_op.cast", ("x",)),
    versions={"pd_op.cast": (3,)},   # see the module docstring
    constraints=(Constraint("x has the cast's type", lambda m: _same_type(m["x"], m.root.results[0])),),
    result=(Forward("x"),),
)

SAME_SHAPE_RESHAPE = Rule(
    "same-shape-reshape",
    source=Op("pd_op.reshape", ("x", ANY)),
    versions={"pd_op.reshape": (1,)},
    # on the root alone (x is its first operand): the driver screens reshapes with it
    constraints=(Constraint.of_root("the result has x's static shape and type",
                                    lambda op: _remembered("reshape", _item(op.results, 0)._type,
                                                           _item(op._operands, 0)._type,
                                                           _same_static_type)),),
    result=(Forward("x"),),
)


def _same_static_type(result_type, x_type) -> bool:
    """A reshape's result type is x's, with a static shape."""
    shape = getattr(result_type, "shape", None)
    return shape is not None and all(d >= 0 for d in shape) and \
        (x_type is result_type or x_type == result_type)


# -- compositions ---------------------------------------------------------------------------

# (from, to) element types a cast widens without loss: every value of `from` is one of `to`.
_WIDENING = {("f16", "f32"), ("f16", "f64"), ("bf16", "f32"), ("bf16", "f64"), ("f32", "f64"),
             ("i8", "i16"), ("i8", "i32"), ("i8", "i64"), ("i16", "i32"), ("i16", "i64"),
             ("i32", "i64"), ("u8", "i16"), ("u8", "i32"), ("u8", "i64")}
_FLOATS = {"f16", "bf16", "f32", "f64"}


def _casts_compose(m) -> bool:
    """cast(cast(x, T -> U), U -> V) with T -> U lossless is cast(x, T -> V): the value
    reaching the second cast is x's exactly, so one rounding to V happens either way.  V
    must be a float, or all three integers (integer narrowing wraps modulo 2**n either way)."""
    t, u, v = _element(m["x"]), _element(m["inner"].results[0]), _element(m.root.results[0])
    return (t, u) in _WIDENING and (v in _FLOATS or {t, u, v} <= _INTS)


COMPOSE_CASTS = Rule(
    "compose-casts",
    source=Op("pd_op.cast", (Op("pd_op.cast", ("x",), bind="inner"),)),
    versions={"pd_op.cast": (3,)},
    constraints=(Constraint("the inner cast has one operand", lambda m: len(m["inner"].operands) == 1),
                 Constraint("the first cast widens without loss, and the second goes to a float "
                            "or all three types are integers", _casts_compose)),
    result=(Update({"x": "x"}),),
)


def _perm(op):
    """The op's permutation, each axis in [0, rank); None for a malformed transpose (a
    program read without the verifier).  The same list for the same perm and input type:
    not to be changed."""
    perm, operands = op.attributes.get("perm"), op._operands   # xDSL's tuple: no view made
    if perm is None or len(operands) != 1:
        return None
    return _remembered("perm", perm, operands[0].type, _permutation)


def _permutation(perm, input_type):
    rank = len(getattr(input_type, "shape", ()))
    perm = [A.scalar_value(p) for p in perm.data]
    if rank == 0 or len(perm) != rank:
        return None
    perm = [p % rank for p in perm]
    return perm if sorted(perm) == list(range(rank)) else None


def _identity(perm) -> bool:
    return perm == sorted(perm)


def _identity_transpose(op) -> bool:
    """Whether the op's perm is a permutation and the identity: one fact per perm and input
    type (the driver screens every transpose with it)."""
    perm, operands = op.attributes.get("perm"), op._operands
    if perm is None or len(operands) != 1:
        return False
    return _remembered("identity", perm, _item(operands, 0)._type, _identity_permutation)


def _identity_permutation(perm, input_type) -> bool:
    permutation = _permutation(perm, input_type)
    return permutation is not None and _identity(permutation)


_item = tuple.__getitem__   # an operand tuple's item (xDSL's `SSAValues.__getitem__` is Python)


def _perm_of(m, name: str):
    """The permutation of the root ("root") or of a bound op, read once per candidate."""
    key = _PERM_KEYS.get(name) or "perm:" + name
    captured = m.captured
    if key not in captured:
        captured[key] = _perm(m.root if name == "root" else m[name])
    return captured[key]


_PERM_KEYS = {"root": "perm:root", "inner": "perm:inner"}   # the names the rules ask


def _composed(m):
    """transpose(transpose(x, p), q) is transpose(x, [p[q[i]]])."""
    inner, outer = _perm_of(m, "inner"), _perm_of(m, "root")
    return [inner[i] for i in outer]


_PERM = Constraint("perm is a permutation of the input's axes", lambda m: _perm_of(m, "root") is not None)
_NOT_IDENTITY = Constraint("perm is not the identity", lambda m: not _identity(_perm_of(m, "root")))
_INNER_PERM = Constraint("the inner perm is a permutation of x's axes",
                         lambda m: _perm_of(m, "inner") is not None)
_PAIR = Op("pd_op.transpose", (Op("pd_op.transpose", ("x",), bind="inner"),))

IDENTITY_TRANSPOSE = Rule(
    "identity-transpose",
    source=Op("pd_op.transpose", ("x",)),
    versions={"pd_op.transpose": (1,)},
    # on the root alone: the driver screens transposes with them
    constraints=(Constraint.of_root(_PERM.name, lambda op: _perm(op) is not None),
                 Constraint.of_root("perm is the identity", lambda op: _identity_transpose(op))),
    result=(Forward("x"),),
)

TRANSPOSE_PAIR_IDENTITY = Rule(
    "transpose-pair-identity",
    source=_PAIR,
    versions={"pd_op.transpose": (1,)},
    constraints=(_PERM, _NOT_IDENTITY, _INNER_PERM,
                 Constraint("the composed perm is the identity", lambda m: _identity(_composed(m)))),
    result=(Forward("x"),),
)

COMPOSE_TRANSPOSES = Rule(
    "compose-transposes",
    source=_PAIR,
    versions={"pd_op.transpose": (1,)},
    constraints=(_PERM, _NOT_IDENTITY, _INNER_PERM,
                 Constraint("the composed perm is not the identity", lambda m: not _identity(_composed(m)))),
    result=(Update({"x": "x"}, {"perm": _composed}),),
)

# Per root, the driver tries the rules in this order until one rewrites.  The transpose
# rules exclude each other (a refused one is not retried in another form); a same-type cast
# the gate or the alias model refuses may still compose with the cast before it.
RULES = (FORWARD_ASSIGN, INFERENCE_DROPOUT, IDENTITY_SCALE, SAME_TYPE_CAST, COMPOSE_CASTS,
         IDENTITY_TRANSPOSE, TRANSPOSE_PAIR_IDENTITY, COMPOSE_TRANSPOSES, SAME_SHAPE_RESHAPE)


@register_pass
@dataclass(frozen=True)
class Canonicalize(DeclarativePass):
    """Removes identity ops (assign, inference dropout, scale by 1, ...), composes casts and transposes.

    The identities: assign, dropout with is_test, scale by 1 with bias 0 (integer x, or
    bias -0.0: bit for bit), a cast to the same type, a reshape to the same static shape, an
    identity transpose."""

    name = "canonicalize"
    version = 1
    invariants = ("verified",)
    # It reads the `full` ops const-fold writes (a scale's factor, a dropout's p).
    may_rewrite_after = ("const-fold",)
    rules = RULES
    max_iterations: int = DEFAULT_MAX_ITERATIONS
