"""The passes respect the alias model (pirc.ir.aliasing): the miscompiles and refusals the
pass fuzzer found (tests/fixtures/fuzz_passes, copied from ../shared/fuzz-passes-crashes), and
the dev-zoo LLaMA mask, each as a regression test.  Every test runs the program before and
after the passes (the Python API) and compares bit for bit, and checks the IR's shape."""

from pathlib import Path

import numpy as np
import pytest

import pirc
from pirc.ir.aliasing import AliasAnalysis
from pirc.passes import run_pipeline

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
FUZZ = FIXTURES / "fuzz_passes"
ZOO = FIXTURES / "zoo" / "3.3.1"


def _program(stem: str):
    return pirc.load(str(FUZZ / f"{stem}.pir.txt"), from_version=4)


def _inputs(stem: str) -> dict:
    path = FUZZ / f"{stem}.inputs.npz"
    if not path.exists():
        return {}
    with np.load(path) as data:
        return {k: data[k] for k in data.files}


def _params(stem: str, program):
    path = FUZZ / f"{stem}.pdiparams"
    return pirc.read_params(str(path), program) if path.exists() else None


def _same_outputs(before, after, inputs, params=None, after_params=None):
    want = pirc.run(before, inputs, params)
    got = pirc.run(after, inputs, after_params if after_params is not None else params)
    assert list(got) == list(want)
    for name in want:
        assert got[name].shape == want[name].shape, name
        np.testing.assert_array_equal(got[name], want[name], err_msg=name)


def _count(program, name: str) -> int:
    return sum(1 for op in program.walk() if op.name == name)


@pytest.mark.parametrize("pipeline", ["cse", "const-fold,cse", "default"])
def test_cse_does_not_merge_across_a_write_of_an_operand(pipeline):
    # exp(x); relu_(x); exp(x): the second exp reads the written x
    stem = "miscompile-cse-merges-across-inplace-write-of-operand"
    before, after = _program(stem), _program(stem)
    run_pipeline(after, pipeline)
    assert _count(after, "pd_op.exp") == 2
    _same_outputs(before, after, _inputs(stem))


@pytest.mark.parametrize("pipeline", ["cse", "const-fold,cse", "default"])
def test_cse_does_not_merge_into_a_value_written_later(pipeline):
    # two exp(x), the first written by tanh_: merging would make `a` read tanh's values
    stem = "miscompile-cse-merges-into-inplace-written-value"
    before, after = _program(stem), _program(stem)
    run_pipeline(after, pipeline)
    assert _count(after, "pd_op.exp") == 2
    _same_outputs(before, after, _inputs(stem))


@pytest.mark.parametrize("pipeline", ["const-fold,cse", "default"])
def test_cse_does_not_merge_a_zeros_full_into_const_folds_written_full(pipeline):
    # const-fold folds the concat to full + assign_value_; the later zeros full must stay
    stem = "miscompile-cse-merges-into-inplace-written-full"
    before, after = _program(stem), _program(stem)
    run_pipeline(after, pipeline)
    aliases = AliasAnalysis(after)
    adds = [op for op in after.walk() if op.name == "pd_op.add"]
    assert len(adds) == 2
    # the two adds read different buffers: one written in place, one not
    assert aliases.buffer_of(adds[0].operands[1]) != aliases.buffer_of(adds[1].operands[1])
    _same_outputs(before, after, _inputs(stem))


@pytest.mark.parametrize("pipeline", ["default", "inference"])
@pytest.mark.parametrize("model", ["llama", "llama_gqa"])
def test_llama_mask_constants_written_by_assign_value_stay_two_buffers(model, pipeline):
    program = pirc.load(str(ZOO / f"{model}.3.3.1.json"))
    pirc.upgrade(program)
    fulls = [op.operands[0].owner for op in program.walk() if op.name == "pd_op.assign_value_"]
    assert len(fulls) == 2 and all(f.name == "pd_op.full" for f in fulls)
    run_pipeline(program, pipeline)
    writes = [op for op in program.walk() if op.name == "pd_op.assign_value_"]
    assert len(writes) == 2
    written = {id(op.operands[0]) for op in writes}
    assert len(written) == 2, "cse merged the two written pd_op.full: one buffer, two writes"
    aliases = AliasAnalysis(program)
    assert len({aliases.buffer_of(op.operands[0]) for op in writes}) == 2


