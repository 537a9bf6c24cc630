"""Reductions over axes: sum, prod, mean, max/min, all/any, argmax/argmin, logsumexp,
nansum, reduce_as, numel, and the k-th / top-k selections.

An empty axis list means every axis (Paddle's reduce_all).  Float sums use torch's
reduction order, not Eigen's, so they agree with Paddle to rounding, not bit-for-bit.
"""

from __future__ import annotations

import torch

from ...runtime.registry import REGISTRY
from ..specialize import specializer
from .accumulate import sequential_sum
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


@REGISTRY.register("pd_op.min", since=1)
def min_(x, axis=(), *, keepdim=False):
    if x.dim() == 0:
        return x.clone()
    return torch.amin(x, _dims(x, axis), keepdim=keepdim)


@REGISTRY.register("pd_op.amax", since=1)
def amax(x, *, axis=(), keepdim=False):
    return max_(x, axis, keepdim=keepdim)  # amax differs from max in its gradient only


@REGISTRY.register("pd_op.amin", since=1)
def amin(x, *, axis=(), keepdim=False):
    return min_(x, axis, keepdim=keepdim)


@REGISTRY.register("pd_op.all", since=1)
def all_(x, *, axis=(), keepdim=False):
    # any dtype: a nonzero element (NaN included) is true; the result is bool
    return torch.all(x != 0, _dims(x, axis), keepdim=keepdim) if x.dim() else (x != 0)


@REGISTRY.register("pd_op.any", since=1)
def any_(x, *, axis=(), keepdim=False):
    return torch.any(x != 0, _dims(x, axis), keepdim=keepdim) if x.dim() else (x != 0)


def _arg_extreme(pick, x, axis, keepdims, flatten, dtype):
    # Eigen's ArgMax/ArgMin reducer only moves on a strictly better value, from the lowest
    # (highest) value at index 0: a NaN is never taken, which is a NaN read as -inf (+inf)
    # with torch's first-index rule for ties.
    dtype = dtype or torch.int64
    if x.is_floating_point():
        worst = float("-inf") if pick is torch.argmax else float("inf")
        x = torch.where(torch.isnan(x), torch.full_like(x, worst), x)
    if flatten or x.dim() == 0:
        out = pick(x.reshape(-1))
        # flatten with keepdims keeps x's rank with every dim 1; without, a 0-D result
        return out.reshape([1] * x.dim()).to(dtype) if keepdims else out.to(dtype)
    return pick(x, axis_of(axis, x.dim()), keepdim=keepdims).to(dtype)


@REGISTRY.register("pd_op.argmax", since=1)
def argmax(x, axis=0, *, keepdims=False, flatten=False, dtype=torch.int64):
    return _arg_extreme(torch.argmax, x, axis, keepdims, flatten, dtype)


@REGISTRY.register("pd_op.argmin", since=1)
def argmin(x, axis=0, *, keepdims=False, flatten=False, dtype=torch.int64):
    return _arg_extreme(torch.argmin, x, axis, keepdims, flatten, dtype)


def _with_index(pick, x, dim, keepdim, flatten):
    if flatten or x.dim() == 0:
        values, indices = pick(x.reshape(-1), 0)
        if keepdim:
            shape = [1] * x.dim()
            return values.reshape(shape), indices.reshape(shape)
        return values, indices
    return pick(x, axis_of(dim, x.dim()), keepdim=keepdim)


@REGISTRY.register("pd_op.max_with_index", since=3)
def max_with_index(x, *, dim=0, keepdim=False, flatten=False):
    """paddle.compat.max(x, dim): values and their int64 indices (GPU-only in Paddle 3.2 and 3.3,
    no fixture: torch.max's first-index rule is what Paddle's CUDA kernel documents)."""
    return tuple(_with_index(torch.max, x, dim, keepdim, flatten))


@REGISTRY.register("pd_op.min_with_index", since=3)
def min_with_index(x, *, dim=0, keepdim=False, flatten=False):
    return tuple(_with_index(torch.min, x, dim, keepdim, flatten))


@REGISTRY.register("pd_op.prod", since=1)
def prod(x, axis=(), *, keepdim=False, reduce_all=False):
    # int32 stays int32 (torch.prod would widen it to int64), wrapping on overflow
    dims = list(range(x.dim())) if reduce_all else _dims(x, axis)
    out = x
    for d in sorted(dims, reverse=True):
        out = torch.prod(out, d, keepdim=True, dtype=x.dtype)
    return out if keepdim else out.reshape([s for d, s in enumerate(x.shape) if d not in dims])


@REGISTRY.register("pd_op.mean_all", since=1)
def mean_all(x):
    if x.numel() == 0:
        return torch.full((), float("nan"), dtype=x.dtype)
    return sequential_sum(x.reshape(-1), 0) / x.numel()  # phi: the sum, then one division


@REGISTRY.register("pd_op.nansum", since=4)
def nansum(x, *, axis=(), dtype=None, keepdim=False):
    if x.is_floating_point():
        x = torch.where(torch.isnan(x), torch.zeros_like(x), x)
    return sum_(x, axis, dtype=dtype, keepdim=keepdim)


