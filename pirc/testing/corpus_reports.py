"""The default pipeline's pass report on every corpus program, as a fixture can hold it.

Issue 24 made the pipeline cheaper (idle passes not run, weight passes without parameters
skipped whole) and promised that no corpus program's report changes but for timing and the
documented weight-pass skips.  tools/gen_corpus_pass_reports.py records the reports
(tests/fixtures/pass_reports/default.json); tests/unit/test_corpus_pass_reports.py runs the
pipeline again and compares, through `expected_entry`.

The programs: every Paddle JSON program of tests/fixtures/corpus (each release's four models,
their cross-loads, the docs example) and of the dev zoo's newest release
(tests/fixtures/zoo/3.3.1), each without parameters and, where a `.pdiparams` lies beside it,
with them too (the weight passes then run).
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
PROGRAM_DIRS = (FIXTURES / "corpus", FIXTURES / "zoo" / "3.3.1")
REPORTS = FIXTURES / "pass_reports" / "default.json"
PIPELINE = "default"
# What a report holds that may change from run to run, or from pirc to pirc.
VOLATILE = ("seconds",)


def corpus_programs() -> list[tuple[str, Path, Path | None]]:
    """(key, program, its .pdiparams or None), sorted by key (the path under tests/fixtures)."""
    out = []
    for folder in PROGRAM_DIRS:
        for path in sorted(folder.rglob("*.json")):
            if path.name.startswith("gen_log"):
                continue
            params = path.with_suffix(".pdiparams")
            out.append((str(path.relative_to(FIXTURES)), path, params if params.is_file() else None))
    return sorted(out)


def report(path: Path, params_path: Path | None = None) -> dict:
    """The pass report of `-p default` on the program at `path` (with the parameters at
    `params_path`, if given), without its volatile fields."""
    import pirc
    from pirc.cli.pass_report import report_json

    program = pirc.load(str(path))
    params = pirc.read_params(str(params_path), program) if params_path is not None else None
    result = pirc.run_pipeline(program, PIPELINE, params=params)
    got = report_json(result, program, str(path))
    del got["pirc_version"]
    for entry in got["passes"]:
        for key in VOLATILE:
            entry.pop(key, None)
    return got


def all_reports() -> dict:
    """key (with `+params` for a run with parameters) -> report."""
    out = {}
    for key, path, params in corpus_programs():
        out[key] = report(path)
        if params is not None:
            out[f"{key}+params"] = report(path, params)
    return out


def expected_entry(entry: dict, weight_passes: set[str], with_params: bool) -> dict:
    """A recorded report entry as the pipeline writes it today.  The one documented change
    (issue 24, docs/PASSES.md): a pass that reads weights, run without parameters, is skipped
    whole (`ran` false, the reason in `skipped_reason`, no match, skip or near miss) where it
    used to run and skip each match with that reason."""
    if with_params or entry["name"] not in weight_passes or not entry["ran"]:
        return entry
    from pirc.passes.infra.parameters import needs_params

    return dict(entry, ran=False, skipped_reason=needs_params(entry["name"]), matches=0,
                rewrites=0, skips=[], rewrites_detail=[], outside_gate=0, rule_rewrites={},
                near_misses={})
