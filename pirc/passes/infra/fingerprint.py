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
comes out the same, as after cse, whose merged op hashes like the one it became).  What the
pass did cannot cut a cone short: a forward (canonicalize's inference-dropout: the readers of
d(x) read x) leaves each reader covering x's hash where it covered d's, which covered x's, so
its hash moves, and each hash below it (on the transformer at 100k: 5.7k readers, 26k ops down
to the fetches, every hash moved); only readers pointed at an op hashing like the one they read
(cse) keep theirs, and they are settled without a climb (`steady`).  An update's cost per op is
mostly reading memory the pass left cold: the first look reads the ops in the order they were
made, an update reads its seeds, their entries and their readers scattered over the program.
So each seed is handled in one pass, a steady one settled as it is taken, while its op and
operands are at hand; splitting the seeds first (erased or standing, in C loops) reads each op
twice and costs more.  The program's hash is the sha256 of the sorted op hashes, kept
between passes as a multiset (how many ops have each hash, and the distinct hashes sorted): a
model repeats its layers and parameters, so there are far fewer distinct hashes than ops (46
on the transformer at 100k), a change moves a few counts, and the sha256 then reads 20 bytes
per op at C speed (a model whose layers are chained has about as many distinct hashes as ops:
the many that come and go are merged into the sorted list, `_retally`, and the few that repeat
found from the counts, `_combine_counted`).  `program`, the walk that compares
every op with what was kept, is what `--verify-each=full` and a program edited behind the
manager's back use; the first look at a program (`_first`) has nothing to compare and
hashes an op without regions or properties inline, from its static key (below) and its
producers' hashes, which in block order come first; it keeps the block's ops and their names
as it reads them, for the pass manager, whose op index and block order would walk the block
again (`walked`).

