"""Parameters Paddle does not persist are created at load, as Paddle creates them (issue 21, 2.1).

tests/fixtures/nonpersistable/{3.3.1,3.0.0} are real Paddle saves
(tools/paddle_oracle/gen_rnn_params_fixtures.py): paddle.nn.LSTM (2-layer bidirectional with
sequence_length and eval-mode dropout; initial states fed; every row shorter than the time
axis, one of length 0), GRU (2 layers; bidirectional with
sequence_length), SimpleRNN (tanh 2-layer bidirectional; relu with sequence_length), each
`pd_op.rnn` reading a `dropout_state` parameter that `paddle.jit.save` does not write, and a
static program (no rnn) with a parameter made non-persistable by hand, sorted between two
persisted ones.  Each `.npz` holds the inputs and Paddle's own outputs
(load_inference_model + Executor, CPU).  pirc must read the real `.pdiparams` (persisted
parameters only, in Paddle's sorted order), create the rest, match Paddle within float32
tolerance on the cpu and npu references, and write back Paddle's file byte for byte.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest
import torch

import pirc
from pirc.cli.opt import run as pirc_opt
from pirc.cli.run import run as pirc_run
from pirc.errors import LoweringError, ParamsError
from pirc.runtime.params import names_from_program, read_params, read_tensors, write_params
from pirc.runtime.persistence import created_parameters, created_value, is_persisted

HERE = Path(__file__).resolve().parents[1] / "fixtures" / "nonpersistable"
RELEASES = ("3.3.1", "3.0.0")
MODELS = ("lstm_bidir_seqlen", "lstm_init_state", "lstm_bidir_short_rows", "gru_2layer",
          "gru_bidir_seqlen", "simple_rnn_tanh_bidir", "simple_rnn_relu_seqlen",
          "static_shape_of_state")
CASES = [(r, m) for r in RELEASES for m in MODELS]
# float32: the recurrences sum in another order than Paddle's Eigen/BLAS kernels
TOL = dict(rtol=1e-5, atol=1e-6)


def _files(release, model):
    stem = HERE / release / model
    return Path(f"{stem}.json"), Path(f"{stem}.pdiparams"), dict(np.load(f"{stem}.npz"))


def _log(release):
    return json.loads((HERE / release / "gen_log.json").read_text())


def _compare(got: dict, data: dict, what: str):
    for i, fetch in enumerate(str(n) for n in data["fetch_names"]):
        want = data[f"out__{i}"]
        assert got[fetch].shape == want.shape and got[fetch].dtype == want.dtype, (what, fetch)
        np.testing.assert_allclose(got[fetch], want, **TOL, err_msg=f"{what} {fetch}")


def test_every_fixture_is_generated():
    for release in RELEASES:
        log = _log(release)
        assert sorted(log) == sorted(MODELS)
        for model in MODELS:
            assert "error" not in log[model], (release, model)
            assert log[model]["paddle"] == release
            for suffix in (".json", ".pdiparams", ".npz"):
                assert (HERE / release / f"{model}{suffix}").is_file()
            # the generator's round trip through real Paddle: pirc-opt wrote the program and
            # --params-out under each pipeline, Paddle loaded and ran that, outputs unchanged
            written = log[model]["pirc_written"]
            assert sorted(written) == ["default", "inference"]
            for check in written.values():
                assert check == {"max_abs_diff": 0.0, "pdiparams_identical": True}, (release, model)


@pytest.mark.parametrize("release,model", CASES)
def test_the_rule_is_paddles(release, model):
    """pirc's persisted / created split is the one Paddle's loaded program reports
    (`Value.persistable`), and the file holds exactly the persisted tensors, sorted by name."""
    program_path, params_path, _ = _files(release, model)
    program = pirc.load(str(program_path))
    params = _log(release)[model]["params"]
    persisted = sorted(p["name"] for p in params if p["persistable"])
    created = sorted(p["name"] for p in params if not p["persistable"])
    assert created, "every fixture has a parameter Paddle does not persist"
    assert names_from_program(program) == persisted
    assert list(created_parameters(program)) == created
    tensors = read_tensors(str(params_path))
    assert len(tensors) == len(persisted)
    by_name = {p["name"]: p for p in params}
    for name, tensor in zip(persisted, tensors):
        assert list(tensor.shape) == by_name[name]["shape"], name


@pytest.mark.parametrize("release,model", CASES)
def test_created_parameters_are_zeros_of_the_declared_type(release, model):
    program_path, params_path, _ = _files(release, model)
    program = pirc.load(str(program_path))
    params = read_params(str(params_path), program)
    for p in _log(release)[model]["params"]:
        assert p["name"] in params
        if not p["persistable"]:
            value = params[p["name"]]
            assert list(value.shape) == p["shape"]
            assert value.dtype == np.dtype(p["dtype"].removeprefix("paddle."))
            assert not value.any()


@pytest.mark.parametrize("device", ["cpu", "npu"])
@pytest.mark.parametrize("release,model", CASES)
def test_pirc_run_matches_paddle(release, model, device, tmp_path):
    program_path, params_path, data = _files(release, model)
    inputs = tmp_path / "in.npz"
    np.savez(inputs, **{k[len("in__"):]: v for k, v in data.items() if k.startswith("in__")})
    out = tmp_path / "out.npz"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # npu without an NPU: the CPU references, with a warning
        rc = pirc_run([str(program_path), "--params", str(params_path), "--inputs", str(inputs),
                       "--outputs", str(out), "--device", device])
    assert rc == 0
    _compare(dict(np.load(out)), data, f"{release}/{model} on {device}")


@pytest.mark.parametrize("model", MODELS)
def test_upgraded_300_program_matches_paddle(model):
    """3.0.0's program upgraded to pirc's newest PIR version reads the same file and runs."""
    program_path, params_path, data = _files("3.0.0", model)
    program = pirc.upgrade(pirc.load(str(program_path)))
    inputs = {k[len("in__"):]: v for k, v in data.items() if k.startswith("in__")}
    _compare(pirc.run(program, inputs, str(params_path)), data, f"3.0.0/{model} upgraded")


@pytest.mark.parametrize("release,model", CASES)
def test_a_params_dict_without_the_created_ones_runs(release, model):
    """pirc.run with a dict of the persisted values only: the others are created, as at load."""
    program_path, params_path, data = _files(release, model)
    program = pirc.load(str(program_path))
    persisted = dict(zip(names_from_program(program), read_tensors(str(params_path))))
    inputs = {k[len("in__"):]: v for k, v in data.items() if k.startswith("in__")}
    _compare(pirc.run(program, inputs, persisted), data, f"{release}/{model} dict")


def test_wrong_file_names_the_expected_and_created_parameters(tmp_path, capsys):
    program_path, _, data = _files("3.3.1", "lstm_bidir_seqlen")
    _, other_params, _ = _files("3.3.1", "gru_2layer")
    inputs = tmp_path / "in.npz"
    np.savez(inputs, **{k[len("in__"):]: v for k, v in data.items() if k.startswith("in__")})
    rc = pirc_run([str(program_path), "--params", str(other_params), "--inputs", str(inputs),
                   "--outputs", str(tmp_path / "out.npz")])
    err = capsys.readouterr().err
    assert rc == 1 and "Traceback" not in err
    line = err.strip().splitlines()[0]
    assert str(other_params) in line
    assert ("the file holds 8 tensors but the program expects 16 persisted parameters "
            "(lstm_cell_0.b_0, lstm_cell_0.b_1, ") in line
    assert "... (8 more); lstm_0.dropout_state__non_persistable is created at load, not read)" in line
    assert not (tmp_path / "out.npz").exists()


def test_a_file_that_also_holds_the_created_one_is_refused(tmp_path):
    """A .pdiparams that wrote the non-persisted tensor too is not Paddle's: the count says so."""
    program_path, params_path, _ = _files("3.3.1", "static_shape_of_state")
    program = pirc.load(str(program_path))
    params = read_params(str(params_path), program)
    extra = tmp_path / "extra.pdiparams"
    from pirc.runtime.params import tensor_stream
    streams = [tensor_stream(params[n], 5) for n in sorted(params)]
    extra.write_bytes(b"".join(streams))
    with pytest.raises(ParamsError, match=r"holds 3 tensors but the program expects 2 persisted "
                       r"parameters \(a_w, c_w; b_state is created at load, not read\)"):
        read_params(str(extra), program)


