"""Data movement without an index operand: flip / reverse, roll, tril / triu, diag, diag_embed,
diagonal, fill_diagonal(_tensor), crop, pad, meshgrid, broadcast_tensors, unstack, view_shape,
shard_index, and set_value(_with_tensor) -- what `x[a:b:c] = v` emits.

Where torch returns a view (diagonal, meshgrid, broadcast_tensors) the kernel copies: Paddle's
kernels write a new tensor, and the lowering must not hand out aliases of an input.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from ...runtime.registry import REGISTRY
from .operands import c_int_cast, int_list, number


@REGISTRY.register("pd_op.flip", since=1)
def flip(x, *, axis=()):
    return torch.flip(x, [a for a in axis]) if x.dim() else x.clone()


@REGISTRY.register("pd_op.reverse", since=1)
def reverse(x, axis=()):
    return flip(x, axis=int_list(axis))


@REGISTRY.register("pd_op.roll", since=1)
def roll(x, shifts=(), *, axis=()):
    # No axis: Paddle rolls the flattened tensor and restores the shape, as torch does.
    shifts = int_list(shifts)
    return torch.roll(x, shifts, list(axis)) if axis else torch.roll(x, shifts)


@REGISTRY.register("pd_op.tril", since=1)
def tril(x, *, diagonal=0):
    return torch.tril(x, diagonal)


@REGISTRY.register("pd_op.triu", since=1)
def triu(x, *, diagonal=0):
    return torch.triu(x, diagonal)


@REGISTRY.register("pd_op.diag", since=1)
def diag(x, *, offset=0, padding_value=0.0):
    """A vector becomes a square matrix of side n + |offset| holding padding_value off the
    diagonal (torch.diag pads with 0); a matrix gives its offset diagonal."""
    if x.dim() == 2:
        return torch.diagonal(x, offset).clone()
    v = x.reshape(-1)
    side = v.numel() + abs(offset)
    # static_cast<T> of the float attribute: NaN, inf and out-of-range are INT_MIN on x86
    fill = padding_value if x.dtype.is_floating_point else c_int_cast(padding_value, x.dtype)
    out = torch.full((side, side), fill, dtype=x.dtype, device=x.device)
    return out.diagonal_scatter(v, offset)


@REGISTRY.register("pd_op.diag_embed", since=1)
def diag_embed(input, *, offset=0, dim1=-2, dim2=-1):  # noqa: A002 - Paddle's operand name
    return torch.diag_embed(input, offset, dim1, dim2)


@REGISTRY.register("pd_op.diagonal", since=1)
def diagonal(x, *, offset=0, axis1=0, axis2=1):
    return torch.diagonal(x, offset, axis1, axis2).clone()


@REGISTRY.register("pd_op.fill_diagonal", since=1)
def fill_diagonal(x, *, value=0.0, offset=0, wrap=False):
    """phi FillDiagonalKernel on the flat buffer: every (sum of strides)-th element from 0,
    shifted by offset and kept only while it stays on its row of width dims[1]; without wrap
    only the first dims[1]**2 elements are visited. The float value is cast to x's dtype."""
    flat = x.reshape(-1).clone()
    dims = list(x.shape)
    step = sum(_strides(dims))
    size = flat.numel() if wrap else min(flat.numel(), dims[1] * dims[1])
    pos = [i + offset for i in range(0, size, step) if 0 <= i % dims[1] + offset < dims[1]]
    if pos:
        fill = torch.tensor(value, dtype=torch.float32).to(x.dtype)
        flat[torch.tensor(pos, dtype=torch.int64, device=x.device)] = fill
    return flat.reshape(dims)


def _strides(dims):
    out, acc = [], 1
    for d in reversed(dims):
        out.append(acc)
        acc *= d
    return out[::-1]


@REGISTRY.register("pd_op.fill_diagonal_tensor", since=1)
def fill_diagonal_tensor(x, y, *, offset=0, dim1=0, dim2=1):
    # y holds the diagonal as torch.diagonal lays it out: the other dims, then the diagonal.
    return x.diagonal_scatter(y.to(x.dtype), offset, dim1, dim2)


@REGISTRY.register("pd_op.crop", since=1)
def crop(x, shape=(), offsets=()):
    """x[offsets : offsets + shape] per dim; a shape of -1 keeps the rest of that dim."""
    shape, offsets = int_list(shape), int_list(offsets) or [0] * x.dim()
    index = tuple(slice(o, x.shape[i] if s == -1 else o + s)
                  for i, (s, o) in enumerate(zip(shape, offsets)))
    return x[index].clone()


