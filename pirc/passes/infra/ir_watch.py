"""What a running pass changes in the IR, and whether each change happened inside a rewrite.

Every rewrite goes through the gate: `pc.begin(ops)` opens it, `done(produced)` closes it
(pirc.passes.infra.rewrites).  While a pass runs, the manager watches the program: each
edit of xDSL's structure (an operand set, an op inserted into or removed from a block, a
block argument or a block added or removed) in the program is counted, as made inside the
open rewrite or outside any.  An edit outside is a pass changing the program behind the
gate's back (no version gate, no rewrite-twice protection, no bisection, no tag): the
manager makes it an error naming the pass (a correctness pass gets a tag and a report entry
instead).  A rewrite that changed the IR and was never `done` is caught the same way.

The watch wraps the few xDSL primitives every structural edit goes through
(`IRWithUses.add_use` / `remove_use`, `Block._attach_op` / `detach_op` / `insert_arg` /
`erase_arg`, `Region._attach_block` / `detach_block`; xDSL is pinned exactly), only while a
pass runs: a wrapper costs one global read when nothing is watched, and an edit of an op
outside the program (a new op not yet inserted, a clone) is not counted.  The wrappers of
`add_use`, `remove_use` and `detach_op` restate xDSL's bodies rather than call them: one
call per edit, not two (tests/unit/test_ir_watch_fast_paths.py holds the two equal).  What it cannot
see: an attribute set in an op's dict, a result's type replaced.  `--verify-each=full`
(pirc.passes.infra.manager) sees those: the program's fingerprint before and after the pass,
and which ops' attributes and types changed outside every rewrite's ops.

A pass makes tens of thousands of edits (cse's merges, canonicalize's forwards), most of one
shape: an operand of a top-level op set or dropped, or an op without regions inserted into
or removed from the top-level block, inside a rewrite.  The wrappers record those inline, as
`IRWatch._edit` would, without its calls; under `--verify-each=full` every edit takes the
general path, and the watch's record is the same either way (a test compares the two after
every pass of the corpus).  cse's merge of a constant read by top-level ops (`merge_top_level`)
makes its edits and their fast-path records in one call, without the primitives' calls;
tests/unit/test_cse_fast_paths.py holds it to the merge made through the wrappers.  So do a
forward's moves of a result's uses to another value and its erasures of unused ops
(`move_top_level`, `erase_top_level`, which pirc.passes.infra.ir_edits takes), and a whole
forward with the inputs it leaves dead (`forward_top_level`, which greedy.replace_op takes:
canonicalize makes thousands of forwards); tests/unit/test_forward_fast_paths.py holds them
to the edits made through the wrappers.

Each edit also names the top-level op it happened in (`tops`): with what the rewrites matched
and produced, that is what the program fingerprint after the pass hashes again
(pirc.passes.infra.rewrites.RunState.fingerprint_after).  And the watch records what the
pass touched (`touched`, pirc.passes.infra.touched): the region the incremental invariants
and verifier check after it; an operand set in its slot to a value defined before the op is
settled there and then, and left out of the verifier's region (Touched.settle).

The same wrappers keep the pipeline's op index (pirc.passes.infra.op_index) current: each op
inserted into or removed from a block of the program, and each block added to or removed
from one of its regions, is counted in or out with the ops nested in it; each op inserted,
and each op a value of which loses its last use, is one dce looks at (`OpIndex.unused`).  And they tell the
pipeline's order of the top-level ops (pirc.ir.block_order) of each op removed from the
top-level block, whose number then no longer says where it is.
"""

from __future__ import annotations

from functools import partial

from xdsl.ir import Block, IRWithUses, Region, SSAValues

from ...ir.effects import is_pure
from .touched import _EARLY, _LATE, Touched

# The watch of the pass running now (innermost), or None.
_ACTIVE: "IRWatch | None" = None
_DEPTH = 0               # watches entered and not left: the wrappers stay while > 0
_ORIGINALS: dict = {}    # (class, name) -> the xDSL function the wrapper replaced
_OUTSIDE = object()      # IRWatch._top: the edited node is not in the program