@pytest.mark.parametrize("release,model", CASES)
def test_write_params_round_trip_is_paddles_file(release, model, tmp_path):
    program_path, params_path, _ = _files(release, model)
    program = pirc.load(str(program_path))
    out = tmp_path / "out.pdiparams"
    write_params(str(out), read_params(str(params_path), program), program)
    assert out.read_bytes() == params_path.read_bytes()
    # and through pirc-opt --params / --params-out, with the default pipeline
    out2 = tmp_path / "opt.pdiparams"
    assert pirc_opt([str(program_path), "-o", str(tmp_path / "p.json"), "--params", str(params_path),
                     "--params-out", str(out2)]) == 0
    assert out2.read_bytes() == params_path.read_bytes()


def test_inference_pipeline_keeps_the_state_created(tmp_path):
    """The inference pipeline (param-fold) on an rnn program: the parameters it writes are
    persisted ones Paddle reads back with the optimised program, and the run still matches."""
    program_path, params_path, data = _files("3.3.1", "lstm_bidir_seqlen")
    out_json, out_params = tmp_path / "o.json", tmp_path / "o.pdiparams"
    assert pirc_opt([str(program_path), "-o", str(out_json), "-p", "inference", "--params",
                     str(params_path), "--params-out", str(out_params)]) == 0
    program = pirc.load(str(out_json))
    assert list(created_parameters(program)) == ["lstm_0.dropout_state__non_persistable"]
    assert len(read_tensors(str(out_params))) == len(names_from_program(program))
    inputs = {k[len("in__"):]: v for k, v in data.items() if k.startswith("in__")}
    _compare(pirc.run(program, inputs, str(out_params)), data, "inference pipeline")


