"""Values of an enclosing block written inside `while` bodies and `if` branches (issue 21, class 2).

tests/fixtures/array_regions/VER/ holds eight programs real Paddle 3.3.1 and 3.0.0 saved and ran
(tools/paddle_oracle/gen_array_region_fixtures.py, array_region_models.py): tensor arrays
created before a loop, written in its body (at the loop counter, and appended to at their
length, as to_static writes a Python list's `append`), in an `if` branch only, in a body and
an `if` nested in it, appended to in a loop nested in a loop, read in the body (the previous step's element) and after it
(array_to_tensor stacking and concatenating, array_length, array_read); greedy decoding that
appends each step's token; and dense tensors written in place (`assign_out_`) in a body, a
branch, and a branch nested in a body.  The input cases loop 0, 1 and many times and take each branch.

Before the fix the body's `array_write_` had no user in the body's graph (only dense tensors
were handed back out of a region) and the graph's dead-code elimination dropped it: every
read after the loop saw the empty array.  Integers (lengths, sizes, tokens) must be exact;
floats within a last bit (tanh / sin / exp round differently from Paddle's CPU kernels).
"""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
import torch

import pirc
from pirc.errors import LoweringError
from pirc.lower.execute import run_module
from pirc.testing.pass_differential import TARGETS, check_target, run_outputs

ROOT = Path(__file__).resolve().parents[2]
HERE = ROOT / "tests" / "fixtures" / "array_regions"
VERSIONS = ("3.0.0", "3.3.1")
NAMES = ("greedy_decode", "if_write", "inplace_nested", "inplace_outer", "nested_while_append",
         "while_append_list", "while_index_write", "while_nested_if")
# The array ops each program must hold where Paddle put them: inside a region (a body or a
# branch) and after it.
WRITES_IN_REGIONS = {"greedy_decode": 1, "if_write": 2, "nested_while_append": 2, "while_append_list": 1,
                     "while_index_write": 1, "while_nested_if": 2}


def _path(version, name, suffix):
    return HERE / version / f"{name}.{version}{suffix}"


def _cases(version, name):
    """[(feeds, [Paddle's outputs in fetch order])] for each recorded input case."""
    data = np.load(_path(version, name, ".io.npz"))
    out = []
    for k in range(len({key.split("__")[0] for key in data.files if key.startswith("case")})):
        feeds = {key.split("__in__")[1]: data[key] for key in data.files if key.startswith(f"case{k}__in__")}
        wants = [data[f"case{k}__out__{i}"] for i in range(len(data["fetch_names"]))]
        out.append((feeds, wants))
    return out


def _load(version, name):
    program = pirc.load(str(_path(version, name, ".json")))
    params_file = _path(version, name, ".pdiparams")
    params = pirc.read_params(str(params_file), program) if params_file.exists() else None
    return program, params


def _assert_paddles(got: list, wants: list, what: str):
    assert len(got) == len(wants), what
    for i, (g, want) in enumerate(zip(got, wants)):
        g = np.asarray(g)
        assert g.shape == want.shape and g.dtype == want.dtype, \
            f"{what} out{i}: {g.dtype}{list(g.shape)}, Paddle gives {want.dtype}{list(want.shape)}"
        if want.dtype.kind == "f":
            np.testing.assert_allclose(g, want, rtol=2e-6, atol=1e-7, err_msg=f"{what} out{i}")
        else:
            assert g.tobytes() == want.tobytes(), f"{what} out{i}: {g!r}, Paddle gives {want!r}"


def _run_all(program, params, version, name, device="cpu", label=""):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # no NPU here: the npu lowering's CPU references
        gm = pirc.lower(program, params, device)
    for k, (feeds, wants) in enumerate(_cases(version, name)):
        _assert_paddles(list(run_module(gm, feeds).values()), wants, f"{name}.{version}{label} case{k}")


