"""Backward-op kernels (pirc/lower/kernels/grad.py) against gradients written out by hand.

The generic rule (autograd of the forward kernel) is checked on ops whose derivative has a
closed form; the kernels of their own (kthvalue, nanmedian, group_norm) on Paddle's
placement rules; the spec rule on ops it must not register.  Every kernel is called under
torch.no_grad(), as pirc-run calls the lowered module.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import pirc
import pirc.lower.kernels  # noqa: F401 - registers every kernel
from pirc.errors import LoweringError
from pirc.lower import check_lowerable
from pirc.ir.specs import get_spec
from pirc.lower.kernels import grad as grad_mod
from pirc.runtime.registry import REGISTRY
from grad_testing import V, kernel, no_grad, seeded_randn  # noqa: F401 - no_grad is an autouse fixture



def _randn(*shape, seed=0, dtype=torch.float32):
    return seeded_randn(shape, seed, dtype)


# -- first order: autograd of the forward kernel ------------------------------------------------

def test_leaky_relu_grad_is_dy_or_slope_times_dy():
    x = torch.tensor([[-2.0, -0.5, 0.0, 0.5, 3.0]])
    dy = torch.tensor([[1.0, 2.0, 3.0, 4.0, 5.0]])
    got = kernel("pd_op.leaky_relu_grad")(x, dy, negative_slope=0.25)
    assert torch.equal(got, torch.tensor([[0.25, 0.5, 0.75, 4.0, 5.0]]))
    assert not got.requires_grad  # nothing of the kernel's autograd graph leaks out


def test_softplus_grad_is_the_sigmoid_and_one_past_the_threshold():
    beta, threshold = 1.7, 15.0
    x = torch.tensor([-12.0, -1.0, 0.0, 2.0, 8.0, 9.0, 100.0], dtype=torch.float64)
    dy = torch.linspace(0.5, 2.0, 7, dtype=torch.float64)
    got = kernel("pd_op.softplus_grad")(x, dy, beta=beta, threshold=threshold)
    want = torch.where(x * beta > threshold, dy, dy * torch.sigmoid(beta * x))
    torch.testing.assert_close(got, want, rtol=1e-12, atol=1e-12)
    assert torch.isfinite(got).all()  # exp(170) overflows in the branch not taken


def test_logit_grad_is_zero_outside_eps_and_one_over_x_one_minus_x_inside():
    eps = 0.1
    x = torch.tensor([0.05, 0.1, 0.3, 0.5, 0.9, 0.95], dtype=torch.float64)
    dy = torch.ones(6, dtype=torch.float64)
    got = kernel("pd_op.logit_grad")(x, dy, eps=eps)
    want = torch.where((x < eps) | (x > 1 - eps), 0.0, 1 / (x * (1 - x)))
    torch.testing.assert_close(got, want)


def _pool_attrs(pooling_type, strides, paddings, ceil_mode=False, exclusive=True):
    return dict(strides=strides, paddings=paddings, ceil_mode=ceil_mode, exclusive=exclusive,
                data_format="NCHW", pooling_type=pooling_type, global_pooling=False,
                adaptive=False, padding_algorithm="EXPLICIT")


def _max_pool_grad_by_hand(x, dy, k, s, pads):
    """Paddle's MaxPool grad: each output's gradient to the first cell of its window (row
    major, padding excluded) that holds the window's maximum."""
    n, c, h, w = x.shape
    dx = np.zeros(x.shape)
    for b in range(n):
        for ch in range(c):
            for i in range(dy.shape[2]):
                for j in range(dy.shape[3]):
                    cells = [(r, q) for r in range(i * s[0] - pads[0], i * s[0] - pads[0] + k[0])
                             for q in range(j * s[1] - pads[2], j * s[1] - pads[2] + k[1])
                             if 0 <= r < h and 0 <= q < w]
                    best = max(x[b, ch, r, q] for r, q in cells)
                    r, q = next(cell for cell in cells if x[b, ch][cell] == best)
                    dx[b, ch, r, q] += dy[b, ch, i, j]
    return dx


@pytest.mark.parametrize("pads,dtype", [
    ([1, 1, 1, 1], torch.float32), ([1, 0, 0, 1], torch.float32), ([1, 1, 1, 1], torch.float16)],
    ids=["torch's pooling", "torch's pooling after a -inf pad", "unfolded windows (half)"])
