"""The key two pure ops share exactly when one can stand for the other, and the walk that
finds each op an earlier one can stand for (the cse pass, and its invariant).

Attributes and types compare by value, but hashing an xDSL attribute walks it every time;
a program read from a file holds each distinct value a few times over as shared objects.  So
each attribute object is mapped once to a canonical number, by identity first and by value
the first time an object is seen, and keys are tuples of small integers.  Ops made of the
same attribute and type objects (the constants cse merges, at 100k ops 14-17k of them made
of about 20 objects) get their key at one lookup by those identities.

Most ops have no earlier op of their class reading the same values, and then nothing else
of theirs matters: the walks group ops by class and operands first (`group`, a tuple of the
class and the operands' ids) and work a key out only for an op whose group holds another.
On the benchmark's 100k-op programs that is one op in seven, nearly all of them merged; the
attributes of the rest are never read.

The alias model keeps pairs apart where a buffer is written in place (pirc.ir.aliasing);
most programs write none, and then `alias_model` answers for it without building it.
"""

from __future__ import annotations

from operator import attrgetter, itemgetter

from ...ir.effects import is_pure


class OpKeys:
    """Keys of pure ops for one walk of a program (it must stay alive meanwhile: the memo
    is by object identity)."""

    def __init__(self, statics=None):
        # op -> its static key as the program fingerprint kept it (the op's name, then the
        # flat tuple `_details` is keyed by), or None: Fingerprinter.kept_static, for the
        # ops whose keys cannot have changed since (a pass's, with the gate's seeds)
        self._statics = statics
        self._by_static: dict = {}  # id(a kept static key) -> (that key, details)
        self._by_id: dict[int, int] = {}
        self._by_value: dict[object, int] = {}
        self._keep: list = []  # what the ids stand for stays alive
        self.pure_classes: dict[type, bool] = {}  # op class -> whether its ops are pure
        # attribute names in a dict's order -> (number of the sorted names, the getter that
        # puts values in that order, None when they are in it)
        self._layouts: dict[tuple, tuple] = {}
        self._names: dict[tuple, int] = {}  # sorted attribute names -> their number
        # (attribute names, ids of the attribute values, ids of the result types) as one
        # flat tuple (names are strings, ids ints: where the names end says where the values
        # end) -> details.  Every object whose id is there went through `canon` (kept alive
        # in `_keep`, so the id is not reused): an op made of objects another op had gets its
        # details at one lookup.
        self._details: dict[tuple, tuple] = {}

    def canon(self, attr) -> int:
        n = self._by_id.get(id(attr))
        if n is None:
            n = self._by_value.setdefault(attr, len(self._by_value))
            self._by_id[id(attr)] = n
            self._keep.append(attr)
        return n

    def pure(self, op) -> bool:
        """Whether `op` is pure (pirc.ir.effects), asked once per op class (one PIR op at
        one spec revision); `pure_classes` holds the answers."""
        pure = self.pure_classes.get(type(op))
        if pure is None:
            pure = self.pure_classes[type(op)] = is_pure(op)
        return pure

    def mergeable(self, op) -> bool:
        """Whether `op` may be merged at all: pure, with results, without regions."""
        return self.pure(op) and not op.regions and bool(op.results)

    def key(self, op):
        """A hashable key of what `op` computes, or None when it may not be merged: not pure,
        without results, or holding regions.  Operands by identity, attributes, properties
        and result types by value."""
        if not self.mergeable(op):
            return None
        return group(op), self.details(op)

    def details(self, op) -> tuple:
        """The key of a mergeable op less its group: attributes, properties and result
        types, by value."""
        attrs, props = op.attributes, op.properties
        if props:  # rare in PIR: not memoised
            return self._values(attrs), self._values(props), self._types(op.results)
        static = None if self._statics is None else self._statics(op)
        if static is not None:
            # The kept key is one tuple object for the many ops the first look found made of
            # the same objects (cse's merged constants): their details at one lookup of an
            # int.  The entry holds the key, so its id is not reused; the fingerprinter
            # keeps the objects it names alive, so they are the op's.
            found = self._by_static.get(id(static))
            if found is not None:
                return found[1]
        raw = (*attrs, *map(id, attrs.values()), *map(id, map(_TYPE, op.results)))
        details = self._details.get(raw)
        if details is None:
            details = self._details[raw] = (self._values(attrs), (), self._types(op.results))
        if static is not None:
            self._by_static[id(static)] = (static, details)
        return details

    def _values(self, attrs: dict) -> tuple:
        """The names and values of an attribute dict, whatever order the dict holds them in:
        (the number of its sorted names, the canonical numbers of the values in that order)."""
        values = tuple(map(self._by_id.get, map(id, attrs.values())))
        if None in values:
            values = tuple(map(self.canon, attrs.values()))
        names = tuple(attrs)
        layout = self._layouts.get(names)
        if layout is None:
            layout = self._layouts[names] = self._layout(names)
        number, order = layout
        return number, values if order is None else order(values)

    def _layout(self, names: tuple) -> tuple:
        ordered = tuple(sorted(names))
        number = self._names.setdefault(ordered, len(self._names))
        if ordered == names:
            return number, None
        return number, itemgetter(*[names.index(name) for name in ordered])  # 2 names or more

    def _types(self, results) -> tuple:
        types = tuple(map(self._by_id.get, map(id, map(_TYPE, results))))
        if None in types:
            types = tuple(map(self.canon, map(_TYPE, results)))
        return types


