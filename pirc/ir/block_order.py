"""The order of a program's top-level ops as numbers, kept across the passes of a pipeline.

Whether one op comes before another in a block is what the verifier asks of every operand
(a value used before its definition) and of every in-place write (a read after it).  xDSL's
`Operation.is_before_in_block` walks the block from one op to the other; numbering the
block on each check is a walk of the whole block too: at 100k ops that walk, not the ops a
pass touched, was much of the cost of verifying after each pass.  MLIR keeps an order index in each
op (`Operation::isBeforeInBlock`), renumbering a block only when an insertion finds no room
between its neighbours; this is the same, beside the IR.

The block is numbered once (one walk, STRIDE apart), on the first question.  An op inserted
afterwards has no number until asked: it gets one between its nearest numbered neighbours
(the run of new ops between them spaced evenly, each numbered once), and when the gap is
too narrow the block is numbered again.  Whoever edits the block says which ops left it
(`forget`): a moved op then gets a number where it lands.  The pass manager's IR watch does
that for every op a pass detaches from the top-level block (pirc.passes.infra.ir_watch),
so the numbers outlive the passes of one pipeline run.  The numbers are kept by id alone (a
dict of ints, built in C from the walk: no tuple per op), and every op numbered since the
last walk is held until it is forgotten (`held`, `placed`): an op removed where nobody forgot
it cannot lend its id to a new one.  A caller that walks the block anyway hands its walk to
`number`, which then only builds the dict: the pipeline's first fingerprint, with the ops' ids
(pirc.passes.infra.fingerprint.Fingerprinter.walked), or its op index
(pirc.passes.infra.op_index).
"""

from __future__ import annotations

STRIDE = 1 << 32   # room for 32 halvings of one gap before the block is numbered again


class BlockOrder:
    """Numbers for the ops of `program.block` that grow in block order (module docstring)."""

    def __init__(self, program):
        self.program = program
        self.block = None          # the block numbered (a program may swap its block)
        self.keys: dict = {}       # id(op) -> number
        # The ops numbered since the last walk and not forgotten: the walk's at their
        # positions (None once forgotten), and those placed since, by id.
        self.held: list = []
        self.placed: dict = {}
        self.numberings = 0        # walks so far: a number read before the last one is void
        # Walks and placements so far.  While it stays the same from one moment on, every
        # op with a number had it before, and so was in the block all along (an op leaving
        # it is forgotten): what the incremental verifier asks of the ops a pass edited
        # (pirc.passes.infra.touched.Touched.respec).
        self.assigned = 0

    def sync(self) -> None:
        """Number the block if it never was or is another block now: before any `key`."""
        if self.program.block is not self.block:
            self.number()

    def number(self, ops: list | None = None, ids=None) -> None:
        """Number the whole block afresh, op i as i * STRIDE.  `ops`: the block's ops in
        order, from a walk the caller made (the list is kept, not copied); `ids`: their ids,
        in that order, when the caller has them made (`id` makes a new int per op: half the
        dict's cost at 100k ops)."""
        block = self.block = self.program.block
        if ops is None:
            ops = []
            op = block._first_op   # xDSL's links (pinned exactly), as the greedy driver walks
            while op is not None:
                ops.append(op)
                op = op._next_op
        keys = self.keys   # the same dict: a caller may hold it
        keys.clear()
        keys.update(zip(map(id, ops) if ids is None else ids, range(0, len(ops) * STRIDE, STRIDE)))
        self.held = ops
        self.placed = {}
        self.numberings += 1
        self.assigned += 1

    def key(self, op) -> int:
        """The number of `op`, which must be in the block (after `sync`).  Numbering a new op
        may number the whole block again (`numberings`), which voids the numbers read
        before."""
        number = self.keys.get(id(op))
        return number if number is not None else self._place(op)

    def position(self, number: int) -> int:
        """The position in the block of the op numbered `number` by the last walk (`number`
        read after it, with no edit of the block since)."""
        return number // STRIDE

    def forget(self, op) -> None:
        """`op` leaves the block (to be erased, or inserted elsewhere), and is no longer held
        (an op erased is freed)."""
        number = self.keys.pop(id(op), None)
        if number is None:
            return
        placed = self.placed
        if placed and placed.pop(id(op), None) is not None:
            return
        held, at = self.held, number // STRIDE
        if at < len(held) and held[at] is op:
            held[at] = None

    def _place(self, op) -> int:
        """Number `op` and the unnumbered ops around it, between their numbered neighbours."""
        keys = self.keys
        before = []
        low = op._prev_op
        while low is not None and id(low) not in keys:
            before.append(low)
            low = low._prev_op
        run = before[::-1]
        run.append(op)
        high = op._next_op
        while high is not None and id(high) not in keys:
            run.append(high)
            high = high._next_op
        n = len(run) + 1
        if low is None and high is None:
            self.number()   # no op of the block was numbered: nothing to keep
            return self.keys[id(op)]
        start = keys[id(low)] if low is not None else keys[id(high)] - n * STRIDE
        end = keys[id(high)] if high is not None else start + n * STRIDE
        step = (end - start) // n
        if step == 0:
            self.number()   # no room left between the neighbours
            return self.keys[id(op)]
        for i, new in enumerate(run, 1):
            keys[id(new)] = start + i * step
        self.placed.update(zip(map(id, run), run))
        self.assigned += 1
        return keys[id(op)]
