"""The greedy driver's fast paths (pirc.passes.infra.greedy) give what its general path gives.

* A pattern's `probe` (the producer its root's operand must come from), tested by the driver
  before the call: an op failing it is one `match_and_rewrite` would have left alone,
  having recorded nothing (no match, no skip, no near miss).
* The first round's candidates from the walk that built the pipeline's op index
  (`OpIndex.ordered`): while that walk is the program's, the ops `_collect` finds, in its
  order; once an op was added (or the program holds nested ops), no list at all.
"""

from __future__ import annotations

import pytest

import pirc
from pirc.passes import run_pipeline
from pirc.passes.canonicalize import Canonicalize
from pirc.passes.const_fold import ConstantFolding, Constants, FoldOp
from pirc.passes.folding.rules import RULES as FOLD_RULES
from pirc.passes.infra import greedy
from pirc.passes.infra.declarative import _pending
from pirc.passes.infra.ir_watch import IRWatch
from pirc.passes.infra.op_index import OpIndex
from pirc.passes.infra.pass_base import PassContext
from pirc.text.parser import parse_text

from corpus_files import FIXTURES
from pass_programs import PROGRAMS, load_program



def _ops(block):
    out = []
    greedy._collect(block, _AnyName(), out)
    return out


class _AnyName:
    def __contains__(self, name):
        return True


# -- the probe ----------------------------------------------------------------------------


def _probed_patterns(pc):
    patterns = [p for p in Canonicalize.patterns() if p.probe is not None]
    constants = Constants(pc)
    patterns += [f for f in (FoldOp(root, rule, constants, 1024) for root, rule in FOLD_RULES.items())
                 if f.probe is not None]
    return patterns


@pytest.mark.parametrize("key", sorted(PROGRAMS))
def test_an_op_failing_a_probe_is_one_the_pattern_leaves_alone(key):
    program = load_program(key)
    pc = PassContext(program, pass_obj=Canonicalize())
    patterns = _probed_patterns(pc)
    failed = 0
    for op in _ops(program.block):
        for p in patterns:
            if p.root != op.name or greedy._probed(op, p.probe):
                continue
            failed += 1
            assert p.match_and_rewrite(op, pc) is None, (p.name, op.name)
    assert (pc.matches, pc.rewrites, pc.skips, _pending(pc)) == (0, 0, [], {})
    if key == "generated-3000":
        assert failed > 500   # the comparison is not empty


def test_the_probes_the_rules_declare():
    probes = {p.name: p.probe for p in Canonicalize.patterns()}
    transpose = (0, frozenset({"pd_op.transpose"}), 0)
    assert probes["transpose-pair-identity"] == probes["compose-transposes"] == transpose
    assert probes["identity-scale"] == (1, frozenset({"pd_op.full"}), None)
    assert probes["compose-casts"] == (0, frozenset({"pd_op.cast"}), 0)
    # its forms differ (p made by a `full`, or by anything): no one producer to test
    assert probes["inference-dropout"] is None
    assert probes["forward-assign"] is None


TRANSPOSES = """{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[2,3],stop_gradient:[true]} : () -> tensor<2x3xf32>
    (%1) = "pd_op.relu" (%0) {stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    (%2) = "pd_op.transpose" (%1) {perm:[1,0],stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<3x2xf32>
    (%3) = "pd_op.transpose" (%2) {perm:[1,0],stop_gradient:[true]} : (tensor<3x2xf32>) -> tensor<2x3xf32>
    (%4) = "pd_op.fetch" (%3) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
}
"""


def test_the_driver_calls_only_the_patterns_whose_probe_holds(monkeypatch):
    """The first transpose reads a relu: the pair rules are not asked about it; the second
    reads a transpose: they are, and the pair is forwarded away."""
    asked = []
    for p in Canonicalize.patterns():
        if p.probe is not None:
            original = p.match_and_rewrite

            def spy(op, pc, original=original, p=p):
                asked.append((p.name, op.operands[0].op.name))
                return original(op, pc)
            monkeypatch.setattr(p, "match_and_rewrite", spy)
    program = parse_text(TRANSPOSES, "t.pir", 4)
    result = run_pipeline(program, "canonicalize")
    assert asked == [("transpose-pair-identity", "pd_op.transpose")]
    assert result.passes[0].rule_rewrites == {"transpose-pair-identity": 1}
    assert [op.name for op in _ops(program.block)] == ["pd_op.data", "pd_op.relu", "pd_op.fetch"]


# -- the first round's candidates from the op index's walk ---------------------------------

NAMES = Canonicalize.ops_of_interest() | ConstantFolding.interest


@pytest.mark.parametrize("key", sorted(PROGRAMS))
def test_the_index_walk_gives_the_candidates_collect_finds(key):
    program = load_program(key)
    block = program.block
    index = OpIndex(program)
    found = index.ordered(block, NAMES)
    every = _ops(block)
    if any(op.parent is not block for op in every):   # nested ops: the walk is not used
        assert found is None
        return
    expected = []
    greedy._collect(block, NAMES, expected)
    assert found == expected


@pytest.mark.parametrize("key", sorted(PROGRAMS))
def test_every_greedy_pass_of_default_collects_what_collect_finds(key, monkeypatch):
    """Through a whole pipeline (canonicalize's forwards erase ops, const-fold adds some):
    each list the driver starts from is `_collect`'s."""
    used = []
    candidates = greedy._candidates

    def checked(pc, names):
        found = candidates(pc, names)
        expected = []
        greedy._collect(pc.program.block, names, expected)
        assert found == expected, pc.pass_name
        watch = pc.state.watch
        used.append(watch.index.ordered(pc.program.block, names) is not None)
        return found
    monkeypatch.setattr(greedy, "_candidates", checked)
    run_pipeline(load_program(key), "default")
    if key == "generated-3000":
        assert used and used[0]   # canonicalize, the first pass, took the index's walk


def _watched_index(text: str):
    program = parse_text(text, "t.pir", 4)
    return program, OpIndex(program)


def test_an_op_erased_leaves_the_walk_an_op_added_ends_it():
    program, index = _watched_index(TRANSPOSES)
    block = program.block
    names = {"pd_op.transpose", "pd_op.fetch"}
    first, second = [op for op in _ops(block) if op.name == "pd_op.transpose"]
    assert OpIndex(program).ordered(block, names) == [first, second, block.last_op]
    assert index.ordered(block, names) == [first, second, block.last_op]
    with IRWatch(program, index=index):
        second.results[0].replace_all_uses_with(first.results[0])
        block.erase_op(second)
    assert index.ordered(block, names) == [first, block.last_op]
    for general in (False, True):   # the watch's inline count of an insertion, and `_edit`'s
        program, index = _watched_index(TRANSPOSES)
        block = program.block
        clone = block.first_op.next_op.next_op.clone()
        with IRWatch(program, general=general, index=index) as watch:
            watch.open = object()   # inside a rewrite: the inline path's case
            block.insert_op_before(clone, block.last_op)
        assert index.ordered(block, names) is None
        assert index.counts["pd_op.transpose"] == 3


def test_a_program_with_nested_ops_has_no_walk_to_give():
    program = pirc.load(str(FIXTURES / "control_flow" / "3.0.0" / "if_elif.json"))
    assert any(op.parent is not program.block for op in _ops(program.block))
    assert OpIndex(program).ordered(program.block, NAMES) is None