@REGISTRY.register("pd_op.logsumexp", since=1)
def logsumexp(x, *, axis=(), keepdim=False, reduce_all=False):
    """phi LogsumexpFunctor (impl/logsumexp_kernel_impl.h): max + log(sum(exp(x - max))),
    nothing special at infinities.  A reduced max of +-inf makes x - max NaN (inf - inf), so
    such a result is NaN where torch.logsumexp (which takes an infinite max as 0) gives +-inf;
    a 0-d x is x + log(exp(0)): -0 gives +0 and +-inf NaN.  Otherwise torch's own ops."""
    dims = list(range(x.dim())) if reduce_all else _dims(x, axis)
    if x.numel() == 0:
        return torch.logsumexp(x, dims, keepdim=keepdim)  # -inf: 3.3.1's Full(-INFINITY)
    flat = x.reshape(1) if x.dim() == 0 else x
    dims = dims if x.dim() else [0]
    peak = torch.amax(flat, dims, keepdim=True)
    out = torch.log(torch.sum(torch.exp(flat - peak), dims, keepdim=True)) + peak
    if x.dim() == 0:
        return out.reshape(())
    return out if keepdim else out.squeeze(dims)


@REGISTRY.register("pd_op.reduce_as", since=1)
def reduce_as(x, target):
    """Sum x down to target's shape: the leading dims x has beyond target's rank, and every
    dim where target has 1 and x more."""
    lead = x.dim() - target.dim()
    dims = list(range(lead)) + [lead + d for d, s in enumerate(target.shape)
                                if s == 1 and x.shape[lead + d] != 1]
    out = torch.sum(x, dims, keepdim=True) if dims else x
    return out.reshape(target.shape)


@REGISTRY.register("pd_op.numel", since=1)
def numel(x):
    return torch.tensor(x.numel(), dtype=torch.int64)


def _select(x, k, axis, largest, sort_k, fast):
    """phi's row-wise selection (topk / kthvalue): the axis moved last, each row's first k
    pairs after libstdc++'s nth_element or partial_sort (stl_order.py).  Rows without ties
    have one answer, `fast(rows)` (torch); rows with ties are replayed step by step."""
    from ..control_flow import _tracing
    from .stl_order import has_ties, select_rows

    dim = axis_of(axis, x.dim())
    moved = x.movedim(dim, -1)
    rows = moved.reshape(-1, moved.shape[-1])
    index = fast(rows)
    if rows.numel() and not _tracing(rows):
        tied = has_ties(rows) if sort_k is not None else torch.ones(len(rows), dtype=torch.bool)
        if bool(tied.any()):
            picked = tied.nonzero()[:, 0]
            index = index.clone()
            index[picked] = select_rows(rows[picked], k, largest, bool(sort_k))
    values = rows.gather(1, index)
    shape = list(moved.shape[:-1]) + [k]
    return values.reshape(shape).movedim(-1, dim), index.reshape(shape).movedim(-1, dim)


@REGISTRY.register("pd_op.topk", since=1)
def topk(x, k=1, *, axis=-1, largest=True, sorted=True):  # noqa: A002 - Paddle's name
    """phi TopkKernel: nth_element then std::sort of the first k - 1 (partial_sort when
    k * 64 < n); unsorted, the order nth_element leaves, always replayed."""
    k = int(number(k))
    if x.dim() == 0:
        return x.clone(), torch.zeros((), dtype=torch.int64)
    return _select(x, k, axis, largest, True if sorted else None,
                   lambda rows: torch.topk(rows, k, 1, largest=largest, sorted=True).indices)


@REGISTRY.register("pd_op.kthvalue", since=1)
def kthvalue(x, *, k=1, axis=-1, keepdim=False):
    """phi KthvalueKernel: the k-th smallest (NaN largest) by nth_element (partial_sort when
    k * 64 < n); among equal values the one nth_element leaves at k - 1 (a row of six zeros
    with k=3 gives index 4)."""
    k = int(k)
    if x.dim() == 0:
        return x.clone(), torch.zeros((), dtype=torch.int64)
    dim = axis_of(axis, x.dim())
    first_k = lambda rows: torch.sort(rows, dim=1, stable=True).indices[:, :k]  # noqa: E731
    values, indices = _select(x, k, dim, False, False, first_k)
    values, indices = values.narrow(dim, k - 1, 1), indices.narrow(dim, k - 1, 1)
    if not keepdim:
        values, indices = values.squeeze(dim), indices.squeeze(dim)
    return values, indices


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


@specializer(mean)
def _mean_call(site):
    """torch.mean on the static axes: the kernel's own call without its Python frame (an
    RMSNorm's mean(x^2) over the last dim, twice a LLaMA block)."""
    x, axis = site.p["x"], site.p["axis"]
    rank = site.rank(x)
    if not rank or not (isinstance(axis, list) and all(type(a) is int for a in axis)):
        return None
    dims = list(axis) if axis else list(range(rank))
    return site.call(torch.mean, x, dims, keepdim=site.p["keepdim"])