_TYPE = attrgetter("_type")  # SSAValue.type is a property over it (xDSL pinned)
_FIRST = tuple.__getitem__  # xDSL's operand tuple indexed in C (SSAValues redefines it in Python)
_SAME = tuple.__eq__  # two operand tuples compared in C (SSAValues redefines == in Python)
_FEW_READERS = 8   # common_subexpressions_around: readers looked through before grouping


def group(op) -> tuple:
    """The op's class and the ids of its operands: what every op its key equals shares
    (xDSL's operand tuple read directly: the `operands` view is an object per call)."""
    return (type(op), *map(id, op._operands))


def common_subexpressions(block, keys: OpKeys, aliases):
    """(op, earlier) for each pure op of `block` (nested regions included) that an earlier
    op computes too, in its block or an enclosing one, before the op holding its region.
    The caller may erase `op` when it gets it: the walk has moved past it.

    The alias model (`aliases`, a pirc.ir.aliasing.AliasAnalysis of the program) decides
    which pairs mean the same: an op whose result's buffer is written in place anywhere is
    never merged either way (merging would make one write change both names), and a pair
    is not one when an operand's buffer is written between the two (the later op reads the
    written values): the later op then stands for the key from there on."""
    return _walk(block, keys, aliases, {}, None)


def may_have_common_subexpressions(block, keys: OpKeys) -> bool:
    """Whether `common_subexpressions` may find a pair in `block`: whether an op has the key
    of an earlier one it can see, writes aside.  The alias model only ever keeps pairs
    apart, so False says the walk finds none, without the model (building it is most of
    the cost of a whole-program check, and most programs after cse share no key)."""
    return next(_walk(block, keys, _NOTHING_WRITTEN, {}, None), None) is not None


class _NothingWritten:
    """The alias model of a program in which no buffer is ever written in place."""

    @staticmethod
    def is_written(value) -> bool:
        return False

    @staticmethod
    def written_between(value, first_op, last_op) -> bool:
        return False


_NOTHING_WRITTEN = _NothingWritten()


def alias_model(program, index=None):
    """The alias model the walks ask of `program`: its pirc.ir.aliasing.AliasAnalysis, or
    `_NOTHING_WRITTEN` when no op of it changes the values of a buffer (most programs: no
    in-place op, or only inference batch norms, which write their statistics back
    unchanged).  Then every value of the analysis has no writer, which is all the walks
    ask, and one look at each op's class replaces the walk that records every value's
    buffer (a cost the size of cse's own walk at 100k ops).  `index`: the pipeline's op
    index (pirc.passes.infra.op_index), which may answer without a walk (`_indexed_writes`)."""
    from ...ir.aliasing import AliasAnalysis

    version = program.version
    kinds: dict = {}
    writes = _indexed_writes(program.block, version, kinds, index) if index is not None else None
    if writes is None:
        writes = _writes(program.block, version, kinds)
    return AliasAnalysis(program) if writes else _NOTHING_WRITTEN


def _indexed_writes(block, version: int, kinds: dict, index) -> bool | None:
    """`_writes(block, ...)` from the ops the op index's walk found (OpIndex.walked: each op
    of the program is one of them, while no op was added), None when it has none.  Their
    classes are gathered in C (a third of the walk's cost at 100k ops), each asked once;
    only the ops of a class that may write are looked at, those still in the block: most
    programs have none, and the benchmark's only its inference batch norms."""
    ops = index.walked(block)
    if ops is None:
        return None
    classes = list(map(type, ops))
    may: dict = {}   # op class -> its kind, where not False
    for cls in set(classes):
        kind = kinds.get(cls)
        if kind is None:
            kind = kinds[cls] = _kind(ops[classes.index(cls)], version)
        if kind is not False:
            may[cls] = kind
    if not may:
        return False
    for cls, kind in may.items():
        for at in _places(classes, cls):
            op = ops[at]
            if op.parent is block and (kind is True or kind.value_writes(op)):  # still in it
                return True
    return False


