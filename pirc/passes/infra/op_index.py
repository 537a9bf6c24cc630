"""How many ops of each name a program holds, kept current while a pipeline runs.

A pass declares the ops it can start from (`PircPass.ops_of_interest`: a declarative pass's
rules' root ops, const-fold's folding rules, conv-bn-fold's batch norms); when none of them
is in the program, the manager does not run it: the pass has nothing to do, so its report
is the one it would have written (no match, no rewrite) and it costs one dict lookup per
name instead of a walk of the program.  MLIR's greedy driver pays a walk for every pattern
set; at 100k ops and a dozen passes the walks are the cost.

The index is built by one walk when the pipeline first needs it (the same walk that counted
the ops for the first pass's report: `total` is `Program.op_count()`), or from the walk the
program's first fingerprint made, which the manager hands over when no op holds regions
(pirc.passes.infra.fingerprint.Fingerprinter.walked: the top-level block's ops and names,
read before any pass ran), and then kept current
by the manager's IR watch (pirc.passes.infra.ir_watch): every op attached to or detached from
a block of the program, and every block attached to or detached from one of its regions,
passes through the xDSL primitives the watch wraps, and is counted here with the ops nested
in it.  What the watch cannot see cannot be counted: an op renamed in place (only a
correctness pass, upgrade, rewrites ops that way) or blocks moved with `Region.move_blocks`;
the manager rebuilds the index after a correctness pass or an edit outside the rewrite gate,
and `--verify-each=full` compares it with a fresh count after every pass.

The walk's ops are kept too, for a program whose ops all lie in its top-level block (the
benchmark's, most exported models): while no op is added to the program, the ops of a name
that the walk found and that are still in the block are the block's, in order (`ordered`),
so the greedy driver starts its first round from them instead of from a walk of every op
(pirc.passes.infra.greedy; at 100k ops that walk is a tenth of canonicalize and a third of
const-fold).  The watch tells the index of each op added, inline count or not (`added`).

And for such a program the index keeps dce's candidates (pirc.passes.dce): every op that
may have no used result.  An op has none when the pipeline starts (`unused`: the program
fingerprint's first look, which reads every op's results anyway, notes those ops; a walk of
its own would read every op's memory again, as much as dce's walk), or when a value of it
lost its last use since (`unused` too: the watch's `remove_use`), or when it was added since
(`new`: the watch tells of each op added).  Nothing else takes a use away: dce then visits
these ops, not every op of the program.  The ops added are kept apart: they are the only
ones the pipeline's block order (pirc.ir.block_order) may not number, so an op of `unused`
is in the block if and only if it has a number, which dce reads without reading the op (most
of `unused` are ops erased since).  An op with regions added or removed, or a block, and the
index no longer vouches (both None): dce walks the program.
"""

from __future__ import annotations

from collections import Counter
from itertools import compress


