"""Tensors made from attributes: full, full_int_array, full_like, arange, assign_value_.

The `place` attribute names where Paddle ran; it is ignored: created tensors are CPU tensors
and the lowered module as a whole moves to its device.
"""

from __future__ import annotations

import math

import numpy as np
import torch

from ...runtime.registry import REGISTRY
from .operands import int_list, number


@REGISTRY.register("pd_op.full", since=1)
def full(*, shape=(), value=0.0, dtype=torch.float32, place="cpu"):
    dtype = dtype or torch.float32
    if dtype == torch.bool:
        value = bool(value)
    elif not dtype.is_floating_point and not dtype.is_complex:
        value = int(value)
    return torch.full(int_list(shape), value, dtype=dtype)


@REGISTRY.register("pd_op.full_int_array", since=1)
def full_int_array(*, value=(), dtype=torch.float32, place="cpu"):
    return torch.tensor(list(value), dtype=dtype or torch.int64)


@REGISTRY.register("pd_op.full_like", since=1)
def full_like(x, value=0.0, *, dtype=None, place="undefined"):
    dtype = dtype or x.dtype
    if isinstance(value, torch.Tensor):
        # Keep the value in the graph (nan_to_num feeds it from another op); expand keeps -0.0.
        return value.reshape(()).to(dtype).expand(x.shape).clone()
    return torch.full_like(x, value, dtype=dtype)


@REGISTRY.register("pd_op.arange", since=1)
def arange(start=0, end=None, step=1, *, dtype=torch.float64, place="cpu"):
    start, end, step = number(start), number(end), number(step)
    count = max(math.ceil((end - start) / step), 0)
    np_dtype = torch.empty(0, dtype=dtype).numpy().dtype
    # phi's ArangeKernel adds step to a running value of the output type, so element i is
    # not start + i*step: accumulate the same way (numpy's cumsum is sequential).
    steps = np.full(count, step, dtype=np_dtype)
    if count:
        steps[0] = start
    return torch.from_numpy(np.cumsum(steps, dtype=np_dtype))


@REGISTRY.register("pd_op.assign_value_", since=1)
def assign_value_(output=None, *, shape=(), dtype=torch.float32, values=(), place="undefined"):
    # The `output` operand only names the buffer Paddle writes into; the value comes from
    # the attributes.
    dtype = dtype or (output.dtype if output is not None else torch.float32)
    return torch.tensor(list(values), dtype=dtype).reshape(list(shape))
