"""Random valid programs survive canonical print -> parse unchanged."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.dialects.builtin import DictionaryAttr
from xdsl.ir import Block, Region

from pirc.ir import attrs as A
from pirc.ir.builder import append_op
from pirc.ir.equality import program_differences
from pirc.ir.ops import BLOCK_ARG_ATTRS, null_value
from pirc.ir.paddle_names import DTYPE_NAMES
from pirc.ir.program import GraphTag, Program
from pirc.ir.registry import op_class
from pirc.ir.types import ELEMENT_TYPES, DenseTensorArrayType, DenseTensorType, SelectedRowsType, VectorType
from pirc.text.canonical_printer import print_canonical
from pirc.text.parser import parse_text

ELEMENTS = [t for n, t in ELEMENT_TYPES.items() if n != "undefined"]
dims = st.lists(st.sampled_from([-1, 0, 1, 2, 3, 7, 1024]), max_size=4)
layouts = st.sampled_from(["NCHW", "NCHW", "NHWC", "NCDHW"])
lods = st.lists(st.lists(st.integers(0, 9), max_size=3), max_size=2)

dense = st.builds(DenseTensorType.make, st.sampled_from(ELEMENTS), dims, layouts, lods, st.integers(0, 5))
tensor_like = st.one_of(
    dense,
    st.builds(SelectedRowsType.make, st.sampled_from(ELEMENTS), dims),
    st.builds(DenseTensorArrayType.make, st.sampled_from(ELEMENTS), dims, layouts),
)
types = st.one_of(tensor_like, st.sampled_from(ELEMENTS),
                  st.lists(dense, min_size=1, max_size=3).map(VectorType.make))

# NaN payload bits are not part of the canonical text (docs/TEXT-FORMATS.md); the sign is.
finite_or_special = st.one_of(st.floats(allow_nan=True, allow_infinity=True)
                              .map(lambda v: math.copysign(math.nan, v) if math.isnan(v) else v),
                              st.sampled_from([0.0, -0.0, 1e-30, 1e30, 3.4e38, 0.1, 0.02]))
scalar_attrs = st.one_of(
    st.booleans().map(A.bool_attr),
    st.integers(-(2**31), 2**31 - 1).map(A.int32_attr),
    st.integers(-(2**63), 2**63 - 1).map(A.int64_attr),
    st.integers(0, 2**40).map(A.index_attr),
    finite_or_special.map(lambda v: A.float_attr(v)),
    finite_or_special.map(lambda v: A.float_attr(v, double=True)),
    st.text(max_size=12).map(A.str_attr),
    st.sampled_from(DTYPE_NAMES).map(A.dtype_attr),
    st.sampled_from(["NCHW", "NHWC", "Undefined(AnyLayout)"]).map(A.layout_attr),
    st.sampled_from([(0, 0, ""), (1, 0, ""), (2, 3, ""), (9, 0, "npu")]).map(lambda p: A.place_attr(*p)),
    st.lists(st.integers(-(2**40), 2**40), max_size=4).map(lambda v: A.int_array_attr(tuple(v))),
    types.map(A.TypeAttr),
    st.just(A.NULL_ATTR),
    st.tuples(st.sampled_from([A.f32, A.f64]), st.floats(-1e6, 1e6, width=32), st.floats(-1e6, 1e6, width=32))
      .map(lambda c: A.ComplexAttr.make(*c)),
)
attributes = st.recursive(scalar_attrs, lambda inner: st.lists(inner, max_size=3).map(A.array_attr),
                          max_leaves=6)
attr_names = st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True)
attr_dicts = st.dictionaries(attr_names, attributes, max_size=4)


@st.composite
def programs(draw):
    program = Program(version=draw(st.sampled_from([0, 1, 2, 3, 4])),
                      graph_tags=draw(st.lists(st.builds(GraphTag, st.text(max_size=8),
                                                         st.integers(0, 9), st.sampled_from(["on", "shadow"])),
                                               max_size=2)))
    fill_block(draw, program.block, [], depth=0)
    return program


def fill_block(draw, block: Block, visible: list, depth: int):
    visible = list(visible) + list(block.args)
    for _ in range(draw(st.integers(0, 5))):
        operands = []
        for _ in range(draw(st.integers(0, 3))):
            if visible and draw(st.integers(0, 4)):
                operands.append(draw(st.sampled_from(visible)))
            else:
                operands.append(null_value())
        result_types = draw(st.lists(types, max_size=3))
        regions = []
        arg_attrs = []
        if depth < 2 and draw(st.integers(0, 5)) == 0:
            for _ in range(draw(st.integers(1, 2))):
                region = Region()
                per_block = []
                for bi in range(draw(st.integers(1, 2))):
                    arg_types = draw(st.lists(types, max_size=2))
                    if bi > 0 and not arg_types:
                        arg_types = [draw(types)]  # a later block is introduced by its arguments
                    inner = Block(arg_types=arg_types)
                    region.add_block(inner)
                    fill_block(draw, inner, visible, depth + 1)
                    per_block.append(A.array_attr(
                        DictionaryAttr(draw(st.dictionaries(attr_names, scalar_attrs, max_size=2)))
                        for _ in arg_types))
                arg_attrs.append(A.array_attr(per_block))
                regions.append(region)
        name = draw(st.sampled_from(["test.op", "test.other_op", "pd_op.custom_thing"]))
        properties = {BLOCK_ARG_ATTRS: A.array_attr(arg_attrs)} if regions else None
        op = append_op(op_class(name, 4), operands, result_types, dict(draw(attr_dicts)), block,
                       regions, properties)
        visible += list(op.results)


@settings(max_examples=150, deadline=None)
@given(programs())
def test_random_programs_survive_print_then_parse(program):
    text = print_canonical(program)
    again = parse_text(text, "random.pir")
    assert program_differences(program, again) == []
    assert print_canonical(again) == text


def test_special_floats_keep_their_bits():
    program = Program(version=4)
    values = [math.inf, -math.inf, math.nan, -math.nan, -0.0, 0.1, 1e-45, 3.4028234663852886e38]
    attrs = {f"f{i}": A.float_attr(v) for i, v in enumerate(values)}
    attrs.update({f"d{i}": A.float_attr(v, double=True) for i, v in enumerate(values)})
    append_op(op_class("test.op", 4), [], [], attrs, program.block)
    again = parse_text(print_canonical(program), "floats.pir")
    assert program_differences(program, again) == []
