"""Reductions and scans: sum, mean, max, argmax, cumsum, topk, kthvalue, nanmedian.

An empty axis list means every axis (Paddle's reduce_all).  Float sums use torch's
reduction order, not Eigen's, so they agree with Paddle to rounding, not bit-for-bit.
"""

from __future__ import annotations

import torch

from ...runtime.registry import REGISTRY
from ..specialize import specializer
from .accumulate import sequential_scan
from .operands import axis_of, int_list, number


def _dims(x, axis) -> list[int]:
    axes = int_list(axis)
    return axes if axes else list(range(x.dim()))


@REGISTRY.register("pd_op.sum", since=1)
def sum_(x, axis=(), *, dtype=None, keepdim=False):
    # dtype Undefined keeps x's type, except that bool and int32 sum to int64 (phi's sum
    # kernel; checked with Paddle 3.0.0 and 3.3.1).
    if dtype is None and x.dtype in (torch.bool, torch.int32):
        dtype = torch.int64
    dims = _dims(x, axis)
    if x.dim() == 0:
        return x.to(dtype or x.dtype).clone()
    return torch.sum(x, dims, keepdim=keepdim, dtype=dtype or x.dtype)


@REGISTRY.register("pd_op.mean", since=1)
def mean(x, axis=(), *, keepdim=False):
    if x.dim() == 0:
        return x.clone()
    return torch.mean(x, _dims(x, axis), keepdim=keepdim)


@REGISTRY.register("pd_op.max", since=1)
def max_(x, axis=(), *, keepdim=False):
    if x.dim() == 0:
        return x.clone()
    return torch.amax(x, _dims(x, axis), keepdim=keepdim)


@REGISTRY.register("pd_op.argmax", since=1)
def argmax(x, axis=0, *, keepdims=False, flatten=False, dtype=torch.int64):
    dtype = dtype or torch.int64
    if flatten or x.dim() == 0:
        out = torch.argmax(x.reshape(-1))
        # flatten with keepdims keeps x's rank with every dim 1; without, a 0-D result
        return out.reshape([1] * x.dim()).to(dtype) if keepdims else out.to(dtype)
    return torch.argmax(x, axis_of(axis, x.dim()), keepdim=keepdims).to(dtype)


@REGISTRY.register("pd_op.cumsum", since=1)
def cumsum(x, axis=-1, *, flatten=False, exclusive=False, reverse=False):
    if flatten or x.dim() == 0:
        x = x.reshape(-1)
        dim = 0
    else:
        dim = axis_of(axis, x.dim())
    if reverse:
        x = torch.flip(x, [dim])
    if exclusive:
        # shift right by one before the scan, so each sum leaves out its own element
        first = torch.zeros_like(x.narrow(dim, 0, 1))
        x = torch.cat([first, x.narrow(dim, 0, x.shape[dim] - 1)], dim)
    out = sequential_scan(x, dim)  # Paddle scans in the element type, in order
    return torch.flip(out, [dim]) if reverse else out



@REGISTRY.register("pd_op.topk", since=1)
def topk(x, k=1, *, axis=-1, largest=True, sorted=True):  # noqa: A002 - Paddle's name
    values, indices = torch.topk(x, int(number(k)), dim=axis, largest=largest, sorted=sorted)
    return values, indices


@REGISTRY.register("pd_op.kthvalue", since=1)
def kthvalue(x, *, k=1, axis=-1, keepdim=False):
    values, _ = torch.kthvalue(x, int(k), dim=axis, keepdim=True)
    # Paddle's index is the first position holding the k-th value (ties: [1, 1, 1, 2, 0]
    # with k=3 gives 0, torch gives 1); checked on tests/fixtures/ops/*/kthvalue.
    indices = torch.argmax((x == values).to(torch.uint8), dim=axis, keepdim=True)
    if not keepdim:
        values, indices = values.squeeze(axis), indices.squeeze(axis)
    return values, indices


@REGISTRY.register("pd_op.nanmedian", since=1)
def nanmedian(x, *, axis=(), keepdim=True, mode="avg"):
    """phi NanmedianKernel: the median of each row's non-NaN values (the reduced axes moved
    last and flattened); mode avg averages the two middle values of an even count, mode min
    takes the lower one.  `medians` holds each row's positions of the middle values
    ([lower, upper] for avg, [lower] for min), -1 for a row of NaNs (whose median is NaN)."""
    from .grad_special import median_layout  # the layout nanmedian_grad shares

    rows, _, _, axes = median_layout(x, axis)
    valid = rows.shape[1] - torch.isnan(rows).sum(1)
    values, order = torch.sort(rows, dim=1, stable=True)  # NaNs sort last
    half = valid // 2
    upper = half.clamp_max(rows.shape[1] - 1)
    lower = torch.where(valid % 2 == 1, half, (half - 1).clamp_min(0))
    lo = values.gather(1, lower[:, None])[:, 0]
    hi = values.gather(1, upper[:, None])[:, 0]
    if mode == "avg":
        out = torch.where(lower == upper, lo, (lo + hi) / 2)
        index = torch.stack([order.gather(1, lower[:, None])[:, 0],
                             order.gather(1, upper[:, None])[:, 0]], 1)
    else:
        out = lo
        index = order.gather(1, lower[:, None])
    empty = valid == 0
    out = torch.where(empty, torch.full_like(out, float("nan")), out)
    index = torch.where(empty[:, None], torch.full_like(index, -1), index)
    if keepdim:
        shape = [1 if d in axes else s for d, s in enumerate(x.shape)]
    else:
        shape = [s for d, s in enumerate(x.shape) if d not in axes]
    return out.reshape(shape), index.reshape(shape + ([2] if mode == "avg" else []))


@specializer(sum_)
def _sum_call(site):
    x, axis, dtype = site.p["x"], site.p["axis"], site.p["dtype"]
    rank, xdtype = site.rank(x), site.dtype(x)
    if not rank or xdtype is None or not (isinstance(axis, list) and all(type(a) is int for a in axis)):
        return None
    if dtype is None and xdtype in (torch.bool, torch.int32):
        dtype = torch.int64
    dims = list(axis) if axis else list(range(rank))
    dtype = dtype or xdtype
    default = torch.int64 if not (xdtype.is_floating_point or xdtype.is_complex) else xdtype
    if dtype == default:  # torch's own result type: no dtype argument (it would copy x)
        return site.call(torch.sum, x, dims, keepdim=site.p["keepdim"])
    return site.call(torch.sum, x, dims, keepdim=site.p["keepdim"], dtype=dtype)
