"""Subgraph fingerprints: `pfp1:` + 64 hex digits, the same for the same computation.

A fingerprint hashes what a subgraph computes, not how it is spelled: each op's name, its
semantic op version (pirc.runtime.op_versions), its attributes (floats exactly, as the
canonical text spells them), its result types, its regions and, for each operand, either
the op inside the subgraph that produces it (and which result) or, for a free input, its
type only.  An op's hash covers everything upstream of it inside the subgraph (a Merkle
hash over the data flow), and the subgraph's hash is that of the sorted multiset of its op
hashes, so neither SSA names, value ids, the order of independent ops, the process nor
PYTHONHASHSEED change it.  Parameters count by shape and dtype (their result type): their
names are left out, so a model's repeated layers fingerprint alike; a pass that reads
weight values adds their bytes to its cache key itself (pirc.passes.infra.rewrites).

Format version 1 (`pfp1`): changing what is hashed means a new prefix, so a fingerprint
stored in graph tags, rollout allowlists or reports is never silently reinterpreted.
"""

from __future__ import annotations

import hashlib
import json

from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr

from ...ir.builder import gc_paused
from ...ir.program import FINGERPRINT_PREFIX as PREFIX
from ...ir.program import is_fingerprint  # noqa: F401 - re-exported
from ...runtime.op_versions import semantic_version
from ...text.canonical_printer import canonical_attr_text
from ...text.types_text import type_text


def _property_text(attr) -> str:
    """canonical_attr_text, and the dictionaries a property may hold that no op attribute
    does: `pir.block_arg_attrs` is per region, per block, one dictionary per argument (the
    `^%arg_0 {}` of Paddle's text)."""
    if isinstance(attr, DictionaryAttr):
        return "{" + ",".join(f"{json.dumps(k)}:{_property_text(v)}" for k, v in sorted(attr.data.items())) + "}"
    if type(attr) is ArrayAttr:
        return "[" + ",".join(_property_text(a) for a in attr.data) + "]"
    return canonical_attr_text(attr)

# Attributes that name a thing rather than say what is computed.
_NAMING_ATTRIBUTES = {"builtin.parameter": frozenset({"parameter_name"})}
_NO_NAMES: frozenset = frozenset()


