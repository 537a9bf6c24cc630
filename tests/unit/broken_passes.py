"""Deliberately broken passes the pass-manager tests run (registered on import)."""

from __future__ import annotations

from dataclasses import dataclass

from pirc.ir.builder import append_op
from pirc.ir.registry import op_class
from pirc.passes import PircPass, register_pass
from pirc.passes.infra.rewrites import OpUse


@register_pass
@dataclass(frozen=True)
class BreaksVerifier(PircPass):
    """Drops the add's second operand: the program no longer verifies."""

    name = "test-breaks-verifier"

    def run(self, pc):
        add = next(op for op in pc.program.block.ops if op.name == "pd_op.add")
        add.operands = [add.operands[0]]
        pc.rewrote()


@register_pass
@dataclass(frozen=True)
class UsesALaterValue(PircPass):
    """Makes the first tanh read the add's result, defined after it: a use before its
    definition, which only the op the pass touched shows."""

    name = "test-uses-later-value"

    def run(self, pc):
        ops = list(pc.program.block.ops)
        tanh = next(op for op in ops if op.name == "pd_op.tanh")
        add = next(op for op in ops if op.name == "pd_op.add")
        tanh.operands = [add.results[0]]
        pc.rewrote()


@register_pass
@dataclass(frozen=True)
class ErasesAUsedOp(PircPass):
    """Erases the relu's producer, the data op, though relu and both tanh ops still read it."""

    name = "test-erases-used-op"

    def run(self, pc):
        data = next(op for op in pc.program.block.ops if op.name == "pd_op.data")
        pc.program.block.detach_op(data)
        pc.rewrote()


@register_pass
@dataclass(frozen=True)
class MiscomputesKthAdd(PircPass):
    """Rebuilds each pd_op.add as an equal new op, except the k-th, which becomes a subtract.

    Every rebuild goes through the rewrite gate, so bisection sees k rewrites that keep the
    outputs and then the one that does not: pirc.testing.bisect must name rewrite k."""

    name = "test-miscompute"
    rewrites = {"pd_op.add": OpUse((1,))}
    k: int = 1

    def run(self, pc):
        count = 0
        for op in list(pc.program.block.ops):
            if op.name != "pd_op.add":
                continue
            pc.matched()
            rewrite = pc.begin([op])
            if rewrite is None:
                continue
            count += 1
            rewrite.done([replace_op(op, "pd_op.subtract" if count == self.k else "pd_op.add", pc.version)])


def replace_op(op, name: str, version: int):
    """Put a new op named `name`, with `op`'s operands, attributes and result type, in its
    place; the new op."""
    new = append_op(op_class(name, version), list(op.operands), [r.type for r in op.results],
                    dict(op.attributes), None)
    op.parent.insert_op_before(new, op)
    op.results[0].replace_all_uses_with(new.results[0])
    op.parent.erase_op(op, safe_erase=False)
    return new
