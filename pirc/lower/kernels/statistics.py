"""Order and spread statistics: median, nanmedian, mode, std, var, histogram, bincount.

The medians follow phi's ProcessMedianKernel (the reduced axes moved last and flattened; an
even count averages the two middle values in mode avg, takes the lower in mode min); mode
follows funcs::GetMode (a sort, then the first longest run of equal values).
"""

from __future__ import annotations

import torch

from ...runtime.registry import REGISTRY
from .operands import axis_of, int_list


def _median_shape(x, axes, keepdim):
    if keepdim:
        return [1 if d in axes else s for d, s in enumerate(x.shape)]
    return [s for d, s in enumerate(x.shape) if d not in axes]


def _middle(rows, valid):
    """Sorted rows (NaNs last, ties in input order) and the lower / upper middle positions
    of each row's `valid` leading values."""
    values, order = torch.sort(rows, dim=1, stable=True)
    half = valid // 2
    upper = half.clamp_max(rows.shape[1] - 1)
    lower = torch.where(valid % 2 == 1, half, (half - 1).clamp_min(0))
    return values, order, lower, upper


def _median_rows(rows, valid, mode):
    values, order, lower, upper = _middle(rows, valid)
    lo = values.gather(1, lower[:, None])[:, 0]
    hi = values.gather(1, upper[:, None])[:, 0]
    lo_at = order.gather(1, lower[:, None])
    if mode == "avg":
        out = torch.where(lower == upper, lo, (lo + hi) / 2)
        return out, torch.cat([lo_at, order.gather(1, upper[:, None])], 1)
    return lo, lo_at


@REGISTRY.register("pd_op.nanmedian", since=1)
def nanmedian(x, *, axis=(), keepdim=True, mode="avg"):
    """phi NanmedianKernel: the median of each row's non-NaN values; `medians` holds each
    row's positions of the middle values ([lower, upper] for avg, [lower] for min), -1 for a
    row of NaNs (whose median is NaN)."""
    from .grad_special import median_layout  # the layout nanmedian_grad shares

    rows, _, _, axes = median_layout(x, axis)
    valid = rows.shape[1] - torch.isnan(rows).sum(1)
    out, index = _median_rows(rows, valid, mode)
    empty = valid == 0
    out = torch.where(empty, torch.full_like(out, float("nan")), out)
    index = torch.where(empty[:, None], torch.full_like(index, -1), index)
    shape = _median_shape(x, axes, keepdim)
    return out.reshape(shape), index.reshape(shape + ([2] if mode == "avg" else []))


@REGISTRY.register("pd_op.median", since=3)
def median(x, *, axis=(), keepdim=True, mode="avg"):
    """phi MedianKernel (pd_op.median from Paddle 3.2; before, paddle.median composed other
    ops): a row holding a NaN has median NaN and index its first NaN; otherwise as
    nanmedian.  For mode avg phi writes a NaN row's index to the flat slot of the row number
    instead of its pair (paddle.median does not return `medians` in that mode); here both
    slots hold it."""
    from .grad_special import median_layout

    rows, _, _, axes = median_layout(x, axis)
    n = rows.shape[1]
    is_nan = torch.isnan(rows) if rows.is_floating_point() else torch.zeros_like(rows, dtype=torch.bool)
    has_nan = is_nan.any(1)
    out, index = _median_rows(rows, torch.full_like(has_nan, n, dtype=torch.int64), mode)
    first_nan = torch.argmax(is_nan.to(torch.uint8), 1, keepdim=True).expand_as(index)
    out = torch.where(has_nan, torch.full_like(out, float("nan")), out)
    index = torch.where(has_nan[:, None], first_nan, index)
    shape = _median_shape(x, axes, keepdim)
    return out.reshape(shape), index.reshape(shape + ([2] if mode == "avg" else []))


