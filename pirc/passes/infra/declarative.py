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
  `Const` (a one-element `pd_op.full` holding a number).  `attrs` constrain attribute values:
  a literal (equal), a `Check` (a predicate with a name) or a `Capture` (bind the value).
  `commutative` tries the first two operands in both orders; an `optional` op may be absent,
  its first operand then standing for its result (an inference dropout between two ops).
* **Constraints** (`Constraint(name, check)`, `check(m) -> bool`): static shape and dtype
  facts, attribute values, anything in Python.  Besides these every rule gets two it cannot
  opt out of: a matched op other than the root has no user outside the match (unless its
  value is one the result replaces), and the alias model (pirc.ir.aliasing) says no matched
  value is written in place, exported or fetched, and no input is written between the first
  matched op and the root, where the fused op reads it.
* **Versions.**  `versions` gives, per source op, the semantic versions
  (pirc.runtime.op_versions) whose numerics the rule was written for; the pass's `rewrites`
  declaration is derived from its rules, and the gate refuses other versions.  The result
  op is checked against the program's PIR version too: its operands and attributes are named
  (`New("pd_op.fc", {"input": "x", "w": "w", "bias": "b"})`) and must be the op's at that
  version (`pd_op.rms_norm` is a different op at PIR 1-3 and at 4), and `semantic` may
  restrict its semantic versions; otherwise the rewrite is skipped with the reason.
