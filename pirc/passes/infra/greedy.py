"""The greedy pattern driver: apply rewrite patterns until none fires, or fail loudly.

A pattern is one small class: the op name it roots at (`root`) and `match_and_rewrite(op,
pc)`, which either leaves the IR alone and returns None, or rewrites it (through the gate:
`rewrite = pc.begin(ops)`, mutate, `rewrite.done(produced)`) and returns the ops to look at
again (the ops it made, and the users of the values it replaced; `replace_op` gives them).

The driver works in rounds.  The first round visits every op of the program (nested regions
too) whose name some pattern roots at, in print order, so a chain folds in one round: a
producer is rewritten before its users are visited (the list comes from the pipeline's op
index while its walk is the program's: pirc.passes.infra.op_index).  A pattern may declare a
`probe`, the producer its root's operand must come from, which the driver tests before the
call: most candidates of const-fold, and of the rules for pairs of ops, fail there.  When
every candidate's patterns have probes, the driver first asks the producers the probes name
(listed by the op index) whether an op of theirs feeds one where a probe looks
(`_none_probed`): at const-fold on a program with nothing to fold, none does, and the round
reads no candidate at all.  Each later round visits only the ops
the previous one handed back that it had already passed (or made).  The program has converged when a round rewrites nothing.
When round `max_iterations` still rewrote something and left ops to look at, the patterns
have not converged (two undo each other, or one keeps growing the program) and the driver
raises `NonConvergenceError` naming the pattern that kept firing: MLIR's and Paddle's
drivers stop at their cap and carry on with a half-rewritten program; here that is an error.

Why not xDSL's `PatternRewriteWalker`: it offers every pattern every op (this driver looks
patterns up by op name in a dict, so ops no pattern roots at cost one dict miss), it has no
iteration cap, and the gate (`pc.begin`) would still have to be called by each pattern.  The
patterns mutate the IR with xDSL's own primitives (`replace_all_uses_with`,
`Block.insert_op_before`, `Block.erase_op`), or with `replace_op` and `erase` here, which make
the same edits through xDSL's links (a forward costs a few edits, not a few views).
"""

from __future__ import annotations

from collections import Counter
from typing import ClassVar, Iterable

from ...errors import PircError
from ...ir.builder import gc_paused
from ...ir.effects import is_pure
from .ir_edits import erase, move_uses, unused
from .ir_watch import forward_top_level

DEFAULT_MAX_ITERATIONS = 10


class NonConvergenceError(PircError):
    """Patterns still rewrote the program in the last round the cap allows."""

    def __init__(self, message: str, pattern: str, fired: int, iterations: int):
        super().__init__(message)
        self.pattern = pattern
        self.fired = fired          # how often it fired, all rounds together
        self.iterations = iterations


class Pattern:
    """One rewrite rooted at ops named `root`: subclass, set `root`, define
    `match_and_rewrite`.  A pattern holds no state between calls."""

    root: ClassVar[str]
    # How many operands the root must have (None: any).  A program read without the
    # verifier may hold a malformed op; the driver offers it to no pattern that would index
    # past its operands.
    operands: ClassVar[int | None] = None
    # A producer the root's operand must come from, or None: (operand index, the names of
    # the ops that may make it, the result index it must be or None).  The driver tests it
    # before calling `match_and_rewrite`, which must then leave an op that fails it alone
    # (return None, having changed nothing): most candidates of const-fold, and of the rules
    # for pairs of ops, fail there, and a call costs more than the test.
    probe: ClassVar[tuple | None] = None
    # A test of the root op alone, or None: the driver skips an op it answers False for,
    # and `match_and_rewrite` must then leave that op alone (no rewrite, nothing recorded):
    # cheaper than the call where most candidates fail there (canonicalize's identity
    # transposes and reshapes, pirc.passes.infra.declarative._screen).
    screen: ClassVar[object] = None

    @property
    def name(self) -> str:
        return type(self).__name__

    def match_and_rewrite(self, op, pc) -> list | None:
        """Rewrite `op` if the pattern applies: None when it did not (no match, or the
        gate refused), else the ops to look at again."""
        raise NotImplementedError


