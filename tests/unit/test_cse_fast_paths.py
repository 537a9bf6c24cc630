"""cse's fast merge does what its general one does: the merge made and recorded inline
(pirc.passes.infra.ir_watch.merge_top_level) against the merge through xDSL's wrapped
primitives (cse._merge).  After every pass of `default` on every corpus program, the
benchmark's generated one and cse's lit cases (regions, readers inside them): the same
program, pass reports (matches, rewrites, skips, each rewrite's fingerprints), fingerprints
after each pass, and the same IR-watch record (edits, top-level ops, touched ops, released
values, readers, op counts), the gate's seeds and the top-level block order."""

from __future__ import annotations

from pathlib import Path

import pytest

import pirc
import pirc.passes.cse as cse
from pirc.passes import run_pipeline
from pirc.passes.infra import manager
from pirc.passes.infra import rewrites
from pirc.text.parser import parse_text

from corpus_files import all_jsons
from watch_record import RecordedWatch
from tools.bench_frontend import generate

REGIONS = Path(__file__).resolve().parents[1] / "lit" / "passes" / "cse.pir"


class _Recorded(RecordedWatch):
    """What the watch and the gate recorded, each pass."""

    FIELDS = ("edits", "unfinished", "tops", "touched", "rewritten", "detached", "released",
              "readers", "unsettled", "counts", "order")


def _programs() -> dict:
    out = {f"{p.parent.parent.name}/{p.parent.name}/{p.stem}": (lambda p=p: pirc.load(str(p)))
           for p in all_jsons()}
    out["generated-3000"] = lambda: parse_text(generate(3000), "bench.pir", 4)
    for i, part in enumerate(REGIONS.read_text().split("// -----")):
        out[f"cse.pir-{i}"] = lambda part=part: parse_text(part, "cse.pir", 4)
    return out


PROGRAMS = _programs()


def _general(m) -> None:
    """The general path only: the merge through xDSL's primitives."""
    m.setattr(cse, "merge_top_level", lambda op, earlier: False)


def _run(load, monkeypatch, general: bool, **options):
    """What each pass of default recorded (the watch; the gate's seeds as the fingerprint
    update reads them), its report less seconds, the graph tags, and the program's text."""
    seeds: list = []
    after = rewrites.RunState.fingerprint_after

    def fingerprint_after(state, edited, detached=None):
        seeds.append([op.name for op in state.seeds.values()])
        return after(state, edited, detached)

    with monkeypatch.context() as m:
        m.setattr(manager, "IRWatch", _Recorded)
        m.setattr(rewrites.RunState, "fingerprint_after", fingerprint_after)
        if general:
            _general(m)
        program = load()
        if program.version != 4:
            run_pipeline(program, "upgrade", verify_each="incremental")
        _Recorded.seen = seen = []   # a list of this run's own
        result = run_pipeline(program, "default", verify_each="incremental", **options)
        _Recorded.seen = []
    reports = [{k: v for k, v in record.as_json().items() if k != "seconds"}
               for record in result.passes]
    tags = [(t.pass_name, t.before, t.after) for t in program.graph_tags]
    return seen, (reports, seeds, tags), pirc.to_text(program, "pir")


def _compare(load, monkeypatch, **options) -> None:
    seen_fast, reports_fast, text_fast = _run(load, monkeypatch, False, **options)
    seen_general, reports_general, text_general = _run(load, monkeypatch, True, **options)
    assert text_fast == text_general
    assert reports_fast == reports_general
    assert len(seen_fast) == len(seen_general)
    for i, (a, b) in enumerate(zip(seen_fast, seen_general)):
        for what in a:
            assert a[what] == b[what], f"pass #{i + 1}: {what}"


@pytest.mark.parametrize("key", sorted(PROGRAMS))
def test_the_fast_merge_does_what_the_general_one_does(key, monkeypatch):
    _compare(PROGRAMS[key], monkeypatch)


@pytest.mark.parametrize("limit", [0, 1, 7, 40])
def test_and_under_a_bisection_limit(limit, monkeypatch):
    """A rewrite refused by the limit makes no merge, fast or not."""
    _compare(PROGRAMS["generated-3000"], monkeypatch, bisect_limit=limit)


def test_the_generated_program_takes_the_fast_path(monkeypatch):
    """The comparison above is not empty: the benchmark's merges take the fast path, and a
    merge the fast one may not make (a reader in a region) goes the general way."""
    taken = {"merge": 0, "general": 0}
    merge = cse.merge_top_level

    def counted_merge(op, earlier):
        done = merge(op, earlier)
        taken["merge" if done else "general"] += 1
        return done
    monkeypatch.setattr(cse, "merge_top_level", counted_merge)
    run_pipeline(PROGRAMS["generated-3000"](), "default", verify_each="incremental")
    assert taken["merge"] > 100
    taken.update(merge=0, general=0)
    for i in range(len(REGIONS.read_text().split("// -----"))):
        run_pipeline(PROGRAMS[f"cse.pir-{i}"](), "cse", verify_each="incremental")
    assert taken["general"] > 0


def test_under_full_verification_every_merge_goes_the_general_way(monkeypatch):
    """--verify-each=full sees every edit through the watch's general path: the fast merge
    declines."""
    done = []
    merge = cse.merge_top_level
    monkeypatch.setattr(cse, "merge_top_level", lambda op, e: done.append(merge(op, e)) or done[-1])
    run_pipeline(PROGRAMS["generated-3000"](), "default", verify_each="full")
    assert done and not any(done)
