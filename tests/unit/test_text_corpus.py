"""Every real Paddle text file in tests/fixtures, in every direction the text allows."""

from __future__ import annotations

import re

import pytest

from pirc.ir.equality import program_differences
from pirc.ir.verifier import verify_program
from pirc.text.canonical_printer import print_canonical
from pirc.text.paddle_printer import print_paddle
from pirc.text.parser import parse_text

from corpus_files import id_texts, printed_texts, typed_2_6_texts, version_of

OP_LINE = re.compile(r'^\s*\([^)]*\) = "?[a-z_]+\.[a-z_0-9]+', re.M)


def _ids(paths):
    return [p.parent.name + "/" + p.name for p in paths]


@pytest.mark.parametrize("path", printed_texts(), ids=_ids(printed_texts()))
def test_paddle_text_prints_back_byte_for_byte(path):
    source = path.read_text()
    program = parse_text(source, str(path), version_of(path))
    verify_program(program)
    assert program.op_count() == len(OP_LINE.findall(source))
    assert print_paddle(program) == source


@pytest.mark.parametrize("path", printed_texts(), ids=_ids(printed_texts()))
def test_canonical_text_is_lossless_and_a_fixpoint(path):
    program = parse_text(path.read_text(), str(path), version_of(path))
    canonical = print_canonical(program)
    assert canonical.startswith(f"pir.version {version_of(path)}\n")
    again = parse_text(canonical, "canonical")
    assert program_differences(program, again) == []
    assert print_canonical(again) == canonical
    # Through canonical text and back, Paddle's own print is unchanged.
    assert print_paddle(again) == path.read_text()


@pytest.mark.parametrize("path", id_texts(), ids=_ids(id_texts()))
def test_text_with_op_ids_reads_as_the_same_program(path):
    plain = path.with_name(path.name.replace(".pir-ids.txt", ".pir.txt")).read_text()
    program = parse_text(path.read_text(), str(path), version_of(path))
    assert "[id:" in path.read_text()
    assert print_paddle(program) == plain


@pytest.mark.parametrize("path", typed_2_6_texts(), ids=_ids(typed_2_6_texts()))
def test_paddle_2_6_typed_text_parses(path):
    source = path.read_text()
    program = parse_text(source, str(path), 1)
    assert program.op_count() == len(OP_LINE.findall(source))
    canonical = print_canonical(program)
    assert program_differences(program, parse_text(canonical, "canonical")) == []
