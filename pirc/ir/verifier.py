"""Check a Program against the op specs of its PIR version.

PIR's rules, not xDSL's: the op classes are generated without IRDL constraints
(pirc.ir.registry), so this is where structure is checked, in the spec's own terms.  Per op:

* operand, result and region counts (a variadic entry stands for zero or more values);
  `<<NULL VALUE>>` only where the spec says the operand is optional;
* attribute kinds against the spec's types -- exactly: a Float where the version's spec says
  Double is the kind of difference version upgrades exist for.  An empty array matches any
  array type; `scalar` accepts any scalar kind; `any` anything;
* required attributes present, and no attribute that is neither in the spec nor one of the
  universally allowed ones (pirc.ir.specs.UNIVERSAL_ATTRIBUTES);
* values used only where defined: earlier in the same block, in an enclosing block before
  the op whose region uses them, or as an argument of the block;
* regions: every block ends in the spec's terminator (cf.yield), which yields as many values
  as the spec says; a while body's block arguments mirror its loop inputs;
* an op built with another version's class (its definition changed in between);
* no value read after an in-place op changed its buffer's type (`reshape_`, `transpose_`,
  `squeeze_`, ...): Paddle reads such a name with its old shape over the rewritten buffer
  (docs/DECISIONS.md), so the program means nothing; the in-place result is the name to read;
* unknown op names only with strict=True.

Ops are numbered in print order from 0, nested ops included: `op #17` is the 18th op a
printer shows (the module itself is not counted).
"""

from __future__ import annotations

from itertools import compress, repeat
from operator import attrgetter, is_

from xdsl.dialects.builtin import ArrayAttr

from ..errors import VerifyError
from .attrs import SCALAR_KINDS, attr_kind
from .block_order import BlockOrder
from .ops import ProgramModuleOp, is_null_value
from .specs import UNIVERSAL_ATTRIBUTES, OpSpec, get_spec
from .types import DenseTensorType

MAX_REPORTED = 20

# Kinds a `scalar` attribute may hold: PIR's ScalarAttribute is any of the builtin scalars.
_SCALAR_LIKE = frozenset(SCALAR_KINDS) | {"complex64", "complex128", "scalar"}


class Problem:
    """One verification problem: the op, its position in print order, and what is wrong."""

    __slots__ = ("op", "index", "message", "about_op")

    def __init__(self, op, index: int, message: str, about_op: bool = True):
        self.op = op
        self.index = index
        self.message = message
        # False: the problem is in how the program uses the op (no other version's
        # definition of the op would fix it)
        self.about_op = about_op

    def __str__(self) -> str:
        return f"op #{self.index} {self.op.name}: {self.message}"

    def __eq__(self, other) -> bool:
        return str(self) == str(other)

    def __hash__(self) -> int:
        return hash(str(self))


def verify_program(program, strict: bool = False) -> None:
    """Raise VerifyError listing the program's problems (the first MAX_REPORTED); else None."""
    problems = collect_problems(program, strict)
    if not problems:
        return
    name_fitting_versions(problems[:MAX_REPORTED], program.version)
    lines = [str(p) for p in problems[:MAX_REPORTED]]
    if len(problems) > MAX_REPORTED:
        lines.append(f"... and {len(problems) - MAX_REPORTED} more")
    noun = "problem" if len(problems) == 1 else "problems"
    raise VerifyError(f"program does not verify at PIR version {program.version} "
                      f"({len(problems)} {noun}):\n  " + "\n  ".join(lines), problems)


def name_fitting_versions(problems: list[Problem], version: int) -> None:
    """Say, on the first problem of each op, which other PIR versions' definitions the op fits
    exactly.  A program saved under the wrong version number (a 3.3.1 program re-saved by
    Paddle 3.0.0 keeps 3.3's op forms under version 1) fails at its header's version op by
    op, and the fix is then the version, not the ops."""
    from .program import KNOWN_VERSIONS
    from ..versioning.policy import POLICY
    seen = set()
    for problem in problems:
        if id(problem.op) in seen or not problem.about_op:
            continue
        seen.add(id(problem.op))
        fits = [v for v in KNOWN_VERSIONS if v != version and _fits(problem.op, v)]
        if fits:
            s = "s" if len(fits) > 1 else ""
            releases = ", ".join(POLICY.paddle_releases.get(v, "?") for v in fits)
            problem.message += (f" (the op fits the definition{s} of PIR version{s} "
                                f"{', '.join(map(str, fits))} (Paddle {releases}) exactly: is the "
                                "program's version number wrong?)")


