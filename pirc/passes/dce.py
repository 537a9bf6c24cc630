"""dce: remove ops whose results nobody uses and that have no effect besides them.

An op is removable when its effect (pirc.ir.effects, from dialects/effects.yaml) is `pure`
or `read`: feeds, fetches, parameters, random ops and control flow stay.
Removing an op can make its operands' producers dead too, so the block is walked from its
end, once, and nested regions before the op that holds them.

An in-place op is removed only when the alias model (pirc.ir.aliasing) says nobody can see
its write: its results are unused, it is in-place and nothing more (effects.yaml names no
other effect), it is outside any loop, and every buffer it changes is the program's own (each
name made by a pure or in-place op: no parameter, feed, block argument or region result) and
read by no op after it, under any name.  What a `to_tensor` constant leaves once its
readers are gone (`full` + `assign_value_`) goes that way; a write another name reads stays.

Only an op none of whose results is used can go, and a pipeline knows which ops may be such
(pirc.passes.infra.op_index, `OpIndex.unused`: those the program started with, and each op
added or left without a use since): in a program of one block, dce visits those, and each
producer an erasure leaves unused, in the order the walk would (from the block's end: the
pipeline's block order, pirc.ir.block_order, numbers them), not every op.  The same ops are
erased in the same order (tests/unit/test_dce_candidates.py holds the two paths equal).
Outside a pipeline with that index and order (--verify-each=full or none, a nested op), the
walk.
"""

from __future__ import annotations

from dataclasses import dataclass
from heapq import heapify, heappop, heappush
from itertools import chain, compress

from xdsl.ir import Operation, SSAValue
from xdsl.traits import (IsTerminator, MemoryEffect, MemoryEffectKind, MemoryReadEffect,
                         MemoryWriteEffect, NoMemoryEffect, SymbolOpInterface, get_effects)

from ..ir.aliasing import aliasing_of
from ..ir.effects import INPLACE_WRITE, effect_of, is_pure

from .infra.pass_base import PassContext, PircPass
from .infra.registry import register_pass
from .infra.rewrites import ANY_OP, OpUse


@register_pass
@dataclass(frozen=True)
class DeadCodeElimination(PircPass):
    """Removes ops that are pure (or only read) and whose results are unused."""

    name = "dce"
    version = 1
    invariants = ("verified", "no-dead-ops")
    conservative_safe = True
    may_rewrite_after = ("*",)
    rewrites = {ANY_OP: OpUse(ANY_OP, conservative=True)}

    def run(self, pc: PassContext) -> None:
        block = pc.program.block
        watch = pc.state.watch
        if watch is None or watch.index is None or watch.order is None:
            _block(block, pc)
            return
        candidates = watch.index.take_unused(block)
        if candidates is None:
            _block(block, pc)
            return
        kept = _candidates(block, *candidates, watch.order, pc)
        if watch.index.unused is not None:   # what stays unused is a later dce's candidate
            watch.index.unused.extend(kept)


def would_be_trivially_dead(op: Operation) -> bool:
    """Whether `op` would be dead if its results were unused: xDSL's own test
    (xdsl.transforms.dead_code_elimination.would_be_trivially_dead, after MLIR's
    wouldOpBeTriviallyDead), restated on xdsl.traits because importing that module imports
    xDSL's pattern rewriter and transform list, a tenth of what `-p default` adds to a small
    run.  A test holds the two equal on every op of the corpus."""
    if op.has_trait(IsTerminator, value_if_unregistered=False) or op.has_trait(
            SymbolOpInterface, value_if_unregistered=False):
        return False
    effects = get_effects(op)
    # unknown effects are observable ones; a read changes nothing, nor does allocating a
    # value the op itself (or an op inside it) defines
    return effects is not None and all(
        e.kind == MemoryEffectKind.READ
        or (e.kind == MemoryEffectKind.ALLOC and isinstance(v := e.value, SSAValue)
            and op.is_ancestor(v.owner))
        for e in effects)


# The effect traits whose effects are one constant set for every op (their class's
# `get_effects`): an op class whose every effect trait is one of these is dead-if-unused or
# not as a class, so the walk asks xDSL once per class (a fetch per program output, and the
# few other unused ops, would each cost a trait lookup and a set otherwise).
_CONSTANT_EFFECTS = frozenset(t.get_effects.__func__ for t in
                              (NoMemoryEffect, MemoryReadEffect, MemoryWriteEffect))
_DEAD_BY_CLASS: dict = {}   # op class -> would_be_trivially_dead, for such classes


def trivially_dead(op: Operation) -> bool:
    """`would_be_trivially_dead(op)`, remembered per op class where the class decides it."""
    cls = type(op)
    known = _DEAD_BY_CLASS.get(cls)
    if known is not None:
        return known
    answer = would_be_trivially_dead(op)
    traits = op.get_traits_of_type(MemoryEffect)
    if traits and all(type(t).get_effects.__func__ in _CONSTANT_EFFECTS for t in traits):
        _DEAD_BY_CLASS[cls] = answer
    return answer


