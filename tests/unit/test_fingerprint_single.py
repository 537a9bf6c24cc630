"""The fingerprint of a one-op subgraph (what most rewrites match: cse's merges, canonicalize's
forwards) is memoised by the op's static key and its operands' types, and that of a few ops
by their shape (pirc.passes.infra.fingerprint.Fingerprinter._single and _few).  It must be
the fingerprint the general subgraph walk gives for the same ops, for every op (and each op
with its producers) of every corpus program and of generated ones, and a memoised value must
not outlive an edit of the ops."""

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



def _neighbourhoods(program):
    """Small subgraphs as patterns match them: each op with the ops producing its operands,
    in block order and reversed (a producer after its user)."""
    for op in program.block.ops:
        producers = [v.op for v in op.operands if hasattr(v, "op") and v.op.parent is op.parent]
        if producers:
            ops = list(dict.fromkeys([*producers, op]))
            yield ops
            yield ops[::-1]


def _check_neighbourhoods(program) -> None:
    memoised = Fingerprinter(program.version)
    for ops in _neighbourhoods(program):
        expected = _walked_all(ops, program.version)
        assert memoised.ops(ops) == expected, [op.name for op in ops]
        assert memoised.ops(ops) == expected, f"{[op.name for op in ops]}, from the memo"


def _walked_all(ops, version: int) -> str:
    return Fingerprinter(version)._subgraph(list(ops))


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: f"{p.parent.name}/{p.name[: -len('.json')]}")
def test_small_subgraph_fingerprints_are_the_walked_ones(path):
    _check_neighbourhoods(pirc.load(str(path)))


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(aliasing_programs(max_ops=10))
def test_small_subgraph_fingerprints_of_generated_programs(g):
    _check_neighbourhoods(g.parse())


def test_a_cycle_and_an_op_given_twice_give_the_walked_fingerprint():
    """Only a broken program has a cycle: which edge counts as a free input depends on the
    order of the ops, which the memo's shape keeps; an op given twice is not memoised."""
    program = pirc.load(str(CORPUS / "3.3.1" / "mlp.3.3.1.json"))
    relu = next(o for o in program.block.ops if o.name == "pd_op.relu")
    producer = relu.operands[0].op
    f = Fingerprinter(program.version)
    assert f.ops([producer, relu, relu]) == _walked_all([producer, relu, relu], program.version)
    producer.operands = [relu.results[0] if v is producer.operands[0] else v for v in producer.operands]
    for ops in ([producer, relu], [relu, producer]):
        assert f.ops(ops) == _walked_all(ops, program.version)


def test_a_small_subgraph_rewired_is_not_answered_from_the_memo():
    """Each op's static key stays as it was; what changes is a free input's type, then which
    result of a producer inside the subgraph an op reads."""
    program = pirc.load(str(CORPUS / "3.3.1" / "cnn.3.3.1.json"))
    f = Fingerprinter(program.version)
    bn = next(o for o in program.block.ops if o.name == "pd_op.batch_norm_")
    user = next(iter(bn.results[0].uses)).operation
    subgraph = [bn, user]
    first = f.ops(subgraph)
    assert first == _walked_all(subgraph, program.version)
    x = bn.operands[0]
    other = next(o.results[0] for o in program.block.ops
                 if o.results and o is not bn and o.results[0].type != x.type)
    bn.operands = [other, *bn.operands[1:]]
    retyped = f.ops(subgraph)
    assert retyped == _walked_all(subgraph, program.version) != first
    user.operands = [bn.results[1] if v is bn.results[0] else v for v in user.operands]
    assert f.ops(subgraph) == _walked_all(subgraph, program.version) != retyped