class OpIndex:
    """Op-name counts of one program (its module's body, nested regions included)."""

    def __init__(self, program, walk: tuple | None = None, unused: list | None = None):
        """`walk`: the ops of `program.block` in order and their names, from a walk made
        since the last edit, none of them holding regions; the index counts from it instead
        of walking the block (and hands its ops out to no one: `top_level` is None, the
        walk's maker has them).  `unused`: the ops of the program's block none of whose
        results has a use now (Fingerprinter.walked), or None."""
        self.counts: dict[str, int] = {}
        self.total = 0
        self._block = program.block
        # dce's candidates (module docstring): ops that may have no used result, or None
        self.unused: list | None = None
        self.new: list | None = None   # and the ops added since
        self._walk = None   # (block, its ops in order) from the walk below, until an edit
        # (block, its ops, their names, the total then) from the walk below, for a program
        # whose ops are all in its top-level block, until an op is added (`ordered`)
        self._flat = None
        flat = None
        top = program.block
        for region in program.module.regions:
            for block in region.blocks:
                if block is not top:
                    self.block(block, 1)
                    continue
                if walk is None:
                    ops: list = []
                    names = self.block(block, 1, ops)
                    self._walk = (block, ops)
                else:   # handed over: its ops are the maker's to hand out
                    ops, names = walk
                    self.count(names, 1)
                flat = (block, list(ops), names)   # a copy: the block order edits `ops`
        if flat is not None and len(flat[1]) == self.total:   # no op nested or elsewhere
            self._flat = flat + (self.total,)
            if unused is not None:
                self.unused, self.new = unused, []

    def top_level(self, block) -> list | None:
        """The ops of `block` (the program's top-level block) in order, as the walk that built
        the index found them; handed out once (the pipeline's block order numbers them as
        its first pass begins, before any edit: pirc.ir.block_order), and None once an op
        was counted in or out through `op` or `block` (the IR watch's inline count of an op
        without regions does not say so: the walk is asked for before it counts)."""
        walk, self._walk = self._walk, None
        return walk[1] if walk is not None and walk[0] is block else None

    def ordered(self, block, names) -> list | None:
        """The ops of `block` named in `names`, in order, from the walk that built the index
        (names read then: only a correctness pass renames an op, and the index is built again
        after one); None when that walk is not the program's any more.  It is while no op
        was added to a block of the program (an op moved is added where it lands) and no
        block was added or removed, and the program held no op but in `block`: the walk's
        ops still in `block` (an op removed from it has no parent, or another) are then its
        ops, in the walk's order."""
        found = self.named(block, names)
        if found is not None and self.total != self._flat[3]:
            # ops removed since the walk (none was added): those still in it
            found = [op for op in found if op.parent is block]
        return found

    def named(self, block, names) -> list | None:
        """`ordered`'s ops and those of them removed since the walk (`op.parent is not
        block`), for a caller that reads each op anyway and can tell them apart there: at
        100k ops, reading an op twice costs more than the test."""
        flat = self._flat
        if flat is None or flat[0] is not block:
            return None
        _, ops, op_names, _ = flat
        # The places of the ops named, then those ops: an op not named is never read (at
        # 100k ops, reading each one costs more than the rest).
        return list(map(ops.__getitem__, compress(range(len(ops)), map(names.__contains__, op_names))))

    def walked(self, block) -> list | None:
        """The ops the walk that built the index found in `block` (the program's top-level
        block), those removed since included, while that walk is the program's (`ordered`
        says when): each op of the program is one of them.  None when it is not."""
        flat = self._flat
        return flat[1] if flat is not None and flat[0] is block else None

    def added(self, op) -> None:
        """`op`, without regions, was added to a block of the program: the walk is not its
        ops any more, and `op` may be unused."""
        self._flat = None
        if self.new is not None:
            self.new.append(op)

    def lost_use(self, op) -> None:
        """A value of `op` lost its last use: `op` may be unused now."""
        if self.unused is not None:
            self.unused.append(op)

    def take_unused(self, block) -> tuple | None:
        """dce's candidates in `block`, (`unused`, `new`), handed out (fresh lists collect
        from now on), or None when the index does not vouch for them (module docstring)."""
        if self.unused is None or self._block is not block:
            return None
        taken = self.unused, self.new
        self.unused, self.new = [], []
        return taken

    def has_any(self, names) -> bool:
        """Whether an op of one of `names` is in the program."""
        counts = self.counts
        return any(counts.get(name, 0) > 0 for name in names)

    def op(self, op, sign: int) -> None:
        """Count `op` and the ops nested in it in (`sign` 1) or out (-1)."""
        counts = self.counts
        name = op.name
        counts[name] = counts.get(name, 0) + sign
        self.total += sign
        self._walk = None
        if sign > 0 or op.regions:   # added, or its nested ops left with it
            self._flat = None
        if op.regions:
            self.unused = self.new = None
        elif sign > 0 and self.new is not None:
            self.new.append(op)
        for region in op.regions:
            for block in region.blocks:
                self.block(block, sign)

    def block(self, block, sign: int, walk: list | None = None) -> list:
        """Count the ops of `block` (nested ones included) in or out: their names gathered
        in one walk, counted in C (Counter), a third cheaper at 100k ops than counting op
        by op.  `walk`: a list to append the block's own ops to, in order.  Returns the
        names, in walk order."""
        names: list = []
        _names(block, names, walk)
        self.count(names, sign)
        return names

    def count(self, names: list, sign: int) -> None:
        """Count ops of `names` (one name per op) in or out, in C (Counter)."""
        self._walk = self._flat = self.unused = self.new = None
        counts = self.counts
        for name, n in Counter(names).items():
            counts[name] = counts.get(name, 0) + sign * n
        self.total += sign * len(names)

    def names(self) -> list[str]:
        """The names of the ops the program holds."""
        return [name for name, count in self.counts.items() if count > 0]

    def mismatch(self, program) -> str | None:
        """How this index differs from a fresh count of `program`, or None when it does not."""
        fresh = OpIndex(program)
        mine = {k: v for k, v in self.counts.items() if v}
        theirs = {k: v for k, v in fresh.counts.items() if v}
        if mine == theirs:
            return None
        names = sorted(set(mine) | set(theirs), key=lambda n: (mine.get(n, 0) == theirs.get(n, 0), n))
        shown = ", ".join(f"{n} {mine.get(n, 0)} (program: {theirs.get(n, 0)})" for n in names[:3]
                          if mine.get(n, 0) != theirs.get(n, 0))
        return f"the op index counts {shown}"


def _names(block, out: list, ops: list | None = None) -> None:
    """The names of the ops of `block` (nested ones included) appended to `out`, and the
    block's own ops to `ops` (if given).  Reads xDSL's links directly (`_first_op`,
    `_next_op`; xDSL is pinned exactly), as the greedy driver's walk does."""
    append = out.append
    keep = ops.append if ops is not None else None
    op = block._first_op
    while op is not None:
        append(op.name)
        if keep is not None:
            keep(op)
        if op.regions:
            for region in op.regions:
                for inner in region.blocks:
                    _names(inner, out)
        op = op._next_op
