"""conv-bn-fold on the corpus CNNs with their parameters: the folded program computes what the
original does (pirc.testing.numerical_diff) and what real Paddle recorded, the parameters
written out are the program's, and the rewrite cache keys on the weights' bytes.

Tolerance: atol = rtol = 1e-5.  Folding reassociates: the original computes
((x * W) summed + b - mean) * s + beta, the folded program (x * (W * s)) summed + b'; each
rounds differently, by a few float32 ulps (eps = 1.2e-7) of the conv's partial sums, which
over the CNN's 27- and 72-term dot products and its three layers stays far below 1e-5 of the
outputs (of magnitude ~1-3); the measured worst case is 2.6e-7.  A wrong formula (epsilon
outside the root, a missing bias term) is off by 1e-3 or more."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import pirc
from pirc.passes import run_pipeline
from pirc.runtime.params import names_from_program, read_params
from pirc.testing import numerical_diff

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
CNNS = [FIXTURES / "corpus" / "3.3.1" / "cnn.3.3.1", FIXTURES / "corpus" / "3.0.0" / "cnn.3.0.0"]
TOL = 1e-5


def _load(stem: Path):
    program = pirc.load(f"{stem}.json")
    return program, read_params(f"{stem}.pdiparams", program)


def _inputs(stem: Path) -> dict:
    io = np.load(f"{stem}.io.npz")
    return {k[len("in__"):]: io[k] for k in io.files if k.startswith("in__")}


@pytest.mark.parametrize("stem", CNNS, ids=lambda p: p.name)
def test_folded_cnn_computes_what_the_original_does(stem):
    original, params = _load(stem)
    folded, _ = _load(stem)
    result = run_pipeline(folded, "conv-bn-fold,dce", params=params)
    record = result.passes[0]
    assert (record.matches, record.rewrites, record.skips) == (1, 1, [])
    assert not any(op.name.startswith("pd_op.batch_norm") for op in folded.walk())
    report = numerical_diff(original, folded, _inputs(stem), atol=TOL, rtol=TOL,
                            params=params, params_b=result.params)
    assert report.equal, str(report)
    # and what real Paddle recorded for the original program
    recorded = np.load(f"{stem}.io.npz")["out__0"]
    got = next(iter(pirc.run(folded, _inputs(stem), result.params).values()))
    np.testing.assert_allclose(got, recorded, atol=TOL, rtol=TOL)


def test_the_fold_changes_the_numbers_a_wrong_formula_would_not_pass():
    """The tolerance is tight enough to catch epsilon outside the square root."""
    stem = CNNS[0]
    original, params = _load(stem)
    folded, _ = _load(stem)
    bad = dict(params)
    bad["batch_norm2d_0.w_2"] = params["batch_norm2d_0.w_2"] + 1e-3  # a different variance
    result = run_pipeline(folded, "conv-bn-fold,dce", params=bad)
    report = numerical_diff(original, folded, _inputs(stem), atol=TOL, rtol=TOL,
                            params=params, params_b=result.params)
    assert not report.equal


def test_parameters_after_the_fold_are_the_programs():
    stem = CNNS[0]
    program, params = _load(stem)
    before = dict(params)
    result = run_pipeline(program, "conv-bn-fold,dce", params=params)
    assert sorted(result.params) == names_from_program(program)
    assert not any(n.startswith("batch_norm2d_0") or n == "conv2d_0.w_0" or n == "conv2d_0.b_0"
                   for n in result.params)
    assert {"conv2d_0.w_0.bn_folded", "conv2d_0.w_0.bn_folded_bias"} <= set(result.params)
    assert result.params["conv2d_0.w_0.bn_folded_bias"].shape == (1, 8, 1, 1)
    assert params.keys() == before.keys()  # the caller's dict is not changed


def test_without_parameters_the_pass_is_skipped_whole_with_the_reason():
    program, _ = _load(CNNS[0])
    result = run_pipeline(program, "conv-bn-fold")
    record = result.passes[0]
    assert not record.ran
    assert record.skipped_reason == "params: conv-bn-fold needs the parameter values: --params FILE.pdiparams"
    assert (record.matches, record.rewrites, record.skips) == (0, 0, [])
    assert any(op.name == "pd_op.batch_norm_" for op in program.walk())


def test_a_missing_value_is_a_skip_naming_it():
    program, params = _load(CNNS[0])
    del params["batch_norm2d_0.w_1"]
    record = run_pipeline(program, "conv-bn-fold", params=params).passes[0]
    assert [s.reason for s in record.skips] == [
        "params: no value for batch_norm2d_0.w_1 in the parameters given"]


def test_training_program_is_not_matched():
    """A training program's batch_norm_ feeds batch_norm_grad: its statistics outputs are
    used and its input is read twice, so nothing may fold."""
    stem = FIXTURES / "training" / "3.3.1" / "cnn_global_stats.3.3.1"
    program, params = _load(stem)
    record = run_pipeline(program, "conv-bn-fold", params=params).passes[0]
    assert (record.matches, record.rewrites) == (0, 0)


def test_the_cache_key_holds_the_weight_bytes():
    """Two programs alike but for their weights fingerprint alike; the second must not get
    the first's folded values from the rewrite cache."""
    a, params = _load(CNNS[0])
    b, _ = _load(CNNS[0])
    other = dict(params)
    other["batch_norm2d_0.w_0"] = params["batch_norm2d_0.w_0"] * 2
    ra = run_pipeline(a, "conv-bn-fold", params=params)
    rb = run_pipeline(b, "conv-bn-fold", params=other)
    assert ra.passes[0].rewrites_detail[0]["fingerprint"] == rb.passes[0].rewrites_detail[0]["fingerprint"]
    wa, wb = ra.params["conv2d_0.w_0.bn_folded"], rb.params["conv2d_0.w_0.bn_folded"]
    np.testing.assert_allclose(wb, 2 * wa, rtol=1e-6)


