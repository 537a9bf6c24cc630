"""Element-wise math functions: trigonometric and hyperbolic, exp/log variants, rounding, sign,
the gamma family and Bessel functions, float-class tests, bitwise/logical not, complex views,
and the small reductions clip_by_norm, renorm and check_numerics.

Paddle's functors call std:: or Eigen functions in the input's own type; torch's builtins give
the same values up to the last ulp (the parity tolerances say so per op). Where Paddle's rule is
not torch's (round half away from zero in Paddle 3.0, digamma's sign of infinity at +-0, the
sign of NaN, angle of a real NaN and digamma at 0 in Paddle 3.0, integer inputs passed through by floor/ceil/round), the kernel spells it out.
"""

from __future__ import annotations

import math

import torch

from ...runtime.registry import REGISTRY, Behaviour
from . import c_numerics
from .operands import c_int_cast


def as_float(x):
    """Integer and bool inputs compute in float32 (phi's functors use U = float for integral
    T; the Python API also inserts a cast before most of these ops)."""
    return x if x.is_floating_point() or x.is_complex() else x.to(torch.float32)


def _unary(name, fn):
    REGISTRY.register(f"pd_op.{name}", since=1)(lambda x: fn(as_float(x)))


for _name, _fn in (
        ("sin", torch.sin), ("cos", torch.cos), ("tan", torch.tan), ("asin", torch.asin),
        ("acos", torch.acos), ("atan", torch.atan), ("sinh", torch.sinh), ("cosh", torch.cosh),
        ("asinh", torch.asinh), ("acosh", torch.acosh), ("atanh", torch.atanh),
        ("expm1", torch.expm1), ("log1p", torch.log1p), ("log2", torch.log2),
        ("log10", torch.log10), ("erf", torch.erf),
        ("lgamma", torch.lgamma), ("gammaln", torch.lgamma), ("i0", torch.special.i0),
        ("i0e", torch.special.i0e), ("i1", torch.special.i1), ("i1e", torch.special.i1e)):
    _unary(_name, _fn)


@REGISTRY.register("pd_op.erfinv", since=1)
def erfinv(x):
    """phi ErfinvKernel: ndtri(x * 0.5 + 0.5) * sqrt(1/2) with Eigen's ndtri, which is +inf at
    p >= 1 and -inf at p <= 0 (x beyond +-1 included); a tiny x rounds p to 0.5 and gives +0."""
    x = as_float(x)
    p = x * 0.5 + 0.5
    out = torch.special.ndtri(p) * math.sqrt(0.5)
    inf = torch.full_like(x, math.inf)
    return torch.where(p >= 1, inf, torch.where(p <= 0, -inf, out))


@REGISTRY.register("pd_op.reciprocal", since=1)
def reciprocal(x):
    return 1 / as_float(x)  # phi ReciprocalFunctor: static_cast<T>(1) / x


# -- rounding: integer inputs come back unchanged ----------------------------------------------------

def _keep_ints(fn):
    return lambda x: fn(x) if x.is_floating_point() else x


REGISTRY.register("pd_op.floor", since=1)(_keep_ints(torch.floor))
REGISTRY.register("pd_op.ceil", since=1)(_keep_ints(torch.ceil))


@REGISTRY.register("pd_op.trunc", since=1)
def trunc(input):  # noqa: A002 - the operand's name in Paddle's spec
    if input.is_floating_point():
        return torch.trunc(input)
    # integers go through double and back: int64 values beyond 2^53 round, and those
    # that round to 2^63 come back as INT64_MIN (x86's conversion of an out-of-range double)
    return torch.trunc(input.to(torch.float64)).to(input.dtype)


def round_half_away(x):
    """std::round / Eigen's round: halves go away from zero (-2.5 -> -3, 0.49999997 -> 0)."""
    t = torch.trunc(x)
    return torch.where(torch.abs(x - t) >= 0.5, t + torch.sign(x), t)


def _round_decimals(x, decimals, rnd):
    if decimals == 0:
        return rnd(x)
    # ten_pow_decimals = static_cast<T>(std::pow(10, |decimals|)), then x * p / p or x / p * p
    # (|decimals| > 308: inf, as std::pow gives it; Python's 10.0 ** n would raise)
    p = torch.tensor(c_numerics.pow10(abs(decimals)), dtype=x.dtype)
    return rnd(x * p) / p if decimals > 0 else rnd(x / p) * p


