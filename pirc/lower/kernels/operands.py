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

import math

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


# Integer dtypes: (bits, signed).  x86-64 converts a double to an integer narrower than 64
# bits through a 32-bit register (cvttsd2si), then keeps the low bits.
_INT_BITS = {torch.uint8: (8, False), torch.int8: (8, True), torch.int16: (16, True),
             torch.int32: (32, True), torch.int64: (64, True)}
INT_CAST_DTYPES = frozenset(_INT_BITS) | {torch.bool}


def c_int_cast(value, dtype: torch.dtype) -> int:
    """A scalar operand as C++ `static_cast<T>` gives it on x86-64, T the integer `dtype`:
    what Paddle's `Scalar::to<T>()` hands an integer kernel (scale's factor and bias).

    A float is truncated toward zero; NaN, +-inf and values outside the 32-bit (64-bit for
    int64) range become the "integer indefinite" INT_MIN of that width; narrower types keep
    the low bits of the 32-bit result; bool is `v != 0`.  Checked on the 3.3.1 wheel:
    scale(int32 x, nan) is INT_MIN * x, scale(int8 x, 300) is x * 44, scale(uint8 x, 2.7,
    bias=-1.9) is 2x + 255, scale(bool x, 0.5) is x."""
    v = number(value)
    if dtype is torch.bool:
        return bool(v != 0)  # static_cast<bool>: NaN and 0.5 are true
    bits, signed = _INT_BITS[dtype]
    if isinstance(v, float):
        wide = 64 if bits == 64 else 32
        low = -(1 << (wide - 1))
        v = math.trunc(v) if math.isfinite(v) and low <= math.trunc(v) < -low else low
    v = int(v) % (1 << bits)  # an integer converts by keeping its low bits
    return v - (1 << bits) if signed and v >= 1 << (bits - 1) else v


def axis_of(value, rank: int) -> int:
    """A scalar axis operand, made non-negative for a tensor of rank `rank`."""
    axis = int(number(value))
    return axis + rank if axis < 0 else axis


def scalar_like(value, like: torch.Tensor) -> torch.Tensor:
    """A scalar operand as a 0-D tensor of `like`'s dtype, keeping a tensor in the graph."""
    if isinstance(value, torch.Tensor):
        return value.reshape(()).to(like.dtype)
    return torch.tensor(value, dtype=like.dtype, device=like.device)
