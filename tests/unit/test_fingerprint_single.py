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


def _walked(ops, version: int) -> str:
    """The general walk's fingerprint of the subgraph `ops` (no memo, no shortcut)."""
    return Fingerprinter(version)._subgraph(list(ops))


def _all_ops(program):
    for top in program.block.ops:
        yield from top.walk()


def _neighbourhoods(program):
    """Small subgraphs as patterns match them: each op with the ops producing its operands,
    in block order and reversed (a producer after its user)."""
    for op in program.block.ops:
        producers = [v.op for v in op.operands if hasattr(v, "op") and v.op.parent is op.parent]
        if producers:
            ops = list(dict.fromkeys([*producers, op]))
            yield ops
            yield ops[::-1]


def _check(program) -> int:
    """Each op alone and each neighbourhood, twice (the second answer from the memo) with
    one Fingerprinter, against the walk; how many ops took the one-op shortcut."""
    memoised = Fingerprinter(program.version)
    shortcuts = 0
    subgraphs = [[op] for op in _all_ops(program)] + list(_neighbourhoods(program))
    for ops in subgraphs:
        expected = _walked(ops, program.version)
        names = [op.name for op in ops]
        assert memoised.ops(ops) == expected, names
        assert memoised.ops(ops) == expected, f"{names}, from the memo"
        shortcuts += len(ops) == 1 and memoised._single(ops[0]) is not None
    return shortcuts


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: f"{p.parent.name}/{p.name[: -len('.json')]}")
def test_memoised_fingerprints_are_the_walked_ones(path):
    _check(pirc.load(str(path)))


def test_the_shortcut_is_taken():
    program = pirc.load(str(CORPUS / "3.3.1" / "transformer.3.3.1.json"))
    assert _check(program) > 0.9 * program.op_count()


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(aliasing_programs(max_ops=10))
def test_memoised_fingerprints_of_generated_programs(g):
    _check(g.parse())


def test_an_op_reading_its_own_result_counts_it_as_a_free_input():
    """Only a broken program has one; the walk treats the edge back as a type, as the
    shortcut treats every operand."""
    program = pirc.load(str(CORPUS / "3.3.1" / "mlp.3.3.1.json"))
    op = next(o for o in program.block.ops if o.name == "pd_op.relu")
    op.operands = [op.results[0]]
    assert Fingerprinter(program.version).ops([op]) == _walked([op], program.version)


def test_an_edited_op_is_not_answered_from_the_memo():
    program = pirc.load(str(CORPUS / "3.3.1" / "mlp.3.3.1.json"))
    f = Fingerprinter(program.version)
    relu = next(o for o in program.block.ops if o.name == "pd_op.relu")
    before = f.ops([relu])
    relu.attributes["stop_gradient"] = ArrayAttr([])
    after = f.ops([relu])
    assert after != before and after == _walked([relu], program.version)
    # An operand of another type: the same static key, other inputs.
    other = next(o.results[0] for o in program.block.ops
                 if o.results and o.results[0].type != relu.operands[0].type)
    relu.operands = [other]
    assert f.ops([relu]) == _walked([relu], program.version) != after


def test_a_cycle_and_an_op_given_twice_give_the_walked_fingerprint():
    """Only a broken program has a cycle: which edge counts as a free input depends on the
    order of the ops, which the memo's shape keeps; an op given twice is not memoised."""
    program = pirc.load(str(CORPUS / "3.3.1" / "mlp.3.3.1.json"))
    relu = next(o for o in program.block.ops if o.name == "pd_op.relu")
    producer = relu.operands[0].op
    f = Fingerprinter(program.version)
    assert f.ops([producer, relu, relu]) == _walked([producer, relu, relu], program.version)
    producer.operands = [relu.results[0] if v is producer.operands[0] else v for v in producer.operands]
    for ops in ([producer, relu], [relu, producer]):
        assert f.ops(ops) == _walked(ops, program.version)


def test_a_small_subgraph_rewired_is_not_answered_from_the_memo():
    """Each op's static key stays as it was; what changes is a free input's type, then which
    result of a producer inside the subgraph an op reads."""
    program = pirc.load(str(CORPUS / "3.3.1" / "cnn.3.3.1.json"))
    f = Fingerprinter(program.version)
    bn = next(o for o in program.block.ops if o.name == "pd_op.batch_norm_")
    user = next(iter(bn.results[0].uses)).operation
    subgraph = [bn, user]
    first = f.ops(subgraph)
    assert first == _walked(subgraph, program.version)
    x = bn.operands[0]
    other = next(o.results[0] for o in program.block.ops
                 if o.results and o is not bn and o.results[0].type != x.type)
    bn.operands = [other, *bn.operands[1:]]
    retyped = f.ops(subgraph)
    assert retyped == _walked(subgraph, program.version) != first
    user.operands = [bn.results[1] if v is bn.results[0] else v for v in user.operands]
    assert f.ops(subgraph) == _walked(subgraph, program.version) != retyped


@pytest.mark.parametrize("name", ["transformer", "cnn"])
def test_kept_static_keys_give_the_walked_fingerprint(name):
    """After a look at the program, `ops` with `changed` reads each op's kept static key
    and memoises by its identity: each op alone, twice, against the walk; then an op edited
    since the look and named in `changed` is spelled as it is now, while an op sharing its
    kept key object still gets the fingerprint it had."""
    program = pirc.load(str(CORPUS / "3.3.1" / f"{name}.3.3.1.json"))
    f = Fingerprinter(program.version)
    f.program(program)
    changed: dict = {}
    tops = list(program.block.ops)
    for op in tops + tops:
        assert f.ops([op], changed) == _walked([op], program.version), op.name
    shared: dict = {}
    for op in tops:
        if not op.regions and not op.properties and op.attributes:
            shared.setdefault(id(f.kept_static(op, changed)), []).append(op)
    edited, other = next(group for group in shared.values() if len(group) > 1)[:2]
    before = f.ops([edited], changed)
    edited.attributes[next(iter(edited.attributes))] = ArrayAttr([])
    changed[id(edited)] = edited
    after = f.ops([edited], changed)
    assert after == _walked([edited], program.version) != before
    assert f.ops([other], changed) == before == _walked([other], program.version)
