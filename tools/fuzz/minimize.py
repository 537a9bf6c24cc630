"""Shrinking a crash input while its signature holds (delta debugging).

Passes, each repeated while it makes progress, within a time budget:
  1. JSON only: delete elements of the parsed document (list items, dict keys), largest first;
  2. runs: shorten all long runs of one line or one character at once (nesting stays
     balanced), then each run alone (4,400 digits, 100,000 `[`);
  3. lines: ddmin over chunks of lines (halves, quarters, ... single lines);
  4. characters: the same over chunks of characters.
A candidate is kept only if it still has exactly the same signature, so the minimized input
shows the same bug, not another one.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import replace

from .cases import Case


def minimize(case: Case, sig: str, run, budget_s: float = 30.0, max_trials: int = 4000) -> Case:
    """`run(case)` returns the signature of the case (None: no finding)."""
    deadline = time.monotonic() + budget_s
    trials = 0

    def holds(data: str) -> bool:
        nonlocal trials
        if time.monotonic() > deadline or trials >= max_trials:
            return False
        trials += 1
        return run(replace(case, data=data)) == sig

    data = case.data
    for _ in range(4):
        before = data
        if case.front == "json":
            data = _json_reduce(data, holds)
        data = _halve_all_runs(data, holds)
        data = _runs(data, holds)
        data = _ddmin(data.split("\n"), holds, "\n")
        data = _ddmin(list(data), holds, "")
        if data == before or time.monotonic() > deadline:
            break
    return replace(case, data=data)


def _ddmin(parts: list[str], holds, sep: str) -> str:
    n = 2
    while len(parts) >= 2:
        chunk = max(1, len(parts) // n)
        removed = False
        i = 0
        while i < len(parts):
            candidate = parts[:i] + parts[i + chunk:]
            if candidate and holds(sep.join(candidate)):
                parts = candidate
                removed = True
            else:
                i += chunk
        if not removed:
            if chunk == 1:
                break
            n = min(len(parts), n * 2)
    return sep.join(parts)  # once the budget is spent `holds` refuses, so the loops end


def _halve_all_runs(data: str, holds) -> str:
    """Shorten every long run of one line and of one character at once, by a half, a
    quarter or a tenth: nesting keeps its balance (`[` * n ... `]` * n, n region openers ...
    n closers) while its depth shrinks towards the least that still fails."""
    for keep in (0.5, 0.75, 0.9):
        for _ in range(12):
            lines = data.split("\n")
            out, i, changed = [], 0, False
            while i < len(lines):
                j = i
                while j < len(lines) and lines[j] == lines[i]:
                    j += 1
                run = j - i
                kept = int(run * keep) if run >= 8 else run
                changed |= kept != run
                out.extend(lines[i:i + kept])
                i = j
            candidate = "\n".join(out)
            if changed and holds(candidate):
                data = candidate
                continue
            candidate = _RUN.sub(lambda m: m.group(1) * int((m.end() - m.start()) * keep), data)
            if candidate != data and holds(candidate):
                data = candidate
                continue
            break
    return data


_RUN = re.compile(r"(.)\1{15,}", re.S)


def _runs(data: str, holds) -> str:
    """Halve long runs of one character while the signature holds."""
    changed = True
    while changed:
        changed = False
        for m in sorted(_RUN.finditer(data), key=lambda m: -(m.end() - m.start())):
            length = m.end() - m.start()
            shorter = data[:m.start()] + m.group(1) * (length // 2) + data[m.end():]
            if holds(shorter):
                data = shorter
                changed = True
                break
    return data


def _json_reduce(data: str, holds) -> str:
    try:
        doc = json.loads(data)
    except (ValueError, RecursionError):
        return data
    if not isinstance(doc, (dict, list)):
        return data
    progress = True
    while progress:
        progress = False
        for path in _paths(doc):
            candidate = _without(doc, path)
            if candidate is None:
                continue
            text = json.dumps(candidate, separators=(",", ":"))
            if holds(text):
                doc, data, progress = candidate, text, True
                break
    return data


def _paths(doc, prefix=()):
    """Paths of every element, shallowest (largest subtrees) first."""
    out = []
    frontier = [(prefix, doc)]
    while frontier:
        nxt = []
        for path, node in frontier:
            items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
            for k, v in items:
                out.append(path + (k,))
                nxt.append((path + (k,), v))
        frontier = nxt
    return out


def _without(doc, path):
    clone = json.loads(json.dumps(doc))
    node = clone
    for k in path[:-1]:
        node = node[k]
    try:
        del node[path[-1]]
    except (KeyError, IndexError, TypeError):
        return None
    return clone
