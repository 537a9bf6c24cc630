"""Rollout states: whether a pass runs on a program.

Each pass has a state (pirc.passes.infra.rollout_file reads them from YAML):

* `enabled` (every pass the file does not name): it runs;
* `disabled`: it does not;
* `allowlist`: it runs on the programs listed, by name (a file's stem) or by the program's
  `pfp1:` fingerprint as it entered the pipeline;
* `canary`: it runs on a deterministic fraction of programs: those whose bucket,
  `int(sha256(f"{pass}@{version}:{fingerprint}").hexdigest()[:16], 16) / 2**64`, is below
  the fraction.  The bucket depends on the program alone (no clock, no host, no order), so
  a program is in a canary on every machine or on none, and a new pass version reshuffles
  which programs are.

The file is `--rollout=FILE` (run_pipeline's `rollout=`), else `PIRC_ROLLOUT=FILE`; the
kill switch (`PIRC_DISABLE_PASSES`, pirc.passes.infra.kill_switch) overrides both.  Passes a
correct program needs (`correctness = True`) always run.  Everything is read again for each
program, so a long-running process sees a changed file or variable on its next program.
"""

from __future__ import annotations

import hashlib
import os
from typing import NamedTuple

from .kill_switch import ENV as KILL_SWITCH
from .kill_switch import disabled_passes

ENV = "PIRC_ROLLOUT"
DISABLED, ALLOWLIST, CANARY, ENABLED = "disabled", "allowlist", "canary", "enabled"
STATES = (DISABLED, ALLOWLIST, CANARY, ENABLED)


class Decision(NamedTuple):  # not a frozen dataclass: several times cheaper to create at import
    state: str              # disabled | allowlist | canary | enabled
    runs: bool
    reason: str | None = None   # why it does not run


def bucket(pass_name: str, pass_version: int, fingerprint: str) -> float:
    """Where a program falls in [0, 1) for a pass's canary."""
    digest = hashlib.sha256(f"{pass_name}@{pass_version}:{fingerprint}".encode()).hexdigest()
    return int(digest[:16], 16) / 2**64


def rollout_path(rollout_file: str | None) -> tuple[str | None, str]:
    """The rollout file in force and where it was named: the argument wins over the
    environment."""
    if rollout_file:
        return rollout_file, "--rollout"
    return os.environ.get(ENV) or None, ENV


class Rollout:
    """The states for one program; `fingerprint` is called only when a state needs it."""

    def __init__(self, program_name: str | None, fingerprint, rollout_file: str | None = None):
        self.program_name = program_name
        self._fingerprint = fingerprint
        self.path, self.source = rollout_path(rollout_file)
        self.entries = {}
        if self.path:
            from .rollout_file import read_rollout_file  # YAML: only when there is a file
            self.entries = read_rollout_file(self.path, self.source)
        self.disabled = disabled_passes()

    def decide(self, cls) -> Decision:
        if cls.correctness:
            return Decision(ENABLED, True)
        if cls.name in self.disabled:
            return Decision(DISABLED, False, f"rollout: disabled by {KILL_SWITCH}")
        entry = self.entries.get(cls.name)
        if entry is None or entry.state == ENABLED:
            return Decision(ENABLED, True)
        if entry.state == DISABLED:
            return Decision(DISABLED, False, f"rollout: disabled in {self.path}")
        if entry.state == ALLOWLIST:
            listed = self.program_name in entry.programs or self._fingerprint() in entry.programs
            return Decision(ALLOWLIST, listed, None if listed else
                            f"rollout: allowlist, program {self.program_name or '(unnamed)'} not listed")
        assert entry.state == CANARY
        where = bucket(cls.name, cls.version, self._fingerprint())
        inside = where < entry.fraction
        return Decision(CANARY, inside, None if inside else
                        f"rollout: canary {entry.fraction:g}, program not in it (bucket {_shown(where, entry.fraction)})")


def _shown(where: float, fraction: float) -> str:
    """The bucket in two decimals, more where two would not show it is past the fraction."""
    text = f"{where:.2f}"
    return text if float(text) > fraction else f"{where:.6f}"
