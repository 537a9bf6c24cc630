"""Scans along one axis: cumsum, cumprod, cummax, cummin, logcumsumexp.

Paddle's CPU kernels scan element after element in the element type (accumulate.py spells
the chain out); exclusive shifts the input by one (the identity first), reverse flips the
axis before and after.
"""

from __future__ import annotations

import torch

from ...runtime.registry import REGISTRY
from ..specialize import specializer
from .accumulate import LIMIT, sequential_scan, shift_in
from .operands import axis_of


def _scan_axis(x, axis, flatten):
    """x as the scan sees it and the scanned dim: flatten (or a 0-D x) scans x as 1-D."""
    if flatten or x.dim() == 0:
        return x.reshape(-1), 0
    return x, axis_of(axis, x.dim())


def _directed(scan, x, dim, exclusive, reverse, identity):
    if x.shape[dim] == 0:
        return x.clone()
    if reverse:
        x = torch.flip(x, [dim])
    if exclusive:
        x = shift_in(x, dim, identity)
    out = scan(x, dim)
    return torch.flip(out, [dim]) if reverse else out


@REGISTRY.register("pd_op.cumsum", since=1)
def cumsum(x, axis=-1, *, flatten=False, exclusive=False, reverse=False):
    shape = x.shape
    x, dim = _scan_axis(x, axis, flatten)
    out = _directed(sequential_scan, x, dim, exclusive, reverse, 0)
    if out.is_floating_point():
        out = out + 0.0  # Eigen's SumReducer starts from +0: a leading -0 comes out +0
    return out if flatten else out.reshape(shape)


@specializer(cumsum)
def _cumsum_call(site):
    """An integer cumsum along one axis of a known rank, neither exclusive nor reversed
    (BERT's position ids): the kernel's one torch.cumsum in x's dtype (integer sums are
    exact in any order), without its reshape to the shape x already has."""
    x, p = site.p["x"], site.p
    dtype, rank = site.dtype(x), site.rank(x)
    if (dtype not in (torch.int32, torch.int64) or not rank or p["flatten"] or p["exclusive"]
            or p["reverse"] or type(p["axis"]) is not int or not -rank <= p["axis"] < rank):
        return None
    return site.call(torch.cumsum, x, p["axis"], dtype=dtype)


@REGISTRY.register("pd_op.cumprod", since=1)
def cumprod(x, *, dim=-1, exclusive=False, reverse=False):
    # phi CumprodKernel: out[j] = out[j-1] * x[j] in the element type (ints wrap)
    if x.dim() == 0:
        return x.clone()
    return _directed(lambda t, d: sequential_scan(t, d, torch.mul), x, axis_of(dim, x.dim()),
                     exclusive, reverse, 1)


def _cum_extreme(scan, x, axis, dtype):
    # phi ScanWithIndicesKernel: a NaN replaces the running value (each later NaN moves the
    # index to itself), ties move the index to the later element (>= / <=); torch's cummax
    # and cummin follow the same rule.
    if x.dim() == 0:
        return x.clone(), torch.zeros((), dtype=dtype or torch.int64)
    values, indices = scan(x, axis_of(axis, x.dim()))
    return values, indices.to(dtype or torch.int64)


@REGISTRY.register("pd_op.cummax", since=1)
def cummax(x, *, axis=-1, dtype=torch.int64):
    return _cum_extreme(torch.cummax, x, axis, dtype)


@REGISTRY.register("pd_op.cummin", since=1)
def cummin(x, *, axis=-1, dtype=torch.int64):
    return _cum_extreme(torch.cummin, x, axis, dtype)


def _log_add_exp(acc, t):
    """phi's LogSumExp functor: max + log1p(exp(min - max)), max itself when it is -inf
    (below the dtype's lowest); min/max as std::min/std::max (a NaN in `t` is dropped)."""
    mi = torch.where(t < acc, t, acc)
    ma = torch.where(acc < t, t, acc)
    lowest = torch.finfo(acc.dtype).min
    return torch.where(ma < lowest, ma, torch.log1p(torch.exp(mi - ma)) + ma)


def _logcumsumexp_scan(x, dim):
    n = x.shape[dim]
    if n > LIMIT:
        return torch.logcumsumexp(x, dim)
    acc = torch.full_like(x.narrow(dim, 0, 1), torch.finfo(x.dtype).min)  # the reducer's init
    parts = []
    for i in range(n):
        acc = _log_add_exp(acc, x.narrow(dim, i, 1))
        parts.append(acc)
    return torch.cat(parts, dim)


@REGISTRY.register("pd_op.logcumsumexp", since=1)
def logcumsumexp(x, *, axis=-1, flatten=False, exclusive=False, reverse=False):
    """phi LogcumsumexpKernel: an Eigen scan of LogSumExpReducer from `lowest` (the largest
    negative finite); exclusive puts that `lowest` (not -inf) first."""
    shape = x.shape
    x, dim = _scan_axis(x, axis, flatten)
    out = _directed(_logcumsumexp_scan, x, dim, exclusive, reverse, torch.finfo(x.dtype).min)
    return out if flatten else out.reshape(shape)
