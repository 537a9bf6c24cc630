"""dce: remove ops whose results nobody uses and that have no effect besides them.

An op is removable when its effect (pirc.ir.effects, from dialects/effects.yaml) is `pure`
or `read`: feeds, fetches, parameters, in-place updates, random ops and control flow stay.
Removing an op can make its operands' producers dead too, so the block is walked from its
end, once, and nested regions before the op that holds them.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.transforms.dead_code_elimination import would_be_trivially_dead

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
        _block(pc.program.block, pc)


def _block(block, pc: PassContext) -> None:
    op = block.last_op
    while op is not None:
        previous = op.prev_op
        for region in op.regions:
            for inner in region.blocks:
                _block(inner, pc)
        if all(r.first_use is None for r in op.results) and would_be_trivially_dead(op):
            pc.matched()
            rewrite = pc.begin([op])
            if rewrite is not None:
                block.erase_op(op, safe_erase=False)
                rewrite.done()
        op = previous
