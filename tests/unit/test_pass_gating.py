"""The rewrite gate: semantic-version gating per op, conservative mode, rewrite-twice
protection; each skip counted with its reason, op and fingerprint."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from pirc.ir.program import Manifest
from pirc.passes import run_pipeline
from pirc.passes.infra.rewrites import RewriteConflictError
from pirc.text.parser import parse_text

import gating_passes  # noqa: F401 - registers the test-* passes

INPUTS = Path(__file__).resolve().parents[1] / "lit" / "passes" / "Inputs"


def cast_program(version: int):
    return parse_text((INPUTS / "cast.pir").read_text(), "cast.pir", version)


def small_program():
    return parse_text((INPUTS / "small.pir").read_text(), "small.pir", 4)


@pytest.mark.parametrize("version", [1, 2])
def test_an_op_of_another_semantic_version_is_skipped_with_the_reason(version):
    result = run_pipeline(cast_program(version), "test-cast-v3")
    record = result.passes[0]
    assert record.ran and record.matches == 1 and record.rewrites == 0
    (skip,) = record.skips
    assert skip.op == "pd_op.cast" and skip.fingerprint.startswith("pfp1:")
    assert skip.reason == (f"version: pd_op.cast at PIR version {version} has semantic version 1; "
                           "test-cast-v3 was written for 3")


@pytest.mark.parametrize("version", [3, 4])
def test_an_op_of_the_declared_semantic_version_is_rewritten(version):
    record = run_pipeline(cast_program(version), "test-cast-v3").passes[0]
    assert record.rewrites == 1 and record.skips == []
    (detail,) = record.rewrites_detail
    assert detail["fingerprint"].startswith("pfp1:") and detail["produced"].startswith("pfp1:")


def foreign(program):
    """`program` as another pirc would have written it."""
    program.manifest = Manifest("0.0.9", program.version, "ovs1:" + "0" * 64, "cse")
    return program


def test_a_program_from_another_pirc_runs_conservatively():
    result = run_pipeline(foreign(cast_program(4)), "test-cast-v3,test-produces-relu,cse")
    assert result.conservative == "the program was optimised by pirc 0.0.9, this is pirc 0.1.0"
    cast, relu, cse = result.passes
    # declared conservative-safe as a pass, but not its use of cast
    assert cast.ran and cast.rewrites == 0
    assert cast.skips[0].reason.startswith("conservative mode (the program was optimised by pirc 0.0.9")
    # not declared conservative-safe: skipped whole
    assert not relu.ran and relu.skipped_reason.startswith("conservative mode: ")
    assert cse.ran


def test_another_op_version_set_or_unknown_tags_are_conservative_too():
    p = cast_program(4)
    p.manifest = Manifest("0.1.0", 4, "ovs1:" + "1" * 64, "cse")
    assert "another op-version set" in run_pipeline(p, "cse").conservative
    p = cast_program(4)
    run_pipeline(p, "test-cast-v3")  # our own tags and manifest: not conservative
    assert run_pipeline(p, "cse").conservative is None
    p.graph_tags[0] = replace(p.graph_tags[0], pass_version=7)
    assert run_pipeline(p, "cse").conservative == (
        "its graph tags name test-cast-v3 version 7, this pirc has version 1")


def test_rewriting_another_pass_output_is_a_conflict_naming_both():
    with pytest.raises(RewriteConflictError) as e:
        run_pipeline(small_program(), "test-produces-relu,test-rewrites-relu")
    assert e.value.passes == ("test-produces-relu", "test-rewrites-relu")
    assert "test-rewrites-relu matched pd_op.relu, which test-produces-relu produced" in str(e.value)


def test_declared_or_cleanup_passes_may_rewrite_it():
    result = run_pipeline(small_program(), "test-produces-relu,test-rewrites-relu-after,cse,dce")
    assert [r.rewrites for r in result.passes] == [1, 1, 1, 1]


def test_a_skipped_rewrite_leaves_the_program_unchanged():
    p = cast_program(1)
    before = [op.name for op in p.walk()]
    run_pipeline(p, "test-cast-v3")
    assert [op.name for op in p.walk()] == before and p.graph_tags == []