def _fits(op, version: int) -> bool:
    """Whether `op` alone meets `version`'s spec (its operands' scopes aside)."""
    if get_spec(op.name, version) is None:
        return False
    checker = _Checker(version, strict=True, check_class=False)
    checker.op(op, 0)
    return not checker.problems


def collect_problems(program, strict: bool = False) -> list[Problem]:
    """Every problem found, in op order (`str(problem)` is its one-line description)."""
    checker = _Checker(program.version, strict)
    checker.block(program.block)
    return checker.problems


def collect_problems_in(program, ops, order: BlockOrder | None = None, respec=None,
                        names=None) -> list[Problem]:
    """The problems of `ops` alone, each op as the whole check sees it: what the pass
    manager checks after a pass, given the ops the pass touched (pirc.passes.infra.touched).

    For each of `ops` in the top-level block: its spec; each operand defined earlier in the
    block; each operand not read after an in-place op before it changed the operand's
    buffer's type; and, when the op is itself such an in-place op, the readers after it of
    the value it retyped (their problem, which its arrival made).  An op nested in a region
    stands for the top-level op holding it, and when one of those holds regions the whole
    program is checked: one walk, where scoping each such op alone would rebuild what is
    visible before it, op by op.  Ops no longer in the program are left out.

    What comes before what is asked of `order` (pirc.ir.block_order: the pass manager keeps
    one current across a pipeline's passes; without it the block is numbered here), and the
    in-place writes of a value are found among its readers: the cost is the ops given, their
    operands' readers and the readers of what they retype, not the block.  A problem found
    is looked at again over the block numbered afresh, which also gives its position.

    `respec` (ids; None: every op): where `ops` are what one pass edited and `order` was
    numbered before it began, the ops whose spec is checked though they have a number (the
    ops its rewrites matched or produced); the other numbered ops kept their place in the
    block since before the pass (detaching one forgets its number) and, the gate's contract,
    their attributes and results: only what an operand edit changes is checked of them (the
    operands' counts, <<NULL VALUE>>s, definitions and buffers).  An op with no number is new
    to the block, or moved: all of it is checked.  `names`: the names of the ops the program
    holds (more will do; None: not known): when none may change a buffer in place, no read
    follows such a change, and no value's readers are looked at for one."""
    block = program.block
    ops = ops if isinstance(ops, list) else list(ops)
    # Most ops are in the top-level block or in none (erased): sorted out in C, no call each.
    parents = list(map(_parent, ops))
    on_top = list(compress(ops, map(is_, parents, repeat(block))))
    tops = dict(zip(map(id, on_top), on_top))
    if len(on_top) + sum(map(is_, parents, repeat(None))) < len(parents):
        for op, parent in zip(ops, parents):
            if parent is not block and parent is not None:   # an op nested in a region
                top = _top_level(op, block)
                if top is not None:
                    tops[id(top)] = top
    if not tops:
        return []
    if any(map(_regions, tops.values())):
        return collect_problems(program)
    if order is None:
        order = BlockOrder(program)
    fresh = set(tops).difference(order.keys)   # no number yet: C, a look in `keys` per op
    if respec is None or order.block is not block:
        whole = None   # every op's spec
    else:
        whole = fresh.union(tops.keys() & respec)
    walks = order.numberings
    order.sync()
    try:
        numbered = order.numberings
        checker = _Checker(program.version, False)
        late = _check_top_level(checker, block, tops, fresh, order, whole, names)
        steady = order.numberings == numbered
        if not steady or checker.problems or late:
            # Again, in block order (the order problems are told in), over the block as a
            # walk numbers it now: the numbers read before a walk are void; and a problem is
            # told by its position, which a walk gives, found by the numbers of the same
            # walk (the same answers, unless the block was edited where its order was not
            # told).
            if steady and order.numberings == walks:
                order.number()
            checker = _Checker(program.version, False)
            late = _check_top_level(checker, block, tops, fresh, order, whole, names,
                                        in_order=True)
    except _Nested:
        return collect_problems(program)
    if checker.problems or late:
        index = _print_indexes(list(block.ops))
        position = order.position
        for problem in checker.problems:
            problem.index = index[position(problem.index)]
        for op, at, i, (write, name, new_type) in late:
            message = _read_after_retype(i, index[position(write)], name, new_type)
            checker.report(op, index[position(at)], message, False)
        checker.problems.sort(key=lambda p: p.index)
    return checker.problems