class Fingerprinter:
    """Op hashes for one program version, memoising attribute and type spellings."""

    def __init__(self, program_version: int):
        self.version = program_version
        self._attr_text: dict = {}
        self._type_text: dict = {}
        self._heads: dict = {}
        self._statics: dict = {}
        self._program_memo: dict = {}
        # The top-level ops the last program() hashed again (None before a second call):
        # what a pass changed, for the verifier (pirc.ir.verifier.collect_problems_in).
        self.touched: list | None = None

    def program(self, program) -> str:
        """The fingerprint of the whole program (its top-level block).

        A pass manager asks for it before and after every pass that changed the program, so
        the op hashes of the last call are kept and reused for each op that is the same
        object with the same attributes, operands and result types, and none of whose
        producers changed: after a pass, only what it touched (and what lies downstream) is
        hashed again."""
        with gc_paused():  # many small tuples: each collection would rescan the program
            return self._program(program)

    def _program(self, program) -> str:
        ops = list(program.block.ops)
        inside = {id(op) for op in ops}
        kept = self._program_memo
        memo: dict = {}
        fresh: dict = {}
        # Erased ops count as changed, so an op still reading one of their results is looked at.
        changed: set = kept.keys() - inside
        touched: list = []   # ops hashed again: new, edited, or reading something that changed
        for op in ops:
            key = id(op)
            entry = kept.get(key)
            operands = op._operands  # the tuple itself: `op.operands` is a live view
            attrs = tuple(op.attributes.values())
            types = tuple([r.type for r in op.results])
            if (entry is not None and entry[2] == operands and entry[1] == attrs
                    and entry[3] == types and not op.regions
                    and (not changed or not any(id(getattr(v, "op", None)) in changed for v in operands))):
                digest = entry[4]  # entry[0] is op: the entry keeps it alive, so ids are not reused
            else:
                try:
                    digest = self._hash_one(op, inside, memo, False, attrs, types)
                except KeyError:  # a producer after its user (a graph region): hash in order
                    digest = self._op_hash(op, inside, memo)
                if entry is None or entry[4] != digest:
                    changed.add(key)
                touched.append(op)
            memo[key] = digest
            fresh[key] = (op, attrs, operands, types, digest)
        self._program_memo = fresh
        self.touched = touched if kept else None  # None: the first look, everything is new
        return _combine(memo[id(op)] for op in ops)

    def ops(self, ops) -> str:
        """The fingerprint of the subgraph made of `ops` (and everything in their regions)."""
        ops = list(ops)
        inside = {id(op) for op in ops}
        memo: dict = {}  # id(op) -> digest; ids, since hashing an xDSL op runs Python code
        with gc_paused():
            self._hash_all(ops, inside, memo)
        return _combine(memo[id(op)] for op in ops)

    # ------------------------------------------------------------------ hashing
    def _hash_all(self, ops, inside: set, memo: dict) -> None:
        for op in ops:
            try:  # in block order an op's producers come first: hash it directly
                memo[id(op)] = self._hash_one(op, inside, memo)
            except KeyError:  # a producer later in the list (a subset given in any order)
                self._op_hash(op, inside, memo)

    def _op_hash(self, root, inside: set, memo: dict) -> bytes:
        digest = memo.get(id(root))
        if digest is not None:
            return digest
        # Iterative post-order over producers inside the subgraph: a 100k-op chain must not
        # hit Python's recursion limit.  In block order every producer comes first, so the
        # stack stays one deep.
        stack = [root]
        entered: set = set()  # ids of ops whose producers are being hashed
        while stack:
            op = stack[-1]
            if id(op) in memo:
                stack.pop()
                continue
            pending = [p for p in _inside_producers(op, inside) if id(p) not in memo]
            if pending and id(op) not in entered:
                entered.add(id(op))
                stack.extend(pending)
                continue
            # Producers done, or a cycle (only a broken program has one: a pass that made an
            # op read a later value; the verifier names it): the edges back count as types.
            memo[id(op)] = self._hash_one(op, inside, memo, cycle_safe=True)
            stack.pop()
        return memo[id(root)]

    def _hash_one(self, op, inside: set, memo: dict, cycle_safe: bool = False,
                  values: tuple | None = None, types: tuple | None = None) -> bytes:
        # What the op is without its operands (name, attributes, result types) is the same for
        # many ops (a model repeats its layers, and the readers share attribute objects): it
        # is spelled once per distinct set of objects, keyed by their ids.  The entry holds
        # the objects, so an id cannot be reused while it lives.
        attributes = op.attributes
        if values is None:  # the program walk has them already
            values = tuple(attributes.values())
            types = tuple([r.type for r in op.results])
        key = (op.name, tuple(attributes), tuple(map(id, values)), tuple(map(id, types)))
        entry = self._statics.get(key)
        if entry is None:
            entry = self._statics[key] = (values, types, self._static(op))
        parts = [entry[2]]
        if op.properties:
            for name in sorted(op.properties):
                parts += (b"p:" + name.encode(), self._property(op.properties[name]))
        type_bytes = self._type
        for operand in op._operands:
            owner = getattr(operand, "op", None)
            if owner is not None and id(owner) in inside and (not cycle_safe or id(owner) in memo):
                parts += (b"e", memo[id(owner)], b"#%d," % operand.index)  # KeyError: not yet hashed
            else:  # a free input (from outside, or a block argument): its type only
                parts += (b"i", type_bytes(operand.type))
        for region in op.regions:
            parts.append(b"{")
            for block in region.blocks:
                parts.append(self._block(block, inside | {id(o) for o in block.ops}, memo))
            parts.append(b"}")
        return hashlib.blake2b(b"".join(parts), digest_size=20).digest()

    def _static(self, op) -> bytes:
        """The op's name, semantic version, attributes (naming ones left out) and result types."""
        attributes = op.attributes
        keys = tuple(attributes)
        prefix, order = self._head(op.name, keys)
        parts = [prefix]
        for key, spelled in order:
            parts += (spelled, self._attr(attributes[key]))
        parts.append(b"->")
        parts += [self._type(r.type) for r in op.results]
        parts.append(b"<-")
        return b"".join(parts)

    def _head(self, name: str, keys: tuple) -> tuple[bytes, tuple]:
        """What every op of this name and attribute set starts with, and the attribute
        order (sorted, naming attributes left out)."""
        skip = _NAMING_ATTRIBUTES.get(name, _NO_NAMES)
        order = tuple((k, k.encode()) for k in sorted(keys) if k not in skip)
        prefix = name.encode() + b"@%d|" % (semantic_version(name, self.version) or 0)
        return prefix, order

    def _block(self, block, inside: set, memo: dict) -> bytes:
        parts = [b"a:" + self._type(arg.type) for arg in block.args]
        ops = list(block.ops)
        self._hash_all(ops, inside, memo)
        parts.append(_combine(memo[id(op)] for op in ops).encode())
        return hashlib.blake2b(b"".join(parts), digest_size=20).digest()

    def _attr(self, attr) -> str:
        # Keyed by identity: hashing an xDSL attribute walks it whole, each time.  The entry
        # keeps the attribute alive, so its id cannot be reused while the memo lives.
        entry = self._attr_text.get(id(attr))
        if entry is None:
            entry = self._attr_text[id(attr)] = (attr, b"=" + canonical_attr_text(attr).encode() + b";")
        return entry[1]

    def _property(self, attr) -> bytes:
        entry = self._attr_text.get(id(attr))
        if entry is None:
            entry = self._attr_text[id(attr)] = (attr, b"=" + _property_text(attr).encode() + b";")
        return entry[1]

    def _type(self, t) -> bytes:
        entry = self._type_text.get(id(t))
        if entry is None:
            entry = self._type_text[id(t)] = (t, type_text(t, True).encode() + b",")
        return entry[1]


def _inside_producers(op, inside: set):
    for operand in _all_operands(op):
        owner = getattr(operand, "op", None)
        if owner is not None and id(owner) in inside:
            yield owner


def _all_operands(op):
    """Operands of `op` and of every op nested in its regions (a region may read values
    computed before its op)."""
    yield from op.operands
    for region in op.regions:
        for block in region.blocks:
            for inner in block.ops:
                yield from _all_operands(inner)


def _combine(hashes) -> str:
    h = hashlib.sha256(b"pfp1")
    for digest in sorted(hashes):
        h.update(digest)
    return PREFIX + h.hexdigest()


def fingerprint(ops, program_version: int) -> str:
    """`pfp1:...` of the subgraph made of `ops` at `program_version`."""
    return Fingerprinter(program_version).ops(list(ops))


def program_fingerprint(program) -> str:
    return Fingerprinter(program.version).program(program)
