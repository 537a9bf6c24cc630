"""The alias model: which values share storage, which ops write it, and in what order.

Paddle's in-place ops (`relu_`, `assign_value_`, `batch_norm_`, ...) write their operand's
storage, and the result they return names that same storage; a few ops (`share_data`,
`view_shape`, ...) return a second name for their operand's storage without writing it.  So
in PIR two SSA values can be one buffer, and a value's numbers can change after it is
defined.  Every pass that merges, forwards, folds or deletes asks this module, and the
lowering rebinds every name of a buffer after a write from it: one model, in one place.

Two layers:

* `op_aliasing(name, version)`: what one op does, from data.  The op spec's `inplace` map
  (pirc.ir.specs, from each release's registered op info) plus `dialects/aliasing.yaml`,
  the reviewed table for what the specs cannot say (in-place ops without a map, views,
  writes that keep the values, e.g. an inference `batch_norm_`'s running statistics), each
  entry citing Paddle's source.
* `AliasAnalysis(program_or_block)`: the whole program, nested regions included: the buffer
  of each value, its names, the ops that change it, and order queries for the passes.

`builtin.combine` / `builtin.split` / `builtin.slice` and the control-flow ops are
structural (handled here, not in the table): a vector names each tensor it gathers; a split
gives back those tensors; an `if`'s results, a `while`'s loop values, block arguments and
yields are one buffer per position.  An op without a spec (kept generically) may do anything:
it is taken as writing every operand.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from xdsl.dialects.builtin import StringAttr

from . import attrs as A
from ..package_data import data_dir

COMBINE = "builtin.combine"
SPLITS = ("builtin.split", "builtin.slice")
PARAMETER = "builtin.parameter"
SET_PARAMETER = "builtin.set_parameter"
# Region ops whose regions' yields and block arguments are the op's own values per position.
_LOOPS = frozenset({"pd_op.while"})
_REGION_OPS = frozenset({"pd_op.if", "pd_op.while", "pd_op.pylayer"})
# The ops the analysis records a write for beyond their OpAliasing: a set_parameter writes
# its parameter's buffer, a loop its loop values (what a pass asking "may this op write a
# buffer?" without a model must count as writers too).
STRUCTURAL_WRITERS = frozenset({SET_PARAMETER, *_LOOPS})


@dataclass(frozen=True)
class OpAliasing:
    """What one op does to storage (indices are the op's operand / result positions)."""

    inplace: tuple[tuple[int, int], ...] = ()  # (result, operand): result IS operand's buffer after the write
    views: tuple[tuple[int, int], ...] = ()    # (result, operand): result shares operand's buffer, no write
    # operands written without changing their values, when `when` holds on the op's attributes
    # (an inference batch_norm_'s statistics): ask `preserved(op)` / `value_writes(op)` of an op
    preserves_values: frozenset[int] = frozenset()
    writes: frozenset[int] = frozenset()       # operands the op writes
    # The condition under which `preserves_values` holds (dialects/aliasing.yaml `when`);
    # None: always.  `preserved(op)` evaluates it on an op's attributes.
    when: object = field(default=None, compare=False)
    known: bool = True  # False: no spec and no table entry (an unknown op: may write anything)
    source: str = ""    # the table entry's citation, if any

    def preserved(self, op) -> frozenset[int]:
        """The operands `op` writes without changing their values, its attributes considered."""
        if not self.preserves_values or self.when is None:
            return self.preserves_values
        return self.preserves_values if _holds(self.when, op) else frozenset()

    def value_writes(self, op) -> frozenset[int]:
        """The operands whose values `op` changes (written and not preserved)."""
        return self.writes - self.preserved(op)


_NONE = OpAliasing()
_UNKNOWN = OpAliasing(known=False)


def aliasing_file() -> Path:
    return data_dir("pirc.dialects", "aliasing.yaml",
                    Path(__file__).resolve().parents[2] / "dialects") / "aliasing.yaml"


@lru_cache(maxsize=1)
def _table() -> dict:
    # The verifier asks on every run: parsed through the user cache (keyed by the file's
    # text), so a warm run imports no YAML parser (PyYAML is a tenth of a small run).
    from .. import user_cache

    data = user_cache.yaml_data(aliasing_file(), "aliasing")
    for section in ("inplace", "views"):
        for name, entry in (data.get(section) or {}).items():
            if not entry.get("source"):
                raise ValueError(f"{aliasing_file()}: {section}.{name}: every entry cites its source")
    return data


def table_entry(name: str) -> tuple[str, dict] | None:
    """(section, entry) of `name` in dialects/aliasing.yaml, or None."""
    data = _table()
    for section in ("inplace", "views", "copies"):
        entry = (data.get(section) or {}).get(name)
        if entry is not None:
            return section, entry
    return None


@lru_cache(maxsize=None)
def op_aliasing(op_name: str, version: int) -> OpAliasing:
    """What op `op_name` does to storage at PIR `version` (module docstring)."""
    from .specs import get_spec

    spec = get_spec(op_name, version)
    if spec is None:
        return _NONE if op_name in _STRUCTURAL else _UNKNOWN
    operands = [o.name for o in spec.operands]
    results = [r.name for r in spec.results]

    def pairs(mapping) -> tuple:
        out = []
        for result, operand in mapping:
            if result not in results or operand not in operands:
                raise ValueError(f"{aliasing_file()}: {op_name}: no result {result!r} or operand "
                                 f"{operand!r} in its spec at version {version}")
            out.append((results.index(result), operands.index(operand)))
        return tuple(out)

    inplace = pairs(spec.inplace)
    views: tuple = ()
    preserves: frozenset = frozenset()
    when = None
    source = ""
    found = table_entry(op_name)
    if found is not None:
        section, entry = found
        versions = entry.get("versions")
        if versions is None or version in versions:
            source = entry.get("source", "")
            if section == "inplace" and not inplace:
                inplace = pairs(entry["inplace"].items())
                kept = entry.get("preserves_values")
                if kept:
                    preserves = frozenset(operands.index(o) for o in kept["operands"])
                    when = _freeze(kept.get("when"))
            elif section == "views":
                views = pairs(entry["views"].items())
    if not inplace and not views:
        return _NONE  # most ops: one shared object, so the walk skips them by identity
    return OpAliasing(inplace=inplace, views=views, preserves_values=preserves,
                      writes=frozenset(o for _, o in inplace), when=when, source=source)


# Ops the walk handles beyond their OpAliasing (pirc.ir.aliasing.AliasAnalysis._op).
_SPECIAL = frozenset({"builtin.combine", "builtin.split", "builtin.slice", "builtin.parameter",
                      "builtin.set_parameter", "pd_op.if", "pd_op.while", "pd_op.pylayer"})

# Ops with no spec whose storage behaviour the analysis knows structurally.
_STRUCTURAL = frozenset({"builtin.module", "builtin.combine", "builtin.split", "builtin.slice",
                         "builtin.parameter", "builtin.set_parameter", "builtin.shadow_output",
                         "builtin.constant", "cf.yield"})


def aliasing_of(op, version: int | None = None) -> OpAliasing:
    """`op_aliasing` for an op object (its class's spec version when it has one)."""
    spec = getattr(type(op), "spec", None)
    if spec is None:
        return _NONE if op.name in _STRUCTURAL or op.name.startswith("cf.") else _UNKNOWN
    return op_aliasing(op.name, version if version is not None else _spec_version(op))


def _spec_version(op) -> int:
    from .specs import LATEST_VERSION

    spec = type(op).spec
    # A generated class carries the spec of one revision; any version from its `since` on
    # resolves to that same revision, so `since` is exact for the lookup.
    return getattr(spec, "since", LATEST_VERSION)


def _freeze(cond):
    if isinstance(cond, dict):
        return tuple(sorted((k, _freeze(v)) for k, v in cond.items()))
    if isinstance(cond, list):
        return tuple(_freeze(c) for c in cond)
    return cond


@lru_cache(maxsize=None)
def _condition_attrs(cond) -> tuple:
    """The attribute names a frozen condition reads (`_holds`), in a fixed order."""
    names = []
    for key, want in cond:
        if key in ("any_of", "all_of"):
            names += [n for c in want for n in _condition_attrs(c)]
        else:
            names.append(key)
    return tuple(dict.fromkeys(names))


def _holds(cond, op) -> bool:
    """Whether the frozen condition `cond` holds on `op`'s attributes."""
    for key, want in cond:
        if key == "any_of":
            if not any(_holds(c, op) for c in want):
                return False
        elif key == "all_of":
            if not all(_holds(c, op) for c in want):
                return False
        elif _attr(op, key) != want:
            return False
    return True


def _attr(op, name: str):
    attr = op.attributes.get(name)
    if attr is None:
        spec = getattr(type(op), "spec", None)
        a = spec.attribute(name) if spec is not None else None
        return a.default if a is not None and a.has_default else None
    if isinstance(attr, StringAttr):
        return attr.data
    try:
        return A.scalar_value(attr)
    except TypeError:
        return None


# -- the whole-program analysis ---------------------------------------------------------

# How the walk reads a parameter without a table entry: the commonest op it reads (a
# model's weights), recorded without a call (`AliasAnalysis._walk_block`).
_PARAMETER = object()


class AliasAnalysis:
    """Buffers, names and writers of every value of a program (or block), nested regions
    included.  Build it once per pass run: it is a snapshot, and a value or op made after it
    was built is unknown to it (`knows`, `knows_op`; `buffer_of` raises KeyError for it).

    Built in one walk that reads the IR and keeps only what later queries need: every op
    in program order (a list), the blocks, the loops around each op, and, from the few ops
    that alias, write or are structural, the pairs of values that share a buffer and the
    values written.  What follows from those is worked out on the first query that needs
    it, from that record alone, so a later edit of the program changes no answer:

    * positions (`knows`, `knows_op`, `order`): a dict from `id()` to program-order index,
      made from the list in one pass that runs in C;
    * buffers (`buffer_of`, `names`; `writers` once the walk recorded a write): a
      union-find over the values that share a buffer.  Most values name a buffer of their
      own and never enter it; a buffer's id is the position of its first name in program
      order (an int, the same on every run).  Each pair and write is taken with what the
      walk had reached when it met it (`_horizon`), so a value used before its definition
      counts as no value, as it did when the walk did the joining itself;
    * writers (`writers`, `is_written`, `written_*`): one dict from `id()` of every name
      of a written buffer (and of every vector) to its writers, so each such query is one
      lookup; a program without writes answers from the empty record of writes.

    Most values are no in-place op's or view's business, so the common query is one
    lookup: `knows` finds the value's defining op among the positions, `writers` finds
    nothing written.  Tables are keyed by `id()`: xDSL's IR objects hash in Python, and
    every object whose id is a key is held by the analysis (the op list, the blocks' and
    the record's entries), so no other live object can have that id, even once a pass
    erased the object from the program."""

    def __init__(self, program_or_block, version: int | None = None):
        block = getattr(program_or_block, "block", program_or_block)
        self.version = version if version is not None else getattr(program_or_block, "version", None)
        self._ops: list = []          # every op, in program order (pre-order: an op before its regions)
        self._pos: dict | None = None  # id(op) -> its index in _ops (made on first need)
        self._blocks: dict = {}       # id(block) -> (index of its first op, block, blocks walked before it)
        self._loops: dict = {}        # id(op) -> the loops around it, outermost first (op in _ops)
        self._members: dict = {}      # id(vector) -> (vector, its member values): combine results
        self._params: dict = {}       # parameter name -> first value naming it
        # (value, value, horizon): the two name one buffer; horizon None: the walk had
        # reached both (two parameters of one name)
        self._joins: list = []
        self._written: list = []      # (op, value, horizon): `op` changes the values of `value`'s buffer
        self._by_class: dict = {}     # op class -> how the walk reads its ops (`_kind`)
        self._kept: dict = {}         # (class, ids of the attributes read) -> (them, value_writes)
        self._horizon = (0, 0)        # (ops, blocks) walked, for `_key`: all of them once built
        self._parent: dict = {}       # union-find over ids of the values that share a buffer,
        self._vals: dict = {}         # id -> value, for the ids in _parent,
        self._writers: dict | None = None  # root id -> (root value, its writers): all made by _buffers
        self._names: dict | None = None    # root id -> the buffer's names (_groups)
        self._writes_of: dict | None = None  # id(value) -> its writers, for the written (`_writes`)
        from .builder import gc_paused

        with gc_paused():  # a walk that allocates: no collections meanwhile
            self._walk_block(block, ())
        self._horizon = (len(self._ops), len(self._blocks))

    # -- the walk

    def _walk_block(self, block, loops: tuple) -> None:
        # The walk is most of the cost of a build: per op an append, two tests and a dict
        # lookup by class; only the ops of classes `_kind` picks out are read further.
        ops = self._ops
        append = ops.append
        blocks = self._blocks
        blocks[id(block)] = (len(ops), block, len(blocks))
        by_class = self._by_class
        params = self._params
        joins = self._joins
        op = block._first_op  # xDSL's links (pinned)
        while op is not None:
            append(op)
            if loops:
                self._loops[id(op)] = loops
            if op.regions:
                inner = loops + (op,) if op.name in _LOOPS else loops
                for region in op.regions:
                    for b in region.blocks:
                        self._walk_block(b, inner)
            try:
                kind = by_class[type(op)]
            except KeyError:
                kind = self._kind(op)
            if kind is not None:
                if kind is _PARAMETER or op.name == PARAMETER:
                    # every parameter of one name is one buffer; the walk has reached both
                    result = op.results[0]
                    key = getattr(op.attributes.get("parameter_name"), "data", None)
                    if key is not None:
                        first = params.setdefault(key, result)
                        if first is not result:
                            joins.append((first, result, None))
                if kind is not _PARAMETER:  # a parameter with a table entry is read as any op too
                    self._op(op, kind)
            op = op._next_op

    def _kind(self, op):
        """How the walk reads the ops of `op`'s class: None (they alias, write and
        structure nothing), `_PARAMETER` (a parameter with no table entry), or their
        OpAliasing.  Asked once per class: an op class has one name (xDSL's `name` is a
        class variable)."""
        oa = aliasing_of(op, self.version)
        if oa is _NONE and op.name not in _SPECIAL:
            kind = None
        elif oa is _NONE and op.name == PARAMETER:
            kind = _PARAMETER
        else:
            kind = oa
        self._by_class[type(op)] = kind
        return kind

    def _op(self, op, oa: OpAliasing) -> None:
        name = op.name
        if name == COMBINE:
            self._members[id(op.results[0])] = (op.results[0], tuple(op._operands))
        elif name in SPLITS:
            self._split(op)
        elif name == SET_PARAMETER:
            pname = getattr(op.attributes.get("parameter_name"), "data", None)
            first = self._params.get(pname) if pname is not None else None
            if first is not None:
                self._join(first, op._operands[0])
                self._write(op, first)
        if op.regions and name in _REGION_OPS:
            self._regions(op)
        if not oa.known:
            for v in op._operands:
                self._write(op, v)
            return
        if oa is _NONE:
            return  # a structural op: the branches above read all there is
        results, operands = op.results, op._operands
        for r, o in oa.inplace:
            if r < len(results) and o < len(operands):
                self._join(results[r], operands[o])
        for r, o in oa.views:
            if r < len(results) and o < len(operands):
                self._join(results[r], operands[o])
        if oa.writes:
            for o in (oa.writes if not oa.preserves_values else
                      oa.value_writes(op) if oa.when is None else self._value_writes(op, oa)):
                if o < len(operands):
                    self._write(op, operands[o])

    def _value_writes(self, op, oa: OpAliasing) -> frozenset:
        """`oa.value_writes(op)`, worked out once per op class and set of attributes the
        condition reads (a model's batch norms all carry the same few): xDSL attributes
        are immutable, and the ones in a key are kept, so their ids stay theirs."""
        attrs = op.attributes
        read = tuple(attrs.get(name) for name in _condition_attrs(oa.when))
        key = (type(op), *map(id, read))
        entry = self._kept.get(key)
        if entry is None:
            entry = self._kept[key] = (read, oa.value_writes(op))
        return entry[1]

    def _join(self, a, b) -> None:
        # the walk is at the op being read: what it has reached is what the lists hold
        self._joins.append((a, b, (len(self._ops), len(self._blocks))))

    def _vector(self, value):
        """The values a vector gathers (a builtin.combine result), or None."""
        entry = self._members.get(id(value))
        return None if entry is None else entry[1]

    def _write(self, op, value) -> None:
        members = self._vector(value)
        if members is not None:
            for m in members:
                self._write(op, m)
            return
        self._written.append((op, value, (len(self._ops), len(self._blocks))))

    def _split(self, op) -> None:
        vector = op.operands[0]
        members = self._vector(vector)
        if op.name == "builtin.slice":
            index = getattr(op.attributes.get("index"), "value", None)
            index = getattr(index, "data", None)
            if members is not None and index is not None and 0 <= index < len(members):
                self._join(op.results[0], members[index])
            else:
                for m in members or (vector,):
                    self._join(op.results[0], m)
            return
        if members is not None and len(members) == len(op.results):
            for r, m in zip(op.results, members):
                self._join(r, m)
        else:
            for r in op.results:
                for m in members or (vector,):
                    self._join(r, m)

    def _regions(self, op) -> None:
        """An if / while / pylayer: per position, the op's results, its regions' yields and
        (for a while or a pylayer) its inputs and block arguments are one buffer; a while
        writes its loop values (each iteration carries new values into them)."""
        loop = op.name in _LOOPS
        carried = list(op.operands[1:]) if loop else []
        inputs = carried if loop else list(op.operands) if op.name == "pd_op.pylayer" else []
        for region in op.regions:
            for block in region.blocks:
                for arg, value in zip(block.args, inputs):
                    self._join(arg, value)
                last = block.last_op
                if last is None or last.name != "cf.yield":
                    continue
                yielded = list(last.operands[1:]) if loop else list(last.operands)
                for i, v in enumerate(yielded):
                    if i < len(op.results):
                        self._join(op.results[i], v)
                    if loop and i < len(carried):
                        self._join(carried[i], v)
        if loop:
            for v in carried:
                self._write(op, v)

    # -- positions

    def _positions(self) -> dict:
        if self._pos is None:
            ops = self._ops
            self._pos = dict(zip(map(id, ops), range(len(ops))))
        return self._pos

    def _index(self, op) -> int | None:
        return (self._pos or self._positions()).get(id(op))

    def _key(self, v) -> int | None:
        """The position of `v`'s definition in program order, or None (a null operand, a
        value from outside the walk, or one the walk had not reached: `_horizon`)."""
        owner = v.owner
        i = (self._pos or self._positions()).get(id(owner))
        if i is not None:
            return (i << 20) | (v.index + (1 << 19)) if i < self._horizon[0] else None
        entry = self._blocks.get(id(owner))
        if entry is not None and entry[2] < self._horizon[1]:
            return (entry[0] << 20) | ((1 << 19) - 1 - v.index)  # before the block's first op
        return None

    # -- buffers

    def _buffers(self) -> None:
        """The union-find and the writers of each buffer, from the walk's record (each
        entry with the horizon the walk had when it made it)."""
        if self._writers is not None:
            return
        reached = self._horizon
        written = []
        try:
            for a, b, horizon in self._joins:
                self._horizon = reached if horizon is None else horizon
                self._union(a, b)
            for op, value, horizon in self._written:
                self._horizon = horizon
                if self._key(value) is not None:  # not a null operand
                    written.append((op, value))
        finally:
            self._horizon = reached
        writers: dict = {}
        for op, value in written:
            root, first = self._root(value)
            entry = writers.setdefault(root, (first, []))
            if op not in entry[1]:
                entry[1].append(op)
        index = self._index
        self._writers = {root: (first, tuple(sorted(ops, key=index)))
                         for root, (first, ops) in writers.items()}

    def _root(self, v):
        """(id, value) of the first name of `v`'s buffer (`v` itself when it shares none)."""
        i = id(v)
        if i not in self._vals:
            return i, v
        parent = self._parent
        root = i
        while parent[root] != root:
            root = parent[root]
        while i != root:
            parent[i], i = root, parent[i]
        return root, self._vals[root]

    def _union(self, a, b) -> None:
        (ra, va), (rb, vb) = self._root(a), self._root(b)
        if ra == rb:
            return
        ka, kb = self._key(va), self._key(vb)
        if ka is None or kb is None:
            return  # a null operand (an optional one left out): no storage
        # the root is the earlier-defined value: a buffer's id is its first name's position
        if kb < ka:
            ra, va, rb, vb = rb, vb, ra, va
        if ra not in self._vals:
            self._vals[ra] = va
            self._parent[ra] = ra
        self._vals[rb] = vb
        self._parent[rb] = ra

    def _groups(self) -> dict:
        """root id -> every name of that buffer, in program order (for `names`)."""
        if self._names is None:
            groups: dict = {}
            for v in self._vals.values():
                groups.setdefault(self._root(v)[0], []).append(v)
            key = self._key
            self._names = {root: tuple(sorted(vs, key=key)) for root, vs in groups.items()}
        return self._names

    def _writes(self) -> dict:
        """id(value) -> the ops that change its buffer, in program order, for every name of
        a written buffer and every vector (a vector is written when a tensor it gathers
        is, whatever its own buffer's writers): `writers` is then one lookup."""
        if self._writes_of is None:
            self._buffers()
            table: dict = {}
            groups = self._groups() if self._writers else {}
            for root, (first, ops) in self._writers.items():
                for name in groups.get(root, (first,)):
                    table[id(name)] = ops
            vectors: dict = {}
            for i in self._members:
                table[i] = self._vector_writers(i, table, vectors)
            table.update(vectors)
            self._writes_of = table
        return self._writes_of

    def _vector_writers(self, i, table: dict, vectors: dict) -> tuple:
        """The writers of the vector of id `i`: those of the tensors it gathers (a member
        that is a vector itself by the same rule), in program order."""
        done = vectors.get(i)
        if done is not None:
            return done
        ops = set()
        for m in self._members[i][1]:
            ops.update(self._vector_writers(id(m), table, vectors) if id(m) in self._members
                       else table.get(id(m), ()))
        done = vectors[i] = tuple(sorted(ops, key=self._index))
        return done

    # -- queries

    def knows(self, value) -> bool:
        """Whether the analysis has `value` (a value made after it was built is unknown)."""
        try:
            i = id(value.op)  # an op's result: `owner` is a property, a call per ask
        except AttributeError:  # a block argument (or an erased value)
            i = id(value.owner)
            return i in (self._pos or self._positions()) or i in self._blocks
        return i in (self._pos or self._positions())

    def knows_op(self, op) -> bool:
        return id(op) in (self._pos or self._positions())

    def buffer_of(self, value) -> int:
        """The buffer `value` names: values sharing storage get the same id (the program-order
        position of its first name)."""
        self._buffers()
        key = self._key(self._root(value)[1])
        if key is None:
            raise KeyError(value)
        return key

    def names(self, value) -> tuple:
        """Every value naming `value`'s buffer, in program order."""
        self._buffers()
        root, first = self._root(value)
        names = self._groups().get(root)
        if names is not None and names[0] is first:
            return names
        if self._key(value) is None:
            raise KeyError(value)
        return (value,)

    def writers(self, value) -> tuple:
        """The ops that change `value`'s buffer (a write that keeps the values is not one),
        in program order; none for a value the analysis does not know.  A vector (a
        builtin.combine result) is written when any tensor it gathers is."""
        if not self._written:
            return ()  # the walk met no write: no buffers to work out
        return (self._writes_of or self._writes()).get(id(value), ())

    def is_written(self, value) -> bool:
        if not self._written:
            return False
        return bool((self._writes_of or self._writes()).get(id(value)))

    def order(self, op) -> int:
        """`op`'s position in program order (a pre-order walk: an op before its regions)."""
        index = (self._pos or self._positions()).get(id(op))
        if index is None:
            raise KeyError(op)
        return index

    def loops_of(self, op) -> tuple:
        """The loop ops (`pd_op.while`) around `op`, outermost first."""
        return self._loops.get(id(op), ())

    def written_after(self, value, op) -> bool:
        """Whether `value`'s buffer is changed by an op after `op` in program order, counting
        a loop's next iteration (a writer in a loop that holds `op`, or the loop itself)."""
        writers = self.writers(value)
        if not writers:
            return False
        at = self.order(op)
        loops = self.loops_of(op)
        for w in writers:
            if self.order(w) > at or w in loops:
                return True
            if loops and any(loop in self.loops_of(w) for loop in loops):
                return True
        return False

    def written_between(self, value, first_op, last_op) -> bool:
        """Whether `value`'s buffer is changed by an op strictly between `first_op` and
        `last_op` in program order (the two run in that order, in one iteration)."""
        writers = self.writers(value)
        if not writers:
            return False
        lo, hi = self.order(first_op), self.order(last_op)
        # a loop around `last_op` but not `first_op` runs its writers between the two too
        first_loops = self.loops_of(first_op)
        loops = [loop for loop in self.loops_of(last_op) if loop not in first_loops]
        for w in writers:
            if lo < self.order(w) < hi or w in loops:
                return True
            if loops and any(loop in self.loops_of(w) for loop in loops):
                return True
        return False

    def written_before(self, value, op) -> bool:
        """Whether `value`'s buffer is changed by an op before `op` (or by a loop around it)."""
        writers = self.writers(value)
        if not writers:
            return False
        at = self.order(op)
        loops = self.loops_of(op)
        return any(self.order(w) < at or w in loops for w in writers)

    def aliased(self, value) -> bool:
        """Whether another value names `value`'s buffer."""
        return len(self.names(value)) > 1
