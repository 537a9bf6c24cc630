"""The verifier on small programs built directly (no parser)."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import Float32Type, IntegerType
from xdsl.ir import Block

from pirc.errors import VerifyError
from pirc.ir.attrs import (
    array_attr,
    bool_attr,
    dtype_attr,
    float_attr,
    int32_attr,
    int64_attr,
    int_array_attr,
    place_attr,
    str_attr,
)
from pirc.ir.builder import append_op, new_region
from pirc.ir.ops import null_value
from pirc.ir.program import Program
from pirc.ir.registry import op_class
from pirc.ir.types import DenseTensorType
from pirc.ir.verifier import MAX_REPORTED, collect_problems, verify_program

T = DenseTensorType.make(Float32Type(), [2, 3])
B = DenseTensorType.make(IntegerType(1), [1])


class Builder:
    """Appends ops of one PIR version's classes to a block."""

    def __init__(self, version: int = 4):
        self.program = Program(version=version)
        self.version = version

    def op(self, name, operands=(), results=(), attrs=None, regions=(), block=None,
           version=None):
        cls = op_class(name, self.version if version is None else version)
        return append_op(cls, list(operands), list(results), dict(attrs or {}),
                         self.program.block if block is None else block, regions)

    def data(self, name="x", type_=T, block=None):
        return self.op("pd_op.data", [], [type_], {
            "name": str_attr(name), "shape": int_array_attr(type_.shape),
            "dtype": dtype_attr("float32"), "place": place_attr(0),
            "stop_gradient": array_attr([bool_attr(True)])}, block=block).results[0]

    def leaky_relu(self, x, slope_attr, block=None):
        return self.op("pd_op.leaky_relu", [x], [T], {"negative_slope": slope_attr},
                       block=block)


def problems(b: Builder, strict=False) -> list[str]:
    return [str(p) for p in collect_problems(b.program, strict)]


def only_problem(b: Builder, strict=False) -> str:
    found = problems(b, strict)
    assert len(found) == 1, found
    return found[0]


def mlp(version=4) -> Builder:
    b = Builder(version)
    x = b.data("x")
    w = b.data("w", DenseTensorType.make(Float32Type(), [3, 3]))
    mm = b.op("pd_op.matmul", [x, w], [T], {"transpose_x": bool_attr(False),
                                            "transpose_y": bool_attr(False),
                                            "struct_name": str_attr("/Linear/")})
    slope = float_attr(0.02, double=version in (0, 4))  # 0: develop = latest
    act = b.leaky_relu(mm.results[0], slope)
    b.op("pd_op.fetch", [act.results[0]], [T], {
        "name": str_attr("out"), "col": int32_attr(0),
        "persistable": array_attr([bool_attr(True)])})
    return b


# -- programs that verify ------------------------------------------------------------------


@pytest.mark.parametrize("version", [1, 4, 0])
def test_valid_program_verifies(version):
    b = mlp(version)
    assert problems(b) == []
    assert verify_program(b.program) is None
    assert verify_program(b.program, strict=True) is None


def test_optional_operand_may_be_null():
    b = Builder()
    x = b.data()
    b.op("pd_op.layer_norm", [x, null_value(), null_value()], [T, T, T],
         {"epsilon": float_attr(1e-5), "begin_norm_axis": int32_attr(1)})
    assert problems(b) == []


# -- counts ----------------------------------------------------------------------------------


def test_operand_count():
    b = Builder()
    x = b.data()
    b.op("pd_op.matmul", [x], [T], {"transpose_x": bool_attr(False),
                                    "transpose_y": bool_attr(False)})
    assert only_problem(b) == "op #1 pd_op.matmul: expects 2 operands (x, y), got 1"


def test_result_count():
    b = Builder()
    x = b.data()
    b.op("pd_op.relu", [x], [T, T])
    assert only_problem(b) == "op #1 pd_op.relu: expects 1 result (out), got 2"


def test_null_operand_where_not_optional():
    b = Builder()
    x = b.data()
    b.op("pd_op.add", [x, null_value()], [T])
    assert only_problem(b) == "op #1 pd_op.add: operand 1 (y) is <<NULL VALUE>> but not optional"


def test_variadic_counts():
    b = Builder()
    x = b.data()
    b.op("builtin.combine", [], [T])  # zero inputs is fine
    b.op("builtin.combine", [x, x, x], [T])
    assert problems(b) == []
    b.op("pd_op.while", [], [], regions=[new_region([Block()])])
    assert "expects at least 1 operand (cond, inputs...), got 0" in problems(b)[0]


