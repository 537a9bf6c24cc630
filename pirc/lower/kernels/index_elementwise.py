"""The strided advanced-indexing ops of Paddle >= 3.1 (PIR 2): index_elementwise_get, and
index_elementwise_put / index_elementwise_put_with_tensor (their in-place forms are aliases,
kernels/inplace.py).

Their attributes are a TensorIterator-style restride of x, computed by the caller (eager
getitem/setitem): the iteration runs over `input_dims`; x's element for position p sits at
byte `slice_offset + sum_d p[d] * input_strides[d] * itemsize + sum_i idx_i[p] * stride_i`,
where `index_dims` is `[size_0 .. size_k-1, -1, B...]` (the sizes negative indices wrap by,
then the shape B the kernel reads every index tensor's contiguous data as, broadcast
right-aligned against input_dims) and `index_stride(s)` the byte strides of the indexed dims
(phi CPUIndexElementwiseGetKernel / CPUIndexElementwisePutKernel, funcs/stride_utils.h
cal_shape_stride). Without a -1 in index_dims the kernels apply no index at all.

get's result is C-contiguous of shape input_dims (its x.numel() == 0 case zero-filled); a put
writes its value (a Scalar static_cast to x's dtype, or a tensor broadcast against
input_dims) at those positions of a copy of x, in the order of p, so a position named twice
keeps the last write. Byte offsets that are not whole elements, and indices outside x, are
undefined in Paddle's kernels (they read or write arbitrary memory) and refused here.
"""

from __future__ import annotations

import math

import torch

from ...runtime.registry import REGISTRY
from .creation import fill_value


def _split_index_dims(op, index_dims):
    """(sizes of the indexed dims, the shape B the index tensors are read as)."""
    dims = [int(d) for d in index_dims]
    if -1 not in dims:
        return [], []
    k = dims.index(-1)
    rest = dims[k + 1:]
    # cal_shape_stride stops at a second -1
    shape = rest[:rest.index(-1)] if -1 in rest else rest
    if any(d < 0 for d in dims[:k] + shape):
        raise ValueError(f"{op}: index_dims {dims} has a negative size other than the -1 "
                         f"separator")
    return dims[:k], shape


def _elements(op, nbytes, itemsize, what):
    if nbytes % itemsize:
        raise ValueError(f"{op}: {what} {nbytes} is not a whole number of {itemsize}-byte "
                         f"elements (Paddle reads misaligned memory)")
    return nbytes // itemsize


def _offsets(op, x, index, input_dims, input_strides, index_dims, index_strides,
             slice_offset):
    """Each position's element offset into x's flat data, shape input_dims (int64)."""
    dims = [int(d) for d in input_dims]
    if len(input_strides) != len(dims):
        raise ValueError(f"{op}: input_dims {dims} and input_strides {list(input_strides)} "
                         f"differ in rank")
    itemsize = x.element_size()
    flat = torch.full(dims, _elements(op, int(slice_offset), itemsize, "slice_offset"),
                      dtype=torch.int64)
    for d, (n, s) in enumerate(zip(dims, input_strides)):
        view = [1] * len(dims)
        view[d] = n
        flat = flat + (torch.arange(n, dtype=torch.int64) * int(s)).reshape(view)
    sizes, shape = _split_index_dims(op, index_dims)
    if len(index) < len(sizes) or len(index_strides) < len(sizes):
        raise ValueError(f"{op}: index_dims names {len(sizes)} indexed dims but "
                         f"{len(index)} index tensors and {len(index_strides)} strides came")
    count = math.prod(shape)
    for i, size in enumerate(sizes):
        idx = index[i]
        if idx.dtype != torch.int64:
            raise ValueError(f"{op}: index tensors must be int64 (Paddle's kernel refuses "
                             f"{idx.dtype})")
        if idx.numel() != count:
            raise ValueError(f"{op}: index tensor {i} has {idx.numel()} elements, "
                             f"index_dims reads it as {shape}")
        try:
            idx = torch.broadcast_to(idx.reshape(shape), dims)
        except RuntimeError:
            raise ValueError(f"{op}: the index shape {shape} does not broadcast to "
                             f"input_dims {dims}") from None
        idx = torch.where(idx < 0, idx + size, idx)
        flat = flat + idx * _elements(op, int(index_strides[i]), itemsize, "index stride")
    if flat.numel() and (int(flat.min()) < 0 or int(flat.max()) >= x.numel()):
        raise ValueError(f"{op}: an index reaches outside x's {x.numel()} elements")
    return flat


@REGISTRY.register("pd_op.index_elementwise_get", since=2)
def index_elementwise_get(x, index, *, input_dims=(), input_strides=(), index_dims=(),
                          index_stride=(), slice_offset=0, accumulate=True,
                          is_combined=False):
    """accumulate and is_combined are the backward's business; the forward ignores them."""
    dims = [int(d) for d in input_dims]
    if math.prod(dims) == 0:
        return torch.empty(dims, dtype=x.dtype)
    if x.numel() == 0:
        return torch.zeros(dims, dtype=x.dtype)
    flat = _offsets("index_elementwise_get", x, index, dims, input_strides, index_dims,
                    index_stride, slice_offset)
    return x.reshape(-1)[flat]


def _put(op, x, index, value, input_dims, input_strides, index_dims, index_strides,
         slice_offset):
    dims = [int(d) for d in input_dims]
    out = x.clone()
    if x.numel() == 0 or math.prod(dims) == 0:
        return out
    flat = _offsets(op, x, index, dims, input_strides, index_dims, index_strides,
                    slice_offset).reshape(-1)
    try:
        value = torch.broadcast_to(value.to(x.dtype), dims).reshape(-1)
    except RuntimeError:
        raise ValueError(f"{op}: value of shape {list(value.shape)} does not broadcast to "
                         f"input_dims {dims}") from None
    # the kernel writes in the order of p: where a position is named twice the last write
    # stays, so keep only each position's last occurrence (scatter of the write order)
    order = torch.arange(flat.numel(), dtype=torch.int64)
    last = torch.full((x.numel(),), -1, dtype=torch.int64).scatter_reduce(
        0, flat, order, reduce="amax")
    keep = last[flat] == order
    out.view(-1)[flat[keep]] = value[keep]
    return out


@REGISTRY.register("pd_op.index_elementwise_put", since=2)
def index_elementwise_put(x, index, *, value=0.0, input_dims=(), input_strides=(),
                          index_dims=(), index_strides=(), slice_offset=0):
    # the Scalar is static_cast to x's dtype (an integer toward zero, a bool nonzero)
    v = torch.tensor(fill_value(value, x.dtype), dtype=x.dtype)
    return _put("index_elementwise_put", x, index, v, input_dims, input_strides, index_dims,
                index_strides, slice_offset)


@REGISTRY.register("pd_op.index_elementwise_put_with_tensor", since=2)
def index_elementwise_put_with_tensor(x, index, value, *, input_dims=(), input_strides=(),
                                      index_dims=(), index_strides=(), slice_offset=0):
    if value.dtype != x.dtype:
        raise ValueError(f"index_elementwise_put_with_tensor: value is {value.dtype}, x is "
                         f"{x.dtype} (Paddle's kernel reads value's data as x's type)")
    return _put("index_elementwise_put_with_tensor", x, index, value, input_dims,
                input_strides, index_dims, index_strides, slice_offset)