@pytest.mark.parametrize("pipeline", ["param-fold", "default", "inference"])
def test_param_fold_does_not_read_a_parameter_written_in_place(pipeline):
    # relu_(w) then scale(w, 2): the fold would read w's stored, unwritten values
    stem = "miscompile-param-fold-reads-parameter-before-inplace-write"
    before, after = _program(stem), _program(stem)
    params = _params(stem, before)
    result = run_pipeline(after, pipeline, params=params)
    assert _count(after, "pd_op.scale") == 1 and _count(after, "pd_op.relu_") == 1
    fold = next(r for r in result.passes if r.name == "param-fold")
    assert fold.rewrites == 0
    _same_outputs(before, after, _inputs(stem), params, result.params)


def test_param_fold_still_folds_a_parameter_only_read():
    # the same program without the in-place write folds scale(w, 2) into a parameter
    stem = "miscompile-param-fold-reads-parameter-before-inplace-write"
    text = (FUZZ / f"{stem}.pir.txt").read_text().replace('"pd_op.relu_"', '"pd_op.relu"')
    before = pirc.parse(text, from_version=4)
    after = pirc.parse(text, from_version=4)
    params = _params(stem, before)
    result = run_pipeline(after, "param-fold,dce", params=params)
    assert _count(after, "pd_op.scale") == 0
    _same_outputs(before, after, _inputs(stem), params, result.params)


def test_const_fold_keeps_a_0d_result_0d():
    stem = "miscompile-const-fold-0d-becomes-shape-1"
    before, after = _program(stem), _program(stem)
    result = run_pipeline(after, "const-fold,dce")
    assert result.passes[0].rewrites == 1
    (full,) = [op for op in after.walk() if op.name == "pd_op.full"]
    assert list(full.attributes["shape"].data) == [] and full.results[0].type.shape == ()
    assert float(pirc.run(after, {})["y"]) == 6.0
    _same_outputs(before, after, {})


def test_const_fold_skips_a_fold_whose_evaluation_fails():
    # add of [2] and [3] into [3]: the verifier accepts it, numpy cannot broadcast it
    stem = "pass-crash-const-fold-shape-inconsistent-add"
    program = _program(stem)
    result = run_pipeline(program, "const-fold")
    record = result.passes[0]
    assert record.rewrites == 0 and _count(program, "pd_op.add") == 1
    assert [s.reason for s in record.skips] == [
        "evaluation failed: ValueError: operands could not be broadcast together with shapes (2,) (3,)"]


@pytest.mark.parametrize("case", ["cast", "constfold"])
def test_default_with_params_folds_what_canonicalize_and_const_fold_left(case):
    # param-fold may rewrite their output (docs/PASSES.md, "Who rewrites whose output")
    stem = f"refused-default-params-rewrite-conflict-{case}"
    before, after = _program(stem), _program(stem)
    params = _params(stem, before)
    result = run_pipeline(after, "default", params=params)
    fold = next(r for r in result.passes if r.name == "param-fold")
    assert fold.rewrites == 1
    assert [op.name for op in after.block.ops][-3:] == ["builtin.parameter", "pd_op.add", "pd_op.fetch"]
    assert _count(after, "pd_op.cast") == 0 and _count(after, "pd_op.scale") == 0
    inputs = {"x": np.arange(3, dtype=np.float16 if case == "cast" else np.float32)}
    _same_outputs(before, after, inputs, params, result.params)


def test_default_with_params_on_the_cli(tmp_path):
    from pirc.cli.opt import run

    for case in ("cast", "constfold"):
        stem = FUZZ / f"refused-default-params-rewrite-conflict-{case}"
        assert run([f"{stem}.pir.txt", "--from-version=4", "-p", "default",
                    "--params", f"{stem}.pdiparams", "--params-out", str(tmp_path / "p.pdiparams"),
                    "-o", str(tmp_path / "out.pir")]) == 0


def test_llama_mask_through_pirc_opt_upgrade_default(tmp_path):
    from pirc.cli.opt import run

    for model in ("llama", "llama_gqa"):
        out = tmp_path / f"{model}.json"
        assert run([str(ZOO / f"{model}.3.3.1.json"), "--upgrade", "-p", "default", "-o", str(out)]) == 0
        program = pirc.load(str(out))
        writes = [op for op in program.walk() if op.name == "pd_op.assign_value_"]
        assert len(writes) == 2 and writes[0].operands[0] is not writes[1].operands[0]