class IRWatch:
    """Counts the structural edits of one program while one pass runs (`with watch:`)."""

    def __init__(self, program, general: bool = False, index=None, order=None):
        self.root = program.module
        self.block = program.block
        # The top-level ops the edits happened in (an op edited, inserted or removed, or the
        # op whose regions hold it), by id; `whole`: an edit of the top-level block itself
        # (its arguments) or of the module's region, which no op holds.
        self.tops: dict = {}
        self.whole = False
        self.index = index        # the pipeline's OpIndex to keep current, or None
        self.order = order        # the pipeline's BlockOrder (pirc.ir.block_order) to tell, or None
        self.open = None          # the Rewrite in progress (begun, not done), or None
        self.open_edits = 0       # edits made inside it
        self.inside = 0           # edits inside rewrites
        self.outside = 0          # edits outside every rewrite
        self.first_outside: str | None = None   # what the first one was
        self.unfinished: str | None = None      # a rewrite that changed the IR and was not done
        # --verify-each=full: every edit through `_edit`, the wrappers' fast paths left out
        # (tests/unit/test_ir_watch_fast_paths.py compares the two records).
        self.general = general
        self.touched = Touched(program, order, index)
        self._saved = None

    # ------------------------------------------------------------ the gate's side
    def opened(self, rewrite) -> None:
        """`pc.begin` allowed a rewrite: edits from now on are its own."""
        if self.open is not None:   # most rewrites were done: nothing open
            self.close_open()
        self.open, self.open_edits = rewrite, 0
        touched = self.touched   # Touched.add, inline: once per rewrite
        ops, rewritten, unsettled = touched.ops, touched.rewritten, touched.unsettled
        for op in rewrite.matched:
            ops[id(op)] = rewritten[id(op)] = unsettled[id(op)] = op

    def closed(self, rewrite=None, produced=()) -> None:
        """The rewrite is `done`: edits from now on are outside."""
        if produced:   # most rewrites produce nothing
            self.touched.add(produced)
        if rewrite is not None and rewrite is not self.open:
            return  # a rewrite done twice, or after a later one began: nothing is open now
        self.open, self.open_edits = None, 0

    def close_open(self) -> None:
        """A new rewrite is asked for, or the pass returned: a rewrite left open (begun,
        not done) must not have changed anything."""
        if self.open is not None and self.open_edits and self.unfinished is None:
            names = ", ".join(self.open.ops) or "no ops"
            self.unfinished = (f"a rewrite of {names} ({self.open.fingerprint}) changed the IR "
                               f"and was never done()")
        self.open, self.open_edits = None, 0

    @property
    def changed(self) -> bool:
        return bool(self.inside or self.outside)

    # ------------------------------------------------------------ the IR's side
    def _edit(self, node, what: str, op, value=None) -> bool:
        """Count an edit of `node` (False: not in the program, nothing counted)."""
        block = self.block
        if node is block:
            top = op             # an op into or out of the top-level block (None: its args)
        elif node.parent is block:
            top = node           # an edit of a top-level op (most edits)
        else:
            top = self._top(node, op)
            if top is _OUTSIDE:
                return False
        if top is None:
            self.whole = True
        else:
            self.tops[id(top)] = top
        # What the edit touched (pirc.passes.infra.touched), inline: it runs on every edit.
        touched = self.touched
        if op is None:
            touched.holder(node)
        elif what == _DETACH:
            touched.removed(op)
            if node is block and self.order is not None:
                self.order.forget(op)   # its number no longer says where it is
        else:
            touched.ops[id(op)] = touched.unsettled[id(op)] = op
            if what == _REMOVE_USE:
                touched.released.append((value, op))
        if self.open is not None:
            self.inside += 1
            self.open_edits += 1
            return True
        self.outside += 1
        if self.first_outside is None:
            self.first_outside = what if op is None else f"{what} {op.name}"
        return True

    def _top(self, node, op):
        """The top-level op an edit of `node` (an op, block or region; `op`: the op inserted
        into or removed from a block `node`) happened in, None for the program's own block
        or region, _OUTSIDE when `node` is not in the program."""
        root, block = self.root, self.block
        top = op if node is block else None
        while node is not None:
            if node is root:
                return top
            parent = node.parent   # op -> block -> region -> op ...
            if parent is block:
                top = node
            node = parent
        return _OUTSIDE

    def __enter__(self) -> "IRWatch":
        global _ACTIVE, _DEPTH
        if _DEPTH == 0:
            _install()
        _DEPTH += 1
        self._saved, _ACTIVE = _ACTIVE, self
        return self

    def __exit__(self, *exc) -> None:
        global _ACTIVE, _DEPTH
        _ACTIVE = self._saved
        _DEPTH -= 1
        if _DEPTH == 0:
            _uninstall()


