"""param-fold: values that depend on parameters only become new parameters, computed by
pirc's kernels, so every fixture program gives the same outputs bit for bit; without
parameters the pass is skipped whole, with the reason; the lowering itself emits one call per op
(folding and sharing are passes)."""

from pathlib import Path

import numpy as np
import pytest

import pirc
from pirc.passes import param_fold, run_pipeline
from pirc.runtime.params import names_from_program, read_params, write_params
from pirc.testing import numerical_diff

from test_parity_corpus import CASES, case_id, random_fetches

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
CNN = FIXTURES / "corpus" / "3.3.1" / "cnn.3.3.1"
PARAM_CASES = [c for c in CASES if c[0].with_name(c[0].name.replace(".io.npz", ".pdiparams")).exists()]


def _load(stem: Path):
    program = pirc.load(f"{stem}.json")
    return program, read_params(f"{stem}.pdiparams", program)


def _inputs(npz: Path) -> dict:
    with np.load(npz) as data:
        return {k: data[k] for k in data.files if k.startswith("in__")}


def test_conv_biases_become_parameters():
    program, params = _load(CNN)
    result = run_pipeline(program, "param-fold,dce", params=params)
    record = result.passes[0]
    assert (record.matches, record.rewrites, record.skips) == (2, 2, [])
    assert not any(op.name == "pd_op.reshape" for op in program.walk())
    assert sorted(result.params) == names_from_program(program)
    for conv in ("conv2d_0", "conv2d_1"):
        folded = result.params[f"{conv}.b_0.reshape"]
        np.testing.assert_array_equal(folded, params[f"{conv}.b_0"].reshape(1, -1, 1, 1))
        assert f"{conv}.b_0" not in result.params  # used by the reshape only: gone


@pytest.mark.parametrize("case", PARAM_CASES, ids=case_id)
def test_fixture_programs_keep_their_outputs_bit_for_bit(case, tmp_path):
    npz, path, _ = case
    stem = str(npz).replace(".io.npz", "")
    original, params = pirc.load(str(path)), None
    params = read_params(f"{stem}.pdiparams", original)
    folded = pirc.load(str(path))
    result = run_pipeline(folded, "param-fold,cse,dce", params=params)
    random = random_fetches(original)
    want = pirc.run(original, _inputs(npz), params)
    got = pirc.run(folded, _inputs(npz), result.params)
    for i, name in enumerate(want):
        if i not in random:
            np.testing.assert_array_equal(got[name], want[name], err_msg=f"{name} changed by param-fold")
    write_params(str(tmp_path / "out.pdiparams"), result.params, folded)  # exactly the program's


def test_numerical_diff_agrees_exactly_on_the_cnn():
    original, params = _load(CNN)
    folded, _ = _load(CNN)
    result = run_pipeline(folded, "param-fold,cse,dce", params=params)
    report = numerical_diff(original, folded, _inputs(Path(f"{CNN}.io.npz")), atol=0, rtol=0,
                            params=params, params_b=result.params)
    assert report.equal, str(report)


def test_without_parameters_the_pass_is_skipped_whole_with_the_reason():
    program, _ = _load(CNN)
    before = pirc.to_text(program, "paddle")
    record = run_pipeline(program, "param-fold").passes[0]
    assert not record.ran
    assert record.skipped_reason == "params: param-fold needs the parameter values: --params FILE.pdiparams"
    assert (record.matches, record.rewrites, record.skips) == (0, 0, [])
    assert pirc.to_text(program, "paddle") == before


def test_large_results_stay_computed(monkeypatch):
    monkeypatch.setattr(param_fold, "MAX_ELEMENTS", 4)  # the conv biases have 8 and 16
    program, params = _load(CNN)
    record = run_pipeline(program, "param-fold", params=params).passes[0]
    assert record.matches == 0


def test_the_cache_key_holds_the_parameter_bytes():
    a, params = _load(CNN)
    b, _ = _load(CNN)
    other = dict(params, **{"conv2d_0.b_0": params["conv2d_0.b_0"] + 1})
    ra = run_pipeline(a, "param-fold", params=params)
    rb = run_pipeline(b, "param-fold", params=other)
    np.testing.assert_array_equal(rb.params["conv2d_0.b_0.reshape"], ra.params["conv2d_0.b_0.reshape"] + 1)


def test_the_lowering_emits_one_call_per_op():
    """mlp: matmul, add, relu, matmul, add, softmax: six ops, each its own calls, in order
    (relu is its kernel's two, threshold and nan_to_num_: Paddle's relu sends NaN and -0 to
    +0, torch.relu does not; the softmax over 10 classes of a dynamic batch is softmax_last,
    which picks its route on the run's row count, where torch's kernel is slow on rows that
    short)."""
    import torch

    from pirc.lower.softmax_rows import SHORT_ROW, softmax_last

    program, params = _load(FIXTURES / "corpus" / "3.3.1" / "mlp.3.3.1")
    gm = pirc.lower(program, params)
    calls = [n.target for n in gm.graph.nodes if n.op in ("call_function", "call_method")]
    assert calls == [torch.matmul, torch.add, torch.threshold, torch.nan_to_num_, torch.matmul,
                     torch.add, softmax_last if 10 < SHORT_ROW else torch.softmax]