def may_retype(names, version: int) -> bool:
    """Whether an op of one of `names` (op names; None: not known) may change the buffer
    of an operand to another type in place at PIR `version`: without one, no value is read
    after such a change, and no value's readers need a look for one."""
    return names is None or any(writes_in_place(name, version) for name in names)


def writes_in_place(name: str, version: int) -> bool:
    """Whether an op named `name` may change an operand's buffer in place at PIR `version`
    (its spec says so, or its name ends in `_`): what the checks of a read after a retype
    look for (`_Plan.inplace`)."""
    spec = get_spec(name, version)
    return spec is not None and (bool(spec.inplace) or name.endswith("_"))


_parent, _regions = attrgetter("parent"), attrgetter("regions")


class _Nested(Exception):
    """A region is involved where the incremental check reads (an in-place op in a region
    changes a value it reads, or a reader sits in a region): check the whole program."""


def _check_top_level(checker, block, tops: dict, fresh: set, order: BlockOrder,
                     whole: set | None, names=None, in_order: bool = False) -> list:
    """collect_problems_in's checks of `tops` (top-level ops of `block`, the ids of those
    that may have no number in `fresh`; the spec of those in `whole`, None: of all),
    reporting the ops' numbers in `order` (the caller turns them
    into print indexes); the reads after a retype, as (op, number, operand index, the
    retype's entry), for the caller to report.  `names`: collect_problems_in's.  The ops
    are looked at in any order (the answers do not depend on it), `in_order` in block order
    (the order of the problems told)."""
    key, keys = order.key, order.keys   # keys: key()'s dict, read inline below
    retypes = _Retypes(checker, block, key)
    # Without an op that may change a buffer in place in the program, no read is after one.
    retyped = retypes.of if names is None or any(
        plan is not None and plan.inplace for plan in map(checker.plan, names)) else None
    late: list = []
    reported: set = set()   # (id(reader), operand index) reported as read after a retype
    for new in fresh:
        key(tops[new])   # a new op: numbered now, with the new ops around it
    ops = zip(map(keys.__getitem__, tops), tops.values())   # no call per op
    # Per value read: the number of its definition (None: not an op of the block) and the
    # retypes of its buffer.  Most values are read by several of the ops, and each look at
    # a value or its op is a miss in the CPU's caches at 100k ops: a value is looked at once.
    defs: dict = {}
    for at, op in sorted(ops) if in_order else ops:   # numbers differ: ops never compared
        defined = True   # every operand defined before the op: none is <<NULL VALUE>>
        for i, value in enumerate(op._operands):
            known = defs.get(id(value))
            if known is None:
                owner = getattr(value, "op", None)
                # A number is an op of the block (an op leaving it is forgotten).
                where = keys.get(id(owner)) if owner is not None else None
                if where is None and owner is not None and owner.parent is block:
                    where = key(owner)
                known = defs[id(value)] = (where, retyped(value) if retyped is not None
                                           and where is not None else None)
            where, entries = known
            if where is None or where >= at:
                defined = False
                if not is_null_value(value):
                    checker.report(op, at, _used_out_of_scope(i))
                continue
            if entries:
                before = [r for r in entries if where < r[0] < at]
                if before:
                    if before[-1][1] is None:
                        raise _Nested
                    reported.add((id(op), i))
                    late.append((op, at, i, before[-1]))
        if whole is None or id(op) in whole:
            plan = checker.op(op, at, defined)
        else:   # its spec as it was: what an operand edit changes (checker.op's first steps)
            plan = checker.plan(op.name)
            if plan is not None and not (defined and plan.slots is not None
                                         and len(op._operands) == len(plan.slots)):
                checker.operands(op, at, plan, defined)
        for _, value, _ in checker.retypes(op) if plan is not None and plan.inplace else ():
            for use in value.uses:
                reader = use.operation
                if reader.parent is not block:
                    raise _Nested  # a reader nested in a region
                later = key(reader)
                if later <= at or id(reader) in tops or (id(reader), use.index) in reported:
                    continue  # read before the write, or looked at as one of the ops
                reported.add((id(reader), use.index))
                entries = [r for r in retypes.of(value) if r[0] < later]
                if entries[-1][1] is None:
                    raise _Nested
                late.append((reader, later, use.index, entries[-1]))
    return late


