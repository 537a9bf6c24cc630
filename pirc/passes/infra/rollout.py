"""Rollout states: whether a pass runs on a program.

Every pass is `enabled` unless a rollout file (`--rollout=FILE` or `PIRC_ROLLOUT=FILE`) says
otherwise; the kill switch (`PIRC_DISABLE_PASSES`, pirc.passes.infra.kill_switch) overrides
both.  Passes a correct program needs (`correctness = True`) always run.  Read for each
program, so a long-running process sees a change on its next program.
"""

from __future__ import annotations

from dataclasses import dataclass

from .kill_switch import ENV as KILL_SWITCH
from .kill_switch import disabled_passes

ENABLED = "enabled"


@dataclass(frozen=True)
class Decision:
    state: str              # disabled | allowlist | canary | enabled
    runs: bool
    reason: str | None = None   # why it does not run


class Rollout:
    """The states for one program; `fingerprint` is called only when a state needs it."""

    def __init__(self, program_name: str | None, fingerprint, rollout_file: str | None = None):
        self.program_name = program_name
        self.fingerprint = fingerprint
        self.disabled = disabled_passes()

    def decide(self, cls) -> Decision:
        if cls.correctness:
            return Decision(ENABLED, True)
        if cls.name in self.disabled:
            return Decision("disabled", False, f"rollout: disabled by {KILL_SWITCH}")
        return Decision(ENABLED, True)
