"""What a program needs that this pirc cannot lower, read before anything runs.

`lowering_coverage(program)` answers from the op-version table (pirc.runtime.op_versions,
the kernel registry kept as data), so it imports no torch and costs one walk: one entry per
op kind with no kernel at the program's PIR version, with how many ops have it and why.
`pirc-run --check-lowering PROGRAM` prints them, `NAME (N ops): reason`, and exits 1 when
there is any.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from ..ir.program import DEVELOP_VERSION, LATEST_VERSION
from .op_versions import ranges, semantic_version

# Ops the lowering handles itself (pirc.lower.graph_builder); every other op needs a kernel.
STRUCTURAL_OPS = frozenset({
    "pd_op.data", "builtin.parameter", "pd_op.fetch", "builtin.combine", "builtin.split",
    "builtin.slice", "cf.yield", "pd_op.if", "pd_op.while", "pd_op.pylayer",
})


@dataclass(frozen=True)
class Missing:
    name: str
    count: int
    reason: str

    def __str__(self) -> str:
        return f"{self.name} ({self.count} op{'s' if self.count != 1 else ''}): {self.reason}"


def lowering_coverage(program) -> list[Missing]:
    """Each op kind of `program` with no lowering at its PIR version, by name."""
    counts = Counter(op.name for op in program.walk()
                     if op.name not in STRUCTURAL_OPS and op.name != "builtin.module")
    return [Missing(name, n, _reason(name, program.version)) for name, n in sorted(counts.items())
            if semantic_version(name, program.version) is None]


def _reason(name: str, version: int) -> str:
    have = ranges(name)
    shown = f"{version} (develop, read as {LATEST_VERSION})" if version == DEVELOP_VERSION else str(version)
    if not have:
        return "no kernel is registered for it"
    spans = ", ".join(f"[{since}, {'...' if until is None else until})" for since, until in have)
    return f"its kernels cover PIR versions {spans}, not the program's version {shown}"