def _top_level(op, block):
    """The op of `block` that is `op` or holds it, or None when `op` is not in `block`."""
    while op is not None:
        parent = op.parent
        if parent is block:
            return op
        op = parent.parent_op() if parent is not None else None
    return None


_FEW_READERS = 4   # _Retypes.of: readers looked at again rather than kept


class _Retypes:
    """For a value, the in-place ops of the block that change its buffer's type, in block
    order: [(number, op name, new type text)], a write by an op nested in a region counted
    at the top-level op holding it, its name None (the caller checks the whole program when
    it matters).  Such an op reads the value, so they are found among its readers: a look
    at each reader's class (asked once per class whether it may write in place), and only
    when one may, the entries; the answer kept for a value with more than a few readers
    (it may have thousands, each a touched op)."""

    def __init__(self, checker, block, key):
        self.checker = checker
        self.block = block
        self.key = key
        self.by_value: dict = {}    # id(value) -> (value, entries)
        self.writes: dict = {}      # op class -> may it change an operand's type in place

    def of(self, value) -> list:
        # Most values: a few readers, none of which writes in place: nothing to keep.
        writes = self.writes
        use = value.first_use
        looked = 0
        while use is not None:   # xDSL's use list (pinned)
            may = writes.get(type(use._operation))
            if may is None or may or looked == _FEW_READERS:
                break
            use = use._next_use
            looked += 1
        else:
            return []
        known = self.by_value.get(id(value))
        if known is None:
            known = self.by_value[id(value)] = (value, self._find(value))
        return known[1]

    def _find(self, value) -> list:
        writes, checker, block = self.writes, self.checker, self.block
        writers = []
        use = value.first_use
        while use is not None:
            reader = use._operation
            use = use._next_use
            cls = type(reader)
            may = writes.get(cls)
            if may is None:
                plan = checker.plan(cls.name) if cls is not ProgramModuleOp else None
                may = writes[cls] = plan is not None and plan.inplace
            if may:
                writers.append(reader)
        found = []
        seen: set = set()
        for reader in writers:
            if id(reader) in seen:
                continue
            seen.add(id(reader))
            mine = [new_type for _, v, new_type in checker.retypes(reader) if v is value]
            if not mine:
                continue
            if reader.parent is block:
                at = self.key(reader)
                found.extend((at, 0, reader.name, _type_text(t)) for t in mine)
            else:
                top = _top_level(reader, block)
                if top is not None:
                    found.append((self.key(top), 1, None, None))
        found.sort(key=lambda entry: entry[:2])
        return [(at, name, text) for at, _, name, text in found]


def _read_after_retype(i: int, at: int, name: str, new_type: str) -> str:
    return (f"operand {i} is read after op #{at} ({name}) changed its buffer in place to "
            f"{new_type}: Paddle would read the rewritten buffer with the old shape; read "
            f"op #{at}'s result instead")


def _used_out_of_scope(i: int) -> str:
    return f"operand {i} is used before its definition or outside its scope"


def _print_indexes(top: list) -> list[int]:
    """Each top-level op's position in print order (nested ops count too)."""
    if not any(op.regions for op in top):
        return list(range(len(top)))
    indexes, count = [], 0
    for op in top:
        indexes.append(count)
        count += sum(1 for _ in op.walk()) if op.regions else 1  # walk() yields the op too
    return indexes


_UNPLANNED = object()   # _Checker.plans: a name not asked yet