STATE_PROGRAM = """{
    (%0) = "builtin.parameter" () {is_distributed:[false],is_parameter:[true],need_clip:[true],parameter_name:"a_w",persistable:[true],stop_gradient:[false],trainable:[true]} : () -> tensor<3xf32>
    (%1) = "builtin.parameter" () {is_distributed:[false],is_parameter:[true],need_clip:[true],parameter_name:"b_state",persistable:[false],stop_gradient:[true],trainable:[false]} : () -> tensor<SHAPExf32>
    (%2) = "pd_op.add" (%1, %0) {stop_gradient:[true]} : (tensor<SHAPExf32>, tensor<3xf32>) -> tensor<SHAPExf32>
    (%3) = "pd_op.fetch" (%2) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<SHAPExf32>) -> tensor<SHAPExf32>
}
"""


def _state_program(shape: str):
    return pirc.parse(STATE_PROGRAM.replace("SHAPE", shape), from_version=4)


def test_param_fold_does_not_compute_with_a_created_parameter(tmp_path):
    """Paddle's created tensor is uninitialised: no fold may bake pirc's zeros into a
    persisted parameter (add(b_state, a_w) would become one)."""
    program = _state_program("2x3")
    # as read_params gives them: the created one is there, as zeros
    params = {"a_w": np.arange(3, dtype=np.float32), "b_state": np.zeros((2, 3), np.float32)}
    result = pirc.run_pipeline(program, "param-fold", params=dict(params))
    text = pirc.to_text(program, "paddle")
    assert "pd_op.add" in text and '"b_state"' in text
    assert [s.reason for s in result.passes[0].skips] == [
        "params: b_state is not persisted: Paddle creates it uninitialised at load, its value is "
        "not known"]
    path = tmp_path / "w.pdiparams"
    write_params(str(path), result.params, program)
    assert [t.tolist() for t in read_tensors(str(path))] == [[0.0, 1.0, 2.0]]


