"""The backward kernels of grad_common.py, grad_nn.py and losses.py against gradients
written out by hand or taken from torch.autograd of an independent torch formulation.

These are the ops the generic rule (grad.py) cannot map: they read the forward's result
(relu_grad, softmax_grad, ...), carry an attribute the forward lacks (add_grad's axis,
mean_grad's reduce_all), or read saved state (batch_norm_grad, dropout_grad).  Where the
kernel follows phi's order of operations to the bit (relu's -0.0, scale's +0.0) the test pins
that.  Kernels are called under torch.no_grad(), as pirc-run calls the lowered module.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import pirc.lower.kernels  # noqa: F401 - registers every kernel
from pirc.lower.kernels import grad as grad_mod
from pirc.runtime.registry import REGISTRY
from grad_testing import kernel, no_grad, seeded_randn  # noqa: F401 - no_grad is an autouse fixture



def _randn(*shape, seed=0, dtype=torch.float64):
    return seeded_randn(shape, seed, dtype)


def _vjp(fn, inputs, cotangent):
    """torch.autograd's gradients of fn(*inputs) against `cotangent`."""
    with torch.enable_grad():
        leaves = [t.clone().requires_grad_() for t in inputs]
        return torch.autograd.grad(fn(*leaves), leaves, cotangent)


# -- activations from the forward's result ---------------------------------------------------------

@pytest.mark.parametrize("op,forward,positive", [
    ("sqrt", torch.sqrt, True), ("rsqrt", torch.rsqrt, True), ("log", torch.log, True)])
def test_unary_grads_equal_autograd_of_the_forward(op, forward, positive):
    x = _randn(3, 4, seed=11).abs() + 0.1 if positive else _randn(3, 4, seed=11)
    dy = _randn(3, 4, seed=12)
    assert torch.equal(kernel(f"pd_op.{op}")(x), forward(x))
    # sqrt/rsqrt grads read the forward's result, log_grad its input (the specs say which)
    first = forward(x) if op != "log" else x
    (want,) = _vjp(forward, [x], dy)
    torch.testing.assert_close(kernel(f"pd_op.{op}_grad")(first, dy), want, rtol=1e-12, atol=1e-12)


def test_log_softmax_and_its_grad_equal_torch():
    x, dy = _randn(2, 5, seed=13), _randn(2, 5, seed=14)
    out = kernel("pd_op.log_softmax")(x, axis=1)
    assert torch.equal(out, torch.log_softmax(x, 1))
    (want,) = _vjp(lambda t: torch.log_softmax(t, 1), [x], dy)
    torch.testing.assert_close(kernel("pd_op.log_softmax_grad")(out, dy, axis=1), want)


@pytest.mark.parametrize("op,first_order", [
    ("tanh", lambda out, dout: dout * (1 - out * out)),
    ("sigmoid", lambda out, dout: dout * out * (1 - out))])
def test_tanh_and_sigmoid_double_grads_differentiate_the_first_order_grad(op, first_order):
    x, dout, ddx = _randn(3, 2, seed=15), _randn(3, 2, seed=16), _randn(3, 2, seed=17)
    out = torch.tanh(x) if op == "tanh" else torch.sigmoid(x)
    want_out_grad, want_grad_out_grad = _vjp(first_order, [out, dout], ddx)
    out_grad, grad_out_grad = kernel(f"pd_op.{op}_double_grad")(out, dout, ddx)
    torch.testing.assert_close(out_grad, want_out_grad)
    torch.testing.assert_close(grad_out_grad, want_grad_out_grad)


def test_relu_grad_masks_by_out_and_keeps_the_sign_of_a_zeroed_negative_dy():
    out = torch.tensor([0.0, 2.0, 0.0, 3.0])
    dy = torch.tensor([-1.0, -2.0, 5.0, 4.0])
    got = kernel("pd_op.relu_grad")(out, dy)
    assert got.tolist() == [0.0, -2.0, 0.0, 4.0]
    # phi multiplies by the mask: -1 * 0 is -0.0 (torch.where would give +0.0)
    assert np.signbit(got.numpy()).tolist() == [True, True, False, False]


