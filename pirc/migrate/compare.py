"""Two pirc-migrate reports side by side: what each pass changed, which output programs
differ, and which models' numbers got worse (`pirc-migrate --compare A.json B.json`).

A pass's change rate is the share of models whose program it changed (`passes_changed`) of
the models it ran on (`passes_run`).  A pass whose rate jumps between two pirc versions or
two pipelines over the same zoo has a match condition that became wider (or narrower) than
intended; that is the signal `--alarm-change-rate X` raises.  The rates are computed over
the models both reports hold (by path): a zoo that grew between the runs must not look like
a pass that changed.  Models in one report only are listed, and counted nowhere else.

A numeric regression is a model that was fine in A and is not in B: its status went from
upgraded or unchanged to anything but those and skipped (a skip is a decision, not a
result), or its check went from ok to not ok.  The alarm is only raised when asked for:
`alarms(cmp, X)` with X given reports every pass whose rate moved by more than X, and every
regression; with X None it reports nothing.  The rate deltas are compared exactly
(fractions of model counts against X's decimal value), so a rate that moves by exactly X
does not raise it.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from . import summary
from .report import read_report  # noqa: F401  (--compare reads its two files with it)
from .schema import GOOD


@dataclass(frozen=True)
class PassChange:
    """One pass in both runs: (models it changed, models it ran on) in A and in B, None
    where it never ran."""

    name: str
    a: tuple[int, int] | None
    b: tuple[int, int] | None

    @property
    def rate_a(self) -> float | None:
        return summary.rate(self.a)

    @property
    def rate_b(self) -> float | None:
        return summary.rate(self.b)

    @property
    def delta(self) -> Fraction | None:
        """B's rate minus A's, exactly; None unless the pass ran on some model in both."""
        if self.rate_a is None or self.rate_b is None:
            return None
        return Fraction(*self.b) - Fraction(*self.a)


@dataclass(frozen=True)
class Regression:
    path: str
    before: str   # A's status and check verdict
    after: str    # B's


@dataclass(frozen=True)
class Comparison:
    a_run: str                      # how A was made: pirc version, target, pipeline
    b_run: str
    models: int                     # models in both reports
    passes: tuple[PassChange, ...]  # in the order they first ran (A's, then B's new ones)
    output_changed: tuple[str, ...]  # paths whose fingerprint_after differs
    regressions: tuple[Regression, ...]
    only_in_a: tuple[str, ...]
    only_in_b: tuple[str, ...]


def compare_reports(a: dict, b: dict) -> Comparison:
    """Compare two reports (as build_report / read_report give them)."""
    in_a = {r["path"]: r for r in a["models"]}
    in_b = {r["path"]: r for r in b["models"]}
    common = sorted(in_a.keys() & in_b.keys())
    changes_a = summary.pass_changes([in_a[p] for p in common])
    changes_b = summary.pass_changes([in_b[p] for p in common])
    passes = tuple(PassChange(name, changes_a.get(name), changes_b.get(name))
                   for name in list(changes_a) + [n for n in changes_b if n not in changes_a])
    output_changed = tuple(p for p in common
                           if in_a[p].get("fingerprint_after") != in_b[p].get("fingerprint_after"))
    regressions = tuple(Regression(p, _verdict(in_a[p]), _verdict(in_b[p]))
                        for p in common if _worse(in_a[p], in_b[p]))
    return Comparison(_run(a), _run(b), len(common), passes, output_changed, regressions,
                      tuple(sorted(in_a.keys() - in_b.keys())), tuple(sorted(in_b.keys() - in_a.keys())))


def _worse(a: dict, b: dict) -> bool:
    if a["status"] in GOOD and b["status"] not in GOOD | {"skipped"}:
        return True
    return (a.get("check") or {}).get("ok") is True and (b.get("check") or {}).get("ok") is False


def _verdict(record: dict) -> str:
    check = summary.verdict(record)
    return record["status"] if check == "-" else f"{record['status']}, {check}"


def _run(report: dict) -> str:
    return (f"pirc {report['pirc_version']}, target version {report['target_version']}, "
            f"pipeline {report['pipeline'] or 'none'}")


def alarms(cmp: Comparison, max_change_rate_delta: float | None) -> list[str]:
    """One message per pass whose change rate moved by more than the given delta (a
    fraction, 0.05 = five points) and one per numeric regression; none when the delta is
    None (no alarm asked for)."""
    if max_change_rate_delta is None:
        return []
    limit = Fraction(repr(float(max_change_rate_delta)))
    out = []
    for change in cmp.passes:
        if change.delta is not None and abs(change.delta) > limit:
            out.append(f"pass {change.name}: change rate moved from {_share(change.a)} to "
                       f"{_share(change.b)} ({_points(change.delta)}, more than the "
                       f"{_points(limit, signed=False)} allowed)")
    for reg in cmp.regressions:
        out.append(f"model {summary.shown(reg.path)}: numeric regression: {reg.before} -> {reg.after}")
    return out


def format_comparison(cmp: Comparison) -> str:
    """The text `pirc-migrate --compare` prints."""
    lines = [f"A: {cmp.a_run}", f"B: {cmp.b_run}",
             f"{cmp.models} models in both reports"
             + (f"; {len(cmp.only_in_a)} only in A" if cmp.only_in_a else "")
             + (f"; {len(cmp.only_in_b)} only in B" if cmp.only_in_b else ""), ""]
    if cmp.passes:
        width = max(len("pass"), *(len(c.name) for c in cmp.passes))
        lines.append(f"{'pass':<{width}}  {'A':>16}  {'B':>16}  {'change':>8}")
        for c in cmp.passes:
            delta = "-" if c.delta is None else _points(c.delta)
            lines.append(f"{c.name:<{width}}  {_share(c.a):>16}  {_share(c.b):>16}  {delta:>8}")
    else:
        lines.append("no pass ran in either report")
    lines += ["", f"output programs that differ: {len(cmp.output_changed)}"]
    lines += [f"  {summary.shown(p)}" for p in cmp.output_changed]
    lines += [f"numeric regressions: {len(cmp.regressions)}"]
    lines += [f"  {summary.shown(r.path)}: {r.before} -> {r.after}" for r in cmp.regressions]
    for label, paths in (("only in A", cmp.only_in_a), ("only in B", cmp.only_in_b)):
        if paths:
            lines += [f"{label}: {len(paths)}"] + [f"  {summary.shown(p)}" for p in paths]
    return "\n".join(lines) + "\n"


def _share(counts: tuple[int, int] | None) -> str:
    """`3/12 (25.0%)`, `-` for a pass that did not run."""
    if counts is None or counts[1] == 0:
        return "-"
    return f"{counts[0]}/{counts[1]} ({summary.percent(summary.rate(counts))})"


def _points(delta: Fraction, signed: bool = True) -> str:
    """A rate difference in percentage points: `+8.3 pt`."""
    return f"{float(delta) * 100:{'+' if signed else ''}.1f} pt"
