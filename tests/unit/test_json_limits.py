"""Paddle JSON past pirc's input limits: a located error naming the limit, never a traceback.

The fuzz seeds (tests/fixtures/fuzz_crashes/json) once crashed the reader with Python's own
RecursionError or its 4,300-digit ValueError; small limits set through the environment
(pirc/limits.py) stand in for big inputs elsewhere.
"""

from __future__ import annotations

import json
import pathlib

import pytest

from pirc.errors import JsonError, PircError
from pirc.ir import attrs as A
from pirc.limits import LimitError
from pirc.paddle_json.reader import read_program
from pirc.paddle_json.writer import write_program
from pirc.text.parser import parse_text

SEEDS = pathlib.Path(__file__).resolve().parent.parent / "fixtures" / "fuzz_crashes" / "json"
HEAD = '{"base_code":{"magic":"pir","trainable":true,"version":1},'
DEEP = 100_000


def program_with_ops(ops: str, version: int = 1) -> str:
    return ('{"base_code":{"magic":"pir","trainable":true,"version":%d},"program":{"regions":'
            '[{"#":"region_0","blocks":[{"#":"block_0","args":[],"ops":[%s]}]}]}}' % (version, ops))


DATA_OP = ('{"#":"1.data","A":[{"AT":{"#":"0.a_str","D":"x"},"N":"name"}],"I":[],'
           '"O":[{"%":1,"TT":{"#":"0.t_dtensor","D":[{"#":"0.t_f32"},[2],"NCHW",[],0]}}],"OA":[]}')


def deep_inputs():
    """handmade.py's deep-nesting cases (too big to keep as files)."""
    return {
        "base_code": ('{"base_code":' + "[" * DEEP + "]" * DEEP + "}", "base_code[0][0]"),
        "region_key": (HEAD + '"program":{"regions":[{"#":' + "[" * DEEP + "]" * DEEP
                       + ',"blocks":[]}]}}', "program.regions[0].#[0]"),
        "in_op_list": (program_with_ops('{"#":"1.data","A":' + "[" * DEEP + "]" * DEEP + "}"),
                       "program.regions[0].blocks[0].ops[0].A[0]"),
        # not streamable (keys out of order): the whole-document reader
        "whole_document": ('{"program":' + "[" * DEEP + "]" * DEEP + ',"base_code":{}}', "program[0]"),
    }


@pytest.mark.parametrize("name", sorted(deep_inputs()))
def test_deep_nesting_is_refused_with_its_path(name):
    text, path = deep_inputs()[name]
    with pytest.raises(LimitError) as e:
        read_program(text, "deep.json")
    message = e.value.render()
    assert message.startswith(f"deep.json: {path}")
    assert "nesting depth limit of 200 levels" in message and "PIRC_MAX_NESTING" in message


@pytest.mark.parametrize("seed", sorted(p.name for p in SEEDS.glob("*.json")))
def test_every_json_seed_ends_in_a_pirc_error_or_reads(seed):
    text = (SEEDS / seed).read_text()
    try:
        read_program(text, seed)
    except PircError as e:
        assert e.render().startswith(seed + ": ")


@pytest.mark.parametrize("seed, path", [
    ("01-ValueError-pirc-paddle-json-stream-py-62-iter.json", "program.regions[0].blocks[0].ops[0].A[2]"),
    ("08-ValueError-pirc-paddle-json-stream-py-105-value-decoder-py-353-raw-decode.json", "base_code.version"),
    ("handmade-json_4400_digits_in_op.json", "program.regions[0].blocks[0].ops[0].A"),
    ("handmade-json_4400_digits_version.json", "base_code.version"),
])
def test_integers_past_pythons_digit_limit_are_refused_with_their_path(seed, path):
    with pytest.raises(LimitError) as e:
        read_program((SEEDS / seed).read_text(), seed)
    assert e.value.render().startswith(f"{seed}: {path}")
    assert "integer literal limit of 400 digits" in str(e.value)


def test_integer_digit_limit_below_pythons(monkeypatch):
    monkeypatch.setenv("PIRC_MAX_INT_DIGITS", "5")
    op = DATA_OP.replace('"OA":[]', '"OA":[],"note":[123456]')
    with pytest.raises(LimitError) as e:
        read_program(program_with_ops(op), "x.json")
    assert e.value.render().startswith("x.json: program.regions[0].blocks[0].ops[0]")
    assert "PIRC_MAX_INT_DIGITS" in str(e.value)
    read_program(program_with_ops(op.replace("123456", "12345")), "x.json", warn=lambda m: None)


