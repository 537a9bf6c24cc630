"""Sorting, deduplication and search: argsort, unique, unique_consecutive, nonzero,
masked_select, searchsorted.

phi sorts with NaN last (ascending) or first (descending); a stable sort keeps equal values
in input order, and so does std::sort on the short rows an insertion sort handles.  unique,
nonzero and masked_select give data-dependent shapes: they run eagerly like any kernel.
"""

from __future__ import annotations

import torch

from ...runtime.registry import REGISTRY
from . import stl_order
from .operands import axis_of, int_list


@REGISTRY.register("pd_op.argsort", since=1)
def argsort(x, *, axis=-1, descending=False, stable=False):
    """phi ArgsortKernel: (value, index) pairs per row by std::stable_sort, or (stable=False,
    the default and what paddle.vision.ops.nms sorts its scores with) by std::sort, which
    leaves tied values in introsort's order: rows with ties are replayed step for step
    (stl_order.sort, NaN first when descending, last otherwise); others are torch's sort."""
    if x.dim() == 0:
        return x.clone(), torch.zeros((), dtype=torch.int64)
    dim = axis_of(axis, x.dim())
    values, indices = torch.sort(x, dim=dim, descending=descending, stable=True)
    if stable or x.shape[dim] < 2:
        return values, indices
    rows = x.movedim(dim, -1).reshape(-1, x.shape[dim])
    tied = stl_order.has_ties(rows).nonzero().reshape(-1).tolist()
    if not tied:
        return values, indices
    order = indices.movedim(dim, -1).reshape(-1, x.shape[dim]).clone()

    def before(a, b):  # FullSort's comparator on (value, index) pairs
        if descending:
            return (a[0] != a[0] and b[0] == b[0]) or a[0] > b[0]
        return (a[0] == a[0] and b[0] != b[0]) or a[0] < b[0]

    for r in tied:
        pairs = list(zip(rows[r].tolist(), range(rows.shape[1])))
        stl_order.sort(pairs, 0, len(pairs), before)
        order[r] = torch.tensor([j for _, j in pairs], dtype=torch.int64)
    shape = list(x.movedim(dim, -1).shape)
    indices = order.reshape(shape).movedim(-1, dim).contiguous()
    return torch.gather(x, dim, indices), indices


def _first_index(inverse, groups, length):
    """For each of `groups` groups, the smallest position holding it."""
    pos = torch.arange(length, dtype=torch.int64, device=inverse.device)
    first = torch.full((groups,), length, dtype=torch.int64, device=inverse.device)
    return first.scatter_reduce(0, inverse, pos, reduce="amin")


def _unique_std_set(flat, dtype):
    """Paddle 3.0.0's UniqueFlattendTensor on an x holding NaNs: a std::set of the values
    (stl_order.set_order), then unordered_maps keyed by value, where a NaN key is never
    found: a NaN's index, inverse and count come out 0, as does the inverse of a value the
    set dropped."""
    from .stl_order import set_order

    vals = flat.tolist()
    out = set_order(vals)
    first, count = {}, {}
    for i, v in enumerate(vals):
        if v == v:
            first.setdefault(v, i)
            count[v] = count.get(v, 0) + 1
    group = {v: i for i, v in enumerate(out) if v == v}
    index = [first[v] if v == v else 0 for v in out]
    inverse = [group.get(v, 0) if v == v else 0 for v in vals]
    counts = [count[v] if v == v else 0 for v in out]
    as_tensor = lambda a, t: torch.tensor(a, dtype=t).reshape(len(a))  # noqa: E731
    return (as_tensor(out, flat.dtype), as_tensor(index, dtype), as_tensor(inverse, dtype),
            as_tensor(counts, dtype))


@REGISTRY.register("pd_op.unique", since=1, until=3)
def unique_v1(x, *, return_index=False, return_inverse=False, return_counts=False, axis=(),
              dtype=torch.int64, is_sorted=False):
    """Paddle 3.0.0 and 3.1.1: as the newer kernel, except that the flattened unique is a std::set, so
    NaNs swallow the values inserted after them (_unique_std_set)."""
    if not int_list(axis) and x.is_floating_point() and bool(torch.isnan(x).any()):
        return _unique_std_set(x.reshape(-1), dtype or torch.int64)
    return unique(x, return_index=return_index, return_inverse=return_inverse,
                  return_counts=return_counts, axis=axis, dtype=dtype, is_sorted=is_sorted)


