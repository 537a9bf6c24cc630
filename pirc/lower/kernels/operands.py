"""Mutable-attribute operands as the Python values kernels need.

In PIR an int_array or scalar attribute that may be computed at run time (reshape's shape,
scale's factor, slice's starts) is an operand.  The lowering may hand it to a kernel as a
tensor (what pd_op.full / full_int_array produce), as a list of tensors (builtin.combine of
several full ops), or already folded to a Python value; these helpers accept all three so
kernels need not care.  Shapes must become Python ints because torch takes shapes as ints
and torch.export wants them static.  A shape computed from a dynamic dim arrives as its
elements (pirc/lower/shape_values.py): ints when run, torch.SymInt when traced, kept as they
are.
"""

from __future__ import annotations

import torch


def int_list(value) -> list[int]:
    """An int_array operand as a list of ints (a 0-D tensor or int gives a one-element list)."""
    if value is None:
        return []
    if type(value) is list and all(type(v) is int for v in value):
        return value  # the folded form (graph_builder._folded), the common case: no copy
    if isinstance(value, torch.SymInt):
        return [value]  # a dynamic dim under torch.export / torch.compile: kept symbolic
    if isinstance(value, torch.Tensor):
        return [int(v) for v in value.reshape(-1).tolist()]
    if isinstance(value, (list, tuple)):
        out: list[int] = []
        for v in value:
            out.extend(int_list(v))
        return out
    return [int(value)]


def number(value):
    """A scalar operand as a Python number (bool, int or float as the tensor holds)."""
    if isinstance(value, torch.Tensor):
        return value.reshape(-1)[0].item()
    if isinstance(value, (list, tuple)):
        return number(value[0])
    return value


def axis_of(value, rank: int) -> int:
    """A scalar axis operand, made non-negative for a tensor of rank `rank`."""
    axis = int(number(value))
    return axis + rank if axis < 0 else axis


def scalar_like(value, like: torch.Tensor) -> torch.Tensor:
    """A scalar operand as a 0-D tensor of `like`'s dtype, keeping a tensor in the graph."""
    if isinstance(value, torch.Tensor):
        return value.reshape(()).to(like.dtype)
    return torch.tensor(value, dtype=like.dtype, device=like.device)
