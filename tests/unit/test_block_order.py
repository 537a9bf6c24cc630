"""The order of the top-level ops as numbers (pirc.ir.block_order), kept across edits: after
any inserts, moves and removals it is told of, the numbers grow in block order; a gap that
runs out numbers the block again; a block swapped for another is numbered afresh; and the
verifier reading a kept order finds what it finds numbering the block itself."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pirc.ir import block_order
from pirc.ir.block_order import BlockOrder
from pirc.ir.ops import new_module
from pirc.ir.verifier import collect_problems_in
from pirc.passes.infra.op_index import OpIndex
from pirc.text.parser import parse_text

SMALL = (Path(__file__).resolve().parents[1] / "lit" / "passes" / "Inputs"
         / "small.pir").read_text()


def parse():
    return parse_text(SMALL, "p.pir", 4)


def numbered():
    """small.pir, its block and the block's order, numbered."""
    program = parse()
    order = BlockOrder(program)
    order.sync()
    return program, program.block, order


def numbers(order: BlockOrder, block) -> list[int]:
    """Each op's number, read again when numbering an op numbered the whole block (the
    numbers read before a walk are void, as the verifier knows)."""
    walks = None
    while walks != order.numberings:
        walks = order.numberings
        out = [order.key(op) for op in block.ops]
    return out


def grows(values: list[int]) -> bool:
    return all(a < b for a, b in zip(values, values[1:]))


# An edit: (what, i, j), i and j picked among the ops in the block at the time.
EDITS = st.lists(st.tuples(st.sampled_from(["insert", "move", "remove", "ask"]),
                           st.integers(0, 10**6), st.integers(0, 10**6)), max_size=40)


@pytest.mark.parametrize("stride", [block_order.STRIDE, 4, 1])
@given(edits=EDITS)
def test_the_numbers_grow_in_block_order_through_any_edits(stride, edits):
    # stride 1: every insertion between two numbered ops numbers the block again
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(block_order, "STRIDE", stride)
        _, block, order = numbered()
        for what, i, j in edits:
            ops = list(block.ops)
            if not ops:
                break
            op, there = ops[i % len(ops)], ops[j % len(ops)]
            if what == "insert":
                block.insert_op_before(op.clone(), there)
            elif what == "move" and op is not there:
                order.forget(block.detach_op(op))
                block.insert_op_after(op, there)
            elif what == "remove" and len(ops) > 1:
                order.forget(block.detach_op(op))
            elif what == "ask":
                order.key(op)
        assert grows(numbers(order, block))


def test_a_run_of_new_ops_is_numbered_at_once_between_its_neighbours():
    _, block, order = numbered()
    first, second = list(block.ops)[:2]
    new = [first.clone() for _ in range(3)]
    for op in new:
        block.insert_op_before(op, second)
    walks = order.numberings
    assert order.key(new[1]) and all(id(op) in order.keys for op in new)
    assert order.numberings == walks
    assert grows(numbers(order, block))


def test_an_op_forgotten_is_no_longer_held():
    # held: an op erased where nobody told the order cannot lend its id to a new op; an op
    # the order was told of is let go (erased, it is freed)
    _, block, order = numbered()
    first, relu = list(block.ops)[:2]
    new = first.clone()
    block.insert_op_before(new, relu)
    order.key(new)
    for op in (relu, new):
        order.forget(block.detach_op(op))
    assert not any(op is relu or op is new for op in order.held)
    assert grows(numbers(order, block))


def test_an_op_moved_without_telling_keeps_its_old_number():
    # why the IR watch tells the order of every op a pass detaches
    _, block, order = numbered()
    data, relu = list(block.ops)[:2]
    block.insert_op_after(block.detach_op(data), relu)
    assert order.key(data) < order.key(relu)
    order.forget(block.detach_op(data))
    block.insert_op_after(data, relu)
    assert order.key(data) > order.key(relu)


def test_a_block_swapped_for_another_is_numbered_afresh():
    program, _, order = numbered()
    walks = order.numberings
    other = parse()
    program.module = other.module
    other.module = new_module()
    order.sync()
    assert order.numberings == walks + 1 and order.block is program.block
    assert numbers(order, program.block) == [i * block_order.STRIDE for i in range(6)]


@pytest.mark.parametrize("stride", [block_order.STRIDE, 1])
def test_the_verifier_reading_a_kept_order_finds_what_a_fresh_one_finds(stride):
    # the second tanh moved before the data op it reads, and the add after the fetch
    # reading it: each problem at its position in the block as it is now
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(block_order, "STRIDE", stride)
        program, block, order = numbered()
        data, _, _, tanh2, add, fetch = block.ops
        for op, where in ((tanh2, data), (add, fetch)):
            order.forget(block.detach_op(op))
            if op is add:
                block.insert_op_after(op, where)
            else:
                block.insert_op_before(op, where)
        walks = order.numberings
        kept = [str(p) for p in collect_problems_in(program, [tanh2, add, fetch], order)]
        assert kept == [str(p) for p in collect_problems_in(program, [tanh2, add, fetch])] == [
            "op #0 pd_op.tanh: operand 0 is used before its definition or outside its scope",
            "op #4 pd_op.fetch: operand 0 is used before its definition or outside its scope",
        ]
        assert order.numberings > walks   # the positions told come from a walk


def test_the_op_index_hands_its_walk_to_the_order_once_and_only_while_current():
    program = parse()
    index = OpIndex(program)
    walk = index.top_level(program.block)
    assert [op.name for op in walk] == [op.name for op in program.block.ops]
    assert all(a is b for a, b in zip(walk, program.block.ops))
    assert index.top_level(program.block) is None   # handed out once
    index = OpIndex(program)
    assert index.top_level(parse().block) is None   # another block's
    index = OpIndex(program)
    index.op(program.block.last_op, -1)   # an edit counted: the walk is old news
    assert index.top_level(program.block) is None
    order = BlockOrder(program)
    order.number(OpIndex(program).top_level(program.block))
    assert numbers(order, program.block) == [i * block_order.STRIDE for i in range(6)]
