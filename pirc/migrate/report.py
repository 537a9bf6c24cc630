"""The report of a pirc-migrate run: report.json for programs, report.md and report.html for
people, written together into OUT.

report.json is canonical: keys sorted, two-space indent, ASCII only (a path that is not
valid UTF-8 still round-trips), records sorted by path, so the same results give the same
bytes whatever order the workers finished in.  "The same report" (a resumed run, the
process pool against Dask) is `normalised(report)`: the report without the fields that
describe the run rather than the work (seconds, peak_mb, worker).
"""

from __future__ import annotations

import copy
import json

from ..atomic import write_atomically
from ..errors import PircError
from . import summary
from .options import MigrateOptions
from .report_html import render_html
from .schema import FINE, RUN_FIELDS, STATUSES, check_report, complete_record

REPORT_FILES = ("report.json", "report.md", "report.html")


def build_report(records: list[dict], options: MigrateOptions, pirc_version: str) -> dict:
    """The report of a run: its options and every model's record, complete (schema.py) and
    sorted by path.  A record pirc got wrong (no path, an unknown status, two for one path)
    raises, naming it, before anything is written."""
    models = sorted((complete_record(r) for r in records), key=lambda r: str(r["path"]))
    report = {"pirc_version": pirc_version, "target_version": options.target_version,
              "pipeline": options.pipeline, "check": options.check, "models": models}
    check_report(report, None)
    return report


def normalised(report: dict) -> dict:
    """The report without seconds, peak_mb and worker: what two runs that did the same work
    agree on."""
    out = copy.deepcopy(report)
    for record in out["models"]:
        for name in RUN_FIELDS:
            record.pop(name, None)
    return out


def exit_status(report: dict) -> int:
    """0 when every model is upgraded, unchanged or skipped; 1 otherwise."""
    return 0 if all(r["status"] in FINE for r in report["models"]) else 1


def report_json(report: dict) -> str:
    """report.json's text (see the module docstring)."""
    return json.dumps(report, indent=2, sort_keys=True, ensure_ascii=True, allow_nan=False) + "\n"


def read_report(path: str) -> dict:
    """A report.json read back; a file that is missing, not JSON or not a pirc-migrate report
    is a PircError naming the file and what is wrong."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise PircError(f"cannot read this report: {e.strerror or e}").in_file(path) from None
    except UnicodeDecodeError as e:
        raise PircError(f"not a pirc-migrate report: not UTF-8 text ({e.reason} at byte "
                        f"{e.start})").in_file(path) from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise PircError(f"not a pirc-migrate report: not JSON ({e.msg} at line {e.lineno}, "
                        f"column {e.colno})").in_file(path) from None
    check_report(doc, path)
    doc["models"] = [complete_record(r) for r in doc["models"]]
    return doc


def write_reports(out_root: str, report: dict) -> None:
    """OUT/report.json, report.md and report.html, each written atomically; all three are
    rendered before the first is written, so a rendering error writes none."""
    texts = {"report.json": report_json(report), "report.md": render_markdown(report),
             "report.html": render_html(report)}
    for name in REPORT_FILES:
        write_atomically(f"{out_root.rstrip('/') or '/'}/{name}", [texts[name]])


# -- report.md --------------------------------------------------------------------------------


def render_markdown(report: dict) -> str:
    """report.md: the run, models per status, every model's row, then the drifting models,
    the failures, the skipped ones, the slowest and what each pass changed."""
    models = report["models"]
    lines = ["# pirc-migrate report", "", _run_line(report), ""]
    counts = summary.status_counts(models)
    lines += ["| status | models |", "|---|---:|"]
    lines += [f"| {status} | {counts[status]} |" for status in STATUSES]
    lines += [f"| **total** | **{len(models)}** |", ""]

    lines += ["## Models", ""]
    lines += _table(["path", "status", "version", "ops", "passes changed", "check", "seconds"],
                    [[_code(r["path"]), r["status"], summary.versions(r), summary.ops(r),
                      ", ".join(r["passes_changed"]) or "-", summary.verdict(r),
                      summary.seconds(r["seconds"])] for r in models], numeric={6})

    drift = summary.drifting(models)
    lines += ["## Drifting models", ""]
    lines += _table(["path", "max_abs", "max_rel", "first bad op", "check", "compared by shape"],
                    [[_code(r["path"]), summary.number(r["check"]["max_abs"]),
                      summary.number(r["check"]["max_rel"]),
                      _code(r["check"]["first_bad_op"]) if r["check"]["first_bad_op"] else "-",
                      _code(r["check"]["mode"]) if r["check"]["mode"] else "-",
                      ", ".join(map(str, r["check"]["random_outputs"])) or "-"] for r in drift],
                    numeric={1, 2}, empty="No model drifted.")

    lines += ["## Failures", ""]
    lines += _table(["path", "status", "reason"],
                    [[_code(r["path"]), r["status"], _code(r["reason"]) if r["reason"] else "-"]
                     for r in summary.failures(models)], empty="No model failed.")

    skips = summary.skipped(models)
    if skips:
        lines += ["## Skipped", ""]
        lines += _table(["path", "reason"],
                        [[_code(r["path"]), _code(r["reason"]) if r["reason"] else "-"] for r in skips])

    lines += ["## Slowest models", ""]
    lines += _table(["path", "status", "seconds", "peak MiB", "worker"],
                    [[_code(r["path"]), r["status"], summary.seconds(r["seconds"]),
                      summary.megabytes(r["peak_mb"]), _code(r["worker"]) if r["worker"] else "-"]
                     for r in summary.slowest(models)], numeric={2, 3}, empty="No model was timed.")

    lines += ["## Passes", "", "Models whose program each pass changed, of the models it ran on.", ""]
    lines += _table(["pass", "changed", "ran", "change rate"],
                    [[_code(name), str(changed), str(ran), summary.percent(summary.rate((changed, ran)))]
                     for name, (changed, ran) in summary.pass_changes(models).items()],
                    numeric={1, 2, 3}, empty="No pass ran.")
    return "\n".join(lines)


def _run_line(report: dict) -> str:
    return (f"pirc {_code(report['pirc_version'])}, target version {report['target_version']}, "
            f"pipeline {_code(report['pipeline']) if report['pipeline'] else 'none'}, "
            f"check {_code(report['check'])}, {len(report['models'])} models.")


def _table(header: list[str], rows: list[list[str]], numeric=frozenset(), empty: str = "") -> list[str]:
    if not rows and empty:
        return [empty, ""]
    align = ["---:" if i in numeric else "---" for i in range(len(header))]
    return (["| " + " | ".join(header) + " |", "|" + "|".join(align) + "|"]
            + ["| " + " | ".join(row) + " |" for row in rows] + [""])


def _code(text) -> str:
    """`text` as a Markdown code span inside a table cell: nothing in it is markup (a path
    or a reason is untrusted), on one line, with its pipes escaped (GitHub splits cells at
    them even inside a span)."""
    text = summary.shown(text).replace("\n", " ").replace("\r", " ")
    run = longest = 0
    for c in text:
        run = run + 1 if c == "`" else 0
        longest = max(longest, run)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text.replace('|', chr(92) + '|')}{pad}{fence}"
