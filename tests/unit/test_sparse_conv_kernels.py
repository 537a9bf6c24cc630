"""The sparse COO convolution kernels (pirc/lower/kernels/sparse_conv.py) beyond what the
Paddle fixtures show: clear errors on bad input, the rulebook's order on an input that is not
sorted, and the per-output accumulation order."""

import pytest
import torch

from pirc.lower.kernels.sparse_conv import batch_norm_sp_, conv3d_sp, maxpool_sp
from pirc.lower.kernels.sparse_coo import SparseCoo, dense_to_coo_sp


def _coo(shape=(1, 3, 3, 3, 2), positions=((0, 0, 0, 0), (0, 1, 1, 1), (0, 2, 2, 1))):
    x = torch.zeros(shape)
    for i, p in enumerate(positions):
        x[p] = torch.tensor([i + 1.0, -(i + 1.0)])
    return dense_to_coo_sp(x, sparse_dim=4)


def _conv(x, kernel, subm=False, paddings=(0, 0, 0), strides=(1, 1, 1)):
    return conv3d_sp(x, kernel, paddings=list(paddings), dilations=[1, 1, 1],
                     strides=list(strides), groups=1, subm=subm, key="")


def test_conv_rejects_a_dense_input():
    with pytest.raises(TypeError, match="conv3d_sp takes a sparse COO tensor"):
        _conv(torch.zeros(1, 3, 3, 3, 2), torch.zeros(3, 3, 3, 2, 1))


def test_conv_rejects_wrong_channels_and_ranks():
    x = _coo()
    with pytest.raises(ValueError, match="3 input channels, the input 2"):
        _conv(x, torch.zeros(3, 3, 3, 3, 1))
    with pytest.raises(ValueError, match=r"kernel must be 5-D \(D, H, W, C, OC\)"):
        _conv(x, torch.zeros(3, 3, 2, 1))
    flat = dense_to_coo_sp(torch.ones(2, 3, 3, 2), sparse_dim=3)
    with pytest.raises(ValueError, match="5-D NDHWC COO tensor with sparse_dim 4"):
        _conv(flat, torch.zeros(3, 3, 3, 2, 1))
    with pytest.raises(ValueError, match="paddings must have 3 values"):
        _conv(x, torch.zeros(1, 1, 1, 2, 1), paddings=(0, 0))
    with pytest.raises(ValueError, match="does not fit the input"):
        _conv(x, torch.zeros(5, 1, 1, 2, 1))


def test_conv_rejects_a_kernel_of_another_dtype():
    with pytest.raises(TypeError, match="kernel dtype torch.float64"):
        _conv(_coo(), torch.zeros(1, 1, 1, 2, 1, dtype=torch.float64))


def test_subm_keeps_the_input_positions_and_resets_stride():
    x = _coo()
    out, rulebook, counter = _conv(x, torch.ones(3, 3, 3, 2, 1), subm=True, strides=(2, 2, 2))
    assert out.shape == (1, 3, 3, 3, 1)
    assert torch.equal(out.indices, x.indices)
    # the centre offset (13) pairs every entry with itself
    assert counter[13] == 3 and counter.dtype == torch.int32
    assert rulebook.shape == (3, int(counter.sum())) and rulebook.dtype == torch.int64


def test_rulebook_follows_the_stored_order_and_outputs_are_sorted():
    # entries stored out of row-major order: the rulebook lists them as stored, the output
    # entries are still the sorted distinct positions (Paddle's std::set)
    x = _coo()
    perm = torch.tensor([2, 0, 1])
    shuffled = SparseCoo(x.indices[:, perm], x.values[perm], x.shape)
    out, rulebook, _ = _conv(shuffled, torch.ones(1, 1, 1, 2, 1))
    assert rulebook[1].tolist() == [0, 1, 2]
    assert rulebook[2].tolist() == [2, 0, 1]
    assert torch.equal(out.indices, x.indices)


def test_scatter_adds_in_rulebook_order():
    # three contributions to one output, added in kernel-offset order from zero: float32
    # (1e8 + 1) - 1e8 is 0, not the 1 another order gives
    x = torch.zeros(1, 1, 1, 3, 1)
    x[0, 0, 0, :, 0] = torch.tensor([1e8, 1.0, -1e8])
    out, _, _ = _conv(dense_to_coo_sp(x, sparse_dim=4), torch.ones(1, 1, 3, 1, 1))
    assert out.values.tolist() == [[0.0]]


def test_maxpool_keeps_a_later_nan_and_drops_an_earlier_one():
    x = torch.zeros(1, 1, 1, 4, 1)
    x[0, 0, 0, :, 0] = torch.tensor([float("nan"), 2.0, 3.0, float("nan")])
    sx = dense_to_coo_sp(x, sparse_dim=4)
    out, _, _ = maxpool_sp(sx, kernel_sizes=[1, 1, 2], paddings=[0, 0, 0],
                           dilations=[1, 1, 1], strides=[1, 1, 2])
    assert out.values[0, 0].item() == 2.0  # y > NaN is false: the NaN is replaced
    assert torch.isnan(out.values[1, 0])   # 3 > NaN is false: the NaN stays


def test_maxpool_rejects_a_short_kernel():
    with pytest.raises(ValueError, match="kernel_sizes must have 3 values"):
        maxpool_sp(_coo(), kernel_sizes=[2, 2], paddings=[0, 0, 0], dilations=[1, 1, 1],
                   strides=[1, 1, 1])


def test_batch_norm_checks_the_channels():
    x = _coo()
    with pytest.raises(ValueError, match="2 channels, but mean has 3"):
        batch_norm_sp_(x, torch.zeros(3), torch.ones(3), torch.ones(3), torch.zeros(3))


def test_batch_norm_training_updates_the_running_statistics():
    x = _coo()
    out, mean_out, var_out, saved_mean, inv_std, _ = batch_norm_sp_(
        x, torch.zeros(2), torch.ones(2), torch.ones(2), torch.zeros(2), is_test=False,
        momentum=0.5, epsilon=0.0)
    assert saved_mean.tolist() == [2.0, -2.0]
    assert torch.allclose(mean_out, torch.tensor([1.0, -1.0]))
    assert torch.allclose(var_out, torch.tensor([0.5 + 1 / 3, 0.5 + 1 / 3]))
    assert torch.allclose(out.values.sum(0), torch.zeros(2), atol=1e-6)
    assert torch.equal(out.indices, x.indices)
