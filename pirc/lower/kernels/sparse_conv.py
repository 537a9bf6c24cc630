"""Sparse COO convolution family: conv3d_sp (subm or not), maxpool_sp, batch_norm_sp_.

The input is a 5-D NDHWC COO tensor with sparse_dim 4 (indices [4, nnz] over n, d, h, w;
values [nnz, C]).  Written from Paddle's CPU kernels:

- paddle/phi/kernels/sparse/cpu/conv.h, ProductRuleBook / UpdateRulebookAndOutIndex: the
  rulebook is built kernel offset by kernel offset (kd, kh, kw row-major), and for each offset
  entry by entry in the stored order; an entry contributes where every axis passes
  funcs::sparse::Check (lower = x - dilation*k + pad >= 0, divisible by the stride, and
  x + (K - k - 1)*dilation - pad < X); with subm, only where the output position is a stored
  input position.  The output entries are the distinct output positions in increasing
  row-major order (a std::set), and the rulebook's third row is then rewritten from the
  flattened position to the output entry's number.  The rulebook [3, n] has the indices'
  dtype, the counter (contributions per kernel offset) is int32.
- conv_kernel.cc, Conv3dCooCPUKernel: gather the inputs of each offset, one GEMM per offset
  ([count, C] @ kernel[offset], kernel (D, H, W, C, OC)), then Scatter: a zeroed output
  to which the products are added in rulebook order.  subm resets paddings to kernel / 2 and
  strides to 1 (ResetSubmKernelSizeAndStrides); `groups` is unused by the CPU kernel (only
  1 is supported; the Python API asserts it) and ignored here too.
- pool_kernel.cc, MaxPoolCooCPUKernel: the same rulebook (never subm); an output entry takes
  its first contribution's values, then `y = y > x ? y : x` (funcs::MaxPool) in rulebook
  order, so a NaN survives only when it comes last and a tie keeps the later zero's sign.
- batch_norm_kernel.cc (sparse): the dense CPU BatchNormKernel (cpu/batch_norm_kernel.cc)
  on the values [nnz, C], written out here rather than calling pirc's dense batch_norm_:
  Paddle's training statistics are sequential sums, its inverse std a correctly rounded
  root (see _ieee_sqrt), neither of which the dense kernel reproduces.

Rulebook order is kept exactly: the per-output sums (and max) run in "rounds", round r
adding every output's r-th contribution, so each output sees its contributions in Paddle's
order while one round is one tensor op.

`key` (a rulebook cached on the tensor under that name) is not modelled: Paddle reuses the
cached subm rulebook, pirc builds it again, which gives the same result whenever the key
names subm convolutions of one kernel size over the same positions (how models use it).
"""

from __future__ import annotations

import math

import torch

from ...runtime.registry import REGISTRY
from .sparse_coo import SparseCoo, _coo_of


def _check_input(x: SparseCoo, what: str) -> None:
    if len(x.shape) != 5 or x.sparse_dim != 4:
        raise ValueError(f"{what}: the input must be a 5-D NDHWC COO tensor with sparse_dim 4, "
                         f"got shape {list(x.shape)} with sparse_dim {x.sparse_dim}")


def _triple(v, name: str, what: str) -> list[int]:
    v = [int(a) for a in v]
    if len(v) != 3:
        raise ValueError(f"{what}: {name} must have 3 values (d, h, w), got {v}")
    return v


