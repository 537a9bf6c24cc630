"""Ops that read or write through an index tensor: gather, gather_nd, index_select,
index_sample, take_along_axis, index_add, index_put, scatter, scatter_nd_add, put_along_axis.

Indices go to torch as int64. Negative indices count from the end in every one of them but
index_sample (whose kernel refuses them); out-of-range indices are an error in Paddle's CPU
kernels, and no kernel here defines them. Duplicate indices of an overwriting write take the
last update, as Paddle's sequential CPU loops do.
"""

from __future__ import annotations

import torch

from ...runtime.registry import REGISTRY
from .operands import axis_of


def _long(index):
    return index.to(torch.int64)


def _wrapped(index, size):
    """Negative indices counted from the end (Paddle's along-axis kernels accept them)."""
    index = _long(index)
    return torch.where(index < 0, index + size, index)


@REGISTRY.register("pd_op.gather", since=1)
def gather(x, index, axis=0):
    dim = axis_of(axis, x.dim())
    out = torch.index_select(x, dim, _wrapped(index, x.shape[dim]).reshape(-1))
    # a 0-d index drops the gathered axis (GatherInferMeta)
    return out.squeeze(dim) if index.dim() == 0 else out


@REGISTRY.register("pd_op.gather_nd", since=1)
def gather_nd(x, index):
    """The last dim of index addresses the leading dims of x; an empty last dim takes all of x
    for each leading position."""
    index = _long(index)
    depth = index.shape[-1]
    if depth == 0:
        return x.expand(list(index.shape[:-1]) + list(x.shape)).clone()
    return x[tuple(index[..., j] for j in range(depth))]


@REGISTRY.register("pd_op.index_select", since=1)
def index_select(x, index, *, axis=0):
    axis = axis + x.dim() if axis < 0 else axis
    return torch.index_select(x, axis, _wrapped(index, x.shape[axis]))


@REGISTRY.register("pd_op.index_sample", since=1)
def index_sample(x, index):
    return torch.gather(x, 1, _long(index))


@REGISTRY.register("pd_op.take_along_axis", since=1)
def take_along_axis(arr, indices, *, axis=0):
    axis = axis + arr.dim() if axis < 0 else axis
    return torch.gather(arr, axis, _wrapped(indices, arr.shape[axis]))


@REGISTRY.register("pd_op.index_add", since=1)
def index_add(x, index, add_value, *, axis=0):
    axis = axis + x.dim() if axis < 0 else axis
    return torch.index_add(x, axis, _wrapped(index, x.shape[axis]), add_value)


@REGISTRY.register("pd_op.index_put", since=1)
def index_put(x, indices, value, *, accumulate=False):
    index = tuple(i if i.dtype == torch.bool else _long(i) for i in indices)
    return torch.index_put(x, index, value.to(x.dtype), accumulate)


@REGISTRY.register("pd_op.scatter", since=1)
def scatter(x, index, updates, *, overwrite=True):
    """Rows of x at index are replaced by updates (overwrite) or, without overwrite, zeroed
    and then summed into from every update that names them (phi ScatterAssignAdd)."""
    index = _wrapped(index, x.shape[0]).reshape(-1)
    updates = updates.reshape([index.numel()] + list(x.shape[1:]))
    if overwrite:
        return torch.index_put(x, (index,), updates)
    zeroed = torch.index_fill(x, 0, index, 0)
    return torch.index_add(zeroed, 0, index, updates)


@REGISTRY.register("pd_op.scatter_nd_add", since=1)
def scatter_nd_add(x, index, updates):
    index = _long(index)
    depth = index.shape[-1]
    if depth == 0:
        return x + updates.reshape([-1] + list(x.shape)).sum(0)
    return torch.index_put(x, tuple(index[..., j] for j in range(depth)), updates, True)


_REDUCE = {"add": "sum", "mul": "prod", "multiply": "prod", "amax": "amax", "amin": "amin"}


def _put_along_axis(rounding):
    def put_along_axis(arr, indices, values, *, axis=0, reduce="assign", include_self=True):
        """phi PutAlongAxisKernel. mean sums (starting from arr where include_self) and divides
        by the count; an integer mean rounds as `rounding` says (the version split below)."""
        axis = axis + arr.dim() if axis < 0 else axis
        index = _wrapped(indices, arr.shape[axis])
        values = values.to(arr.dtype).expand(index.shape)
        if reduce == "assign":
            return torch.scatter(arr, axis, index, values)
        if reduce == "mean":
            base = arr if include_self else torch.scatter(arr, axis, index,
                                                          torch.zeros_like(values))
            total = torch.scatter_add(base, axis, index, values)
            count = torch.scatter_add(
                torch.full_like(arr, 1 if include_self else 0, dtype=torch.int64), axis, index,
                torch.ones_like(index))
            count = torch.where(count == 0, torch.ones_like(count), count)
            if arr.dtype.is_floating_point:
                return total / count.to(arr.dtype)
            return torch.div(total, count, rounding_mode=rounding).to(arr.dtype)
        return torch.scatter_reduce(arr, axis, index, values, _REDUCE[reduce],
                                    include_self=include_self)
    return put_along_axis


# An integer mean: Paddle 3.0.0, 3.1.1 and 3.2.2 truncate toward zero (-7 / 3 is -2), 3.3.1
# rounds toward -inf (-3); fixture put_along_axis in all four releases.
REGISTRY.register("pd_op.put_along_axis", since=1, until=4)(_put_along_axis("trunc"))
REGISTRY.register("pd_op.put_along_axis", since=4)(_put_along_axis("floor"))
