"""Issue 24: a pass with nothing to do costs nothing.  A pass none of whose ops of interest is
in the program is not run (the manager's op index, kept current by the IR watch), and its
report is that of a run that found nothing; a weight pass run without parameters is skipped
whole, with the reason."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

import pirc
from pirc.ir.registry import op_class
from pirc.passes import PassFailure, PircPass, register_pass, run_pipeline
from pirc.passes.canonicalize import Canonicalize
from pirc.passes.const_fold import ConstantFolding
from pirc.passes.folding.rules import RULES
from pirc.passes.infra import ir_watch
from pirc.passes.infra.ir_watch import IRWatch
from pirc.passes.infra.op_index import OpIndex
from pirc.passes.infra.registry import get_pass
from pirc.passes.infra.rewrites import ANY_OP, OpUse
from pirc.text.parser import parse_text

TESTS = Path(__file__).resolve().parents[1]
SMALL = TESTS / "lit" / "passes" / "Inputs" / "small.pir"
CORPUS = TESTS / "fixtures" / "corpus" / "3.3.1"


def small():
    # data, relu, tanh, tanh, add, fetch: nothing canonicalize or const-fold starts from
    return parse_text(SMALL.read_text(), str(SMALL), 4)


def _counts(program) -> dict:
    out: dict = {}
    for op in program.walk():
        if op is not program.module:
            out[op.name] = out.get(op.name, 0) + 1
    return out


@register_pass
@dataclass(frozen=True)
class _ErasesUnseen(PircPass):
    """Erases the unused relu through the gate, with the watch looking away: an edit the op
    index cannot count (as `Region.move_blocks` would be)."""

    name = "test-idle-erases-unseen"
    rewrites = {"pd_op.relu": OpUse(ANY_OP)}

    def run(self, pc):
        relu = next(op for op in pc.program.block.ops if op.name == "pd_op.relu")
        rewrite = pc.begin([relu])
        active, ir_watch._ACTIVE = ir_watch._ACTIVE, None
        try:
            relu.parent.erase_op(relu)
        finally:
            ir_watch._ACTIVE = active
        rewrite.done()


@register_pass
@dataclass(frozen=True)
class _MakesAssign(PircPass):
    """Puts an assign between the data op and the relu."""

    name = "test-idle-makes-assign"
    rewrites = {"pd_op.relu": OpUse(ANY_OP)}

    def run(self, pc):
        relu = next(op for op in pc.program.block.ops if op.name == "pd_op.relu")
        rewrite = pc.begin([relu])
        x = relu.operands[0]
        assign = op_class("pd_op.assign", pc.version).create(
            operands=[x], result_types=[x.type], attributes={"stop_gradient": relu.attributes["stop_gradient"]})
        relu.parent.insert_op_before(assign, relu)
        relu.operands = [assign.results[0]]
        rewrite.done([assign])


@register_pass
@dataclass(frozen=True)
class _CountsAssigns(PircPass):
    """Counts the assigns (a pass that starts from them)."""

    name = "test-idle-counts-assigns"
    interest = frozenset({"pd_op.assign"})

    def run(self, pc):
        assert any(op.name == "pd_op.assign" for op in pc.program.walk()), "run with no assign"
        pc.matched(sum(op.name == "pd_op.assign" for op in pc.program.walk()))


def test_the_interest_of_a_declarative_pass_is_its_rules_roots():
    assert Canonicalize.ops_of_interest() == {"pd_op.assign", "pd_op.dropout", "pd_op.scale",
                                              "pd_op.cast", "pd_op.transpose", "pd_op.reshape"}
    assert ConstantFolding.ops_of_interest() == set(RULES)
    assert get_pass("conv-bn-fold").ops_of_interest() == {"pd_op.batch_norm_", "pd_op.batch_norm"}
    assert get_pass("param-fold").ops_of_interest() == {"builtin.parameter"}
    assert get_pass("cse").ops_of_interest() is None and get_pass("dce").ops_of_interest() is None
    for name in ("fuse-gelu", "fuse-rms-norm", "fuse-attention"):
        assert get_pass(name).ops_of_interest(), name


def test_a_pass_whose_ops_are_absent_is_not_run(monkeypatch):
    def crash(self, pc):
        raise AssertionError("ran")

    monkeypatch.setattr(Canonicalize, "run", crash)
    p = small()
    record = run_pipeline(p, "canonicalize").passes[0]
    # the report of a run that found nothing
    assert record.ran and record.skipped_reason is None
    assert (record.matches, record.rewrites, record.skips, record.near_misses) == (0, 0, [], {})
    assert (record.ops_before, record.ops_after) == (6, 6)
    # one op it starts from, and it runs
    text = SMALL.read_text().replace('"pd_op.relu"', '"pd_op.assign"')
    with pytest.raises(PassFailure, match="crashed: AssertionError: ran"):
        run_pipeline(parse_text(text, str(SMALL), 4), "canonicalize")


def test_an_op_an_earlier_pass_made_wakes_a_later_one():
    p = small()
    assert run_pipeline(p, "test-idle-counts-assigns").passes[0].matches == 0   # not run
    result = run_pipeline(p, "test-idle-makes-assign,test-idle-counts-assigns")
    made, counted = result.passes
    assert made.rewrites == 1 and counted.matches == 1
    assert counted.ops_after == p.op_count() == 7


def test_the_index_follows_every_edit_the_watch_sees():
    p = pirc.load(str(CORPUS / "control_flow.3.3.1.json"))
    index = OpIndex(p)
    assert index.total == p.op_count() and index.counts == _counts(p)
    block = p.block
    with IRWatch(p, index=index):
        ops = list(block.ops)
        region_op = next(op for op in p.walk() if op.regions and op is not p.module)
        # an op with regions out and back in, at the end: its nested ops go and come with it
        region_op.parent.detach_op(region_op)
        assert index.mismatch(p) is None
        block.insert_op_before(region_op, block.last_op)
        # a clone in (new values, same names), an op erased
        block.insert_op_before(ops[0].clone(), ops[0])
        fetch = next(op for op in ops if op.name == "pd_op.fetch")
        fetch.parent.erase_op(fetch)
        # a block out of a nested region and back
        inner = region_op.regions[0]
        moved = inner.detach_block(inner.blocks[0])
        assert index.mismatch(p) is None
        inner.add_block(moved)
    assert index.mismatch(p) is None
    assert index.total == p.op_count()


def test_an_edit_the_watch_cannot_see_fails_the_full_check():
    with pytest.raises(PassFailure, match="changed the IR where the watch cannot see it: the op "
                                          r"index counts pd_op.relu 1 \(program: 0\)"):
        run_pipeline(small(), "test-idle-erases-unseen", verify_each="full")
    # the incremental level trusts the index: the count stays what the watch saw
    record = run_pipeline(small(), "test-idle-erases-unseen", verify_each="incremental").passes[0]
    assert record.ops_after == 6


@pytest.mark.parametrize("name", ["param-fold", "conv-bn-fold"])
def test_a_weight_pass_without_parameters_is_skipped_whole(name):
    p = pirc.load(str(CORPUS / "cnn.3.3.1.json"))
    record = run_pipeline(p, name).passes[0]
    assert not record.ran
    assert record.skipped_reason == f"params: {name} needs the parameter values: --params FILE.pdiparams"
    assert (record.matches, record.rewrites, record.skips) == (0, 0, [])
    # with them it runs (the corpus CNN has a conv-bn chain and two reshaped conv biases)
    p = pirc.load(str(CORPUS / "cnn.3.3.1.json"))
    params = pirc.read_params(str(CORPUS / "cnn.3.3.1.pdiparams"), p)
    record = run_pipeline(p, name, params=params).passes[0]
    assert record.ran and record.rewrites >= 1
