"""`greedy.replace_op` and `ir_edits.erase` edit xDSL's use lists and operand tuples directly:
the program they leave is the one xDSL's `replace_all_uses_with` + `Block.erase_op` leave (the
same operands, each value's uses in the same order), and the IR watch sees the same edits."""

from __future__ import annotations

from xdsl.ir import ErasedSSAValue

from pirc.passes.infra.greedy import replace_op
from pirc.passes.infra.ir_edits import erase
from pirc.passes.infra.ir_watch import IRWatch
from pirc.text.paddle_printer import print_paddle
from pirc.text.parser import parse_text

# %2 = assign(%0) is used twice by one op, once by another and by a fetch; %1 (a full) is
# read by the multiply only, so it goes when the multiply does.
PROGRAM = """{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[3],stop_gradient:[true]} : () -> tensor<3xf32>
    (%1) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:2} : () -> tensor<1xf32>
    (%2) = "pd_op.assign" (%0) {stop_gradient:[true]} : (tensor<3xf32>) -> tensor<3xf32>
    (%3) = "pd_op.add" (%2, %2) {stop_gradient:[true]} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    (%4) = "pd_op.multiply" (%3, %1) {stop_gradient:[true]} : (tensor<3xf32>, tensor<1xf32>) -> tensor<3xf32>
    (%5) = "pd_op.add" (%4, %2) {stop_gradient:[true]} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    (%6) = "pd_op.fetch" (%5) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<3xf32>) -> tensor<3xf32>
    (%7) = "pd_op.fetch" (%2) {col:1,name:"copy",persistable:[true],stop_gradient:[true]} : (tensor<3xf32>) -> tensor<3xf32>
}
"""


def _program():
    return parse_text(PROGRAM, "replace", 3)


def _named(program, name, nth=0):
    return [op for op in program.block.ops if op.name == name][nth]


def _uses(program) -> list:
    """Each value's uses, in use-list order, as (user position, operand index)."""
    ops = list(program.block.ops)
    where = {id(op): i for i, op in enumerate(ops)}
    values = [r for op in ops for r in op.results]
    return [[(where.get(id(u.operation)), u.index) for u in v.uses] for v in values]


def _state(program) -> tuple:
    return print_paddle(program), _uses(program)


def _with_watch(program, edit):
    watch = IRWatch(program)
    with watch:
        result = edit()
    return result, (watch.outside, sorted(op.name for op in watch.tops.values()),
                    sorted(op.name for op in watch.touched.ops.values()))


def test_replace_op_leaves_what_xdsl_leaves():
    direct, reference = _program(), _program()
    before = [u.operation for u in _named(direct, "pd_op.assign").results[0].uses]

    def ours():
        op = _named(direct, "pd_op.assign")
        return replace_op(op, [op.operands[0]])

    def xdsls():
        op = _named(reference, "pd_op.assign")
        users = [u.operation for u in op.results[0].uses]
        op.results[0].replace_all_uses_with(op.operands[0])
        op.parent.erase_op(op, safe_erase=False)
        return users

    users, seen = _with_watch(direct, ours)
    reference_users, reference_seen = _with_watch(reference, xdsls)
    assert users == before and len(users) == 4   # the add twice, the other add, the fetch
    assert [op.name for op in users] == [op.name for op in reference_users]
    assert _state(direct) == _state(reference)
    assert seen == reference_seen
    assert "pd_op.assign" not in print_paddle(direct)


def test_replace_op_erases_matched_inputs_left_unused():
    direct, reference = _program(), _program()
    op = _named(direct, "pd_op.multiply")
    replace_op(op, [op.operands[0]], [_named(direct, "pd_op.full")])
    ref = _named(reference, "pd_op.multiply")
    ref.results[0].replace_all_uses_with(ref.operands[0])
    ref.parent.erase_op(ref, safe_erase=False)
    full = _named(reference, "pd_op.full")
    full.parent.erase_op(full, safe_erase=False)
    assert _state(direct) == _state(reference)
    assert "pd_op.full" not in print_paddle(direct)


def test_erase_drops_the_operands_uses():
    program = _program()
    fetch = _named(program, "pd_op.fetch", 1)
    assign = _named(program, "pd_op.assign")
    erase(fetch)
    assert fetch.parent is None
    assert [u.operation.name for u in assign.results[0].uses] == ["pd_op.add", "pd_op.add", "pd_op.add"]


def test_erase_of_a_used_op_goes_through_xdsl():
    program = _program()
    assign = _named(program, "pd_op.assign")
    erase(assign)   # xDSL's erase: its users now read an erased value
    assert assign.parent is None
    assert all(isinstance(v, ErasedSSAValue) for v in _named(program, "pd_op.add").operands)
