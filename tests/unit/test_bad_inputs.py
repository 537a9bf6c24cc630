"""Bad input is never an internal error (issue 20 item 7): each input below, most of them a
reproducer found from outside (tests/fixtures/fuzz_passes/, copied from the fuzz campaign),
is refused with exit 1 and one error naming the input (and the location where there is one),
never exit 70; a big-endian feed and an integer scale by NaN run, with Paddle's numbers.

Endless FIFOs have a writer thread that writes until the reader goes away; huge files are
sparse (truncate), so nothing here allocates or writes more than a few megabytes."""

from __future__ import annotations

import json
import math
import os
import re
import threading
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch

from pirc.cli.opt import run as opt
from pirc.cli.run import run as pirc_run

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
FUZZ = FIXTURES / "fuzz_passes"
PROGRAM = FUZZ / "run-inputs-program-x-2x3.pir"      # x: float32[2, 3] -> exp(x)
INPUTS = {"x": np.arange(6, dtype=np.float32).reshape(2, 3)}


def refused(status: int, capsys, *names: str) -> str:
    """The one error of a refused command: exit 1, no internal error, naming each of `names`."""
    err = capsys.readouterr().err
    assert status == 1, err
    assert "internal error" not in err and "Traceback" not in err, err
    assert "error:" in err, err
    for name in names:
        assert name in err, err
    return err


def run_program(inputs_path, tmp_path, *extra: str, program: Path = PROGRAM) -> int:
    return pirc_run([str(program), "--from-version=4", "--inputs", str(inputs_path),
                     "--outputs", str(tmp_path / "out.npz"), *extra])


def endless_fifo(path: Path, chunk: bytes = b"0" * 65536) -> threading.Thread:
    """A FIFO at `path` whose writer never stops (until the reader closes its end)."""
    os.mkfifo(path)

    def write_forever():
        try:
            with open(path, "wb") as f:
                while True:
                    f.write(chunk)
        except OSError:  # BrokenPipeError: the reader gave up, as it should
            pass

    writer = threading.Thread(target=write_forever, daemon=True)
    writer.start()
    return writer


def sparse_file(path: Path, size: int) -> Path:
    with open(path, "wb") as f:
        f.truncate(size)
    return path


# -- pirc-run --inputs ---------------------------------------------------------------------

@pytest.mark.parametrize("name, says", [
    ("run-inputs-BAD-EOFError-pirc-cli-run-py-72-load-inputs-rc-70.npz", "the file is empty"),
    ("run-inputs-plain-npy-internal-error.npy", "a single .npy array, not an .npz archive"),
    ("run-inputs-BAD-TypeError-pirc-cli-run-py-72-load-inputs-rc-70.npz", "a single .npy array"),
    ("run-inputs-BAD-MemoryError-pirc-cli-run-py-73-dictcomp-rc-70.npz",
     "member 'x.npy': its header claims <f4[1000000000000, 3] (12000000000000 bytes) but the "
     "member holds 24 bytes"),
    ("run-inputs-BAD-NotImplementedError-pirc-cli-run-py-73-dictcomp-rc-70.npz",
     "member 'x.npy' cannot be read: NotImplementedError: strong encryption"),
    ("run-inputs-BAD-error-pirc-cli-run-py-73-dictcomp-rc-70.npz",
     "member 'x.npy' cannot be read: error: Error -3 while decompressing"),
    ("run-inputs-program-x-2x3.pir", "not an .npz archive (no zip signature)"),
])
def test_a_damaged_inputs_file_is_one_error_naming_it(name, says, tmp_path, capsys):
    err = refused(run_program(FUZZ / name, tmp_path), capsys, says)
    assert err.startswith(f"{FUZZ / name}: error: inputs file: "), err
    assert len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "out.npz").exists()


def test_an_archive_without_members_names_the_missing_feed(tmp_path, capsys):
    refused(run_program(FUZZ / "empty-inputs.npz", tmp_path), capsys,
            "no input for feed x (inputs given: none)")


@pytest.mark.parametrize("name", ["run-inputs-big-endian-f4-internal-error.npz",
                                  "run-inputs-BAD-ValueError-pirc-lower-feeds-py-61-as-tensor-rc-70.npz"])
def test_a_big_endian_feed_runs_as_the_same_numbers(name, tmp_path):
    given = np.load(FUZZ / name)["x"]
    assert given.dtype.byteorder == ">"
    assert run_program(FUZZ / name, tmp_path) == 0
    out = np.load(tmp_path / "out.npz")["y"]
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, np.exp(given.astype(np.float32)), rtol=1e-6)


