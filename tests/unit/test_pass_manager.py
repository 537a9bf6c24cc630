"""The pass manager: the verifier and each declared invariant after every pass (a broken
pass trips each one), skips by device and program version with their reasons, and the
statistics a report shows."""

from __future__ import annotations

from pathlib import Path

from dataclasses import dataclass

import pytest

from pirc.ir.builder import append_op
from pirc.ir.registry import op_class
from pirc.passes import PassFailure, PircPass, register_pass, run_pipeline
from pirc.passes.infra.rewrites import ANY_OP, OpUse
from pirc.text.parser import parse_text

import broken_passes  # noqa: F401 - registers test-breaks-verifier

# The program of tests/lit/passes: a duplicate tanh, an unused relu.
PROGRAM = (Path(__file__).resolve().parents[1] / "lit" / "passes" / "Inputs" / "small.pir").read_text()


def program():
    return parse_text(PROGRAM, "p.pir", 4)


def ops(p):
    return [op.name for op in p.block.ops]


@register_pass
@dataclass(frozen=True)
class _LeavesDeadOps(PircPass):
    """Claims no-dead-ops but adds an unused relu."""

    name = "test-leaves-dead-ops"
    invariants = ("verified", "no-dead-ops")
    rewrites = {"pd_op.data": OpUse(ANY_OP)}

    def run(self, pc):
        data = pc.program.block.first_op
        rewrite = pc.begin([data])
        relu = append_op(op_class("pd_op.relu", 4), [data.results[0]], [data.results[0].type],
                         {"stop_gradient": next(iter(pc.program.block.ops)).attributes["stop_gradient"]}, None)
        pc.program.block.insert_op_after(relu, data)
        rewrite.done([relu])


@register_pass
@dataclass(frozen=True)
class _ClaimsNoCommonSubexpressions(PircPass):
    """Claims no-common-subexpressions and changes nothing."""

    name = "test-claims-cse"
    invariants = ("no-common-subexpressions",)

    def run(self, pc):
        pass


@register_pass
@dataclass(frozen=True)
class _NpuOnly(PircPass):
    name = "test-npu-only"
    devices = ("npu",)

    def run(self, pc):
        pc.rewrote()


@register_pass
@dataclass(frozen=True)
class _OldProgramsOnly(PircPass):
    name = "test-versions-1-2"
    pir_versions = (1, 2)

    def run(self, pc):
        pc.rewrote()


def test_default_removes_dead_and_duplicate_ops():
    p = program()
    result = run_pipeline(p, "default")
    assert ops(p) == ["pd_op.data", "pd_op.tanh", "pd_op.add", "pd_op.fetch"]
    canonicalize, fold, conv_bn, param_fold, cse, dce = result.passes
    assert [r.rewrites for r in (canonicalize, fold, conv_bn, param_fold)] == [0, 0, 0, 0]
    assert (cse.name, cse.rewrites, cse.ops_before, cse.ops_after) == ("cse", 1, 6, 5)
    assert (dce.name, dce.rewrites, dce.ops_before, dce.ops_after) == ("dce", 1, 5, 4)


def test_a_second_run_changes_nothing():
    p = program()
    run_pipeline(p, "default")
    assert not run_pipeline(p, "default").changed


@pytest.mark.parametrize("spec, invariant", [
    ("test-breaks-verifier", "verified"),
    ("test-leaves-dead-ops", "no-dead-ops"),
    ("test-claims-cse", "no-common-subexpressions"),
])
def test_each_invariant_is_checked_after_its_pass(spec, invariant):
    with pytest.raises(PassFailure) as e:
        run_pipeline(program(), f"dce,{spec}")
    assert e.value.pass_name == spec and e.value.invariant == invariant and e.value.index == 1
    assert f"pass '{spec}' (#2 of the pipeline)" in str(e.value)


@pytest.mark.parametrize("spec, message", [
    ("test-uses-later-value", "pd_op.tanh: operand 0 is used before its definition"),
    ("test-erases-used-op", "pd_op.relu: operand 0 is used before its definition"),
])
def test_the_verifier_after_a_pass_sees_what_it_touched(spec, message):
    # after a first pass, the manager verifies only the ops a pass touched: these breakages
    # are in ops the broken pass did not edit (the erased op's users) or only moved an edge
    with pytest.raises(PassFailure) as e:
        run_pipeline(program(), f"cse,{spec}")
    assert e.value.pass_name == spec and e.value.invariant == "verified"
    assert message in str(e.value)


def test_no_verify_each_skips_the_verifier_but_not_declared_invariants():
    run_pipeline(program(), "test-breaks-verifier", verify_each=False)  # no error
    with pytest.raises(PassFailure):
        run_pipeline(program(), "test-leaves-dead-ops", verify_each=False)


def test_device_and_version_gates_skip_whole_passes_with_the_reason():
    p = program()
    result = run_pipeline(p, "test-npu-only,test-versions-1-2")
    npu, old = result.passes
    assert not npu.ran and npu.skipped_reason == "device: test-npu-only runs on npu, not cpu"
    assert not old.ran and old.skipped_reason.startswith("version: test-versions-1-2 is declared safe "
                                                         "for PIR versions 1-2, the program is version 4")
    assert run_pipeline(p, "test-npu-only", device="npu").passes[0].ran
    assert run_pipeline(parse_text(PROGRAM, "p.pir", 2), "test-versions-1-2").passes[0].ran


def test_effects_keep_what_matters():
    # an unused pure op goes; feeds and fetches stay (test_effects.py covers the rest)
    text = PROGRAM.replace(
        '    (%5) =',
        '    (%6) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],value:(Double)1} : () -> tensor<1xf32>\n    (%5) =')
    p = parse_text(text, "p.pir", 4)
    run_pipeline(p, "dce")
    assert "pd_op.full" not in ops(p) and ops(p)[0] == "pd_op.data" and ops(p)[-1] == "pd_op.fetch"


def test_the_kill_switch_is_read_for_each_program(monkeypatch):
    monkeypatch.setenv("PIRC_DISABLE_PASSES", "cse")
    p = program()
    result = run_pipeline(p, "default")
    no_params = "params: {} needs the parameter values: --params FILE.pdiparams".format
    assert [(r.name, r.ran, r.skipped_reason) for r in result.passes] == [
        ("canonicalize", True, None), ("const-fold", True, None),
        ("conv-bn-fold", False, no_params("conv-bn-fold")), ("param-fold", False, no_params("param-fold")),
        ("cse", False, "rollout: disabled by PIRC_DISABLE_PASSES"), ("dce", True, None)]
    assert ops(p).count("pd_op.tanh") == 2  # not merged
    monkeypatch.setenv("PIRC_DISABLE_PASSES", "all")
    assert not any(r.ran for r in run_pipeline(program(), "default").passes)
    monkeypatch.delenv("PIRC_DISABLE_PASSES")  # the same process, the next program: back on
    assert all(r.ran or r.skipped_reason.startswith("params: ")
               for r in run_pipeline(program(), "default").passes)


def test_the_kill_switch_refuses_unknown_names(monkeypatch):
    from pirc.passes import PipelineError

    monkeypatch.setenv("PIRC_DISABLE_PASSES", "cse,dec")
    with pytest.raises(PipelineError) as e:
        run_pipeline(program(), "default")
    assert "PIRC_DISABLE_PASSES: unknown pass 'dec' (did you mean 'dce'?); the passes it can disable:" in str(e.value)
