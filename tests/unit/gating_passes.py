"""Test passes for the rewrite gate (registered on import): a cast rewriter written for one
semantic version of cast, and two relu passes for rewrite-twice protection."""

from __future__ import annotations

from dataclasses import dataclass

from pirc.passes import PircPass, register_pass
from pirc.passes.infra.rewrites import OpUse


@register_pass
@dataclass(frozen=True)
class CastRewriterForV3(PircPass):
    """Touches every pd_op.cast; written for cast's semantic version 3 only (its registry
    entry from PIR version 3 on), so older programs' casts are skipped."""

    name = "test-cast-v3"
    rewrites = {"pd_op.cast": OpUse((3,), conservative=False)}
    conservative_safe = True

    def run(self, pc):
        for op in list(pc.program.walk()):
            if op.name == "pd_op.cast":
                pc.matched()
                rewrite = pc.begin([op])
                if rewrite is not None:
                    rewrite.done([op])


def _replace_with_clone(op):
    clone = op.clone()
    op.parent.insert_op_before(clone, op)
    for old, new in zip(op.results, clone.results):
        old.replace_all_uses_with(new)
    op.parent.erase_op(op)
    return clone


@register_pass
@dataclass(frozen=True)
class ProducesRelu(PircPass):
    """Replaces each relu with a fresh one (so the new relu is this pass's output)."""

    name = "test-produces-relu"
    rewrites = {"pd_op.relu": OpUse((1,))}

    def run(self, pc):
        for op in [o for o in pc.program.block.ops if o.name == "pd_op.relu"]:
            rewrite = pc.begin([op])
            if rewrite is not None:
                rewrite.done([_replace_with_clone(op)])


@register_pass
@dataclass(frozen=True)
class RewritesRelu(ProducesRelu):
    """Rewrites relu again, without declaring test-produces-relu in may_rewrite_after."""

    name = "test-rewrites-relu"


@register_pass
@dataclass(frozen=True)
class RewritesReluAfter(RewritesRelu):
    """The same, declaring that it may rewrite test-produces-relu's output."""

    name = "test-rewrites-relu-after"
    may_rewrite_after = ("test-produces-relu",)
