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

A pass manager takes the program's fingerprint after every pass that changed it.  It need not
hash the program again: `Fingerprinter.update` is told which top-level ops the pass's
rewrites matched, produced or edited (pirc.passes.infra.rewrites, ir_watch) and hashes those
again, then, in block order, the users of each op whose hash moved, and so on down: the
downstream cone, which a Merkle hash cannot skip (an op's hash covers its producers' hashes,
so when one producer's hash moves, so does every hash below it; a cone stops where a hash
comes out the same, as after cse, whose merged op hashes like the one it became).  The
program's hash is the sha256 of the sorted op hashes, kept sorted between passes: a change
moves a few entries, and the sha256 then reads 20 bytes per op at C speed.  `program`, the
walk that compares every op with what was kept, is what `--verify-each=full` and a program
edited behind the manager's back use.
"""

from __future__ import annotations

import hashlib
import json
from bisect import bisect_left, insort
from collections import ChainMap
from heapq import heappop, heappush

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


class _Redo(Exception):
    """The incremental update met what it cannot follow (a producer after its user, an op
    the watch never reported): the program is hashed again from scratch."""


class _Kept:
    """What the program fingerprint keeps of one top-level op between two looks: the op (so
    its id is not reused), the attribute, operand and result-type tuples it was hashed with
    (what `program` compares), its hash, its place in the block (`rank`, increasing in block
    order), how many ops it counts for (itself and every op in its regions), and the bytes
    of its hash that do not depend on its producers' hashes (`prefix`, then `refs`, flat, two
    items per operand: the id of the producing op and bytes, or 0 and the bytes of a free
    input; flat, since a tuple per operand costs more than the rest): an op whose producers'
    hashes moved is hashed again from those alone.  `refs` is None for an op with regions
    (hashed whole)."""

    __slots__ = ("op", "attrs", "operands", "types", "digest", "rank", "size", "prefix", "refs")

    def __init__(self, op, attrs=None, operands=None, types=None, digest=None, prefix=None, refs=None):
        self.op, self.attrs, self.operands, self.types = op, attrs, operands, types
        self.digest, self.prefix, self.refs = digest, prefix, refs
        self.rank = None
        # A new op counts for nothing until it is hashed (_rehash counts it).
        self.size = 0 if digest is None else 1 if not op.regions else _size(op)


class Fingerprinter:
    """Op hashes for one program version, memoising attribute and type spellings, and the
    top-level op hashes of the program it last fingerprinted (module docstring)."""

    def __init__(self, program_version: int):
        self.version = program_version
        self._attr_text: dict = {}
        self._type_text: dict = {}
        self._free_text: dict = {}
        self._heads: dict = {}
        self._statics: dict = {}
        self._top = None          # the top-level block of the program last fingerprinted
        self._kept: dict = {}     # id(op) -> _Kept, for each op of that block
        self._digests: dict = {}  # id(op) -> its hash, for each op of that block
        self._sorted: list = []   # those hashes, sorted: what the program's hash is taken of
        self._value: str | None = None
        # What the program holds, as Program.op_count counts it (nested ops included).
        self.op_count: int | None = None
        # The top-level ops the last program() or update() hashed again (None after a first
        # look): what a pass changed, for the verifier (pirc.ir.verifier.collect_problems_in).
        self.touched: list | None = None
        self.fallbacks = 0        # updates that had to hash the whole program (_Redo)

    # ------------------------------------------------------------------ programs
    def program(self, program) -> str:
        """The fingerprint of the whole program (its top-level block), looking at every op.

        The op hashes of the last call (or update) are kept and reused for each op that is
        the same object with the same attributes, operands and result types, and none of
        whose producers changed: after a pass, only what it touched (and what lies
        downstream) is hashed again, but every op is looked at, so an edit nobody reported
        (an attribute set outside the rewrite gate) is seen too."""
        with gc_paused():  # many small tuples: each collection would rescan the program
            return self._program(program)

    def update(self, program, seeds) -> str:
        """The fingerprint of `program` when, since the last `program` or `update`, only the
        top-level ops in `seeds` changed: the ops a pass's rewrites matched, produced or
        edited, the top-level ops holding them, and the ones it erased (module docstring).
        Nothing else is looked at; with no seeds the answer is the last one."""
        if program.block is not self._top or self._value is None:
            return self.program(program)
        with gc_paused():
            try:
                return self._update(seeds)
            except _Redo:
                self.fallbacks += 1
                self._top, self._kept, self._digests = None, {}, {}
                return self._program(program)

    def _program(self, program) -> str:
        block = program.block
        ops = _block_ops(block)
        inside = {id(op) for op in ops}
        kept = self._kept if block is self._top else {}
        memo: dict = {}
        fresh: dict = {}
        # Erased ops count as changed, so an op still reading one of their results is looked at.
        changed: set = kept.keys() - inside
        touched: list = []   # ops hashed again: new, edited, or reading something that changed
        nested = False       # memo holds hashes of ops inside regions too
        count = 0
        for rank, op in enumerate(ops):
            key = id(op)
            entry = kept.get(key) if kept else None
            operands = op._operands  # the tuple itself: `op.operands` is a live view
            attrs = tuple(op.attributes.values())
            types = tuple([r.type for r in op.results])
            if (entry is not None and entry.operands == operands and entry.attrs == attrs
                    and entry.types == types and entry.refs is not None
                    and (not changed or not any(id(getattr(v, "op", None)) in changed for v in operands))):
                digest = entry.digest  # entry.op is op: the entry keeps it alive, so ids are not reused
            else:
                prefix = refs = None
                try:
                    if op.regions:
                        nested = True
                        digest = self._hash_one(op, inside, memo, False, attrs, types)
                    else:
                        digest, prefix, refs = self._hash_top(op, inside, memo, attrs, types)
                except KeyError:  # a producer after its user (a graph region): hash in order
                    nested = True
                    digest = self._op_hash(op, inside, memo)
                if entry is None:
                    entry = _Kept(op, attrs, operands, types, digest, prefix, refs)
                    if kept:
                        changed.add(key)
                        touched.append(op)
                else:
                    if entry.digest != digest:
                        changed.add(key)
                    entry.attrs, entry.operands, entry.types = attrs, operands, types
                    entry.digest, entry.prefix, entry.refs = digest, prefix, refs
                    entry.size = _size(op)
                    touched.append(op)
            entry.rank = float(rank)
            count += entry.size
            memo[key] = digest
            fresh[key] = entry
        self._top, self._kept = block, fresh
        self._digests = {key: e.digest for key, e in fresh.items()} if nested else memo
        self._sorted = sorted(self._digests.values())
        self._value = _combine_sorted(self._sorted)
        self.op_count = count
        self.touched = touched if kept else None  # None: the first look, everything is new
        return self._value

    def _update(self, seeds) -> str:
        block, kept, digests = self._top, self._kept, self._digests
        alive: dict = {}
        gone: list = []
        for op in seeds:
            if op.parent is block:
                alive[id(op)] = op
            else:
                entry = kept.get(id(op))
                if entry is not None and entry.op is op:
                    gone.append(entry)   # erased, or moved into a region
        self.touched = []
        if not alive and not gone:
            return self._value
        removed: list = []   # hashes leaving the program's multiset
        for entry in gone:
            del kept[id(entry.op)]
            del digests[id(entry.op)]
            removed.append(entry.digest)
            self.op_count -= entry.size
        self._place(alive)
        heap: list = []
        queued: dict = {}    # id(op) -> hash it again whole (True) or from its prefix and refs
        seq = 0

        def push(op, whole: bool) -> None:
            nonlocal seq
            key = id(op)
            if key not in queued:
                entry = kept.get(key)
                if entry is None or entry.op is not op:
                    raise _Redo  # a top-level op no look and no seed has seen
                queued[key] = whole
                seq += 1
                heappush(heap, (entry.rank, seq, entry))
            elif whole:
                queued[key] = True

        for entry in gone:   # what still reads an erased op's results (only a broken program)
            for user in _users(entry.op, block):
                push(user, True)
        for op in alive.values():
            push(op, True)
        before: dict = {}    # id(op) -> (entry, its hash before this update)
        touched: dict = {}
        blake2b = hashlib.blake2b
        # In rank order every producer comes before its users, and each op is hashed once;
        # an op hashed again (ranks out of date) costs time, a cycle (a broken program)
        # would never end: past this many, hash the program from scratch.
        budget = 2 * len(kept) + 64
        while heap:
            budget -= 1
            if budget < 0:
                raise _Redo
            entry = heappop(heap)[2]
            op = entry.op
            key = id(op)
            whole = queued.pop(key)
            old = entry.digest
            if key not in before:
                before[key] = (entry, old)
            if whole or entry.refs is None:
                digest = self._rehash(entry)
            else:  # only producers' hashes moved: the rest of the bytes are kept
                parts = [entry.prefix]
                try:
                    refs = entry.refs
                    for oid, piece in zip(refs[::2], refs[1::2]):
                        if oid:
                            parts += (b"e", digests[oid], piece)
                        else:
                            parts.append(piece)
                except KeyError:
                    raise _Redo from None
                digest = blake2b(b"".join(parts), digest_size=20).digest()
            touched[key] = op
            if digest != old:
                entry.digest = digests[key] = digest
                for user in _users(op, block):
                    if user is not op:
                        # A user of a new op may have spelled that operand as a free input.
                        push(user, old is None)
        added: list = []
        for entry, old in before.values():
            if entry.digest != old:
                if old is not None:
                    removed.append(old)
                added.append(entry.digest)
        self.touched = list(touched.values())
        if removed or added:
            ordered = self._sorted
            if (len(removed) + len(added)) * _RESORT > len(ordered):
                ordered = self._sorted = sorted(digests.values())
            else:
                for digest in removed:
                    del ordered[bisect_left(ordered, digest)]
                for digest in added:
                    insort(ordered, digest)
            self._value = _combine_sorted(ordered)
        return self._value

    def _rehash(self, entry) -> bytes:
        """Hash a top-level op of the kept program afresh (and note what it is made of)."""
        op = entry.op
        attrs = tuple(op.attributes.values())
        types = tuple([r.type for r in op.results])
        entry.attrs, entry.operands, entry.types = attrs, op._operands, types
        try:
            if op.regions:
                # Hashes of the ops in its regions go to a memo of their own: the kept one
                # holds top-level ops only.
                digest = self._hash_one(op, self._kept, ChainMap({}, self._digests), False, attrs, types)
                entry.prefix = entry.refs = None
            else:
                digest, entry.prefix, entry.refs = self._hash_top(op, self._kept, self._digests, attrs, types)
        except KeyError:  # a producer not hashed yet: after its user in the block
            raise _Redo from None
        size = _size(op)
        self.op_count += size - entry.size
        entry.size = size
        return digest

    def _place(self, alive: dict) -> None:
        """Give each op of `alive` (new, moved or edited) a rank between those of the nearest
        ops before and after it that are not (kept ranks stay when they still fit)."""
        kept = self._kept
        for op in alive.values():
            entry = kept.get(id(op))
            if entry is None or entry.op is not op:
                kept[id(op)] = _Kept(op)
        done: set = set()
        for op in alive.values():
            if id(op) in done:
                continue
            run = [op]
            before = op._prev_op
            while before is not None and id(before) in alive:
                run.append(before)
                before = before._prev_op
            run.reverse()
            after = op._next_op
            while after is not None and id(after) in alive:
                run.append(after)
                after = after._next_op
            done.update(map(id, run))
            low, high = self._rank_of(before), self._rank_of(after)
            ranks = [kept[id(o)].rank for o in run]
            if None not in ranks and _increasing([low, *ranks, high]):
                continue
            m = len(run)
            if low is None and high is None:
                low, step = -1.0, 1.0
            elif low is None:
                low, step = high - m - 1, 1.0
            elif high is None:
                step = 1.0
            else:
                step = (high - low) / (m + 1)
            ranks = [low + step * (i + 1) for i in range(m)]
            if not _increasing([low, *ranks, high]):  # floats ran out between two kept ops
                self._renumber()
                return
            for o, rank in zip(run, ranks):
                kept[id(o)].rank = rank

    def _rank_of(self, op) -> float | None:
        if op is None:
            return None
        entry = self._kept.get(id(op))
        if entry is None or entry.op is not op or entry.rank is None:
            raise _Redo  # an op in the block that no look and no seed has seen
        return entry.rank

    def _renumber(self) -> None:
        kept = self._kept
        for rank, op in enumerate(_block_ops(self._top)):
            entry = kept.get(id(op))
            if entry is None or entry.op is not op:
                raise _Redo
            entry.rank = float(rank)

    def ops(self, ops) -> str:
        """The fingerprint of the subgraph made of `ops` (and everything in their regions)."""
        ops = list(ops)
        inside = {id(op) for op in ops}
        memo: dict = {}  # id(op) -> digest; ids, since hashing an xDSL op runs Python code
        with gc_paused():
            self._hash_all(ops, inside, memo)
        return _combine(memo[id(op)] for op in ops)

    # ------------------------------------------------------------------ hashing
    def _hash_all(self, ops, inside, memo: dict) -> None:
        for op in ops:
            try:  # in block order an op's producers come first: hash it directly
                memo[id(op)] = self._hash_one(op, inside, memo)
            except KeyError:  # a producer later in the list (a subset given in any order)
                self._op_hash(op, inside, memo)

    def _op_hash(self, root, inside, memo: dict) -> bytes:
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

    def _hash_one(self, op, inside, memo: dict, cycle_safe: bool = False,
                  values: tuple | None = None, types: tuple | None = None) -> bytes:
        if values is None:  # the program walk has them already
            values = tuple(op.attributes.values())
            types = tuple([r.type for r in op.results])
        parts = [self._prefix(op, values, types)]
        type_bytes = self._type
        for operand in op._operands:
            owner = getattr(operand, "op", None)
            if owner is not None and id(owner) in inside and (not cycle_safe or id(owner) in memo):
                parts += (b"e", memo[id(owner)], _index_bytes(operand.index))  # KeyError: not yet hashed
            else:  # a free input (from outside, or a block argument): its type only
                parts += (b"i", type_bytes(operand.type))
        for region in op.regions:
            parts.append(b"{")
            for block in region.blocks:
                parts.append(self._block(block, _Scope(inside, {id(o) for o in block.ops}), memo))
            parts.append(b"}")
        return hashlib.blake2b(b"".join(parts), digest_size=20).digest()

    def _hash_top(self, op, inside, memo: dict, values: tuple, types: tuple) -> tuple:
        """`_hash_one` of an op without regions, with the bytes it hashed split into the
        prefix and the operand references (`_Kept`): the same digest."""
        prefix = self._prefix(op, values, types)
        parts = [prefix]
        refs = []
        for operand in op._operands:
            owner = getattr(operand, "op", None)
            if owner is not None and (oid := id(owner)) in inside:
                index = operand.index
                piece = _INDEX_BYTES[index] if index < 16 else b"#%d," % index
                parts += (b"e", memo[oid], piece)  # KeyError: not yet hashed
                refs += (oid, piece)
            else:
                piece = self._free(operand.type)
                parts.append(piece)
                refs += (0, piece)
        return hashlib.blake2b(b"".join(parts), digest_size=20).digest(), prefix, tuple(refs)

    def _prefix(self, op, values: tuple, types: tuple) -> bytes:
        """What the op's hash covers before its operands: name, semantic version, attributes,
        result types and properties."""
        # What the op is without its operands (name, attributes, result types) is the same for
        # many ops (a model repeats its layers, and the readers share attribute objects): it
        # is spelled once per distinct set of objects, keyed by their ids.  The entry holds
        # the objects, so an id cannot be reused while it lives.
        attributes = op.attributes
        # (name, attribute names, ids of the values and of the types: names are strings, ids
        # integers, so one flat tuple says which is which)
        key = (op.name, *attributes, *map(id, values), *map(id, types))
        entry = self._statics.get(key)
        if entry is None:
            entry = self._statics[key] = (values, types, self._static(op))
        if not op.properties:
            return entry[2]
        parts = [entry[2]]
        for name in sorted(op.properties):
            parts += (b"p:" + name.encode(), self._property(op.properties[name]))
        return b"".join(parts)

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

    def _block(self, block, inside, memo: dict) -> bytes:
        parts = [b"a:" + self._type(arg.type) for arg in block.args]
        ops = _block_ops(block)
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

    def _free(self, t) -> bytes:
        """A free input's bytes: `i` and its type."""
        entry = self._free_text.get(id(t))
        if entry is None:
            entry = self._free_text[id(t)] = (t, b"i" + self._type(t))
        return entry[1]