@pytest.mark.parametrize("pipeline", ["conv-bn-fold", "inference", "default"])
def test_conv_bn_fold_does_not_read_a_weight_written_in_place(pipeline):
    # relu_(w) before the conv: folding from w's stored -2 gave [-2.5 -4.5 -6.5 -8.5]
    stem = "miscompile-conv-bn-fold-reads-weight-before-inplace-write"
    before, after = _program(stem), _program(stem)
    params = _params(stem, before)
    result = run_pipeline(after, pipeline, params=params)
    fold = next(r for r in result.passes if r.name == "conv-bn-fold")
    assert fold.rewrites == 0
    assert [s.reason for s in fold.skips] == ["aliasing: parameter w is written in place"]
    assert _count(after, "pd_op.batch_norm_") == 1
    _same_outputs(before, after, _inputs(stem), params, result.params)


def test_conv_bn_fold_folds_when_the_weight_is_only_read():
    # the inference batch_norm_ writes its statistics without changing them: still a fold
    stem = "miscompile-conv-bn-fold-reads-weight-before-inplace-write"
    text = (FUZZ / f"{stem}.pir.txt").read_text().replace('"pd_op.relu_"', '"pd_op.relu"')
    before, after = pirc.parse(text, from_version=4), pirc.parse(text, from_version=4)
    params = _params(stem, before)
    result = run_pipeline(after, "conv-bn-fold,dce", params=params)
    assert result.passes[0].rewrites == 1 and _count(after, "pd_op.batch_norm_") == 0
    want = pirc.run(before, _inputs(stem), params)["y"]
    got = pirc.run(after, _inputs(stem), result.params)["y"]
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_param_fold_keeps_a_0d_value_0d():
    text = """{
    (%0) = "builtin.parameter" () {is_distributed:[false],is_parameter:[true],need_clip:[true],parameter_name:"w0",persistable:[true],stop_gradient:[false],trainable:[true]} : () -> tensor<1xf32>
    (%1) = "pd_op.full_int_array" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[0]} : () -> tensor<1xi64>
    (%2) = "pd_op.max" (%0, %1) {keepdim:false,stop_gradient:[true]} : (tensor<1xf32>, tensor<1xi64>) -> tensor<f32>
    (%3) = "pd_op.fetch" (%2) {col:0,name:"y",persistable:[true],stop_gradient:[true]} : (tensor<f32>) -> tensor<f32>
}"""
    program = pirc.parse(text, from_version=4)
    result = run_pipeline(program, "param-fold,dce", params={"w0": np.array([0.125], np.float32)})
    assert result.passes[0].rewrites == 1
    assert result.params["w0.max"].shape == () and float(result.params["w0.max"]) == 0.125
    (param,) = [op for op in program.walk() if op.name == "builtin.parameter"]
    assert param.results[0].type.shape == ()


DEAD_WRITES = """{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[3],stop_gradient:[true]} : () -> tensor<3xf32>
    (%1) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[3],stop_gradient:[true],value:0} : () -> tensor<3xf32>
    (%2) = "pd_op.assign_value_" (%1) {dtype:float32,place:Place(cpu),shape:[3],stop_gradient:[true],values:[(Double)1,(Double)2,(Double)3]} : (tensor<3xf32>) -> tensor<3xf32>
    (%3) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[3],stop_gradient:[true],value:0} : () -> tensor<3xf32>
    (%4) = "pd_op.assign_value_" (%3) {dtype:float32,place:Place(cpu),shape:[3],stop_gradient:[true],values:[(Double)1,(Double)2,(Double)3]} : (tensor<3xf32>) -> tensor<3xf32>
    (%5) = "pd_op.add" (%0, %3) {stop_gradient:[true]} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    (%6) = "pd_op.exp" (%0) {stop_gradient:[true]} : (tensor<3xf32>) -> tensor<3xf32>
    (%7) = "pd_op.relu_" (%6) {stop_gradient:[true]} : (tensor<3xf32>) -> tensor<3xf32>
    (%8) = "pd_op.relu_" (%0) {stop_gradient:[true]} : (tensor<3xf32>) -> tensor<3xf32>
    (%9) = "pd_op.fetch" (%5) {col:0,name:"y",persistable:[true],stop_gradient:[true]} : (tensor<3xf32>) -> tensor<3xf32>
}"""


