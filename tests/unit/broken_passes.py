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
