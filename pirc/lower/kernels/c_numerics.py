"""C's arithmetic on IEEE values, for kernels that compute per element in Python.

Python's float functions refuse what C computes: math.exp overflows into OverflowError
(C: inf), math.log2 and math.sqrt raise ValueError at 0 or below (C: -inf, NaN), `x / 0.0`
raises ZeroDivisionError (C: +-inf, NaN), `10.0 ** 400` raises (C's std::pow: inf), and
int() of a NaN or an infinity raises (C's static_cast<int> gives x86's "integer
indefinite": operands.c_int_cast).  A kernel that mirrors a phi CPU kernel element by
element uses these, so that IEEE inputs give what Paddle's C++ gives and never a Python
arithmetic error (docs/LOWERING.md, "IEEE values in per-element kernels").
"""

from __future__ import annotations

import math

import numpy as np


def wrap_int32(v: int) -> int:
    """An int32 product or sum as the CPU leaves it on overflow (two's complement)."""
    return (v + 2 ** 31) % 2 ** 32 - 2 ** 31


def exp(x: float) -> float:
    """std::exp (glibc; expf rounds the double result): math.exp, whose OverflowError is C's
    inf."""
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


def _libm_float(name: str):
    """The C library's float function `name` (expf, log2f) where there is one (Linux):
    std::exp / std::log2 of a float call them, and they are neither the double function
    rounded to float (expf differs on ~0.06% of inputs in [-4, 0], log2f on ~0.3% of inputs
    in (0, 8)) nor numpy's vectorised float32 one (exp: a last bit away on ~40%)."""
    try:
        import ctypes
        import ctypes.util
        lib = ctypes.util.find_library("m")
        fn = getattr(ctypes.CDLL(lib), name) if lib else None
    except (OSError, AttributeError):
        return None
    if fn is not None:
        fn.restype, fn.argtypes = ctypes.c_float, [ctypes.c_float]
    return fn


_EXPF, _LOG2F = _libm_float("expf"), _libm_float("log2f")


def expf(x: float) -> float:
    """std::exp of a float (its value as a Python float): the C library's expf, else the
    double exp rounded to float (the same but for a last bit on a few inputs)."""
    if _EXPF is not None:
        return _EXPF(x)
    return float(np.float32(exp(x)))


def log2f(x: float) -> float:
    """std::log2 of a float: the C library's log2f (-inf at 0, NaN below), else log2
    rounded to float."""
    if _LOG2F is not None:
        return _LOG2F(x)
    return float(np.float32(log2(x)))


def log2(x: float) -> float:
    """std::log2: math.log2, with C's -inf at 0 and NaN below."""
    if x > 0 or x != x:
        return math.log2(x)
    return -math.inf if x == 0 else math.nan


def div(a: float, b: float) -> float:
    """a / b in double as C divides: +-inf for a nonzero over 0 (the sign of both), NaN for
    0 / 0 (Python raises ZeroDivisionError)."""
    try:
        return a / b
    except ZeroDivisionError:
        if a == 0 or a != a:
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)


def pow10(n: int) -> float:
    """std::pow(10, n) in double: inf past 1e308 (Python's 10.0 ** n raises)."""
    try:
        return 10.0 ** n
    except OverflowError:
        return math.inf


def round_away(v):
    """std::round of a numpy float scalar, in its type: halves away from zero (np.round
    takes them to even: 22.5 -> 22 where C gives 23); NaN and +-inf unchanged."""
    t = np.trunc(v)
    return t + np.sign(v) if abs(v - t) >= 0.5 else t
