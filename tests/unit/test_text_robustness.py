"""Regression tests for the text-side classes of the fuzz campaign (issue 9): op names,
attribute values, Paddle-text printing and canonical round trips."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pirc.errors import JsonError, PircError, SourceError
from pirc.ir import attrs as A
from pirc.ir.equality import program_differences
from pirc.ir.op_names import OpNameError, check_op_name
from pirc.ir.paddle_names import lossless_place_text, parse_place_text
from pirc.ir.registry import generic_class
from pirc.ir.verifier import collect_problems
from pirc.paddle_json.reader import read_program
from pirc.paddle_json.writer import write_program
from pirc.text.canonical_printer import print_canonical
from pirc.text.paddle_printer import print_paddle
from pirc.text.parser import parse_text
from pirc.text.printer_base import PrintError

SEEDS = Path(__file__).parent.parent / "fixtures" / "fuzz_crashes"


def seed(name: str) -> str:
    (path,) = (SEEDS).glob(name + "*")
    return path.read_text(encoding="utf-8")


def canonical_round_trip(program):
    again = parse_text(print_canonical(program), "<canonical>")
    assert program_differences(program, again) == []
    return again


def paddle_fixpoint(program):
    text = print_paddle(program)
    assert print_paddle(parse_text(text, "<paddle>", program.version)) == text
    return text


# -- op names ------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["pd_op.matmul", "builtin.parameter", "cf.yield", "pd_op.add_",
                                  "custom_op.a.b", "_x.y1"])
def test_op_names_paddle_uses_pass_the_rule(name):
    check_op_name(name)


@pytest.mark.parametrize("name, why", [
    ("", "invalid op name ''"), (" ", "invalid op name ' '"), ("a\x00b.c", r"invalid op name 'a\x00b.c'"),
    ("[.s", "invalid op name '[.s'"), ("pd_op.a b", "invalid"), ("pd_op.", "invalid"),
    ("relu", "op name 'relu' has no dialect"), ("1.matmul", "invalid"),
])
def test_op_names_outside_the_rule_are_refused_where_classes_are_made(name, why):
    with pytest.raises(OpNameError) as e:
        generic_class(name)
    assert why in str(e.value) and "`dialect.name`" in str(e.value)


def test_text_parser_refuses_a_bad_op_name_at_the_name():
    with pytest.raises(SourceError) as e:
        parse_text('{\n  () = "a b" () {} : () -> \n}\n', "x.pir", 4)
    assert (e.value.line, e.value.column) == (2, 8)
    with pytest.raises(SourceError, match="op name 'relu' has no dialect"):
        parse_text('{\n  () = "relu" () {} : () -> \n}\n', "x.pir", 4)


def test_error_lines_are_cut_at_newlines_only():
    # \x1d is a line break to str.splitlines, not to Lark: the caret line must be line 1.
    with pytest.raises(SourceError) as e:
        parse_text(seed("text/00-"), "x.pir", 4)
    assert e.value.source_line.startswith('{()="\x1d"')


def test_json_reader_refuses_a_bad_op_name_with_its_path():
    with pytest.raises(JsonError) as e:
        read_program(seed("json/07-"), "x.json")
    assert e.value.path == "program.regions[0].blocks[0].ops[0].#"
    assert "invalid op name '[.s'" in e.value.message


# -- Paddle text ----------------------------------------------------------------------------

def test_paddle_text_of_a_generic_region_op_reads_back():
    program = parse_text('pir.version 4\n{\n (%0) = "t.a" () {} : () -> tensor<f32>\n'
                         ' () = "t.r" (%0) {} : (tensor<f32>) -> ({\n'
                         '  () = "t.b" (%0) {} : (tensor<f32>) -> \n }, {\n })\n}\n', "r.pir")
    text = paddle_fixpoint(program)
    assert program_differences(program, parse_text(text, "<paddle>", 4)) == []


@pytest.mark.parametrize("source, version, why", [
    ("json/12-", None, 'cannot print "pd_op.l" as Paddle text: region 0 has block arguments'),
    ("json/10-", None, 'cannot print "pd_op.if" as Paddle text: it has 0 regions, Paddle\'s pd_op.if has 2'),
    ("json/09-", None, "body argument 1 has type tensor<1xi64> but input 1 has type tensor<2xi64>"),
    ("text/12-", 2, 'cannot print "pd_op.while" (line 1) as Paddle text: a while has a condition operand'),
])
def test_paddle_printer_refuses_what_paddle_text_cannot_show(source, version, why):
    text = seed(source)
    program = read_program(text, "x.json") if source.startswith("json") else parse_text(text, "x", version)
    with pytest.raises(PrintError) as e:
        print_paddle(program)
    assert why in str(e.value) and "--emit=pir" in str(e.value)
    if source != "json/09-":  # canonical text has no form for JSON-only op properties (DA/QA)
        canonical_round_trip(program)


def test_paddle_text_if_with_one_region_is_refused():
    text = seed("text/11-").replace('="a"', '="pd_op.a"')
    program = parse_text(text, "x", 3)
    with pytest.raises(PrintError, match="it has 0 regions"):
        print_paddle(program)


def test_while_body_argument_types_are_verified():
    program = read_program(seed("json/09-"), "x.json")
    assert [p.message for p in collect_problems(program)] == [
        "region body: block argument 1 has type tensor<1xi64>, expects tensor<2xi64> "
        "(the type of its inputs operand)"]


def test_no_verify_paddle_text_keeps_attributes_the_spec_does_not_know():
    # A version-1 kthvalue carrying what a newer Paddle writes: an int64 k and an unknown
    # attribute. --no-verify prints both as they are; the verifier reports both.
    text = ('{\n    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(cpu),shape:[3],'
            'stop_gradient:[true]} : () -> tensor<3xf32>\n'
            '    (%1, %2) = "pd_op.kthvalue" (%0) {axis:-1,extra:"new",k:4294967296,keepdim:false,'
            'stop_gradient:[true,true]} : (tensor<3xf32>) -> tensor<f32>, tensor<i64>\n}\n')
    program = parse_text(text, "k.pir.txt", 1)
    assert paddle_fixpoint(program) == text
    messages = [p.message for p in collect_problems(program)]
    assert "attribute k is int64, expects int32" in messages
    assert "unknown attribute extra" in messages


# -- canonical round trips ----------------------------------------------------------------

def test_attribute_names_that_are_not_identifiers_are_quoted():
    program = read_program(seed("json/04-"), "x.json")
    text = print_canonical(program)
    assert '{"":"",c:Place(gpu:0)' in text
    again = canonical_round_trip(program)
    assert program_differences(program, read_program(write_program(again), "y.json")) == []
    paddle_fixpoint(program)


@pytest.mark.parametrize("place", [(-1, 0, ""), (1, 3, ""), (2, 0, "npu"), (9, 0, "npu"),
                                   (9, 0, ""), (9, 0, "cpu"), (1, 0, ""), (6, 2, ""), (0, 0, "")])
def test_places_print_losslessly(place):
    assert parse_place_text(lossless_place_text(*place)) == place


def test_place_with_a_device_type_no_text_can_hold_is_refused_at_write_time():
    program = parse_text('pir.version 4\n{\n () = "t.x" () {p:Place(cpu)} : () -> \n}\n', "p.pir")
    op = program.block.first_op
    op.attributes["p"] = A.place_attr(9, 0, "a b")
    with pytest.raises(PrintError, match="device type is not an identifier"):
        print_canonical(program)


def test_attribute_contradicting_its_spec_reads_back_as_written():
    program = read_program(seed("json/00-"), "x.json")
    canonical_round_trip(program)
    assert 'stop_gradient:""' in paddle_fixpoint(program)
    assert any("stop_gradient is str" in p.message for p in collect_problems(program))


def test_json_scalar_attribute_round_trips_through_canonical_text():
    doc = json.loads(seed("json/10-"))
    op = doc["program"]["regions"][0]["blocks"][0]["ops"][0]
    op["A"] = [{"AT": {"#": "1.a_scalar", "D": ["float32", 1.5]}, "N": "s"}]
    program = read_program(json.dumps(doc), "x.json")
    assert '(pd_op.Scalar)"[\\"float32\\", 1.5]"' in print_canonical(program)
    canonical_round_trip(program)


def test_operand_annotation_must_match_the_value_type():
    with pytest.raises(SourceError) as e:
        parse_text('{\n (%0) = "t.a" () {} : () -> tensor<2xf32>\n'
                   ' () = "t.b" (%0) {} : (tensor<3xf32>) -> \n}\n', "a.pir", 4)
    assert (e.value.line, e.value.column) == (3, 24)
    assert e.value.message == ("use of value '%0' expects different type than its definition: "
                               "annotated 'tensor<3xf32>', defined as 'tensor<2xf32>'")


@pytest.mark.parametrize("type_text", ["tensor<2xf32,offset:x>", "tensor<2xf32,lod:[[>",
                                       "tensor<2xf32,lod:5>", "tensor<99999999999999999999xf32>"])
def test_malformed_type_parameters_are_located_errors(type_text):
    with pytest.raises(SourceError, match="bad "):
        parse_text(f'pir.version 4\n{{\n (%0) = "t.a" () {{}} : () -> {type_text}\n}}\n', "t.pir")


def test_huge_header_integers_are_refused_cleanly():
    with pytest.raises(PircError, match="integer literal limit"):
        parse_text("pir.version " + "9" * 500 + "\n{\n}\n", "v.pir")


def program_with(attr_name: str, attr) -> object:
    program = parse_text('pir.version 4\n{\n    () = "pd_op.fetch" () {} : () -> \n}\n', "f.pir")
    program.block.first_op.attributes[attr_name] = attr
    return program


@pytest.mark.parametrize("name, attr", [
    ("col", A.float_attr(-0.0, double=True)),            # Paddle's %g: -0, no integer prints so
    ("persistable", A.array_attr([A.int32_attr(1)])),    # numbers where the spec wants bools
    ("x", A.ComplexAttr.make(A.f64, 1.0, 2.0)),           # Paddle prints a complex as (1,2)
    ("dtype", A.layout_attr("NHWC")),                     # a layout where a dtype is expected
    ("shape", A.array_attr([A.array_attr([])])),          # no IntArray
])
def test_paddle_text_of_attributes_contradicting_the_spec_is_a_fixpoint(name, attr):
    paddle_fixpoint(program_with(name, attr))


@pytest.mark.parametrize("value", ["a\nb", "ends in \\", 'a\\"b'])
def test_paddle_text_refuses_strings_it_cannot_spell(value):
    program = program_with("name", A.str_attr(value))
    with pytest.raises(PrintError, match="Paddle escapes only quotes"):
        print_paddle(program)
    canonical_round_trip(program)
