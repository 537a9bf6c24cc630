"""What one pass touched: the region the checks after it look at under
`--verify-each=incremental` (pirc.passes.infra.invariants, pirc.ir.verifier).

The IR watch (pirc.passes.infra.ir_watch) records it while the pass runs, from the rewrite
gate and from the xDSL primitives every structural edit goes through:

* each op a rewrite matched or produced: the only ops whose attributes, properties or
  result types a pass may change (the gate's contract; `--verify-each=full` checks it);
* each op an edit reached, inside a rewrite or outside one, and still in a block: an operand
  set or dropped, the op inserted into a block of the program (an op removed from one leaves
  the record, matched or not); for an edit of a block's arguments or of a region's blocks,
  the op holding them;
* each value that lost a use, with the op that stopped reading it (an operand replaced, its
  reader removed, with the ops nested in it): what can have become dead, and, when that
  reader wrote the value in place, the buffer whose writes moved;
* for each op removed from a block, the ops still reading its results: their operand is now
  defined nowhere, or later than them if the op comes back.

The ops a rewrite matched or produced are also kept apart (`respec`): an op that kept its
place in the top-level block and is not one of them kept its attributes and results too, so
the verifier looks only at its operands.  Which ops kept their place the pipeline's order of
the top-level block says (pirc.ir.block_order), numbered as the pass begins (the first pass
numbers it: the manager from the first fingerprint's walk, else here from the walk that built
the op index): an op with a number at the check had it before the pass, an op the pass
inserted or moved has none.

Not every touched op is the verifier's (`unsettled`).  An operand set in its slot
(OpOperands.__setitem__, inside a rewrite, of an op of the top-level block that keeps its
place) to a value the block defines before the op is settled by the watch as it happens
(`settle`: the pipeline's order, pirc.ir.block_order): nothing after it can undo that
without an edit the record holds (the definition removed or moved: its readers are kept;
the op moved: inserted again; the slot set again), and the op, which no rewrite matched,
kept its spec and its operand count.  Where the program may hold an op that changes a
buffer's type in place, an edit is settled only when neither the op nor a reader of the
value may (`quiet`): a read after such a change is the verifier's other question, and an
op that comes to write the value later is edited or new, so the verifier looks at it and at
the readers after it.  On the benchmark's 100k-op programs that leaves canonicalize's and
cse's re-pointed readers (6-11k) to the watch, at two lookups each.

The record is cheap (a dict entry per edit) and kept by object, so an id is not reused while
it lives.  What is recorded may no longer be in the program (an erased op): `present` keeps
what is.  A pass that changed the program's version or edited the program's own block or region
(its arguments, its blocks), and a correctness pass (which may edit where the gate does not
look), are checked whole: `whole_program` says so.
"""

from __future__ import annotations

from xdsl.ir import Block

from ...ir.verifier import may_retype, writes_in_place

# `settles`' defaults: a value whose definition has no number (not an op of the block, or new
# to it) is never before the op, nor is any value before an op with no number.
_LATE, _EARLY = float("inf"), float("-inf")


