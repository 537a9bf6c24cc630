"""The key two pure ops share exactly when one can stand for the other, and the walk that
finds each op an earlier one can stand for (the cse pass, and its invariant).

Attributes and types compare by value, but hashing an xDSL attribute walks it every time;
a program read from a file holds each distinct value a few times over as shared objects.  So
each attribute object is mapped once to a canonical number, by identity first and by value
the first time an object is seen, and keys are tuples of small integers.
"""

from __future__ import annotations

from ...ir.effects import is_pure


class OpKeys:
    """Keys of pure ops for one walk of a program (it must stay alive meanwhile: the memo
    is by object identity)."""

    def __init__(self):
        self._by_id: dict[int, int] = {}
        self._by_value: dict[object, int] = {}
        self._keep: list = []  # what the ids stand for stays alive

    def canon(self, attr) -> int:
        n = self._by_id.get(id(attr))
        if n is None:
            n = self._by_value.setdefault(attr, len(self._by_value))
            self._by_id[id(attr)] = n
            self._keep.append(attr)
        return n

    def key(self, op):
        """A hashable key of what `op` computes, or None when it may not be merged: not pure,
        without results, or holding regions.  Operands by identity, attributes, properties
        and result types by value."""
        if op.regions or not op.results or not is_pure(op):
            return None
        canon = self.canon
        attrs = op.attributes
        props = op.properties
        return (type(op), tuple(map(id, op.operands)),
                tuple([(name, canon(attrs[name])) for name in sorted(attrs)]),
                tuple([(name, canon(props[name])) for name in sorted(props)]) if props else (),
                tuple([canon(r.type) for r in op.results]))


def common_subexpressions(block, keys: OpKeys, aliases, outer: dict | None = None):
    """(op, earlier) for each pure op of `block` (nested regions included) that an earlier
    op computes too, in its block or an enclosing one, before the op holding its region.
    The caller may erase `op` when it gets it: the walk has moved past it.

    The alias model (`aliases`, a pirc.ir.aliasing.AliasAnalysis of the program) decides
    which pairs mean the same: an op whose result's buffer is written in place anywhere is
    never merged either way (merging would make one write change both names), and a pair
    is not one when an operand's buffer is written between the two (the later op reads the
    written values): the later op then stands for the key from there on."""
    seen = dict(outer) if outer else {}
    op = block.first_op
    while op is not None:
        following = op.next_op
        key = keys.key(op)
        if key is not None and any(aliases.is_written(r) for r in op.results):
            key = None
        if key is not None:
            earlier = seen.get(key)
            if earlier is not None and not any(
                    aliases.written_between(v, earlier, op) for v in op.operands):
                yield op, earlier  # no regions: nothing below it to walk
                op = following
                continue
            seen[key] = op
        for region in op.regions:
            for inner in region.blocks:
                yield from common_subexpressions(inner, keys, aliases, seen)
        op = following


def common_subexpressions_around(ops, keys: OpKeys, program, aliases=None) -> list:
    """(op, earlier) for each op that `common_subexpressions` would yield on `program` and
    that is one of `ops` or has one of them as an earlier op it stands for, each op once
    (the incremental form of that walk: pirc.passes.infra.invariants says what `ops` must
    hold for it to see every pair a pass made).

    Ops with the key of one of `ops` are found among the readers of its first operand of
    its class (keys are worked out only where there are two), or, for an op without
    operands, among the program's operand-less ops of its class (one walk, only then).
    A pair is one when the earlier op is in the later one's block or an enclosing one,
    before it (or before the op whose region holds it), and the alias model allows it:
    `aliases` (a pirc.ir.aliasing.AliasAnalysis of the program), built here only when two
    ops share a key."""
    memo: dict = {}      # id(op) -> (op, key)

    def key_of(op):
        entry = memo.get(id(op))
        if entry is None:
            entry = memo[id(op)] = (op, keys.key(op))
        return entry[1]

    groups: dict = {}    # id(first operand) -> (value, {op class: [its readers of that class]})
    buckets: dict = {}   # (id(first operand) or None, op class) -> {key: [ops]}
    pending = []         # operand-less ops, matched against the program's after one walk
    pairs: dict = {}     # (id, id) -> (op, op)

    def pair(op, group_key, members) -> None:
        if len(members) < 2:
            return  # no other op of its class reads that operand: no key worked out
        bucket = buckets.get(group_key)
        if bucket is None:
            bucket = buckets[group_key] = {}
            for member in members:
                member_key = key_of(member)
                if member_key is not None:
                    bucket.setdefault(member_key, []).append(member)
        key = key_of(op)
        for other in bucket.get(key, ()) if key is not None else ():
            if other is not op:
                pairs[(min(id(op), id(other)), max(id(op), id(other)))] = (op, other)

    for op in ops:
        operands = op._operands
        if not operands:
            pending.append(op)
            continue
        first = operands[0]
        entry = groups.get(id(first))
        if entry is None:
            by_class: dict = {}
            for use in first.uses:
                members = by_class.setdefault(type(use.operation), [])
                if not any(m is use.operation for m in members):
                    members.append(use.operation)
            entry = groups[id(first)] = (first, by_class)
        pair(op, (id(first), type(op)), entry[1].get(type(op), ()))
    if pending:
        classes = {type(op): [] for op in pending}
        for other in program.walk():
            members = classes.get(type(other))
            if members is not None and not other._operands:
                members.append(other)
        for op in pending:
            pair(op, (None, type(op)), classes[type(op)])
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
