"""dce's candidate path (pirc.passes.dce `_candidates`) gives what its walk (`_block`) gives.

In a pipeline, dce visits only the ops that may have no used result (the op index's
`unused` and `new`, pirc.passes.infra.op_index: the ops the first look found unused, each op
a value of which lost its last use since, each op added since) and the producers its
erasures leave unused, from the block's end; the walk visits every op from the block's end.
The two must ask the gate about the same ops in the same order: the same ops erased, the
same pass report (its rewrites' fingerprints, in order), the same program after.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

import pirc
from pirc.passes import dce, run_pipeline
from pirc.passes.infra import rewrites
from pirc.passes.infra.fingerprint import Fingerprinter
from pirc.passes.infra.op_index import OpIndex
from pirc.testing.strategies import aliasing_programs

from pass_programs import PROGRAMS, load_program

# Pipelines whose earlier passes leave ops unused (or add ops) before dce runs, and dce twice.
PIPELINES = ("default", "dce", "canonicalize,const-fold,dce,cse,dce")


class _Asked:
    """Records each op dce asks the gate about (its name and place in the block), and which
    of dce's paths ran."""

    def __init__(self, monkeypatch, walk: bool):
        self.asked: list = []
        self.paths: list = []
        gate, candidates, block = rewrites.gate, dce._candidates, dce._block

        def logged_gate(pc, ops):
            if pc.pass_name == "dce":
                ops = list(ops)
                places = {id(op): i for i, op in enumerate(pc.program.block.ops)}
                self.asked.append([(op.name, places.get(id(op))) for op in ops])
            return gate(pc, ops)

        def logged_candidates(*args):
            self.paths.append("candidates")
            return candidates(*args)

        def logged_block(block_, pc):
            if block_ is pc.program.block:
                self.paths.append("walk")
            return block(block_, pc)

        monkeypatch.setattr(rewrites, "gate", logged_gate)
        monkeypatch.setattr(dce, "_candidates", logged_candidates)
        monkeypatch.setattr(dce, "_block", logged_block)
        if walk:   # the index vouches for nothing: dce walks
            monkeypatch.setattr(OpIndex, "take_unused", lambda self, block: None)


def _run(program, pipeline: str, monkeypatch, walk: bool) -> tuple:
    with monkeypatch.context() as m:
        asked = _Asked(m, walk)
        result = run_pipeline(program, pipeline, verify_each="incremental")
    reports = [{k: v for k, v in r.as_json().items() if k != "seconds"} for r in result.passes]
    return asked, reports, pirc.to_text(program)


def _compare(make, pipeline: str, monkeypatch) -> list:
    walked, walked_reports, walked_text = _run(make(), pipeline, monkeypatch, walk=True)
    fast, fast_reports, fast_text = _run(make(), pipeline, monkeypatch, walk=False)
    assert "candidates" not in walked.paths
    assert fast.asked == walked.asked
    assert fast_reports == walked_reports
    assert fast_text == walked_text
    return fast.paths


@pytest.mark.parametrize("pipeline", PIPELINES)
@pytest.mark.parametrize("key", sorted(PROGRAMS))
def test_the_candidates_are_the_walk_on_the_corpus(key, pipeline, monkeypatch):
    paths = _compare(lambda: load_program(key), pipeline, monkeypatch)
    if key == "generated-3000":
        assert paths and set(paths) == {"candidates"}   # the comparison is not of two walks


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(generated=aliasing_programs(max_ops=12))
def test_the_candidates_are_the_walk_on_generated_programs(generated, monkeypatch):
    for pipeline in PIPELINES:
        _compare(generated.parse, pipeline, monkeypatch)


# Ops left unused before dce: %2 from the start and %1 once dce erases %2 (a producer an
# erasure leaves unused), the two `full`s const-fold folds into one (values that lose their
# last use during the pipeline), the relu_ of an unread exp (an in-place write nobody sees).
DEAD = """{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[3],stop_gradient:[true]} : () -> tensor<3xf32>
    (%1) = "pd_op.exp" (%0) {stop_gradient:[true]} : (tensor<3xf32>) -> tensor<3xf32>
    (%2) = "pd_op.relu" (%1) {stop_gradient:[true]} : (tensor<3xf32>) -> tensor<3xf32>
    (%3) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[3],stop_gradient:[true],value:2} : () -> tensor<3xf32>
    (%4) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[3],stop_gradient:[true],value:3} : () -> tensor<3xf32>
    (%5) = "pd_op.add" (%3, %4) {stop_gradient:[true]} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    (%6) = "pd_op.multiply" (%0, %5) {stop_gradient:[true]} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    (%7) = "pd_op.exp" (%0) {stop_gradient:[true]} : (tensor<3xf32>) -> tensor<3xf32>
    (%8) = "pd_op.relu_" (%7) {stop_gradient:[true]} : (tensor<3xf32>) -> tensor<3xf32>
    (%9) = "pd_op.fetch" (%6) {col:0,name:"y",persistable:[true],stop_gradient:[true]} : (tensor<3xf32>) -> tensor<3xf32>
}"""
LEFT = ["pd_op.data", "pd_op.full", "pd_op.multiply", "pd_op.fetch"]


def test_the_candidates_hold_what_earlier_passes_left_unused(monkeypatch):
    program = pirc.parse(DEAD, from_version=4)
    with monkeypatch.context() as m:
        asked = _Asked(m, walk=False)
        result = run_pipeline(program, "const-fold,dce", verify_each="incremental")
    assert asked.paths == ["candidates"]
    assert [op.name for op in program.block.ops] == LEFT
    assert result.passes[-1].rewrites == 6
    assert _compare(lambda: pirc.parse(DEAD, from_version=4), "const-fold,dce", monkeypatch) == ["candidates"]


def test_without_the_watch_s_records_the_candidates_would_miss_dead_ops(monkeypatch):
    """What the comparison above guards against: were the ops that lose their last use
    during the pipeline not recorded, the candidates would miss the `full`s const-fold left."""
    monkeypatch.setattr(OpIndex, "lost_use", lambda self, op: None)
    program = pirc.parse(DEAD, from_version=4)
    run_pipeline(program, "const-fold,dce", verify_each="incremental")
    assert [op.name for op in program.block.ops] != LEFT


def test_the_first_look_notes_the_unused_ops_once():
    program = pirc.parse(DEAD, from_version=4)
    f = Fingerprinter(program.version)
    f.program(program)
    unused = f.walked(program.block)[3]
    assert [op.name for op in unused] == ["pd_op.relu", "pd_op.relu_", "pd_op.fetch"]
    assert f.walked(program.block) is None   # handed out once
    f.program(program)   # a second look compares: it notes nothing
    assert f.walked(program.block) is None


@pytest.mark.parametrize("level", ["full", False])
def test_without_the_block_order_dce_walks(level, monkeypatch):
    program = pirc.parse(DEAD, from_version=4)
    with monkeypatch.context() as m:
        asked = _Asked(m, walk=False)
        run_pipeline(program, "const-fold,dce", verify_each=level)
    assert asked.paths == ["walk"]
    assert [op.name for op in program.block.ops] == LEFT
