"""The fingerprint of a one-op subgraph (what most rewrites match: cse's merges, canonicalize's
forwards) is memoised by the op's static key and its operands' types
(pirc.passes.infra.fingerprint.Fingerprinter._single).  It must be the fingerprint the general
subgraph walk gives for the same op, for every op of every corpus program and of generated
ones, and a memoised value must not outlive an edit of the op."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from xdsl.dialects.builtin import ArrayAttr

import pirc
from pirc.passes.infra.fingerprint import Fingerprinter
from pirc.testing.strategies import aliasing_programs

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "corpus"
PROGRAMS = sorted(p for p in CORPUS.glob("3.*/*.json") if not p.name.startswith("gen_log"))


def _walked(op, version: int) -> str:
    """The general walk's fingerprint of `op` alone (no one-op shortcut)."""
    return Fingerprinter(version)._subgraph([op])


def _all_ops(program):
    for top in program.block.ops:
        yield from top.walk()


def _check_every_op(program) -> int:
    memoised = Fingerprinter(program.version)   # one for all ops: its memo is shared
    checked = 0
    for op in _all_ops(program):
        expected = _walked(op, program.version)
        assert memoised.ops([op]) == expected, op.name
        assert memoised.ops([op]) == expected, f"{op.name}, from the memo"
        checked += memoised._single(op) is not None
    return checked


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: f"{p.parent.name}/{p.name[: -len('.json')]}")
def test_one_op_fingerprints_are_the_walked_ones(path):
    program = pirc.load(str(path))
    _check_every_op(program)


def test_the_shortcut_is_taken():
    program = pirc.load(str(CORPUS / "3.3.1" / "transformer.3.3.1.json"))
    assert _check_every_op(program) > 0.9 * program.op_count()


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(aliasing_programs(max_ops=10))
def test_one_op_fingerprints_of_generated_programs(g):
    _check_every_op(g.parse())


def test_an_op_reading_its_own_result_counts_it_as_a_free_input():
    """Only a broken program has one; the walk treats the edge back as a type, as the
    shortcut treats every operand."""
    program = pirc.load(str(CORPUS / "3.3.1" / "mlp.3.3.1.json"))
    op = next(o for o in program.block.ops if o.name == "pd_op.relu")
    op.operands = [op.results[0]]
    assert Fingerprinter(program.version).ops([op]) == _walked(op, program.version)


def test_an_edited_op_is_not_answered_from_the_memo():
    program = pirc.load(str(CORPUS / "3.3.1" / "mlp.3.3.1.json"))
    f = Fingerprinter(program.version)
    relu = next(o for o in program.block.ops if o.name == "pd_op.relu")
    before = f.ops([relu])
    relu.attributes["stop_gradient"] = ArrayAttr([])
    after = f.ops([relu])
    assert after != before and after == _walked(relu, program.version)
    # An operand of another type: the same static key, other inputs.
    other = next(o.results[0] for o in program.block.ops
                 if o.results and o.results[0].type != relu.operands[0].type)
    relu.operands = [other]
    assert f.ops([relu]) == _walked(relu, program.version) != after

