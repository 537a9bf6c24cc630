"""Tensor arrays (create_array, array_write_, array_read, array_length) as Python lists.

A tensor_array value is a list of tensors in the lowered graph; the index operand is a
one-element int64 tensor.  array_write_ writes in place, as Paddle's does: programs go on
reading the array value create_array made, not the write's result.
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
