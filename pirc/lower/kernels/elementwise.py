"""Element-wise arithmetic: add, multiply, divide, minimum/maximum, scale, pow, clip, ...

Paddle broadcasts like numpy, so torch's operators match; where Paddle's kernel does
something torch would not (scale truncating its factor for integers, maximum ignoring NaN
before Paddle 3.1) the kernel spells Paddle's rule out.
"""

from __future__ import annotations

import torch

from ...runtime.registry import REGISTRY, Behaviour
from ..specialize import specializer
from .operands import number, scalar_like


@REGISTRY.register("pd_op.add", since=1)
def add(x, y):
    return torch.add(x, y)


@REGISTRY.register("pd_op.multiply", since=1)
def multiply(x, y):
    if x.is_complex() and y.is_complex():
        # Paddle's complex product is the textbook (ac - bd) + (ad + bc)i; torch's vectorised
        # one rounds differently in the last bit.
        a, b, c, d = x.real, x.imag, y.real, y.imag
        return torch.complex(a * c - b * d, a * d + b * c)
    return torch.mul(x, y)


@REGISTRY.register("pd_op.divide", since=1)
def divide(x, y):
    # Integer operands divide as float32 (Paddle 3.0.0 and 3.3.1 both: 7 / 2 == 3.5);
    # the Python API casts before the op, the op itself does the same.
    if not (x.is_floating_point() or x.is_complex() or y.is_floating_point() or y.is_complex()):
        return torch.div(x.to(torch.float32), y.to(torch.float32))
    return torch.div(x, y)


@REGISTRY.register("pd_op.maximum", since=1, until=2,
                   flags=Behaviour(notes="a > b ? a : b: a NaN in x is dropped (Paddle 3.0)"))
def maximum_v1(x, y):
    # Paddle 3.0.0: maximum(1, nan) = nan but maximum(nan, 2) = 2 (checked with the wheel).
    return torch.where(x > y, x, y)


@REGISTRY.register("pd_op.maximum", since=2, flags=Behaviour(notes="NaN propagates (Paddle 3.1+)"))
def maximum(x, y):
    return torch.maximum(x, y)


@REGISTRY.register("pd_op.minimum", since=1, until=2,
                   flags=Behaviour(notes="a < b ? a : b: a NaN in x is dropped (Paddle 3.0)"))
def minimum_v1(x, y):
    return torch.where(x < y, x, y)


@REGISTRY.register("pd_op.minimum", since=2, flags=Behaviour(notes="NaN propagates (Paddle 3.1+)"))
def minimum(x, y):
    return torch.minimum(x, y)


@REGISTRY.register("pd_op.add_n", since=1)
def add_n(inputs):
    out = inputs[0]
    for t in inputs[1:]:  # Paddle sums in operand order
        out = out + t
    return out


@REGISTRY.register("pd_op.scale", since=1)
def scale(x, scale=1.0, *, bias=0.0, bias_after_scale=True):
    if x.dtype in (torch.float32, torch.float64) and isinstance(scale, (int, float)) \
            and isinstance(bias, (int, float)):
        # A Python number meets a float32/float64 tensor as a value of the tensor's type
        # (torch computes `x * 2.5` in x's dtype), the same as the 0-D tensors below but
        # without building them on every call; add_ works on the fresh product.
        if bias_after_scale:
            return (x * scale).add_(bias)
        return (x + bias).mul_(scale)
    if x.is_floating_point() or x.is_complex():
        s = scalar_like(scale, x)
        b = torch.tensor(bias, dtype=x.dtype) if not isinstance(bias, torch.Tensor) else bias.to(x.dtype)
    else:
        # Paddle casts scale and bias to the integer type first: scale(7, 1.5, 0.7) == 7.
        s = torch.tensor(int(number(scale)), dtype=x.dtype)
        b = torch.tensor(int(number(bias)), dtype=x.dtype)
    if bias_after_scale:
        return x * s + b
    return (x + b) * s


def float_pow(x, y):
    """x ** y as C's powf gives it for float32 (Paddle's functors call std::pow).

    torch special-cases small exponents (x*x*x for 3), which rounds differently; powf's
    result is the double-precision power rounded to float, bit for bit on the checked cases.
    """
    if x.dtype in (torch.float32, torch.float16, torch.bfloat16):
        return torch.pow(x.to(torch.float64), y).to(x.dtype)
    return torch.pow(x, y)


@REGISTRY.register("pd_op.pow", since=1)
def pow_(x, *, y=1.0):
    if not x.is_floating_point():
        return torch.pow(x, int(y))  # Paddle casts the exponent to x's type
    return float_pow(x, y)


@REGISTRY.register("pd_op.clip", since=1)
def clip(x, min=None, max=None):  # noqa: A002 - Paddle's operand names
    # x < min ? min : (x > max ? max : x); NaN stays NaN like torch.clamp.
    lo = None if min is None else scalar_like(min, x)
    hi = None if max is None else scalar_like(max, x)
    return torch.clamp(x, lo, hi)