def test_lower_with_a_pipeline_folds_on_a_copy():
    program, params = _load(CNN)
    gm = pirc.lower(program, params, pipeline="param-fold,cse,dce")
    assert set(gm.pirc_parameters.values()) >= {"conv2d_0.b_0.reshape", "conv2d_1.b_0.reshape"}
    assert sum(op.name == "pd_op.reshape" for op in program.walk()) == 2
    want = pirc.run(program, _inputs(Path(f"{CNN}.io.npz")), params)
    from pirc.lower.execute import run_module
    got = run_module(gm, _inputs(Path(f"{CNN}.io.npz")))
    for name in want:
        np.testing.assert_array_equal(got[name], want[name])


def test_the_inference_pipeline_folds_the_cnn_within_float32_rounding(monkeypatch):
    """pipelines/inference.yaml (read from this source tree: an editable install elsewhere
    may map pirc.pipelines to another checkout)."""
    from pirc.passes.infra import pipeline as pipelines

    monkeypatch.setattr(pipelines, "pipelines_dir", lambda: Path(__file__).resolve().parents[2] / "pipelines")
    original, params = _load(CNN)
    folded, _ = _load(CNN)
    result = run_pipeline(folded, "inference", params=params)
    assert [r.name for r in result.passes] == ["conv-bn-fold", "param-fold", "cse", "dce"]
    assert [r.rewrites for r in result.passes[:2]] == [1, 1]  # the norm's conv, the other bias
    assert not any(op.name in ("pd_op.reshape", "pd_op.batch_norm_") for op in folded.walk())
    report = numerical_diff(original, folded, _inputs(Path(f"{CNN}.io.npz")), atol=1e-5, rtol=1e-5,
                            params=params, params_b=result.params)
    assert report.equal, str(report)


CONSTANT_CHAIN = """{
    (%0) = "builtin.parameter" () {is_distributed:[false],is_parameter:[true],need_clip:[true],parameter_name:"p",persistable:[true],stop_gradient:[false],trainable:[true]} : () -> tensor<4xf32>
    (%1) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[4],stop_gradient:[true]} : () -> tensor<4xf32>
    (%2) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[4],stop_gradient:[true],value:1.5} : () -> tensor<4xf32>
    (%3) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[4],stop_gradient:[true],value:0.25} : () -> tensor<4xf32>
    (%4) = "pd_op.multiply" (%2, %3) {stop_gradient:[true]} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    (%5) = "pd_op.add" (%0, %4) {stop_gradient:[false]} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    (%6) = "pd_op.exp" (%5) {stop_gradient:[false]} : (tensor<4xf32>) -> tensor<4xf32>
    (%7) = "pd_op.multiply" (%1, %6) {stop_gradient:[false]} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    (%8) = "pd_op.fetch" (%7) {col:0,name:"out",persistable:[true],stop_gradient:[false]} : (tensor<4xf32>) -> tensor<4xf32>
}
"""


def test_a_chain_on_a_parameter_and_constant_ops_folds_into_one_parameter():
    """exp(p + 1.5 * 0.25): the constant-only multiply is computed with the rest; the
    program keeps one multiply by the feed, reading one new parameter."""
    program = pirc.parse(CONSTANT_CHAIN, from_version=4)
    original = pirc.parse(CONSTANT_CHAIN, from_version=4)
    p = np.array([0.0, 1.0, -2.0, 0.5], np.float32)
    result = run_pipeline(program, "param-fold,dce", params={"p": p})
    assert result.passes[0].rewrites == 1
    assert [op.name for op in program.block.ops] == [
        "pd_op.data", "builtin.parameter", "pd_op.multiply", "pd_op.fetch"]
    assert sorted(result.params) == ["p.exp"]
    x = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
    np.testing.assert_array_equal(pirc.run(program, {"x": x}, result.params)["out"],
                                  pirc.run(original, {"x": x}, {"p": p})["out"])


# `p` twice: the first op's cone folds away, the second op is read by the feed's multiply.
TWO_OPS_ONE_NAME = """{
    (%0) = "builtin.parameter" () {is_distributed:[false],is_parameter:[true],need_clip:[true],parameter_name:"p",persistable:[true],stop_gradient:[false],trainable:[true]} : () -> tensor<4xf32>
    (%1) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[4],stop_gradient:[true]} : () -> tensor<4xf32>
    (%2) = "pd_op.exp" (%0) {stop_gradient:[false]} : (tensor<4xf32>) -> tensor<4xf32>
    (%3) = "pd_op.multiply" (%1, %2) {stop_gradient:[false]} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    (%4) = "builtin.parameter" () {is_distributed:[false],is_parameter:[true],need_clip:[true],parameter_name:"p",persistable:[true],stop_gradient:[false],trainable:[true]} : () -> tensor<4xf32>
    (%5) = "pd_op.multiply" (%3, %4) {stop_gradient:[false]} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    (%6) = "pd_op.fetch" (%5) {col:0,name:"out",persistable:[true],stop_gradient:[false]} : (tensor<4xf32>) -> tensor<4xf32>
}"""


def test_a_parameter_another_op_still_names_keeps_its_value():
    """Erasing one of two builtin.parameter ops named `p` keeps `p` in the parameters: the
    pass counts the ops per name (no walk per erased op) and drops a value only with its
    last op."""
    program = pirc.parse(TWO_OPS_ONE_NAME, from_version=4)
    original = pirc.parse(TWO_OPS_ONE_NAME, from_version=4)
    p = np.array([0.0, 1.0, -2.0, 0.5], np.float32)
    result = run_pipeline(program, "param-fold,dce", params={"p": p})
    assert result.passes[0].rewrites == 1
    assert sorted(result.params) == ["p", "p.exp"] == names_from_program(program)
    x = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
    np.testing.assert_array_equal(pirc.run(program, {"x": x}, result.params)["out"],
                                  pirc.run(original, {"x": x}, {"p": p})["out"])