def _use_wrapper(original, what):
    # The wrapper replaces xDSL's method and restates its body (IRWithUses.add_use or
    # remove_use; xDSL is pinned, and tests/unit/test_ir_watch_fast_paths.py holds the
    # restated bodies to xDSL's), so that an edit costs one call, not two: a pass makes
    # tens of thousands.
    dropped = what == _REMOVE_USE

    def wrapper(self, use):
        watch = _ACTIVE
        if watch is not None:
            op = use._operation   # the field `use.operation` reads (xDSL pinned): no call
            parent = op.parent
            if parent is None:
                pass   # an op in no block (erased, or not inserted yet): not in the program
            elif parent is watch.block and watch.open is not None and not watch.general:
                # Most edits of a pass: an operand of a top-level op, inside a rewrite, with
                # nothing more to record.  What _edit does then, without its call.
                watch.tops[id(op)] = op
                touched = watch.touched
                touched.ops[id(op)] = op
                if dropped:
                    # The operand it drops is still in the op's operand tuple (xDSL sets
                    # the slot, or the whole tuple, after): nothing the verifier reads.
                    touched.released.append((self, op))
                else:
                    # An operand set in its slot (OpOperands.__setitem__: the slot keeps its
                    # use) to a value the block defines before the op is settled, where no
                    # op near it may change a buffer's type in place (Touched.settle,
                    # Touched.quiet); anything else is the verifier's.
                    uses, i = op._operand_uses, use._index
                    if i >= len(uses) or uses[i] is not use or not touched.settles(op, self):
                        touched.unsettled[id(op)] = op
                watch.inside += 1
                watch.open_edits += 1
            else:
                watch._edit(op, what, op, self)
        if dropped:   # IRWithUses.remove_use
            prev_use = use._prev_use
            next_use = use._next_use
            if prev_use is not None:
                prev_use._next_use = next_use
            if next_use is not None:
                next_use._prev_use = prev_use
            if prev_use is None:
                self.first_use = next_use
                if next_use is None and watch is not None and watch.index is not None:
                    # its last use: the op may be dead now (dce's candidates, OpIndex.unused)
                    owner = getattr(self, "op", None)   # a block argument has none
                    if owner is not None:
                        watch.index.lost_use(owner)
        else:         # IRWithUses.add_use
            first_use = self.first_use
            use._next_use = first_use
            use._prev_use = None
            if first_use is not None:
                first_use._prev_use = use
            self.first_use = use
    return wrapper