def _places(items: list, item):
    """The positions of `item` in `items`, found in C (list.index from each one on: a
    method call per element would cost ten times as much)."""
    at = -1
    try:
        while True:
            at = items.index(item, at + 1)
            yield at
    except ValueError:
        return


def _kind(op, version: int):
    """What `_writes` keeps of the class of `op`: False (its ops never change a buffer's
    values), True (they may: an op without a spec, a structural writer) or its OpAliasing
    (they do unless their attributes say they keep the values: `value_writes`)."""
    from ...ir.aliasing import STRUCTURAL_WRITERS, aliasing_of

    oa = aliasing_of(op, version)
    return (True if not oa.known or op.name in STRUCTURAL_WRITERS
            else oa if oa.writes else False)


def _writes(block, version: int, kinds: dict) -> bool:
    """Whether an op of `block` (nested regions included) may change the values of a
    buffer, as pirc.ir.aliasing.AliasAnalysis reads it (`version`: the program's, which the
    analysis reads each op at).  `kinds`, by op class: False (never), True (may: an op
    without a spec, a structural writer) or its OpAliasing (writes unless the op's
    attributes say it keeps the values: `value_writes`)."""
    kind_of = kinds.get
    op = block._first_op  # xDSL's links (pinned)
    while op is not None:
        kind = kind_of(type(op))
        if kind is not False:  # most ops: one lookup, one test
            if kind is None:
                kind = kinds[type(op)] = _kind(op, version)
            if kind is True or (kind is not False and kind.value_writes(op)):
                return True
        if op.regions:
            for region in op.regions:
                for inner in region.blocks:
                    if _writes(inner, version, kinds):
                        return True
        op = op._next_op
    return False


def _walk(block, keys: OpKeys, aliases, table: dict, log: list | None):
    """`common_subexpressions` on one block.  `table`, by group: the one op seen of it (its
    details not worked out, nor whether its results are written), or {details: the op that
    stands for them} once a second op came.  An op whose results are written stands for
    nothing: it is dropped from the table when a second op of its group finds it.  In a
    nested block (`log`), each change of `table` is logged and undone after the block: what
    its ops could stand for is not visible after the op holding its region."""
    pure_classes = keys.pure_classes
    details = keys.details
    # a model that knows no write answers no for every value: not asked
    is_written = None if aliases is _NOTHING_WRITTEN else aliases.is_written
    op = block._first_op  # xDSL's links (pinned): the `next_op` property costs a call per op
    while op is not None:
        following = op._next_op
        cls = type(op)
        pure = pure_classes.get(cls)  # keys.mergeable, inlined: it is asked of every op
        if pure is None:
            pure = keys.pure(op)
        if not pure or op.regions or not op.results:
            for region in op.regions:
                for inner in region.blocks:
                    inner_log: list = []
                    yield from _walk(inner, keys, aliases, table, inner_log)
                    for container, k, before in reversed(inner_log):
                        if before is None:
                            del container[k]
                        else:
                            container[k] = before
            op = following
            continue
        operands = op._operands
        # group(op); an op without operands (most merged ops: constants) by its class alone,
        # which no group tuple equals
        g = (cls, *map(id, operands)) if operands else cls
        # the first of its group (most ops) entered at the lookup: one hash of the group
        entry = table.setdefault(g, op)
        if entry is op:
            if log is not None:
                log.append((table, g, None))
        elif is_written is not None and type(entry) is not dict and any(
                map(is_written, entry.results)):
            if log is not None:
                log.append((table, g, entry))
            table[g] = op  # the first of its group that may stand for its key
        elif is_written is None or not any(map(is_written, op.results)):
            if type(entry) is not dict:
                if log is not None:
                    log.append((table, g, entry))
                entry = table[g] = {details(entry): entry}
            k = details(op)
            earlier = entry.get(k)
            if earlier is not None and (is_written is None or not any(
                    aliases.written_between(v, earlier, op) for v in op._operands)):
                yield op, earlier  # no regions: nothing below it to walk
                op = following
                continue
            if log is not None:
                log.append((entry, k, earlier))
            entry[k] = op
        op = following