def test_dce_removes_a_write_no_name_reads_and_keeps_one_another_name_reads():
    before = pirc.parse(DEAD_WRITES, from_version=4)
    after = pirc.parse(DEAD_WRITES, from_version=4)
    result = run_pipeline(after, "dce")
    # the unread to_tensor constant and the relu_ of an unread exp go; the constant the add
    # reads through %3 (written by %4) stays, and so does the write to the feed
    assert [op.name for op in after.block.ops] == [
        "pd_op.data", "pd_op.full", "pd_op.assign_value_", "pd_op.add", "pd_op.relu_", "pd_op.fetch"]
    assert result.passes[0].rewrites == 4
    inputs = {"x": np.array([-1, 0.5, 2], np.float32)}
    _same_outputs(before, after, inputs)
    np.testing.assert_array_equal(pirc.run(after, inputs)["y"], [0, 2.5, 5])


def test_cse_does_not_merge_across_a_write_of_a_tensor_a_vector_gathers():
    text = """{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[3],stop_gradient:[true]} : () -> tensor<3xf32>
    (%1) = "pd_op.exp" (%0) {stop_gradient:[true]} : (tensor<3xf32>) -> tensor<3xf32>
    (%2) = "builtin.combine" (%1, %0) {} : (tensor<3xf32>, tensor<3xf32>) -> vec[tensor<3xf32>,tensor<3xf32>]
    (%3) = "pd_op.full" () {dtype:int32,place:Place(cpu),shape:[1],stop_gradient:[true],value:0} : () -> tensor<1xi32>
    (%4) = "pd_op.concat" (%2, %3) {stop_gradient:[true]} : (vec[tensor<3xf32>,tensor<3xf32>], tensor<1xi32>) -> tensor<6xf32>
    (%5) = "pd_op.relu_" (%1) {stop_gradient:[true]} : (tensor<3xf32>) -> tensor<3xf32>
    (%6) = "pd_op.concat" (%2, %3) {stop_gradient:[true]} : (vec[tensor<3xf32>,tensor<3xf32>], tensor<1xi32>) -> tensor<6xf32>
    (%7) = "pd_op.fetch" (%4) {col:0,name:"a",persistable:[true],stop_gradient:[true]} : (tensor<6xf32>) -> tensor<6xf32>
    (%8) = "pd_op.fetch" (%6) {col:1,name:"b",persistable:[true],stop_gradient:[true]} : (tensor<6xf32>) -> tensor<6xf32>
}"""
    before, after = pirc.parse(text, from_version=4), pirc.parse(text, from_version=4)
    run_pipeline(after, "default")
    assert _count(after, "pd_op.concat") == 2
    _same_outputs(before, after, {"x": np.array([-1, 0, 2], np.float32)})


@pytest.mark.parametrize("model", ["llama", "llama_gqa"])
def test_llama_optimised_by_default_runs_like_paddle(model):
    # the optimised program against the outputs Paddle 3.3.1 computed for the saved one
    from zoo_cases import assert_close, expected, inputs, params, saved_cases

    (case,) = [c for c in saved_cases() if c.model == model and c.release == "3.3.1"]
    program = pirc.load(str(case.program))
    pirc.upgrade(program)
    weights = params(program, case)
    result = run_pipeline(program, "default", params=weights)
    got = pirc.run(program, inputs(case), result.params)
    assert_close(list(got.values()), expected(case), case.model, f"{case} after -p default")


OPS = FIXTURES / "ops" / "3.3.1"


@pytest.mark.parametrize("name, op", [("set_value_with_tensor", "pd_op.assign"),
                                      ("set_value", "pd_op.assign"), ("coalesce_tensor_", "pd_op.scale")])