def _block_op_wrapper(original, what, sign):
    detach = what == _DETACH

    def wrapper(self, op, *args, **kwargs):
        watch = _ACTIVE
        if watch is None:
            pass
        elif (self is watch.block and watch.open is not None and not watch.general
              and not op.regions):
            # Most of a pass's inserts and removals: an op without regions into or out of the
            # top-level block, inside a rewrite.  What _edit and the index do then, without
            # their calls.
            watch.tops[id(op)] = op
            touched = watch.touched
            if detach:
                touched.removed(op)
                if watch.order is not None:
                    watch.order.forget(op)
            else:
                touched.ops[id(op)] = touched.unsettled[id(op)] = op
            watch.inside += 1
            watch.open_edits += 1
            index = watch.index
            if index is not None:   # OpIndex.op of an op without regions
                counts, name = index.counts, op.name
                counts[name] = counts.get(name, 0) + sign
                index.total += sign
                if sign > 0:
                    index.added(op)
        elif watch._edit(self, what, op) and watch.index is not None:
            watch.index.op(op, sign)
        if not detach:
            return original(self, op, *args, **kwargs)
        # Block.detach_op, restated (xDSL pinned; the test holds it to xDSL's): one call per
        # op a pass removes, not two, and its neighbours read without the properties' calls.
        if op.parent is not self:
            raise ValueError("Cannot detach operation from a different block.")
        op.parent = None
        prev_op = op._prev_op
        next_op = op._next_op
        if prev_op is not None:
            prev_op._next_op = next_op
            op._prev_op = None
        else:
            assert self._first_op is op
            self._first_op = next_op
        if next_op is not None:
            next_op._prev_op = prev_op
            op._next_op = None
        else:
            assert self._last_op is op
            self._last_op = prev_op
        return op
    return wrapper


def _region_block_wrapper(original, what, sign):
    def wrapper(self, block, *args, **kwargs):
        watch = _ACTIVE
        if watch is not None and watch._edit(self, what, None) and watch.index is not None:
            watch.index.block(self.blocks[block] if isinstance(block, int) else block, sign)
        return original(self, block, *args, **kwargs)
    return wrapper


def _node_wrapper(original, what):
    def wrapper(self, *args, **kwargs):
        watch = _ACTIVE
        if watch is not None:
            watch._edit(self, what, None)
        return original(self, *args, **kwargs)
    return wrapper


def merge_top_level(op, earlier) -> bool:
    """cse's merge of `op` into `earlier` when both the edits and their record take the
    wrappers' fast paths: the uses of `op`'s results moved to `earlier`'s (`remove_use`,
    `add_use`, the reader's operand tuple rebuilt) and `op` detached from the top-level
    block (`detach_op`), each edit made and recorded as its wrapper and xDSL's primitive
    would, without their calls.  Only for an op without operands or regions in the
    top-level block, inside a rewrite, while a watch runs and not under full verification,
    and readers in the top-level block: False (nothing done) for any other, which goes
    through xDSL's primitives."""
    watch = _ACTIVE
    if watch is None or watch.open is None or watch.general:
        return False
    block = watch.block
    if op.parent is not block or op.regions or op._operands:
        return False
    for result in op.results:
        if not _read_in(result, block):
            return False
    for result, value in zip(op.results, earlier.results):
        _move_recorded(watch, result, value, None, None)
    # detach_op's record and edit (the values that lost their last uses are `op`'s, which
    # leaves the program: nothing for dce's candidates, OpIndex.unused)
    _detach_top_level(watch, op, block)
    return True


def _detach_top_level(watch, op, block) -> None:
    """`detach_op`'s record and edit of the top-level op `op` without regions, as its
    wrapper's fast path makes them (merge_top_level's and erase_top_level's)."""
    key = id(op)
    watch.tops[key] = op
    # Touched.removed, inline for an op without regions: once per op a merge or a forward
    # erases (tens of thousands)
    touched = watch.touched
    touched.ops.pop(key, None)
    touched.unsettled.pop(key, None)
    touched.detached += 1
    released = touched.released
    for value in op._operands:
        released.append((value, op))
    for result in op.results:
        use = result.first_use
        if use is not None:   # most erased ops are unused
            readers = touched.readers
            while use is not None:
                reader = use._operation
                readers[id(reader)] = reader
                use = use._next_use
    if watch.order is not None:
        watch.order.forget(op)
    watch.inside += 1
    watch.open_edits += 1
    index = watch.index
    if index is not None:
        counts, name = index.counts, op.name
        counts[name] = counts.get(name, 0) - 1
        index.total -= 1
    op.parent = None
    prev, following = op._prev_op, op._next_op
    if prev is not None:
        prev._next_op = following
        op._prev_op = None
    else:
        block._first_op = following
    if following is not None:
        following._prev_op = prev
        op._next_op = None
    else:
        block._last_op = prev