def test_the_api_runs_it_with_parameters(tmp_path):
    stem = CNNS[0]
    program, params = _load(stem)
    result = pirc.run_pipeline(program, "conv-bn-fold,dce", params=params)
    out = tmp_path / "folded.pdiparams"
    pirc.write_params(str(out), result.params, program)
    assert sorted(read_params(str(out), program)) == names_from_program(program)


def test_output_and_parameters_are_byte_identical_across_processes(tmp_path):
    stem = CNNS[0]
    outputs = []
    for seed in ("1", "2"):
        out, params = tmp_path / f"o{seed}.json", tmp_path / f"o{seed}.pdiparams"
        env = dict(os.environ, PYTHONHASHSEED=seed)
        subprocess.run([sys.executable, "-m", "pirc", f"{stem}.json", "-p", "conv-bn-fold,dce",
                        "--params", f"{stem}.pdiparams", "--params-out", str(params), "-o", str(out)],
                       check=True, env=env)
        outputs.append((out.read_bytes(), params.read_bytes()))
    assert outputs[0] == outputs[1]


def _param(n, name, t):
    return (f'    (%{n}) = "builtin.parameter" () {{is_distributed:[false],is_parameter:[true],'
            f'need_clip:[true],parameter_name:"{name}",persistable:[true],stop_gradient:[false],'
            f'trainable:[true]}} : () -> {t}')


DEPTHWISE = "\n".join([
    "{",
    '    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[2,4,6,6],stop_gradient:[true]} : () -> tensor<2x4x6x6xf32>',
    _param(1, "dw.w", "tensor<4x1x3x3xf32>"),
    _param(2, "bn.mean", "tensor<4xf32>"), _param(3, "bn.var", "tensor<4xf32>"),
    _param(4, "bn.scale", "tensor<4xf32>"), _param(5, "bn.bias", "tensor<4xf32>"),
    '    (%6) = "pd_op.depthwise_conv2d" (%0, %1) {data_format:"NCHW",dilations:[1,1],groups:4,padding_algorithm:"EXPLICIT",paddings:[1,1],stop_gradient:[false],strides:[1,1]} : (tensor<2x4x6x6xf32>, tensor<4x1x3x3xf32>) -> tensor<2x4x6x6xf32>',
    '    (%7, %8, %9, %10, %11, %12) = "pd_op.batch_norm_" (%6, %2, %3, %4, %5) {data_format:"NCHW",epsilon:0.001,is_test:true,momentum:0.9,stop_gradient:[false,false,false,false,false,false],trainable_statistics:false,use_global_stats:false} : (tensor<2x4x6x6xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x6x6xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<-1xu8>',
    '    (%13) = "pd_op.fetch" (%7) {col:0,name:"out",persistable:[true],stop_gradient:[false]} : (tensor<2x4x6x6xf32>) -> tensor<2x4x6x6xf32>',
    "}", ""])


def test_depthwise_conv_folds_too():
    rng = np.random.default_rng(0)
    params = {"dw.w": rng.standard_normal((4, 1, 3, 3)).astype(np.float32),
              "bn.mean": rng.standard_normal(4).astype(np.float32),
              "bn.var": rng.uniform(0.5, 2, 4).astype(np.float32),
              "bn.scale": rng.standard_normal(4).astype(np.float32),
              "bn.bias": rng.standard_normal(4).astype(np.float32)}
    original = pirc.parse(DEPTHWISE, from_version=4)
    folded = pirc.parse(DEPTHWISE, from_version=4)
    result = run_pipeline(folded, "conv-bn-fold", params=params)
    assert result.passes[0].rewrites == 1
    assert sorted(result.params) == ["dw.w.bn_folded", "dw.w.bn_folded_bias"]
    x = rng.standard_normal((2, 4, 6, 6)).astype(np.float32)
    report = numerical_diff(original, folded, {"x": x}, atol=TOL, rtol=TOL, params=params,
                            params_b=result.params)
    assert report.equal, str(report)