@REGISTRY.register("pd_op.unique", since=3)
def unique(x, *, return_index=False, return_inverse=False, return_counts=False, axis=(),
           dtype=torch.int64, is_sorted=False):
    """Sorted unique values (of the flattened x, or slices along one axis); `indices` is
    each value's first position, `inverse` each element's group, `counts` each group's size,
    all in `dtype`.  Each NaN is a value of its own, sorted last (Paddle 3.2.2 and 3.3.1; the
    fixture unique in all four releases pins the change to 3.2)."""
    dtype = dtype or torch.int64
    axes = int_list(axis)
    if not axes:
        flat = x.reshape(-1)
        out, inverse, counts = torch.unique(flat, sorted=True, return_inverse=True,
                                            return_counts=True)
        length = flat.numel()
    else:
        dim = axis_of(axes[0], x.dim())
        out, inverse, counts = torch.unique(x, sorted=True, return_inverse=True,
                                            return_counts=True, dim=dim)
        length = x.shape[dim]
    index = _first_index(inverse.reshape(-1), counts.numel(), length)
    return out, index.to(dtype), inverse.reshape(-1).to(dtype), counts.to(dtype)


@REGISTRY.register("pd_op.unique_consecutive", since=1)
def unique_consecutive(x, *, return_inverse=False, return_counts=False, axis=(),
                       dtype=torch.int64):
    dtype = dtype or torch.int64
    axes = int_list(axis)
    if not axes:
        out, inverse, counts = torch.unique_consecutive(x.reshape(-1), return_inverse=True,
                                                        return_counts=True)
    else:
        out, inverse, counts = torch.unique_consecutive(
            x, return_inverse=True, return_counts=True, dim=axis_of(axes[0], x.dim()))
    return out, inverse.to(dtype), counts.to(dtype)


@REGISTRY.register("pd_op.nonzero", since=1)
def nonzero(condition):
    return torch.nonzero(condition)  # [count, rank] int64; a NaN is nonzero


@REGISTRY.register("pd_op.masked_select", since=1)
def masked_select(x, mask):
    return torch.masked_select(x, mask)  # x and mask broadcast against each other


@REGISTRY.register("pd_op.searchsorted", since=1)
def searchsorted(sorted_sequence, values, *, out_int32=False, right=False):
    """phi SearchsortedKernel: std::lower_bound (upper_bound with right) with a plain `<`,
    so a NaN inside the sequence compares false either way; a NaN or +-Inf value gives the
    length (phi's GpuAndCpuSearchSortedCompute checks that first).
    The binary search is run step by step on every value at once."""
    seq = sorted_sequence
    n = seq.shape[-1]
    if seq.dim() == 1:
        seq = seq.expand(*values.shape[:-1], n) if values.dim() > 1 else seq
    rows = seq.reshape(-1, n) if seq.dim() > 1 else seq.reshape(1, n)
    vals = values.reshape(rows.shape[0], -1) if seq.dim() > 1 else values.reshape(1, -1)
    first = torch.zeros_like(vals, dtype=torch.int64)
    length = torch.full_like(first, n)
    while True:  # at most log2(n) + 1 rounds
        active = length > 0
        if not bool(active.any()):
            break
        half = length // 2
        middle = (first + half).clamp_max(max(n - 1, 0))
        m = rows.gather(1, middle) if n else vals
        go_right = (m <= vals) if right else (m < vals)
        go_right = active & go_right
        first = torch.where(go_right, middle + 1, first)
        length = torch.where(active, torch.where(go_right, length - half - 1, half), length)
    if vals.is_floating_point():
        first = torch.where(~torch.isfinite(vals), torch.full_like(first, n), first)
    out = first.reshape(values.shape)
    return out.to(torch.int32) if out_int32 else out