def _fast(watch) -> bool:
    """Whether edits now take the wrappers' fast path: a watch runs, a rewrite is open, and
    the run is not under full verification (which sees every edit through `_edit`)."""
    return watch is not None and watch.open is not None and not watch.general


def move_top_level(result, value, users: list) -> bool:
    """ir_edits.move_uses (`result`'s uses moved to `value`, their readers appended to
    `users`) when each edit and its record take the wrappers' fast paths: every reader an op
    of the top-level block, inside a rewrite, while a watch runs and not under full
    verification.  Each use is moved and recorded as `remove_use` and `add_use` would move
    and record it, without their calls (canonicalize makes thousands of forwards).  False
    (nothing done) otherwise, and for `value` being `result`: the caller goes through the
    primitives."""
    watch = _ACTIVE
    if not _fast(watch) or value is result:
        return False
    if not _read_in(result, watch.block):
        return False
    _move_recorded(watch, result, value, users, watch.index)
    return True



def _read_in(value, block) -> bool:
    """Whether every reader of `value` is an op of `block` (the fast moves' condition)."""
    use = value.first_use
    while use is not None:
        if use._operation.parent is not block:
            return False
        use = use._next_use
    return True

def _move_recorded(watch, result, value, users: list | None, index) -> None:
    """Each use of `result` moved to `value` and recorded as `remove_use` and `add_use`
    (their wrappers' fast paths) would move and record it, every reader an op of the
    top-level block (the caller checked): move_top_level's and merge_top_level's moves.
    `users` (when a list) gets each reader; `index` (the op index, or None where the op of
    `result` leaves the program) is told when `result` loses its last use."""
    tops, touched = watch.tops, watch.touched
    touched_ops, released, unsettled = touched.ops, touched.released, touched.unsettled
    # Touched.settles, inline, with `value`'s number read once for all the readers
    keys = touched.settle
    if keys is not None:
        defined = keys.get(id(getattr(value, "op", None)), _LATE)
        anywhere = touched.writers is None   # no op may change a buffer's type in place
    edits = 0
    use = result.first_use
    while use is not None:
        after = use._next_use
        reader, at = use._operation, use._index
        if users is not None:
            users.append(reader)
        # remove_use's record and edit (the use is its value's first: prev is None); add_use
        # records the reader again, where it already is
        tops[id(reader)] = reader
        touched_ops[id(reader)] = reader
        released.append((result, reader))
        result.first_use = after
        if after is not None:
            after._prev_use = None
        elif index is not None:   # its last use: the op may be dead now (OpIndex.unused)
            index.lost_use(result.op)
        # add_use's settling (the use keeps its slot)
        if keys is None or not (defined < keys.get(id(reader), _EARLY)
                                and (anywhere or touched.quiet(reader, value))):
            unsettled[id(reader)] = reader
        first = value.first_use   # add_use's edit
        use._next_use = first
        use._prev_use = None
        if first is not None:
            first._prev_use = use
        value.first_use = use
        edits += 2
        operands = list(reader._operands)
        operands[at] = value
        reader._operands = SSAValues(operands)
        use = after
    watch.inside += edits
    watch.open_edits += edits
    if value._name is None and result._name is not None:   # name_hint's field
        value.name_hint = result._name


def erase_top_level(op) -> bool:
    """ir_edits.erase of an op of the top-level block without regions or successors whose
    results are unused, when its detaching takes the `detach_op` wrapper's fast path (inside
    a rewrite, while a watch runs and not under full verification): detached and recorded
    as that wrapper would, its operands' uses dropped as `remove_use` drops them (an op in
    no block: nothing recorded), without their calls.  False (nothing done) for any other."""
    watch = _ACTIVE
    if not _fast(watch):
        return False
    block = watch.block
    if op.parent is not block or op.regions or op._successors:
        return False
    for result in op.results:
        if result.first_use is not None:
            return False
    _erase_recorded(watch, op, block)
    return True