* **Result pattern.**  `New` ops, in order: operands by spec name (a variable, `"op.i"` for
  result i of an earlier `New` bound as `op`, or None for an absent optional operand),
  attributes (a literal or a function of the match; unnamed ones take the spec's default),
  result types (a variable whose type to copy, or a function).  `replace` maps each value
  the rewrite replaces (`"root"`, or a bound op's name) to a new value (default: the root's
  results by the last `New`'s).

A **near miss** is a candidate that matched its root and at least one producer and then
failed: the rule records which check failed (the deepest candidate's, when commutative or
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
from ...ir.locations import op_location
from ...ir.ops import is_null_value, null_value
from ...ir.registry import op_class
from ...ir.specs import get_spec
from ...ir.types import ELEMENT_TYPE_NAMES
from ...runtime.op_versions import semantic_version
from ..folding.constants import full_scalar
from .forwarding import exported, fetched, unwritten
from .greedy import Pattern, apply_patterns
from .pass_base import PassContext, PircPass
from .rewrites import OpUse

ANY = "_"
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

    def ops(self):
        """This op and every nested one, outermost first."""
        yield self
        for o in self.operands:
            if isinstance(o, Op):
                yield from o.ops()


@dataclass(frozen=True)
class Constraint:
    name: str
    check: Callable[["Match"], bool]


# -- the result pattern ---------------------------------------------------------------------


@dataclass(frozen=True)
class New:
    name: str
    operands: Mapping = field(default_factory=dict)   # spec operand name -> reference
    attrs: Mapping = field(default_factory=dict)      # spec attribute name -> value | fn(m)
    types: tuple = ("root",)                          # per result: a variable or fn(m)
    bind: str | None = None
    semantic: tuple | None = None   # the target's semantic versions the rule builds for


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
        missing = sorted({o.name for o in self.source.ops()} - set(self.versions))
        if missing:
            raise ValueError(f"rule {self.name}: no semantic versions declared for {', '.join(missing)}")
        if self.source.optional:
            raise ValueError(f"rule {self.name}: the root of a pattern cannot be optional")

    def variants(self) -> list[Op]:
        """The source pattern with each optional op present or absent, larger forms first."""
        forms = _expand(self.source)
        return sorted(forms, key=lambda f: -sum(1 for _ in f.ops()))


def _expand(p: Op) -> list[Op]:
    choices = [[]]
    for o in p.operands:
        options = _expand_operand(o)
        choices = [c + [x] for c in choices for x in options]
    return [Op(p.name, tuple(c), p.attrs, p.commutative, False, p.bind, p.result) for c in choices]


def _expand_operand(o) -> list:
    if not isinstance(o, Op):
        return [o]
    present = _expand(o)
    if not o.optional:
        return present
    return present + _expand_operand(o.operands[0])


# -- matching -------------------------------------------------------------------------------


class _Fail(Exception):
    def __init__(self, reason: str, depth: int):
        super().__init__(reason)
        self.reason = reason
        self.depth = depth


class Match:
    """What a candidate bound: values by variable, ops by `bind` name, captured values."""

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
        return ELEMENT_TYPE_NAMES.get(getattr(self[name].type, "dtype", None))

    def attr(self, op_name: str, attr: str, default=None):
        return attr_value(self.ops[op_name], attr, default)


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


def _match_op(p: Op, op, m: Match) -> None:
    m.matched.append(op)
    if p.bind is not None:
        m.ops[p.bind] = op
    depth = len(m.matched)
    for name, want in p.attrs.items():
        _check_value(want, attr_value(op, name), f"attribute {name} of {op.name}", m, depth)
    operands = list(op.operands)
    if len(operands) < len(p.operands):
        raise _Fail(f"structure: {op.name} has {len(operands)} operands, the pattern {len(p.operands)}", depth)
    orders = [list(range(len(p.operands)))]
    if p.commutative and len(p.operands) >= 2:
        orders.append([1, 0] + list(range(2, len(p.operands))))
    best = None
    for order in orders:
        snap = m.snapshot()
        try:
            for i, sub in zip(order, p.operands):
                _match_value(sub, operands[i], m, f"operand {i} of {op.name}")
            return
        except _Fail as f:
            m.restore(snap)
            if best is None or f.depth > best.depth:
                best = f
    raise best


def _match_value(p, value, m: Match, where: str) -> None:
    depth = len(m.matched)
    if isinstance(p, str):
        if p == ANY:
            return
        bound = m.values.get(p)
        if bound is None:
            if is_null_value(value):
                raise _Fail(f"structure: {where} is absent", depth)
            m.values[p] = value
        elif bound is not value:
            raise _Fail(f"structure: {where} is not {p}", depth)
        return
    if isinstance(p, Const):
        number = full_scalar(value, m.pc.aliases)
        if number is None:
            raise _Fail(f"structure: {where} is not a one-element constant", depth)
        m.consts.append(value.op)
        _check_value(p.value, number, f"constant {where}", m, depth, p.rel_tol)
        return
    owner = getattr(value, "op", None)
    if owner is None or owner.name != p.name:
        found = "a block argument" if owner is None else owner.name
        raise _Fail(f"structure: {where} is {found}, not {p.name}", depth)
    if value.index != p.result:
        raise _Fail(f"structure: {where} is result {value.index} of {p.name}, not {p.result}", depth)
    if owner.parent is not m.root.parent:
        raise _Fail(f"structure: {owner.name} is in another block", depth + 1)
    _match_op(p, owner, m)


def _check_value(want, got, what: str, m: Match, depth: int, rel_tol: float = 0.0) -> None:
    if isinstance(want, Capture):
        m.captured[want.name] = got
        want = want.check
        if want is None:
            return
    if isinstance(want, Check):
        ok = got is not None and _safe(want.fn, got)
        if not ok:
            raise _Fail(f"{want.name}: {what} is {_show(got)}", depth)
        return
    if isinstance(want, float) and isinstance(got, (int, float)) and not isinstance(got, bool):
        if got == want or (rel_tol and math.isclose(got, want, rel_tol=rel_tol)):
            return
    elif got == want:
        return
    raise _Fail(f"{what} is {_show(got)}, not {_show(want)}", depth)


def _safe(fn, arg) -> bool:
    try:
        return bool(fn(arg))
    except (TypeError, ValueError, ArithmeticError, KeyError, IndexError, AttributeError):
        return False


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
    that a later rewrite took (it is gone from the program) was no miss."""
    for rule, entries in _pending(pc).items():
        misses = pc.near_misses.setdefault(rule, NearMisses())
        for op, reason in entries.values():
            if op.parent is not None:
                misses.add(op.name, op_location(pc.program, op), reason)
    pc._near_pending = {}


class _RulePattern(Pattern):
    """A rule rooted at one op name, for the greedy driver: every form of the source pattern
    with that root is tried; the first that matches and passes its checks is rewritten."""

    def __init__(self, rule: Rule, forms: list[Op]):
        self.rule = rule
        self.forms = forms
        self.root = forms[0].name

    @property
    def name(self) -> str:
        return self.rule.name

    def match_and_rewrite(self, op, pc):
        best: _Fail | None = None
        for form in self.forms:
            m = Match(op, pc)
            try:
                _match_op(form, op, m)
                _check_rule(self.rule, form, m)
            except _Fail as f:
                if best is None or f.depth > best.depth:
                    best = f
                continue
            return _rewrite(self.rule, m)
        if best is not None and best.depth >= 2:
            _pending(pc).setdefault(self.rule.name, {})[id(op)] = (op, best.reason)
        return None


def _check_rule(rule: Rule, form: Op, m: Match) -> None:
    depth = len(m.matched) + 1   # past the structure: deeper than any structural failure
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
    first = m.matched[-1] if len(m.matched) == 1 else _earliest(m.matched)
    for name, value in m.values.items():
        if _written_between(aliases, value, first, m.root):
            raise _Fail(f"aliasing: {name} is written between {first.name} and {m.root.name}", depth)
    for c in rule.constraints:
        if not _safe(c.check, m):
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


def _written_between(aliases, value, first, last) -> bool:
    if aliases is not None and aliases.knows(value) and aliases.knows_op(first) and aliases.knows_op(last):
        return aliases.written_between(value, first, last)
    return not unwritten(aliases, value)


def _replaced_ops(rule: Rule, m: Match) -> set:
    keys = (rule.replace or {}).keys()
    return {id(m.ops[k]) for k in keys if k != "root" and k in m.ops}


def _rewrite(rule: Rule, m: Match):
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
    pc.rule_rewrites[rule.name] = pc.rule_rewrites.get(rule.name, 0) + 1
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
    anchor, between = m.root, set()
    op = m.root._prev_op
    first = _earliest(m.matched)
    while op is not None and op is not first:
        between.add(id(op))
        if id(op) in users:
            anchor, between = op, set()
        op = op._prev_op
    # `between` now holds the ops after the anchor and before the root
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
    if "." in ref:
        name, index = ref.rsplit(".", 1)
        if name in made:
            return made[name].results[int(index)]
    return m[ref]


def _build(new: New, m: Match, made: dict, version: int):
    spec = get_spec(new.name, version)
    operands = [_ref(new.operands.get(o.name), m, made) for o in spec.operands]
    attributes = {}
    for a in spec.attributes:
        value = new.attrs[a.name] if a.name in new.attrs else a.default
        if callable(value):
            value = value(m)
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
        old_op = m.root if key == "root" else m.ops[key]
        refs = ref if isinstance(ref, tuple) else (ref,)
        for result, r in zip(old_op.results, refs):
            if r is not None:
                pairs.append((result, _ref(r, m, made)))
    return pairs


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
    semantic versions its rules were written for (a `full` read as a constant: any)."""
    out: dict[str, set] = {}
    for rule in rules:
        for name, semantic in rule.versions.items():
            out.setdefault(name, set()).update(semantic)
        if any(isinstance(o, Const) for p in rule.source.ops() for o in p.operands):
            out.setdefault("pd_op.full", set()).add(1)
    return {name: OpUse(tuple(sorted(s))) for name, s in sorted(out.items())}


class DeclarativePass(PircPass):
    """A pass whose rewrites are `rules` (class variable): `rewrites` is derived from them.

    Subclass with `@register_pass @dataclass(frozen=True)`, set `name` and `rules`."""

    rules: ClassVar[tuple] = ()
    max_iterations: ClassVar[int] = 10

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        if cls.rules and "rewrites" not in cls.__dict__:
            cls.rewrites = declared_rewrites(cls.rules)
        cls._patterns = None

    def run(self, pc: PassContext) -> None:
        cls = type(self)
        if cls._patterns is None:
            cls._patterns = compile_rules(cls.rules)
        try:
            apply_patterns(pc, cls._patterns, cls.max_iterations)
        finally:
            record_near_misses(pc)
