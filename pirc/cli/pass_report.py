"""What `--pass-stats` prints and `--pass-report=FILE` writes after a pipeline."""

from __future__ import annotations

import json
from pathlib import Path


def report_json(result, program, filename: str) -> dict:
    from .. import __version__

    return {"pirc_version": __version__, "pipeline": result.pipeline.spec,
            "pipeline_passes": result.pipeline.text(),
            "program": {"name": Path(filename).stem, "fingerprint": result.fingerprint,
                        "pir_version": result.pir_version, "pir_version_after": program.version},
            "conservative": result.conservative,
            "passes": [r.as_json() for r in result.passes]}


def write_pass_report(result, program, filename: str, path: str) -> None:
    from ..atomic import write_atomically

    write_atomically(path, [report_text(report_json(result, program, filename))])


_SCALARS = frozenset({str, int, float, bool, type(None)})


def _line_encoder():
    """obj -> its JSON on one line, as `json.dumps(obj)` writes it.  json's C encoder made
    once: `json.dumps` makes one per call, which is most of the cost of a small object."""
    from json.encoder import JSONEncoder, c_make_encoder, encode_basestring_ascii

    if c_make_encoder is None:   # an interpreter without json's C accelerator
        return json.dumps
    encode = c_make_encoder(None, JSONEncoder().default, encode_basestring_ascii, None,
                            ": ", ", ", False, False, True)
    return lambda value: "".join(encode(value, 0))


def report_text(report: dict) -> str:
    """The report as JSON text: nested one space per level, and each object or array that
    holds scalars only on one line of its own.

    A report lists every rewrite of every pass (`rewrites_detail`: 17k entries for cse on a
    transformer of 100k ops), each an object of two scalars.  One line per rewrite keeps the
    file greppable and diffable per rewrite, and lets json's C encoder write each line:
    `indent=` makes json use its pure-Python encoder for the whole document, 0.07 s of a
    `-p default` run at 100k ops (docs/PERFORMANCE.md)."""
    parts: list = []
    _layout(report, parts, "\n", _line_encoder())
    parts.append("\n")
    return "".join(parts)


def _flat(values) -> bool:
    scalars = _SCALARS
    for v in values:
        if type(v) not in scalars:
            return False
    return True


def _layout(value, parts: list, newline: str, line) -> None:
    if type(value) is dict:
        if _flat(value.values()):
            parts.append(line(value))
            return
        inner = newline + " "
        sep = "{" + inner
        for key, item in value.items():
            parts += (sep, line(key), ": ")
            _layout(item, parts, inner, line)
            sep = "," + inner
        parts += (newline, "}")
    elif type(value) is list:
        if _flat(value):
            parts.append(line(value))
            return
        inner = newline + " "
        sep = "[" + inner
        for item in value:
            parts.append(sep)
            _layout(item, parts, inner, line)
            sep = "," + inner
        parts += (newline, "]")
    else:
        parts.append(line(value))


def print_pass_stats(result, out) -> None:
    rows = [("pass", "version", "ran", "matches", "rewrites", "skips", "ops before", "ops after")]
    for r in result.passes:
        rows.append((r.name, str(r.version), "yes" if r.ran else f"no ({r.skipped_reason})",
                     str(r.matches), str(r.rewrites), str(len(r.skips)), str(r.ops_before), str(r.ops_after)))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    if result.conservative:
        print(f"conservative mode: {result.conservative}", file=out)
    for row in rows:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip(), file=out)
    for r in result.passes:  # each distinct skip reason once, with its count
        counts: dict = {}
        for skip in r.skips:
            counts[skip.reason] = counts.get(skip.reason, 0) + 1
        for reason, n in counts.items():
            print(f"  {r.name}: {n} skipped: {reason}", file=out)


def print_explain(result, names: set, filename: str, out) -> None:
    """`--explain=PASS`: per rule of each named pass, its rewrites and near misses (the op,
    where it is in the input, and the check that failed), then the pass's skips."""
    for r in result.passes:
        if r.name not in names:
            continue
        if not r.ran:
            print(f"{r.name}: did not run ({r.skipped_reason})", file=out)
            continue
        misses = sum(n.count for n in r.near_misses.values())
        print(f"{r.name}: {r.rewrites} rewrite{'s' * (r.rewrites != 1)}, "
              f"{misses} near miss{'es' * (misses != 1)}", file=out)
        for rule in sorted(set(r.rule_rewrites) | set(r.near_misses)):
            n = r.near_misses.get(rule)
            count = n.count if n is not None else 0
            print(f"  rule {rule}: {r.rule_rewrites.get(rule, 0)} rewrites, {count} near misses", file=out)
            for miss in (n.first if n is not None else ()):
                print(f"    {miss['op']} at {filename}:{miss['location']}: {miss['failed']}", file=out)
            if n is not None and n.count > len(n.first):
                print(f"    ... {n.count - len(n.first)} more", file=out)
        counts: dict = {}
        for skip in r.skips:
            counts[skip.reason] = counts.get(skip.reason, 0) + 1
        for reason, k in counts.items():
            print(f"  skipped {k}: {reason}", file=out)
