"""Kernels against real Paddle: every case in tests/fixtures/kernel_cases/<release>.json was
computed by that Paddle release calling the op directly (tools/paddle_oracle/
gen_kernel_cases.py); the kernel the registry resolves at the release's PIR version must
reproduce it.  Plus registry coverage: every op of FORMAT-NOTES section 7 that is not
handled by the lowering itself has a kernel at every PIR version.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
import torch

import pirc.lower.kernels  # noqa: F401 - registers the kernels
from kernel_case_values import attribute, decode
from pirc.runtime.registry import REGISTRY

CASES_DIR = Path(__file__).resolve().parents[1] / "fixtures" / "kernel_cases"
RELEASE_VERSIONS = {"3.0.0": 1, "3.3.1": 4}

# FORMAT-NOTES section 7, less the ops the lowering handles itself (data, parameter, fetch,
# combine, split, yield, if, while), plus ops the generated/patchops fixtures use.
SECTION_7_KERNEL_OPS = """
add addmm arange argmax assign_value_ baddbmm batch_norm_ bicubic_interp bilinear_interp cast
clip concat conv2d cumsum divide dropout einsum elu equal exp expand_as flatten full
full_int_array full_like gaussian gelu greater_than group_norm hardtanh isnan kthvalue
layer_norm leaky_relu less_than linear_interp logical_and logit lp_pool2d matmul max mean
multiply nearest_interp one_hot p_norm pad3d pool2d pool3d pow relu repeat_interleave
repeat_interleave_with_tensor_index reshape scale sigmoid slice softmax softplus split squeeze
stack strided_slice sum tanh tile topk transpose trilinear_interp unbind uniform unsqueeze where
""".split()
FIXTURE_KERNEL_OPS = """
abs complex real imag add_n minimum maximum create_array array_write_ array_read array_length
merge_selected_rows get_tensor_from_selected_rows
""".split()

# Cases whose float results depend on transcendental functions or reduction order that
# torch and Eigen implement differently: compared within the float32 tolerance.
# Everything else must match bit for bit.
NOT_BIT_EXACT = {
    "gelu_tanh": "tanh from Eigen vs torch",
    "gelu_erf": "erf from Eigen vs torch",
    "softmax_axis0": "exp from Eigen vs torch",
    "conv2d_same_stride": "convolution summation order",
    "conv2d_asym": "convolution summation order",
    "conv2d_nhwc_groups": "convolution summation order",
    "layer_norm_axis2": "mean/variance reduction order",
    "group_norm_nhwc": "mean/variance reduction order",
    "sum_axes_keep": "vectorised reduction order",
}


def _load(release):
    doc = json.loads((CASES_DIR / f"{release}.json").read_text())
    return [(release, c) for c in doc["cases"]]


ALL_CASES = [c for release in RELEASE_VERSIONS for c in _load(release)]


@pytest.mark.parametrize("release,case", ALL_CASES,
                         ids=[f"{r}-{c['name']}" for r, c in ALL_CASES])
def test_kernel_matches_paddle(release, case):
    entry = REGISTRY.resolve(case["op"], RELEASE_VERSIONS[release])
    operands = [decode(o) for o in case["operands"]]
    attrs = {k: attribute(v) for k, v in case["attrs"].items()}
    result = entry.fn(*operands, **attrs)
    if isinstance(result, list) and case["vec_result"]:
        got = result
    else:
        got = list(result) if isinstance(result, tuple) else [result]
    expected = [decode(e) for e in case["expected"]]
    got = got[:len(expected)]
    for i, (g, e) in enumerate(zip(got, expected)):
        where = f"{case['name']} ({release}) result {i}"
        assert g is not None, where
        assert g.dtype == e.dtype, f"{where}: dtype {g.dtype} != Paddle's {e.dtype}"
        assert tuple(g.shape) == tuple(e.shape), f"{where}: shape {tuple(g.shape)} != {tuple(e.shape)}"
        g_np, e_np = g.numpy(), e.numpy()
        if case["name"] in NOT_BIT_EXACT and e_np.dtype.kind == "f":
            np.testing.assert_allclose(g_np, e_np, rtol=1e-4, atol=1e-5, err_msg=where)
        else:
            np.testing.assert_array_equal(g_np, e_np, err_msg=where)


@pytest.mark.parametrize("op", SECTION_7_KERNEL_OPS + FIXTURE_KERNEL_OPS)
@pytest.mark.parametrize("version", [0, 1, 2, 3, 4])
def test_every_op_has_a_kernel_at_every_version(op, version):
    assert REGISTRY.resolve("pd_op." + op, version).fn is not None


def test_maximum_changes_meaning_at_version_2():
    # Paddle 3.0.0 (PIR 1) computes a > b ? a : b; 3.1.1 and later propagate NaN (checked
    # against the wheels: tests/fixtures/kernel_cases/*.json maximum_nan).
    x = torch.tensor([1.0, math.nan])
    y = torch.tensor([math.nan, 2.0])
    old = REGISTRY.resolve("pd_op.maximum", 1).fn(x, y)
    new = REGISTRY.resolve("pd_op.maximum", 2).fn(x, y)
    assert torch.isnan(old[0]) and old[1] == 2.0
    assert torch.isnan(new).all()


def test_linear_interp_index_precision_changes_at_version_4():
    v1 = REGISTRY.resolve("pd_op.linear_interp", 3)
    v4 = REGISTRY.resolve("pd_op.linear_interp", 4)
    assert v1 is not v4 and v1.until == 4 and v4.since == 4


def test_tensor_array_writes_in_place():
    # Paddle programs read the array create_array made after array_write_ (see
    # tests/fixtures/generated/*/tensor_array.*.pir.txt).
    k = {n: REGISTRY.resolve("pd_op." + n, 4).fn for n in
         ("create_array", "array_write_", "array_read", "array_length")}
    arr = k["create_array"](dtype=torch.float32)
    k["array_write_"](arr, torch.ones(2), torch.tensor([1]))
    assert k["array_length"](arr).tolist() == [2]
    assert k["array_read"](arr, torch.tensor([1])).tolist() == [1.0, 1.0]


def test_random_ops_shape_dtype_and_seed():
    gaussian = REGISTRY.resolve("pd_op.gaussian", 4).fn
    uniform = REGISTRY.resolve("pd_op.uniform", 4).fn
    a = gaussian(torch.tensor([200, 50]), mean=1.0, std=2.0, seed=7, dtype=torch.float64)
    b = gaussian(torch.tensor([200, 50]), mean=1.0, std=2.0, seed=7, dtype=torch.float64)
    assert a.shape == (200, 50) and a.dtype == torch.float64 and torch.equal(a, b)
    assert abs(a.mean().item() - 1.0) < 0.1 and abs(a.std().item() - 2.0) < 0.1
    u = uniform(torch.tensor([10000]), torch.tensor([-3.0]), torch.tensor([5.0]), dtype=torch.float32, seed=3)
    assert u.min() >= -3.0 and u.max() < 5.0 and abs(u.mean().item() - 1.0) < 0.1


def test_dropout_training_mask():
    dropout = REGISTRY.resolve("pd_op.dropout", 4).fn
    x = torch.ones(100, 100)
    out, mask = dropout(x, None, torch.tensor([0.25]), is_test=False, mode="upscale_in_train",
                        seed=11, fix_seed=True)
    assert mask.dtype == torch.uint8 and out.shape == x.shape
    kept = mask.bool()
    assert torch.equal(out[kept], torch.full_like(out[kept], 1 / 0.75))
    assert (out[~kept] == 0).all() and abs(kept.float().mean().item() - 0.75) < 0.03


def test_cast_to_float16_truncates_before_version_3():
    # Outputs of pd_op.cast float32 -> float16 in static programs run by Paddle 3.0.0 and
    # 3.1.1 (truncating) and 3.2.2 / 3.3.1 (round to nearest), on these inputs.
    x = torch.tensor([1.9663527, 1.1667864, -5.1166437, 1.0 + 2 ** -11, 1.0 + 3 * 2 ** -11,
                      65520.0, 1e-6, 7e-8], dtype=torch.float32)
    paddle_300 = [1.9658203125, 1.166015625, -5.11328125, 1.0, 1.0009765625, math.inf,
                  9.5367431640625e-07, 5.960464477539063e-08]
    paddle_331 = [1.966796875, 1.1669921875, -5.1171875, 1.0, 1.001953125, math.inf,
                  1.0132789611816406e-06, 5.960464477539063e-08]
    for version, expected in ((1, paddle_300), (2, paddle_300), (3, paddle_331), (4, paddle_331)):
        got = REGISTRY.resolve("pd_op.cast", version).fn(x, dtype=torch.float16)
        assert got.dtype == torch.float16
        assert got.tolist() == expected, version