def common_subexpressions_around(ops, keys: OpKeys, program, aliases=None) -> list:
    """(op, earlier) for each op that `common_subexpressions` would yield on `program` and
    that is one of `ops` or has one of them as an earlier op it stands for, each op once
    (the incremental form of that walk: pirc.passes.infra.invariants says what `ops` must
    hold for it to see every pair a pass made).

    Ops with the key of one of `ops` share its group: they are found among the readers of
    its first operand (keys are worked out only where a group has two), or, for an op
    without operands, among the program's operand-less ops of its class (one walk, only
    then).  A pair is one when the earlier op is in the later one's block or an enclosing
    one, before it (or before the op whose region holds it), and the alias model allows it:
    `aliases` (a pirc.ir.aliasing.AliasAnalysis of the program), built here only when two
    ops share a key."""
    memo: dict = {}      # id(op) -> (op, its details)

    def details_of(op):
        entry = memo.get(id(op))
        if entry is None:
            entry = memo[id(op)] = (op, keys.details(op))
        return entry[1]

    mergeable = keys.mergeable
    readers: dict = {}   # id(first operand) -> (value, {group: [its mergeable readers]})
    buckets: dict = {}   # group -> {details: [ops]}
    pending = []         # operand-less ops, matched against the program's after one walk
    pairs: dict = {}     # (id, id) -> (op, op)

    def pair(op, g, members) -> None:
        if len(members) < 2:
            return  # no other op of its group: no key worked out
        bucket = buckets.get(g)
        if bucket is None:
            bucket = buckets[g] = {}
            for member in members:
                bucket.setdefault(details_of(member), []).append(member)
        for other in bucket.get(details_of(op), ()):
            if other is not op:
                pairs[(min(id(op), id(other)), max(id(op), id(other)))] = (op, other)

    pure_classes = keys.pure_classes
    for op in ops:
        pure = pure_classes.get(type(op))  # keys.mergeable, inlined: asked of every op
        if pure is None:
            pure = keys.pure(op)
        if not pure or op.regions or not op.results:
            continue  # no key: in no pair
        operands = op._operands
        if not operands:
            pending.append(op)
            continue
        first = _FIRST(operands, 0)
        use = first.first_use
        if use is None or use._next_use is None:
            continue  # the op is the value's one reader (or reads it no more): no other
        # Most ops share their group with no other reader: a value with a few readers is
        # looked through for one of the op's class reading the same values (a compare in C
        # per reader), and only then are its readers grouped.
        cls = type(op)
        looked = 0
        while use is not None and looked < _FEW_READERS:
            reader = use._operation
            if reader is not op and type(reader) is cls and _SAME(reader._operands, operands):
                break
            use = use._next_use
            looked += 1
        else:
            if use is None:
                continue
        use = first.first_use
        entry = readers.get(id(first))
        if entry is None:
            by_group: dict = {}
            seen: set = set()
            while use is not None:
                reader = use._operation
                if id(reader) not in seen and mergeable(reader):
                    seen.add(id(reader))
                    by_group.setdefault(group(reader), []).append(reader)
                use = use._next_use
            entry = readers[id(first)] = (first, by_group)
        g = (type(op), *map(id, operands))  # group(op)
        members = entry[1].get(g, ())
        if len(members) > 1:
            pair(op, g, members)
    if pending:
        classes = {type(op): [] for op in pending}
        for other in program.walk():
            members = classes.get(type(other))
            if members is not None and not other._operands and mergeable(other):
                members.append(other)
        for op in pending:
            pair(op, group(op), classes[type(op)])
    if not pairs:
        return []
    if aliases is None:
        from ...ir.aliasing import AliasAnalysis
        aliases = AliasAnalysis(program)
    order = aliases.order
    found: dict = {}   # id(later op) -> (later, earlier)
    for a, b in pairs.values():
        if not (aliases.knows_op(a) and aliases.knows_op(b)):
            continue  # a reader left outside the program (a detached op keeps its operands)
        earlier, op = (a, b) if order(a) < order(b) else (b, a)
        if id(op) in found or not _visible(earlier, op, order):
            continue
        if any(aliases.is_written(r) for r in op.results) or any(
                aliases.is_written(r) for r in earlier.results):
            continue
        if any(aliases.written_between(v, earlier, op) for v in op.operands):
            continue
        found[id(op)] = (op, earlier)
    return sorted(found.values(), key=lambda pair: order(pair[0]))


def _visible(earlier, op, order) -> bool:
    """Whether `earlier` is in `op`'s block or an enclosing one, before `op` or the op whose
    region holds it (`order`: program order, regions after the op that holds them)."""
    block = earlier.parent
    node = op
    while node is not None:
        if node.parent is block:
            return order(earlier) < order(node)
        node = node.parent_op()
    return False
