"""Whatever pirc writes as JSON, pirc reads back to the same program, or refuses to write it.

Seeds: tests/fixtures/fuzz_crashes/{text,json} (issue 9's "json-write-does-not-read" and
"json-roundtrip-changes-canonical" findings), checked as a user sees them: the canonical
text before and after a JSON round trip, the written file, pirc-opt's stderr.
"""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

import pytest

from pirc.errors import JsonError
from pirc.ir.equality import program_differences
from pirc.paddle_json.reader import read_program
from pirc.paddle_json.writer import write_program
from pirc.text.canonical_printer import print_canonical
from pirc.text.parser import parse_text

FIXTURES = pathlib.Path(__file__).resolve().parent.parent / "fixtures" / "fuzz_crashes"
REPO = pathlib.Path(__file__).resolve().parent.parent.parent


def seed(front: str, number: str) -> pathlib.Path:
    (path,) = [p for p in (FIXTURES / front).glob(number + "-*")
               if not p.name.endswith(".txt") or p.name.endswith(".pir.txt")]
    return path


def pirc_opt(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "pirc", *map(str, args)], capture_output=True,
                          text=True, cwd=cwd)


def json_round_trip(program):
    return read_program(write_program(program), "written.json")


def test_block_argument_attributes_survive_json():
    # text/05: `^%arg_0 : tensor<1xi64> {stop_gradient:true}` lost its attributes
    program = parse_text(seed("text", "05").read_text(), "05.pir", 4)
    again = json_round_trip(program)
    assert print_canonical(again) == print_canonical(program)
    assert "{stop_gradient:true}, %arg_1" in print_canonical(again)


def test_negative_nan_reads_back_as_an_equal_nan():
    # text/02: JSON has no NaN sign (it writes NaN the way Paddle reads it); equality treats
    # NaNs of either sign as equal, and canonical text keeps the sign where it has one.
    program = parse_text(seed("text", "02").read_text(), "02.pir", 4)
    assert "s:(Double)-nan" in print_canonical(program)
    written = write_program(program)
    assert '"VD":"NAN"' in written
    again = read_program(written)
    assert program_differences(program, again) == []


def test_trainable_false_keeps_an_empty_stop_gradient():
    # json/06: `stop_gradient:[]` in A of a trainable=false program was dropped on writing
    path = seed("json", "06")
    program = read_program(path.read_text(), path.name)
    assert "stop_gradient:[]" in print_canonical(program)
    again = json_round_trip(program)
    assert print_canonical(again) == print_canonical(program)


@pytest.mark.parametrize("number, name", [("01", "Z"), ("10", "a")])
def test_an_op_name_without_a_dialect_never_reaches_a_json_file(number, name, tmp_path):
    # text/01, text/10: pirc wrote JSON its reader refuses.  Now the name is refused (by the
    # JSON writer, or already by the text parser's op-name rule), naming it; no file is left.
    path = seed("text", number)
    out = tmp_path / "out.json"
    flags = {"01": [], "10": ["--from-version=2"]}[number]
    done = pirc_opt(path, *flags, "--no-verify", "-o", out)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert f'"{name}"' in done.stderr and "dialect" in done.stderr
    assert not out.exists()


def test_json_writer_refuses_op_names_it_would_read_back_differently():
    program = parse_text('pir.version 4\n{\n () = "pd_op.x" () {} : () -> \n}\n', "t.pir")
    op = next(iter(program.block.ops))
    for bad in ("Z", "1.x", "x.", ".x"):
        op.name = bad  # an instance attribute: what another front end could build
        with pytest.raises(JsonError, match="cannot be saved in Paddle JSON"):
            write_program(program)


# -- keys pirc does not know ------------------------------------------------------------


def with_unknown_keys() -> dict:
    doc = json.loads(seed("json", "06").read_text())
    op = doc["program"]["regions"][0]["blocks"][0]["ops"][0]
    del op[""]
    op["comment"] = {"by": "a tool", "n": [1, 2]}
    op["O"][0]["note"] = "value note"
    return doc


def test_unknown_keys_round_trip_and_are_reported(tmp_path):
    src = tmp_path / "in.json"
    src.write_text(json.dumps(with_unknown_keys()))
    out = tmp_path / "out.json"
    done = pirc_opt(src, "-o", out)
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == [
        f'{src}: program.regions[0].blocks[0].ops[0]: warning: unknown key "comment" kept and '
        "written back as it is (Paddle's reader ignores keys it does not know)",
        f'{src}: program.regions[0].blocks[0].ops[0].O[0]: warning: unknown key "note" kept and '
        "written back as it is (Paddle's reader ignores keys it does not know)",
    ]
    op = json.loads(out.read_text())["program"]["regions"][0]["blocks"][0]["ops"][0]
    assert op["comment"] == {"by": "a tool", "n": [1, 2]}
    assert op["O"][0]["note"] == "value note"
    assert list(op) == sorted(op)  # keys in the order Paddle writes them


def test_unknown_keys_in_block_arguments_round_trip():
    text = seed("text", "05").read_text()
    doc = json.loads(write_program(parse_text(text, "05.pir", 4)))
    ops = doc["program"]["regions"][0]["blocks"][0]["ops"]
    (loop,) = [op for op in ops if op["#"] == "1.while"]
    loop["regions"][0]["blocks"][0]["args"][1]["origin"] = "loop var"
    warnings = []
    program = read_program(json.dumps(doc), "w.json", warn=warnings.append)
    assert len(warnings) == 1 and ".regions[0].blocks[0].args[1]: warning: unknown key \"origin\"" in warnings[0]
    again = json.loads(write_program(program))
    (loop,) = [op for op in again["program"]["regions"][0]["blocks"][0]["ops"] if op["#"] == "1.while"]
    assert loop["regions"][0]["blocks"][0]["args"][1]["origin"] == "loop var"


# -- verifier problems in a JSON input ---------------------------------------------------


def test_json_verifier_errors_name_the_ops_json_path(tmp_path):
    doc = json.loads(seed("json", "11").read_text())
    doc["base_code"]["version"] = 4
    ops = doc["program"]["regions"][0]["blocks"][0]["ops"]
    ops.insert(0, {"#": "1.flash_attn_v3_varlen_grad", "I": [], "O": [], "A": []})
    ops[1] = {"#": "1.relu", "I": [], "O": [], "A": []}
    src = tmp_path / "bad.json"
    src.write_text(json.dumps(doc))
    done = pirc_opt(src, "-o", tmp_path / "out.json")
    assert done.returncode == 1
    assert "Traceback" not in done.stderr and "op #" not in done.stderr
    lines = done.stderr.splitlines()
    assert lines[0].startswith(f"{src}: program.regions[0].blocks[0].ops[0]: error: "
                               "pd_op.flash_attn_v3_varlen_grad: expects 12 operands")
    assert any(line.startswith(f"{src}: program.regions[0].blocks[0].ops[1]: error: pd_op.relu: ")
               for line in lines)


def test_an_upgrade_that_cannot_make_the_op_fit_is_refused_at_its_path():
    # json/11: an op unknown at version 1 is a known op at version 4, which it does not fit
    path = seed("json", "11")
    done = pirc_opt(path, "--upgrade", "--emit=json")
    assert done.returncode == 1 and done.stdout == ""
    assert "Traceback" not in done.stderr
    assert f"{path}: program.regions[0].blocks[0].ops[0]: error: pd_op.flash_attn_v3_varlen_grad" \
        in done.stderr
