"""Tensor arrays (create_array, array_write_, array_read, array_length, array_pop, slice_array,
slice_array_dense, array_to_tensor, tensor_to_array, create_array_like, assign_array,
add_n_array) as Python lists.

A tensor_array value is a list of tensors in the lowered graph; the index operand is a
one-element int64 tensor.  array_write_ writes in place, as Paddle's does: programs go on
reading the array value create_array made, not the write's result.  The graph builder rebinds
that value to the write's node all the same (the alias model), so every later read is ordered
after the write and a write inside an if / while region hands the list back to the enclosing
graph (docs/LOWERING.md, "Tensor arrays in regions").
"""

from __future__ import annotations

import torch

from ...runtime.registry import REGISTRY
from .operands import number


@REGISTRY.register("pd_op.create_array", since=1)
def create_array(*, dtype=torch.float32):
    return []


@REGISTRY.register("pd_op.array_write_", since=1)
def array_write_(array, x, i):
    index = int(number(i))
    if index < len(array):
        array[index] = x
    else:
        # Paddle grows the array; slots skipped over stay empty tensors
        array.extend(torch.empty(0, dtype=x.dtype) for _ in range(index - len(array)))
        array.append(x)
    return array


@REGISTRY.register("pd_op.array_read", since=1)
def array_read(array, i):
    return array[int(number(i))]


@REGISTRY.register("pd_op.array_length", since=1)
def array_length(x):
    return torch.tensor([len(x)], dtype=torch.int64)


@REGISTRY.register("pd_op.array_pop", since=1)
def array_pop(array, *, index=-1):
    # Paddle pops in place: the program goes on using the array it popped from.
    out = array.pop(index)
    return array, out


@REGISTRY.register("pd_op.slice_array", since=1)
def slice_array(input, starts=(), ends=()):  # noqa: A002 - Paddle's operand name
    return list(input[int(number(starts)):int(number(ends))])


@REGISTRY.register("pd_op.slice_array_dense", since=1)
def slice_array_dense(input, starts=()):  # noqa: A002 - Paddle's operand name
    return input[int(number(starts))]


@REGISTRY.register("pd_op.array_to_tensor", since=1)
def array_to_tensor(x, *, axis=1, use_stack=False):
    """The array concatenated (or stacked) along axis, and each element's extent along that
    axis of the element (int32), stacking too. A negative axis leaves Paddle's out_index
    unwritten; here it counts from the end."""
    dim = axis + x[0].dim() if axis < 0 else axis
    sizes = [t.shape[dim] if dim < t.dim() else 1 for t in x]
    out = torch.stack(list(x), axis) if use_stack else torch.cat(list(x), dim)
    return out, torch.tensor(sizes, dtype=torch.int32)


@REGISTRY.register("pd_op.tensor_to_array", since=1)
def tensor_to_array(x, out_grad, *, axis=1, use_stack=False):
    # array_to_tensor's backward: out_grad cut back into pieces shaped like x's elements
    if use_stack:
        return list(torch.unbind(out_grad, axis))
    dim = axis + out_grad.dim() if axis < 0 else axis
    return list(torch.split(out_grad, [t.shape[dim] for t in x], dim))


@REGISTRY.register("pd_op.create_array_like", since=1)
def create_array_like(input, *, val=0.0):  # noqa: A002 - Paddle's operand name
    return [torch.full_like(t, val) for t in input]


@REGISTRY.register("pd_op.assign_array", since=1)
def assign_array(x):
    return [t.clone() for t in x]


@REGISTRY.register("pd_op.add_n_array", since=1)
def add_n_array(inputs):
    """Element i of the result is the sum of element i of every array, added in order."""
    out = []
    for i in range(max(len(a) for a in inputs)):
        parts = [a[i] for a in inputs if i < len(a)]
        total = parts[0]
        for p in parts[1:]:
            total = total + p
        out.append(total)
    return out