def test_conv_bn_fold_does_not_fold_a_created_statistic(tmp_path):
    """The corpus CNN with its batch_norm mean made non-persistable in the JSON: conv-bn-fold
    skips the match rather than fold pirc's zeros in for Paddle's uninitialised tensor."""
    stem = Path(__file__).resolve().parents[1] / "fixtures" / "corpus" / "3.3.1" / "cnn.3.3.1"
    doc = json.loads(Path(f"{stem}.json").read_text())
    program = pirc.load(f"{stem}.json")
    norm = next(op for op in program.walk() if op.name.startswith("pd_op.batch_norm"))
    mean = norm.operands[1].owner.attributes["parameter_name"].data
    ops = doc["program"]["regions"][0]["blocks"][0]["ops"]
    op = next(o for o in ops if o.get("#") == "p" and o["A"][3] == mean)
    op["OA"][0] = 0
    path = tmp_path / "cnn.json"
    path.write_text(json.dumps(doc))
    program = pirc.load(str(path))
    assert list(created_parameters(program)) == [mean]
    full = read_params(f"{stem}.pdiparams", pirc.load(f"{stem}.json"))
    result = pirc.run_pipeline(program, "conv-bn-fold", params=full)
    record = result.passes[0]
    assert (record.matches, record.rewrites) == (1, 0)
    assert [s.reason for s in record.skips] == [
        f"params: {mean} is not persisted: Paddle creates it uninitialised at load, its value is "
        "not known"]


def test_a_created_parameter_needs_a_static_shape():
    program = _state_program("-1x3")
    with pytest.raises((ParamsError, LoweringError), match=r"b_state is not persisted .* declared "
                       r"shape \[-1, 3\] is not static"):
        pirc.run(program, {}, {"a_w": np.zeros(3, np.float32)})


def test_persistable_flag_spellings():
    """false in either spelling (PIR's, Paddle 2.6's `is_persisable`) means created; absent
    means persisted, as Paddle's writer writes 1 for a parameter op without the attribute."""
    base = ('(%0) = "builtin.parameter" () {ATTRparameter_name:"w"} : () -> tensor<2xf32>\n'
            '(%1) = "pd_op.relu" (%0) {} : (tensor<2xf32>) -> tensor<2xf32>\n')
    for attr, persisted in (("", True), ("persistable:[true],", True),
                            ("persistable:[false],", False), ("is_persisable:[false],", False)):
        program = pirc.parse("{\n" + base.replace("ATTR", attr) + "}\n", from_version=4)
        op = next(op for op in program.walk() if op.name == "builtin.parameter")
        assert is_persisted(op) is persisted, attr
    assert created_value("s", _state_program("2x3").block.ops.first.next_op.results[0].type).shape == (2, 3)


@pytest.mark.parametrize("model", [m for m in MODELS if m != "static_shape_of_state"])
def test_the_rnn_module_runs_on_its_inputs_device(model):
    """Moved to another device (torch's meta device stands in for npu / cuda on a CPU-only
    machine), the module's rnn keeps every tensor on x's device: the initial states that
    paddle.nn builds with `full` (made on the CPU) and the created dropout_state included."""
    program_path, params_path, data = _files("3.3.1", model)
    gm = pirc.lower(pirc.load(str(program_path)), str(params_path)).to("meta")
    outs = gm(*[torch.from_numpy(data[f"in__{name}"]).to("meta") for name, _ in gm.pirc_feeds])
    assert [o.device.type for o in outs] == ["meta"] * len(outs)
    assert [tuple(o.shape) for o in outs] == [data[f"out__{i}"].shape for i in range(len(outs))]
