"""What one patch step carries while it runs: its versions and the problems it met.

Compiled actions never raise on a program they cannot change: they record a
problem (which op, which action of which patch line, why) and leave that op
alone, so a step reports every op that blocks it at once.  The step runner
raises `StepRefused` afterwards, and nothing is written.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import PircError

MAX_LISTED = 20


@dataclass(frozen=True)
class Problem:
    op: object  # the xDSL op the action could not change
    source: str  # "FILE:LINE" of the action in its patch file
    action: str  # "modify_attr k", "add_value [1, 0]", ...
    message: str


@dataclass
class StepContext:
    """Per-run state of one step: versions, problems, and pair bookkeeping."""

    from_version: int
    to_version: int
    label: str = ""  # "patch 4.yaml", "inverse of patch 4.yaml"
    problems: list[Problem] = field(default_factory=list)
    # op-pair actions: consumers whose edge a producer already handled (by action id)
    handled: dict = field(default_factory=dict)

    def refuse(self, op, action, message: str) -> None:
        self.problems.append(Problem(op, action.source, action.describe(), message))


class StepRefused(PircError):
    """A step (upgrade or downgrade) that cannot be applied to this program."""

    def __init__(self, headline: str, problems: list[Problem], program=None):
        self.headline = headline
        self.problems = problems
        lines = [headline]
        for p in problems[:MAX_LISTED]:
            lines.append(f"  {describe_op(p.op, program)}: {p.action} ({p.source}): {p.message}")
        if len(problems) > MAX_LISTED:
            lines.append(f"  ... and {len(problems) - MAX_LISTED} more")
        super().__init__("\n".join(lines))


def describe_op(op, program=None) -> str:
    """`ops[17] pd_op.pool2d` (nested: `ops[3].regions[0].blocks[0].ops[2] cf.yield`), plus the
    text line when the program was read from text."""
    path = []
    node = op
    while True:
        block = node.parent
        if block is None:
            break
        index = 0
        prev = node.prev_op
        while prev is not None:
            index += 1
            prev = prev.prev_op
        path.append(f"ops[{index}]")
        region = block.parent
        if region is None:
            break
        owner = region.parent
        if owner is None or owner.parent is None:  # the builtin.module
            break
        path.append(f"blocks[{region.blocks.index(block)}]")
        path.append(f"regions[{owner.regions.index(region)}]")
        node = owner
    where = ".".join(reversed(path)) or "(detached op)"
    text = f"{where} {op.name}"
    if program is not None:
        loc = program.locations.get(op)
        if loc:
            text += f" (line {loc[0]})"
    return text