def test_every_fixture_is_generated():
    for version in VERSIONS:
        log = json.loads((HERE / version / f"gen_log.{version}.json").read_text())
        assert sorted(log) == sorted(NAMES)
        for name, entry in log.items():
            assert entry["paddle"] == version and not entry.get("error") and not entry["errors"], name
            ops = entry["ops"]
            assert ("pd_op.while" in ops) != (name == "if_write"), name
            if not name.startswith("inplace_"):
                assert ops["pd_op.create_array"] >= 1 and ops["pd_op.array_write_"] >= 2, name
        # loops of 0, 1 and many iterations; both branches of if_write
        assert log["while_index_write"]["cases"] == 3 and log["if_write"]["cases"] == 2


@pytest.mark.parametrize("device", ["cpu", "npu"])
@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("name", NAMES)
def test_runs_give_paddles_numbers(name, version, device):
    program, params = _load(version, name)
    _run_all(program, params, version, name, device)


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("name", NAMES)
def test_upgraded_and_optimised_programs_give_paddles_numbers(name, version):
    """`--upgrade -p default`: the passes keep every array_write_ in its region and merge no
    read of an array across a write (cse, dce, canonicalize ask the alias model)."""
    program, params = _load(version, name)
    before = [op for op in program.walk() if op.name == "pd_op.array_write_"]
    pirc.upgrade(program)
    result = pirc.run_pipeline(program, "default", params=params)
    pirc.verify(program)
    after = [op for op in program.walk() if op.name == "pd_op.array_write_"]
    assert len(after) == len(before)
    in_regions = sum(1 for op in after if op.parent_op() is not None and op.parent_op().name != "builtin.module")
    assert in_regions == WRITES_IN_REGIONS.get(name, 0)
    _run_all(program, result.params, version, name, label=" after --upgrade -p default")


@pytest.mark.parametrize("name", NAMES + tuple(f"aliasing/{n}" for n in (
    "array_written_in_regions", "array_as_loop_value", "array_yielded_by_if_true", "array_yielded_by_if_false")))
def test_every_pass_and_pipeline_computes_the_same_bits(name):
    """The issue-20 differential harness on each program (its many-iterations case, and the
    hand-written array_written_in_regions: array_length and array_read of one array before
    a while, after it and after an if that write it, identical ops that no pass may merge)."""
    if name.startswith("aliasing/"):
        text = ROOT / "tests" / "fixtures" / f"{name}.pir.txt"
        program, params = pirc.load(str(text), from_version=4), None
        data = np.load(text.with_name(text.name.replace(".pir.txt", ".npz")))
        feeds = {k[len("in__"):]: data[k] for k in data.files if k.startswith("in__")}
    else:
        program, params = _load("3.3.1", name)
        feeds = _cases("3.3.1", name)[-1][0]
    before = run_outputs(program, feeds, params)
    for target in TARGETS:
        outcome = check_target(program, target, feeds, params, before)
        assert outcome.ok, outcome