def test_big_endian_in_the_library_api_too(tmp_path):
    np.savez(tmp_path / "native.npz", x=np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3))
    np.savez(tmp_path / "big.npz", x=np.linspace(-1, 1, 6, dtype=">f4").reshape(2, 3))
    assert run_program(tmp_path / "native.npz", tmp_path) == 0
    native = np.load(tmp_path / "out.npz")["y"]
    assert run_program(tmp_path / "big.npz", tmp_path) == 0
    assert np.load(tmp_path / "out.npz")["y"].tobytes() == native.tobytes()


def test_more_ways_an_inputs_file_is_wrong(tmp_path, capsys):
    # an object array (pickled): never unpickled
    np.savez(tmp_path / "objects.npz", x=np.array([{"a": 1}], dtype=object))
    refused(run_program(tmp_path / "objects.npz", tmp_path), capsys, "objects.npz",
            "member 'x.npy': holds Python objects")
    # a member that is not an .npy
    with zipfile.ZipFile(tmp_path / "other.npz", "w") as z:
        z.writestr("x.txt", "1 2 3")
    refused(run_program(tmp_path / "other.npz", tmp_path), capsys, "member 'x.txt' is not an .npy")
    # a truncated archive
    np.savez(tmp_path / "whole.npz", **INPUTS)
    data = (tmp_path / "whole.npz").read_bytes()
    (tmp_path / "cut.npz").write_bytes(data[:len(data) // 2])
    refused(run_program(tmp_path / "cut.npz", tmp_path), capsys, "cut.npz",
            "not a readable .npz (zip) archive")
    # a member compressed with a method zipfile does not implement (99: AES)
    with zipfile.ZipFile(tmp_path / "stored.npz", "w") as z:
        z.writestr("x.npy", _npy_bytes(INPUTS["x"]))
    raw = bytearray((tmp_path / "stored.npz").read_bytes())
    for sig, at in ((b"PK\x03\x04", 8), (b"PK\x01\x02", 10)):  # local header, central directory
        i = raw.index(sig)
        raw[i + at:i + at + 2] = (99).to_bytes(2, "little")
    (tmp_path / "aes.npz").write_bytes(bytes(raw))
    refused(run_program(tmp_path / "aes.npz", tmp_path), capsys, "aes.npz",
            "member 'x.npy' cannot be read: NotImplementedError")
    # a central directory asking for a zip version zipfile does not implement
    raw = bytearray((tmp_path / "stored.npz").read_bytes())
    i = raw.index(b"PK\x01\x02")
    raw[i + 6:i + 8] = (155).to_bytes(2, "little")  # "version needed to extract": 15.5
    (tmp_path / "v155.npz").write_bytes(bytes(raw))
    refused(run_program(tmp_path / "v155.npz", tmp_path), capsys, "v155.npz",
            "not a readable .npz (zip) archive: zip file version 15.5")
    # a folder, and a file that is not there
    refused(run_program(tmp_path, tmp_path), capsys, f"{tmp_path}: error: inputs file: is a directory")
    refused(run_program(tmp_path / "missing.npz", tmp_path), capsys, "missing.npz: error: inputs file: no such file")


def _npy_bytes(array) -> bytes:
    import io

    buf = io.BytesIO()
    np.save(buf, array)
    return buf.getvalue()


def test_a_header_within_the_member_but_past_the_limit_is_refused(tmp_path, capsys, monkeypatch):
    np.savez(tmp_path / "in.npz", **INPUTS)
    monkeypatch.setenv("PIRC_MAX_INPUTS_BYTES", "16")
    refused(run_program(tmp_path / "in.npz", tmp_path), capsys,
            "member 'x.npy'", "inputs file limit of 16 bytes (24 bytes)", "PIRC_MAX_INPUTS_BYTES")


def test_inputs_from_an_endless_fifo_stop_at_the_limit(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PIRC_MAX_INPUTS_BYTES", str(1 << 20))
    writer = endless_fifo(tmp_path / "in.fifo")
    refused(run_program(tmp_path / "in.fifo", tmp_path), capsys, "in.fifo",
            "inputs file limit of 1048576 bytes (it goes on past that)")
    writer.join(timeout=30)
    assert not writer.is_alive()


def test_inputs_from_a_fifo_that_ends_are_read(tmp_path):
    np.savez(tmp_path / "in.npz", **INPUTS)
    data = (tmp_path / "in.npz").read_bytes()
    os.mkfifo(tmp_path / "in.fifo")

    def write_once():
        with open(tmp_path / "in.fifo", "wb") as f:
            f.write(data)

    assert run_program(tmp_path / "in.npz", tmp_path) == 0
    from_file = np.load(tmp_path / "out.npz")["y"]
    threading.Thread(target=write_once, daemon=True).start()
    assert run_program(tmp_path / "in.fifo", tmp_path) == 0
    assert np.load(tmp_path / "out.npz")["y"].tobytes() == from_file.tobytes()


# -- parameters ----------------------------------------------------------------------------

def test_pdiparams_dims_overflowing_int64_are_refused(tmp_path, capsys):
    bad = FUZZ / "run-params-BAD-ValueError-pirc-runtime-params-py-136-read-tensor-rc-70.pdiparams"
    np.savez(tmp_path / "in.npz", **INPUTS)
    refused(run_program(tmp_path / "in.npz", tmp_path, "--params", str(bad)), capsys, bad.name,
            "tensor #0", "shape [4294967296, 4294967296] of float32 overflows int64")


def test_pdiparams_an_empty_tensor_of_overflowing_shape_is_refused(tmp_path):
    from pirc.errors import ParamsError
    from pirc.runtime.params import read_tensors

    # dims [0, 2^62, 4]: zero elements, but no array of that shape exists (numpy's limit)
    desc = b"\x08\x05" + b"".join(b"\x10" + _varint(d) for d in (0, 1 << 62, 4))
    (tmp_path / "p.pdiparams").write_bytes(
        (0).to_bytes(4, "little") + (0).to_bytes(8, "little") + (0).to_bytes(4, "little")
        + len(desc).to_bytes(4, "little") + desc)
    with pytest.raises(ParamsError, match=r"overflows int64"):
        read_tensors(str(tmp_path / "p.pdiparams"))


def _varint(v: int) -> bytes:
    out = bytearray()
    while True:
        low, v = v & 0x7F, v >> 7
        out.append(low | (0x80 if v else 0))
        if not v:
            return bytes(out)


def test_params_from_a_sparse_terabyte_are_refused_unread(tmp_path, capsys):
    huge = sparse_file(tmp_path / "huge.pdiparams", 1 << 40)
    np.savez(tmp_path / "in.npz", **INPUTS)
    refused(run_program(tmp_path / "in.npz", tmp_path, "--params", str(huge)), capsys,
            f"{huge}: error: parameters file:", "parameters file limit of 274877906944 bytes "
            "(1099511627776 bytes)", "PIRC_MAX_PARAMS_BYTES")


def test_params_from_an_endless_fifo_stop_at_the_limit(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PIRC_MAX_PARAMS_BYTES", str(1 << 20))
    writer = endless_fifo(tmp_path / "p.fifo")
    np.savez(tmp_path / "in.npz", **INPUTS)
    refused(run_program(tmp_path / "in.npz", tmp_path, "--params", str(tmp_path / "p.fifo")),
            capsys, "p.fifo", "parameters file limit of 1048576 bytes (it goes on past that)")
    writer.join(timeout=30)
    assert not writer.is_alive()


# -- rollout files -------------------------------------------------------------------------

OPT_PROGRAM = FUZZ / "default_constfold_cse.pir.txt"


@pytest.mark.parametrize("via", ["--rollout", "PIRC_ROLLOUT"])
def test_a_rollout_file_that_is_a_sparse_terabyte_is_refused_unread(via, tmp_path, capsys, monkeypatch):
    huge = sparse_file(tmp_path / "rollout.yaml", 1 << 40)
    argv = [str(OPT_PROGRAM), "--from-version=4", "-p", "cse", "-o", str(tmp_path / "out.pir")]
    if via == "--rollout":
        argv += ["--rollout", str(huge)]
    else:
        monkeypatch.setenv("PIRC_ROLLOUT", str(huge))
    err = refused(opt(argv), capsys, f"{huge}: error: the rollout file {via} names:",
                  "rollout file limit of 16777216 bytes (1099511627776 bytes)", "PIRC_MAX_ROLLOUT_BYTES")
    assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / "out.pir").exists()


@pytest.mark.parametrize("via", ["--rollout", "PIRC_ROLLOUT"])
def test_a_rollout_file_that_is_an_endless_fifo_stops_at_the_limit(via, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PIRC_MAX_ROLLOUT_BYTES", "100000")
    writer = endless_fifo(tmp_path / "rollout.fifo", chunk=b"# a comment line\n" * 1000)
    argv = [str(OPT_PROGRAM), "--from-version=4", "-p", "cse", "-o", str(tmp_path / "out.pir")]
    if via == "--rollout":
        argv += ["--rollout", str(tmp_path / "rollout.fifo")]
    else:
        monkeypatch.setenv("PIRC_ROLLOUT", str(tmp_path / "rollout.fifo"))
    refused(opt(argv), capsys, "rollout.fifo: error: the rollout file",
            "rollout file limit of 100000 bytes (it goes on past that)")
    writer.join(timeout=30)
    assert not writer.is_alive()


def test_a_program_that_is_an_endless_fifo_or_a_sparse_terabyte(tmp_path, capsys, monkeypatch):
    huge = sparse_file(tmp_path / "huge.pir", 1 << 40)
    refused(opt([str(huge)]), capsys, f"{huge}: error: input exceeds the input size limit")
    monkeypatch.setenv("PIRC_MAX_INPUT_BYTES", "100000")
    writer = endless_fifo(tmp_path / "prog.fifo", chunk=b"// comment\n" * 1000)
    refused(opt([str(tmp_path / "prog.fifo")]), capsys, "prog.fifo: error:",
            "input size limit of 100000 bytes (it goes on past that)")
    writer.join(timeout=30)


def test_a_crlf_program_still_reads(tmp_path):
    text = OPT_PROGRAM.read_text().replace("\n", "\r\n")
    (tmp_path / "crlf.pir").write_bytes(text.encode())
    assert opt([str(tmp_path / "crlf.pir"), "--from-version=4", "-o", str(tmp_path / "a.pir")]) == 0
    assert opt([str(OPT_PROGRAM), "--from-version=4", "-o", str(tmp_path / "b.pir")]) == 0
    assert (tmp_path / "a.pir").read_bytes() == (tmp_path / "b.pir").read_bytes()


# -- integer scale by NaN / inf: Paddle's numbers ------------------------------------------

SCALE_CASES = json.loads((FIXTURES / "paddle_checks" / "scale_int_cast.json").read_text())


def test_integer_scale_gives_paddles_numbers_for_every_recorded_case():
    """540 cases recorded from Paddle 3.3.1 (tools/paddle_oracle/gen_scale_int_cast.py):
    bool/uint8/int8/int16/int32/int64 x NaN, +-inf, out-of-range and ordinary factors and biases,
    both bias orders; the factor as a number (dygraph) and as a float32 tensor (a program)."""
    from pirc.lower.kernels.elementwise import scale

    assert SCALE_CASES["paddle"] == "3.3.1"
    wrong = []
    for c in SCALE_CASES["cases"]:
        dtype = getattr(torch, c["dtype"])
        x = torch.tensor(SCALE_CASES["x"], dtype=dtype)
        s, b = float(c["scale"]), float(c["bias"])
        as_number = scale(x, s, bias=b, bias_after_scale=c["bias_after_scale"]).tolist()
        as_tensor = scale(x, torch.tensor([s], dtype=torch.float32), bias=b,
                          bias_after_scale=c["bias_after_scale"]).tolist()
        if as_number != c["dygraph"] or as_tensor != c["static_f32_scale"]:
            wrong.append((c, as_number, as_tensor))
    assert not wrong, f"{len(wrong)} of {len(SCALE_CASES['cases'])}: {wrong[:3]}"


@pytest.mark.parametrize("name", ["pirc-run-internal-error-scale-int-by-nan.pir.txt",
                                  "run_scale_int_nan.pir.txt", "run_scale_int_inf.pir.txt"])
def test_pirc_run_scales_an_int32_tensor_by_nan_or_inf_as_paddle(name, tmp_path):
    inputs = FUZZ / "pirc-run-internal-error-scale-int-by-nan.inputs.npz"
    assert run_program(inputs, tmp_path, program=FUZZ / name) == 0
    out = np.load(tmp_path / "out.npz")["y"]
    # Paddle 3.3.1: the factor becomes INT_MIN (static_cast<int> of NaN / inf on x86-64),
    # and x * INT_MIN wraps: [1, 2, 3] -> [INT_MIN, 0, INT_MIN]
    expected = next(c["static_f32_scale"] for c in SCALE_CASES["cases"]
                    if c["dtype"] == "int32" and c["scale"] == ("nan" if "nan" in name else "inf")
                    and c["bias"] == 0.0 and c["bias_after_scale"])
    assert out.dtype == np.int32
    assert out.tolist() == expected[:3] == [-2**31, 0, -2**31]


# -- front ends: lone surrogates, out-of-range versions --------------------------------------

def test_a_lone_surrogate_escape_in_a_text_graph_tag_is_refused_at_read(capsys, tmp_path):
    name = FUZZ / "internal-error-lone-surrogate-escape-in-string.pir"
    err = refused(opt([str(name), "-o", str(tmp_path / "o.pir")]), capsys,
                  f"{name}:2:18: error: a graph tag: a lone UTF-16 surrogate escape (\\ud800")
    assert not (tmp_path / "o.pir").exists()
    assert err.splitlines()[1] == 'pir.graph_tags [("cse\\ud800", 1, "enabled")]'


@pytest.mark.parametrize("escape", ["\\ud800", "\\udfff", "\\ude00x", "\\ud83dx"])
def test_a_lone_surrogate_escape_in_a_text_attribute_is_refused_at_read(escape, capsys, tmp_path):
    text = (FUZZ / "internal-error-lone-surrogate-escape-in-string.pir").read_text()
    text = text.replace('("cse\\ud800", 1, "enabled")', "").replace('name:"x\\ud800"', f'name:"x{escape}"')
    (tmp_path / "s.pir").write_text(text)
    refused(opt([str(tmp_path / "s.pir")]), capsys, "s.pir:4:", "attribute 'name': a lone UTF-16 surrogate")


def test_a_surrogate_pair_escape_is_one_character(tmp_path, capsys):
    text = (FUZZ / "internal-error-lone-surrogate-escape-in-string.pir").read_text()
    text = text.replace("cse\\ud800", "cse").replace('name:"x\\ud800"', 'name:"x\\ud83d\\ude00"')
    (tmp_path / "s.pir").write_text(text)
    assert opt([str(tmp_path / "s.pir"), "-o", str(tmp_path / "o.json")]) == 0
    assert opt([str(tmp_path / "o.json"), "-o", str(tmp_path / "o.pir")]) == 0
    assert 'name:"x\U0001F600"' in (tmp_path / "o.pir").read_text(encoding="utf-8")


def test_a_lone_surrogate_escape_in_a_json_graph_tag_is_refused_at_read(capsys, tmp_path):
    name = FUZZ / "header-json-graph-tag-lone-surrogate-internal-error.json"
    err = refused(opt([str(name), "-o", str(tmp_path / "o.json")]), capsys,
                  f"{name}: base_code.pirc.graph_tags[0][0]: error: a string holds a lone UTF-16 surrogate")
    assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / "o.json").exists()


def test_a_lone_surrogate_escape_in_a_json_attribute_is_refused_at_read(capsys, tmp_path):
    doc = json.loads((FUZZ / "header-json-graph-tag-lone-surrogate-internal-error.json").read_text())
    doc["base_code"]["pirc"]["graph_tags"][0][0] = "cse"
    doc["program"]["regions"][0]["blocks"][0]["ops"][0]["A"][1]["AT"]["D"] = "x\ud800"
    (tmp_path / "a.json").write_text(json.dumps(doc))  # ensure_ascii: written as \ud800
    assert "\\ud800" in (tmp_path / "a.json").read_text()
    refused(opt([str(tmp_path / "a.json")]), capsys,
            "a.json: program.regions[0].blocks[0].ops[0].A[1].AT.D: error: a string holds a lone")


def test_a_json_graph_tag_version_beyond_int64_is_refused_at_read(capsys, tmp_path):
    name = FUZZ / "header-json-graph-tag-huge-version-canonical-does-not-read-back.json"
    refused(opt([str(name), "-o", str(tmp_path / "o.pir")]), capsys,
            f"{name}: base_code.pirc.graph_tags[0][1]: error: a pass version is an int64, "
            "got 1000000000000000000000000000000")
    # the largest int64 reads, and its canonical text reads back
    doc = json.loads(name.read_text())
    doc["base_code"]["pirc"]["graph_tags"][0][1] = 2**63 - 1
    (tmp_path / "max.json").write_text(json.dumps(doc))
    assert opt([str(tmp_path / "max.json"), "-o", str(tmp_path / "max.pir")]) == 0
    assert opt([str(tmp_path / "max.pir"), "-o", str(tmp_path / "again.json")]) == 0
    assert opt([str(tmp_path / "again.json"), "-o", str(tmp_path / "again.pir")]) == 0
    assert (tmp_path / "max.pir").read_text() == (tmp_path / "again.pir").read_text()


# -- reproducers, pipeline specs, expected diagnostics ---------------------------------------

def test_a_bisect_limit_in_non_ascii_digits_is_refused(capsys):
    name = FUZZ / "repro-bisect-limit-superscript-digit-internal-error.pir"
    refused(opt([f"--run-reproducer={name}"]), capsys,
            f"{name}: error: `// bisect-limit: \u00b2`: expected a number of rewrites")


@pytest.mark.parametrize("limit", ["\u0663", "1" * 5000, "-1", "1e3"])
def test_other_bad_bisect_limits_are_refused(limit, capsys, tmp_path):
    text = (FUZZ / "repro-bisect-limit-superscript-digit-internal-error.pir").read_text()
    (tmp_path / "r.pir").write_text(text.replace("bisect-limit: \u00b2", f"bisect-limit: {limit}"))
    err = refused(opt([f"--run-reproducer={tmp_path / 'r.pir'}"]), capsys, "bisect-limit")
    assert len(err) < 400  # a 5,000-digit limit is not echoed whole


def test_a_pipeline_option_of_5000_digits_is_refused_naming_the_limit(capsys):
    script = (FUZZ / "spec-option-5000-digit-integer-internal-error.sh").read_text()
    spec = re.search(r'-p "([^"]+)"', script).group(1)
    assert len(re.search(r"\d+", spec).group()) == 5000
    err = refused(opt([str(OPT_PROGRAM), "--from-version=4", "-p", spec]), capsys,
                  "the number at column 20", "integer literal limit of 400 digits (5000 digits)",
                  "PIRC_MAX_INT_DIGITS")
    assert len(err) < 600


def test_a_quoted_option_of_many_digits_is_not_a_number(capsys):
    # a digit run inside quotes is a string: the limit does not apply to it
    from pirc.passes.infra.pipeline import PipelineError, build_pipeline

    with pytest.raises(PipelineError) as e:
        build_pipeline('cse{x="' + "9" * 5000 + '"}')
    assert "integer literal limit" not in str(e.value)


def test_an_expected_diagnostic_offset_of_5000_digits_is_refused(tmp_path, capsys):
    (tmp_path / "d.pir").write_text("// expected-error@+" + "9" * 5000 + " {{foo}}\n")
    refused(opt(["--verify-diagnostics", str(tmp_path / "d.pir")]), capsys,
            "d.pir:1:4: error: expected-error@+99999999999...: a line offset of 5000 digits")


def test_the_side_file_limits_are_listed():
    from pirc import limits

    for limit in (limits.MAX_PARAMS_BYTES, limits.MAX_ROLLOUT_BYTES, limits.MAX_INPUTS_BYTES):
        assert limit in limits.ALL
        assert math.log2(limit.default) >= 20


# -- found by the differential fuzz campaign (tools.fuzz inputs / params fronts) ------------

@pytest.mark.parametrize("name, says", [
    # a member's .npy header dict cut by byte noise: numpy re-tokenizes it as a Python 2
    # header and tokenize raised TokenError
    ("run-inputs-BAD-TokenError-npz-inputs-py-116-read-member-rc-70.npz",
     "member 'in__x0.npy': its .npy header cannot be read (TokenError: "),
    # a member named "": zipfile's ZipInfo.is_dir() indexes filename[-1] (IndexError)
    ("run-inputs-BAD-IndexError-npz-inputs-py-70-is-dir-rc-70.npz",
     "member #0 has an empty name"),
    # shape (10^20,): numpy's read_array raised OverflowError
    ("run-inputs-BAD-OverflowError-shape-beyond-int64-rc-70.npz",
     "member 'x1.npy': its header claims |S2[99999999999999999999], whose element count or "
     "byte size is 2^63 or more"),
])
def test_fuzz_campaign_inputs_files_are_one_error_naming_the_member(name, says, tmp_path, capsys):
    err = refused(run_program(FUZZ / name, tmp_path), capsys, says)
    assert err.startswith(f"{FUZZ / name}: error: inputs file: "), err
    assert len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "out.npz").exists()


def _npy_with_header(header: str, data: bytes = b"") -> bytes:
    """A version 1.0 .npy member whose header dict is `header`, verbatim (padded as numpy pads)."""
    h = header.encode("latin1")
    h += b" " * (64 - (10 + len(h) + 1) % 64) + b"\n"
    return b"\x93NUMPY\x01\x00" + len(h).to_bytes(2, "little") + h + data


@pytest.mark.parametrize("header, says", [
    ("{'descr': '<f4', 'fortran_order': False, 'shape': (2,", "TokenError"),   # cut
    ("{[1]: 2}", "TypeError: unhashable type"),                                 # dict of a list
    ("{[1], 2}", "TypeError: unhashable type"),                                 # set of a list
    ("-" * 9000 + "1", "its .npy header cannot be read"),                        # parser depth
    ("{'descr': ('<f4', (99999999999999999999,)), 'fortran_order': False, 'shape': (2, 3), }",
     "its .npy header cannot be read"),
    ("{'descr': '<f4', 'fortran_order': False, 'shape': (" + "1, " * 70 + "), }",
     "its header claims 70 dimensions; numpy arrays have at most 64"),
    ("{'descr': '<f4', 'fortran_order': False, 'shape': (-2, -3), }",
     "its header claims a negative dimension in [-2, -3]"),
    ("{'descr': '<f4', 'fortran_order': False, 'shape': (0, 99999999999999999999), }",
     "<f4[0, 99999999999999999999], whose element count or byte size is 2^63 or more"),
])
def test_every_way_numpys_header_parser_fails_is_one_error(header, says, tmp_path, capsys):
    with zipfile.ZipFile(tmp_path / "in.npz", "w") as z:
        z.writestr("x.npy", _npy_with_header(header, b"\0" * 24))
    err = refused(run_program(tmp_path / "in.npz", tmp_path), capsys,
                  f"{tmp_path / 'in.npz'}: error: inputs file: member 'x.npy': ", says)
    assert len(err.strip().splitlines()) == 1, err


def test_a_member_with_an_empty_name_among_others_is_named_by_index(tmp_path, capsys):
    with zipfile.ZipFile(tmp_path / "in.npz", "w") as z:
        z.writestr("x.npy", _npy_bytes(INPUTS["x"]))
        z.writestr(zipfile.ZipInfo(""), b"")  # a plain "" trips zipfile itself
    refused(run_program(tmp_path / "in.npz", tmp_path), capsys, "member #1 has an empty name")


def test_pdiparams_with_more_than_64_dims_are_refused_naming_tensor_and_offset(tmp_path, capsys):
    # a TensorDesc of 67 dims of size 1: the element count is fine, numpy's reshape refused
    bad = FUZZ / "run-params-BAD-ValueError-pirc-runtime-params-py-142-read-tensor-67-dims-rc-70.pdiparams"
    np.savez(tmp_path / "in.npz", **INPUTS)
    err = refused(run_program(tmp_path / "in.npz", tmp_path, "--params", str(bad)), capsys,
                  f"{bad}: error: tensor #0 at byte 162: 67 dimensions; numpy arrays have at "
                  "most 64")
    assert len(err.strip().splitlines()) == 1, err


def test_pdiparams_65_dims_in_a_later_tensor_name_its_index(tmp_path):
    from pirc.errors import ParamsError
    from pirc.runtime.params import read_tensors

    def stream(dims):
        desc = b"\x08\x05" + b"".join(b"\x10" + _varint(d) for d in dims)
        return ((0).to_bytes(4, "little") + (0).to_bytes(8, "little") + (0).to_bytes(4, "little")
                + len(desc).to_bytes(4, "little") + desc + b"\0" * 4 * math.prod(dims))

    first = stream([1] * 64)   # 64 dims: numpy's limit, still read
    (tmp_path / "p.pdiparams").write_bytes(first + stream([1] * 65))
    with pytest.raises(ParamsError, match=r"tensor #1 at byte \d+: 65 dimensions; numpy arrays "
                                          r"have at most 64"):
        read_tensors(str(tmp_path / "p.pdiparams"))
    (tmp_path / "ok.pdiparams").write_bytes(first)
    assert read_tensors(str(tmp_path / "ok.pdiparams"))[0].shape == (1,) * 64