class _Plan:
    """What the checker needs of one spec, precomputed once per op name (100k-op programs)."""

    def __init__(self, spec: OpSpec, name: str):
        self.spec = spec
        self.variadic = spec.variadic_operands
        # Without a variadic operand, each position's spec entry (the common, fast case).
        self.slots = None if self.variadic else spec.operands
        self.n_results = None if spec.variadic_results else len(spec.results)
        self.attr_types = {**{n: a.type for n, a in UNIVERSAL_ATTRIBUTES.items()},
                           **{a.name: a.type for a in spec.attributes}}
        self.required = tuple(a for a in spec.attributes if not a.optional)
        self.required_names = frozenset(a.name for a in self.required)
        # (name, id(attr)) of the attributes found to fit: an op whose attributes are all
        # known to fit, the required ones present, has nothing to report (the common case:
        # attributes are memoised objects).  The checker's `kinds` keeps each attr alive.
        self.fits: set = set()
        self.checked_class = None  # the op class last found to be built with this spec
        # It may change an operand's buffer in place (module docstring): its retypes count.
        self.inplace = bool(spec.inplace) or name.endswith("_")


class _Checker:
    def __init__(self, version: int, strict: bool, check_class: bool = True):
        self.version = version
        self.strict = strict
        self.check_class = check_class  # False: judging an op against another version's spec
        self.problems: list[Problem] = []
        self.visible: set = set()  # ids of the values usable at the current point
        self.count = 0
        self.plans: dict[str, _Plan | None] = {}
        # (id(attr), spec type) -> (attr, mismatch): attributes are memoised objects, so most
        # checks repeat; the attr is kept in the value so that its id stays unique.
        self.kinds: dict[tuple[int, str], tuple] = {}
        # id(value) -> (print index, op name, result type) of the in-place op that changed the
        # type of the value's buffer (module docstring).
        self.retyped: dict[int, tuple] = {}

    def report(self, op, index: int, message: str, about_op: bool = True) -> None:
        self.problems.append(Problem(op, index, message, about_op))

    # -- scopes ---------------------------------------------------------------------------

    def block(self, block, nested: bool = False) -> None:
        # `visible` holds the ids of the values (alive: the program holds them): an xDSL
        # value's __hash__ / __eq__ are Python methods, a quarter of this walk at 100k ops.
        # Each op's operands are asked as one set operation first: the loop that says which
        # operand is wrong runs only when one is (or may be read after a retype).
        visible = self.visible
        visible.update(map(id, block.args))
        retyped = self.retyped
        op = block._first_op   # xDSL's links (pinned exactly): no generator frame per op
        while op is not None:
            index = self.count
            self.count = index + 1
            operands = op._operands   # the tuple `op.operands` wraps
            defined = visible.issuperset(map(id, operands))
            if not defined or (retyped and not retyped.keys().isdisjoint(map(id, operands))):
                for i, value in enumerate(operands):
                    if id(value) not in visible and not is_null_value(value):
                        self.report(op, index, _used_out_of_scope(i))
                    elif retyped and id(value) in retyped:
                        self.report(op, index, _read_after_retype(i, *retyped[id(value)]),
                                    False)
            plan = self.op(op, index, defined)
            if plan is not None and plan.inplace:
                self.note_retype(op, index)
            for region in op.regions:
                for inner in region.blocks:
                    self.block(inner, True)
            visible.update(map(id, op.results))
            op = op._next_op
        if nested:
            # Leaving the block: what it defined is out of scope for what follows its region.
            visible.difference_update(map(id, block.args))
            for op in block.ops:
                visible.difference_update(map(id, op.results))

    def note_retype(self, op, index: int) -> None:
        for _, value, new_type in self.retypes(op):
            self.retyped[id(value)] = (index, op.name, _type_text(new_type))

    def retypes(self, op) -> list:
        """[(operand index, operand, new type)] for each operand whose buffer `op` changes in
        place to another tensor type (module docstring)."""
        plan = self.plan(op.name) if type(op) is not ProgramModuleOp else None
        if plan is None or not plan.inplace:
            return []
        from .aliasing import op_aliasing

        out = []
        for r, o in op_aliasing(op.name, self.version).inplace:
            if r < len(op.results) and o < len(op._operands):
                value, result = op._operands[o], op.results[r]
                # tensors only: a tensor array's type changes as it grows and Paddle reads
                # the array after array_pop (its own programs do)
                if (isinstance(result.type, DenseTensorType) and value.type != result.type
                        and not is_null_value(value)):
                    out.append((o, value, result.type))
        return out

    # -- one op ---------------------------------------------------------------------------

    def plan(self, name: str) -> _Plan | None:
        try:
            return self.plans[name]
        except KeyError:
            spec = get_spec(name, self.version)
            plan = self.plans[name] = None if spec is None else _Plan(spec, name)
            return plan

    def op(self, op, index: int, no_null: bool = False) -> _Plan | None:
        """Check `op` against its spec; its plan (None: no spec), for the caller's own
        questions.  `no_null`: the caller found every operand defined in the program, so
        none is <<NULL VALUE>> (whose op is never in a block)."""
        if type(op) is ProgramModuleOp:
            return None
        plan = self.plans.get(op.name, _UNPLANNED)
        if plan is _UNPLANNED:
            plan = self.plan(op.name)
        if plan is None:
            if self.strict:
                self.report(op, index, f"unknown op {op.name} at PIR version {self.version}")
            return None
        spec = plan.spec
        cls = type(op)
        if cls is not plan.checked_class and self.check_class:
            cls_spec = getattr(cls, "spec", None)
            if cls_spec is not None and cls_spec.since != spec.since:
                self.report(op, index, f"built with the definition from PIR version "
                                       f"{cls_spec.since}, but at version {self.version} the op "
                                       f"is defined as of version {spec.since}")
            else:
                plan.checked_class = cls
        slots = plan.slots
        if no_null and slots is not None and len(op._operands) == len(slots):
            operand_groups = None if not spec.regions else {
                item.name: [value] for item, value in zip(slots, op._operands)}
        else:
            operand_groups = self.operands(op, index, plan, no_null)
        n_results = len(op.results)
        if n_results != plan.n_results and _groups(spec.results, n_results) is None:
            self.report(op, index, _count_message("result", spec.results, n_results))
        attributes = op.attributes
        if not (plan.fits.issuperset(zip(attributes, map(id, attributes.values())))
                and attributes.keys() >= plan.required_names):
            self.attributes(op, index, plan)
        if op.regions or spec.regions:
            self.regions(op, index, spec, operand_groups)
        return plan

    def operands(self, op, index: int, plan: _Plan, no_null: bool = False) -> dict[str, list] | None:
        values = op.operands
        slots = plan.slots
        if slots is not None and len(values) == len(slots):
            for i, value in enumerate(() if no_null else values):
                if is_null_value(value) and not slots[i].optional:
                    self.report(op, index, f"operand {i} ({slots[i].name}) is <<NULL VALUE>> "
                                           "but not optional")
            return None if not plan.spec.regions else {
                item.name: [value] for item, value in zip(slots, values)}
        groups = _groups(plan.spec.operands, len(values))
        if groups is None:
            self.report(op, index, _count_message("operand", plan.spec.operands, len(values)))
            return None
        out = {}
        for item, indices in groups:
            out[item.name] = [values[i] for i in indices]
            for i in () if no_null else indices:
                if is_null_value(values[i]) and not item.optional:
                    self.report(op, index, f"operand {i} ({item.name}) is <<NULL VALUE>> "
                                           "but not optional")
        return out

    def attributes(self, op, index: int, plan: _Plan) -> None:
        attributes = op.attributes
        types = plan.attr_types
        kinds = self.kinds
        for name, attr in attributes.items():
            expected = types.get(name)
            if expected is None:
                self.report(op, index, f"unknown attribute {name}")
                continue
            key = (id(attr), expected)
            known = kinds.get(key)
            if known is None:
                known = kinds[key] = (attr, _mismatch(attr, expected))
            if known[1] is not None:
                self.report(op, index, f"attribute {name} is {known[1]}, expects {expected}")
            else:
                plan.fits.add((name, id(attr)))
        for expected in plan.required:
            if expected.name not in attributes:
                self.report(op, index, f"missing attribute {expected.name} ({expected.type})")

    def regions(self, op, index: int, spec: OpSpec, operand_groups) -> None:
        def report(message: str) -> None:
            self.report(op, index, message)

        if len(op.regions) != len(spec.regions):
            names = ", ".join(r.name for r in spec.regions)
            report(f"expects {_n(len(spec.regions), 'region')}"
                   f"{f' ({names})' if names else ''}, got {len(op.regions)}")
            return
        n_results = len(op.results)
        for region, rspec in zip(op.regions, spec.regions):
            blocks = list(region.blocks)
            if len(blocks) != 1:
                if not blocks and n_results == 0:
                    continue  # Paddle leaves an unused branch of a result-less if empty
                report(f"region {rspec.name} has {_n(len(blocks), 'block')}, expects 1")
                continue
            block = blocks[0]
            if rspec.block_args and operand_groups is not None:
                want = len(operand_groups.get(rspec.block_args, ()))
                if len(block.args) != want:
                    report(f"region {rspec.name} has {_n(len(block.args), 'block argument')}, "
                           f"expects {want} (one per {rspec.block_args})")
                else:
                    # Each argument stands for its operand: Paddle's while checks the types
                    # too, and its text shows no argument types (they are the operands').
                    for i, (arg, value) in enumerate(zip(block.args, operand_groups[rspec.block_args])):
                        if arg.type != value.type:
                            report(f"region {rspec.name}: block argument {i} has type "
                                   f"{_type_text(arg.type)}, expects {_type_text(value.type)} "
                                   f"(the type of its {rspec.block_args} operand)")
            if rspec.terminator is None:
                continue
            last = block.last_op
            if last is None:
                if n_results:
                    report(f"region {rspec.name} is empty, expects it to end in "
                           f"{rspec.terminator}")
                continue
            if last.name != rspec.terminator:
                report(f"region {rspec.name} ends in {last.name}, expects {rspec.terminator}")
                continue
            want = _yield_count(rspec.yields, n_results, operand_groups)
            if want is not None and len(last.operands) != want:
                report(f"region {rspec.name}: {rspec.terminator} yields "
                       f"{_n(len(last.operands), 'value')}, expects {want}")