def test_region_count():
    b = Builder()
    cond = b.data("c", B)
    b.op("pd_op.if", [cond], [], regions=[new_region([Block()])])
    assert only_problem(b) == ("op #1 pd_op.if: expects 2 regions (true_region, false_region), "
                               "got 1")


# -- attributes -----------------------------------------------------------------------------


def test_float_where_double_expected_and_back():
    b = Builder(4)
    b.leaky_relu(b.data(), float_attr(0.02))
    assert only_problem(b) == "op #1 pd_op.leaky_relu: attribute negative_slope is float, " \
                              "expects double"
    b = Builder(1)
    b.leaky_relu(b.data(), float_attr(0.02, double=True))
    assert "attribute negative_slope is double, expects float" in only_problem(b)


def test_array_element_kinds():
    def pool(version, element):
        b = Builder(version)
        x = b.data()
        ks = b.op("pd_op.full_int_array", [], [T], {
            "value": array_attr([int64_attr(2), int64_attr(2)]), "dtype": dtype_attr("int64"),
            "place": place_attr(1)}).results[0]
        b.op("pd_op.pool2d", [x, ks], [T], {
            "strides": array_attr([element(1), element(1)]),
            "paddings": array_attr([]),  # empty: fits any array type
            "ceil_mode": bool_attr(False), "exclusive": bool_attr(True),
            "data_format": str_attr("NCHW"), "pooling_type": str_attr("max"),
            "global_pooling": bool_attr(False), "adaptive": bool_attr(False),
            "padding_algorithm": str_attr("EXPLICIT")})
        return problems(b)

    assert pool(1, int32_attr) == []
    assert pool(2, int64_attr) == []
    assert pool(1, int64_attr) == ["op #2 pd_op.pool2d: attribute strides is array<int64>, "
                                   "expects array<int32>"]
    assert pool(2, int32_attr) == ["op #2 pd_op.pool2d: attribute strides is array<int32>, "
                                   "expects array<int64>"]


def test_scalar_accepts_any_scalar_kind():
    for value in (float_attr(1.0, double=True), float_attr(1.0), int64_attr(1),
                  bool_attr(True)):
        b = Builder()
        b.op("pd_op.full", [], [T], {"shape": int_array_attr((2, 3)), "value": value,
                                     "dtype": dtype_attr("float32"), "place": place_attr(1)})
        assert problems(b) == [], value
    b = Builder()
    b.op("pd_op.full", [], [T], {"shape": int_array_attr((2, 3)), "value": str_attr("1"),
                                 "dtype": dtype_attr("float32"), "place": place_attr(1)})
    assert "attribute value is str, expects scalar" in only_problem(b)


def test_unknown_attribute():
    b = Builder()
    b.op("pd_op.relu", [b.data()], [T], {"alpha": float_attr(1.0)})
    assert only_problem(b) == "op #1 pd_op.relu: unknown attribute alpha"


def test_universal_attributes_allowed_and_typed():
    b = Builder()
    b.op("pd_op.relu", [b.data()], [T], {
        "struct_name": str_attr("/ReLU/"), "op_role": int32_attr(0),
        "op_callstack": array_attr([str_attr("a.py:1")]), "sym_shape_str": str_attr("S0"),
        "stop_gradient": array_attr([bool_attr(False)]),
        "persistable": array_attr([bool_attr(False)])})
    assert problems(b) == []
    b.op("pd_op.relu", [b.program.block.first_op.results[0]], [T],
         {"stop_gradient": bool_attr(False)})
    assert only_problem(b) == "op #2 pd_op.relu: attribute stop_gradient is bool, " \
                              "expects array<bool>"


def test_missing_attribute():
    b = Builder()
    x = b.data()
    b.op("pd_op.matmul", [x, x], [T], {"transpose_x": bool_attr(False)})
    assert only_problem(b) == "op #1 pd_op.matmul: missing attribute transpose_y (bool)"


# -- scopes ---------------------------------------------------------------------------------


def test_use_before_definition():
    b = Builder()
    x = b.data()
    relu = b.op("pd_op.relu", [x], [T])
    later = b.op("pd_op.relu", [x], [T])
    relu.operands[0] = later.results[0]
    assert only_problem(b) == ("op #1 pd_op.relu: operand 0 is used before its definition or "
                               "outside its scope")


def test_value_from_inner_region_is_out_of_scope():
    b = Builder()
    x = b.data()
    cond = b.data("c", B)
    true_block, false_block = Block(), Block()
    inner = b.op("pd_op.relu", [x], [T], block=true_block)  # x from the enclosing block: ok
    b.op("cf.yield", [inner.results[0]], [], block=true_block)
    b.op("cf.yield", [x], [], block=false_block)
    if_op = b.op("pd_op.if", [cond], [T],
                 regions=[new_region([true_block]), new_region([false_block])])
    assert problems(b) == []
    b.op("pd_op.relu", [if_op.results[0]], [T])  # the if's result: fine
    b.op("pd_op.relu", [inner.results[0]], [T])  # defined inside the true region: not
    assert only_problem(b) == ("op #7 pd_op.relu: operand 0 is used before its definition or "
                               "outside its scope")


