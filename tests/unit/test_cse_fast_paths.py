"""cse's fast paths do what its general ones do: the merge made and recorded inline
(pirc.passes.infra.ir_watch.merge_top_level) against the merge through xDSL's wrapped
primitives (cse._merge), and whether an op writes in place answered from the op index's
walk (op_keys._indexed_writes) against a walk of the program (op_keys._writes).  After every pass of `default` on every corpus program, the
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
from pirc.passes.infra import op_keys
from pirc.passes.infra import rewrites
from pirc.text.parser import parse_text
from xdsl.dialects.builtin import ArrayAttr

from corpus_files import all_jsons
from test_op_keys import _write_between
from watch_record import RecordedWatch, compare_paths
from tools.bench_frontend import generate

REGIONS = Path(__file__).resolve().parents[1] / "lit" / "passes" / "cse.pir"


class _Recorded(RecordedWatch):
    """What the watch and the gate recorded, each pass."""

    FIELDS = ("edits", "unfinished", "tops", "touched", "rewritten", "detached", "released",
              "readers", "unsettled", "counts", "order", "unused")


def _programs() -> dict:
    out = {f"{p.parent.parent.name}/{p.parent.name}/{p.stem}": (lambda p=p: pirc.load(str(p)))
           for p in all_jsons()}
    out["generated-3000"] = lambda: parse_text(generate(3000), "bench.pir", 4)
    for i, part in enumerate(REGIONS.read_text().split("// -----")):
        out[f"cse.pir-{i}"] = lambda part=part: parse_text(part, "cse.pir", 4)
    # an in-place relu_ between two tanh of its operand: the writes keep them apart
    out["write-between"] = lambda: parse_text(_write_between(), "w.pir", 4)
    return out


PROGRAMS = _programs()


def _general(m) -> None:
    """The general paths only: the merge through xDSL's primitives, the writes walked."""
    m.setattr(cse, "merge_top_level", lambda op, earlier: False)
    m.setattr(op_keys, "_indexed_writes", lambda block, version, kinds, index: None)
    # keys from the ops themselves, not the static keys the program fingerprint kept
    m.setattr(rewrites.RunState, "kept_statics", lambda state: None)


def _compare(load, monkeypatch, **options) -> None:
    compare_paths(load, monkeypatch, _Recorded, _general, **options)


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


def test_the_op_index_answers_whether_an_op_writes(monkeypatch):
    """The comparison covers the index's answer: given on the generated program (one block,
    inference batch norms whose ops are looked at: no write), and on the program with an
    in-place write between two tanh, where it keeps them apart."""
    answers = []
    indexed = op_keys._indexed_writes

    def counted(block, version, kinds, index):
        answers.append(indexed(block, version, kinds, index))
        return answers[-1]
    monkeypatch.setattr(op_keys, "_indexed_writes", counted)
    run_pipeline(PROGRAMS["generated-3000"](), "default", verify_each="incremental")
    assert answers == [False]
    answers.clear()
    result = run_pipeline(PROGRAMS["write-between"](), "cse", verify_each="incremental")
    assert answers == [True] and result.passes[0].rewrites == 0


def test_under_full_verification_every_merge_goes_the_general_way(monkeypatch):
    """--verify-each=full sees every edit through the watch's general path: the fast merge
    declines."""
    done = []
    merge = cse.merge_top_level
    monkeypatch.setattr(cse, "merge_top_level", lambda op, e: done.append(merge(op, e)) or done[-1])
    run_pipeline(PROGRAMS["generated-3000"](), "default", verify_each="full")
    assert done and not any(done)


def test_details_from_kept_static_keys_are_the_ops_own():
    """OpKeys.details by the static key the fingerprint kept (one lookup per shared key
    object) equals the details worked out from each op, and an op edited since the look
    (in `changed`) gets the details of what it is now, not those of its kept key."""
    from pirc.passes.infra.fingerprint import Fingerprinter

    program = PROGRAMS["generated-3000"]()
    f = Fingerprinter(program.version)
    f.program(program)
    changed: dict = {}
    kept = op_keys.OpKeys(lambda op: f.kept_static(op, changed))
    plain = op_keys.OpKeys()  # shown the same ops in the same order: the same numbers
    ops = [op for op in program.block.ops if kept.mergeable(op)]
    assert sum(f.kept_static(op, changed) is not None for op in ops) == len(ops)
    for op in ops + ops:   # the second time from the memo
        assert kept.details(op) == plain.details(op), op.name
    # two constants sharing one kept key object: edit one, which the gate would seed
    shared: dict = {}
    for op in ops:
        shared.setdefault(id(f.kept_static(op, changed)), []).append(op)
    edited, other = next(group for group in shared.values() if len(group) > 1)[:2]
    before = kept.details(edited)
    name = next(iter(edited.attributes))
    edited.attributes[name] = ArrayAttr([])
    changed[id(edited)] = edited
    assert f.kept_static(edited, changed) is None
    now = kept.details(edited)
    assert now == plain.details(edited) != before
    assert kept.details(other) == before


@pytest.mark.parametrize("key", ["generated-3000", "write-between", "cse.pir-0"])
def test_the_fast_merge_settles_a_reader_as_the_watch_does(key, monkeypatch):
    """merge_top_level settles each reader as the `add_use` wrapper does (Touched.settles,
    `earlier`'s number read once per merge), also where settling says no: where ops may
    write in place (every op whose name has an odd length, so `quiet` is asked and answers
    both ways) and for readers the block order has no number for (every third op of the
    walk left out, as an op inserted since).  On the benchmark's programs every reader
    settles, so without these the comparison would not see a wrong no."""
    from pirc.ir.block_order import BlockOrder
    from pirc.passes.infra.touched import Touched

    init, number = Touched.__init__, BlockOrder.number

    def writing_touched(self, *args, **kwargs):
        init(self, *args, **kwargs)
        if self.settle is not None:
            self.writers = {}

    def sparse_number(self, ops=None, ids=None):
        number(self, ops, ids)
        for op in list(self.held)[::3]:
            if op is not None:
                self.keys.pop(id(op), None)

    monkeypatch.setattr(Touched, "__init__", writing_touched)
    monkeypatch.setattr(Touched, "_writes", lambda self, name: len(name) % 2 == 1)
    monkeypatch.setattr(BlockOrder, "number", sparse_number)
    unsettled = []
    merge = cse.merge_top_level

    def counted_merge(op, earlier):
        from pirc.passes.infra import ir_watch
        touched = ir_watch._ACTIVE.touched if ir_watch._ACTIVE is not None else None
        done = merge(op, earlier)
        if done:
            unsettled.extend(id(use.operation) in touched.unsettled
                             for result in earlier.results for use in result.uses)
        return done
    monkeypatch.setattr(cse, "merge_top_level", counted_merge)
    _compare(PROGRAMS[key], monkeypatch)
    if key == "generated-3000":
        assert any(unsettled) and not all(unsettled)   # both answers were given