def test_cli_upgrade_default_then_run_npu(tmp_path):
    """The commands a user types: pirc-opt --upgrade -p default on the 3.0.0 greedy decoder,
    then pirc-run --device npu on its nine-step case: the nine tokens the loop appended."""
    version, name = "3.0.0", "greedy_decode"
    src = _path(version, name, ".json")
    opt = [sys.executable, "-m", "pirc.cli.opt"]
    done = subprocess.run([*opt, "--upgrade", "-p", "default", str(src), "-o", str(tmp_path / "g.json"),
                           "--params", str(_path(version, name, ".pdiparams")),
                           "--params-out", str(tmp_path / "g.pdiparams")],
                          cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    feeds, wants = _cases(version, name)[2]
    np.savez(tmp_path / "in.npz", **feeds)
    run = [sys.executable, "-m", "pirc.cli.run"]
    done = subprocess.run([*run, str(tmp_path / "g.json"), "--params", str(tmp_path / "g.pdiparams"),
                           "--inputs", str(tmp_path / "in.npz"), "--outputs", str(tmp_path / "out.npz"),
                           "--device", "npu"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    got = np.load(tmp_path / "out.npz")
    _assert_paddles([got[k] for k in got.files], wants, "pirc-run --device npu")
    assert wants[0].shape == (2, 10)


def test_eager_module_called_again_starts_from_an_empty_array():
    """The array is made by each call (create_array in the graph): a second call of the same
    module does not see the first call's appended tokens."""
    program, params = _load("3.3.1", "greedy_decode")
    gm = pirc.lower(program, params)
    cases = _cases("3.3.1", "greedy_decode")
    for feeds, wants in cases + cases:
        _assert_paddles(list(run_module(gm, feeds).values()), wants, "greedy_decode again")


def test_torch_export_refuses_an_array_in_a_loop_naming_the_op():
    program, params = _load("3.3.1", "while_index_write")
    feeds, _ = _cases("3.3.1", "while_index_write")[1]
    with pytest.raises(LoweringError, match=r"^pd_op\.while reads or writes a tensor array of the "
                                            r"enclosing block inside its body.*torch\.export cannot"):
        pirc.export(program, params, feeds)


def test_the_export_refusal_is_one_sentence_without_torchs_notes():
    program, params = _load("3.3.1", "greedy_decode")
    feeds, _ = _cases("3.3.1", "greedy_decode")[1]
    with pytest.raises(LoweringError) as info:
        pirc.export(program, params, feeds)
    said = info.value.bare_message
    assert "\n" not in said and "While executing" not in said
    assert said.endswith("run it eagerly (pirc.run, pirc-run, or the lowered module called directly)")


def test_torch_export_refuses_an_array_in_an_if_naming_the_op():
    program, params = _load("3.3.1", "if_write")
    feeds, _ = _cases("3.3.1", "if_write")[0]
    with pytest.raises(LoweringError, match=r"^pd_op\.if reads or writes a tensor array .* its branches"):
        pirc.export(program, params, feeds)


def _compiled(gm, **kw):
    torch._dynamo.reset()
    return torch.compile(gm, backend="eager", **kw)


@pytest.mark.parametrize("name", ["greedy_decode", "while_nested_if", "if_write"])
def test_torch_compile_runs_array_regions_eagerly_with_paddles_numbers(name):
    """torch.compile: the region holding an array runs out of the graph (a graph break), the
    rest is compiled; the numbers are Paddle's for every case."""
    program, params = _load("3.3.1", name)
    gm = pirc.lower(program, params)
    compiled = _compiled(gm)
    for k, (feeds, wants) in enumerate(_cases("3.3.1", name)):
        args = [torch.from_numpy(np.ascontiguousarray(feeds[feed])) for feed, _ in gm.pirc_feeds]
        got = [o.numpy() for o in compiled(*args)]
        _assert_paddles(got, wants, f"torch.compile {name} case{k}")


def test_an_eager_run_does_not_import_dynamo():
    """The regions kept out of torch.compile's graph are made on first use under dynamo:
    `torch.compiler.disable` imports torch._dynamo, seconds an eager run must not pay."""
    code = ("import sys, numpy as np, pirc\n"
            f"p = pirc.load({str(_path('3.3.1', 'while_index_write', '.json'))!r})\n"
            "out = pirc.run(p, {'x': np.ones((2, 3), 'float32'), 'n': np.array([4])})\n"
            "assert list(out.values())[3].tolist() == [5]\n"
            "print('torch._dynamo' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


def test_torch_compile_fullgraph_refuses_with_the_reason():
    program, params = _load("3.3.1", "greedy_decode")
    gm = pirc.lower(program, params)
    feeds, _ = _cases("3.3.1", "greedy_decode")[1]
    args = [torch.from_numpy(feeds[feed]) for feed, _ in gm.pirc_feeds]
    with pytest.raises(Exception, match=r"pd_op\.while reads or writes a tensor array"):
        _compiled(gm, fullgraph=True)(*args)
