"""cse: replace a pure op by an identical earlier one in the same block or an enclosing one.

Two ops are identical when they are the same op class (so the same PIR op at the same spec
revision), take the same values, and carry equal attributes, properties and result types
(pirc.passes.infra.op_keys).  Only `pure` ops (dialects/effects.yaml) are merged: random ops,
reads of state and anything with an effect never are.  The later op's uses move to the
earlier op's results and the later op goes; an op in a region may reuse a value computed
before the op that holds the region, not the other way round.

In-place writes (the alias model, pirc.ir.aliasing): a value whose buffer is written in
place is never merged (both names would then be one buffer, written once for two), and two
ops are not merged across a write of an operand's buffer (the later one reads new values).
"""

from __future__ import annotations

from dataclasses import dataclass

from .infra.ir_edits import move_uses
from .infra.ir_watch import merge_top_level
from .infra.op_keys import OpKeys, alias_model, common_subexpressions
from .infra.pass_base import PassContext, PircPass
from .infra.registry import register_pass
from .infra.rewrites import ANY_OP, OpUse


@register_pass
@dataclass(frozen=True)
class CommonSubexpressionElimination(PircPass):
    """Merges identical pure ops, keeping the first."""

    name = "cse"
    version = 1
    invariants = ("verified", "no-common-subexpressions")
    conservative_safe = True
    may_rewrite_after = ("*",)
    # Merging two identical ops reads neither's numerics: any op, any semantic version.
    rewrites = {ANY_OP: OpUse(ANY_OP, conservative=True)}

    def run(self, pc: PassContext) -> None:
        watch = pc.state.watch
        # built only when an op writes in place; the op index may say none does
        aliases = alias_model(pc.program, watch.index if watch is not None else None)
        begin, matched = pc.begin, 0
        # the static keys the program fingerprint kept, for ops no rewrite touched since
        keys = OpKeys(pc.state.kept_statics())
        for op, earlier in common_subexpressions(pc.program.block, keys, aliases):
            matched += 1
            rewrite = begin((op,))
            if rewrite is None:
                continue
            # made and recorded in one step where each edit would take the IR watch's fast
            # path (a constant read by top-level ops: nearly every merge), else edit by edit
            if not merge_top_level(op, earlier):
                _merge(op, earlier)
            rewrite.done()
        pc.matched(matched)  # each pair found is a match, merged or skipped


def _merge(op, earlier) -> None:
    """Move the uses of `op`'s results to `earlier`'s and take `op` out: what xDSL's
    `replace_all_uses_with` and `erase_op` do, edit for edit (the same `remove_use`,
    `add_use` and `detach_op`, in the same order, which the IR watch sees; xDSL is pinned
    exactly), without the operand view each use builds there and the `ErasedSSAValue`
    each erased result gets to hold uses it no longer has."""
    for new, old in zip(op.results, earlier.results):
        move_uses(new, old)
    op.parent.detach_op(op)
    if op._operands:  # a merged op has no regions or successors: only operands to drop
        op.drop_all_references()
