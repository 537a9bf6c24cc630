"""upgrade: bring the program to another PIR version with the migration patches.

`--upgrade` (and `--target-version=N`) run as this pass, first in the pipeline, so the pass
report, the graph tags and `--pass-timing` cover the upgrade like any other pass.  It is a
correctness pass: a program must reach the version the later passes and the lowering read,
so the kill switch and rollout never disable it and bisection never skips its steps.  Each
version step (patches/N.yaml with pirc's layer) counts as one rewrite.
"""

from __future__ import annotations

from dataclasses import dataclass

from .infra.pass_base import PassContext, PircPass
from .infra.registry import register_pass


@register_pass
@dataclass(frozen=True)
class Upgrade(PircPass):
    """Migrates the program across PIR versions (patches/N.yaml + patches/pirc/N.yaml)."""

    name = "upgrade"
    version = 1
    correctness = True
    conservative_safe = True
    invariants = ("verified",)
    pir_versions = (0, 4)

    target_version: int = -1   # -1: the newest version this pirc writes
    patch_dir: str = ""        # another patch set (N.yaml, optional versions.yaml)
    allow_downgrade: bool = False

    def run(self, pc: PassContext) -> None:
        from ..errors import PircError
        from ..versioning.planner import name_version
        from ..versioning.upgrade import apply_plan, plan_for

        program = pc.program
        target = None if self.target_version < 0 else self.target_version
        plan = plan_for(program, target, self.patch_dir or None)
        if plan.is_downgrade and not self.allow_downgrade:
            raise PircError(
                f"--upgrade --target-version={self.target_version}: version "
                f"{name_version(plan.target)} is older than the program's version "
                f"{name_version(program.version)}, and --upgrade never goes back; to downgrade, "
                f"drop --upgrade: --target-version={self.target_version} alone")
        pc.matched(len(plan.steps))
        apply_plan(program, plan)
        pc.rewrote(len(plan.steps))
