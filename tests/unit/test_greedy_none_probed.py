"""The greedy driver's answer from the producers' side (pirc.passes.infra.greedy._none_probed):
True only when no candidate passes a probe and no op is offered to a pattern without one,
which the general path finds by testing each candidate; and, where it can tell (the op
index's walk is the program's, no probe-less pattern's root is in it), it is that answer.

Held to the general path on every corpus program and a generated one, with each pattern set
alone and together, and at every call the driver makes in a whole default pipeline (so also
after canonicalize's and const-fold's edits, through the watched op index); and a broken
answer (always True, or a wrong operand index) is shown to be caught."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, given, settings

from pirc.passes import run_pipeline
from pirc.passes.canonicalize import Canonicalize
from pirc.passes.const_fold import Constants, FoldOp
from pirc.passes.folding.rules import RULES as FOLD_RULES
from pirc.passes.infra import greedy
from pirc.passes.infra.op_index import OpIndex
from pirc.testing.strategies import aliasing_programs
from pirc.text.parser import parse_text

from pass_programs import PROGRAMS, load_program


def _dispatch(patterns) -> dict:
    out: dict = {}
    for p in patterns:
        out.setdefault(p.root, []).append((p, p.operands, p.probe, p.match_and_rewrite))
    return out


def _pattern_sets() -> dict:
    fold = [FoldOp(root, rule, Constants(), 1024) for root, rule in FOLD_RULES.items()]
    canon = list(Canonicalize.patterns())
    probed = [p for p in canon + fold if p.probe is not None]
    return {"const-fold": fold, "canonicalize": canon, "probed": probed}


def _general(pc, dispatch) -> bool:
    """No candidate passes a probe, nor is offered to a pattern without one: by testing each."""
    found: list = []
    greedy._collect(pc.program.block, dispatch, found)
    return not any(probe is None or greedy._probed(op, probe)
                   for op in found for _, _, probe, *_ in dispatch[op.name])


def _decidable(pc, dispatch) -> bool:
    index = pc.state.watch.index
    free = [root for root, entries in dispatch.items() if any(e[2] is None for e in entries)]
    return (index.ordered(pc.program.block, dispatch) is not None
            and not any(index.counts.get(root, 0) for root in free))


def _check(pc, dispatch, fast=None) -> bool:
    """Holds the fast answer to the general one; returns whether a candidate passed."""
    answer = (fast or greedy._none_probed)(pc, dispatch)
    general = _general(pc, dispatch)
    if answer:
        assert general
    if _decidable(pc, dispatch):
        assert answer == general
    return not general


def _pc(program):
    return SimpleNamespace(program=program, state=SimpleNamespace(watch=SimpleNamespace(index=OpIndex(program))))


@pytest.mark.parametrize("key", sorted(PROGRAMS))
def test_the_producers_side_answers_as_each_candidate_tested(key):
    program = load_program(key)
    pc = _pc(program)
    for dispatch in map(_dispatch, _pattern_sets().values()):
        _check(pc, dispatch)


@pytest.mark.parametrize("key", sorted(PROGRAMS))
def test_every_call_of_a_default_pipeline_answers_as_each_candidate_tested(key, monkeypatch):
    calls = _pipeline(load_program(key), monkeypatch)
    if key == "generated-3000":
        assert calls   # canonicalize and const-fold ask


def _pipeline(program, monkeypatch) -> list:
    fast = greedy._none_probed
    calls: list = []

    def checked(pc, dispatch):
        calls.append(_check(pc, dispatch, fast))
        return fast(pc, dispatch)
    with monkeypatch.context() as patched:
        patched.setattr(greedy, "_none_probed", checked)
        run_pipeline(program, "default")
    return calls


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(generated=aliasing_programs(max_ops=12))
def test_generated_programs_answer_as_each_candidate_tested(generated, monkeypatch):
    pc = _pc(generated.parse())
    for dispatch in map(_dispatch, _pattern_sets().values()):
        _check(pc, dispatch)
    _pipeline(generated.parse(), monkeypatch)


# add(full, x): the add's probe (operand 0, a constant) passes; full_like(x, full): the probe
# at operand 1 passes; add(x, full) and reshape(x, full_int_array) pass none.
PROGRAM = """{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[2,3],stop_gradient:[true]} : () -> tensor<2x3xf32>
    (%1) = "pd_op.full" () {dtype:float32,place:Place(undefined:0),shape:[2,3],stop_gradient:[true],value:1.0} : () -> tensor<2x3xf32>
    (%2) = "pd_op.add" (%0, %1) {stop_gradient:[true]} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    (%3) = "pd_op.full_int_array" () {dtype:int64,place:Place(undefined:0),stop_gradient:[true],value:[3,2]} : () -> tensor<2xi64>
    (%4) = "pd_op.reshape" (%2, %3) {stop_gradient:[true]} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<3x2xf32>
    EXTRA
    (%9) = "pd_op.fetch" (%4) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<3x2xf32>) -> tensor<3x2xf32>
}
"""
ADD_OF_FULL = '(%5) = "pd_op.add" (%1, %0) {stop_gradient:[true]} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>'
FULL_LIKE = ('(%6) = "pd_op.full" () {dtype:float32,place:Place(undefined:0),shape:[],stop_gradient:[true],value:2.0} : () -> tensor<f32>\n'
             '    (%5) = "pd_op.full_like" (%0, %6) {dtype:float32,place:Place(undefined:0),stop_gradient:[true]} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>')


# transpose(full): the pair rules' probe wants a transpose there, a full (which another
# probe names, identity-scale's) does not pass it.
TRANSPOSE_OF_FULL = '(%5) = "pd_op.transpose" (%1) {perm:[1,0],stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<3x2xf32>'


def test_a_producer_another_probe_names_does_not_pass():
    probed = _dispatch([p for p in Canonicalize.patterns() if p.probe is not None])
    program = _program(TRANSPOSE_OF_FULL)
    assert _check(_pc(program), probed) is False
    assert greedy._none_probed(_pc(program), probed) is True
    # and a transpose of a transpose does
    program = _program(TRANSPOSE_OF_FULL + "\n    " + TRANSPOSE_OF_FULL.replace("%5", "%7").replace("(%1)", "(%5)").replace(
        "(tensor<2x3xf32>) -> tensor<3x2xf32>", "(tensor<3x2xf32>) -> tensor<2x3xf32>"))
    assert _check(_pc(program), probed) is True


def _program(extra: str):
    return parse_text(PROGRAM.replace("EXTRA", extra), "t.pir", 4)


@pytest.mark.parametrize("extra,passes", [("", False), (ADD_OF_FULL, True), (FULL_LIKE, True)])
def test_a_probe_that_passes_is_found(extra, passes):
    program = _program(extra)
    fold = _dispatch(_pattern_sets()["const-fold"])
    assert _check(_pc(program), fold) is passes
    assert greedy._none_probed(_pc(program), fold) is not passes


def test_a_wrong_answer_is_caught(monkeypatch):
    """Mutations of the producers' side: always True, or a probe's operand index ignored
    (the uses at index 1 taken for index 0): the comparison fails."""
    fold = _dispatch(_pattern_sets()["const-fold"])
    for extra in (ADD_OF_FULL, FULL_LIKE):
        with pytest.raises(AssertionError):
            _check(_pc(_program(extra)), fold, lambda pc, d: True)
    shifted = {root: [(p, n, None if probe is None else (1 - probe[0],) + probe[1:], m)
                      for p, n, probe, m in entries] for root, entries in fold.items()}
    with pytest.raises(AssertionError):   # add(x, full) passes the shifted probe, not add's
        _check(_pc(_program("")), fold,
               lambda pc, d: greedy._none_probed(pc, shifted))


def test_a_root_the_program_lacks_reads_no_user(monkeypatch):
    """full_like's probe tests operand 1, which the program's constants feed (add(x, full),
    reshape(x, full_int_array)); without a full_like its probe is not asked, so no user of
    a constant is read (each read is a cold op at 100k ops), and the answer stays the
    general one: with a full_like it is asked again, and passes."""
    reads: list = []

    class Counted(greedy._NameOf):
        def __call__(self, op):
            reads.append(op.name)
            return super().__call__(op)

    monkeypatch.setattr(greedy, "_NameOf", Counted)
    fold = _dispatch(_pattern_sets()["const-fold"])
    assert _check(_pc(_program("")), fold) is False
    assert reads == []
    assert _check(_pc(_program(FULL_LIKE)), fold) is True
    assert "pd_op.full_like" in reads


def test_a_constant_removed_since_the_walk_is_not_read():
    """The op index's walk still lists the ops a pass took out (OpIndex.named); the
    producers' side skips them.  Here the full and the add(full, x) that passes its probe
    leave the block (detached as the watch counts them out: the add's use of the full
    stays): no op left passes, and the answer says so."""
    program = _program(ADD_OF_FULL)
    pc = _pc(program)
    index = pc.state.watch.index
    full = next(op for op in program.block.ops if op.name == "pd_op.full")
    add = next(op for op in program.block.ops if op.name == "pd_op.add" and op.operands[0].op is full)
    for op in (add, full):
        program.block.detach_op(op)
        index.op(op, -1)
    fold = _dispatch(_pattern_sets()["const-fold"])
    assert full in index.named(program.block, {"pd_op.full"})
    assert full not in index.ordered(program.block, {"pd_op.full"})
    assert _check(pc, fold) is False
    assert greedy._none_probed(pc, fold) is True
