"""The walk the program's first fingerprint hands the pass manager
(pirc.passes.infra.fingerprint.Fingerprinter.walked: the top-level block's ops, their names
and ids): the op index counts from it (pirc.passes.infra.op_index) and the block order numbers
from it (pirc.ir.block_order) instead of walking the block again.  Each must be what its own
walk makes: on every corpus program, on generated ones, and as the manager builds them at a
pipeline's first pass (the walk taken, not left unused)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

import pirc
from pirc.ir.block_order import BlockOrder
from pirc.ir.registry import op_class
from pirc.passes import PircPass, register_pass, run_pipeline
from pirc.passes.infra import manager
from pirc.passes.infra.fingerprint import Fingerprinter, _block_ops
from pirc.passes.infra.ir_watch import IRWatch
from pirc.passes.infra.op_index import OpIndex
from pirc.passes.infra.rewrites import ANY_OP, OpUse
from pirc.testing.strategies import aliasing_programs
from pirc.text.parser import parse_text

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "corpus"
PROGRAMS = sorted(p for p in CORPUS.glob("3.*/*.json") if not p.name.startswith("gen_log"))
SMALL = Path(__file__).resolve().parents[1] / "lit" / "passes" / "Inputs" / "small.pir"


def _same_index(index: OpIndex, walked: OpIndex, program) -> None:
    """`index` counts as `walked` (built by its own walk) does, and lists the same ops of each
    name set for the greedy driver (`ordered`)."""
    assert {k: v for k, v in index.counts.items() if v} == {k: v for k, v in walked.counts.items() if v}
    assert index.total == walked.total == program.op_count()
    block = program.block
    names = walked.names()
    for asked in [set(names), *({name} for name in names), {names[0], names[-1]}]:
        mine, theirs = index.ordered(block, asked), walked.ordered(block, asked)
        assert (mine is None) == (theirs is None)
        if theirs is not None:
            assert list(map(id, mine)) == list(map(id, theirs))


def _same_order(order: BlockOrder, walked: BlockOrder) -> None:
    assert order.keys == walked.keys
    assert list(map(id, order.held)) == list(map(id, walked.held))
    assert order.numberings == walked.numberings == 1


def _check(program) -> bool:
    """The index and order built from the first look's walk against those built by their
    own walks; False where the first look hands no walk over (an op holds regions)."""
    f = Fingerprinter(program.version)
    f.program(program)
    walk = f.walked(program.block)
    if walk is None:
        assert any(op.regions for op in _block_ops(program.block))
        return False
    ops, names, ids, _ = walk
    index = OpIndex(program, (ops, names))
    _same_index(index, OpIndex(program), program)
    assert index.top_level(program.block) is None   # its ops are the walk's maker's to hand out
    order, walked = BlockOrder(program), BlockOrder(program)
    order.number(ops, ids)
    walked.number()
    _same_order(order, walked)
    return True


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: f"{p.parent.name}/{p.name[: -len('.json')]}")
def test_the_walk_counts_and_numbers_as_their_own_walks_on_the_corpus(path):
    _check(pirc.load(str(path)))


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(aliasing_programs(max_ops=10))
def test_the_walk_counts_and_numbers_as_their_own_walks_on_generated_programs(g):
    assert _check(g.parse())


@pytest.mark.parametrize("name", ["mlp", "transformer", "control_flow"])
def test_the_manager_builds_the_index_and_order_from_the_walk_at_the_first_pass(name, monkeypatch):
    """At the first pass's watch (the block order numbered, the op index built, no pass run
    yet), both are what their own walks make; where no op holds regions they came from the
    first look's walk (the index hands out no walk of its own)."""
    program = pirc.load(str(CORPUS / "3.3.1" / f"{name}.3.3.1.json"))
    regions = any(op.regions for op in _block_ops(program.block))
    seen = []

    class Checked(IRWatch):
        def __init__(self, program, general=False, index=None, order=None):
            if not seen:
                _same_index(index, OpIndex(program), program)
                assert (index._walk is None) != regions   # no walk of its own: handed one
                walked = BlockOrder(program)
                walked.number()
                if regions:
                    assert order.block is None   # numbered by the watch's record, below
                else:
                    _same_order(order, walked)
            super().__init__(program, general, index, order)
            if not seen:
                _same_order(order, walked)
            seen.append(self)

    monkeypatch.setattr(manager, "IRWatch", Checked)
    run_pipeline(program, "default", verify_each="incremental")
    assert seen


@register_pass
@dataclass(frozen=True)
class _AddsAssign(PircPass):
    """A correctness pass (the manager counts the program's ops afresh after it) that puts
    an assign between the data op and the relu."""

    name = "test-first-walk-adds-assign"
    correctness = True
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


@pytest.mark.parametrize("level", ["incremental", "full"])
def test_the_walk_is_not_used_once_a_pass_ran(level):
    """The op index counted afresh after a correctness pass walks the program as it is then,
    not as the first look found it."""
    program = parse_text(SMALL.read_text(), str(SMALL), 4)   # data, relu, tanh, tanh, add, fetch
    first, second = run_pipeline(program, "test-first-walk-adds-assign,cse", verify_each=level).passes
    assert (first.ops_before, first.ops_after) == (6, 7)
    assert second.ops_after == program.op_count() == 6   # cse merged the two tanh