def test_pool2d_grad_max_goes_to_the_first_maximum_of_each_window(pads, dtype):
    # ties: every window has several equal maxima, the gradient goes to the first only
    x = torch.tensor([[[[1.0, 3.0, 3.0, 0.0],
                        [3.0, 2.0, 1.0, 3.0],
                        [0.0, 1.0, 5.0, 5.0],
                        [2.0, 2.0, 5.0, 1.0]]]], dtype=dtype)
    k, s = [3, 3], [2, 2]
    attrs = _pool_attrs("max", s, pads)
    out = kernel("pd_op.pool2d")(x, k, **attrs)
    dy = torch.arange(1.0, out.numel() + 1, dtype=dtype).reshape(out.shape)
    got = kernel("pd_op.pool2d_grad")(x, out, dy, k, **attrs)
    want = _max_pool_grad_by_hand(x.double().numpy(), dy.double().numpy(), k, s, pads)
    np.testing.assert_array_equal(got.double().numpy(), want)


def test_pool2d_grad_avg_spreads_dy_over_the_window_cells():
    # exclusive average, window 2x2, stride 1x2, padding 1 row: the counts differ per window
    x = _randn(1, 1, 3, 4)
    k, s, pads = [2, 2], [1, 2], [1, 0]
    attrs = _pool_attrs("avg", s, pads)
    out = kernel("pd_op.pool2d")(x, k, **attrs)
    dy = _randn(*out.shape, seed=1)
    got = kernel("pd_op.pool2d_grad")(x, out, dy, k, **attrs)
    want = np.zeros(x.shape)
    for i in range(out.shape[2]):
        for j in range(out.shape[3]):
            cells = [(r, q) for r in range(i - 1, i + 1) for q in range(2 * j, 2 * j + 2)
                     if 0 <= r < 3 and 0 <= q < 4]
            for r, q in cells:
                want[0, 0, r, q] += dy[0, 0, i, j].item() / len(cells)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-6, atol=1e-7)


def test_expand_as_grad_sums_over_the_broadcast_axes():
    x, dy = _randn(1, 3), _randn(2, 4, 3, seed=1)
    got = kernel("pd_op.expand_as_grad")(x, dy, target_shape=[2, 4, 3])
    torch.testing.assert_close(got, dy.sum([0, 1]).reshape(1, 3))


def test_integer_operands_get_no_gradient():
    x, repeats = _randn(3, 2), torch.tensor([1, 0, 2])
    dy = _randn(3, 2, seed=1)
    got = kernel("pd_op.repeat_interleave_with_tensor_index_grad")(x, repeats, dy, axis=0)
    torch.testing.assert_close(got, torch.stack([dy[0], torch.zeros(2), dy[1] + dy[2]]))


