"""The streamed JSON reader (top-level ops decoded one at a time) reads the
same program as the whole-document reader, whatever the key layout."""

from __future__ import annotations

import json

import pytest

import pirc.paddle_json.reader as reader_module
from pirc.errors import SourceError
from pirc.ir.equality import program_differences
from pirc.paddle_json.reader import read_program

from corpus_files import CORPUS

SOURCE = (CORPUS / "3.3.1" / "control_flow.3.3.1.json").read_text()


def test_paddle_layout_is_streamed_without_decoding_the_whole_document(monkeypatch):
    def no_loads(*args, **kwargs):
        raise AssertionError("json.loads of the whole document")
    monkeypatch.setattr(reader_module.json, "loads", no_loads)
    program = read_program(SOURCE, "cf.json")
    assert program.op_count() == 34


@pytest.mark.parametrize("layout", ["reversed keys", "extra top key", "ops before args", "indented"])
def test_other_layouts_read_the_same_program(layout):
    doc = json.loads(SOURCE)
    if layout == "reversed keys":
        text = json.dumps({"program": doc["program"], "base_code": doc["base_code"]})
    elif layout == "extra top key":
        doc["zz_extra"] = {"kept": True}
        text = json.dumps(doc, sort_keys=True)
    elif layout == "ops before args":
        block = doc["program"]["regions"][0]["blocks"][0]
        doc["program"]["regions"][0]["blocks"][0] = {"ops": block["ops"], "#": block["#"], "args": block["args"]}
        text = json.dumps(doc)
    else:
        text = json.dumps(doc, indent=4, sort_keys=True)
    expected = read_program(json.loads(SOURCE), "obj")
    assert program_differences(expected, read_program(text, "layout.json")) == []


def test_syntax_error_inside_the_op_list_has_its_line_and_column():
    broken = SOURCE.replace('{"#":"1.exp"', '{"#":"1.exp",,', 1)
    with pytest.raises(SourceError) as e:
        read_program(broken, "broken.json")
    assert e.value.line == 1 and e.value.column == broken.index(",,") + 2
    assert "malformed JSON" in e.value.message


@pytest.mark.parametrize("separator", [",", ", ", " ,", " , ", ",\n\t", "\r\n,\r\n"])
def test_any_whitespace_around_the_op_separators_is_streamed(separator, monkeypatch):
    ops_at = SOURCE.index('"ops":[') + len('"ops":[')
    spaced = SOURCE[:ops_at] + SOURCE[ops_at:].replace('},{"#"', "}" + separator + '{"#"')
    monkeypatch.setattr(reader_module.json, "loads", None)  # the whole-document reader is not used
    expected = read_program(SOURCE, "cf.json")
    assert program_differences(expected, read_program(spaced, "spaced.json")) == []


@pytest.mark.parametrize("damage,message", [(',]', "Expecting value"), (', x', "Expecting value"),
                                            (' {"#"', "Expecting ',' delimiter")])
def test_a_broken_op_list_is_a_located_syntax_error(damage, message):
    ops_at = SOURCE.index('"ops":[') + len('"ops":[')
    first_end = SOURCE.index('},{"#"', ops_at) + 1  # the end of the first top-level op
    broken = SOURCE[:first_end] + damage + SOURCE[first_end:]
    with pytest.raises(SourceError) as e:
        read_program(broken, "broken.json")
    assert "malformed JSON" in e.value.message and message in e.value.message
    assert e.value.line == 1 and e.value.column > first_end
