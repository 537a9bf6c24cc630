"""Deliberately broken passes the pass-manager tests run (registered on import)."""

from __future__ import annotations

from dataclasses import dataclass

from pirc.passes import PircPass, register_pass


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