def unseen_write(op, pc) -> bool:
    """Whether `op` is an in-place op whose write no one can see (module docstring).  The
    alias model (`pc.aliases`) is built only when an op gets that far."""
    spec = getattr(type(op), "spec", None)
    if (spec is None or op.regions or effect_of(spec) is not INPLACE_WRITE
            or any(r.first_use is not None for r in op.results)):
        return False
    aliases = pc.aliases
    if not aliases.knows_op(op) or aliases.loops_of(op):
        return False
    writes = aliasing_of(op, aliases.version).writes
    if not writes:
        return False
    at = aliases.order(op)
    for o in writes:
        if o >= len(op.operands) or not aliases.knows(op.operands[o]):
            return False
        for name in aliases.names(op.operands[o]):
            owner = name.owner
            if not isinstance(owner, Operation) or not (is_pure(owner) or _only_in_place(owner)):
                return False
            for use in name.uses:
                user = use.operation
                if user is not op and (not aliases.knows_op(user) or aliases.order(user) > at):
                    return False
    return True


def _only_in_place(op) -> bool:
    spec = getattr(type(op), "spec", None)
    return spec is not None and effect_of(spec) is INPLACE_WRITE


def _candidates(block, unused: list, new: list, order, pc: PassContext) -> list:
    """`_block` on a block without nested ops, visiting only the candidates (OpIndex.unused
    and .new: those in `block` none of whose results is used are taken) and the producers
    each erasure leaves unused, from the block's end as `_block` does (`order`, the
    pipeline's BlockOrder).  Returns the ops visited and kept."""
    order.sync()
    # An op of `unused` is in the block if it has a number (only ops added may have none):
    # most are ops erased since, whose memory is then not read.
    numbered = order.keys
    present = chain(compress(unused, map(numbered.__contains__, map(id, unused))),
                    (op for op in new if op.parent is block))
    seen: dict = {}   # id -> op: each op is visited once (the walk passes each op once)
    visit, kept = [], []
    for op in present:
        if id(op) not in seen:
            if _idle(op):   # the walk would do nothing with it: kept, not visited
                seen[id(op)] = op
                kept.append(op)
            elif _unused(op):
                seen[id(op)] = op
                visit.append(op)
    heap = _keyed(visit, order)
    numberings = order.numberings
    while heap:
        if order.numberings != numberings:   # numbered again: the keys read before are void
            heap = _keyed([entry[2] for entry in heap], order)
            numberings = order.numberings
        op = heappop(heap)[2]
        # As _block's walk reaches it: unused (no op after it gains a use), in the block
        if trivially_dead(op) or unseen_write(op, pc):
            pc.matched()
            rewrite = pc.begin([op])
            if rewrite is not None:
                operands = op._operands   # xDSL's tuple (pinned), emptied by the erasure
                block.erase_op(op, safe_erase=False)
                rewrite.done()
                # a producer left unused comes before `op`: the walk would reach it later
                for value in operands:
                    producer = getattr(value, "op", None)   # a block argument has none
                    if (producer is not None and id(producer) not in seen
                            and producer.parent is block and _unused(producer)):
                        seen[id(producer)] = producer
                        if _idle(producer):
                            kept.append(producer)
                        else:
                            heappush(heap, (-order.key(producer), id(producer), producer))
                continue
        kept.append(op)
    return kept


_IDLE: dict = {}   # op class -> whether dce leaves every op of it alone, used or not


def _idle(op) -> bool:
    """Whether the class of `op` decides that dce keeps it (not trivially dead as a class,
    and not an in-place op whose write may go unseen): a fetch, one per program output.  The
    walk asks the gate nothing about such an op, so the candidates skip it without reading
    its results."""
    cls = type(op)
    idle = _IDLE.get(cls)
    if idle is None:
        trivially_dead(op)   # decides the class, where the class decides
        idle = _IDLE[cls] = _DEAD_BY_CLASS.get(cls) is False and not _only_in_place(op)
    return idle


def _keyed(ops, order) -> list:
    """A heap of `ops` (of the block `order` numbers) from the block's end: (-number, id,
    op); numbered again as long as numbering an op numbers the block again."""
    while True:
        numberings = order.numberings
        heap = [(-order.key(op), id(op), op) for op in ops]
        if order.numberings == numberings:
            heapify(heap)
            return heap


def _unused(op) -> bool:
    for result in op.results:
        if result.first_use is not None:
            return False
    return True


def _block(block, pc: PassContext) -> None:
    # xDSL's links read directly (`_last_op`, `_prev_op`; xDSL is pinned exactly): the
    # properties cost a call per op of the program, most of which are used and stay.
    op = block._last_op
    while op is not None:
        previous = op._prev_op
        if op.regions:
            for region in op.regions:
                for inner in region.blocks:
                    _block(inner, pc)
        for result in op.results:
            if result.first_use is not None:
                break   # used: stays
        else:
            if trivially_dead(op) or unseen_write(op, pc):
                pc.matched()
                rewrite = pc.begin([op])
                if rewrite is not None:
                    block.erase_op(op, safe_erase=False)
                    rewrite.done()
        op = previous