@REGISTRY.register("pd_op.pad", since=1)
def pad(x, pad_value=0.0, *, paddings=()):
    """Constant padding; `paddings` is (before, after) per dim in dim order."""
    p = [int(v) for v in paddings]
    flat = []
    for i in reversed(range(len(p) // 2)):
        flat += [p[2 * i], p[2 * i + 1]]
    value = number(pad_value)
    if not x.dtype.is_floating_point:
        value = c_int_cast(value, x.dtype)  # static_cast<T>: NaN and inf INT_MIN
    return F.pad(x, flat, value=value)


@REGISTRY.register("pd_op.meshgrid", since=1)
def meshgrid(inputs):
    return [t.clone() for t in torch.meshgrid(*[i.reshape(-1) for i in inputs], indexing="ij")]


@REGISTRY.register("pd_op.broadcast_tensors", since=1)
def broadcast_tensors(input):  # noqa: A002 - Paddle's operand name
    return [t.clone() for t in torch.broadcast_tensors(*input)]


@REGISTRY.register("pd_op.unstack", since=1)
def unstack(x, *, axis=0, num=0):
    return list(torch.unbind(x, axis))


@REGISTRY.register("pd_op.view_shape", since=4)  # new in Paddle 3.3
def view_shape(input, *, dims=()):  # noqa: A002 - Paddle's operand name
    """What Paddle 3.3.1's CPU executor does (fixture view_shape): the result keeps the input's
    shape and values -- `dims` is only in the result's declared type (the stride kernel's view
    does not reach the executor's output tensor)."""
    return input.clone()


@REGISTRY.register("pd_op.shard_index", since=1)
def shard_index(input, *, index_num=0, nshards=1, shard_id=0, ignore_value=-1):  # noqa: A002
    """An index of shard `shard_id` (of size ceil(index_num / nshards)) becomes its offset in
    the shard; every other index becomes ignore_value."""
    size = (index_num + nshards - 1) // nshards
    local = input - shard_id * size
    return torch.where(input // size == shard_id, local,
                       torch.full_like(input, ignore_value))


# -- set_value: x[slices] = v --------------------------------------------------------------------

def _picked(start, end, step, size):
    """The indices phi's CheckAndUpdateSliceAttrs and the strided write visit: negative
    bounds count from the end, except a negative step's end of -1, which means 'through 0'."""
    if size == 0:
        return []
    start = start + size if start < 0 else start
    start = max(start, 0)
    end = end + size if step > 0 and end < 0 else end
    end = min(end, size)
    if step > 0:
        start = min(start, size)
        end = max(end, 0)
    else:
        start = min(start, size - 1)
        end = end + size if end < -1 else end
        end = max(end, -1)
    return list(range(start, end, step))


def _set_slices(x, value, starts, ends, steps, axes, decrease_axes, none_axes):
    """phi SetValueKernel: the value broadcasts to the slice's shape with the decreased axes
    dropped and the none axes inserted, then is written at the strided positions."""
    rank = x.dim()
    picks = [list(range(s)) for s in x.shape]
    steps = steps or [1] * len(axes)
    for axis, start, end, step in zip(axes, starts, ends, steps):
        axis = axis + rank if axis < 0 else axis
        picks[axis] = _picked(start, end, step, x.shape[axis])
    shape = [len(p) for p in picks]
    if 0 in shape:
        return x.clone()
    drop = {a + rank if a < 0 else a for a in decrease_axes}
    target = [s for i, s in enumerate(shape) if i not in drop]
    for a in sorted(none_axes):
        target.insert(a, 1)
    value = torch.broadcast_to(value.to(x.dtype), target).reshape(shape)
    index = tuple(torch.tensor(p, dtype=torch.int64, device=x.device)
                  .reshape([-1 if j == i else 1 for j in range(rank)])
                  for i, p in enumerate(picks))
    return torch.index_put(x, index, value)


@REGISTRY.register("pd_op.set_value", since=1)
def set_value(x, starts=(), ends=(), steps=(), *, axes=(), decrease_axes=(), none_axes=(),
              shape=(), values=()):
    value = torch.tensor(list(values), dtype=torch.float64 if x.dtype.is_floating_point
                         else None).to(x.dtype).reshape([int(s) for s in shape])
    return _set_slices(x, value, int_list(starts), int_list(ends), int_list(steps), list(axes),
                       list(decrease_axes), list(none_axes))


@REGISTRY.register("pd_op.set_value_with_tensor", since=1)
def set_value_with_tensor(x, values, starts=(), ends=(), steps=(), *, axes=(), decrease_axes=(),
                          none_axes=()):
    return _set_slices(x, values, int_list(starts), int_list(ends), int_list(steps), list(axes),
                       list(decrease_axes), list(none_axes))