def replace_op(op, values, inputs=()) -> list:
    """Replace the first results of `op` by `values` (the others must be unused), erase
    `op`, and return the ops whose operands changed (to look at again).

    `inputs`: ops the rewrite matched besides `op` (a scale's `full` factor); each one the
    rewrite left pure and unused is erased too, as MLIR's greedy driver erases the ops a
    rewrite leaves dead.  Only matched ops: the gate has seen them, and dce keeps the rest."""
    users: list = []
    if len(values) == 1 and forward_top_level(op, values[0], users, inputs):   # at once
        return users
    results = op.results
    for result, value in zip(results, values):
        move_uses(result, value, users)
    # the tuple's own slice: xDSL's `SSAValues.__getitem__` is a Python method
    for rest in tuple.__getitem__(results, slice(len(values), None)):
        assert rest.first_use is None, op.name
    erase(op)
    for dead in inputs:
        if dead.parent is not None and is_pure(dead) and unused(dead):
            erase(dead)
    return users


def _collect(block, names, out: list) -> None:
    """The ops of `block` (nested regions too) named in `names`, in print order.  Reads
    xDSL's links directly (`_first_op`, `_next_op`; xDSL is pinned exactly): its `walk()` and
    `next_op` property cost more than the dispatch itself on a 100k-op program."""
    op = block._first_op
    while op is not None:
        if op.name in names:
            out.append(op)
        if op.regions:
            for region in op.regions:
                for inner in region.blocks:
                    _collect(inner, names, out)
        op = op._next_op


def _candidates(pc, names) -> list:
    """The ops of the program named in `names`, in print order: `_collect`'s, or the same
    list from the walk that built the pipeline's op index, while that walk is the program's
    (pirc.passes.infra.op_index: a program of one block, no op added since), which spares
    a walk of every op."""
    block = pc.program.block
    watch = pc.state.watch
    index = watch.index if watch is not None else None
    found = index.ordered(block, names) if index is not None else None
    if found is None:
        found = []
        _collect(block, names, found)
    return found


def _probed(op, probe) -> bool:
    """Whether `op` passes a pattern's `probe` (its operand made by an op it names)."""
    index, makers, result = probe
    operands = op._operands   # xDSL's tuple (pinned): `op.operands` makes a view
    if len(operands) <= index:
        return False
    value = _item(operands, index)
    owner = getattr(value, "op", None)   # a block argument has none
    return owner is not None and owner.name in makers and (result is None or value.index == result)


_item = tuple.__getitem__   # an operand tuple's item (xDSL's `SSAValues.__getitem__` is Python)


def _none_probed(pc, dispatch) -> bool:
    """Whether no op of the program passes a probe of `dispatch` and no op is offered to a
    pattern without one, told from the producers' side: the ops the probes name (a fold's
    constants, listed by the op index) and their results' uses, instead of each candidate's
    operand and its producer (at 100k ops, reading 26k candidates and their producers is
    most of a pass that rewrites nothing; the 23k constants' uses cost less, and spare the
    candidates' list).  A use passes a probe if its operand index, its producer's
    name and its result index are the probe's and its op is one the probe's pattern roots
    at: each op that passes a probe is found so.  False when unsure (the program is not the
    op index's walk, a pattern without a probe roots at ops the program holds) or when an
    op passes: the driver then tests each candidate, as always."""
    watch = pc.state.watch
    index = watch.index if watch is not None else None
    if index is None:
        return False
    probes: dict = {}   # root name -> its patterns' probes, for the roots the program holds
    counts = index.counts
    for root, entries in dispatch.items():
        # A root the program holds no op of: none passes its probes, none is offered.  Its
        # probes are not asked: an operand index only they test would make every use there
        # read its op (const-fold's full_like tests operand 1, which most constants feed).
        if counts.get(root, 0) <= 0:
            continue
        probed = [entry[2] for entry in entries]   # (pattern, operands, probe, screen, call)
        if None in probed:
            return False
        probes[root] = probed
    makers = frozenset().union(*(probe[1] for found in probes.values() for probe in found))
    block = pc.program.block
    found = index.named(block, makers)   # those removed since the walk too: told apart below
    if found is None:
        return False
    wanted = {i for found in probes.values() for i, _, _ in found}   # the operand indices
    name_of = _NameOf()
    for maker in found:
        if maker.parent is not block:   # removed since the walk
            continue
        for result in maker.results:
            use = result.first_use
            while use is not None:
                # an operand index no probe tests: its op is not read
                if use._index in wanted:
                    for i, names, at in probes.get(name_of(use._operation), ()):
                        if (i == use._index and name_of(maker) in names
                                and (at is None or at == result.index)):
                            return False
                use = use._next_use
    return True