def test_relu_double_grad_is_ddx_where_out_is_positive():
    out = torch.tensor([0.0, 1.0, 2.0])
    ddx = torch.tensor([7.0, 8.0, 9.0])
    assert kernel("pd_op.relu_double_grad")(out, ddx).tolist() == [0.0, 8.0, 9.0]


@pytest.mark.parametrize("name,forward", [
    ("pd_op.tanh_grad", torch.tanh), ("pd_op.sigmoid_grad", torch.sigmoid),
    ("pd_op.exp_grad", torch.exp)])
def test_activation_grads_from_out_are_the_derivative(name, forward):
    x, dy = _randn(3, 4), _randn(3, 4, seed=1)
    got = kernel(name)(forward(x), dy)
    want, = _vjp(forward, [x], dy)
    torch.testing.assert_close(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("axis", [-1, 1, 0])
def test_softmax_grad_along_its_axis(axis):
    x, dy = _randn(2, 3, 4), _randn(2, 3, 4, seed=1)
    out = torch.softmax(x, axis)
    got = kernel("pd_op.softmax_grad")(out, dy, axis=axis)
    want, = _vjp(lambda t: torch.softmax(t, axis), [x], dy)
    torch.testing.assert_close(got, want, rtol=1e-12, atol=1e-12)


# -- element-wise binary ops with broadcasting ----------------------------------------------------

BROADCASTS = [
    # x shape, y shape, Paddle axis, y as torch broadcasts it
    ([2, 3, 4], [2, 3, 4], -1, [2, 3, 4]),
    ([2, 3, 4], [4], -1, [4]),
    ([2, 3, 4], [3, 1], -1, [3, 1]),
    ([2, 3, 4], [3], 1, [3, 1]),          # Paddle's axis: y aligned at dim 1
    ([2, 3, 4], [2, 3], 0, [2, 3, 1]),
    ([2, 3, 4], [3, 1], 1, [3, 1]),       # trailing 1s trimmed before aligning at axis
    ([1, 3, 1], [2, 1, 4], -1, [2, 1, 4]),  # both operands broadcast
]


@pytest.mark.parametrize("xs,ys,axis,yt", BROADCASTS)
@pytest.mark.parametrize("op,fn", [
    ("add", torch.add), ("subtract", torch.sub), ("multiply", torch.mul)])
def test_binary_grads_sum_back_to_each_operands_shape(xs, ys, axis, yt, op, fn):
    x, y = _randn(*xs), _randn(*ys, seed=1) + 3.0
    out_shape = torch.broadcast_shapes(tuple(xs), tuple(yt))
    dy = _randn(*out_shape, seed=2)
    dx, dyg = kernel(f"pd_op.{op}_grad")(x, y, dy, axis=axis)
    want_dx, want_dy = _vjp(lambda a, b: fn(a, b.reshape(yt)), [x, y], dy)
    assert list(dx.shape) == xs and list(dyg.shape) == ys
    torch.testing.assert_close(dx, want_dx, rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(dyg, want_dy, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("xs,ys,axis,yt", BROADCASTS)
def test_divide_grad_uses_the_forwards_result(xs, ys, axis, yt):
    x, y = _randn(*xs), _randn(*ys, seed=1).abs() + 0.5
    out = x / y.reshape(yt)
    dy = _randn(*out.shape, seed=2)
    dx, dyg = kernel("pd_op.divide_grad")(x, y, out, dy, axis=axis)
    want_dx, want_dy = _vjp(lambda a, b: a / b.reshape(yt), [x, y], dy)
    torch.testing.assert_close(dx, want_dx, rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(dyg, want_dy, rtol=1e-12, atol=1e-12)


def test_same_shape_add_grad_passes_dy_through_bit_for_bit():
    x, dy = _randn(2, 3, dtype=torch.float32), _randn(2, 3, seed=1, dtype=torch.float32)
    dx, dyg = kernel("pd_op.add_grad")(x, x, dy, axis=-1)
    assert torch.equal(dx, dy) and torch.equal(dyg, dy)


# -- reductions ------------------------------------------------------------------------------------

@pytest.mark.parametrize("axis,keepdim,reduce_all", [
    ([1], False, False), ([0, 2], True, False), ([-1], False, False), ([], False, False),
    ([1], False, True), ([0, 1, 2], True, False)])
def test_mean_and_sum_grads_spread_dy_over_the_reduced_dims(axis, keepdim, reduce_all):
    x = _randn(2, 3, 4)
    dims = list(range(3)) if reduce_all or not axis else axis
    dy = _randn(*torch.mean(x, dims, keepdim=keepdim).shape, seed=1)
    got = kernel("pd_op.mean_grad")(x, dy, axis, keepdim=keepdim, reduce_all=reduce_all)
    want, = _vjp(lambda t: torch.mean(t, dims, keepdim=keepdim), [x], dy)
    torch.testing.assert_close(got, want, rtol=1e-12, atol=1e-12)
    got = kernel("pd_op.sum_grad")(x, dy, axis, keepdim=keepdim, reduce_all=reduce_all)
    want, = _vjp(lambda t: torch.sum(t, dims, keepdim=keepdim), [x], dy)
    torch.testing.assert_close(got, want, rtol=0, atol=0)


def test_mean_grad_divides_by_the_count_as_phi_does():
    # dy / 3 and dy * (1/3) differ in the last bit for some dy; phi divides
    x = torch.zeros(3, dtype=torch.float32)
    dy = torch.tensor(0.1, dtype=torch.float32)
    got = kernel("pd_op.mean_grad")(x, dy, [], keepdim=False, reduce_all=True)
    assert torch.equal(got, (dy / 3).expand(3))


def test_sum_grad_goes_back_to_xs_dtype():
    x = torch.ones(2, 2, dtype=torch.float32)
    got = kernel("pd_op.sum_grad")(x, torch.tensor(2.0, dtype=torch.float64), [],
                                   keepdim=False, reduce_all=True)
    assert got.dtype == torch.float32 and got.tolist() == [[2.0, 2.0], [2.0, 2.0]]


def test_mean_all_grad():
    x, dy = _randn(2, 5), torch.tensor(3.0, dtype=torch.float64)
    want = torch.full((2, 5), 0.3, dtype=torch.float64)
    torch.testing.assert_close(kernel("pd_op.mean_all_grad")(x, dy), want)


# -- casts and layout -----------------------------------------------------------------------------

def test_cast_grad_casts_back_to_xs_dtype():
    x = torch.ones(3, dtype=torch.float32)
    got = kernel("pd_op.cast_grad")(x, torch.tensor([0.5, 1.5, 2.5], dtype=torch.float64))
    assert got.dtype == torch.float32 and got.tolist() == [0.5, 1.5, 2.5]


@pytest.mark.parametrize("perm", [[1, 0, 2], [2, 0, 1], [0, -1, 1]])
def test_transpose_grad_applies_the_inverse_permutation(perm):
    x = _randn(2, 3, 4)
    out = x.permute(perm)
    dy = _randn(*out.shape, seed=1)
    want, = _vjp(lambda t: t.permute(perm), [x], dy)
    assert torch.equal(kernel("pd_op.transpose_grad")(dy, perm=perm), want)


@pytest.mark.parametrize("factor", [2.5, torch.tensor([2.5])])
def test_scale_grad_is_dy_times_scale_plus_zero(factor):
    dy = torch.tensor([1.0, -0.0, -2.0])
    got = kernel("pd_op.scale_grad")(dy, factor)
    assert got.tolist() == [2.5, 0.0, -5.0]
    assert not np.signbit(got.numpy()[1])  # -0.0 * 2.5 + 0.0 is +0.0, as in Paddle


def test_reshape_and_flatten_grads_take_xs_shape_or_an_xshape():
    x, dy = _randn(2, 3, 4), _randn(2, 12, seed=1)
    for name in ("pd_op.reshape_grad", "pd_op.flatten_grad"):
        assert torch.equal(kernel(name)(x, dy), dy.reshape(2, 3, 4))
        xshape = torch.empty(0, 2, 3, 4)  # legacy [0] + x.shape, no data
        assert torch.equal(kernel(name)(xshape, dy), dy.reshape(2, 3, 4))


# -- dropout, embedding, batch norm ---------------------------------------------------------------

def test_dropout_grad_in_training_masks_and_upscales():
    mask = torch.tensor([1, 0, 1, 1], dtype=torch.uint8)
    dy = torch.tensor([1.0, 2.0, 3.0, -4.0])
    p = torch.tensor([0.3])
    up = kernel("pd_op.dropout_grad")(mask, dy, p, is_test=False, mode="upscale_in_train")
    keep = torch.tensor(1.0) - torch.tensor(0.3)  # 1.0f - p in float32
    assert torch.equal(up, dy * mask.float() / keep)
    down = kernel("pd_op.dropout_grad")(mask, dy, p, is_test=False, mode="downgrade_in_infer")
    assert down.tolist() == [1.0, 0.0, 3.0, -4.0]
    assert kernel("pd_op.dropout_grad")(mask, dy, 1.0, is_test=False,
                                        mode="upscale_in_train").tolist() == [0.0, 0.0, 0.0, -0.0]


def test_dropout_grad_under_is_test_ignores_the_mask():
    dy = torch.tensor([1.0, 2.0])
    assert torch.equal(kernel("pd_op.dropout_grad")(None, dy, 0.25, is_test=True,
                                                    mode="upscale_in_train"), dy)
    assert kernel("pd_op.dropout_grad")(None, dy, 0.25, is_test=True,
                                        mode="downgrade_in_infer").tolist() == [0.75, 1.5]


def test_dropout_grad_of_the_forwards_mask_is_the_forwards_derivative():
    x, dy = _randn(4, 8, dtype=torch.float32), _randn(4, 8, seed=1, dtype=torch.float32)
    out, mask = kernel("pd_op.dropout")(x, None, 0.4, is_test=False, mode="upscale_in_train")
    got = kernel("pd_op.dropout_grad")(mask, dy, 0.4, is_test=False, mode="upscale_in_train")
    torch.testing.assert_close(got * x, out * dy)  # linear in x with the same mask


def test_embedding_and_its_grad_skip_the_padding_row_and_add_repeated_ids():
    weight = _randn(5, 3)
    ids = torch.tensor([[1, 2, 1], [4, 0, 2]])
    out = kernel("pd_op.embedding")(ids, weight, padding_idx=2)
    assert torch.equal(out[0, 1], torch.zeros(3, dtype=torch.float64))
    # Paddle's forward reads the padding row as zeros (torch's padding_idx only stops its grad)
    torch.testing.assert_close(out, F.embedding(ids, weight) * (ids != 2).unsqueeze(-1))
    dy = _randn(2, 3, 3, seed=1)
    got = kernel("pd_op.embedding_grad")(ids, weight, dy, padding_idx=2)
    want, = _vjp(lambda w: F.embedding(ids, w, padding_idx=2), [weight], dy)
    torch.testing.assert_close(got, want, rtol=1e-12, atol=1e-12)
    assert torch.equal(got[2], torch.zeros(3, dtype=torch.float64))
    none = kernel("pd_op.embedding_grad")(ids, weight, dy, padding_idx=-1)
    torch.testing.assert_close(none[2], dy[0, 1] + dy[1, 2])


def _bn_attrs(**kw):
    attrs = dict(momentum=0.9, epsilon=1e-5, data_format="NCHW", is_test=False,
                 use_global_stats=False, trainable_statistics=False)
    attrs.update(kw)
    return attrs


@pytest.mark.parametrize("data_format", ["NCHW", "NHWC"])
def test_batch_norm_grad_in_training_is_the_derivative_through_the_batch_statistics(data_format):
    x, scale, bias = _randn(3, 4, 5, 2), _randn(4, seed=1), _randn(4, seed=2)
    mean, var = _randn(4, seed=3), _randn(4, seed=4).abs() + 0.5
    xk = x.permute(0, 2, 3, 1).contiguous() if data_format == "NHWC" else x
    y, mean_out, var_out, saved_mean, saved_inv_std, reserve = kernel("pd_op.batch_norm_")(
        xk, mean, var, scale, bias, **_bn_attrs(data_format=data_format))
    dy = _randn(*y.shape, seed=5)
    dx, dscale, dbias = kernel("pd_op.batch_norm_grad")(
        xk, scale, bias, mean_out, var_out, saved_mean, saved_inv_std, reserve, dy,
        **_bn_attrs(data_format=data_format))

    def reference(t, s, b):
        t = t.permute(0, 3, 1, 2) if data_format == "NHWC" else t
        out = F.batch_norm(t, None, None, s, b, training=True, eps=1e-5)
        return out.permute(0, 2, 3, 1) if data_format == "NHWC" else out
    want = _vjp(reference, [xk, scale, bias], dy)
    for g, w in zip((dx, dscale, dbias), want):
        torch.testing.assert_close(g, w, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("flags", [dict(use_global_stats=True), dict(is_test=True)])
def test_batch_norm_grad_on_running_statistics_is_scale_over_std_times_dy(flags):
    x, scale, bias = _randn(2, 3, 4, 4), _randn(3, seed=1), _randn(3, seed=2)
    mean, var = _randn(3, seed=3), _randn(3, seed=4).abs() + 0.5
    dy = _randn(2, 3, 4, 4, seed=5)
    # the saved statistics are not read in this mode: garbage must not matter
    junk = torch.full((3,), 1e3, dtype=torch.float64)
    dx, dscale, dbias = kernel("pd_op.batch_norm_grad")(
        x, scale, bias, mean, var, junk, junk, None, dy, **_bn_attrs(**flags))
    want = _vjp(lambda t, s, b: F.batch_norm(t, mean, var, s, b, training=False, eps=1e-5),
                [x, scale, bias], dy)
    for g, w in zip((dx, dscale, dbias), want):
        torch.testing.assert_close(g, w, rtol=1e-10, atol=1e-10)


def test_batch_norm_grad_without_scale_and_bias_gives_null_gradients_for_them():
    x, dy = _randn(4, 2), _randn(4, 2, seed=1)
    mean, inv_std = x.mean(0), 1 / torch.sqrt(x.var(0, unbiased=False) + 1e-5)
    dx, dscale, dbias = kernel("pd_op.batch_norm_grad")(
        x, None, None, None, None, mean, inv_std, None, dy, **_bn_attrs())
    want, = _vjp(lambda t: F.batch_norm(t, None, None, training=True, eps=1e-5), [x], dy)
    torch.testing.assert_close(dx, want, rtol=1e-10, atol=1e-10)
    assert dscale is None and dbias is None


# -- softmax cross-entropy ------------------------------------------------------------------------

def test_cross_entropy_with_softmax_hard_labels_with_an_ignored_sample():
    logits = _randn(4, 5)
    label = torch.tensor([[1], [4], [-100], [0]])
    attrs = dict(soft_label=False, use_softmax=True, numeric_stable_mode=True,
                 ignore_index=-100, axis=-1)
    prob, loss = kernel("pd_op.cross_entropy_with_softmax")(logits, label, **attrs)
    want_loss = F.cross_entropy(logits, label[:, 0], ignore_index=-100, reduction="none")
    torch.testing.assert_close(prob, torch.softmax(logits, -1))
    torch.testing.assert_close(loss[:, 0], want_loss)
    assert loss.shape == (4, 1)
    dloss = _randn(4, 1, seed=1)
    got = kernel("pd_op.cross_entropy_with_softmax_grad")(label, prob, dloss, **attrs)
    want, = _vjp(lambda t: F.cross_entropy(t, label[:, 0], ignore_index=-100,
                                           reduction="none"), [logits], dloss[:, 0])
    torch.testing.assert_close(got, want, rtol=1e-12, atol=1e-12)
    assert torch.equal(got[2], torch.zeros(5, dtype=torch.float64))


def test_cross_entropy_with_softmax_soft_labels_along_axis_1():
    logits = _randn(2, 3, 4)
    label = torch.softmax(_randn(2, 3, 4, seed=1), 1)
    attrs = dict(soft_label=True, use_softmax=True, numeric_stable_mode=True,
                 ignore_index=-100, axis=1)
    prob, loss = kernel("pd_op.cross_entropy_with_softmax")(logits, label, **attrs)
    torch.testing.assert_close(loss[:, 0], F.cross_entropy(logits, label, reduction="none"))
    dloss = _randn(2, 1, 4, seed=2)
    got = kernel("pd_op.cross_entropy_with_softmax_grad")(label, prob, dloss, **attrs)
    want, = _vjp(lambda t: F.cross_entropy(t, label, reduction="none"), [logits], dloss[:, 0])
    torch.testing.assert_close(got, want, rtol=1e-12, atol=1e-12)


def test_cross_entropy_without_softmax_differentiates_minus_log_p():
    prob = torch.softmax(_randn(3, 4), -1)
    label = torch.tensor([[2], [0], [3]])
    attrs = dict(soft_label=False, use_softmax=False, numeric_stable_mode=True,
                 ignore_index=-100, axis=-1)
    same, loss = kernel("pd_op.cross_entropy_with_softmax")(prob, label, **attrs)
    assert torch.equal(same, prob)
    torch.testing.assert_close(loss, -torch.log(prob.gather(1, label)))
    dloss = _randn(3, 1, seed=1)
    got = kernel("pd_op.cross_entropy_with_softmax_grad")(label, prob, dloss, **attrs)
    want, = _vjp(lambda p: -torch.log(p.gather(1, label)), [prob], dloss)
    torch.testing.assert_close(got, want, rtol=1e-12, atol=1e-12)


def test_mse_ops_subtract_square_and_their_grads():
    x, y = _randn(3, 4), _randn(4, seed=1)
    torch.testing.assert_close(kernel("pd_op.subtract")(x, y), x - y)
    assert torch.equal(kernel("pd_op.square")(x), x * x)
    dy = _randn(3, 4, seed=2)
    got = kernel("pd_op.square_grad")(x, dy)
    assert torch.equal(got, dy * 2 * x)  # phi's order: dout * 2 * x
    # the generic rule differentiates square_grad's kernel for square_double_grad:
    # x_grad = 2 * dout * ddx, grad_out_grad = 2 * x * ddx (phi SquareDoubleGradFunctor)
    ddx = _randn(3, 4, seed=3)
    x_grad, dout_grad = kernel("pd_op.square_double_grad")(x, dy, ddx)
    torch.testing.assert_close(x_grad, 2 * dy * ddx, rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(dout_grad, 2 * x * ddx, rtol=1e-12, atol=1e-12)


# -- registration ---------------------------------------------------------------------------------

NEW = ["relu_grad", "relu_double_grad", "tanh_grad", "sigmoid_grad", "exp_grad", "softmax_grad",
       "add_grad", "subtract_grad", "multiply_grad", "divide_grad", "mean_grad", "sum_grad",
       "mean_all_grad", "cast_grad", "transpose_grad", "scale_grad", "reshape_grad",
       "flatten_grad", "dropout_grad", "embedding_grad", "batch_norm_grad",
       "cross_entropy_with_softmax_grad", "square_grad"]


@pytest.mark.parametrize("name", NEW)
def test_each_new_kernel_covers_every_version_and_the_generic_rule_left_it_alone(name):
    op = "pd_op." + name
    assert op not in grad_mod.GRAD_KERNELS
    for v in (1, 2, 3, 4, 0):
        assert REGISTRY.resolve(op, v).fn is kernel(op)


def test_inplace_twins_alias_the_new_kernels():
    for name in ("relu_grad", "tanh_grad", "sigmoid_grad", "add_grad", "reshape_grad"):
        assert kernel(f"pd_op.{name}_") is kernel(f"pd_op.{name}")
