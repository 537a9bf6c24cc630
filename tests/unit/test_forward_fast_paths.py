"""A forward's fast paths do what the general ones do.

* The edits made and recorded in one call (pirc.passes.infra.ir_watch.move_top_level and
  erase_top_level, which ir_edits.move_uses and erase take inside a rewrite, and
  forward_top_level, a whole forward with the inputs it leaves dead, which greedy.replace_op
  takes) against the
  same edits through xDSL's wrapped primitives: after every pass of `default` on every
  corpus program, the benchmark's generated one, a small program of the transformer benchmark
  (thousands of inference dropouts) and canonicalize's lit cases, the same program, pass
  reports (each rewrite's fingerprints among them), fingerprints after each pass, graph tags
  and the same IR-watch record (edits, top-level ops, touched ops, released values, readers,
  unsettled ops, op counts, the block order, dce's candidates) and gate seeds.
* The gate's fingerprint of the ops a rewrite matched, from the static keys the
  fingerprinter kept (Fingerprinter.ops with the seeds as `changed`): each key read so is
  the op's own, and a fingerprint that ignored the seeds would be wrong (a transpose whose
  perm a rewrite changed, matched again).
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import pytest

import pirc
from pirc.passes import PassFailure, run_pipeline
from pirc.passes.infra import fingerprint as fp
from pirc.passes.infra import greedy, ir_edits, ir_watch
from pirc.text.parser import parse_text

from corpus_files import all_jsons
from watch_record import RecordedWatch, compare_paths
from tools.bench_frontend import generate

CANONICALIZE = Path(__file__).resolve().parents[1] / "lit" / "passes" / "canonicalize.pir"


class _Recorded(RecordedWatch):
    """What the watch recorded, each pass."""

    FIELDS = ("edits", "unfinished", "tops", "touched", "rewritten", "detached", "released",
              "readers", "unsettled", "counts", "order", "unused")


@lru_cache(maxsize=None)
def _transformer_json() -> str:
    from tools.bench_json import make_program

    return json.dumps(make_program(3000, ("transformer",)))


def _programs() -> dict:
    out = {f"{p.parent.parent.name}/{p.parent.name}/{p.stem}": (lambda p=p: pirc.load(str(p)))
           for p in all_jsons()}
    out["generated-3000"] = lambda: parse_text(generate(3000), "bench.pir", 4)
    out["transformer-3000"] = lambda: pirc.parse(_transformer_json(), format="json")
    for i, part in enumerate(CANONICALIZE.read_text().split("// -----")):
        out[f"canonicalize.pir-{i}"] = lambda part=part: parse_text(part, "canonicalize.pir", 4)
    return out


PROGRAMS = _programs()


def _general(m) -> None:
    """The general paths only: every edit through xDSL's wrapped primitives, every static
    key read from its op."""
    m.setattr(ir_edits, "move_top_level", lambda result, value, users: False)
    m.setattr(ir_edits, "erase_top_level", lambda op: False)
    m.setattr(greedy, "forward_top_level", lambda op, value, users, inputs=(): False)
    m.setattr(fp.Fingerprinter, "_static_of", lambda self, op, changed: fp._static_key(op))


def _compare(load, monkeypatch, mutate=None, **options) -> None:
    compare_paths(load, monkeypatch, _Recorded, _general, mutate, **options)


@pytest.mark.parametrize("key", sorted(PROGRAMS))
def test_the_fast_forward_does_what_the_general_one_does(key, monkeypatch):
    _compare(PROGRAMS[key], monkeypatch)


@pytest.mark.parametrize("limit", [0, 1, 7, 40])
def test_and_under_a_bisection_limit(limit, monkeypatch):
    """A rewrite refused by the limit makes no edit, fast or not."""
    _compare(PROGRAMS["transformer-3000"], monkeypatch, bisect_limit=limit)


def test_the_benchmark_programs_take_the_fast_paths(monkeypatch):
    """The comparison above is not empty: the forwards' moves and erasures take the fast
    paths, and under --verify-each=full (every edit through the watch's general path) none
    does."""
    for level, expected in (("incremental", True), ("full", False)):
        taken = {"move": [], "erase": [], "forward": []}
        move, erase, forward = (ir_watch.move_top_level, ir_watch.erase_top_level,
                                ir_watch.forward_top_level)
        monkeypatch.setattr(ir_edits, "move_top_level",
                            lambda *a: taken["move"].append(move(*a)) or taken["move"][-1])
        monkeypatch.setattr(ir_edits, "erase_top_level",
                            lambda op: taken["erase"].append(erase(op)) or taken["erase"][-1])
        monkeypatch.setattr(greedy, "forward_top_level",
                            lambda *a: taken["forward"].append(forward(*a)) or taken["forward"][-1])
        result = run_pipeline(PROGRAMS["transformer-3000"](), "default", verify_each=level)
        dropouts = result.passes[0].rule_rewrites["inference-dropout"]
        assert dropouts > 100
        # each forward in one call; where it cannot (full verification), each move and
        # erasure through the primitives
        assert len(taken["forward"]) == dropouts
        assert all(taken["forward"]) if expected else not any(taken["forward"]), level
        if not expected:
            for what in ("move", "erase"):
                assert len(taken[what]) > 100
                assert not any(taken[what]), (level, what)


def _release_unrecorded(m) -> None:
    """A broken fast move: the value that lost its use is not recorded as released."""
    move = ir_watch._move_recorded

    def broken(watch, result, value, users, index):
        before = len(watch.touched.released)
        move(watch, result, value, users, index)
        if len(watch.touched.released) > before:
            watch.touched.released.pop()
    m.setattr(ir_watch, "_move_recorded", broken)


def _erase_unrecorded(m) -> None:
    """A broken fast erasure: the op leaves the block, the watch's order is not told."""
    erase = ir_watch._erase_recorded

    def broken(watch, op, block):
        order, watch.order = watch.order, None
        try:
            erase(watch, op, block)
        finally:
            watch.order = order
    m.setattr(ir_watch, "_erase_recorded", broken)


def _dead_input_kept(m) -> None:
    """A broken fast forward: the inputs it leaves dead (a dropout's p) are not erased."""
    forward = ir_watch.forward_top_level
    m.setattr(greedy, "forward_top_level", lambda op, value, users, inputs=(): forward(op, value, users))


def _reader_unsettled(m) -> None:
    """A broken fast move: no reader is settled (each one left to the verifier)."""
    move = ir_watch._move_recorded

    def broken(watch, result, value, users, index):
        settle, watch.touched.settle = watch.touched.settle, None
        try:
            move(watch, result, value, users, index)
        finally:
            watch.touched.settle = settle
    m.setattr(ir_watch, "_move_recorded", broken)


@pytest.mark.parametrize("mutate", [_release_unrecorded, _erase_unrecorded, _dead_input_kept,
                                    _reader_unsettled])
def test_a_broken_fast_path_fails_the_comparison(mutate, monkeypatch):
    # a mismatch, or a later pass that trusts the record failing (dce takes its candidates'
    # places from the block order: an erased op still numbered there is one it cannot erase)
    with pytest.raises((AssertionError, PassFailure)):
        _compare(PROGRAMS["transformer-3000"], monkeypatch, mutate)


# -- the gate's fingerprint from the kept static keys ---------------------------------------


@pytest.mark.parametrize("key", sorted(PROGRAMS))
def test_each_kept_static_key_is_the_ops_own(key, monkeypatch):
    read = []
    static_of = fp.Fingerprinter._static_of

    def checked(self, op, changed):
        static = static_of(self, op, changed)
        assert static == fp._static_key(op), op.name
        read.append(op)
        return static
    monkeypatch.setattr(fp.Fingerprinter, "_static_of", checked)
    program = PROGRAMS[key]()
    if program.version != 4:
        run_pipeline(program, "upgrade")
    run_pipeline(program, "default")
    if key == "transformer-3000":
        assert len(read) > 200


PAIR = """{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[2,3,4],stop_gradient:[true]} : () -> tensor<2x3x4xf32>
    (%1) = "pd_op.transpose" (%0) {perm:[1,0,2],stop_gradient:[true]} : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
    (%2) = "pd_op.transpose" (%1) {perm:[0,2,1],stop_gradient:[true]} : (tensor<3x2x4xf32>) -> tensor<3x4x2xf32>
    (%3) = "pd_op.fetch" (%2) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<3x4x2xf32>) -> tensor<3x4x2xf32>
}
"""


def test_an_op_a_rewrite_changed_is_keyed_afresh():
    """A seed (an op a rewrite matched, whose attributes it may have set) is keyed from the
    op; keyed from what was kept, its fingerprint would be the old op's."""
    program = parse_text(PAIR, "pair.pir", 4)
    first, second = [op for op in program.block.ops if op.name == "pd_op.transpose"]
    fingerprinter = fp.Fingerprinter(4)
    fingerprinter.program(program)
    before = fingerprinter.ops([second], {})
    assert before == fp.fingerprint([second], 4)
    second.attributes["perm"] = first.attributes["perm"]   # as compose-transposes sets it
    after = fp.fingerprint([second], 4)   # a fingerprinter of its own: nothing kept
    assert after != before
    assert fingerprinter.ops([second], {id(second): second}) == after
    assert fingerprinter.ops([first, second], {id(second): second}) == fp.fingerprint([first, second], 4)
    assert fingerprinter.ops([second], {}) == before   # what ignoring the seeds would give