def _round_parts(x, decimals, rnd):
    if x.is_complex():
        return torch.complex(_round_decimals(x.real, decimals, rnd),
                             _round_decimals(x.imag, decimals, rnd))
    if not x.is_floating_point():
        return x
    return _round_decimals(x, decimals, rnd)


@REGISTRY.register("pd_op.round", since=1, until=2, flags=Behaviour(
    notes="halves round away from zero (Eigen round, Paddle 3.0)"))
def round_v1(x, *, decimals=0):
    return _round_parts(x, decimals, round_half_away)


@REGISTRY.register("pd_op.round", since=2, flags=Behaviour(
    notes="halves round to even (std::rint, Paddle 3.1+; checked on the 3.1.1 wheel)"))
def round_(x, *, decimals=0):
    # std::rint in the default rounding mode is torch.round's half-to-even; NaN/Inf kept.
    # +-inf is kept even where 10^|decimals| overflows the type (inf * inf / inf would be
    # NaN, and is in 3.0.0): checked on the 3.3.1 wheel (kernel_cases round_decimals_400);
    # 3.1 / 3.2 are taken to be 3.3's, the kernel that brought rint
    out = _round_parts(x, decimals, torch.round)
    if decimals != 0 and x.is_floating_point():
        out = torch.where(torch.isinf(x), x, out)
    return out


@REGISTRY.register("pd_op.rint", since=2)
def rint(x):
    return torch.round(x) if x.is_floating_point() else x


@REGISTRY.register("pd_op.sign", since=1)
def sign(x):
    if x.is_complex():
        # x / |x|, 0 for 0
        a = torch.abs(x)
        return torch.where(a == 0, torch.zeros_like(x), x / a.to(x.dtype))
    if x.dtype == torch.bool:
        return x
    # Eigen's sign: NaN stays NaN, +-0 -> +0 (torch.sign keeps -0's sign)
    s = torch.sign(x)
    return torch.where(s == 0, torch.zeros_like(s), s) if x.is_floating_point() else s


# -- gamma family ---------------------------------------------------------------------------------------

@REGISTRY.register("pd_op.digamma", since=1, until=2, flags=Behaviour(
    notes="NaN at +-0 (Eigen digamma, Paddle 3.0)"))
def digamma_v1(x):
    x = as_float(x)
    return torch.where(x == 0, torch.full_like(x, math.nan), torch.digamma(x))


@REGISTRY.register("pd_op.digamma", since=2, flags=Behaviour(
    notes="-inf at +0, +inf at -0 (Paddle 3.1+; checked on the 3.1.1 wheel)"))
def digamma(x):
    # phi DigammaFunctor: x == 0 ? (signbit(x) ? +inf : -inf) : Eigen digamma(x)
    x = as_float(x)
    out = torch.digamma(x)
    inf = torch.full_like(x, math.inf)
    return torch.where(x == 0, torch.where(torch.signbit(x), inf, -inf), out)


@REGISTRY.register("pd_op.polygamma", since=1)
def polygamma(x, *, n=0):
    """phi PolygammaKernel (n >= 1): (n odd ? 1 : -1) * exp(lgamma(n + 1)) * zeta(n + 1, x),
    Cephes' zeta as Paddle copies it: +inf at x = 0 and the negative integers (and -inf),
    NaN at x = +inf (torch gives a finite value and 0 there)."""
    x = as_float(x)
    n = int(n)
    if n == 0:
        return digamma(x)
    factor = torch.exp(torch.lgamma(torch.tensor(n + 1.0, dtype=x.dtype)))
    z = torch.special.zeta(torch.tensor(n + 1.0, dtype=x.dtype), x)
    z = torch.where((x <= 0) & (x == torch.floor(x)), torch.full_like(x, math.inf), z)
    z = torch.where(x == math.inf, torch.full_like(x, math.nan), z)
    return (1.0 if n % 2 else -1.0) * factor * z


# -- float classes, logical and bitwise not -------------------------------------------------------------

@REGISTRY.register("pd_op.isfinite", since=1)
def isfinite(x):
    return torch.isfinite(x)


@REGISTRY.register("pd_op.isinf", since=1)
def isinf(x):
    return torch.isinf(x)


@REGISTRY.register("pd_op.logical_not", since=1)
def logical_not(x):
    return torch.logical_not(x)  # nonzero is true; the result is bool


@REGISTRY.register("pd_op.bitwise_not", since=1)
def bitwise_not(x):
    return torch.bitwise_not(x)  # bool: logical not


# -- complex ---------------------------------------------------------------------------------------------

@REGISTRY.register("pd_op.conj", since=1)
def conj(x):
    return torch.conj_physical(x)  # a real tensor comes back as it is