# -- helpers -------------------------------------------------------------------------------


def _groups(items, count: int):
    """[(spec item, [positions])] for `count` values, or None if the count cannot match."""
    variadic = next((i for i, item in enumerate(items) if item.variadic), None)
    if variadic is None:
        if count != len(items):
            return None
        return [(item, [i]) for i, item in enumerate(items)]
    fixed = len(items) - 1
    if count < fixed:
        return None
    after = len(items) - variadic - 1
    out = [(item, [i]) for i, item in enumerate(items[:variadic])]
    out.append((items[variadic], list(range(variadic, count - after))))
    out.extend((item, [count - after + j]) for j, item in enumerate(items[variadic + 1:]))
    return out


def _type_text(t) -> str:
    from ..text.types_text import type_text  # the spelling users read; text imports ir
    return type_text(t, True)


def _n(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _count_message(noun: str, items, got: int) -> str:
    names = ", ".join(i.name + ("..." if i.variadic else "") for i in items)
    fixed = sum(1 for i in items if not i.variadic)
    at_least = "at least " if any(i.variadic for i in items) else ""
    return f"expects {at_least}{_n(fixed, noun)}{f' ({names})' if names else ''}, got {got}"


def _yield_count(yields, n_results: int, operand_groups) -> int | None:
    if yields is None:
        return None
    if yields == "results":
        return n_results
    if operand_groups is None:
        return None
    return sum(len(operand_groups.get(name, ())) for name in yields)


def _mismatch(attr, expected: str) -> str | None:
    """None if `attr` fits the spec type `expected`, else a description of what it is."""
    try:
        kind = attr_kind(attr)
    except TypeError:
        return f"not a PIR attribute ({attr})"
    if expected == "any":
        return None
    if expected == "scalar":
        return None if kind in _SCALAR_LIKE else kind
    if expected.startswith("array"):
        if kind != "array":
            return kind
        if expected == "array" or not attr.data:
            return None
        element = expected[6:-1]
        bad = [_mismatch(item, element) for item in attr.data]
        if all(b is None for b in bad):
            return None
        return f"array<{'|'.join(sorted(set(_describe(item) for item in attr.data)))}>"
    return None if kind == expected else kind


def _describe(attr) -> str:
    try:
        kind = attr_kind(attr)
    except TypeError:
        return "?"
    if kind == "array" and isinstance(attr, ArrayAttr) and attr.data:
        return f"array<{'|'.join(sorted(set(_describe(i) for i in attr.data)))}>"
    return kind
