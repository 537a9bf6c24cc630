"""Text input limits (pirc.limits): refused beyond them with a located message naming the
limit and its variable, before Lark sees the input; and at the nesting limit every recursive
walker of the IR still works (none reaches Python's recursion limit first)."""

from __future__ import annotations

import pytest

from pirc import limits
from pirc.errors import SourceError
from pirc.ir.equality import program_differences
from pirc.ir.verifier import collect_problems
from pirc.text.canonical_printer import print_canonical
from pirc.text.paddle_printer import print_paddle
from pirc.text.parser import parse_text


def nested_regions(depth: int) -> str:
    return ("pir.version 4\n{\n" + '() = "test.op" () {} : () -> ({\n' * depth
            + "})\n" * depth + "}\n")


def deep_array(depth: int) -> str:
    return ('pir.version 4\n{\n (%0) = "pd_op.full" () {x:' + "[" * depth + "]" * depth
            + "} : () -> tensor<1xf32>\n}\n")


def test_nesting_limit_default_leaves_room_for_every_walker():
    # At the default limit, every recursive walker of text/ and ir/ runs (the JSON writer,
    # pirc/paddle_json, is made iterative on its own).
    n = limits.MAX_NESTING.value()
    for text in (nested_regions(n), deep_array(n)):
        program = parse_text(text, "deep.pir")
        collect_problems(program)
        canonical = print_canonical(program)
        assert program_differences(program, parse_text(canonical, "again.pir")) == []
        print_paddle(program)


@pytest.mark.parametrize("make, where", [(nested_regions, (9, 1)), (deep_array, (3, 26))])
def test_nesting_past_the_limit_is_refused_where_it_happens(monkeypatch, make, where):
    monkeypatch.setenv("PIRC_MAX_NESTING", "6")
    parse_text(make(6), "ok.pir")
    with pytest.raises(SourceError) as e:
        parse_text(make(7), "deep.pir")
    assert (e.value.line, e.value.column) == where
    assert "nesting depth limit of 6 levels (7 levels)" in e.value.message
    assert "PIRC_MAX_NESTING" in e.value.message


def test_region_and_array_nesting_add_up(monkeypatch):
    monkeypatch.setenv("PIRC_MAX_NESTING", "2")
    text = ('pir.version 4\n{\n() = "test.op" () {} : () -> ({\n'
            '    () = "test.op" () {x:[[]]} : () -> \n})\n}\n')
    with pytest.raises(SourceError, match="nesting depth limit of 2 levels"):
        parse_text(text, "x.pir")


def op_with_string(n: int) -> str:
    return 'pir.version 4\n{\n () = "test.op" () {s:"' + "a" * n + '"} : () -> \n}\n'


@pytest.mark.parametrize("env, found, col", [
    ("PIRC_MAX_STRING_BYTES", "string attribute limit of 100 bytes (152 bytes)", 23),
    ("PIRC_MAX_LINE_BYTES", "line length limit of 100 bytes (184 bytes)", 1),
    ("PIRC_MAX_INPUT_BYTES", "input size limit of 100 bytes (203 bytes)", 1),
])
def test_size_limits_name_the_limit(monkeypatch, env, found, col):
    parse_text(op_with_string(150), "ok.pir")
    monkeypatch.setenv(env, "100")
    with pytest.raises(SourceError) as e:
        parse_text(op_with_string(150), "big.pir")
    assert found in e.value.message and env in e.value.message
    assert e.value.column == col


def test_size_limits_count_bytes_not_characters(monkeypatch):
    monkeypatch.setenv("PIRC_MAX_STRING_BYTES", "100")
    parse_text(op_with_string(98), "ok.pir")
    with pytest.raises(SourceError, match=r"string attribute limit of 100 bytes \(101 bytes\)"):
        parse_text(op_with_string(98).replace("a", "é", 1), "utf8.pir")


def _pirc_opt_under_memory_cap(path, megabytes: int, *args):
    import resource
    import subprocess
    import sys

    def cap():
        resource.setrlimit(resource.RLIMIT_AS, (megabytes << 20, resource.RLIM_INFINITY))

    return subprocess.run([sys.executable, "-c", "import sys; from pirc.cli.opt import main; "
                           "sys.argv[0] = 'pirc-opt'; main()", *args, str(path), "-o", str(path.with_suffix(".out.pir"))],
                          preexec_fn=cap, capture_output=True, text=True)


@pytest.mark.parametrize("header, tail, rc", [("pir.version 4\n", "", 0), ("pir.version 4\n", ", t:[1 q]", 1),
                                              ("", ", t:[1 q]", 1)], ids=["reads", "canonical-error", "paddle-error"])
def test_a_long_string_costs_memory_in_proportion(tmp_path, header, tail, rc):
    # A string literal once cost ~330 bytes of regex backtracking state per character (the
    # lexer's `(?:[^"\\]|\\.)*`): 6 MB, well inside the string limit, needed 2 GB.  Under a
    # 1 GB address-space cap it reads, and an error after it is reported with the line clipped.
    path = tmp_path / "long.pir"
    path.write_text(header + '{\n (%0) = "pd_op.full" () {s:"' + "a" * 6_000_000 + '"' + tail
                    + "} : () -> tensor<1xf32>\n}\n")
    done = _pirc_opt_under_memory_cap(path, 1024, "--no-verify", *([] if header else ["--from-version=4"]))
    assert done.returncode == rc, done.stderr[-500:]
    if rc:
        assert "error: unexpected 'q'; expected ',', '}' or ']'" in done.stderr
        assert len(done.stderr) < 1000  # the 6 MB line is shown as a window around the column