def test_block_argument_scope():
    b = Builder()
    cond = b.data("c", B)
    x = b.data()
    body = Block(arg_types=[T])
    arg = body.args[0]
    step = b.op("pd_op.relu", [arg], [T], block=body)
    b.op("cf.yield", [cond, step.results[0]], [], block=body)
    b.op("pd_op.while", [cond, x], [T], regions=[new_region([body])])
    assert problems(b) == []
    b.op("pd_op.relu", [arg], [T])  # a body argument used after the loop
    assert only_problem(b).endswith("operand 0 is used before its definition or outside "
                                    "its scope")


# -- regions ---------------------------------------------------------------------------------


def test_if_branch_must_end_in_yield():
    b = Builder()
    x = b.data()
    cond = b.data("c", B)
    true_block, false_block = Block(), Block()
    b.op("pd_op.relu", [x], [T], block=true_block)
    b.op("cf.yield", [x], [], block=false_block)
    b.op("pd_op.if", [cond], [T], regions=[new_region([true_block]), new_region([false_block])])
    assert only_problem(b) == "op #2 pd_op.if: region true_region ends in pd_op.relu, " \
                              "expects cf.yield"


def test_if_yield_count_matches_results():
    b = Builder()
    x = b.data()
    cond = b.data("c", B)
    true_block, false_block = Block(), Block()
    b.op("cf.yield", [x, x], [], block=true_block)
    b.op("cf.yield", [x], [], block=false_block)
    b.op("pd_op.if", [cond], [T], regions=[new_region([true_block]), new_region([false_block])])
    assert only_problem(b) == "op #2 pd_op.if: region true_region: cf.yield yields 2 values, " \
                              "expects 1"


def test_while_body_args_mirror_inputs():
    b = Builder()
    cond = b.data("c", B)
    x = b.data()
    y = b.data("y")
    body = Block(arg_types=[T])  # one argument for two loop inputs
    b.op("cf.yield", [cond, body.args[0], body.args[0]], [], block=body)
    b.op("pd_op.while", [cond, x, y], [T, T], regions=[new_region([body])])
    assert only_problem(b) == ("op #3 pd_op.while: region body has 1 block argument, "
                               "expects 2 (one per inputs)")


def test_while_yield_carries_condition_and_inputs():
    b = Builder()
    cond = b.data("c", B)
    x = b.data()
    body = Block(arg_types=[T])
    b.op("cf.yield", [body.args[0]], [], block=body)  # forgot the next condition
    b.op("pd_op.while", [cond, x], [T], regions=[new_region([body])])
    assert only_problem(b) == "op #2 pd_op.while: region body: cf.yield yields 1 value, " \
                              "expects 2"


# -- versions and unknown ops ----------------------------------------------------------------


def test_unknown_op_allowed_unless_strict():
    b = Builder()
    b.op("pd_op.no_such_op", [b.data()], [T], {"anything": int32_attr(1)})
    assert problems(b) == []
    assert only_problem(b, strict=True) == ("op #1 pd_op.no_such_op: unknown op "
                                            "pd_op.no_such_op at PIR version 4")


def test_op_removed_at_program_version_is_unknown():
    b = Builder(4)
    b.op("pd_op.send_and_recv", [], [], version=1)
    assert "unknown op pd_op.send_and_recv at PIR version 4" in only_problem(b, strict=True)


def test_class_of_another_version():
    b = Builder(4)
    b.op("pd_op.leaky_relu", [b.data()], [T], {"negative_slope": float_attr(0.02, True)},
         version=1)
    assert only_problem(b) == ("op #1 pd_op.leaky_relu: built with the definition from PIR "
                               "version 1, but at version 4 the op is defined as of version 4")


def test_verify_error_lists_problems_and_caps_them():
    b = Builder()
    x = b.data()
    for _ in range(MAX_REPORTED + 5):
        b.op("pd_op.relu", [x], [T, T])
    with pytest.raises(VerifyError) as info:
        verify_program(b.program)
    text = str(info.value)
    assert text.startswith(f"program does not verify at PIR version 4 ({MAX_REPORTED + 5} "
                           "problems):")
    assert "op #1 pd_op.relu: expects 1 result (out), got 2" in text
    assert text.count("expects 1 result") == MAX_REPORTED
    assert text.rstrip().endswith("... and 5 more")
