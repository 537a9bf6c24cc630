"""How much of each release step's breaking definition changes the patches migrate.

For every step N-1 -> N of a patch set (pirc.versioning.covered.steps), each breaking
change between the definitions (pirc.versioning.defdiff) gets one status:

* `paddle`: an action of the folder's own N.yaml covers it (for pirc's folder: Paddle's
  patch, byte for byte);
* `pirc`: only an action of the layer pirc/N.yaml covers it (pirc.versioning.layers);
* `unmigratable`: no action covers it and the folder's unmigratable.yaml lists it;
* `uncovered`: none of these (`pirc-patch check` fails).

`pirc-patch coverage` prints the counts per step and dialect; `pirc-patch check` reports
the uncovered ones and the stale unmigratable.yaml entries.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .covered import covered, steps
from .defdiff import DefChange, diff_versions

PADDLE, PIRC, UNMIGRATABLE, UNCOVERED = "paddle", "pirc", "unmigratable", "uncovered"
DIALECTS = ("pd_op", "builtin", "cf")  # the dialects pirc has definitions of


@dataclass(frozen=True)
class Row:
    """One breaking change of one step and what takes care of it."""

    old: int
    new: int
    number: int  # the patch file's number (0 = develop)
    change: DefChange
    status: str
    entry: object = None  # the unmigratable.yaml entry, for UNMIGRATABLE

    @property
    def dialect(self) -> str:
        return self.change.op.split(".", 1)[0]


@dataclass
class Coverage:
    rows: list[Row] = field(default_factory=list)
    stale: list = field(default_factory=list)  # unmigratable.yaml entries matching nothing
    steps: list[tuple[int, int, int]] = field(default_factory=list)

    def count(self, status: str | None = None, step: int | None = None,
              dialect: str | None = None) -> int:
        return sum(1 for r in self.rows
                   if (status is None or r.status == status)
                   and (step is None or r.number == step)
                   and (dialect is None or r.dialect == dialect))

    def dialects(self) -> list[str]:
        seen = {r.dialect for r in self.rows}
        return [d for d in DIALECTS] + sorted(seen - set(DIALECTS))


def measure(patch_set) -> Coverage:
    out = Coverage(steps=steps(patch_set.release_version, patch_set.develop))
    entries = list(patch_set.unmigratable)
    used: set[int] = set()
    for old, new, number in out.steps:
        merged = patch_set.files.get(number)
        base = patch_set.base_files.get(number, merged)
        changes = diff_versions(old, new)
        for c in changes:
            if not c.breaking:
                continue
            entry = None
            if covered(c, base, changes):
                status = PADDLE
            elif covered(c, merged, changes):
                status = PIRC
            else:
                hits = [i for i, e in enumerate(entries)
                        if e.matches(number, c.kind, c.op, c.subject)]
                used.update(hits)
                status = UNMIGRATABLE if hits else UNCOVERED
                entry = entries[hits[0]] if hits else None
            out.rows.append(Row(old, new, number, c, status, entry))
    out.stale = [e for i, e in enumerate(entries) if i not in used]
    return out


def table_text(cov: Coverage, paddle_releases: dict[int, str]) -> str:
    """The per-step, per-dialect table, then the unmigratable changes one per line."""
    head = ("step", "dialect", "breaking", "Paddle's patches", "pirc's patches",
            "unmigratable", "uncovered")
    body = []

    def name(v):
        return f"{v} ({paddle_releases[v]})" if v in paddle_releases else str(v)

    def line(step_label, dialect, step):
        covered_paddle = cov.count(PADDLE, step, dialect)
        covered_pirc = covered_paddle + cov.count(PIRC, step, dialect)
        return (step_label, dialect, str(cov.count(None, step, dialect)), str(covered_paddle),
                str(covered_pirc), str(cov.count(UNMIGRATABLE, step, dialect)),
                str(cov.count(UNCOVERED, step, dialect)))

    dialects = cov.dialects()
    for old, new, number in cov.steps:
        for d in dialects:
            body.append(line(f"{name(old)} -> {name(new)}", d, number))
    if cov.steps:
        first, last = cov.steps[0][0], cov.steps[-1][1]
        for d in dialects:
            body.append(line(f"{name(first)} -> {name(last)}", d, None))
        body.append(line(f"{name(first)} -> {name(last)}", None, None)[:1] + ("all",)
                    + line("", None, None)[2:])
    widths = [max(len(r[i]) for r in [head] + body) for i in range(len(head))]
    fmt = lambda r: "  ".join(c.ljust(w) if i < 2 else c.rjust(w)  # noqa: E731
                              for i, (c, w) in enumerate(zip(r, widths))).rstrip()
    lines = [fmt(head)] + [fmt(r) for r in body]
    lines.append("(pirc's patches: Paddle's N.yaml with pirc's layer pirc/N.yaml merged over it, "
                 "so they include Paddle's)")
    lines.append("onednn_op: not counted: pirc has no definitions of the oneDNN dialect "
                 "(dialects/ holds pd_op, builtin and cf); Paddle's onednn_op actions are "
                 "applied as written")
    unmigratable = [r for r in cov.rows if r.status == UNMIGRATABLE]
    if unmigratable:
        lines.append("unmigratable:")
        lines += [f"  {r.old} -> {r.new}: {r.change.op}: {r.change.describe()} "
                  f"({_show(r.entry.path)}:{r.entry.line})" for r in unmigratable]
    uncovered = [r for r in cov.rows if r.status == UNCOVERED]
    if uncovered:
        lines.append("uncovered:")
        lines += [f"  {r.old} -> {r.new}: {r.change.op}: {r.change.describe()}"
                  for r in uncovered]
    return "\n".join(lines) + "\n"


def _show(path: str) -> str:
    """A path relative to the working directory when it is under it (shorter lines)."""
    import os
    rel = os.path.relpath(path)
    return path if rel.startswith("..") else rel
