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

    text = json.dumps(report_json(result, program, filename), indent=1, sort_keys=False) + "\n"
    write_atomically(path, [text])


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