@REGISTRY.register("pd_op.angle", since=1, until=2, flags=Behaviour(
    notes="real NaN -> 0 (Paddle 3.0)"))
def angle_v1(x):
    # phi AngleFunctor for real x in 3.0: x < 0 ? pi : 0, with no NaN test
    if x.is_complex():
        return torch.angle(x)
    x = as_float(x)
    return torch.where(x < 0, torch.full_like(x, math.pi), torch.zeros_like(x))


@REGISTRY.register("pd_op.angle", since=2, flags=Behaviour(
    notes="real NaN stays NaN (Paddle 3.1+; checked on the 3.1.1 wheel)"))
def angle(x):
    # real x: NaN stays NaN, x < 0 -> pi, else 0 (-0 included); complex: arg(x)
    return torch.angle(x)


@REGISTRY.register("pd_op.as_real", since=1)
def as_real(x):
    return torch.view_as_real(x).clone()


@REGISTRY.register("pd_op.as_complex", since=1)
def as_complex(x):
    return torch.view_as_complex(x.contiguous()).clone()


# -- others ----------------------------------------------------------------------------------------------

@REGISTRY.register("pd_op.increment", since=1)
def increment(x, *, value=1.0):
    # out = x + static_cast<T>(value): an integer x adds the truncated value
    if x.is_floating_point():
        return x + torch.tensor(value, dtype=x.dtype)
    return x + c_int_cast(value, x.dtype)  # NaN, inf, 3e9: INT_MIN (Paddle 3.3.1)


@REGISTRY.register("pd_op.clip_by_norm", since=1)
def clip_by_norm(x, *, max_norm=1.0):
    """phi ClipByNormFunctor: n = sqrt(sum(x^2)); x * (n <= max ? 1 : max / (n + eps)),
    eps = 1e-6 only when n <= 1e-30."""
    n = torch.sqrt(torch.sum(x * x))
    keep = (n <= max_norm).to(x.dtype)
    eps = (n <= 1e-30).to(x.dtype) * 1e-6
    scaling = keep + (1 - keep) * max_norm / (n + eps)
    return x * scaling


@REGISTRY.register("pd_op.renorm", since=1)
def renorm(x, *, p=2.0, axis=0, max_norm=1.0):
    """phi RenormFunc: per index of `axis`, norm = (sum |x|^p)^(1/p); where norm > max_norm the
    slice is scaled by max_norm / norm. The sum is over x's type, (.)^(1/p) in double."""
    axis = axis % x.dim() if x.dim() else 0
    dims = [d for d in range(x.dim()) if d != axis]
    s = torch.sum(torch.pow(torch.abs(x), p), dim=dims, keepdim=True)
    # 1.0 / p in double: p == 0 gives inf (Paddle 3.3.1: every slice scaled by 0)
    norm = torch.pow(s.to(torch.float64), c_numerics.div(1.0, p)).to(x.dtype)
    factor = torch.where(norm > max_norm, max_norm / norm, torch.ones_like(norm))
    return torch.where(factor < 1.0, factor * x, x)


@REGISTRY.register("pd_op.check_numerics", since=1)
def check_numerics(tensor, *, op_type="", var_name="", check_nan_inf_level=0,
                   stack_height_limit=-1, output_dir=""):
    """stats = [#NaN, #Inf, #zero] (int64), values = [max, min, mean] as float32 (the mean is
    the sum of x_i / numel in x's type). Level 0 raises on a NaN or Inf as Paddle does."""
    flat = tensor.reshape(-1)
    nan, inf = torch.isnan(flat), torch.isinf(flat)
    stats = torch.stack([nan.sum(), inf.sum(), (flat == 0).sum()]).to(torch.int64)
    if check_nan_inf_level == 0 and bool((nan | inf).any()):
        raise FloatingPointError(
            f"check_numerics: there are NAN or INF in {op_type} {var_name}".rstrip())
    if flat.numel() == 0:
        return stats, torch.zeros(3, dtype=torch.float32)
    # std::min / std::max from the first element on: a NaN first element stays the answer,
    # a later NaN is skipped
    first = flat[0]
    rest = flat[1:]
    mx = torch.maximum(first, torch.max(torch.where(torch.isnan(rest), first, rest))) \
        if rest.numel() else first
    mn = torch.minimum(first, torch.min(torch.where(torch.isnan(rest), first, rest))) \
        if rest.numel() else first
    mean = torch.sum(flat / flat.numel())
    return stats, torch.stack([mx, mn, mean]).to(torch.float32)