def _out_spatial(x_shape, kernel, paddings, dilations, strides, what):
    """funcs::sparse::GetOutShape over d, h, w (C++ division truncates toward zero)."""
    out = []
    for size, k, p, d, s in zip(x_shape[1:4], kernel, paddings, dilations, strides):
        if s <= 0 or d <= 0:
            raise ValueError(f"{what}: strides and dilations must be positive, got strides "
                             f"{strides}, dilations {dilations}")
        num = size + 2 * p - d * (k - 1) - 1
        o = (abs(num) // s) * (1 if num >= 0 else -1) + 1
        if o <= 0:
            raise ValueError(f"{what}: kernel {kernel} (dilations {dilations}, paddings "
                             f"{paddings}) does not fit the input {list(x_shape)}")
        out.append(o)
    return out


def _rulebook(x: SparseCoo, kernel, paddings, dilations, strides, out_spatial, subm):
    """ProductRuleBook + UpdateRulebookAndOutIndex: (rulebook [3, n] int64 with the output
    entry number in row 2, counter [K] int32, output indices [4, nnz_out])."""
    idx = x.indices.to(torch.int64)
    batch, coords = idx[0], [idx[1], idx[2], idx[3]]
    xs, outs_sp = list(x.shape[1:4]), list(out_spatial)

    def flat(b, c, dims):
        return ((b * dims[0] + c[0]) * dims[1] + c[1]) * dims[2] + c[2]

    if subm:
        in_flat = flat(batch, coords, xs)
    entry = torch.arange(idx.shape[1], dtype=torch.int64)
    ks, ins, outs, counter = [], [], [], []
    offset = 0
    for kd in range(kernel[0]):
        for kh in range(kernel[1]):
            for kw in range(kernel[2]):
                ok = torch.ones(idx.shape[1], dtype=torch.bool)
                out_c = []
                for c, k, p, d, s, size, kk in zip(coords, (kd, kh, kw), paddings, dilations,
                                                   strides, xs, kernel):
                    lower = c - d * k + p
                    upper = c + (kk - k - 1) * d - p
                    ok &= (lower >= 0) & (lower % s == 0) & (upper < size)
                    out_c.append(torch.div(lower, s, rounding_mode="trunc"))
                o_flat = flat(batch, out_c, outs_sp)
                if subm:
                    ok &= torch.isin(o_flat, in_flat)
                ks.append(torch.full((int(ok.sum()),), offset, dtype=torch.int64))
                ins.append(entry[ok])
                outs.append(o_flat[ok])
                counter.append(int(ok.sum()))
                offset += 1
    k_row, in_row, out_flat = torch.cat(ks), torch.cat(ins), torch.cat(outs)
    positions, out_row = torch.unique(out_flat, sorted=True, return_inverse=True)
    rest, coords_out = positions, []
    for size in reversed([x.shape[0], *outs_sp]):
        coords_out.append(rest % size)
        rest = rest // size
    out_indices = torch.stack(coords_out[::-1]).to(x.indices.dtype)
    rulebook = torch.stack([k_row, in_row, out_row.reshape(-1)]).to(x.indices.dtype)
    return rulebook, torch.tensor(counter, dtype=torch.int32), out_indices


def _rounds(out_row: torch.Tensor):
    """Each rulebook entry's rank among the entries of its output (0 for the first, in
    rulebook order), and the number of rounds."""
    n = out_row.numel()
    if n == 0:
        return out_row, 0
    order = torch.sort(out_row, stable=True).indices
    sorted_out = out_row[order]
    start = torch.ones(n, dtype=torch.bool)
    start[1:] = sorted_out[1:] != sorted_out[:-1]
    pos = torch.arange(n, dtype=torch.int64)
    first = torch.cummax(torch.where(start, pos, torch.zeros_like(pos)), 0).values
    rank = torch.empty(n, dtype=torch.int64)
    rank[order] = pos - first
    return rank, int(rank.max()) + 1


@REGISTRY.register("pd_op.conv3d_sp", since=1)
def conv3d_sp(x, kernel, *, paddings, dilations, strides, groups=1, subm=False, key=""):
    """Conv3dCooCPUKernel: (out, rulebook, counter)."""
    what = "conv3d_sp"
    x = _coo_of(x, what)
    _check_input(x, what)
    if kernel.dim() != 5:
        raise ValueError(f"{what}: the kernel must be 5-D (D, H, W, C, OC), got shape "
                         f"{list(kernel.shape)}")
    channels = x.shape[4]
    if kernel.shape[3] != channels:
        raise ValueError(f"{what}: the kernel has {kernel.shape[3]} input channels, the input "
                         f"{channels}")
    if kernel.dtype != x.values.dtype:
        raise TypeError(f"{what}: kernel dtype {kernel.dtype} differs from the input's "
                        f"{x.values.dtype}")
    ksize = [int(s) for s in kernel.shape[:3]]
    paddings, dilations, strides = (_triple(paddings, "paddings", what),
                                    _triple(dilations, "dilations", what),
                                    _triple(strides, "strides", what))
    if subm:
        paddings, strides = [k // 2 for k in ksize], [1, 1, 1]
    out_sp = _out_spatial(x.shape, ksize, paddings, dilations, strides, what)
    rulebook, counter, out_indices = _rulebook(x, ksize, paddings, dilations, strides, out_sp,
                                               subm)
    k_row, in_row, out_row = rulebook.to(torch.int64)
    oc = kernel.shape[4]
    weights = kernel.reshape(-1, channels, oc)
    gathered = x.values[in_row]
    products = torch.empty((k_row.numel(), oc), dtype=x.values.dtype)
    start = 0
    for k, count in enumerate(counter.tolist()):
        if count:  # one GEMM per kernel offset, as Paddle's blas.GEMM
            products[start:start + count] = torch.matmul(gathered[start:start + count],
                                                         weights[k])
        start += count
    values = torch.zeros((out_indices.shape[1], oc), dtype=x.values.dtype)
    rank, rounds = _rounds(out_row)
    for r in range(rounds):  # Scatter: contributions added in rulebook order
        sel = rank == r
        rows = out_row[sel]
        values[rows] = values[rows] + products[sel]
    out = SparseCoo(out_indices, values, (x.shape[0], *out_sp, oc))
    return out, rulebook, counter


@REGISTRY.register("pd_op.maxpool_sp", since=1)
def maxpool_sp(x, *, kernel_sizes, paddings, dilations, strides):
    """MaxPoolCooCPUKernel: (out, rulebook, counter)."""
    what = "maxpool_sp"
    x = _coo_of(x, what)
    _check_input(x, what)
    ksize = _triple(kernel_sizes, "kernel_sizes", what)
    paddings, dilations, strides = (_triple(paddings, "paddings", what),
                                    _triple(dilations, "dilations", what),
                                    _triple(strides, "strides", what))
    out_sp = _out_spatial(x.shape, ksize, paddings, dilations, strides, what)
    rulebook, counter, out_indices = _rulebook(x, ksize, paddings, dilations, strides, out_sp,
                                               False)
    _, in_row, out_row = rulebook.to(torch.int64)
    channels = x.shape[4]
    values = torch.empty((out_indices.shape[1], channels), dtype=x.values.dtype)
    rank, rounds = _rounds(out_row)
    for r in range(rounds):
        sel = rank == r
        rows, new = out_row[sel], x.values[in_row[sel]]
        if r == 0:  # the first contribution is copied
            values[rows] = new
        else:
            old = values[rows]
            values[rows] = torch.where(old > new, old, new)
    out = SparseCoo(out_indices, values, (x.shape[0], *out_sp, channels))
    return out, rulebook, counter


@REGISTRY.register("pd_op.batch_norm_sp_", since=1)
def batch_norm_sp_(x, mean, variance, scale, bias, *, is_test=False, momentum=0.9,
                   epsilon=1e-5, data_format="NHWC", use_global_stats=False,
                   trainable_statistics=False):
    """BatchNormCooKernel: the dense batch norm on the values [nnz, C] (channels on axis 1
    whatever the layout: a 2-D NCHW input is read as NHWC); (out, mean_out, variance_out,
    saved_mean, saved_variance, reserve_space)."""
    what = "batch_norm_sp_"
    x = _coo_of(x, what)
    v = x.values
    if v.dim() != 2:
        raise ValueError(f"{what}: the values must be [nnz, C] (a COO tensor whose only dense "
                         f"dim is the channels), got {list(v.shape)}")
    if v.shape[1] != mean.shape[0]:
        raise ValueError(f"{what}: {v.shape[1]} channels, but mean has {mean.shape[0]}")
    if use_global_stats or (is_test and not trainable_statistics):
        inv_std = 1 / _ieee_sqrt(variance + epsilon)  # (var + eps).sqrt().inverse()
        new_scale = inv_std * scale
        new_bias = bias - mean * inv_std * scale
        y = v * new_scale + new_bias
        # saved_mean / saved_variance are left unwritten by Paddle here: pirc gives the
        # running mean and the inverse std, as its dense batch_norm_ does
        return SparseCoo(x.indices, y, x.shape), mean, variance, mean, inv_std, None
    return (*_batch_norm_train(x, v, mean, variance, scale, bias, momentum, epsilon), None)


def _ieee_sqrt(t: torch.Tensor) -> torch.Tensor:
    """The correctly rounded square root of a per-channel vector, as std::sqrt gives it.

    Not torch.sqrt: torch's CPU sqrt is off by one ulp on about a fifth of float32 inputs
    with this build (measured against numpy on 100,000 values), while Paddle's Eigen
    expression on a C-vector shorter than a packet (8 float32) runs the scalar std::sqrt.
    Python's math.sqrt is IEEE in double; rounding that to float32 is exact too (53 bits
    hold twice 24 plus 2).  With 8 channels or more Eigen's packet sqrt (an rsqrt estimate
    refined once) is used on the full packets instead, which no IEEE root reproduces."""
    out = [math.sqrt(a) if a >= 0 else math.nan for a in t.double().tolist()]
    return torch.tensor(out, dtype=torch.float64).to(t.dtype)


def _batch_norm_train(x, v, mean, variance, scale, bias, momentum, epsilon):
    """phi BatchNormKernel (cpu/batch_norm_kernel.cc), training, NHWC: the sums run row by
    row (Eigen's `saved_mean_e += x_arr.col(i)`), the variance is biased, the saved
    variance is sqrt(1 / (var + eps)), and y = x * new_scale + new_bias."""
    n, channels = v.shape
    if n == 1:  # one element per channel: y = x, statistics untouched (Paddle returns early)
        zeros = torch.zeros(channels, dtype=v.dtype)
        return SparseCoo(x.indices, v.clone(), x.shape), mean, variance, zeros, zeros
    total = torch.zeros(channels, dtype=v.dtype)
    for i in range(n):
        total = total + v[i]
    batch_mean = total / n
    total = torch.zeros(channels, dtype=v.dtype)
    for i in range(n):
        d = v[i] - batch_mean
        total = total + d * d
    batch_var = total / n
    keep = float(1.0 - momentum)  # Paddle's (1. - momentum): a double, then the values' type
    mean_out = mean * momentum + batch_mean * keep
    var_out = variance * momentum + batch_var * keep
    inv_std = _ieee_sqrt(1 / (batch_var + epsilon))  # (var + eps).inverse().sqrt()
    new_scale = inv_std * scale
    new_bias = bias - batch_mean * inv_std * scale
    y = v * new_scale + new_bias
    return SparseCoo(x.indices, y, x.shape), mean_out, var_out, batch_mean, inv_std
