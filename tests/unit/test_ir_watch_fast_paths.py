"""The IR watch's fast paths (pirc.passes.infra.ir_watch: an operand edit, or an op inserted
into or removed from the top-level block, inside a rewrite, recorded without `_edit`'s
calls) record what its general path records.  The fast paths run only when the watch keeps
no edited ops (`--verify-each=incremental`); under "full" every edit takes the general
path: after every pass of `default` on every corpus program and the benchmark's generated
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


def _watched(load, level: str) -> list:
    _Recorded.seen = []
    program = load()
    if program.version != 4:
        run_pipeline(program, "upgrade", verify_each=level)
    run_pipeline(program, "default", verify_each=level)
    return _Recorded.seen


def _programs():
    out = [pytest.param(lambda p=p: pirc.load(str(p)), id=f"{p.parent.name}/{p.stem}")
           for p in all_jsons()]
    out.append(pytest.param(lambda: parse_text(generate(3000), "bench.pir", 4),
                            id="generated-3000"))
    return out


@pytest.mark.parametrize("load", _programs())
def test_the_fast_paths_record_what_the_general_one_does(load, monkeypatch):
    monkeypatch.setattr(manager, "IRWatch", _Recorded)
    fast = _watched(load, "incremental")
    general = _watched(load, "full")
    assert len(fast) == len(general)
    for i, (a, b) in enumerate(zip(fast, general)):
        for key in a:
            assert a[key] == b[key], f"pass #{i + 1}: {key}"


def test_the_generated_program_takes_the_fast_paths(monkeypatch):
    """The comparison above is not empty: the benchmark's program has thousands of edits
    inside rewrites, operand edits and removals from the top-level block among them."""
    monkeypatch.setattr(manager, "IRWatch", _Recorded)
    seen = _watched(lambda: parse_text(generate(3000), "bench.pir", 4), "incremental")
    assert sum(s["edits"][0] for s in seen) > 1000
    assert sum(len(s["released"]) for s in seen) > 100
