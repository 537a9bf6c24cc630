"""pd_op.random (Paddle 3.3, PIR 4): a tensor of x's shape and dtype filled with integers
drawn uniformly from [from, to), as phi/kernels/cpu/random_kernel.cc draws them (the values
themselves come from Paddle's mt19937_64, so they match by distribution only; torch's global
generator draws them here).
"""

from __future__ import annotations

import torch

from ...runtime.registry import REGISTRY

# significand bits (std::numeric_limits<T>::digits) of the floating types the kernel takes
_DIGITS = {torch.float16: 11, torch.bfloat16: 8, torch.float32: 24, torch.float64: 53}


def _as_float_int(v: int, digits: int) -> int:
    """int64(T(v)): v rounded to `digits` significant bits, ties to even."""
    shift = abs(v).bit_length() - digits
    if shift <= 0:
        return v
    unit = 1 << shift
    q, r = divmod(v, unit)
    if r * 2 > unit or (r * 2 == unit and q % 2):
        q += 1
    return q * unit


def _update_from(lo: int, digits: int) -> int:
    # Paddle's update_from (PyTorch's): a `from` that T would round below itself moves up
    # to the next value of T, so no draw falls under it
    up = _as_float_int(lo + 1, digits)
    if up < lo:
        lo = up + (1 << (abs(lo + 1).bit_length() - 1 - digits + 1))
    return lo


def _update_to(hi: int, digits: int) -> int:
    down = _as_float_int(hi - 1, digits)
    if down >= hi:
        hi = down - (1 << (abs(hi - 1).bit_length() - 1 - digits + 1))
    return hi


@REGISTRY.register("pd_op.random", since=4)
def random(x, *, from_=0, to=0):
    # `from` is a Python keyword: the lowering passes the attribute as from_
    lo, hi = int(from_), int(to)
    if x.dtype in _DIGITS:
        digits = _DIGITS[x.dtype]
        lo, hi = _update_from(lo, digits), _update_to(hi, digits)
    elif x.dtype not in (torch.int32, torch.int64):
        raise ValueError(f"random: x must be int32, int64 or floating, got {x.dtype}")
    if lo >= hi:
        raise ValueError(f"random: from ({lo}) must be less than to ({hi}) in {x.dtype}")
    return torch.randint(lo, hi, tuple(x.shape), dtype=torch.int64).to(x.dtype)