@REGISTRY.register("pd_op.abs", since=1)
def abs_(x):
    return torch.abs(x)


@REGISTRY.register("pd_op.exp", since=1)
def exp(x):
    return torch.exp(x)


@REGISTRY.register("pd_op.where", since=1)
def where(condition, x, y):
    return torch.where(condition.to(torch.bool), x, y)


def float32_to_float16_truncating(x):
    """float32 -> float16 as Paddle 3.0/3.1's CPU float16 constructor does it.

    That routine (the bit-twiddling conversion from stackoverflow 1659440) shifts the
    mantissa right, so it rounds toward zero, while values above 65504 still become inf and
    subnormals are truncated too: 1 + 3*2^-11 -> 1.0009765625 where torch gives 1.001953125.
    Checked on the 3.0.0, 3.1.1, 3.2.2 and 3.3.1 wheels (3.2 switched to round-to-nearest).
    """
    bits = x.contiguous().view(torch.int32).to(torch.int64) & 0xFFFFFFFF
    sign = (bits & 0x80000000) >> 16
    v = bits ^ (sign << 16)
    absx = v.to(torch.int32).view(torch.float32)
    # subnormal halves: the float product 2^37 * |x| converted to int (truncating)
    sub = (absx * 2.0 ** 37).to(torch.int64)
    v = torch.where(v < 0x38800000, sub, v)
    v = torch.where((v > 0x477FE000) & (v < 0x7F800000), torch.full_like(v, 0x7F800000), v)
    v = torch.where((v > 0x7F800000) & (v < 0x7F802000), torch.full_like(v, 0x7F802000), v)
    v = v >> 13
    v = torch.where(v > 0x23BFF, v - 0x1C000, v)
    v = torch.where(v > 0x3FF, v - 0x1C000, v)
    return (v | sign).to(torch.int32).to(torch.int16).view(torch.float16)


@REGISTRY.register("pd_op.cast", since=1, until=3, flags=Behaviour(
    notes="float32 -> float16 rounds toward zero (Paddle 3.0, 3.1)"))
def cast_v1(x, *, dtype=None):
    if dtype == torch.float16 and x.dtype == torch.float32:
        return float32_to_float16_truncating(x)
    return cast(x, dtype=dtype)


@REGISTRY.register("pd_op.cast", since=3, flags=Behaviour(notes="round to nearest (Paddle 3.2+)"))
def cast(x, *, dtype=None):
    return x if dtype is None else x.to(dtype)


@REGISTRY.register("pd_op.complex", since=1)
def complex_(real, imag):
    return torch.complex(real, imag)


@REGISTRY.register("pd_op.real", since=1)
def real(x):
    return torch.real(x).clone() if x.is_complex() else x


@REGISTRY.register("pd_op.imag", since=1)
def imag(x):
    return torch.imag(x).clone() if x.is_complex() else torch.zeros_like(x)


# -- specialisations (pirc.lower.specialize): the torch calls the kernel makes, decided once ----

_REAL_FLOATS = (torch.float32, torch.float64)


@specializer(add)
def _add_call(site):
    return site.call(torch.add, site.p["x"], site.p["y"])


@specializer(multiply)
def _multiply_call(site):
    x, y = site.p["x"], site.p["y"]
    dx, dy = site.dtype(x), site.dtype(y)
    if dx is None or dy is None or dx.is_complex or dy.is_complex:
        return None
    return site.call(torch.mul, x, y)


@specializer(divide)
def _divide_call(site):
    x, y = site.p["x"], site.p["y"]
    if site.dtype(x) not in _REAL_FLOATS or site.dtype(y) not in _REAL_FLOATS:
        return None
    return site.call(torch.div, x, y)


@specializer(exp)
def _exp_call(site):
    return site.call(torch.exp, site.p["x"])


@specializer(scale)
def _scale_call(site):
    x, s, b = site.p["x"], site.p["scale"], site.p["bias"]
    if not all(type(v) in (int, float) for v in (s, b)):
        return None
    if site.dtype(x) in (torch.int32, torch.int64):
        s, b = int(s), int(b)  # the kernel's integer rule (Python ints keep x's dtype)
    elif site.dtype(x) not in _REAL_FLOATS:
        return None
    if s == 1:
        return site.call(torch.add, x, b)  # x * 1 is x exactly: either order is x + b
    if site.p["bias_after_scale"]:
        return site.method("add_", site.call(torch.mul, x, s), b)
    return site.method("mul_", site.call(torch.add, x, b), s)


@specializer(cast)
def _cast_call(site):
    x, dtype = site.p["x"], site.p["dtype"]
    if dtype is None or site.dtype(x) == dtype:
        return x  # an identity: taken only where x is computed in the graph
    return site.method("to", x, dtype)


@specializer(cast_v1)
def _cast_v1_call(site):
    x, dtype = site.p["x"], site.p["dtype"]
    if dtype == torch.float16 and site.dtype(x) in (None, torch.float32):
        return None  # the truncating conversion
    return _cast_call(site)
