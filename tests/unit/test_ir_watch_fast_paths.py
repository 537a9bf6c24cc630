"""The IR watch's fast paths (pirc.passes.infra.ir_watch: an operand edit, or an op inserted
into or removed from the top-level block, inside a rewrite, recorded without `_edit`'s
calls) record what its general path records.  The fast paths run under
`--verify-each=incremental`; under "full" every edit takes the general path: after every pass of `default` on every corpus program and the benchmark's generated
one, the two runs' watches must hold the same edits, top-level ops, touched ops, released
values, readers and op counts, in the same order."""

from __future__ import annotations

import pytest

import pirc
from pirc.passes import run_pipeline
from pirc.passes.infra import manager
from pirc.passes.infra.ir_watch import IRWatch
from pirc.text.parser import parse_text

from corpus_files import all_jsons
from tools.bench_frontend import generate


def _value(value) -> tuple:
    """A value, told apart without its id: its kind, its index and its owner's name."""
    owner = getattr(value, "op", None)
    return (type(value).__name__, value.index, None if owner is None else owner.name)


class _Recorded(IRWatch):
    """An IRWatch that keeps, as each pass ends, what it recorded (by names, in order)."""

    seen: list = []

    def __exit__(self, *exc) -> None:
        super().__exit__(*exc)
        touched, index = self.touched, self.index
        self.seen.append({
            "edits": (self.inside, self.outside, self.whole, self.first_outside),
            "tops": [op.name for op in self.tops.values()],
            "touched": [op.name for op in touched.ops.values()],
            "released": [(_value(v), op.name) for v, op in touched.released],
            "readers": [op.name for op in touched.readers.values()],
            "counts": ({k: v for k, v in index.counts.items() if v}, index.total),
        })


# Every corpus program by its last folders and stem, and the benchmark's generated one (None).
PROGRAMS = {f"{p.parent.parent.name}/{p.parent.name}/{p.stem}": p for p in all_jsons()}
PROGRAMS["generated-3000"] = None


def _watched(key: str, level: str) -> list:
    """What the watch of each pass of upgrade (for an older program) and default kept."""
    _Recorded.seen = []
    path = PROGRAMS[key]
    program = parse_text(generate(3000), "bench.pir", 4) if path is None else pirc.load(str(path))
    if program.version != 4:
        run_pipeline(program, "upgrade", verify_each=level)
    run_pipeline(program, "default", verify_each=level)
    return _Recorded.seen


@pytest.mark.parametrize("key", sorted(PROGRAMS))
def test_the_fast_paths_record_what_the_general_one_does(key, monkeypatch):
    monkeypatch.setattr(manager, "IRWatch", _Recorded)
    fast = _watched(key, "incremental")
    general = _watched(key, "full")
    assert len(fast) == len(general)
    for i, (a, b) in enumerate(zip(fast, general)):
        for what in a:
            assert a[what] == b[what], f"pass #{i + 1}: {what}"


def test_the_generated_program_takes_the_fast_paths(monkeypatch):
    """The comparison above is not empty: the benchmark's program has thousands of edits
    inside rewrites, operand edits and removals from the top-level block among them."""
    monkeypatch.setattr(manager, "IRWatch", _Recorded)
    seen = _watched("generated-3000", "incremental")
    assert sum(s["edits"][0] for s in seen) > 1000
    assert sum(len(s["released"]) for s in seen) > 100
