"""Sparse COO sum / softmax / pow / divide / add-dense kernels: what the Paddle fixtures do not
show (bad input, the packet / scalar-tail split of pow, the all-axes sum's odd layout)."""

import math

import pytest
import torch

import pirc.lower.kernels  # noqa: F401 - registers every kernel
from pirc.lower.kernels.sparse_coo import SparseCoo, coo_to_dense_sp, dense_to_coo_sp
from pirc.lower.kernels.sparse_coo_math import (add_coo_dense_sp, divide_coo_coo_sp,
                                               pow_coo_sp, softmax_coo_sp, sum_coo_sp)

INF = math.inf


def _coo(rows, sparse_dim=None):
    x = torch.tensor(rows, dtype=torch.float32)
    return dense_to_coo_sp(x, sparse_dim=sparse_dim or x.dim())


def test_sum_over_every_axis_is_one_entry_with_1d_indices():
    out = sum_coo_sp(_coo([[1, 0], [0, 2.5]]), [])
    assert out.indices.tolist() == [0] and out.values.dim() == 0 and out.shape == (1,)
    assert coo_to_dense_sp(out).tolist() == [3.5]
    kept = sum_coo_sp(_coo([[1, 0], [0, 2.5]]), [], keepdim=True)
    assert kept.indices.tolist() == [[0], [0]] and kept.shape == (1, 1)


def test_sum_reduces_the_first_listed_axis_only():
    # SumCooCPUKernel reads axis[0] and nothing else
    x = _coo([[1, 0, 2], [0, 3, 0]])
    assert sum_coo_sp(x, [1, 0]).values.tolist() == sum_coo_sp(x, [1]).values.tolist() == [3, 3]


def test_sum_dtype_casts_after_summing_in_the_values_type():
    x = SparseCoo(torch.tensor([[0, 0]]), torch.tensor([16777216.0, 1.0]), (2,))
    out = sum_coo_sp(x, [0], dtype=torch.float64)
    assert out.values.dtype == torch.float64 and out.values.tolist() == [16777216.0]


def test_sum_bad_axis():
    with pytest.raises(ValueError, match="axis 2 is out of range for a 2-D tensor"):
        sum_coo_sp(_coo([[1, 0]]), [2])


def test_softmax_leaves_a_row_without_entries_empty():
    out = softmax_coo_sp(_coo([[1, 0], [0, 0], [0, 2]]))
    assert out.indices.tolist() == [[0, 2], [0, 1]] and out.values.tolist() == [1.0, 1.0]
    assert coo_to_dense_sp(out)[1].tolist() == [0.0, 0.0]  # a dense softmax gives 0.5, 0.5


def test_softmax_nan_never_wins_the_max():
    out = softmax_coo_sp(_coo([[math.nan, 1.0, 2.0]]))
    assert all(math.isnan(v) for v in out.values.tolist())


def test_pow_packet_lanes_follow_eigen_and_the_tail_std_pow():
    # 9 entries: the first 8 fill one AVX packet (Eigen's generic_pow), the 9th is std::pow
    x = torch.tensor([-INF, -1e-30, -2.0, 1, 1, 1, 1, 1, -INF])
    out = pow_coo_sp(SparseCoo(torch.arange(9).reshape(1, 9), x, (9,)), factor=3.0).values
    assert out[0].item() == INF and out[8].item() == -INF
    assert out[1].item() == 0.0 and math.copysign(1, out[1].item()) == 1.0  # 0 - (+0)
    assert out[2].item() == -8.0


def test_pow_packet_rounding_is_eigens_not_the_correctly_rounded_power():
    # the 3.3.1 wheel: 0.10490011^2 = 0.011004033498466015 in a packet, where the correctly
    # rounded square (and std::pow in the tail) is 0.01100403442978859
    x = torch.full((9,), 0.10490011423826218)
    out = pow_coo_sp(SparseCoo(torch.arange(9).reshape(1, 9), x, (9,)), factor=2.0).values
    assert out[0].item() == 0.011004033498466015 and out[8].item() == 0.01100403442978859


def test_divide_stores_every_position():
    x, y = _coo([[2, 0], [0, 0]]), _coo([[4, 0], [0, -1]])
    out = divide_coo_coo_sp(x, y)
    assert out.indices.tolist() == [[0, 0, 1, 1], [0, 1, 0, 1]]
    v = out.values.tolist()
    assert v[0] == 0.5 and math.isnan(v[1]) and math.isnan(v[2])
    assert v[3] == 0.0 and math.copysign(1, v[3]) == -1.0  # 0 / -1


def test_divide_shapes_must_agree():
    with pytest.raises(ValueError, match=r"shapes differ, \[1, 2\] and \[2, 1\]"):
        divide_coo_coo_sp(_coo([[1, 2]]), _coo([[1], [2]]))


def test_divide_integers_by_an_absent_entry():
    x = SparseCoo(torch.tensor([[0]]), torch.tensor([3]), (2,))
    with pytest.raises(ValueError, match="integer division by zero"):
        divide_coo_coo_sp(x, x)


def test_add_dense_takes_only_a_bias_over_the_last_dim():
    x = _coo([[[1, 0], [0, 2]]], sparse_dim=2)
    out = add_coo_dense_sp(x, torch.tensor([10.0, 20.0]))
    assert out.values.tolist() == [[11.0, 20.0], [10.0, 22.0]]
    with pytest.raises(ValueError, match=r"only a 1-D dense y of x's last dim \(2\), got shape"):
        add_coo_dense_sp(x, torch.ones(1, 2))


def test_dense_operand_is_refused():
    with pytest.raises(TypeError, match="softmax_coo_sp takes a sparse COO tensor, got Tensor"):
        softmax_coo_sp(torch.ones(2, 2))


def test_integer_divide_program_fails_where_paddle_fails():
    # the saved 3.3.1 program Paddle could not run (gen_log: Integer division by zero)
    import os

    import numpy as np

    import pirc
    from pirc.lower.failures import KernelFailure

    root = os.path.join(os.path.dirname(__file__), "..", "fixtures", "ops", "3.3.1")
    stem = os.path.join(root, "divide_coo_coo_sp__int64_absent.3.3.1")
    io = np.load(stem + ".io.npz")
    with pytest.raises(KernelFailure, match="divide_coo_coo_sp: integer division by zero"):
        pirc.run(pirc.load(stem + ".json"), {k[4:]: io[k] for k in io.files if k.startswith("in__")})