class _NameOf(dict):
    """op -> its name, read from its class once per class when the class holds it (pirc's
    ops: one class per name, none renamed per instance; an op's class is in its header, its
    name in its dict, a memory read more per op); else from the op."""

    def __call__(self, op):
        kind = type(op)
        name = self.get(kind)
        if name is None:
            name = kind.__dict__.get("name") if "name" in kind.__dict__ else None
            if not isinstance(name, str):
                return op.name
            self[kind] = name
        return name


def _first_places(work: list) -> dict:
    """id(op) -> the first place of op in `work`."""
    return {id(op): i for i, op in reversed(list(enumerate(work)))}


def apply_patterns(pc, patterns: Iterable[Pattern], max_iterations: int = DEFAULT_MAX_ITERATIONS,
                   what: str | None = None) -> int:
    """Apply `patterns` to `pc.program` until none fires; returns the rounds it took.
    `what` names the rewrite in the error (the pass name by default)."""
    if max_iterations < 1:
        raise PircError(f"{what or pc.pass_name}: max-iterations must be at least 1, "
                        f"got {max_iterations}")
    by_root: dict[str, list[Pattern]] = {}
    for p in patterns:
        by_root.setdefault(p.root, []).append(p)
    with gc_paused():  # the walk and the rewrites make few objects: no collections meanwhile
        return _apply(pc, by_root, max_iterations, what)


def _apply(pc, by_root: dict, max_iterations: int, what: str | None) -> int:
    # per root name: each pattern, the operand count it needs (or None), its probe (or
    # None), its screen (or None), its bound method
    dispatch = {name: [(p, p.operands, p.probe, p.screen, p.match_and_rewrite) for p in patterns]
                for name, patterns in by_root.items()}
    # No candidate passes its probe (nothing to do): the round visits none of them.
    work = [] if _none_probed(pc, dispatch) else _candidates(pc, by_root)
    total: Counter = Counter()
    walked = True   # this round's list is the walk's: each op once, in print order
    for iteration in range(1, max_iterations + 1):
        fired: Counter = Counter()
        again: list = []
        # Each op's first place in this round's list (an op handed back twice is visited
        # once, there): it was visited if that place is at or before the op being visited,
        # and is still ahead if after it.  The list holds the ops, so no id is reused.  The
        # walk's list has no repeats: its places are needed only once something is rewritten.
        first = None if walked else _first_places(work)
        for i, op in enumerate(work):
            if op.parent is None or (not walked and first[id(op)] != i):   # erased, or a repeat
                continue
            for p, operands, probe, screen, match_and_rewrite in dispatch[op.name]:
                if operands is not None and len(op._operands) != operands:   # no view made
                    continue
                if probe is not None and not _probed(op, probe):
                    continue
                if screen is not None and not screen(op):
                    continue
                touched = match_and_rewrite(op, pc)
                if touched is not None:
                    fired[p.name] += 1
                    # An op still ahead in this round is visited anyway; one behind it (or
                    # new) waits for the next round.  Most rewrites hand back no op a
                    # pattern roots at (a forward's users): the places are made at the first
                    # one that does.
                    for o in touched:
                        if o.name in by_root:
                            if first is None:
                                first = _first_places(work)
                            if first.get(id(o), i) <= i:
                                again.append(o)
                    break
        total.update(fired)
        if not fired or not again:
            return iteration
        work, walked = again, False
    name, count = sorted(fired.items(), key=lambda item: (-item[1], item[0]))[0]
    raise NonConvergenceError(
        f"{what or pc.pass_name} did not converge in {max_iterations} iterations: pattern "
        f"{name} still fired {count} times in the last one ({total[name]} in all); patterns "
        f"that undo each other or keep growing the program are a bug in the pass; a deep "
        f"program may need a larger max-iterations",
        name, total[name], max_iterations)