def forward_top_level(op, value, users: list, inputs=()) -> bool:
    """greedy.replace_op(op, (value,), inputs) in one call, where each edit takes the
    fast paths of move_top_level and erase_top_level: the uses of `op`'s first result moved
    to `value` (their readers appended to `users`), `op` erased, then each op of `inputs`
    left pure and unused erased, each edit made and recorded as those make them
    (canonicalize makes thousands of forwards: one look at the watch and the ops, not one
    per edit).  Only where `op` and each input still in a block are ops of the top-level
    block without regions or successors, `op`'s other results unused and every reader of
    its first result in the top-level block: False (nothing done) otherwise."""
    watch = _ACTIVE
    if watch is None or watch.open is None or watch.general:   # _fast, inline
        return False
    block = watch.block
    if op.parent is not block or op.regions or op._successors:
        return False
    for dead in inputs:
        if dead.parent is not None and (dead.parent is not block or dead.regions or dead._successors):
            return False
    results = op.results
    result = _item(results, 0)
    if value is result or not _read_in(result, block):
        return False
    for rest in _item(results, _AFTER_FIRST):
        if rest.first_use is not None:
            return False
    _move_recorded(watch, result, value, users, watch.index)
    _erase_recorded(watch, op, block)
    for dead in inputs:   # replace_op's erasures of the inputs left dead, in its order
        if dead.parent is not None and is_pure(dead):
            for dead_result in dead.results:
                if dead_result.first_use is not None:
                    break
            else:
                _erase_recorded(watch, dead, block)
    return True


_item = tuple.__getitem__   # a results tuple's item (xDSL's `SSAValues.__getitem__` is Python)
_AFTER_FIRST = slice(1, None)


def _erase_recorded(watch, op, block) -> None:
    """erase_top_level's edits and record of `op`, an op of `block` without regions or
    successors whose results are unused (the callers checked)."""
    _detach_top_level(watch, op, block)
    index = watch.index
    # remove_use's edit of each operand (unrecorded: the op is in no block now)
    for operand, use in zip(op._operands, op._operand_uses):
        prev_use, next_use = use._prev_use, use._next_use
        if prev_use is not None:
            prev_use._next_use = next_use
        if next_use is not None:
            next_use._prev_use = prev_use
        if prev_use is None:
            operand.first_use = next_use
            if next_use is None and index is not None:   # as the wrapper: OpIndex.unused
                owner = getattr(operand, "op", None)   # a block argument has none
                if owner is not None:
                    index.lost_use(owner)
    op._operand_uses = ()


_REMOVE_USE = "removed an operand of"   # a value loses a use
_DETACH = "removed"                      # an op leaves a block
_WRAPPED = (
    (IRWithUses, "add_use", _use_wrapper, "set an operand of"),
    (IRWithUses, "remove_use", _use_wrapper, "removed an operand of"),
    (Block, "_attach_op", partial(_block_op_wrapper, sign=1), "inserted"),
    (Block, "detach_op", partial(_block_op_wrapper, sign=-1), "removed"),
    (Block, "insert_arg", _node_wrapper, "added a block argument"),
    (Block, "erase_arg", _node_wrapper, "erased a block argument"),
    (Region, "_attach_block", partial(_region_block_wrapper, sign=1), "added a block"),
    (Region, "detach_block", partial(_region_block_wrapper, sign=-1), "removed a block"),
)


def _install() -> None:
    for cls, name, make, what in _WRAPPED:
        original = cls.__dict__[name]
        _ORIGINALS[(cls, name)] = original
        setattr(cls, name, make(original, what))


def _uninstall() -> None:
    for (cls, name), original in _ORIGINALS.items():
        setattr(cls, name, original)
    _ORIGINALS.clear()
