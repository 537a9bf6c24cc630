"""What a pirc-migrate report says in aggregate, and how one model's result reads in a cell.

report.md, report.html and `--compare` show the same numbers (models per status, what each
pass changed, the slowest and the drifting models); they are computed here once, from the
report's records, so the three can never disagree.
"""

from __future__ import annotations

from .schema import FINE, STATUSES

SLOWEST = 10  # models listed as the slowest


def status_counts(models: list[dict]) -> dict[str, int]:
    """Models per status, every status present (0 when none), in STATUSES order."""
    counts = dict.fromkeys(STATUSES, 0)
    for record in models:
        counts[record["status"]] = counts.get(record["status"], 0) + 1
    return counts


def pass_changes(models: list[dict]) -> dict[str, tuple[int, int]]:
    """Per pass: (models whose program it changed, models it ran on).  A pass that changed a
    program ran on it, whatever `passes_run` says.  Passes come in the order they first run
    (records in path order), which is pipeline order for a run with one pipeline."""
    changed: dict[str, int] = {}
    ran: dict[str, int] = {}
    for record in models:
        done = set(record.get("passes_changed") or [])
        for name in list(record.get("passes_run") or []) + sorted(done):
            if name not in ran:
                ran[name], changed[name] = 0, 0
        for name in set(record.get("passes_run") or []) | done:
            ran[name] += 1
            changed[name] += name in done
    return {name: (changed[name], ran[name]) for name in ran}


def rate(counts: tuple[int, int] | None) -> float | None:
    """changed / ran, None for a pass that ran on nothing."""
    if counts is None or counts[1] == 0:
        return None
    return counts[0] / counts[1]


def slowest(models: list[dict], n: int = SLOWEST) -> list[dict]:
    """The n models that took longest (ties by path); models without a time are left out."""
    timed = [r for r in models if r.get("seconds") is not None]
    return sorted(timed, key=lambda r: (-r["seconds"], r["path"]))[:n]


def drifting(models: list[dict]) -> list[dict]:
    return [r for r in models if r["status"] == "drifted"]


def failures(models: list[dict]) -> list[dict]:
    """Models that did not end well for another reason than drift (refused, failed, timeout,
    oom, crashed)."""
    return [r for r in models if r["status"] not in FINE and r["status"] != "drifted"]


def skipped(models: list[dict]) -> list[dict]:
    return [r for r in models if r["status"] == "skipped"]


def verdict(record: dict) -> str:
    """The check's verdict in a few words: `ok, max_abs 3.1e-07`, `DRIFT, max_abs 0.12`,
    `not checked`, or `-` when no check ran; `+2 by shape` for outputs of random ops."""
    check = record.get("check") or {}
    if check.get("ok") is None:
        return "not checked" if check.get("mode") == "none" else "-"
    text = "ok" if check["ok"] else "DRIFT"
    if check.get("max_abs") is not None:
        text += f", max_abs {number(check['max_abs'])}"
    shaped = check.get("random_outputs") or []
    if shaped:
        text += f", +{len(shaped)} by shape"
    return text


def versions(record: dict) -> str:
    """`1 -> 4`, `-` for a version nobody learnt."""
    if record.get("from_version") is None and record.get("to_version") is None:
        return "-"
    return f"{_or_dash(record.get('from_version'))} -> {_or_dash(record.get('to_version'))}"


def ops(record: dict) -> str:
    """`812 -> 640`."""
    if record.get("ops_before") is None and record.get("ops_after") is None:
        return "-"
    return f"{_or_dash(record.get('ops_before'))} -> {_or_dash(record.get('ops_after'))}"


def number(value: float | None) -> str:
    """A measured difference, 3 significant digits: `3.1e-07`, `0.125`, `-`."""
    return "-" if value is None else f"{value:.3g}"


def seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def megabytes(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f}"


def percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def shown(text) -> str:
    """`text` as a string that UTF-8 can write: a path that is not valid UTF-8 (Python holds
    its bytes as lone surrogates) keeps them as `\\udcXX` escapes instead of failing the
    report."""
    text = str(text)
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _or_dash(value) -> str:
    return "-" if value is None else str(value)