What an op's hash covers before its operands (name, semantic version, attributes, result
types) is spelled once per distinct static key: the op's name, attribute names and the
identities of its attribute values and result types (xDSL attributes are immutable, and a
model's ops share them), the objects held by the memo so no identity is reused.  A one-op
subgraph, what most rewrites match, has every operand as a free input, so its fingerprint is
memoised by that key and its operands' types, and a few ops' by their shape (`_few`): the
gate's fingerprint of a cse merge, a forward or a pattern's match in a model's repeated
layers is a dict lookup (tests/unit/test_fingerprint_single.py holds both to the full walk).
The gate passes the ops rewrites matched or produced since the last look (the only ones
whose static keys may have moved): any other top-level op's key is the one kept for it, not
built again (tests/unit/test_forward_fast_paths.py checks each such key against the op's).
"""

from __future__ import annotations

import hashlib
import json
from bisect import bisect_left, insort
from collections import ChainMap, Counter, deque
from heapq import heappop, heappush
from itertools import compress
from operator import attrgetter, itemgetter, mul

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


# What the program fingerprint keeps of one top-level op between two looks, a list (made
# for every op of the program, where a class instance costs twice as much): the op (so its id
# is not reused), its static key (`_static_key`: its name, attributes and result types, as
# identities) and operand tuple as it was hashed (what `program` compares), its hash, the
# bytes of its hash that come before its operands (`prefix`): an op whose producers' hashes
# moved, and nothing else, is hashed again from its prefix and its operands' producers (read
# again: keeping their bytes for every op costs the first look more than it saves the
# updates), its place in the block (`rank`, increasing in block order) and how many ops it
# counts for (itself and every op in its regions).  `prefix` is None for an op with regions
# (hashed whole) and for one not hashed yet.  A new op counts for nothing (`size` 0) until it
# is hashed (_rehash counts it).  The first look keeps as the static key the tuple its
# `_statics` entry holds (equal to the op's: 100k fresh tuples of ids would stay alive).
_OP, _KEY, _ARGS, _DIGEST, _PREFIX, _RANK, _SIZE = range(7)


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
        self._singles: dict = {}  # one op's subgraph fingerprint, by its static key and input types
        # the same, by the identities of a kept static key object and the input types (_single)
        self._kept_singles: dict = {}
        self._shapes: dict = {}   # a few ops' subgraph fingerprint, by its shape (_few)
        self._top = None          # the top-level block of the program last fingerprinted
        # id(op) -> what is kept of it (_OP...), for each op of that block; its hash is the
        # entry's (a dict of the hashes beside it cost the first look a second 100k-key dict,
        # and each erased op a second deletion: `_Hashes` reads them where a mapping is asked).
        self._kept: dict = {}
        # Those hashes as a multiset: how many ops have each, and each once, sorted (what the
        # program's hash is taken of: _combine_counted).  A model repeats its layers and
        # parameters: far fewer distinct hashes than ops, and an edit moves a count.
        self._counts: dict = {}
        self._distinct: list = []
        self._value: str | None = None
        # What the program holds, as Program.op_count counts it (nested ops included).
        self.op_count: int | None = None
        # The top-level ops the last program() or update() hashed again (None after a first
        # look): how far an update reached (the verifier takes what a pass touched from the
        # IR watch instead: pirc.passes.infra.touched).
        self.touched: list | None = None
        self.fallbacks = 0        # updates that had to hash the whole program (_Redo)
        # The first look's walk of its block (`walked`): (block, its ops in order, their
        # names, the ops none of whose results had a use), while no other look or update
        # came after it, for a block no op of which holds regions; None otherwise.  The look
        # reads every op's results for their types: checking their uses there costs a test,
        # where dce's walk of its own would read every op's memory again.
        self._walk = None

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

    def update(self, program, seeds, steady=(), detached: int | None = None) -> str:
        """The fingerprint of `program` when, since the last `program` or `update`, only the
        top-level ops in `seeds` changed: the ops a pass's rewrites matched, produced or
        edited, the top-level ops holding them, and the ones it erased (module docstring).
        Nothing else is looked at; with no seeds the answer is the last one.

        `steady` (ids of some of `seeds`): ops only whose operands may have changed, not
        their name, attributes or result types (the rewrite gate's contract for an op no
        rewrite matched or produced: pirc.passes.infra.manager).  Such an op whose operands
        now read results of the same index of ops hashing as the old ones did (a cse merge
        re-points its readers to an op hashing like the one erased) keeps its hash without
        being hashed again: after cse the update reads each reader's operands, no more.

        `detached`: how many times an op left a block of the program since then (the IR
        watch's count: pirc.passes.infra.touched.Touched.detached), None when not known.
        When it is the number of seeds erased (or moved into a region) that were hashed,
        each of which left the block at least once, no other op left a block: none moved,
        and a seed hashed before stands where it stood among the ops hashed, its rank
        still between its neighbours' (a new op beside it is placed with it: _place)."""
        self._walk = None   # the block may have changed since the first look
        if program.block is not self._top or self._value is None:
            return self.program(program)
        with gc_paused():
            try:
                return self._update(seeds, steady, detached)
            except _Redo:
                self.fallbacks += 1
                self._top, self._kept = None, {}
                value = self._program(program)
                self._walk = None   # a first look, but not of the program a pipeline began with
                return value

    def _program(self, program) -> str:
        self._walk = None   # a first look below walks again
        block = program.block
        if block is not self._top or not self._kept:
            return self._first(block)
        kept = self._kept
        memo: dict = {}
        fresh: dict = {}
        # Erased ops count as changed, so an op still reading one of their results is looked at.
        changed: set = kept.keys() - map(id, _block_ops(block))
        touched: list = []   # ops hashed again: new, edited, or reading something that changed
        count = 0
        inside = None        # the ids of the block's ops, for an op hashed by _hash_one
        hash_top, statics = self._hash_top, self._statics
        # The block's ops from xDSL's links, this being the walk over every op of the program
        # (`block.ops` makes a Python call per op).
        op, rank = block._first_op, 0
        while op is not None:
            key = id(op)
            entry = kept.get(key)
            operands = op._operands  # the tuple itself: `op.operands` is a live view
            attributes = op.attributes  # and _static_key, inline
            static = (op.name, *attributes, *map(id, attributes.values()), *map(id, map(_TYPE, op.results)))
            if (entry is not None and entry[_ARGS] == operands and entry[_KEY] == static
                    and entry[_PREFIX] is not None
                    and (not changed or not any(id(getattr(v, "op", None)) in changed for v in operands))):
                digest = entry[_DIGEST]  # entry[_OP] is op: the entry keeps it alive, so ids are not reused
                entry[_RANK] = rank
            else:
                prefix = None
                try:
                    if op.regions:
                        inside = inside or {id(o) for o in _block_ops(block)}
                        digest = self._hash_one(op, inside, memo, False, static)
                    elif operands or op.properties:
                        digest, prefix = hash_top(op, block, memo, static)
                    else:  # the hash of its prefix alone, as _hash_top would make it
                        spelled = statics.get(static) or self._spelled(op, static)
                        prefix, digest = spelled[1], spelled[2]
                except KeyError:  # a producer after its user (a graph region): hash in order
                    inside = inside or {id(o) for o in _block_ops(block)}
                    digest = self._op_hash(op, inside, memo)
                size = 1 if not op.regions else _size(op)
                if entry is None:
                    entry = [op, static, operands, digest, prefix, rank, size]
                    changed.add(key)
                    touched.append(op)
                else:
                    if entry[_DIGEST] != digest:
                        changed.add(key)
                    entry[_KEY], entry[_ARGS] = static, operands
                    entry[_DIGEST], entry[_PREFIX], entry[_RANK], entry[_SIZE] = digest, prefix, rank, size
                    touched.append(op)
            count += entry[_SIZE]
            memo[key] = digest
            fresh[key] = entry
            op, rank = op._next_op, rank + 1
        self._top, self._kept = block, fresh
        self._counts, self._distinct = _tally(map(_HASH, fresh.values()))
        self._value = _combine_counted(self._distinct, self._counts)
        self.op_count = count
        self.touched = touched
        return self._value

    def _first(self, block) -> str:
        """The first look at `block`: `_program` with nothing kept to compare with.  An op
        without regions or properties whose producers are ops of the block hashed before it,
        as in block order they are, is hashed inline: its prefix from its static key, each
        operand from its producer's hash (read from the producer's kept entry: the entries
        are the block's ops only, so a producer found there is one of them) or, for a free
        input, its type (`_inputs`); any other op, as `_program` hashes it."""
        kept: dict = {}      # what is kept of each op (_OP...), by id, in block order
        # The hashes by id, for the general code (`_look`), from the first op it hashes on:
        # most programs have none, and a dict of them beside `kept` would cost the look a
        # second 100k-key dict.
        memo = None
        nested = False       # memo holds hashes of ops inside regions too
        count = 0
        inside = None        # the ids of the block's ops, for an op hashed by _hash_one
        statics, edge, blank, hashed = self._statics, _INDEX_BYTES, _BLAKE.copy, _DIGEST
        # The walk, for a caller about to walk the block again (`walked`): an append each,
        # while the op is at hand, costs less than reading it again from the kept entries.
        walk, names, unused, regions = [], [], [], False
        step, name, note = walk.append, names.append, unused.append
        op, rank = block._first_op, 0
        while op is not None:
            attributes = op.attributes  # _static_key, inline
            results = op.results
            opname = op.name
            if len(results) == 1:   # most ops: no iterators for one result
                (result,) = results
                static = (opname, *attributes, *map(id, attributes.values()), id(result._type))
                if result.first_use is None:
                    note(op)
            else:
                static = (opname, *attributes, *map(id, attributes.values()), *map(id, map(_TYPE, results)))
                for result in results:   # read above: its uses cost a test here
                    if result.first_use is not None:
                        break
                else:
                    note(op)
            spelled = statics.get(static) or self._spelled(op, static)
            step(op)
            name(opname)
            operands = op._operands
            if op.regions or op.properties or nested:
                if op.regions:
                    regions = True
                if memo is None:
                    memo = dict(zip(kept, map(_HASH, kept.values())))
                # Once an op was hashed with what it holds, the memo holds ops inside regions
                # too: a producer found there need not be one of the block's (_hash_top asks).
                digest, prefix = self._look(op, block, memo, static, inside)
                if digest is None:
                    nested = True
                    inside = {id(o) for o in _block_ops(block)}
                    digest, prefix = self._look(op, block, memo, static, inside)
                size = _size(op)
                count += size - 1  # and 1 below, as for every op
                kept[id(op)] = [op, spelled[3], operands, digest, prefix, rank, size]
                memo[id(op)] = digest
                op, rank = op._next_op, rank + 1
                continue
            prefix = spelled[1]
            if operands:
                # _inputs, inline, for an op reading ops of the block only
                parts = [prefix]
                try:
                    for operand in operands:  # KeyError: a producer not hashed yet, or outside
                        parts += (b"e", kept[id(operand.op)][hashed], edge[operand.index])
                    inputs = b"".join(parts)
                except (AttributeError, KeyError, IndexError):  # a block argument, a free input, a late producer
                    inputs = self._inputs(op, block, kept, prefix)
                if inputs is None:   # hashed by _op_hash, with its producers
                    nested = True
                    inside = {id(o) for o in _block_ops(block)}
                    if memo is None:
                        memo = dict(zip(kept, map(_HASH, kept.values())))
                    digest, prefix = self._look(op, block, memo, static, inside)
                else:
                    h = blank()
                    h.update(inputs)
                    digest = h.digest()
            else:
                digest = spelled[2]
            kept[id(op)] = [op, spelled[3], operands, digest, prefix, rank, 1]
            if memo is not None:
                memo[id(op)] = digest
            op, rank = op._next_op, rank + 1
        count += rank
        self._top, self._kept = block, kept
        self._counts, self._distinct = _tally(map(_HASH, kept.values()))
        self._value = _combine_counted(self._distinct, self._counts)
        self.op_count = count
        self.touched = None  # the first look: everything is new
        self._walk = None if regions else (block, walk, names, unused)
        return self._value

    def _inputs(self, op, block, kept: dict, prefix: bytes) -> bytes | None:
        """What `_hash_top` hashes for an op of `block` without regions or properties: its
        prefix, then for each operand `e`, its producer's hash (from the entries `kept` of
        the ops hashed so far) and the result's index, for a producer in `block`, or its free
        input's bytes (a block argument, a value of an op outside the block: a null value, an
        erased op).  None where a producer in `block` is not hashed yet (after its user: the
        general code hashes it)."""
        parts = [prefix]
        for operand in op._operands:
            owner = getattr(operand, "op", None)
            if owner is not None and owner.parent is block:
                entry = kept.get(id(owner))
                if entry is None:
                    return None
                parts += (b"e", entry[_DIGEST], _index_bytes(operand.index))
            else:
                t = operand._type
                free = self._free_text.get(id(t))
                parts.append(free[1] if free is not None else self._free(t))
        return b"".join(parts)

    def walked(self, block) -> tuple | None:
        """The first look's walk of `block`, for a caller about to walk it again (the pass
        manager's op index and block order): the block's ops in order, their names, their
        ids in that order (the kept dict's keys: ints already made, where `id` makes one per
        op), and the ops none of whose results had a use (what dce starts from:
        pirc.passes.infra.op_index, `unused`).  None unless the last look or update was a first look at `block` and
        no op of the block holds regions (its ops are then all the ops it holds).  Handed
        out once.  Whether the block is still as the look found it, only the caller knows:
        the pass manager asks before any pass runs."""
        walk = self._walk
        if walk is None or walk[0] is not block:
            return None
        self._walk = None
        return walk[1], walk[2], list(self._kept), walk[3]

    def _look(self, op, block, memo: dict, static: tuple, inside) -> tuple:
        """An op's hash and prefix as `_program` makes them when nothing is kept; with
        `inside` None, (None, None) for one `_hash_one` or `_op_hash` must hash (an op with
        regions, a producer after its user), which then want the ids of the block's ops."""
        try:
            if op.regions:
                if inside is None:
                    return None, None
                return self._hash_one(op, inside, memo, False, static), None
            if op._operands or op.properties:
                return self._hash_top(op, block, memo, static)
            spelled = self._statics.get(static) or self._spelled(op, static)
            return spelled[2], spelled[1]
        except KeyError:  # a producer after its user (a graph region): hash in order
            if inside is None:
                return None, None
            return self._op_hash(op, inside, memo), None

    def _update(self, seeds, steady=(), detached: int | None = None) -> str:
        block, kept = self._top, self._kept
        # id(op) -> hash it again whole (True), from its prefix (False), or only its operands
        # may have changed (_OPERANDS: `steady`), for each seed in the block (what _place
        # reads), then the readers queued as hashes move; queued once each.
        queued: dict = {}
        seeded: list = []    # the entries of those seeds, but the steady ones that settled
        steadies: list = []  # the steady ones' entries
        settled: list = []   # the ids of those that hash as before, each with its old operands
        unsure: list = []    # those new, or moved, or beside such: given ranks by _place
        standing: list = []  # those hashed before: moved, unless `detached` says none was
        gone: dict = {}      # id(op) -> its hash, for each seed erased or moved into a region
        removed: list = []   # hashes leaving the program's multiset
        size = 0             # ops leaving the program
        read = []            # erased ops still read: a broken program
        self.touched = touched = []
        same = self._same_inputs
        for op in seeds:
            key = id(op)
            if op.parent is block:
                if key in queued:
                    continue
                # An entry holds its op, so no other op has its id: the entry found is the op's.
                entry = kept.get(key)
                if entry is None:
                    queued[key] = True
                    kept[key] = entry = [op, None, None, None, None, None, 0]
                    seeded.append(entry)
                    unsure.append(op)
                    continue
                if key in steady:
                    # Settled as it comes, while its op and operands are at hand (_settle,
                    # a loop of its own after this one, read each from memory again: a
                    # tenth of cse's update).  Its old producer's hash is in `gone`, or still
                    # kept when that op comes later among the seeds; what only the end of
                    # this loop can tell (a seed to rank, an erased op still read) undoes it.
                    steadies.append(entry)
                    if same(entry, gone):
                        settled += (key, entry[_ARGS])
                        entry[_ARGS] = op._operands
                        touched.append(op)
                        queued[key] = None   # given twice: taken once
                    else:
                        queued[key] = False
                        seeded.append(entry)
                else:
                    queued[key] = True
                    seeded.append(entry)
                standing.append(op)
            else:
                entry = kept.pop(key, None)
                if entry is not None:
                    gone[key] = digest = entry[_DIGEST]
                    removed.append(digest)
                    size += entry[_SIZE]
                    for result in op.results:
                        if result.first_use is not None:
                            read.append(op)
                            break
        if not queued and not gone:
            return self._value
        self.op_count -= size
        if standing and detached != len(gone):   # an op may have moved
            moved = self._moved
            unsure += [op for op in standing if moved(op)]
        if unsure or read:
            # Ranks to give, or readers to hash whole: the steady seeds are settled afresh
            # after them, as _settle does (ranks and the ops in the block as they will be).
            if steadies:
                self._unsettle(kept, steadies, settled, seeded, queued, touched)
            if unsure:
                self._place(unsure, queued)
            for op in read:   # its readers are hashed again whole (a steady seed's operands only)
                for user in _users(op, block):
                    key = id(user)
                    if key not in queued:
                        entry = kept.get(key)
                        if entry is None:
                            raise _Redo  # a top-level op no look and no seed has seen
                        queued[key] = True
                        seeded.append(entry)
            if steadies:
                self._settle(steadies, seeded, queued, gone, touched)
        elif settled:   # out of `queued`: the climb queues them as it queues any reader
            deque(map(queued.__delitem__, settled[::2]), 0)
        added: list = []     # hashes coming into it
        if seeded:
            before = len(touched)
            if self._climb(seeded, queued, removed, added, touched) or (before and len(touched) > before):
                touched[:] = dict.fromkeys(touched)   # each op once, where first hashed
        if removed or added:
            self._distinct = _retally(self._counts, self._distinct, removed, added)
            self._value = _combine_counted(self._distinct, self._counts)
        return self._value

    def _moved(self, op) -> bool:
        """Whether `op`, hashed before, may have moved: its rank does not lie between its
        neighbours' (the usual seed, an op edited where it stands, has ranks either side
        that frame its own; comparing with each neighbour, new or not, is enough: ranks
        are strictly increasing along the block when each adjacent pair is)."""
        kept = self._kept
        rank = kept[id(op)][_RANK]
        other = op._prev_op
        if other is not None:
            other = kept.get(id(other))
            if other is None or other[_RANK] is None or not other[_RANK] < rank:
                return True
        other = op._next_op
        if other is not None:
            other = kept.get(id(other))
            if other is None or other[_RANK] is None or not rank < other[_RANK]:
                return True
        return False

    @staticmethod
    def _unsettle(kept: dict, steadies: list, settled: list, seeded: list, queued: dict, touched: list) -> None:
        """Undo _update's settling as the seeds come: each steady seed queued as steady
        (_OPERANDS) and out of `seeded`, those settled given back the operands they were
        hashed with, `touched` emptied (it held only those), for _settle to take afresh."""
        for key, operands in zip(settled[::2], settled[1::2]):
            kept[key][_ARGS] = operands
        for entry in steadies:
            queued[id(entry[_OP])] = _OPERANDS
        seeded[:] = [entry for entry in seeded if queued[id(entry[_OP])] is not _OPERANDS]
        del touched[:]

    def _settle(self, steadies: list, seeded: list, queued: dict, gone: dict, touched: list) -> None:
        """_update's settling, where the seeds could not be settled as they came (a seed to
        rank, an erased op still read: _unsettle).  Before the climb, the steady seeds (`update`'s `steady`: only their operands may
        have changed) that hash as before given the hashes kept (_same_inputs) keep them:
        hashed again, and the same (`touched`), they leave `queued`.  The others join
        `seeded`, to be hashed from their prefix.  The climb need not come first: an op it
        hashes again whose hash moves queues its readers, a settled one among them (hashed
        then from its prefix), and the old value's op, hashed again or not, is compared by
        the hash it had (kept or `gone`: the climb has not moved any yet)."""
        same = self._same_inputs
        for entry in steadies:
            op = entry[_OP]
            if same(entry, gone):
                entry[_ARGS] = op._operands
                del queued[id(op)]
                touched.append(op)
            else:
                queued[id(op)] = False
                seeded.append(entry)

    def _climb(self, seeded: list, queued: dict, removed: list, added: list, touched: list) -> bool:
        """The entries `seeded` and the downstream cone of those whose hash moves, hashed
        again in rank order (a heap); each hash that moves goes from `removed` to `added`
        (an op hashed twice, its ranks out of date, once for each move); the ops hashed
        again go to `touched`, in the order hashed.  `queued`: id(op) -> how: True whole,
        False from its prefix (its producers' hashes or its operands moved).  Returns
        whether an op may have been hashed twice (then in `touched` twice)."""
        block, kept = self._top, self._kept
        # The queued ops in rank order: a sorted list for the seeds, a heap for the readers
        # queued as hashes move (fewer: none after cse; (rank, seq, entry), ties of rank,
        # none in a consistent block, in the order queued), taken from in turn, smallest
        # first, a seed first on a tie.
        seeded.sort(key=_BY_RANK, reverse=True)   # popped from the end
        heap: list = []
        seq = 0
        hash_top, edge, blank, hashed = self._hash_top, _INDEX_BYTES, _BLAKE.copy, _DIGEST
        # In rank order every producer comes before its users, and each op is hashed once;
        # an op hashed again (ranks out of date) costs time, a cycle (a broken program)
        # would never end: past this many ops hashed, hash the program from scratch.  Only
        # a reader queued below the rank taken last can be hashed again (while none is, the
        # ranks taken only grow, and each op queued is taken once), so the count is checked
        # there: a cycle queues one such reader at each turn.
        budget = 2 * len(kept) + 64 + len(touched)
        # The rank of the op taken last: a reader queued with a rank below it may have been
        # hashed already (ranks out of date), and is then in `touched` twice.
        last = None
        twice = False
        while seeded or heap:
            if heap and (not seeded or heap[0][0] < seeded[-1][_RANK]):
                entry = heappop(heap)[2]
            else:
                entry = seeded.pop()
            op = entry[_OP]
            key = id(op)
            old = entry[_DIGEST]
            touched.append(op)
            last = entry[_RANK]
            prefix = entry[_PREFIX]
            if queued.pop(key) is True or prefix is None:
                digest = self._rehash(entry)
            else:  # its producers' hashes moved, or its operands: the prefix is kept
                parts = [prefix]
                try:  # _hash_top, inline: each operand read from an op of the block (the
                    # entries are those only, and an op erased or moved out is a seed)
                    for operand in op._operands:
                        parts += (b"e", kept[id(operand.op)][hashed], edge[operand.index])
                    inputs = b"".join(parts)   # TypeError: a new producer not hashed yet
                except (AttributeError, KeyError, IndexError, TypeError):  # a block argument, another op
                    try:
                        digest = hash_top(op, block, _Hashes(kept), None, prefix)[0]
                    except KeyError:
                        raise _Redo from None
                else:
                    h = blank()
                    h.update(inputs)
                    digest = h.digest()
                entry[_ARGS] = op._operands
            if digest == old:
                continue
            if old is not None:
                removed.append(old)
            added.append(digest)
            entry[_DIGEST] = digest
            whole = old is None  # a user of a new op may have spelled that operand as a free input
            for result in op.results:
                use = result.first_use
                while use is not None:
                    user = use._operation
                    use = use._next_use
                    if user.parent is not block:
                        user = top_level(user, block)
                        if user is None:
                            continue
                    if user is op:
                        continue
                    ukey = id(user)
                    if ukey in queued:
                        if whole:
                            queued[ukey] = True
                        continue
                    uentry = kept.get(ukey)
                    if uentry is None:
                        raise _Redo  # a top-level op no look and no seed has seen
                    queued[ukey] = whole
                    rank = uentry[_RANK]
                    if rank is None or not last < rank:
                        twice = True
                        if len(touched) > budget:
                            raise _Redo
                    seq += 1
                    heappush(heap, (rank, seq, uentry))
        return twice

    def _same_inputs(self, entry, gone: dict) -> bool:
        """Whether the op of `entry`, whose name, attributes and result types are as hashed
        (`steady`), hashes as before: each operand the value it read, or a result of the
        same index of a top-level op placed before it whose hash is the one the old
        value's op had (erased: `gone`; else kept, by id: the old value holds its op, so no
        other op has that id).  Before the climb (_settle): every hash kept is the one the
        update started with."""
        old, new = entry[_ARGS], entry[_OP]._operands
        if old is None or len(old) != len(new):
            return False
        kept, rank = self._kept, entry[_RANK]
        for was, now in zip(old, new):
            if was is now:
                continue
            try:
                owner, previous = now.op, was.op
            except AttributeError:   # a block argument, spelled by its type: hashed again
                return False
            # The hash the old value's op had, first: a forward's reader (its old producer's
            # hash covers the new one's) fails here, a cse merge's passes every test.
            key = id(previous)
            had = gone.get(key)
            if had is None:
                had = kept.get(key)
                if had is None or had[_OP] is not previous:
                    return False
                had = had[_DIGEST]
            # An entry holds its op, so the one found by the owner's id is the owner's.
            placed = kept.get(id(owner))
            if (placed is None or had is None or had != placed[_DIGEST] or now.index != was.index
                    or placed[_RANK] is None or not placed[_RANK] < rank):
                return False
        return True

    def _rehash(self, entry) -> bytes:
        """Hash a top-level op of the kept program afresh (and note what it is made of)."""
        op = entry[_OP]
        if op.regions or op.properties:
            entry[_KEY] = static = _static_key(op)
            entry[_ARGS] = op._operands
            try:
                if op.regions:
                    # Hashes of the ops in its regions go to a memo of their own: the kept one
                    # holds top-level ops only.
                    digest = self._hash_one(op, self._kept, ChainMap({}, _Hashes(self._kept)), False, static)
                    entry[_PREFIX] = None
                else:
                    digest, entry[_PREFIX] = self._hash_top(op, self._top, _Hashes(self._kept), static)
            except KeyError:  # a producer not hashed yet: after its user in the block
                raise _Redo from None
            size = _size(op)
        else:  # what most are: _static_key and _hash_top's prefix, inline
            attributes = op.attributes
            static = (op.name, *attributes, *map(id, attributes.values()), *map(id, map(_TYPE, op.results)))
            spelled = self._statics.get(static) or self._spelled(op, static)
            entry[_KEY], entry[_ARGS], entry[_PREFIX] = static, op._operands, spelled[1]
            if not op._operands:
                digest = spelled[2]
            else:
                try:
                    digest = self._hash_top(op, self._top, _Hashes(self._kept), None, spelled[1])[0]
                except KeyError:  # a producer not hashed yet: after its user in the block
                    raise _Redo from None
            size = 1
        self.op_count += size - entry[_SIZE]
        entry[_SIZE] = size
        return digest

    def _place(self, unsure: list, alive: dict) -> None:
        """Give each op of `unsure` (new, moved, or beside such: _update) and the ops of
        `alive` (new, moved or edited) around it a rank between those of the nearest ops
        before and after them that are not (kept ranks stay when they still fit)."""
        kept = self._kept
        done: set = set()
        for op in unsure:
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
            ranks = [kept[id(o)][_RANK] for o in run]
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
                kept[id(o)][_RANK] = rank

    def _rank_of(self, op) -> float | None:
        if op is None:
            return None
        entry = self._kept.get(id(op))
        if entry is None or entry[_OP] is not op or entry[_RANK] is None:
            raise _Redo  # an op in the block that no look and no seed has seen
        return entry[_RANK]

    def _renumber(self) -> None:
        kept = self._kept
        for rank, op in enumerate(_block_ops(self._top)):
            entry = kept.get(id(op))
            if entry is None or entry[_OP] is not op:
                raise _Redo
            entry[_RANK] = rank

    def ops(self, ops, changed=None) -> str:
        """The fingerprint of the subgraph made of `ops` (and everything in their regions).

        `changed` (ids, or None): the top-level ops whose name, attributes or result types
        may have changed since the last `program` or `update` (the ops rewrites matched or
        produced since: pirc.passes.infra.rewrites.RunState.seeds); every other op of that
        block kept them (the gate's contract, which the fingerprint after a pass relies on
        too), so its static key is the one kept for it (`_static_of`).  None: each op's key
        is read from the op."""
        if type(ops) is not list:
            ops = list(ops)
        if len(ops) == 1:
            value = self._single(ops[0], changed)
        elif len(ops) <= _FEW:
            value = self._few(ops, changed)
        else:
            value = None
        return value if value is not None else self._subgraph(ops)

    def _static_of(self, op, changed) -> tuple:
        """`_static_key(op)`, or the key kept for `op` where it cannot have changed since it
        was kept (`ops`' `changed`): a lookup instead of a tuple built from the op's
        attributes and result types."""
        if changed is not None:
            static = self.kept_static(op, changed)
            if static is not None:
                return static
        return _static_key(op)

    def kept_static(self, op, changed) -> tuple | None:
        """The static key (`_static_key`) kept for `op` at the last look, where it is still
        the op's: a top-level op of the block last fingerprinted that is not in `changed`
        (ids of the ops whose name, attributes or result types may have changed since:
        `ops`' contract); None for any other op.  The same tuple object is returned while
        the entry is kept, and it names objects the fingerprinter keeps alive (`_statics`),
        so a caller may memoise by its identity (pirc.passes.infra.op_keys does)."""
        entry = self._kept.get(id(op))
        if entry is not None and entry[_OP] is op and id(op) not in changed:
            return entry[_KEY]
        return None

    def _subgraph(self, ops: list) -> str:
        inside = {id(op) for op in ops}
        memo: dict = {}  # id(op) -> digest; ids, since hashing an xDSL op runs Python code
        if len(ops) < _PAUSE_GC:
            self._hash_all(ops, inside, memo)
        else:
            with gc_paused():
                self._hash_all(ops, inside, memo)
        return _combine(memo[id(op)] for op in ops)

    def _single(self, op, changed=None) -> str | None:
        """The fingerprint of the subgraph of `op` alone, for an op without regions or
        properties (None for another): no op of that subgraph produces any of its operands
        (one that reads its own result counts it as a free input too, as `_op_hash` does
        for a cycle), so every operand is spelled by its type, and the fingerprint depends
        on the op's static key (`_prefix`) and its operands' types only: memoised by those,
        as identities, the entry holding the objects (so no id is reused while it lives).
        Most rewrites match one op (cse's merges, canonicalize's forwards)."""
        if op.regions or op.properties:
            return None
        operands = op._operands
        kept = None
        if changed is not None:  # kept_static, inline: once per rewrite
            entry = self._kept.get(id(op))
            if entry is not None and entry[_OP] is op and id(op) not in changed:
                kept = entry[_KEY]
        if kept is not None:
            # A kept key is one tuple object for many ops (those the first look found made of
            # the same objects: cse's merged constants): memoised by its identity, and the
            # operands' types' (the entry holds them all, so no id is reused while it lives).
            found = self._kept_singles.get((id(kept), *map(id, map(_TYPE, operands))) if operands
                                           else id(kept))
            if found is not None:
                return found[2]
            static = kept
        else:
            static = _static_key(op)
        inputs = tuple(map(_TYPE, operands))
        entry = self._singles.get((static, *map(id, inputs)))
        if entry is None:
            parts = [self._prefix(op, static)]   # which keeps the static key's objects alive
            parts += map(self._free, inputs)
            digest = hashlib.blake2b(b"".join(parts), digest_size=20).digest()
            entry = self._singles[(static, *map(id, inputs))] = (inputs, _combine_sorted([digest]))
        if kept is not None:
            self._kept_singles[(id(kept), *map(id, inputs)) if inputs else id(kept)] = (
                kept, inputs, entry[1])
        return entry[1]

    def _few(self, ops: list, changed=None) -> str | None:
        """The fingerprint of a small subgraph of ops without regions or properties (None
        for another), memoised by its shape: for each op in turn its static key, then for
        each operand either the place in `ops` of the op producing it and the result's index,
        or the identity of its type (a free input).  The general walk reads nothing else
        (the order of `ops` decides only which edge of a cycle counts as a free input), so
        the same shape is the same fingerprint; the entry holds the free inputs' types (the
        static keys' objects are held by `_statics`).  A canonicalize pattern's match (an
        op and the constant it reads) repeats in every layer of a model."""
        at = dict(zip(map(id, ops), range(len(ops))))
        if len(at) < len(ops):  # an op given twice: its places would not say which
            return None
        shape: list = []
        free: list = []
        for op in ops:
            if op.regions or op.properties:
                return None
            shape.append(self._static_of(op, changed))
            for operand in op._operands:
                try:
                    place = at.get(id(operand.op))
                except AttributeError:  # a block argument
                    place = None
                if place is None:
                    free.append(operand._type)
                    shape.append(id(operand._type))
                else:
                    shape.append((place, operand.index))
        shape = tuple(shape)
        entry = self._shapes.get(shape)
        if entry is None:
            # The walk spells each op's prefix, which puts its static key in `_statics`.
            entry = self._shapes[shape] = (free, self._subgraph(ops))
        return entry[1]

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
                  static: tuple | None = None) -> bytes:
        parts = [self._prefix(op, static)]
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

    def _hash_top(self, op, block, memo: dict, static: tuple | None, prefix: bytes | None = None) -> tuple:
        """`_hash_one` of an op of `block` without regions, and the prefix it hashed first
        (`_OP`...): the same digest.  Its operands from ops of `block` are looked up in `memo`
        (a KeyError: one not hashed yet); the others are free inputs.  With `prefix` (the
        op's kept one) `static` is not read."""
        if prefix is None:
            # _prefix, inline: this runs for every op of the program
            spelled = self._statics.get(static)
            prefix = spelled[1] if spelled is not None and not op.properties else self._prefix(op, static)
        parts = [prefix]
        for operand in op._operands:
            try:
                owner = operand.op
            except AttributeError:  # a block argument
                owner = None
            if owner is not None and owner.parent is block:
                index = operand.index
                parts += (b"e", memo[id(owner)], _INDEX_BYTES[index] if index < 16 else b"#%d," % index)
            else:
                t = operand._type
                free = self._free_text.get(id(t))
                parts.append(free[1] if free is not None else self._free(t))
        return hashlib.blake2b(b"".join(parts), digest_size=20).digest(), prefix

    def _prefix(self, op, static: tuple | None = None) -> bytes:
        """What the op's hash covers before its operands: name, semantic version, attributes,
        result types and properties.  `static`: the op's `_static_key`, when the caller has it."""
        # What the op is without its operands (name, attributes, result types) is the same for
        # many ops (a model repeats its layers, and the readers share attribute objects): it
        # is spelled once per distinct set of objects, keyed by their ids.  The entry holds
        # the objects, so an id cannot be reused while it lives.
        entry = self._spelled(op, static)
        if not op.properties:
            return entry[1]
        parts = [entry[1]]
        for name in sorted(op.properties):
            parts += (b"p:" + name.encode(), self._property(op.properties[name]))
        return b"".join(parts)

    def _spelled(self, op, static: tuple | None = None) -> tuple:
        """The `_statics` entry of the op's static key: the objects it names (kept alive),
        the bytes they spell, the hash of those bytes alone, which is the hash of an op
        without operands, regions or properties (a parameter, a constant: half a model's
        ops), hashed once per key, and the key itself (what the first look keeps)."""
        if static is None:
            static = _static_key(op)
        entry = self._statics.get(static)
        if entry is None:
            spelled = self._static(op)
            entry = self._statics[static] = (
                (tuple(op.attributes.values()), tuple(map(_TYPE, op.results))), spelled,
                hashlib.blake2b(spelled, digest_size=20).digest(), static)
        return entry

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
        order (sorted, naming attributes left out): looked up once per name and set (the
        semantic version is a registry lookup)."""
        head = self._heads.get((name, keys))
        if head is None:
            skip = _NAMING_ATTRIBUTES.get(name, _NO_NAMES)
            order = tuple((k, k.encode()) for k in sorted(keys) if k not in skip)
            prefix = name.encode() + b"@%d|" % (semantic_version(name, self.version) or 0)
            head = self._heads[(name, keys)] = (prefix, order)
        return head

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


class _Hashes:
    """The hashes of the kept entries (`Fingerprinter._kept`) as a mapping by id, for the
    general code (`_hash_top`, `_hash_one`), which looks producers' hashes up in one: an op
    kept but not hashed yet (new in an update) has none (a KeyError, as for an op not kept)."""

    __slots__ = ("kept",)

    def __init__(self, kept: dict):
        self.kept = kept

    def __getitem__(self, key) -> bytes:
        digest = self.kept[key][_DIGEST]
        if digest is None:
            raise KeyError(key)
        return digest

    def __contains__(self, key) -> bool:
        entry = self.kept.get(key)
        return entry is not None and entry[_DIGEST] is not None

    def get(self, key, default=None):
        entry = self.kept.get(key)
        return default if entry is None or entry[_DIGEST] is None else entry[_DIGEST]


class _Scope:
    """The ops of a region's block and, around them, the ops their op can see (`in` only):
    no copy of the outer set for each region."""

    __slots__ = ("outer", "inner")

    def __init__(self, outer, inner: set):
        self.outer, self.inner = outer, inner

    def __contains__(self, key) -> bool:
        return key in self.inner or key in self.outer


# An SSA value's type, read without xDSL's `type` property (a Python call per value).
_TYPE = attrgetter("_type")

# A kept entry's rank (_OP...): the order Fingerprinter._climb takes the seeds in.
_BY_RANK = itemgetter(_RANK)

# A kept entry's hash.
_HASH = itemgetter(_DIGEST)

# Subgraphs of at most this many ops are memoised by their shape (Fingerprinter._few): what
# patterns match; a larger one rarely repeats.
_FEW = 8

# Subgraphs of fewer ops are hashed with the cyclic GC left as it is: pausing it costs more
# than the few tuples they make.
_PAUSE_GC = 64

# Below one distinct hash that comes or goes per this many, the sorted distinct hashes are
# edited in place; above it, sorted afresh (_retally: each edit moves the list's tail, a
# fresh sort costs about 250 of them).
_RESORT = 256

_INDEX_BYTES = [b"#%d," % i for i in range(16)]

# _combine_counted: whether a count is a repeat; below one repeated hash per this many distinct
# ones, the others are joined without a lookup each.
_REPEATS = (1).__lt__
_FEW_REPEATED = 4

# A blake2b of a 20-byte digest with nothing hashed yet: copying it costs less than making one.
_BLAKE = hashlib.blake2b(digest_size=20)

# Fingerprinter._climb: an op only whose operands may have changed (`update`'s `steady`).
_OPERANDS = object()


def _index_bytes(index: int) -> bytes:
    return _INDEX_BYTES[index] if index < 16 else b"#%d," % index


def _static_key(op) -> tuple:
    """What `_prefix` spells, as identities: the op's name, its attribute names, the ids of
    its attribute values and of its result types (names are strings, ids integers, so one
    flat tuple says which is which).  Two ops with the same key spell the same prefix while
    the objects live (Fingerprinter._statics holds them); an attribute set or a result
    retyped changes the key."""
    attributes = op.attributes
    return (op.name, *attributes, *map(id, attributes.values()), *map(id, map(_TYPE, op.results)))


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


def _tally(digests) -> tuple[dict, list]:
    """How many ops have each hash, and the distinct hashes sorted."""
    counts = Counter(digests)
    return counts, sorted(counts)


def _retally(counts: dict, distinct: list, removed: list, added: list) -> list:
    """`counts` less one op of each hash in `removed`, with one of each in `added` (in place),
    and the distinct hashes sorted: a few hashes that come or go are edited in (each edit
    moves the list's tail), many merged in: the hashes still counted, in order, then the new
    ones sorted are two sorted runs, which `list.sort` merges in one pass (a model whose
    layers are chained has about as many distinct hashes as ops, and an update moves
    thousands: sorting all of them afresh cost a third of such an update).  The two lists
    are counted first (at C speed): a cone moves many ops between few hashes where a model's
    layers repeat side by side."""
    new, gone = [], []
    plus = Counter(added)
    minus = Counter(removed)
    get = counts.get
    for digest, k in plus.items():  # first: a removed hash is one the program had
        n = get(digest)
        if n is None:
            counts[digest] = k
            new.append(digest)
        else:
            counts[digest] = n + k
    for digest, k in minus.items():
        n = counts[digest] - k
        if n:
            counts[digest] = n
        else:
            counts.pop(digest)   # dict's own: `del` on a Counter is a Python method
            gone.append(digest)
    if new and gone:
        # A hash that came and went in this update (an op hashed twice, ranks out of date)
        # was never among the distinct ones: neither to add nor to take out.
        both = set(new).difference(counts)
        if both:
            new = [digest for digest in new if digest not in both]
            gone = [digest for digest in gone if digest not in both]
    if (len(new) + len(gone)) * _RESORT > len(distinct):
        if gone:
            distinct = list(filter(counts.__contains__, distinct))
        new.sort()
        distinct += new
        distinct.sort()   # two sorted runs: merged
        return distinct
    for digest in gone:
        del distinct[bisect_left(distinct, digest)]
    for digest in new:
        insort(distinct, digest)
    return distinct


def _combine_counted(distinct: list, counts: dict) -> str:
    """`_combine_sorted` of the multiset: each hash as many times as ops have it.  Where few
    hashes repeat (a model whose layers are chained: its parameters and constants repeat, the
    layers' ops do not), the repeated ones are found from the counts alone and the others
    joined as they stand: looking each distinct hash up in `counts` reads it and a dict slot
    scattered in memory, for tens of thousands of hashes, at every look."""
    repeated = list(compress(counts, map(_REPEATS, counts.values())))
    if len(repeated) * _FEW_REPEATED > len(distinct):   # a model repeating its layers side by side
        return _combine_sorted(list(map(mul, distinct, map(counts.__getitem__, distinct))))
    repeated.sort()
    hashes: list = []
    start = 0
    for digest in repeated:
        end = bisect_left(distinct, digest, start) + 1
        hashes += distinct[start:end]
        hashes.append(digest * (counts[digest] - 1))   # its other copies, next to it
        start = end
    hashes += distinct[start:]
    return _combine_sorted(hashes)


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