def test_paddle_saved_programs_keep_their_in_place_targets_apart(name, op):
    # `x[i] = v` saves as assign(x) + set_value_ per statement; coalesce_tensor_ writes every
    # tensor its vector gathers: cse merged the copies, so the writes met in one buffer
    # (found by the Paddle oracle; the optimised programs are bit-exact in Paddle 3.3.1 now)
    program = pirc.load(str(OPS / f"{name}.3.3.1.json"))
    pirc.upgrade(program)
    before = _count(program, op)
    aliases = AliasAnalysis(program)
    written = sum(1 for o in program.walk() if o.name == op and aliases.is_written(o.results[0]))
    assert written == before > 1
    run_pipeline(program, "default")
    assert _count(program, op) == before
    with np.load(OPS / f"{name}.3.3.1.io.npz") as data:
        inputs = {k: data[k] for k in data.files if k.startswith("in__")}
        want = [data[k] for k in sorted((k for k in data.files if k.startswith("out__")),
                                        key=lambda k: int(k[5:]))]
    got = list(pirc.run(program, inputs).values())
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def test_const_fold_folds_a_slice_down_to_0d():
    text = """{
    (%0) = "pd_op.full_int_array" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[4,5,6]} : () -> tensor<3xi64>
    (%1) = "pd_op.full_int_array" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[1]} : () -> tensor<1xi64>
    (%2) = "pd_op.full_int_array" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[2]} : () -> tensor<1xi64>
    (%3) = "pd_op.slice" (%0, %1, %2) {axes:[0],decrease_axis:[0],infer_flags:[1],stop_gradient:[true]} : (tensor<3xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<i64>
    (%4) = "pd_op.fetch" (%3) {col:0,name:"y",persistable:[true],stop_gradient:[true]} : (tensor<i64>) -> tensor<i64>
}"""
    before, after = pirc.parse(text, from_version=4), pirc.parse(text, from_version=4)
    result = run_pipeline(after, "const-fold,dce")
    assert result.passes[0].rewrites == 1 and _count(after, "pd_op.slice") == 0
    (full,) = [op for op in after.walk() if op.name == "pd_op.full"]
    assert list(full.attributes["shape"].data) == []
    _same_outputs(before, after, {})


def test_a_fold_that_cannot_be_evaluated_is_no_crash_on_the_cli(tmp_path, capsys):
    from pirc.cli.opt import run

    stem = FUZZ / "pass-crash-const-fold-shape-inconsistent-add"
    report = tmp_path / "report.json"
    assert run([f"{stem}.pir.txt", "--from-version=4", "-p", "default", "--pass-stats",
                "--pass-report", str(report), "-o", str(tmp_path / "out.pir")]) == 0
    assert "evaluation failed: ValueError: operands could not be broadcast" in capsys.readouterr().err
    assert _count(pirc.load(str(tmp_path / "out.pir")), "pd_op.add") == 1


@pytest.mark.parametrize("name", ["pd_op.dirichlet", "pd_op.standard_gamma", "pd_op.exponential_",
                                  "pd_op.random_", "pd_op.uniform_inplace_", "pd_op.dropout_"])
def test_random_ops_are_never_merged_folded_or_dropped(name):
    # two runs of Paddle 3.3.1 differ on them (the oracle): a draw is not a pure function
    from pirc.ir.effects import INPLACE_WRITE, WRITE, effect_of
    from pirc.ir.specs import get_spec

    effect = effect_of(get_spec(name, 4))
    assert effect.kind == WRITE and effect is not INPLACE_WRITE and "random" in effect.why


def test_cse_keeps_two_dirichlet_draws():
    text = """{
    (%0) = "pd_op.data" () {dtype:float32,name:"alpha",place:Place(undefined:0),shape:[4,3],stop_gradient:[true]} : () -> tensor<4x3xf32>
    (%1) = "pd_op.dirichlet" (%0) {stop_gradient:[true]} : (tensor<4x3xf32>) -> tensor<4x3xf32>
    (%2) = "pd_op.dirichlet" (%0) {stop_gradient:[true]} : (tensor<4x3xf32>) -> tensor<4x3xf32>
    (%3) = "pd_op.fetch" (%1) {col:0,name:"a",persistable:[true],stop_gradient:[true]} : (tensor<4x3xf32>) -> tensor<4x3xf32>
    (%4) = "pd_op.fetch" (%2) {col:1,name:"b",persistable:[true],stop_gradient:[true]} : (tensor<4x3xf32>) -> tensor<4x3xf32>
}"""
    program = pirc.parse(text, from_version=4)
    run_pipeline(program, "default")
    assert _count(program, "pd_op.dirichlet") == 2