class _Scope:
    """The ops of a region's block and, around them, the ops their op can see (`in` only):
    no copy of the outer set for each region."""

    __slots__ = ("outer", "inner")

    def __init__(self, outer, inner: set):
        self.outer, self.inner = outer, inner

    def __contains__(self, key) -> bool:
        return key in self.inner or key in self.outer


# Below this many op hashes per change, the sorted hashes are edited in place; above it,
# sorted afresh (C speed either way).
_RESORT = 16

_INDEX_BYTES = [b"#%d," % i for i in range(16)]


def _index_bytes(index: int) -> bytes:
    return _INDEX_BYTES[index] if index < 16 else b"#%d," % index


def _block_ops(block) -> list:
    """The ops of `block`, in order, from xDSL's links (`list(block.ops)` walks the block
    twice: once to count it)."""
    ops = []
    op = block._first_op
    while op is not None:
        ops.append(op)
        op = op._next_op
    return ops


def _increasing(ranks: list) -> bool:
    """Strictly increasing, ignoring the None at either end (a block's start or end)."""
    known = [r for r in ranks if r is not None]
    return all(a < b for a, b in zip(known, known[1:]))


def _size(op) -> int:
    """How many ops `op` counts for in Program.op_count: itself and every op in its regions."""
    if not op.regions:
        return 1
    return sum(1 for _ in op.walk())


def top_level(op, block):
    """The op of `block` that is `op` or holds it in its regions; None when `op` is not in
    `block` (erased, or in another program)."""
    while op is not None:
        parent = op.parent
        if parent is block:
            return op
        if parent is None:
            return None
        region = parent.parent
        op = region.parent if region is not None else None
    return None


def _users(op, block):
    """The top-level ops of `block` that read a result of `op` (themselves or in their regions)."""
    for result in op.results:
        use = result.first_use
        while use is not None:
            user = use._operation
            if user.parent is block or (user := top_level(user, block)) is not None:
                yield user
            use = use._next_use


def _inside_producers(op, inside):
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
    return _combine_sorted(sorted(hashes))


def _combine_sorted(hashes: list) -> str:
    """`pfp1:` + the sha256 of "pfp1" and the sorted op hashes, one after the other."""
    return PREFIX + hashlib.sha256(b"pfp1" + b"".join(hashes)).hexdigest()


def fingerprint(ops, program_version: int) -> str:
    """`pfp1:...` of the subgraph made of `ops` at `program_version`."""
    return Fingerprinter(program_version).ops(list(ops))


def program_fingerprint(program) -> str:
    return Fingerprinter(program.version).program(program)
