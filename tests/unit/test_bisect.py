"""pirc.testing.bisect and pirc-bisect: a pass that miscomputes on its k-th rewrite
(broken_passes.test-miscompute) is named with rewrite k on real fixture programs; the
reproducer replays up to that rewrite; a pipeline that keeps the outputs is said to; bad
input is exit 2."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

import pirc
from pirc.cli.bisect import run as bisect_cli
from pirc.cli.opt import run as opt_cli
from pirc.passes import PircPass, register_pass, run_pipeline
from pirc.passes.infra.fingerprint import fingerprint
from pirc.testing import bisect
from pirc.text.parser import parse_text

from broken_passes import replace_op  # and registers test-miscompute

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "corpus" / "3.3.1"


def fixture(name: str):
    """(program, inputs, params path) of a corpus program recorded by Paddle 3.3.1."""
    with np.load(CORPUS / f"{name}.3.3.1.io.npz") as data:
        inputs = {k: data[k] for k in data.files if k.startswith("in__")}
    return pirc.load(str(CORPUS / f"{name}.3.3.1.json")), inputs, str(CORPUS / f"{name}.3.3.1.pdiparams")


def adds(program) -> list:
    return [op for op in program.block.ops if op.name == "pd_op.add"]


@register_pass
@dataclass(frozen=True)
class _SubtractsOutsideTheGate(PircPass):
    """Turns every add into a subtract without asking the rewrite gate."""

    name = "test-subtracts-ungated"

    def run(self, pc):
        for op in adds(pc.program):
            replace_op(op, "pd_op.subtract", pc.version)
            pc.rewrote()


@pytest.mark.parametrize("k", [1, 2])
def test_bisect_names_the_pass_and_its_kth_rewrite(tmp_path, k):
    program, inputs, params = fixture("mlp")
    assert len(adds(program)) == 2
    before = pirc.to_text(program)
    result = bisect(program, inputs, f"cse,test-miscompute{{k={k}}},dce", params,
                    reproducer=str(tmp_path / "r.pir"))
    assert result.diverged
    assert (result.pass_name, result.pass_index, result.rewrite) == ("test-miscompute", 1, k)
    assert result.bisect_limit == k  # cse merges nothing in mlp
    assert not result.diff.equal and result.diff.outputs[0][1].frac_out > 0
    assert result.reproducer == str(tmp_path / "r.pir")
    assert pirc.to_text(program) == before  # bisect works on copies


def test_the_fingerprint_and_the_limit_count_what_ran_before(tmp_path):
    program, inputs, params = fixture("transformer")
    result = bisect(program, inputs, "cse,test-miscompute{k=4},dce", params, reproducer=str(tmp_path / "r.pir"))
    assert (result.pass_name, result.rewrite) == ("test-miscompute", 4)
    prefix = program.clone()
    cse = run_pipeline(prefix, "cse", params=pirc.read_params(params, prefix), tags=False)
    assert result.bisect_limit == cse.passes[0].rewrites + 4
    # the match's fingerprint, worked out on the IR the pass saw: its 4th add
    assert result.fingerprint == fingerprint([adds(prefix)[3]], prefix.version)
    assert f"at rewrite 4 of pass test-miscompute (#2 of the pipeline) (--bisect-limit={result.bisect_limit}), on {result.fingerprint}" in str(result)


def test_the_reproducer_replays_up_to_the_culprit_rewrite(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    program, inputs, params = fixture("transformer")
    result = bisect(program, inputs, "cse,test-miscompute{k=4},dce", params)
    text = Path("pirc-bisect.pir").read_text()
    assert result.reproducer == "pirc-bisect.pir"
    assert text.startswith("// pirc bisection reproducer, written by pirc 0.1.0\n"
                           "// failure: rewrite 4 of pass test-miscompute changes the outputs (fetch_name_0: ")
    assert "// pipeline: test-miscompute{k=4},dce\n// bisect-limit: 4\n" in text
    assert opt_cli(["--run-reproducer=pirc-bisect.pir", "-o", "replayed.pir"]) == 0
    log = [line for line in capsys.readouterr().err.splitlines() if line.startswith("BISECT:")]
    assert log[3] == f"BISECT: running pass (4) test-miscompute on {result.fingerprint}"
    assert log[4].startswith("BISECT: NOT running pass (5) test-miscompute on pfp1:")
    assert all(line.startswith("BISECT: NOT running") for line in log[4:])
    replayed = Path("replayed.pir").read_text()
    assert replayed.count('"pd_op.subtract"') == 1
    # and what it replays to is what bisect compared: it diverges from the original
    after = pirc.load("replayed.pir")
    want = pirc.run(program, inputs, params)
    got = pirc.run(after, inputs, params)
    assert not np.allclose(next(iter(got.values())), next(iter(want.values())), atol=1e-5, rtol=1e-4)


def test_no_divergence(tmp_path):
    program, inputs, params = fixture("mlp")
    for spec in ("default", "test-miscompute{k=99}"):  # every rebuilt add is equal
        result = bisect(program, inputs, spec, params, reproducer=str(tmp_path / "r.pir"))
        assert not result.diverged and result.diff.equal and result.pass_name is None
    assert not (tmp_path / "r.pir").exists()


def test_a_pass_that_changes_the_program_outside_the_gate_is_named_without_a_rewrite(tmp_path):
    program, inputs, params = fixture("mlp")
    result = bisect(program, inputs, "cse,test-subtracts-ungated,dce", params, reproducer=str(tmp_path / "r.pir"))
    assert (result.pass_name, result.pass_index, result.rewrite, result.fingerprint) == \
        ("test-subtracts-ungated", 1, None, None)
    assert "with none of its rewrites through the rewrite gate applied" in str(result)
    assert "// bisect-limit" not in (tmp_path / "r.pir").read_text()


def test_pirc_bisect_finds_the_culprit(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    npz = CORPUS / "transformer.3.3.1.io.npz"
    status = bisect_cli([str(CORPUS / "transformer.3.3.1.json"), "--inputs", str(npz),
                         "--params", str(CORPUS / "transformer.3.3.1.pdiparams"),
                         "--pipeline", "cse,test-miscompute{k=3},dce", "--reproducer", "found.pir"])
    out = capsys.readouterr().out
    assert status == 1
    assert out.startswith("the outputs diverge at rewrite 3 of pass test-miscompute (#2 of the pipeline)")
    assert "output fetch_name_0:" in out and "reproducer: found.pir" in out
    assert "// bisect-limit: 3\n" in (tmp_path / "found.pir").read_text()


def test_pirc_bisect_says_when_nothing_diverges(capsys):
    status = bisect_cli([str(CORPUS / "mlp.3.3.1.json"), "--inputs", str(CORPUS / "mlp.3.3.1.io.npz"),
                         "--params", str(CORPUS / "mlp.3.3.1.pdiparams"), "-p", "default"])
    assert status == 0
    assert capsys.readouterr().out.startswith("no divergence: ")


@pytest.mark.parametrize("args,message", [
    (["--inputs", "missing.npz", "-p", "default"], "missing.npz: error: inputs file: no such file"),
    (["--inputs", str(CORPUS / "mlp.3.3.1.io.npz"), "-p", "dec"], "error: unknown pass 'dec' (did you mean 'dce'?)"),
    (["--inputs", str(CORPUS / "mlp.3.3.1.io.npz"), "-p", "dce"], "error: the parameters do not fit the program"),
    (["--inputs", str(CORPUS / "mlp.3.3.1.io.npz"), "--params", str(CORPUS / "cnn.3.3.1.pdiparams"), "-p", "dce"],
     "cnn.3.3.1.pdiparams holds"),
], ids=["inputs", "pipeline", "no-params", "wrong-params"])
def test_pirc_bisect_bad_input_is_exit_2(args, message, capsys):
    assert bisect_cli([str(CORPUS / "mlp.3.3.1.json"), *args]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_pirc_bisect_bad_program_is_exit_2(tmp_path, capsys):
    bad = tmp_path / "bad.pir"
    bad.write_text("pir.version 4\n{\n  (%0) = \"pd_op.nope\" (\n}\n")
    assert bisect_cli([str(bad), "--inputs", str(CORPUS / "mlp.3.3.1.io.npz"), "-p", "dce"]) == 2
    assert f"{bad}:" in capsys.readouterr().err


def test_small_program_bisect_limit_through_the_manager():
    program = parse_text((Path(__file__).resolve().parents[1] / "lit" / "passes" / "Inputs" / "small.pir").read_text(),
                         "small.pir", 4)
    result = run_pipeline(program, "cse,dce", bisect_limit=1)
    assert [line.split(" on ")[0] for line in result.bisect_log] == [
        "BISECT: running pass (1) cse", "BISECT: NOT running pass (2) dce"]
    assert result.bisect_count == 2