class Touched:
    """The ops, values and readers one pass touched (module docstring)."""

    def __init__(self, program, order=None, index=None):
        self.program = program
        self.index = index   # the pipeline's op index (pirc.passes.infra.op_index), or None
        if order is not None and order.block is not program.block:
            # Numbered as the pass finds the block (with the op index's walk, when nothing
            # changed since it; the manager numbers it first when the program's first
            # fingerprint walked the block): a number at the check then says the op was
            # there before.
            order.number(index.top_level(program.block) if index is not None else None)
        # The top-level block's order (pirc.ir.block_order) that the pipeline keeps across
        # its passes, for the verifier; None: the verifier numbers the block itself.
        self.order = order
        self.root = program.module
        self.block = program.block       # the top-level block (a property to compute)
        self.version = program.version   # as the pass found it
        self.ops: dict = {}       # id(op) -> op: matched, produced or edited
        # The ops of `ops` the verifier looks at: all but those whose every edit was an
        # operand set that the watch found defined before them as it happened (`settle`).
        self.unsettled: dict = {}
        self.rewritten: dict = {}  # id(op) -> op: matched or produced (attributes may change)
        # The order's numbers as the pass found them (None: no order; see `respec`).
        self.assigned = order.assigned if order is not None else None
        # The order's numbers, for the watch to settle an operand set as it happens
        # (module docstring), or None: no order to ask.  Where the program may hold an op
        # that changes a buffer's type in place (a read of the value after it is a problem
        # too), `writers` says by name which ops may (None: no op may).
        self.settle = None
        self.writers: dict | None = None
        self._quiet: dict = {}   # id(value) -> (value, quiet()'s answer about its readers)
        if order is not None and index is not None:
            self.settle = order.keys
            if may_retype(index.names(), program.version):   # the verifier's test
                self.writers = {}
        self.released: list = []  # (value, the op that stopped reading it)
        self.readers: dict = {}   # id(op) -> op: readers of a removed op's results
        self._present: dict = {}  # id(op) -> (op, in the program): present()'s answers
        self.whole = False        # the program's own block or region was edited
        self.detached = 0         # ops removed from a block of the program

    # ------------------------------------------------------------ recording (the watch)
    def add(self, ops) -> None:
        """Ops a rewrite matched or produced."""
        touched, rewritten, unsettled = self.ops, self.rewritten, self.unsettled
        for op in ops:
            touched[id(op)] = rewritten[id(op)] = unsettled[id(op)] = op

    def removed(self, op) -> None:
        """`op` is leaving a block of the program, its operands and uses still in place.  It
        is no longer one of the ops to look at (an op moved is inserted again: the watch
        records that), and no check asks for it again: a merge or a fold erases as many ops
        as it edits, and each would be looked up again only to be left out."""
        self.ops.pop(id(op), None)
        self.unsettled.pop(id(op), None)
        self.detached += 1
        released = self.released
        for inner in op.walk() if op.regions else (op,):
            for value in inner._operands:
                released.append((value, inner))
        for result in op.results:
            use = result.first_use
            while use is not None:   # xDSL's use list (pinned), as the watch reads it
                reader = use._operation
                self.readers[id(reader)] = reader
                use = use._next_use

    def holder(self, node) -> None:
        """A block's arguments or a region's blocks changed: the op that holds them (the
        program's own block or region: the whole program)."""
        op = node.parent_op() if isinstance(node, Block) else node.parent
        if op is self.root or op is None:
            self.whole = True
        else:
            self.ops[id(op)] = self.unsettled[id(op)] = op

    def settles(self, op, value) -> bool:
        """Whether `op` reading `value` in a slot set inside a rewrite is settled (module
        docstring): the block defines `value` before `op`, and where an op may change a
        buffer's type in place, neither `op` nor a reader of `value` may (`quiet`)."""
        keys = self.settle
        return (keys is not None
                and keys.get(id(getattr(value, "op", None)), _LATE) < keys.get(id(op), _EARLY)
                and (self.writers is None or self.quiet(op, value)))

    def quiet(self, op, value) -> bool:
        """Where the program may change a buffer's type in place: whether neither `op` nor
        a reader of `value` may, so that `op` reading `value` cannot be a read after such
        a change.  A value's readers are looked at once: an op that comes to write it in
        place later is edited or new, so the verifier looks at it and at the readers after
        it."""
        may = self._writes(op.name)
        if may:
            return False
        known = self._quiet.get(id(value))
        if known is None:
            writes = self._writes
            use = value.first_use
            while use is not None and not writes(use._operation.name):   # xDSL's use list
                use = use._next_use
            known = self._quiet[id(value)] = (value, use is None)   # kept: its id stays its
        return known[1]

    def _writes(self, name: str) -> bool:
        may = self.writers.get(name)
        if may is None:
            may = self.writers[name] = writes_in_place(name, self.version)
        return may

    # ------------------------------------------------------------ reading (the checks)
    @property
    def empty(self) -> bool:
        return not (self.ops or self.released or self.readers or self.detached)

    def whole_program(self, correctness: bool) -> bool:
        """Whether the checks must look at the whole program (module docstring)."""
        return correctness or self.whole or self.program.version != self.version

    def contains(self, op) -> bool:
        """Whether `op` is in the program now (nested ops included)."""
        if op.parent is self.block:
            return True  # most ops: the top-level block
        root = self.root
        node = op
        while node is not None:
            if node is root:
                return True
            node = node.parent
        return False

    def present(self, ops) -> list:
        """`ops` (a collection; None in it is left out) that are in the program now, each
        once, in the order they first come.  An op of the top-level block is there at one
        look, an op in no block is not; a nested op's answer is kept, for the next check that asks (with the op, so
        that its id is not reused)."""
        unique = dict(zip(map(id, ops), ops))   # one pass in C: no call per op
        unique.pop(id(None), None)
        block = self.block
        return [op for op in unique.values()
                if op.parent is block or (op.parent is not None and self._nested_in(op))]

    def _nested_in(self, op) -> bool:
        known = self._present
        entry = known.get(id(op))
        if entry is None:
            entry = known[id(op)] = (op, self.contains(op))
        return entry[1]

    def touched_ops(self) -> list:
        """The matched, produced and edited ops still in the program."""
        return self.present(self.ops.values())

    def verify_ops(self) -> list:
        """What the verifier looks at: the touched ops (less those the watch settled) and
        the readers of removed ops, some
        perhaps no longer in the program (pirc.ir.verifier.collect_problems_in leaves those
        out as it finds each one's top-level op: one look, not two)."""
        return list(self.unsettled.values()) + list(self.readers.values())

    def names(self):
        """The names of the ops the program may hold (those the op index counted), or None
        when not known."""
        return None if self.index is None else self.index.names()

    def respec(self) -> dict | None:
        """For the verifier, the ops (by id) whose spec it must check though they kept their
        place in the top-level block (numbered in `order` before the pass): the ops a rewrite
        matched or produced, the only ones whose attributes a pass may change (the gate's
        contract); the others kept their place and spec, and only their operands changed.
        None (every op's spec) when the order gave numbers while the pass ran: a number then
        does not say the op was there before (pirc.ir.verifier.collect_problems_in)."""
        order = self.order
        if order is None or order.assigned != self.assigned:
            return None
        return self.rewritten
