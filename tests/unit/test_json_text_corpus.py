"""Saved JSON against Paddle's own print of the program it loads, and JSON
through pirc's canonical text and back."""

from __future__ import annotations

import json
import math

import pytest

from pirc.ir.verifier import verify_program
from pirc.paddle_json.equality import documents_equal
from pirc.paddle_json.reader import read_program
from pirc.paddle_json.writer import write_program
from pirc.text.canonical_printer import print_canonical
from pirc.text.paddle_printer import print_paddle
from pirc.text.parser import parse_text

from corpus_files import GENERATED, all_jsons, crossload_jsons, saved_jsons


def _ids(paths):
    return [p.parent.name + "/" + p.name for p in paths]


@pytest.mark.parametrize("path", saved_jsons(), ids=_ids(saved_jsons()))
def test_json_prints_as_paddle_prints_the_loaded_program(path):
    program = read_program(path.read_text(), str(path))
    verify_program(program, strict=True)
    expected = path.with_name(path.name.replace(".json", ".loaded.pir.txt")).read_text()
    assert print_paddle(program) == expected


@pytest.mark.parametrize("path", crossload_jsons(), ids=_ids(crossload_jsons()))
def test_crossload_json_prints_as_paddle_3_3_prints_it(path):
    program = read_program(path.read_text(), str(path))
    assert program.version == 4
    verify_program(program, strict=True)
    assert print_paddle(program) == path.with_name(path.name.replace(".json", ".pir.txt")).read_text()


@pytest.mark.parametrize("path", all_jsons(), ids=_ids(all_jsons()))
def test_json_through_canonical_text_gives_back_an_equal_document(path):
    original = json.loads(path.read_text())
    canonical = print_canonical(read_program(original, str(path)))
    back = write_program(parse_text(canonical, "canonical"))
    assert documents_equal(original, json.loads(back)) == []


def test_nan_attribute_survives_and_is_written_as_paddle_can_load_it():
    # Paddle writes "VD":"NaN" and then fails to load it; only "NAN" loads
    # (tools/paddle_oracle/FINDINGS.md, checked on 3.0.0 and 3.3.1).
    path = GENERATED / "3.3.1" / "nan_attr.3.3.1.json"
    assert '"VD":"NaN"' in path.read_text()
    program = read_program(path.read_text(), str(path))
    values = [op.attributes["value"].value.data for op in program.walk()
              if op.name == "pd_op.full" and "value" in op.attributes]
    assert any(math.isnan(v) for v in values)
    written = write_program(program)
    assert '"VD":"NAN"' in written and '"NaN"' not in written
    assert documents_equal(json.loads(path.read_text()), json.loads(written)) == []
    again = parse_text(print_canonical(read_program(written)), "canonical")
    assert any(math.isnan(op.attributes["value"].value.data) for op in again.walk()
               if op.name == "pd_op.full" and "value" in op.attributes)
