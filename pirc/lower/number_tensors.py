"""Python numbers as 0-D tensors, made once per value, for kernels that run on the CPU.

torch wraps a Python number into a tensor on every call (an in-place add or multiply: 1.2
against 2.8 us at batch 1).  For a float32 or float64 operation on the CPU that wrapped
number is the number rounded to the tensor's dtype, which is what a 0-D tensor of that dtype
holds, so the result bits are the same.  (The lowering's own graphs take such numbers as
module buffers instead: Site.scalar.)
"""

from __future__ import annotations

import struct

import torch

_MADE: dict = {}
_DTYPES = (torch.float32, torch.float64)
_BOUND = 64   # values kept; a kernel called with ever-new numbers gets them back as numbers


def number_tensor(value, dtype: torch.dtype):
    """`value` as a 0-D tensor of `dtype` where that gives the same bits (float32 / float64,
    a float or a small int), else `value` itself."""
    if dtype not in _DTYPES or type(value) not in (int, float) or value != value \
            or (type(value) is int and abs(value) > 2 ** 53):
        return value   # NaN is no dict key; an int past 2^53 would round twice
    key = (dtype, struct.pack("<d", float(value)))   # by its bits: -0.0 is not 0.0
    t = _MADE.get(key)
    if t is None:
        if len(_MADE) >= _BOUND:
            return value
        t = _MADE[key] = torch.tensor(float(value), dtype=dtype)
    return t