def test_nesting_limit_from_the_environment(monkeypatch):
    monkeypatch.setenv("PIRC_MAX_NESTING", "20")
    # an extra top-level key: its list's bracket is at depth 2
    ok = program_with_ops("")[:-1] + ',"x":' + "[" * 19 + "]" * 19 + "}"
    read_program(ok)
    too_deep = program_with_ops("")[:-1] + ',"x":' + "[" * 20 + "]" * 20 + "}"
    with pytest.raises(LimitError) as e:
        read_program(too_deep, "x.json")
    assert "x.json: x[0]" in e.value.render() and "limit of 20 levels" in str(e.value)


def test_string_limit(monkeypatch):
    monkeypatch.setenv("PIRC_MAX_STRING_BYTES", "30")
    read_program(program_with_ops(DATA_OP.replace('"D":"x"', '"D":"' + "s" * 30 + '"')))
    with pytest.raises(LimitError) as e:
        read_program(program_with_ops(DATA_OP.replace('"D":"x"', '"D":"' + "s" * 31 + '"')), "x.json")
    assert e.value.render().startswith("x.json: program.regions[0].blocks[0].ops[0].A[0].AT")
    assert "string attribute limit of 30 bytes" in str(e.value)


def test_input_size_limit(monkeypatch):
    text = program_with_ops(DATA_OP)
    monkeypatch.setenv("PIRC_MAX_INPUT_BYTES", str(len(text) - 1))
    with pytest.raises(PircError) as e:
        read_program(text, "x.json")
    assert "input size limit" in str(e.value) and "PIRC_MAX_INPUT_BYTES" in str(e.value)
    monkeypatch.setenv("PIRC_MAX_INPUT_BYTES", str(len(text)))
    read_program(text)


# -- the writer refuses exactly what the reader would -------------------------------------


def one_op_program():
    return parse_text('pir.version 4\n{\n (%0) = "pd_op.full" () {x:[]} : () -> tensor<1xf32>\n}\n',
                      "t.pir")


def nested_array(levels: int):
    a = A.array_attr(())
    for _ in range(levels):
        a = A.array_attr((a,))
    return a


def test_writer_refuses_a_600_deep_attribute_array():
    # text/08's class: an attribute array nested 600 deep crashed the writer (RecursionError)
    program = one_op_program()
    next(iter(program.block.ops)).attributes["x"] = nested_array(600)
    with pytest.raises(JsonError) as e:
        write_program(program)
    assert e.value.path == "program.regions[0].blocks[0].ops[0]"
    assert 'attribute "x"' in str(e.value) and "nesting depth limit" in str(e.value)


def test_writer_and_reader_agree_on_attribute_depth(monkeypatch):
    program = one_op_program()
    op = next(iter(program.block.ops))
    outcomes = []
    for levels in range(2, 12):
        op.attributes["x"] = nested_array(levels)
        monkeypatch.setenv("PIRC_MAX_NESTING", "1000")
        text = write_program(program)
        monkeypatch.setenv("PIRC_MAX_NESTING", "30")
        try:
            write_program(program)
            written = True
        except JsonError:
            written = False
        try:
            read_program(text)
            read = True
        except LimitError:
            read = False
        outcomes.append((written, read))
    assert all(w == r for w, r in outcomes), outcomes
    assert (True, True) in outcomes and (False, False) in outcomes


def test_writer_and_reader_agree_on_region_depth(monkeypatch):
    outcomes = []
    for levels in range(1, 6):
        op_text = json.dumps({"#": "1.if", "A": [], "I": [], "O": [], "OA": []})
        inner = ""
        for _ in range(levels):
            region = '{"#":"r","blocks":[{"#":"b","args":[],"ops":[%s]}]}' % inner
            inner = op_text[:-1] + ',"regions":[%s]}' % region
        monkeypatch.setenv("PIRC_MAX_NESTING", "1000")
        program = read_program(program_with_ops(inner))
        text = write_program(program)
        monkeypatch.setenv("PIRC_MAX_NESTING", "30")
        try:
            write_program(program)
            written = True
        except JsonError as e:
            assert "nesting depth limit of 30" in str(e)
            written = False
        try:
            read_program(text)
            read = True
        except LimitError:
            read = False
        outcomes.append((written, read))
    assert all(w == r for w, r in outcomes), outcomes
    assert (True, True) in outcomes and (False, False) in outcomes
