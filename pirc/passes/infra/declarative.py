"""Declarative rewrites: a source pattern, constraints, the op versions it was written for and
a result pattern, compiled onto the greedy driver and the rewrite gate.

The models are MLIR's DRR / PDLL, Inductor's `register_replacement` and onnxscript's
rewriter.  A rule is data:

    Rule("silu",
         source=Op("pd_op.multiply", ("x", Op("pd_op.sigmoid", ("x",))), commutative=True),
         versions={"pd_op.multiply": (1,), "pd_op.sigmoid": (1,)},
         result=(New("pd_op.silu", {"x": "x"}),))

* **Source pattern.**  `Op(name, operands, attrs=..., commutative=..., optional=..., bind=...)`
  is an op; an operand is a variable (a string: the same name twice must be the same value;
  `"_"` is anything), a nested `Op` (the operand must be that op's result `result`), or a
  `Const` (a one-element `pd_op.full` holding a number), or an `Either` of those (the same
  value spelled several ways: `0.5 * x` as a `scale` or as a `multiply` by a `full`; the
  options are tried in order and the first that matches is kept, as a commutative op keeps
  its first matching order).  `attrs` constrain attribute values:
  a literal (equal), a `Check` (a predicate with a name) or a `Capture` (bind the value).
  `commutative` tries the first two operands in both orders; an `optional` op may be absent,
  its first operand then standing for its result (an inference dropout between two ops), or
  the variable it binds with `value=` (an optional residual add in front of a norm).
  `Op(..., value="x")` also binds the op's result to the variable `x` (or
  requires it to be `x`), so a value can be both a pattern op and a variable used elsewhere;
  a variable spelled `"name?"` is an optional operand (absent, or bound to `name`; a result
  refers to it as `"name?"`, giving an absent operand when it was); an optional op without operands stands for anything when absent
  (`Op("pd_op.full", optional=True)`: a dropout's p, matched -- and erased with the rule's
  ops once unused -- when a `full` makes it, else any value).
* **Constraints** (`Constraint(name, check)`, `check(m) -> bool`): static shape and dtype
  facts, attribute values, anything in Python.  Besides these every rule gets two it cannot
  opt out of: a matched op other than the root has no user outside the match (unless its
  value is one the result replaces), and the alias model (pirc.ir.aliasing) says no matched
  value is written in place, exported or fetched, and no input is written between the first
  matched op and the root, where the fused op reads it.
* **Versions.**  `versions` gives, per source op, the semantic versions
  (pirc.runtime.op_versions) whose numerics the rule was written for (`"*"`, `ANY_OP`, for an
  op with no semantics of its own: builtin.combine and builtin.split, or `pd_op.assign`,
  which means its input); the pass's `rewrites`
  declaration is derived from its rules, and the gate refuses other versions.  The result
  op is checked against the program's PIR version too: its operands and attributes are named
  (`New("pd_op.fc", {"input": "x", "w": "w", "bias": "b"})`) and must be the op's at that
  version (`pd_op.rms_norm` is a different op at PIR 1-3 and at 4), and `semantic` may
  restrict its semantic versions; otherwise the rewrite is skipped with the reason.
* **Result pattern.**  `New` ops, in order: operands by spec name (a variable, `"op.i"` for
  result i of an earlier `New` bound as `op`, or None for an absent optional operand),
  attributes (a literal or a function of the match; unnamed ones take the spec's default),
  result types (a variable whose type to copy, or a function); `when` (a function of the
  match) builds a `New` only where it holds, references to it then reading an absent value.  `replace` maps each value
  the rewrite replaces (`"root"`, or a bound op's name) to a new value (default: the root's
  results by the last `New`'s).
* **Results that keep what they read.**  `Forward("x")` replaces the root by the value `x`
  (an identity op: `assign(x)` is `x`); `Update({"x": "x"}, {"perm": fn})` edits the root in
  place (a transpose of a transpose reads the first one's input, by the composed
  permutation).  Such a rule swallows no producer -- the ops it matched besides the root
  stay while used, so the one-use check does not apply, and the root may have any number of
  users -- and the alias checks are `may_forward` / `may_reread`
  (pirc.passes.infra.forwarding); a refusal is a skip with the aliasing reason, counted in
  the report, as a matched rewrite the gate refused is.  Either is the rule's only result.

A **near miss** is a candidate that matched its root and at least one producer (an op or a
`Const`'s `full`) and then failed (a rule whose pattern is its root alone has none): the rule records which check failed (the deepest candidate's, when commutative or
optional forms were tried).  `--pass-report` lists them per rule (a count and the first 20
`{op, location, failed}`) and `pirc-opt --explain=PASS` prints them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Mapping

from xdsl.ir import Attribute

from ...ir import attrs as A
from ...ir.effects import is_pure
from ...ir.locations import op_locations
from ...ir.ops import NullValueOp, is_null_value, null_value
from ...ir.registry import op_class
from ...ir.specs import get_spec
from ...ir.types import ELEMENT_TYPE_NAMES
from ...runtime.op_versions import semantic_version
from ..folding.constants import full_scalar
from .forwarding import (alone, exported, fetched, may_forward, may_forward_alone, may_reread, unwritten,
                         written_between)
from .greedy import Pattern, apply_patterns, replace_op
from .pass_base import PassContext, PircPass
from .rewrites import ANY_OP, OpUse

ANY = "_"
# `isinstance(owner, NullValueOp)`, the matchers' test of an absent operand, is spelled as a
# look in the owner's class's MRO: an xDSL op class's metaclass is ABCMeta, whose isinstance
# is a Python frame, and nothing registers a virtual subclass of NullValueOp.
_SKIP, _VARIABLE, _OPTIONAL, _NESTED = range(4)   # how an Op's operand pattern is matched
NEAR_MISS_KEEP = 20   # near misses listed per rule (all are counted)


# -- the source pattern ---------------------------------------------------------------------


@dataclass(frozen=True)
class Check:
    """An attribute or constant predicate with the name a near miss reports."""

    name: str
    fn: Callable[[Any], bool]


@dataclass(frozen=True)
class Capture:
    """Bind an attribute's (or constant's) value to a name the constraints and results read;
    `check`, if given, must hold."""

    name: str
    check: Check | None = None


@dataclass(frozen=True)
class Const:
    """An operand that is a one-element `pd_op.full` (unwritten): `value` (a number, a `Check`
    or a `Capture`); `rel_tol` for literals spelled in decimal (1/sqrt(2) as a float32)."""

    value: Any
    rel_tol: float = 0.0


@dataclass(frozen=True)
class Op:
    name: str
    operands: tuple = ()
    attrs: Mapping = field(default_factory=dict)
    commutative: bool = False
    optional: bool = False
    bind: str | None = None
    result: int = 0          # which result of this op its user reads
    value: str | None = None  # bind the result read to this variable (or: must be it)

    def __post_init__(self):
        # What `_match_op` does per operand, worked out once: skip it (ANY), bind a variable
        # (plain or optional), or match a nested pattern.
        # The attributes a value is checked against or captured from: what is left to
        # match once `_quick_check` has compared the literal ones.
        object.__setattr__(self, "_unchecked", tuple(
            (k, v) for k, v in self.attrs.items() if isinstance(v, (Check, Capture))))
        object.__setattr__(self, "_plan", tuple(
            (_SKIP, None) if isinstance(o, str) and o == ANY else
            (_OPTIONAL, o[:-1]) if isinstance(o, str) and o.endswith("?") else
            (_VARIABLE, o) if isinstance(o, str) else (_NESTED, o)
            for o in self.operands))
        # An op matched by its name alone (a `full` read for its value elsewhere, a
        # dropout's p): `_match_value` records it without a `_match_op` frame.
        object.__setattr__(self, "_leaf", not self.attrs and not self.operands)

    def ops(self):
        """This op and every nested one (in every option of an `Either`), outermost first."""
        yield self
        for o in self.operands:
            if isinstance(o, (Op, Either)):
                yield from o.ops()


@dataclass(frozen=True)
class Either:
    """An operand (or a rule's source) that may be any one of `options`: variables, `Const`s
    or `Op`s.  As an operand the options are tried in order at match time and the first that
    matches is kept; as a source each option is a form of the rule (a form per root op)."""

    options: tuple

    def __init__(self, *options):
        object.__setattr__(self, "options", tuple(options))

    def ops(self):
        for o in self.options:
            if isinstance(o, (Op, Either)):
                yield from o.ops()


@dataclass(frozen=True)
class Constraint:
    name: str
    check: Callable[["Match"], bool]
    # The same test read off the root op alone (`check(m)` is `root(m.root)`), or None.  A
    # rule whose forms match the root alone tests these before any Match (`_screen`).
    root: Callable[[Any], bool] | None = None

    @classmethod
    def of_root(cls, name: str, test: Callable[[Any], bool]) -> "Constraint":
        """A constraint on the root op alone: `test(op)`."""
        return cls(name, lambda m: test(m.root), test)


# -- the result pattern ---------------------------------------------------------------------


@dataclass(frozen=True)
class New:
    name: str
    operands: Mapping = field(default_factory=dict)   # spec operand name -> reference
    attrs: Mapping = field(default_factory=dict)      # spec attribute name -> value | fn(m)
    types: tuple = ("root",)                          # per result: a variable or fn(m)
    bind: str | None = None
    semantic: tuple | None = None   # the target's semantic versions the rule builds for
    when: Callable[["Match"], bool] | None = None   # built only where when(m) holds; else
    #                                                  references to it read an absent value


FORWARD_REFUSED = "aliasing: the value is written in place or a fetch would change what it reads"


@dataclass(frozen=True)
class Forward:
    """A result that is an existing value: the root's first result is replaced by the value
    bound to `value` (its other results must be unused), and the root is erased.  The root
    may have any number of users; what is asked is `may_forward` (pirc.passes.infra.forwarding:
    neither buffer written where the other is read, nothing exported, a fetch keeps its
    meaning), and for each matched producer the forwarded value passes through, `may_reread`;
    a refusal is a skip with `reason` (not a near miss: the rule matched)."""

    value: str
    reason: str = FORWARD_REFUSED


@dataclass(frozen=True)
class Update:
    """A result that edits the root in place: `operands` (spec operand name -> reference)
    and `attrs` (spec attribute name -> value | fn(m)) replace the root's.  The producers
    the match went through are read, not swallowed (other users keep them; an unused one is
    dce's); for each of them and each value the root now reads, `may_reread` must hold (the
    producer's result unwritten, the value not written between it and the root), else a
    skip with `reason`."""

    operands: Mapping = field(default_factory=dict)
    attrs: Mapping = field(default_factory=dict)
    reason: str = FORWARD_REFUSED


@dataclass(frozen=True)
class Rule:
    name: str
    source: Op
    result: tuple
    versions: Mapping
    constraints: tuple = ()
    replace: Mapping | None = None   # value -> new value reference (see the module docstring)
    doc: str = ""

    def __post_init__(self):
        # versions: per source op, its semantic versions, or "*" for an op with no
        # semantics of its own (builtin.combine and builtin.split pack and unpack values)
        missing = sorted({o.name for o in self.source.ops()} - set(self.versions))
        if missing:
            raise ValueError(f"rule {self.name}: no semantic versions declared for {', '.join(missing)}")
        for root in self.roots():
            if not isinstance(root, Op) or root.optional:
                raise ValueError(f"rule {self.name}: the root of a pattern must be an op, not optional")
        if any(isinstance(r, (Forward, Update)) for r in self.result) and \
                (len(self.result) != 1 or self.replace is not None):
            raise ValueError(f"rule {self.name}: a Forward or Update is the rule's only result")

    def roots(self) -> tuple:
        """The source's root ops: the source, or each option of a source `Either`."""
        return self.source.options if isinstance(self.source, Either) else (self.source,)

    def variants(self) -> list[Op]:
        """The source pattern with each optional op present or absent, larger forms first
        (the options of a source `Either` in their order where equal)."""
        forms = [f for root in self.roots() for f in _expand(root)]
        return sorted(forms, key=lambda f: -_size(f))


def _size(p) -> int:
    """How many ops a form matches: an `Either` counts as its largest option."""
    if isinstance(p, Either):
        return max((_size(o) for o in p.options), default=0)
    if not isinstance(p, Op):
        return 0
    return 1 + sum(_size(o) for o in p.operands)


def _expand(p: Op) -> list[Op]:
    choices = [[]]
    for o in p.operands:
        options = _expand_operand(o)
        choices = [c + [x] for c in choices for x in options]
    return [Op(p.name, tuple(c), p.attrs, p.commutative, False, p.bind, p.result, p.value)
            for c in choices]


def _expand_operand(o) -> list:
    if isinstance(o, Either):   # optional ops inside become more options
        return [Either(*[x for option in o.options for x in _expand_operand(option)])]
    if not isinstance(o, Op):
        return [o]
    present = _expand(o)
    if not o.optional:
        return present
    if o.value is not None:   # absent: the variable it binds stands for it
        return present + [o.value]
    # absent: its first operand stands for it; an op without operands (a `full`) for anything
    return present + (_expand_operand(o.operands[0]) if o.operands else [ANY])


# -- matching -------------------------------------------------------------------------------


class _Fail(Exception):
    """A failed match: `reason`, the text a near miss reports, may be given as a function
    spelling it (a value's repr, an operand's place): most failures are never reported (no
    producer was matched, or the rule has listed NEAR_MISS_KEEP already), so they are
    spelled only when read."""

    def __init__(self, reason, depth: int):
        self._reason = reason
        self.depth = depth

    @property
    def reason(self) -> str:
        return _spelled(self._reason)


def _spelled(reason) -> str:
    """A failure's reason: the text, or the function spelling it, called."""
    return reason if isinstance(reason, str) else reason()


class Match:
    """What a candidate bound: values by variable, ops by `bind` name, captured values."""

    __slots__ = ("root", "pc", "values", "ops", "captured", "matched", "consts")

    def __init__(self, root, pc):
        self.root = root
        self.pc = pc
        self.values: dict[str, Any] = {}
        self.ops: dict[str, Any] = {}
        self.captured: dict[str, Any] = {}
        self.matched: list = []     # pattern ops, in match order (the root first)
        self.consts: list = []      # the `full` ops constants were read from

    def snapshot(self):
        return (dict(self.values), dict(self.ops), dict(self.captured), len(self.matched), len(self.consts))

    def restore(self, snap) -> None:
        self.values, self.ops, self.captured = dict(snap[0]), dict(snap[1]), dict(snap[2])
        del self.matched[snap[3]:]
        del self.consts[snap[4]:]

    def aliases_for(self, *values):
        """The alias model to ask about `values`: None where each is `alone`
        (pirc.passes.infra.forwarding), whose uses answer as the model would."""
        return model_for(self.pc, values)

    def __getitem__(self, name: str):
        """A variable's value, a bound op, or a captured number."""
        for table in (self.values, self.captured, self.ops):
            if name in table:
                return table[name]
        raise KeyError(name)

    # static facts a constraint asks about a variable's value
    def shape(self, name: str) -> tuple | None:
        return _shape(self[name])

    def dtype(self, name: str) -> str | None:
        """The element type's short name (`f32`, `bf16`, `i64`), None for a non-tensor."""
        return dtype_of(self[name])

    def one_dtype(self, *names: str) -> str | None:
        """The element type the variables `names` share, None when they differ."""
        dtypes = {self.dtype(n) for n in names}
        return dtypes.pop() if len(dtypes) == 1 else None

    def attr(self, op_name: str, attr: str, default=None):
        return attr_value(self.ops[op_name], attr, default)


def model_for(pc, values):
    """`pc.aliases` for questions about `values`, or None where each of them is `alone`: the
    forwarding queries then answer from the uses, as the model would, and a pass whose every
    question is of that kind never walks the program to build the model."""
    version = pc.program.version
    for value in values:
        if not alone(value, version):
            return pc.aliases
    return None


def dtype_of(value) -> str | None:
    """A value's element type's short name (`f32`, `bf16`, `i64`), None for a non-tensor."""
    return ELEMENT_TYPE_NAMES.get(getattr(value.type, "dtype", None))


def _shape(value) -> tuple | None:
    shape = getattr(getattr(value, "type", None), "shape", None)
    return None if shape is None else tuple(shape)


def attr_value(op, name: str, default=None):
    """The Python value of an attribute: a number, a string, a tuple for arrays."""
    attr = op.attributes.get(name)
    if attr is None:
        return default
    data = getattr(attr, "data", None)
    if isinstance(data, str):
        return data
    if isinstance(data, tuple):
        return tuple(attr_item(a) for a in data)
    try:
        return A.scalar_value(attr)
    except TypeError:
        return attr


def attr_item(a):
    try:
        return A.scalar_value(a)
    except TypeError:
        return getattr(a, "data", a)


def _match_op(p: Op, op, m: Match, literals_checked: bool = False) -> None:
    """Match `op` against `p` into `m`, or raise `_Fail`.  `literals_checked`: the literal
    attributes are known to hold (a root that passed its `_quick_check`)."""
    m.matched.append(op)
    if p.bind is not None:
        m.ops[p.bind] = op
    depth = len(m.matched)
    for name, want in (p._unchecked if literals_checked else p.attrs.items()):
        failed = _value_fails(want, attr_value(op, name), m)
        if failed is not None:
            raise _Fail(lambda: failed(f"attribute {name} of {op.name}"), depth)
    operands = op._operands   # xDSL's tuple (pinned): `op.operands` is a view made per call
    if len(operands) < len(p.operands):
        raise _Fail(f"structure: {op.name} has {len(operands)} operands, the pattern {len(p.operands)}", depth)
    if not p.commutative or len(p.operands) < 2:
        # one order: nothing to undo on failure (the caller discards or restores m).  The
        # variables inline (`_match_value`'s first case), the rest through it.
        values = m.values
        for i, ((kind, sub), value) in enumerate(zip(p._plan, operands)):
            if kind == _SKIP:
                continue
            if kind == _NESTED:
                _match_value(sub, value, m, i, op)
                continue
            if kind == _OPTIONAL and NullValueOp in type(getattr(value, "op", None)).__mro__:
                continue
            bound = values.get(sub)
            if bound is None:
                if NullValueOp in type(getattr(value, "op", None)).__mro__:   # is_null_value
                    raise _Fail(f"structure: {_where(i, op)} is absent", len(m.matched))
                values[sub] = value
            elif bound is not value:
                raise _Fail(f"structure: {_where(i, op)} is not {sub}", len(m.matched))
        return
    def in_order(order):
        def attempt():
            for i, sub in zip(order, p.operands):
                _match_value(sub, _item(operands, i), m, i, op)
        return attempt

    rest = list(range(2, len(p.operands)))
    _first_that_matches(m, [in_order([0, 1] + rest), in_order([1, 0] + rest)])


def _first_that_matches(m: Match, attempts) -> None:
    """Run `attempts` (each matches into `m` or raises _Fail) until one succeeds, undoing a
    failed one's bindings; when none does, raise the deepest failure (the near miss's)."""
    best = None
    for attempt in attempts:
        snap = m.snapshot()
        try:
            attempt()
            return
        except _Fail as f:
            m.restore(snap)
            if best is None or f.depth > best.depth:
                best = f
    raise best


def _match_value(p, value, m: Match, i: int, user) -> None:
    """Match operand `i` of `user` (`value`) against the pattern operand `p`; the failure
    names "operand i of user.name" (spelled only when it fails)."""
    if p.__class__ is str:
        if p == ANY:
            return
        if p.endswith("?"):   # an optional operand: absent, or a value bound to the name
            if is_null_value(value):
                return
            p = p[:-1]
        bound = m.values.get(p)
        if bound is None:
            if is_null_value(value):
                raise _Fail(f"structure: {_where(i, user)} is absent", len(m.matched))
            m.values[p] = value
        elif bound is not value:
            raise _Fail(f"structure: {_where(i, user)} is not {p}", len(m.matched))
        return
    depth = len(m.matched)
    if isinstance(p, Either):
        _first_that_matches(m, [lambda o=o: _match_value(o, value, m, i, user) for o in p.options])
        return
    if isinstance(p, Const):
        number = full_scalar(value, model_for(m.pc, (value,)))
        if number is None:
            raise _Fail(f"structure: {_where(i, user)} is not a one-element constant", depth)
        m.consts.append(value.op)   # a producer matched: its value failing is a near miss
        failed = _value_fails(p.value, number, m, p.rel_tol)
        if failed is not None:
            raise _Fail(lambda: failed(f"constant {_where(i, user)}"), depth + 1)
        return
    owner = getattr(value, "op", None)
    if owner is None or owner.name != p.name:
        found = "a block argument" if owner is None else owner.name
        raise _Fail(f"structure: {_where(i, user)} is {found}, not {p.name}", depth)
    if value.index != p.result:
        raise _Fail(f"structure: {_where(i, user)} is result {value.index} of {p.name}, not {p.result}", depth)
    if owner.parent is not m.root.parent:
        raise _Fail(f"structure: {owner.name} is in another block", depth + 1)
    if p.value is not None:
        bound = m.values.get(p.value)
        if bound is None:
            m.values[p.value] = value
        elif bound is not value:
            raise _Fail(f"structure: {_where(i, user)} is not {p.value}", depth)
    if p._leaf:   # what `_match_op` does for it
        m.matched.append(owner)
        if p.bind is not None:
            m.ops[p.bind] = owner
        return
    _match_op(p, owner, m)


# An operand tuple's item: xDSL's `SSAValues.__getitem__` is a Python method (slices).
_item = tuple.__getitem__
_AFTER_FIRST = slice(1, None)


def _where(i: int, user) -> str:
    return f"operand {i} of {user.name}"


def _value_fails(want, got, m: Match, rel_tol: float = 0.0):
    """None when `got` is what `want` asks (a `Capture` binds it), else a function spelling
    the reason around what was checked (`what`: "constant operand 1 of pd_op.scale")."""
    if isinstance(want, Capture):
        m.captured[want.name] = got
        want = want.check
        if want is None:
            return None
    if isinstance(want, Check):
        if got is not None and _safe(want.fn, got):
            return None
        return lambda what: f"{want.name}: {what} is {_show(got)}"
    if isinstance(want, float) and isinstance(got, (int, float)) and not isinstance(got, bool):
        if got == want or (rel_tol and math.isclose(got, want, rel_tol=rel_tol)):
            return None
    elif got == want:
        return None
    return lambda what: f"{what} is {_show(got)}, not {_show(want)}"


# What a check may raise on a malformed op (read without the verifier): the check fails.
_CHECK_ERRORS = (TypeError, ValueError, ArithmeticError, KeyError, IndexError, AttributeError)


def _safe(fn, arg) -> bool:
    try:
        return bool(fn(arg))
    except _CHECK_ERRORS:
        return False


def _hold(checks, m) -> bool:
    """Whether every check holds for `m` (`all(_safe(c, m) ...)`, in one frame)."""
    try:
        for check in checks:
            if not check(m):
                return False
    except _CHECK_ERRORS:
        return False
    return True


def _show(v) -> str:
    return repr(v) if not isinstance(v, str) else f'"{v}"'


# -- applying a rule ------------------------------------------------------------------------


@dataclass
class NearMisses:
    """Per rule: how many near misses, and the first NEAR_MISS_KEEP of them."""

    count: int = 0
    first: list = field(default_factory=list)

    def add(self, op, location: str, failed: str) -> None:
        self.count += 1
        if len(self.first) < NEAR_MISS_KEEP:
            self.first.append({"op": op, "location": location, "failed": failed})

    def as_json(self) -> dict:
        return {"count": self.count, "first": list(self.first)}


def _pending(pc) -> dict:
    """Candidates that failed, per rule, by op: a root visited again keeps its last reason."""
    table = getattr(pc, "_near_pending", None)
    if table is None:
        table = pc._near_pending = {}
    return table


def record_near_misses(pc) -> None:
    """Turn the pass's failed candidates into `pc.near_misses` (rule -> NearMisses): a root
    that a later rewrite took (it is gone from the program) was no miss.  The listed ones
    are located together (`op_locations`: one walk of the block for their JSON paths)."""
    listed = []   # (misses, op, reason), in the order they are listed
    for rule, entries in _pending(pc).items():
        misses = None
        for op, reason in entries.values():
            if op.parent is None:
                continue
            if misses is None:
                misses = pc.near_misses.setdefault(rule, NearMisses())   # no empty entries
                room = NEAR_MISS_KEEP - len(misses.first)
            if room > 0:
                listed.append((misses, op, reason))
                room -= 1
            else:  # counted only: a JSON path costs a walk of the block, and is not listed
                misses.count += 1
    if listed:
        places = op_locations(pc.program, [op for _, op, _ in listed])
        for (misses, op, reason), place in zip(listed, places):
            misses.add(op.name, place, _spelled(reason))
    pc._near_pending = {}


class _RulePattern(Pattern):
    """A rule rooted at one op name, for the greedy driver: every form of the source pattern
    with that root is tried; the first that matches and passes its checks is rewritten."""

    def __init__(self, rule: Rule, forms: list[Op]):
        self.rule = rule
        self.forms = forms
        self.root = forms[0].name
        # per form: a cheap test at the root (or None), and, for a flat form of a rule that
        # keeps its inputs, a binder that checks without a raise (`_bind_flat`, or None)
        self._plans = tuple((f, _quick_check(f), _bind_flat(f) if _keeps_inputs(rule) else None)
                            for f in forms)
        self._checks = tuple(c.check for c in rule.constraints)
        self.probe = _probe(forms)
        self.screen = _screen(rule, forms)
        result = rule.result[0]
        self._rewrite = (_forward if isinstance(result, Forward) else
                         _update if isinstance(result, Update) else _build_new)

    @property
    def name(self) -> str:
        return self.rule.name

    def match_and_rewrite(self, op, pc):
        best: _Fail | None = None
        for form, quick, bare in self._plans:
            if quick is not None and not quick(op):
                continue   # fails at the root, before any producer: no near miss lost
            if bare is not None:   # a flat form (`_bind_flat`)
                m = bare(op, pc)
                if m is None:
                    continue   # failed at the root: no near miss
                if m is not _GENERAL:
                    if _hold(self._checks, m):
                        return self._took(op, pc, self._rewrite(self.rule, m))
                    if len(m.matched) == 1:
                        continue   # the root alone: whatever failed is no near miss
                # failed past a matched producer: the general match spells the near miss
            m = Match(op, pc)
            try:
                _match_op(form, op, m, quick is not None)
                if self._rewrite is _build_new:
                    _check_rule(self.rule, form, m)
                else:   # Forward / Update: may_forward / may_reread at the rewrite
                    _check_constraints(self.rule, m, _check_depth(m))
            except _Fail as f:
                if best is None or f.depth > best.depth:
                    best = f
                continue
            return self._took(op, pc, self._rewrite(self.rule, m))
        # a rule whose target is not the op it builds at this PIR version (rms_norm at 4)
        # would only be skipped had it matched: its failed candidates are no near misses
        if best is not None and best.depth >= 2 and _target_reason(self.rule, pc.program.version) is None:
            _pending(pc).setdefault(self.rule.name, {})[id(op)] = (op, best._reason)   # spelled if listed
        return None

    def _took(self, op, pc, touched):
        """The rewrite's result, counted for its rule; a root another rule failed on and this
        one took (in place) is no near miss of that rule."""
        if touched is not None:
            name = self.rule.name
            pc.rule_rewrites[name] = pc.rule_rewrites.get(name, 0) + 1
            pending = _pending(pc)
            if pending:
                for table in pending.values():
                    table.pop(id(op), None)
        return touched


_GENERAL = object()   # a flat binder's answer: the general match must decide (a near miss)


def _bind_flat(form: Op):
    """For a flat form -- its root with variables, `_`, and leaf ops (matched by name alone,
    a dropout's p) as operands; no attribute to check but literal ones, which its quick check
    has compared -- a function binding them without a raise: the Match, None where the
    general match fails at the root (no near miss), or _GENERAL where it fails past a
    matched producer (a near miss, which the general match then spells).  None for another
    form."""
    if form.commutative or form._unchecked:
        return None
    plan = []
    for o in form.operands:
        if isinstance(o, str) and o == ANY:
            plan.append((_SKIP, None))
        elif isinstance(o, str) and not o.endswith("?"):
            plan.append((_VARIABLE, o))
        elif isinstance(o, Op) and o._leaf and o.value is None:
            plan.append((_NESTED, o))
        else:
            return None
    if form.attrs and _quick_check(form) is None:   # literal attributes: the quick check's
        return None
    count = len(plan)

    def bind(op, pc):
        operands = op._operands
        if len(operands) < count:
            return None
        m = Match(op, pc)
        matched = m.matched
        matched.append(op)
        if form.bind is not None:
            m.ops[form.bind] = op
        values = m.values
        for (kind, sub), value in zip(plan, operands):
            if kind == _SKIP:
                continue
            if kind == _NESTED:   # `_match_value` of a leaf op
                owner = getattr(value, "op", None)
                if owner is None or owner.name != sub.name or value.index != sub.result:
                    return None if len(matched) == 1 else _GENERAL
                if owner.parent is not op.parent:   # a near miss at any depth
                    return _GENERAL
                matched.append(owner)
                if sub.bind is not None:
                    m.ops[sub.bind] = owner
                continue
            bound = values.get(sub)
            if bound is None:
                if NullValueOp in type(getattr(value, "op", None)).__mro__:   # is_null_value
                    return None if len(matched) == 1 else _GENERAL
                values[sub] = value
            elif bound is not value:
                return None if len(matched) == 1 else _GENERAL
        return m
    return bind


_KEEP_LITERALS = 256   # attribute objects remembered per literal of a quick check


def _quick_check(form: Op):
    """A cheap test that `op` may match `form`, or None: False only where the full match
    would fail at the root before any producer is matched (a literal root attribute, too
    few operands, the first nested op or constant not made by the op it names), which is
    never a near miss.  Most candidates of a pass fail so (canonicalize offers every
    transpose to the rules for transpose pairs); the test spares them a `Match`."""
    if form.commutative:
        return None
    literals = [(k, v) for k, v in form.attrs.items() if not isinstance(v, (Check, Capture))]
    index, want = _first_producer(form) or (None, None)
    count = len(form.operands)
    if not literals and want is None:
        return None

    # Per literal: attribute object -> whether its value is the literal, kept by identity
    # (attributes are immutable, and the readers intern them: a program's thousands of
    # dropouts hold a handful of `is_test` attributes).  The objects are kept beside the
    # answers, so no id is reused while it is here; a bounded number.
    seen = [{} for _ in literals]

    def quick(op) -> bool:
        operands = op._operands
        if len(operands) < count:
            return False
        if literals:
            attributes = op.attributes
            for (name, value), known in zip(literals, seen):
                attr = attributes.get(name)
                entry = known.get(id(attr))
                if entry is None or entry[0] is not attr:
                    if len(known) >= _KEEP_LITERALS:
                        known.clear()
                    entry = known[id(attr)] = (attr, attr_value(op, name) == value)
                if not entry[1]:
                    return False
        if want is not None:
            value = _item(operands, index)
            owner = getattr(value, "op", None)
            if owner is None or owner.name != want[0] or (want[1] is not None and value.index != want[1]):
                return False
        return True
    return quick


def _first_producer(form: Op):
    """(operand index, (op name, result index or None)) of the first operand of `form` that
    must be made by an op (a nested op, or a `Const`'s `full`), or None."""
    for i, o in enumerate(form.operands):
        if isinstance(o, Op):
            return i, (o.name, o.result)
        if isinstance(o, Const):
            return i, ("pd_op.full", None)
    return None


def _probe(forms: list[Op]):
    """The greedy driver's `probe` for a pattern with `forms`: the producer each form's quick
    check tests first, when they all test the same one (else None).  An op failing it fails
    every form at the root: no match, no near miss, nothing recorded."""
    tests = {None if f.commutative else _first_producer(f) for f in forms}
    if len(tests) != 1 or None in tests:
        return None
    index, (name, result) = tests.pop()
    return index, frozenset((name,)), result


def _screen(rule: Rule, forms: list[Op]):
    """The greedy driver's `screen` for a rule whose forms match the root alone (variables
    and `_` as operands: no producer, no constant) and that has constraints on the root
    (`Constraint.of_root`): `op` -> False where one of them fails (or raises as a check may),
    else True; None for another rule.  A candidate failing it fails every form with the root
    alone matched: no rewrite, and no near miss (`_check_depth`), so the driver skips it
    before any Match is made -- canonicalize offers every transpose and reshape to the rules
    for identity ones, and few are."""
    # the last first: a rule's last constraints are its most particular ones (a perm that
    # is the identity, after one that is a permutation); the answer is the same in any order
    tests = tuple(c.root for c in reversed(rule.constraints) if c.root is not None)
    if not tests or not all(isinstance(o, str) for f in forms for o in f.operands):
        return None

    def screen(op) -> bool:
        try:
            for test in tests:
                if not test(op):
                    return False
        except _CHECK_ERRORS:   # `_safe`: a check that raises fails
            return False
        return True
    return screen


def _check_depth(m: Match) -> int:
    """The depth of a failure past the structure: deeper than any structural failure --
    unless only the root matched (no producer, no constant), which is no near miss however
    it fails."""
    return len(m.matched) + 1 if len(m.matched) + len(m.consts) > 1 else 1


def _check_rule(rule: Rule, form: Op, m: Match) -> None:
    depth = _check_depth(m)
    if _keeps_inputs(rule):   # Forward / Update: may_forward / may_reread at the rewrite
        return _check_constraints(rule, m, depth)
    replaced = _replaced_ops(rule, m)
    inside = {id(o) for o in m.matched}
    aliases = m.pc.aliases
    for op in m.matched:
        for r in op.results:
            if op is not m.root and id(op) not in replaced:
                for use in r.uses:
                    if id(use.operation) not in inside:
                        raise _Fail(f"one use: the {op.name} result is also used by "
                                    f"{use.operation.name}", depth)
            if r.first_use is None:
                continue
            if not unwritten(aliases, r) or exported(r) or (op is not m.root and fetched(r)
                                                            and id(op) not in replaced):
                raise _Fail(f"aliasing: the {op.name} result is written in place or handed on", depth)
    first = _earliest(m.matched)
    for name, value in m.values.items():
        if written_between(aliases, value, first, m.root):
            raise _Fail(f"aliasing: {name} is written between {first.name} and {m.root.name}", depth)
    _check_constraints(rule, m, depth)


def _check_constraints(rule: Rule, m: Match, depth: int) -> None:
    c = None
    try:
        for c in rule.constraints:
            if not c.check(m):
                break
        else:
            return
    except _CHECK_ERRORS:   # `_safe`: a check that raises fails
        pass
    raise _Fail(c.name, depth)


def _earliest(ops):
    """The first of `ops` (one block, all at or before ops[0]) in program order: a walk back
    from ops[0] that stops once it has passed them all (a pattern is a few ops long)."""
    members = {id(o) for o in ops}
    left = len(members)
    op = ops[0]
    while op is not None:
        if id(op) in members:
            left -= 1
            if left == 0:
                return op
        op = op._prev_op
    return ops[0]


def _replaced_ops(rule: Rule, m: Match) -> set:
    keys = (rule.replace or {}).keys()
    return {id(m.ops[k]) for k in keys if k != "root" and k in m.ops}


def _rewrite(rule: Rule, m: Match):
    if _keeps_inputs(rule):
        return _forward(rule, m) if isinstance(rule.result[0], Forward) else _update(rule, m)
    return _build_new(rule, m)


def _build_new(rule: Rule, m: Match):
    """The rewrite of a rule whose results are `New` ops."""
    pc = m.pc
    pc.matched()
    version = pc.program.version
    reason = _target_reason(rule, version)
    if reason is not None:
        pc.skip(reason, m.root)
        return None
    anchor = _anchor(rule, m)
    if anchor is None:
        pc.skip(f"order: a value {rule.name} replaces is used before its inputs are ready", m.root)
        return None
    rewrite = pc.begin(m.matched + [c for c in m.consts if c not in m.matched])
    if rewrite is None:
        return None
    made = {}
    new_ops = []
    for new in rule.result:
        if new.when is not None and not new.when(m):
            if new.bind is not None:   # two alternatives may share a name: the built one wins
                made.setdefault(new.bind, None)
            continue
        op = _build(new, m, made, version)
        anchor.parent.insert_op_before(op, anchor)
        new_ops.append(op)
        if new.bind is not None:
            made[new.bind] = op
    touched = list(new_ops)
    for old, new_value in _replacements(rule, m, made, new_ops[-1]):
        touched.extend(use.operation for use in old.uses)
        old.replace_all_uses_with(new_value)
    _erase_unused(m.matched, m.consts)
    rewrite.done(new_ops)
    return [o for o in touched if o.parent is not None]


def _erase_unused(matched, consts) -> None:
    """Erase what the rewrite left unused: the matched ops, and the constants they read when
    pure and unread (a few ops: repeat until nothing more goes)."""
    candidates = list({id(o): o for o in list(matched) + list(consts)}.values())
    own = {id(o) for o in matched}
    progress = True
    while progress:
        progress = False
        for op in candidates:
            if op.parent is None:
                continue
            if all(r.first_use is None for r in op.results) and (id(op) in own or is_pure(op)):
                op.parent.erase_op(op, safe_erase=False)
                progress = True


def _target_reason(rule: Rule, version: int) -> str | None:
    for new in rule.result:
        if not isinstance(new, New):   # a Forward or Update builds no op
            continue
        spec = get_spec(new.name, version)
        if spec is None:
            return f"version: target {new.name} does not exist at PIR version {version}"
        have = [o.name for o in spec.operands]
        extra = [k for k in new.operands if k not in have]
        attr_names = {a.name for a in spec.attributes}
        extra_attrs = [k for k in new.attrs if k not in attr_names]
        if extra or extra_attrs:
            return (f"version: target {new.name} at PIR version {version} has operands "
                    f"({', '.join(have)}) and attributes ({', '.join(sorted(attr_names))}); "
                    f"{rule.name} builds ({', '.join(new.operands)}) with ({', '.join(new.attrs)})")
        if new.semantic is not None:
            semantic = semantic_version(new.name, version)
            if semantic not in new.semantic:
                return (f"version: target {new.name} at PIR version {version} has semantic "
                        f"version {semantic}; {rule.name} builds for {', '.join(map(str, new.semantic))}")
    return None


def _anchor(rule: Rule, m: Match):
    """Where the new ops go: before the root, or before the first outside use of a replaced
    value that comes earlier; None when an input is defined after that point."""
    replaced = [m.ops[k] for k in (rule.replace or {}) if k != "root" and k in m.ops]
    if not replaced:
        return m.root
    users = set()
    matched = {id(o) for o in m.matched}
    for op in replaced:
        for r in op.results:
            for use in r.uses:
                user = _in_block(use.operation, m.root.parent)
                if user is None:
                    return None
                if id(user) not in matched:
                    users.add(id(user))
    anchor, cut, visited = m.root, 0, []
    op = m.root._prev_op
    first = _earliest(m.matched)
    while op is not None and op is not first:
        visited.append(op)
        if id(op) in users:
            anchor, cut = op, len(visited)
        op = op._prev_op
    # the ops from the anchor up to the root (walked backwards: the first `cut` visited): an
    # input they define is not ready at the anchor.  Ops between the first matched op and the
    # anchor define inputs that are (a weight fed after the residual add, say).
    between = {id(o) for o in visited[:cut]}
    for value in m.values.values():
        owner = getattr(value, "op", None)
        if owner is not None and id(owner) in between:
            return None
    return anchor


def _in_block(op, block):
    while op is not None and op.parent is not block:
        region = op.parent.parent if op.parent is not None else None
        op = region.parent if region is not None else None
    return op


def _ref(ref, m: Match, made: dict):
    if ref is None:
        return null_value()
    if callable(ref):
        return ref(m)
    if ref.endswith("?"):   # an optional operand the source may not have had
        found = m.values.get(ref[:-1])
        return null_value() if found is None else found
    if "." in ref:
        name, index = ref.rsplit(".", 1)
        if name in made:
            return null_value() if made[name] is None else made[name].results[int(index)]
    return m[ref]


def _build(new: New, m: Match, made: dict, version: int):
    spec = get_spec(new.name, version)
    operands = [_ref(new.operands.get(o.name), m, made) for o in spec.operands]
    attributes = {}
    for a in spec.attributes:
        value = new.attrs[a.name] if a.name in new.attrs else a.default
        if callable(value):
            value = value(m)
        if value is None and a.optional:   # an optional attribute with no default: absent
            continue
        if value is None:
            raise ValueError(f"{new.name}: attribute {a.name} has no default; the rule must give it")
        attributes[a.name] = make_attr(a.type, value)
    types = []
    for t in new.types:
        if callable(t):
            types.append(t(m))
        elif t == "root":
            types.append(m.root.results[0].type)
        else:
            types.append(_ref(t, m, made).type)
    sg = m.root.attributes.get("stop_gradient")
    flag = sg.data[0] if sg is not None and sg.data else A.bool_attr(True)
    attributes["stop_gradient"] = A.array_attr([flag] * len(types))
    return op_class(new.name, version).create(operands=operands, result_types=types,
                                              attributes=attributes)


def make_attr(kind: str, value) -> Attribute:
    """An attribute of the spec kind `kind` holding the Python `value`."""
    if isinstance(value, Attribute):
        return value
    if kind in A.SCALAR_KINDS:
        return A.make_scalar(kind, value)
    if kind == "scalar":  # Paddle stores a Scalar attribute as a Double (a bool as a bool)
        return A.bool_attr(value) if isinstance(value, bool) else A.float_attr(float(value), double=True)
    if kind == "str":
        return A.str_attr(value)
    if kind == "int_array":
        return A.int_array_attr(tuple(value))
    if kind == "dtype":
        return A.dtype_attr(value)
    if kind.startswith("array<") and kind.endswith(">"):
        item = kind[6:-1]
        return A.array_attr([make_attr(item, v) for v in value])
    raise ValueError(f"no attribute of kind {kind} can be made from {value!r}")


def _replacements(rule: Rule, m: Match, made: dict, last):
    if rule.replace is None:
        return list(zip(m.root.results, last.results))
    pairs = []
    for key, ref in rule.replace.items():
        if key != "root" and key not in m.ops:   # an optional op the match did without
            continue
        old_op = m.root if key == "root" else m.ops[key]
        refs = ref if isinstance(ref, tuple) else (ref,)
        for result, r in zip(old_op.results, refs):
            if r is not None:
                pairs.append((result, _ref(r, m, made)))
    return pairs


# -- results that keep what they read: Forward and Update -----------------------------------


def _keeps_inputs(rule: Rule) -> bool:
    return isinstance(rule.result[0], (Forward, Update))


def _gate_ops(m: Match) -> list:
    """The ops a Forward or Update shows the gate: producers before the root (block order
    for a chain), then the constants read."""
    ops = m.matched[::-1]
    return ops + [c for c in m.consts if c not in m.matched] if m.consts else ops


def _through(m: Match, value) -> list:
    """The matched producers `value` reaches the root through (a chain's inner ops; not a
    dropout's p)."""
    reached, path = {id(value)}, []
    matched = m.matched
    for k in range(len(matched) - 1, 0, -1):   # producers first
        op = matched[k]
        for o in op._operands:
            if id(o) in reached:
                path.append(op)
                reached.update(id(r) for r in op.results)
                break
    return path


def _forward(rule: Rule, m: Match):
    pc, root = m.pc, m.root
    fwd = rule.result[0]
    pc.matches += 1   # pc.matched(), inline: once per candidate that matched
    results = root.results   # the results after the first must be unused
    if len(results) > 1:
        for r in _item(results, _AFTER_FIRST):
            if r.first_use is not None:
                return None
    result = _item(results, 0)
    value = m.values.get(fwd.value)
    if value is None:
        value = m[fwd.value]
    through = _through(m, value) if len(m.matched) > 1 else ()
    aliases = model_for(pc, (result, value, *[op.results[0] for op in through]) if through else (result, value))
    if aliases is None:   # each value alone: may_forward's answer from the fetches alone
        allowed = may_forward_alone(root, result, value)
    else:
        allowed = may_forward(root, result, value, aliases) and all(
            may_reread(aliases, op, root, value) for op in through)
    if not allowed:
        pc.skip(fwd.reason, root)
        return None
    ops = _gate_ops(m)
    rewrite = pc.begin(ops)
    if rewrite is None:
        return None
    users = replace_op(root, (value,), ops[:-1] if ops[-1] is root else [o for o in ops if o is not root])
    rewrite.done()
    return users


def _update(rule: Rule, m: Match):
    pc, root = m.pc, m.root
    upd = rule.result[0]
    pc.matched()
    spec = get_spec(root.name, pc.program.version)
    if spec is None:
        pc.skip(f"version: {root.name} has no spec at PIR version {pc.program.version}", root)
        return None
    names = [o.name for o in spec.operands]
    operands, read = list(root.operands), []
    for name, ref in upd.operands.items():
        index = names.index(name)
        if index >= len(operands):   # a malformed op (read with --no-verify)
            return None
        operands[index] = _ref(ref, m, {})
        read.append(operands[index])
    if not all(may_reread(pc.aliases, op, root, v) for op in m.matched[1:] for v in read):
        pc.skip(upd.reason, root)
        return None
    kinds = {a.name: a.type for a in spec.attributes}
    attrs = {name: make_attr(kinds[name], value(m) if callable(value) else value)
             for name, value in upd.attrs.items()}
    rewrite = pc.begin(_gate_ops(m))
    if rewrite is None:
        return None
    root.operands = operands
    for name, attr in attrs.items():
        root.attributes[name] = attr
    rewrite.done([root])
    return [root]


# -- the pass -------------------------------------------------------------------------------


def compile_rules(rules) -> list[Pattern]:
    """Greedy-driver patterns for `rules`: one per (rule, root op name)."""
    patterns = []
    for rule in rules:
        by_root: dict[str, list[Op]] = {}
        for form in rule.variants():
            by_root.setdefault(form.name, []).append(form)
        patterns.extend(_RulePattern(rule, forms) for forms in by_root.values())
    return patterns


def declared_rewrites(rules) -> dict:
    """The `rewrites` declaration of a pass made of `rules`: per source op, the union of the
    semantic versions its rules were written for (a `full` read as a constant: any).  A rule
    may declare `ANY_OP` ("*") for an op that has no kernel entry and means its input by
    definition (`pd_op.assign`): the gate then accepts it at every version."""
    out: dict[str, set] = {}
    for rule in rules:
        for name, semantic in rule.versions.items():
            # ANY_OP: an op without registered semantics (builtin.split), read for its structure
            out.setdefault(name, set()).update((ANY_OP,) if semantic == ANY_OP else semantic)
        if any(_has_const(o) for p in rule.source.ops() for o in p.operands):
            out.setdefault("pd_op.full", set()).add(1)
    return {name: OpUse(ANY_OP if ANY_OP in s else tuple(sorted(s))) for name, s in sorted(out.items())}


def _has_const(operand) -> bool:
    if isinstance(operand, Either):
        return any(_has_const(o) for o in operand.options)
    return isinstance(operand, Const)


class DeclarativePass(PircPass):
    """A pass whose rewrites are `rules` (class variable): `rewrites` is derived from them.

    Subclass with `@register_pass @dataclass(frozen=True)`, set `name` and `rules`.  A
    subclass that declares `max_iterations: int = N` as a field makes it a pass option
    (`canonicalize{max-iterations=N}`)."""

    rules: ClassVar[tuple] = ()
    max_iterations: ClassVar[int] = 10

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        if cls.rules and "rewrites" not in cls.__dict__:
            cls.rewrites = declared_rewrites(cls.rules)
        cls._patterns = None

    @classmethod
    def patterns(cls) -> list[Pattern]:
        if cls._patterns is None:
            cls._patterns = compile_rules(cls.rules)
        return cls._patterns

    @classmethod
    def ops_of_interest(cls) -> frozenset[str]:
        """The root ops of the rules' forms: a program without one gives no candidate."""
        return frozenset(p.root for p in cls.patterns())

    def run(self, pc: PassContext) -> None:
        try:  # the instance's: a subclass may make max-iterations a pass option (a field)
            apply_patterns(pc, type(self).patterns(), self.max_iterations)
        finally:
            record_near_misses(pc)
