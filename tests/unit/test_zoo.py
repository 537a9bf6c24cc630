"""The development zoo: real architectures (paddle.vision.models, paddlenlp.transformers) as
Paddle 3.3.1 and 3.0.0 save them with paddle.jit.save, run by pirc (tests/unit/zoo_cases.py).

- every model in both releases runs under pirc.run on cpu and on the npu reference within the
  tolerance tests/fixtures/zoo/parity.yaml records for it, with parameters rebuilt by
  tools/zoo_weights.py (byte-identical to the .pdiparams Paddle wrote);
- every 3.0.0 file upgraded by pirc equals what Paddle 3.3.1 writes after loading it, and runs
  like 3.3.1 ran it;
- `pirc-run --check-lowering` on each program exits 0 once every op kind is lowered.
A model pirc cannot lower yet xfails with the op kinds pirc.lowering_coverage reports now, so
it starts passing, unmarked, when the kernels land.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from upgrade_oracle import assert_upgrade_matches
from zoo_cases import (assert_params_rebuilt, load, upgraded, ROOT, RELEASES, assert_close, crossload_cases, expected, gen_log, inputs, params,
                       saved_cases, source_of)

import pirc
from pirc.cli.run import run as pirc_run

SAVED = saved_cases()
CROSSLOADED = crossload_cases()
VISION = {"resnet18", "resnet50_w16", "mobilenet_v1", "mobilenet_v2", "mobilenet_v3_small",
          "shufflenet_v2_x0_25", "squeezenet1_0", "densenet121", "googlenet", "inception_v3", "vgg11",
          "alexnet"}
NLP = {"bert", "ernie", "gpt", "llama"}


def xfail_unless_lowered(program) -> None:
    missing = pirc.lowering_coverage(program)
    if missing:
        pytest.xfail("not lowered yet: " + "; ".join(str(m) for m in missing))


def test_the_zoo_holds_every_model_in_both_releases():
    models = {r: {c.model for c in SAVED if c.release == r} for r in RELEASES}
    assert VISION | NLP <= models["3.3.1"], sorted(VISION | NLP - models["3.3.1"])
    assert models["3.0.0"] == models["3.3.1"]
    assert {c.model for c in CROSSLOADED} == models["3.0.0"]


def test_the_programs_have_the_dynamic_dims_they_were_saved_with():
    """The feeds have the InputSpec shapes gen_zoo.py recorded: -1 batch for images, -1 batch
    and sequence for token ids except where the model's notes say why a dim is fixed."""
    for case in SAVED:
        log = gen_log(case.release)[case.model]
        feeds = [op for op in load(case.program).walk() if op.name == "pd_op.data"]
        assert [list(op.results[0].type.shape) for op in feeds] == [s["shape"] for s in log["input_specs"]]
        dynamic = [s["shape"].count(-1) for s in log["input_specs"]]
        if case.model in VISION:
            assert dynamic == [1], str(case)
        elif "static_dims" not in log["notes"]:
            assert dynamic == [2], str(case)


@pytest.mark.parametrize("case", SAVED, ids=str)
def test_rebuilt_parameters_equal_paddles_file(case, tmp_path):
    """tools/zoo_weights.py + pirc.write_params rebuild the .pdiparams Paddle wrote, byte for byte."""
    assert_params_rebuilt(load(case.program), case, tmp_path / "p.pdiparams")


@pytest.mark.filterwarnings("ignore::pirc.lower.lower.NpuFallbackWarning")  # npu: CPU references here
@pytest.mark.parametrize("device", ["cpu", "npu"])
@pytest.mark.parametrize("case", SAVED, ids=str)
def test_runs_like_paddle(case, device):
    program = load(case.program)
    xfail_unless_lowered(program)
    got = pirc.run(program, inputs(case), params(program, case), device=device)
    assert_close(list(got.values()), expected(case), case.model, f"{case} on {device}")


@pytest.mark.parametrize("case", CROSSLOADED, ids=lambda c: c.model + ".3.0.0")
def test_upgrade_equals_paddle_3_3_1(case):
    assert_upgrade_matches(source_of(case), case.program)


@pytest.mark.filterwarnings("ignore::pirc.lower.lower.NpuFallbackWarning")
@pytest.mark.parametrize("device", ["cpu", "npu"])
@pytest.mark.parametrize("case", CROSSLOADED, ids=lambda c: c.model + ".3.0.0")
def test_upgraded_runs_like_paddle_3_3_1(case, device):
    """The 3.0.0 file after pirc's --upgrade gives what Paddle 3.3.1 computed for it."""
    program = upgraded(source_of(case))
    xfail_unless_lowered(program)
    got = pirc.run(program, inputs(case), params(program, case), device=device)
    assert_close(list(got.values()), expected(case), case.model, f"{case.model}.3.0.0 upgraded on {device}")


@pytest.mark.parametrize("case", SAVED, ids=str)
def test_check_lowering(case, capsys):
    """`pirc-run --check-lowering` (its entry point, in this process): exit 0 and the all-clear
    once everything is lowered, else exit 1 with one line per missing op kind."""
    missing = [str(m) for m in pirc.lowering_coverage(load(case.program))]
    status = pirc_run(["--check-lowering", str(case.program)])
    lines = capsys.readouterr().out.splitlines()
    if missing:
        assert (status, lines) == (1, missing)
        pytest.xfail("not lowered yet: " + "; ".join(missing))
    assert status == 0
    assert lines == [f"{case.program}: every op can be lowered (PIR version {load(case.program).version})"]


def test_pirc_run_command_line(tmp_path):
    """The `pirc-run` command on a zoo model: parameters rebuilt into a .pdiparams file, the
    fixture's inputs, outputs keyed by fetch name; then --check-lowering on the same file."""
    case = next(c for c in SAVED if c.model == "resnet18" and c.release == "3.3.1")
    program = load(case.program)
    xfail_unless_lowered(program)
    params_file = tmp_path / "resnet18.pdiparams"
    pirc.write_params(str(params_file), params(program, case), program)
    out = tmp_path / "out.npz"
    cli = [sys.executable, "-m", "pirc.cli.run"]
    run = subprocess.run([*cli, str(case.program), "--params", str(params_file), "--inputs",
                          str(case.inputs), "--outputs", str(out)], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    with np.load(out) as data:
        got = [data[k] for k in data.files]
    assert_close(got, expected(case), case.model, "pirc-run resnet18.3.3.1")
    check = subprocess.run([*cli, "--check-lowering", str(case.program)], cwd=ROOT, capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr

