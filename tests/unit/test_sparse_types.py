"""Sparse COO tensor types over real Paddle-saved programs (tools/paddle_oracle/gen_fixtures.py
m_sparse_coo, Paddle 3.0.0 and 3.3.1): they parse, verify, round trip byte for byte in Paddle's
text and JSON, and pirc's lossless text keeps every field Paddle's JSON stores."""

from pathlib import Path

import pytest

import pirc
from pirc.ir.types import ELEMENT_TYPES, DenseTensorType, SparseCooTensorType
from pirc.text.types_text import TypeSyntaxError, decode_tensor_like, type_text

GEN = Path(__file__).resolve().parents[1] / "fixtures" / "generated"
VERSIONS = {"3.0.0": 1, "3.3.1": 4}


@pytest.mark.parametrize("ver", sorted(VERSIONS))
def test_paddle_json_round_trips_byte_for_byte(ver):
    text = (GEN / ver / f"sparse_coo.{ver}.json").read_text()
    program = pirc.parse(text, format="json")
    pirc.verify(program)
    kinds = {type(r.type) for op in program.walk() for r in op.results}
    assert SparseCooTensorType in kinds
    assert pirc.to_text(program, "json") == text


@pytest.mark.parametrize("ver", sorted(VERSIONS))
def test_paddle_text_round_trips_byte_for_byte(ver):
    text = (GEN / ver / f"sparse_coo.{ver}.loaded.pir.txt").read_text()
    program = pirc.parse(text, from_version=VERSIONS[ver])
    pirc.verify(program)
    assert pirc.to_text(program, "paddle") == text
    assert "pd_op.sparsecootensor<4x3xf32>" in text


@pytest.mark.parametrize("ver", sorted(VERSIONS))
def test_lossless_text_keeps_the_json_fields(ver):
    text = (GEN / ver / f"sparse_coo.{ver}.json").read_text()
    program = pirc.parse(text, format="json")
    again = pirc.parse(pirc.to_text(program))
    assert pirc.to_text(again, "json").count("1.t_sparse_coo_tensor") == text.count("1.t_sparse_coo_tensor")
    types = lambda p: [r.type for op in p.walk() for r in op.results]  # noqa: E731
    assert types(again) == types(program)


def test_non_default_fields_print_and_parse():
    f32, i64 = ELEMENT_TYPES["f32"], ELEMENT_TYPES["i64"]
    t = SparseCooTensorType.make(f32, (4, 3), (2,), "NCHW",
                                 DenseTensorType.make(i64, (2, -1)), DenseTensorType.make(f32, (-1,)))
    s = type_text(t, True)
    assert s == ('pd_op.sparsecootensor<4x3xf32,nnz_dims:[2],indices:["i64",[2,-1],"NCHW",[],0],'
                 'values:["f32",[-1],"NCHW",[],0]>')
    assert decode_tensor_like(s) == t
    assert type_text(t, False) == "pd_op.sparsecootensor<4x3xf32>"
    assert decode_tensor_like("pd_op.sparsecootensor<4x3xf32>") == SparseCooTensorType.make(f32, (4, 3))


@pytest.mark.parametrize("bad", ['pd_op.sparsecootensor<4xf32,nnz_dims:[a]>',
                                 'pd_op.sparsecootensor<4xf32,indices:["q8",[1],"NCHW",[],0]>',
                                 'pd_op.sparsecootensor<4xf32,values:[1,2]>'])
def test_bad_sparse_fields_are_clear_errors(bad):
    with pytest.raises(TypeSyntaxError, match="bad"):
        decode_tensor_like(bad)


def test_malformed_sparse_coo_json_is_a_clear_error():
    text = (GEN / "3.3.1" / "sparse_coo.3.3.1.json").read_text()
    bad = text.replace('"1.t_sparse_coo_tensor","D":[{"#":"0.t_f32"},[4,3],[]', '"1.t_sparse_coo_tensor","D":[{"#":"0.t_f32"},[4,3],["x"]', 1)
    assert bad != text
    with pytest.raises(pirc.errors.PircError if hasattr(pirc, "errors") else Exception, match="int64s"):
        pirc.parse(bad, format="json")


def test_a_part_layout_with_parentheses_parses_back_in_a_signature():
    # found by the fuzz smoke (json, seed 9, input 815): a COO type whose indices part is
    # printed (dtype f32) spells the layout "Undefined(AnyLayout)", and the op-line lexer cut
    # the signature at its "("
    coo = 'pd_op.sparsecootensor<4x3xf64,indices:["f32",[],"Undefined(AnyLayout)",[],0]>'
    text = ("pir.version 4\npir.graph_tags []\n{\n"
            '    (%0) = "pd_op.data" () {dtype:(pd_op.DataType)float64,name:"x",'
            "place:Place(undefined:0),shape:(pd_op.IntArray)[4,3],stop_gradient:[true]} : () -> "
            "tensor<4x3xf64>\n"
            '    (%1) = "pd_op.dense_to_coo_sp" (%0) {sparse_dim:(Int64)1,stop_gradient:[true]} : '
            f"(tensor<4x3xf64>) -> {coo}\n"
            '    (%2) = "pd_op.abs_coo_sp" (%1) {stop_gradient:[true]} : '
            f"({coo}) -> {coo}\n}}\n")
    program = pirc.parse(text)
    assert pirc.to_text(program) == text


def test_every_sparse_fixture_round_trips_through_canonical_text():
    # a COO result's own layout prints bare, `layout:Undefined(AnyLayout)` (Paddle's
    # transpose_coo_sp writes it): the line lexer takes one level of parentheses in a type
    ops = Path(__file__).resolve().parents[1] / "fixtures" / "ops"
    paths = sorted(ops.glob("*/*_coo_sp*.json")) + sorted(ops.glob("*/*coo_tensor*.json"))
    assert len(paths) >= 40
    for path in paths:
        text = pirc.to_text(pirc.load(str(path)))
        assert pirc.to_text(pirc.parse(text)) == text, path.name