def test_instance_norm_grad_computes_bias_grad_without_the_bias_operand():
    # PIR version 4 inserted instance_norm_grad's bias as a null value in upgraded programs;
    # Paddle still returns bias_grad (the sum of y_grad per channel)
    x, scale, dy = _randn(2, 3, 4, 4), _randn(3, seed=1), _randn(2, 3, 4, 4, seed=2)
    y, mean, inv_std = kernel("pd_op.instance_norm")(x, scale, None, epsilon=1e-5)
    dx, dscale, dbias = kernel("pd_op.instance_norm_grad")(x, scale, None, mean, inv_std, dy,
                                                           epsilon=1e-5)
    with torch.enable_grad():
        xr, sr = x.clone().requires_grad_(), scale.clone().requires_grad_()
        ref = F.instance_norm(xr, weight=sr, bias=torch.zeros(3), eps=1e-5)
        want_dx, want_ds = torch.autograd.grad(ref, (xr, sr), dy)
    torch.testing.assert_close(dx, want_dx, rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(dscale, want_ds, rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(dbias, dy.sum([0, 2, 3]))
    torch.testing.assert_close(inv_std, 1 / torch.sqrt(x.reshape(6, -1).var(1, unbiased=False) + 1e-5))


def test_group_norm_grad_with_a_scale_is_the_derivative():
    x, scale, bias = _randn(2, 4, 3, 3), _randn(4, seed=1), _randn(4, seed=2)
    dy = _randn(2, 4, 3, 3, seed=3)
    y, mean, var = kernel("pd_op.group_norm")(x, scale, bias, epsilon=1e-5, groups=2)
    got = kernel("pd_op.group_norm_grad")(x, scale, bias, y, mean, var, dy, epsilon=1e-5,
                                          groups=2, data_format="NCHW")
    with torch.enable_grad():
        leaves = [t.clone().requires_grad_() for t in (x, scale, bias)]
        want = torch.autograd.grad(F.group_norm(leaves[0], 2, leaves[1], leaves[2], 1e-5),
                                   leaves, dy)
    for g, w in zip(got, want):
        torch.testing.assert_close(g, w, rtol=1e-4, atol=1e-5)


def test_group_norm_grad_without_a_scale_keeps_paddles_missing_mean_term():
    # Paddle's CPU kernel subtracts mean(dy) only when a scale is given
    x, dy = _randn(2, 4, 3, 3), _randn(2, 4, 3, 3, seed=1)
    y, mean, var = kernel("pd_op.group_norm")(x, None, None, epsilon=1e-5, groups=2)
    dx, dscale, dbias = kernel("pd_op.group_norm_grad")(x, None, None, y, mean, var, dy,
                                                        epsilon=1e-5, groups=2,
                                                        data_format="NCHW")
    with torch.enable_grad():
        xr = x.clone().requires_grad_()
        true, = torch.autograd.grad(F.group_norm(xr, 2, eps=1e-5), xr, dy)
    missing = dy.reshape(2, 2, -1).mean(2, keepdim=True) / torch.sqrt(var.reshape(2, 2, 1) + 1e-5)
    torch.testing.assert_close(dx, (true.reshape(2, 2, -1) + missing).reshape(x.shape),
                               rtol=1e-4, atol=1e-5)
    assert dscale is None and dbias is None


# -- kernels of their own ----------------------------------------------------------------------

def test_kthvalue_grad_goes_to_the_index_kthvalue_gives():
    x = torch.tensor([[3.0, 1.0, 2.0, 1.0], [0.0, 5.0, 4.0, 5.0]])
    values, indices = kernel("pd_op.kthvalue")(x, k=2, axis=1, keepdim=False)
    dy = torch.tensor([10.0, 20.0])
    got = kernel("pd_op.kthvalue_grad")(x, indices, dy, k=2, axis=1, keepdim=False)
    # k=2 of [3, 1, 2, 1] is 1, held twice: which one Paddle's nth_element returns is the
    # forward kernel's business (test_op_fixtures pins it); the gradient goes where it says.
    # k=2 of [0, 5, 4, 5] is 4, at position 2.
    assert values.tolist() == [1.0, 4.0] and indices[1].item() == 2
    want = torch.zeros_like(x).scatter_(1, indices.unsqueeze(1), dy.unsqueeze(1))
    assert torch.equal(got, want)


def test_topk_grad_goes_to_the_indices_operand_not_to_a_recomputed_choice():
    # tied maxima: the gradient follows the index the program's topk gave (here the second 3)
    x = torch.tensor([[1.0, 3.0, 3.0, 2.0]])
    got = kernel("pd_op.topk_grad")(x, torch.tensor([[2, 3]]), torch.tensor([[5.0, 7.0]]), 2,
                                    axis=-1, largest=True, sorted=True)
    assert torch.equal(got, torch.tensor([[0.0, 0.0, 5.0, 7.0]]))


def test_nanmedian_and_its_grad_place_the_gradient_on_the_middle_values():
    nan = math.nan
    x = torch.tensor([[4.0, nan, 1.0, 3.0, 2.0],    # 4 valid: median (2+3)/2, half to each
                      [5.0, 1.0, 3.0, nan, nan],    # 3 valid: median 3
                      [nan, nan, nan, nan, nan]])   # none: NaN, no gradient
    out, medians = kernel("pd_op.nanmedian")(x, axis=[1], keepdim=False, mode="avg")
    torch.testing.assert_close(out, torch.tensor([2.5, 3.0, nan]), equal_nan=True)
    assert medians.tolist() == [[4, 3], [2, 2], [-1, -1]]
    dy = torch.tensor([2.0, 6.0, 7.0])
    got = kernel("pd_op.nanmedian_grad")(x, out, medians, dy, axis=[1], keepdim=False,
                                         mode="avg")
    assert torch.equal(got, torch.tensor([[0.0, 0.0, 0.0, 1.0, 1.0],
                                          [0.0, 0.0, 6.0, 0.0, 0.0],
                                          [0.0, 0.0, 0.0, 0.0, 0.0]]))
    low, low_index = kernel("pd_op.nanmedian")(x[:1], axis=[1], keepdim=True, mode="min")
    assert low.tolist() == [[2.0]] and low_index.tolist() == [[4]]


# -- double grad: the VJP of the grad kernel ------------------------------------------------------

def test_leaky_relu_double_grad_is_ddx_times_the_slope_pattern():
    x = torch.tensor([-1.0, 0.0, 2.0])
    ddx = torch.tensor([3.0, 4.0, 5.0])
    got = kernel("pd_op.leaky_relu_double_grad")(x, ddx, negative_slope=0.1)
    torch.testing.assert_close(got, torch.tensor([0.3, 0.4, 5.0]))


def test_softplus_double_grad_is_the_second_derivative_and_the_sigmoid():
    beta, threshold = 1.7, 15.0
    x = torch.tensor([-3.0, -0.2, 0.0, 1.0, 10.0], dtype=torch.float64)
    dout = torch.tensor([0.5, 1.0, -2.0, 3.0, 1.5], dtype=torch.float64)
    ddx = torch.tensor([1.0, -1.0, 2.0, 0.5, 4.0], dtype=torch.float64)
    x_grad, dout_grad = kernel("pd_op.softplus_double_grad")(x, dout, ddx, beta=beta,
                                                             threshold=threshold)
    sig = torch.sigmoid(beta * x)
    linear = x * beta > threshold
    torch.testing.assert_close(x_grad, torch.where(linear, 0.0, dout * ddx * beta * sig * (1 - sig)))
    torch.testing.assert_close(dout_grad, torch.where(linear, ddx, ddx * sig))


def test_pool2d_double_grad_of_an_average_is_the_average_of_ddx():
    attrs = _pool_attrs("avg", [1, 2], [1, 0])
    x, ddx = _randn(1, 2, 6, 6), _randn(1, 2, 6, 6, seed=1)
    got = kernel("pd_op.pool2d_double_grad")(x, ddx, [2, 2], **attrs)
    torch.testing.assert_close(got, kernel("pd_op.pool2d")(ddx, [2, 2], **attrs))


def test_pad3d_double_grad_runs_pad3d_as_paddle_does():
    # Paddle's kernel for it is pad3d itself: the padding holds pad_value, not the zeros the
    # derivative of a constant pad would give (3.0.0's outputs in the migration fixtures)
    ddx = _randn(1, 1, 1, 2, 2)
    got = kernel("pd_op.pad3d_double_grad")(ddx, [1, 0, 0, 0, 0, 0], mode="constant",
                                            pad_value=0.3, data_format="NCDHW")
    want = torch.cat([torch.full((1, 1, 1, 2, 1), 0.3), ddx], dim=4)
    torch.testing.assert_close(got, want)


def test_a_grad_kernel_is_differentiable_when_its_inputs_require_grad():
    # what the double grad builds on: d/d(dy) of leaky_relu_grad(x, dy) . v is the slope pattern
    x = torch.tensor([-1.0, 2.0])
    v = torch.tensor([1.0, 1.0])
    with torch.enable_grad():
        dy = torch.ones(2, requires_grad=True)
        dx = kernel("pd_op.leaky_relu_grad")(x, dy, negative_slope=0.5)
        got, = torch.autograd.grad(dx, dy, v)
    torch.testing.assert_close(got, torch.tensor([0.5, 1.0]))


# -- what the rule registers -----------------------------------------------------------------

def test_inplace_grad_ops_alias_their_grad_kernel():
    for name in ("pd_op.leaky_relu_grad", "pd_op.softplus_grad"):
        assert kernel(name + "_") is kernel(name)
    assert "pd_op.leaky_relu_grad_" in grad_mod.GRAD_INPLACE_ALIASES


@pytest.mark.parametrize("name", [
    "pd_op.relu_grad",      # takes relu's `out`, not the `x` relu's kernel needs
    "pd_op.flatten_grad",   # lacks flatten's start/stop axes: its x is Paddle's xshape
])
def test_grad_ops_the_specs_do_not_map_are_not_registered(name):
    # the generic rule finds no plan; their kernels are written out (grad_common.py)
    base = name[:-len("_grad")]
    assert grad_mod.plan_for(get_spec(name, V), get_spec(base, V)) is None
    assert name not in grad_mod.GRAD_KERNELS
    assert kernel(name).__module__ == "pirc.lower.kernels.grad_common"
    assert REGISTRY.find(base, V) is not None  # the forward op is lowered


def test_check_lowerable_names_a_grad_op_without_a_lowering():
    # sequence_softmax_grad: no kernel of its own, and its forward is a LoD kernel, which gets
    # no derived backward (the derivation would pass no LoD); the error lists it once.
    missing = """{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[2,5],stop_gradient:[false]} : () -> tensor<2x5xf32>
    (%1) = "pd_op.data" () {dtype:float32,name:"dy0",place:Place(undefined:0),shape:[2,5],stop_gradient:[true]} : () -> tensor<2x5xf32>
    (%2) = "pd_op.sequence_softmax" (%0) {stop_gradient:[false]} : (tensor<2x5xf32>) -> tensor<2x5xf32>
    (%3) = "pd_op.sequence_softmax_grad" (%0, %2, %1) {stop_gradient:[false]} : (tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>) -> tensor<2x5xf32>
}"""
    program = pirc.parse(missing, from_version=V)
    with pytest.raises(LoweringError, match=r"1 op kind of") as e:
        check_lowerable(program)
    assert "pd_op.sequence_softmax_grad has no lowering" in str(e.value)
    assert "pd_op.sequence_softmax has no lowering" not in str(e.value)
    text = """{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[2,5],stop_gradient:[false]} : () -> tensor<2x5xf32>
    (%1) = "pd_op.data" () {dtype:float32,name:"dy0",place:Place(undefined:0),shape:[2,5],stop_gradient:[true]} : () -> tensor<2x5xf32>
    (%2) = "pd_op.atan" (%0) {stop_gradient:[false]} : (tensor<2x5xf32>) -> tensor<2x5xf32>
    (%3) = "pd_op.atan_grad" (%0, %1) {stop_gradient:[false]} : (tensor<2x5xf32>, tensor<2x5xf32>) -> tensor<2x5xf32>
}"""
    # a program of that form with leaky_relu lowers and runs its grad op
    ok = text.replace('"pd_op.atan"', '"pd_op.leaky_relu"').replace(
        '"pd_op.atan_grad" (%0, %1) {', '"pd_op.leaky_relu_grad" (%0, %1) {negative_slope:0.5,').replace(
        '"pd_op.leaky_relu" (%0) {', '"pd_op.leaky_relu" (%0) {negative_slope:0.5,')
    program = pirc.parse(ok, from_version=V)
    check_lowerable(program)
    x = np.array([[-1, 2, -3, 4, -5]] * 2, dtype=np.float32)
    got = list(pirc.run(program, {"x": x, "dy0": np.ones_like(x)}).values())
    np.testing.assert_array_equal(got[-1], np.where(x > 0, 1.0, 0.5).astype(np.float32))


def test_plan_rejects_an_operand_of_unknown_meaning():
    from pirc.ir.specs import OperandSpec, OpSpec, ResultSpec
    fwd = OpSpec("pd_op.f", "pd_op", 1, operands=(OperandSpec("x", "tensor"),),
                 results=(ResultSpec("out", "tensor"),))
    good = OpSpec("pd_op.f_grad", "pd_op", 1,
                  operands=(OperandSpec("x", "tensor"), OperandSpec("out_grad", "tensor")),
                  results=(ResultSpec("x_grad", "tensor"),))
    odd = OpSpec("pd_op.f_grad", "pd_op", 1,
                 operands=(OperandSpec("x", "tensor"), OperandSpec("mask", "tensor"),
                           OperandSpec("out_grad", "tensor")),
                 results=(ResultSpec("x_grad", "tensor"),))
    plan = grad_mod.plan_for(good, fwd)
    assert plan is not None and plan.wrt == ((0, 0),) and plan.cotangents == ((0, 1),)
    assert grad_mod.plan_for(odd, fwd) is None
