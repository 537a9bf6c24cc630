"""Two bit-level miscompiles the pass differential campaign found (docs/ROBUSTNESS.md): a
pass must leave every output bit as the unoptimised run computes it, -0.0 and the last ulp
included.  np.testing.assert_array_equal calls -0.0 and +0.0 equal, so these compare bytes.

* canonicalize removed `scale(x, 1, bias=0.0)` as an identity; Paddle's kernel computes
  x * 1 + 0.0, which turns -0.0 into +0.0.  Only a bias of -0.0, or an integer x, is an
  identity bit for bit.
* const-fold folds `transpose(constant)`; pirc lowered a runtime transpose as a torch view,
  and torch's matmul sums a strided operand in another order than the dense folded constant
  (1 ulp).  Paddle's transpose writes a dense tensor, and so does pirc's now.
"""

from pathlib import Path

import numpy as np
import pytest
import torch

import pirc
from pirc.lower.kernels.shape import transpose
from pirc.passes import run_pipeline

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "diff_passes"

SCALE = """{{
    (%0) = "pd_op.data" () {{dtype:{dtype},name:"x",place:Place(undefined:0),shape:[4],stop_gradient:[true]}} : () -> tensor<4x{t}>
    (%1) = "pd_op.data" () {{dtype:{dtype},name:"y",place:Place(undefined:0),shape:[4],stop_gradient:[true]}} : () -> tensor<4x{t}>
    (%2) = "pd_op.multiply" (%0, %1) {{stop_gradient:[true]}} : (tensor<4x{t}>, tensor<4x{t}>) -> tensor<4x{t}>
    (%3) = "pd_op.full" () {{dtype:{dtype},place:Place(cpu),shape:[1],stop_gradient:[true],value:1.0}} : () -> tensor<1x{t}>
    (%4) = "pd_op.scale" (%2, %3) {{bias:{bias},bias_after_scale:{after},stop_gradient:[true]}} : (tensor<4x{t}>, tensor<1x{t}>) -> tensor<4x{t}>
    (%5) = "pd_op.fetch" (%4) {{col:0,name:"z",persistable:[true],stop_gradient:[true]}} : (tensor<4x{t}>) -> tensor<4x{t}>
}}
"""

DTYPES = {"float32": "f32", "float64": "f64", "int32": "i32", "int64": "i64"}


def _scale_program(dtype: str, bias: str, after: str):
    text = SCALE.format(dtype=dtype, t=DTYPES[dtype], bias=bias, after=after)
    return pirc.parse(text, from_version=4)


def _inputs(dtype: str) -> dict:
    # x * y holds -0.0 (-1 * 0) and +0.0 (1 * 0) for the float types
    return {"x": np.array([-1, 1, -3, 2], dtype), "y": np.array([0, 0, 5, 7], dtype)}


def _bits(outputs: dict) -> dict:
    return {k: (v.dtype.str, v.shape, v.tobytes()) for k, v in outputs.items()}


def _scales(program) -> int:
    return sum(1 for op in program.walk() if op.name == "pd_op.scale")


@pytest.mark.parametrize("after", ["true", "false"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_float_scale_by_one_with_bias_plus_zero_is_kept(dtype, after):
    before, work = _scale_program(dtype, "0.0", after), _scale_program(dtype, "0.0", after)
    run_pipeline(work, "canonicalize")
    assert _scales(work) == 1
    want = pirc.run(before, _inputs(dtype))
    assert np.signbit(want["z"]).tolist() == [False, False, True, False]  # -0.0 -> +0.0
    assert _bits(pirc.run(work, _inputs(dtype))) == _bits(want)


@pytest.mark.parametrize("after", ["true", "false"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_float_scale_by_one_with_bias_minus_zero_is_removed(dtype, after):
    before, work = _scale_program(dtype, "-0.0", after), _scale_program(dtype, "-0.0", after)
    run_pipeline(work, "canonicalize")
    assert _scales(work) == 0
    want = pirc.run(before, _inputs(dtype))
    assert np.signbit(want["z"]).tolist() == [True, False, True, False]  # -0.0 kept
    assert _bits(pirc.run(work, _inputs(dtype))) == _bits(want)


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_integer_scale_by_one_with_bias_zero_is_removed(dtype):
    before, work = _scale_program(dtype, "0.0", "true"), _scale_program(dtype, "0.0", "true")
    run_pipeline(work, "canonicalize")
    assert _scales(work) == 0
    assert _bits(pirc.run(work, _inputs(dtype))) == _bits(pirc.run(before, _inputs(dtype)))


def test_transpose_kernel_result_is_dense():
    x = torch.arange(6, dtype=torch.float64).reshape(2, 3)
    out = transpose(x, perm=[1, 0])
    assert out.is_contiguous()
    assert torch.equal(out, x.t())


def _arrays(stem: str) -> dict:
    # the arrays the campaign drew (tools.fuzz.differential.synth_arrays), kept as files
    with np.load(FIXTURES / f"{stem}.npz") as data:
        return {k: data[k] for k in data.files}


@pytest.mark.parametrize("pipeline", ["const-fold", "const-fold,canonicalize"])
def test_folded_transpose_feeds_matmul_the_same_bits(pipeline):
    path = FIXTURES / "transpose-matmul-1ulp.pir"
    before = pirc.load(str(path), from_version=4)
    work = pirc.load(str(path), from_version=4)
    inputs = _arrays("transpose-matmul-1ulp.inputs")
    params = _arrays("transpose-matmul-1ulp.params")
    result = run_pipeline(work, pipeline, params={k: v.copy() for k, v in params.items()})
    assert not any(op.name == "pd_op.transpose" for op in work.walk())  # folded
    new_params = result.params if result.params is not None else params
    want = pirc.run(before, inputs, {k: v.copy() for k, v in params.items()})
    got = pirc.run(work, inputs, {k: v.copy() for k, v in new_params.items()})
    assert _bits(got) == _bits(want)