@REGISTRY.register("pd_op.mode", since=1)
def mode(x, *, axis=-1, keepdim=False):
    """funcs::GetMode: sort each row (NaNs last, equal values in input order: std::sort is an
    insertion sort on rows this short), scan the runs of equal values (each NaN a run of its
    own); the first run longer than all before it wins, and its LAST element gives the value
    and index."""
    if x.dim() == 0:
        return x.clone(), torch.zeros((), dtype=torch.int64)
    dim = axis_of(axis, x.dim())
    moved = x.movedim(dim, -1)
    values, order = torch.sort(moved, dim=-1, stable=True)
    n = values.shape[-1]
    pos = torch.arange(n, device=x.device).expand_as(values)
    start = torch.ones_like(values, dtype=torch.bool)
    start[..., 1:] = values[..., 1:] != values[..., :-1]
    run_start = torch.cummax(torch.where(start, pos, torch.zeros_like(pos)), -1).values
    end = torch.ones_like(start)
    end[..., :-1] = start[..., 1:]
    freq = torch.where(end, pos - run_start + 1, torch.zeros_like(pos))
    best = torch.argmax(freq, -1, keepdim=True)  # the first of the longest runs
    out, index = values.gather(-1, best), order.gather(-1, best)
    if keepdim:
        return out.movedim(-1, dim), index.movedim(-1, dim)
    return out.squeeze(-1), index.squeeze(-1)


def _deviation_sq(x, axis):
    dims = int_list(axis) or list(range(x.dim()))
    mean = torch.mean(x, dims, keepdim=True)
    count = 1
    for d in dims:
        count *= x.shape[d]
    return torch.sum((x - mean) ** 2, dims, keepdim=True), dims, count


def _variance(x, axis, keepdim, unbiased, correction):
    total, dims, count = _deviation_sq(x, axis)
    out = total / max(count - (correction if unbiased else 0.0), 0.0)
    return out if keepdim else out.squeeze(dims) if dims else out


@REGISTRY.register("pd_op.var", since=4)
def var(x, *, axis=(), keepdim=False, unbiased=True, correction=1.0):
    return _variance(x, axis, keepdim, unbiased, correction)


@REGISTRY.register("pd_op.std", since=4)
def std(x, *, axis=(), keepdim=False, unbiased=True, correction=1.0):
    return torch.sqrt(_variance(x, axis, keepdim, unbiased, correction))


@REGISTRY.register("pd_op.histogram", since=1)
def histogram(input, weight=None, *, bins=100, min=0.0, max=0.0, density=False):  # noqa: A002
    """phi HistogramKernel: min == max takes the data's range (widened by 1 each way when
    that is a single value); bin = (v - min) * bins / (max - min), the top edge in the last
    bin, values outside dropped.  The counts are int64 (float with weight or density)."""
    x = input.reshape(-1)
    lo, hi = float(min), float(max)
    if lo == hi and x.numel():
        lo, hi = float(x.min()), float(x.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    xf = x.to(torch.float32) if not x.is_floating_point() else x
    inside = (xf >= lo) & (xf <= hi)
    index = ((xf - lo) * bins / (hi - lo)).to(torch.int64).clamp(0, bins - 1)
    w = weight.reshape(-1) if weight is not None else None
    if w is None and not density:
        ones = inside.to(torch.int64)
        return torch.zeros(bins, dtype=torch.int64).scatter_add_(0, index, ones)
    src = (w if w is not None else torch.ones_like(xf)).to(torch.float32)
    counts = torch.zeros(bins, dtype=src.dtype).scatter_add_(0, index, torch.where(inside, src, 0))
    if density:
        counts = counts / (counts.sum() * ((hi - lo) / bins))
    return counts


@REGISTRY.register("pd_op.bincount", since=1)
def bincount(x, weights=None, minlength=0):
    """phi BincountKernel: int64 counts without weights; with them the weights' dtype
    (float64 for int weights)."""
    n = int(minlength if not isinstance(minlength, torch.Tensor) else minlength.item())
    out = torch.bincount(x.to(torch.int64), weights.to(torch.float64) if weights is not None and not weights.is_floating_point() else weights, minlength=n)
    if weights is None:
        return out.to(torch.int64)
    return out.to(weights.dtype if weights.is_floating_point() else torch.float64)
