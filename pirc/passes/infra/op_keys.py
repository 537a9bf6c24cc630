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
