"""Paddle's rules at NaN and infinities in max pooling, logsumexp and gelu, on inputs the
op fixtures do not hold.  Every expected value was printed by Paddle 3.3.1 and 3.0.0
(dygraph, CPU), which agree on all of them."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from pirc.lower.kernels import activation, pool, reduce

INF, NAN = math.inf, math.nan
FLT_MAX = float(np.finfo(np.float32).max)


def same(got, want):
    want = torch.tensor(want, dtype=got.dtype)
    return got.shape == want.shape and torch.equal(torch.nan_to_num(got, 7.0),
                                                   torch.nan_to_num(want, 7.0))


# one row, pooled whole: phi MaxPool's `y = y > x ? y : x` from -FLT_MAX, cell by cell
MAX_ROWS = [
    ([NAN, 1], 1), ([1, NAN], NAN), ([NAN], NAN), ([-INF, -INF], -FLT_MAX),
    ([NAN, -INF], -INF), ([-INF, NAN, -INF], -INF), ([NAN, 2, NAN, 1], 1), ([3, NAN, 1], 1),
]


@pytest.mark.parametrize("window_path", [False, True])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("row,want", MAX_ROWS)
def test_max_pool_folds_like_paddle(monkeypatch, window_path, dtype, row, want):
    if window_path:  # the unfolded windows instead of torch's pool and the refold
        monkeypatch.setattr(pool, "_torch_pool", lambda *a, **k: None)
    x = torch.tensor(row, dtype=dtype).reshape(1, 1, 1, -1)
    got = pool.pool2d(x, [1, len(row)])
    assert same(got, [[[[want]]]])
    assert same(pool.pool2d(x, [1, 1], global_pooling=True), [[[[want]]]])


def test_max_pool_floor_is_flt_max_in_float64_too():
    x = torch.full((1, 1, 1, 2), -1e300, dtype=torch.float64)
    assert pool.pool2d(x, [1, 2]).item() == -FLT_MAX


def test_max_pool_skips_padding_and_keeps_row_major_order():
    x = torch.tensor([[NAN, -INF, 5.0]]).reshape(1, 1, 1, 3)
    # windows [pad, NaN, -inf], [NaN, -inf, 5], [-inf, 5, pad]
    assert same(pool.pool2d(x, [3, 3], strides=[1, 1], paddings=[1, 1]), [[[[-INF, 5, 5]]]])
    assert same(pool.pool2d(torch.tensor([[NAN, 1], [2, 3]]).reshape(1, 1, 2, 2), [2, 2]),
                [[[[3]]]])
    assert same(pool.pool2d(torch.tensor([[1, 2], [NAN, 0]]).reshape(1, 1, 2, 2), [2, 2]),
                [[[[0]]]])
    nhwc = torch.tensor([NAN, 1, 2, NAN]).reshape(1, 1, 2, 2)
    assert same(pool.pool2d(nhwc, [1, 2], data_format="NHWC"), [[[[2, NAN]]]])


def test_adaptive_max_pool2d_op_is_a_plain_max_pool_of_the_output_size():
    # PoolRawKernel hands the max functor adaptive=false: windows of kernel_size (= the
    # output size) from out * stride, no padding, cut at the input's end, -FLT_MAX if empty
    x = torch.arange(20, dtype=torch.float32).reshape(1, 1, 4, 5)
    got = pool.pool2d(x, [1, 1], adaptive=True)
    assert same(got, [[[[0]]]])  # the first cell only, not the whole map
    got = pool.pool2d(x, [2, 2], strides=[2, 1], paddings=[1, 1], global_pooling=True,
                      adaptive=True)
    assert got.shape == (1, 1, 4, 5)
    assert same(got[0, 0, :, 4], [19, 19, -FLT_MAX, -FLT_MAX])


def test_max_pool_refold_traces():
    from torch.fx.experimental.proxy_tensor import make_fx

    def f(x):
        return pool.pool2d(x, [3, 3], strides=[2, 2], paddings=[1, 1])

    x = torch.randn(2, 3, 7, 6, generator=torch.Generator().manual_seed(0))
    x[0, 0, 1, 1] = NAN
    x[1, 2, 3:6, 3:6] = -INF
    traced = make_fx(f)(x)
    assert "nonzero" in traced.code  # the refold is in the graph, not decided at trace time
    assert torch.equal(torch.nan_to_num(traced(x), 7.0), torch.nan_to_num(f(x), 7.0))


def test_logsumexp_of_an_infinite_max_is_nan():
    # phi LogsumexpFunctor: max + log(sum(exp(x - max))), with inf - inf = NaN
    x = torch.tensor([[INF, 1], [-INF, -INF], [-INF, 1], [INF, INF], [-0.0, -0.0]])
    got = reduce.logsumexp(x, axis=[1])
    assert same(got, [NAN, NAN, 1.0, NAN, math.log(2.0)])
    for value, want in ((INF, NAN), (-INF, NAN), (-0.0, 0.0), (2.0, 2.0)):
        got = reduce.logsumexp(torch.tensor(value))
        assert got.shape == () and same(got, want)
        assert math.copysign(1, got.item()) == 1 or math.isnan(got.item())


def test_gelu_overflows_in_x_times_two():
    # the MKLML branch: x * (1 + erf(x / sqrt 2)) * 0.5
    f32 = torch.tensor([INF, -INF, FLT_MAX, 1.7e38, 1.71e38], dtype=torch.float32)
    got = activation.gelu(f32)
    assert torch.isinf(got[[0, 2, 4]]).all() and torch.isnan(got[1])
    assert got[3].item() == torch.tensor(1.7e38, dtype=torch.float32).item()
    f64 = torch.tensor([1.7976931348623157e308, 8.99e307, 8.98e307], dtype=torch.float64)
    got = activation.gelu(f64)
    assert torch.isinf(got[:2]).all() and got[2].item() == 8.98e307


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("y", [0.0, 1.0, 2.0, 3.0, -1.0, -2.0, -3.0, 0.5, -0.5, 2.5, 31.0, -7.0,
                               1e10, math.inf, -math.inf, math.nan])
def test_dense_pow_special_values_are_eigen_generic_pows(dtype, y):
    # pd_op.pow keeps C's pow for ordinary values (1 ulp, recorded) but must give Eigen's
    # generic_pow's special values on full packets: the emulation pow_coo_sp runs is the judge
    from pirc.lower.kernels.eigen_generic_pow import generic_pow
    from pirc.lower.kernels.eigen_packets import eigen_packet_lanes
    from pirc.runtime.registry import REGISTRY

    specials = [math.nan, math.inf, -math.inf, 0.0, -0.0, 1.0, -1.0, 1e-30, -1e-30, 1e30, -1e30]
    x = torch.tensor(specials * 2, dtype=dtype)  # 22: packets and a scalar tail
    got = REGISTRY.resolve("pd_op.pow", 4).fn(x, y=y)
    want = torch.where(eigen_packet_lanes(x), generic_pow(x, y), got)
    same = (got == want) & (torch.signbit(got) == torch.signbit(want)) | (got.isnan() & want.isnan())
    eps = torch.finfo(dtype).eps
    ordinary = torch.isfinite(want) & (want != 0) & ((got - want).abs() <= 2 * eps * want.abs())
    same = same | ordinary  # the recorded 1 ulp of an ordinary power
    assert bool(same.all()), [(x[i].item(), got[i].item(), want[i].item())
                              for i in range(x.numel()) if not same[i]]
