"""Sparse COO ops that build, cast, fill, coalesce, reshape, transpose, slice or mask a COO
tensor: sparse_coo_tensor, cast_coo, full_like_coo, coalesce, reshape_coo, transpose_coo,
slice_coo, mask_as_coo.

Each follows its Paddle CPU kernel (paddle/phi/kernels/sparse/cpu/ and sparse/impl/), entry
order included: only coalesce sorts (by flattened index, summing duplicates in stored order);
reshape, transpose, slice and mask_as keep the stored order, duplicates and explicit zeros.
Where Paddle's CPU kernel mishandles an input (transpose or slice of a hybrid COO tensor,
coalesce with more than one dense dim: out-of-bounds reads or values of the wrong shape), the
kernel here refuses it with a ValueError instead of inventing a result.
"""

from __future__ import annotations

import math

import torch

from ...runtime.registry import REGISTRY
from .operands import int_list
from .sparse_coo import SparseCoo, dense_kernel, _coo_of


def _strides(dims) -> list[int]:
    """Row-major strides of `dims` (phi::stride; CalcOffsetsPerDim over the sparse dims)."""
    out, acc = [], 1
    for d in reversed(list(dims)):
        out.append(acc)
        acc *= d
    return out[::-1]


def _flatten(indices: torch.Tensor, dims) -> torch.Tensor:
    """Each entry's row-major offset over the sparse dims `dims` (FlattenIndices)."""
    flat = torch.zeros(indices.shape[1], dtype=torch.int64)
    for row, stride in zip(indices, _strides(dims)):
        flat = flat + row.to(torch.int64) * stride
    return flat


def _coordinates(flat: torch.Tensor, dims, dtype) -> torch.Tensor:
    """Flattened offsets back to [len(dims), n] indices (IndexToCoordinate)."""
    rows = []
    for stride in _strides(dims):
        rows.append(flat // stride)
        flat = flat % stride
    if not rows:
        return torch.zeros((0, flat.shape[0]), dtype=dtype)
    return torch.stack(rows).to(dtype)


@REGISTRY.register("pd_op.sparse_coo_tensor_sp", since=1)
def sparse_coo_tensor_sp(values, indices, *, shape=()):
    """SparseCooTensorKernel (sparse_utils_kernel.cc): the fed indices and values as they are
    (no sorting, duplicates kept, the indices' dtype kept)."""
    shape = tuple(int_list(shape))
    if indices.dim() != 2:
        raise ValueError(f"sparse_coo_tensor_sp: indices must be 2-D [sparse_dim, nnz], got "
                         f"{list(indices.shape)}")
    if values.dim() < 1 or values.shape[0] != indices.shape[1]:
        raise ValueError(f"sparse_coo_tensor_sp: values {list(values.shape)} must have one row "
                         f"per entry of indices {list(indices.shape)}")
    sparse_dim = indices.shape[0]
    if list(values.shape[1:]) != list(shape[sparse_dim:]):
        raise ValueError(f"sparse_coo_tensor_sp: values {list(values.shape)} do not fit shape "
                         f"{list(shape)} with sparse_dim {sparse_dim}")
    return SparseCoo(indices, values, shape)


def _cast_coo(value_cast):
    def kernel(x, *, index_dtype=None, value_dtype=None):
        """CastCooKernel (sparse/impl/unary_kernel_impl.h): the indices cast to index_dtype and
        the values to value_dtype with the dense cast kernel; an undefined dtype keeps them."""
        x = _coo_of(x, "cast_coo_sp")
        indices = x.indices if index_dtype is None else x.indices.to(index_dtype)
        values = x.values.clone() if value_dtype is None else value_cast(x.values,
                                                                         dtype=value_dtype)
        return SparseCoo(indices, values, x.shape)
    kernel.__name__ = "cast_coo_sp"
    return kernel


# The dense cast changed at PIR version 3 (float32 -> float16 truncated before Paddle 3.2);
# Paddle's sparse cast calls that same phi::CastKernel, so it follows the same versions.
REGISTRY.register("pd_op.cast_coo_sp", since=1, until=3)(
    _cast_coo(lambda v, dtype: dense_kernel("pd_op.cast", 1)(v, dtype=dtype)))
REGISTRY.register("pd_op.cast_coo_sp", since=3)(
    _cast_coo(lambda v, dtype: dense_kernel("pd_op.cast", 3)(v, dtype=dtype)))


@REGISTRY.register("pd_op.full_like_coo_sp", since=1)
def full_like_coo_sp(x, value=0.0, *, dtype=None):
    """FullLikeCooKernel (sparse/cpu/full_kernel.cc): the indices copied, the values tensor
    filled with `value` by the dense full kernel (so 3.7 fills an int32 tensor with 3)."""
    x = _coo_of(x, "full_like_coo_sp")
    values = dense_kernel("pd_op.full_like")(x.values, value, dtype=dtype or x.values.dtype)
    return SparseCoo(x.indices.clone(), values, x.shape)


@REGISTRY.register("pd_op.coalesce_sp", since=1)
def coalesce_sp(x):
    """CoalesceCooCPUKernel (sparse/cpu/coalesce_kernel.cc): entries grouped by flattened index
    in a std::map, so sorted by it; a group's value is its first stored value (memcpy, so a
    lone -0 stays -0) plus each later one in stored order (1e8 + 1 - 1e8 is 0 in float32)."""
    x = _coo_of(x, "coalesce_sp")
    if x.values.dim() > 2:
        raise ValueError(
            f"coalesce_sp: values {list(x.values.shape)} have more than one dense dim; Paddle's "
            "CPU kernel steps through them by values.dims()[1] only and returns values of the "
            "wrong shape")
    dims = x.shape[:x.sparse_dim]
    flat = _flatten(x.indices, dims)
    uniq, group = torch.unique(flat, sorted=True, return_inverse=True)
    order = torch.argsort(group, stable=True)  # each group's entries in stored order
    sorted_group = group[order]
    counts = torch.bincount(group, minlength=uniq.shape[0])
    starts = torch.cumsum(counts, 0) - counts
    rank = torch.empty_like(group)
    rank[order] = torch.arange(group.shape[0]) - starts[sorted_group]
    values = torch.empty((uniq.shape[0], *x.values.shape[1:]), dtype=x.values.dtype)
    first = rank == 0
    values[group[first]] = x.values[first]
    for r in range(1, int(counts.max()) if counts.numel() else 0):
        at = rank == r
        values[group[at]] = values[group[at]] + x.values[at]
    return SparseCoo(_coordinates(uniq, dims, x.indices.dtype), values, x.shape)


@REGISTRY.register("pd_op.reshape_coo_sp", since=1)
def reshape_coo_sp(x, shape=()):
    """ReshapeCooKernel (sparse/cpu/reshape_kernel.cc): each entry's row-major offset over the
    sparse dims re-split over the new sparse dims (all but the dense dims at the end); the
    values and the entries' order are kept (an unsorted input stays unsorted)."""
    x = _coo_of(x, "reshape_coo_sp")
    dims = int_list(shape)
    dims = [x.shape[i] if d == 0 else d for i, d in enumerate(dims)]  # ReshapeInferMeta's 0
    numel = math.prod(x.shape)
    if dims.count(-1) == 1:
        known = math.prod(d for d in dims if d != -1)
        dims[dims.index(-1)] = numel // known if known else 0
    if math.prod(dims) != numel or any(d < 0 for d in dims):
        raise ValueError(f"reshape_coo_sp: shape {int_list(shape)} does not fit the input's "
                         f"{list(x.shape)}")
    dense = list(x.shape[x.sparse_dim:])
    if len(dims) <= len(dense) or (dense and dims[len(dims) - len(dense):] != dense):
        raise ValueError(f"reshape_coo_sp: only the sparse dims can be reshaped; shape {dims} "
                         f"must end in the dense dims {dense}")
    out_sparse = dims[:len(dims) - len(dense)]
    flat = _flatten(x.indices, x.shape[:x.sparse_dim])
    return SparseCoo(_coordinates(flat, out_sparse, torch.int64), x.values, tuple(dims))


@REGISTRY.register("pd_op.transpose_coo_sp", since=1)
def transpose_coo_sp(x, *, perm=()):
    """TransposeCooKernel (sparse/cpu/transpose_kernel.cc): index row i is the input's row
    perm[i]; values and entry order kept (the result is generally unsorted)."""
    x = _coo_of(x, "transpose_coo_sp")
    perm = [int(p) for p in perm]
    if sorted(perm) != list(range(len(x.shape))):
        raise ValueError(f"transpose_coo_sp: perm {perm} is not a permutation of the "
                         f"{len(x.shape)} dims (Paddle's kernel reads index rows perm[i] as given)")
    if x.sparse_dim != len(x.shape):
        raise ValueError(
            f"transpose_coo_sp: a hybrid COO tensor (sparse_dim {x.sparse_dim} of "
            f"{len(x.shape)} dims) is not supported; Paddle's CPU kernel reads and writes index "
            "rows past the sparse dims")
    return SparseCoo(x.indices[perm].to(torch.int64), x.values,
                     tuple(x.shape[p] for p in perm))


@REGISTRY.register("pd_op.slice_coo_sp", since=1)
def slice_coo_sp(x, starts=(), ends=(), *, axes=()):
    """SliceCooKernel (sparse/cpu/slice_kernel.cc): CheckAndUpdateSparseSliceAttrs (negative
    axes and bounds from the end, bounds clamped to the dim, an end below its start gives an
    empty dim), then the entries inside every [start, end), kept in stored order, their index
    on each sliced axis less its start."""
    x = _coo_of(x, "slice_coo_sp")
    rank = len(x.shape)
    axes = [max(0, int(a) + rank) if int(a) < 0 else int(a) for a in int_list(axes)]
    starts, ends = int_list(starts), int_list(ends)
    if not len(axes) == len(starts) == len(ends):
        raise ValueError(f"slice_coo_sp: axes {axes}, starts {starts} and ends {ends} must have "
                         "one entry each")
    if any(a >= rank for a in axes):
        raise ValueError(f"slice_coo_sp: axes {axes} must be below the rank {rank}")
    if x.values.dim() != 1:
        raise ValueError(
            f"slice_coo_sp: a hybrid COO tensor (values {list(x.values.shape)}) is not "
            "supported; Paddle's CPU kernel copies one element per entry")
    out_shape = list(x.shape)
    lo, hi = [], []
    for axis, start, end in zip(axes, starts, ends):
        dim = x.shape[axis]
        if dim > 0:
            start = min(max(start + dim if start < 0 else start, 0), dim)
            end = max(min(end + dim if end < 0 else end, dim), 0)
            end = max(end, start)
        else:
            start = end = 0
        lo.append(start); hi.append(end)
        out_shape[axis] = end - start
    keep = torch.ones(x.indices.shape[1], dtype=torch.bool)
    for axis, start, end in zip(axes, lo, hi):
        row = x.indices[axis]
        keep = keep & (row >= start) & (row < end)
    indices = x.indices[:, keep].to(torch.int64)
    for axis, start in zip(axes, lo):
        indices[axis] -= start
    return SparseCoo(indices, x.values[keep], tuple(out_shape))


@REGISTRY.register("pd_op.mask_as_coo_sp", since=1)
def mask_as_coo_sp(x, mask):
    """MaskCooCPUKernel (sparse/cpu/mask_kernel.cc): the mask's indices copied (order and
    duplicates kept) and, for each entry, the dense x's slice at that place as its value."""
    mask = _coo_of(mask, "mask_as_coo_sp")
    if tuple(x.shape) != tuple(mask.shape):
        raise ValueError(f"mask_as_coo_sp: x {list(x.shape)} and mask {list(mask.shape)} must "
                         "have the same shape")
    return SparseCoo(mask.indices.clone(), x[tuple(mask.indices)], tuple(x.shape))
