"""Eigen's generic_pow, bit for bit: how Paddle's CPU kernels compute `x.pow(y)` in full
AVX packets.

Paddle's PowKernel (phi's PowFunctor, `x.pow(factor)` on an Eigen tensor) evaluates full
packets with Eigen's generic_pow (Eigen/src/Core/arch/Default/GenericPacketMathFunctions.h at
the commit Paddle pins, f612df27) and the scalar tail with std::pow (eigen_packets.py says
which is which).  generic_pow settles the special cases its own way, then computes |x|^y as
exp2(y * log2|x|) in double-word arithmetic: log2 of the mantissa by a minimax polynomial with
extra-precise constants, the product with y by Dekker's algorithm (the wheels are built
without FMA: Veltkamp splitting), exp2 of the fractional part by another polynomial, and the
integer part put back by four exact multiplications by powers of two.  Each step is written
here with the same float operations in the same order, so the result is Eigen's to the bit:
checked against the 3.3.1 wheel (sparse pow's values) on 8,624 float32 and 12,040 float64
values, normal, denormal and near the overflow, with 14 exponents; FMA contraction would give
110 float32 differences there, so the wheel's build has none.  A correctly rounded power
differs from it by 1 ulp on about 3 % of the values.
"""

from __future__ import annotations

import math

import torch


def generic_pow(x: torch.Tensor, y: float) -> torch.Tensor:
    """generic_pow(x, y) for a float32 / float64 tensor x and a scalar exponent y (already
    of x's type)."""
    if y == 1:
        return x.clone()
    pow_abs = _pow_impl(torch.abs(x), y)
    # pnegate on AVX is 0 - r: an underflow to +0 stays +0
    return special_values(x, y, torch.where((x < 0) & (not _even(y)), 0 - pow_abs, pow_abs))


def special_values(x: torch.Tensor, y: float, out: torch.Tensor) -> torch.Tensor:
    """`out` (the power computed for the general case) with generic_pow's selection of its
    special cases: 1 (x = 1, y = 0, x = -1 with y infinite or even), NaN (NaN operands, a
    negative finite x with a non-integer finite y), +0 and +inf (a zero or infinite x, and
    |y| huge), each without the sign C's pow gives an odd power."""
    dt = x.dtype
    inf = math.inf
    max_exponent = 1024 if dt == torch.float64 else 128  # numeric_limits::max_exponent
    huge = (max_exponent * math.log(2)) / torch.finfo(dt).eps
    ax = torch.abs(x)
    x_zero, x_neg, ax_inf = x == 0, x < 0, ax == inf
    ax_one, ax_gt_one, ax_lt_one = ax == 1, ax > 1, ax < 1
    x_one, x_neg_one = ax_one & ~x_neg, ax_one & x_neg
    y_int = math.isfinite(y) and math.floor(y) == y or math.isinf(y)
    y_pos, y_neg, y_inf, y_huge = y > 0, y < 0, math.isinf(y), abs(y) >= huge
    invalid_neg = x_neg & ~ax_inf & (not y_int) & (not y_inf)
    pow_one = x_one | (y == 0) | (x_neg_one & (y_inf | (_even(y) & ~invalid_neg)))
    pow_nan = invalid_neg | torch.isnan(x) | (y != y)
    pow_zero = (x_zero & y_pos) | (ax_inf & y_neg) | (ax_lt_one & y_huge & y_pos) \
        | (ax_gt_one & y_huge & y_neg)
    pow_inf = (x_zero & y_neg) | (ax_inf & y_pos) | (ax_lt_one & y_huge & y_neg) \
        | (ax_gt_one & y_huge & y_pos)
    out = torch.where(pow_zero, torch.zeros_like(x), out)
    out = torch.where(pow_inf, torch.full_like(x, inf), out)
    out = torch.where(pow_nan, torch.full_like(x, math.nan), out)
    return torch.where(pow_one, torch.ones_like(x), out)


def _even(y: float) -> bool:
    return math.isfinite(y) and round(y * 0.5) == y * 0.5 or math.isinf(y)


# --- double-word arithmetic (Muller, "Elementary Functions", as Eigen writes it) --------------

def _madd(a, b, c):
    return a * b + c  # pmadd without FMA: two roundings


def _fast_twosum(x, y):
    s = x + y
    return s, y - (s - x)


def _split(x):
    # Veltkamp: gamma = (2^shift + 1) * x, shift = (digits + 1) / 2
    shift = 27 if x.dtype == torch.float64 else 12
    gamma = float(2 ** shift + 1) * x
    hi = (x - gamma) + gamma
    return hi, x - hi


def _twoprod(x, y):
    xh, xl = _split(x)
    yh, yl = _split(y)
    hi = x * y
    lo = _madd(xh, yh, -hi)
    lo = _madd(xh, yl, lo)
    lo = _madd(xl, yh, lo)
    return hi, _madd(xl, yl, lo)


def _twoprod_dw(x_hi, x_lo, y):
    c_hi, c_lo1 = _twoprod(x_hi, y)
    t_hi, t_lo1 = _fast_twosum(c_hi, x_lo * y)
    return _fast_twosum(t_hi, t_lo1 + c_lo1)


def _twoprod_dw_dw(x_hi, x_lo, y_hi, y_lo):
    a_hi, a_lo = _twoprod_dw(x_hi, x_lo, y_hi)
    b_hi, b_lo = _twoprod_dw(x_hi, x_lo, y_lo)
    return _fast_twosum_dw(a_hi, a_lo, b_hi, b_lo)


def _fast_twosum_dw(x_hi, x_lo, y_hi, y_lo):
    r_hi, r_lo = _fast_twosum(x_hi, y_hi)
    return _fast_twosum(r_hi, (y_lo + r_lo) + x_lo)


def _fast_twosum_f_dw(x, y_hi, y_lo):
    r_hi, r_lo = _fast_twosum(x, y_hi)
    return _fast_twosum(r_hi, y_lo + r_lo)


def _twosum_dw(x_hi, x_lo, y_hi, y_lo):
    first = torch.abs(y_hi) < torch.abs(x_hi)
    r_hi_1, r_lo_1 = _fast_twosum(x_hi, y_hi)
    r_hi_2, r_lo_2 = _fast_twosum(y_hi, x_hi)
    r_hi = torch.where(first, r_hi_1, r_hi_2)
    s = torch.where(first, (y_lo + r_lo_1) + x_lo, (x_lo + r_lo_2) + y_lo)
    return _fast_twosum(r_hi, s)


def _c(v, like):
    return torch.tensor(v, dtype=like.dtype)


# --- log2 of the mantissa, exp2 of the fraction ----------------------------------------------

def _log2_float(z):
    """accurate_log2<float>: log2(1 + x)/x by a degree 10 polynomial, x = z - 1."""
    c = lambda v: _c(v, z)  # noqa: E731
    x = z - c(1.0)
    x2 = x * x
    pe = _madd(_madd(_madd(c(9.703654795885e-2), x2, c(0.1720575392246)), x2,
                     c(0.2050433009862)), x2, c(0.2885761857032))
    po = _madd(_madd(c(-0.1690667718648), x2, c(-0.1789081543684)), x2, c(-0.2404672354459))
    p = _madd(po, x, pe)
    t_hi, t_lo = _twoprod(p, x)
    q_hi, q_lo = _fast_twosum_dw(c(-0.360674142838), c(-6.13283912543e-09), t_hi, t_lo)
    for hi, lo in ((0.480897903442, -1.44861207474e-08), (-0.721347510815, -4.84483164698e-09),
                   (1.44269502163, 2.01711713999e-08)):
        t_hi, t_lo = _twoprod_dw(q_hi, q_lo, x)
        q_hi, q_lo = _fast_twosum_dw(c(hi), c(lo), t_hi, t_lo)
    return _twoprod_dw(q_hi, q_lo, x)


def _log2_double(z):
    """accurate_log2<double>: r = c (z - 1) / (z + 1), an odd polynomial in r."""
    c = lambda v: _c(v, z)  # noqa: E731
    one = c(1.0)
    num_hi, num_lo = _twoprod_dw(c(2.88539008177792677), c(4.07660016854549667e-17), z - one)
    d = z + one
    approx = 1.0 / torch.sqrt(d)  # prsqrt on AVX doubles: 1 / sqrt
    approx = approx * approx
    t1_hi, t1_lo = _twoprod(-d, approx)
    t2_hi, t2_lo = _fast_twosum(c(2.0), t1_hi)
    t3_hi, t3_lo = _fast_twosum(t2_hi, t2_lo + t1_lo)
    den_hi, den_lo = _twoprod_dw(t3_hi, t3_lo, approx)
    r_hi, r_lo = _twoprod_dw_dw(num_hi, num_lo, den_hi, den_lo)
    r2_hi, r2_lo = _twoprod_dw_dw(r_hi, r_lo, r_hi, r_lo)
    r4_hi, _ = _twoprod_dw_dw(r2_hi, r2_lo, r2_hi, r2_lo)
    qe = _madd(_madd(_madd(c(2.87074255468000586e-9), r4_hi, c(2.31032094540014656e-7)), r4_hi,
                     c(2.31271023278625638e-5)), r4_hi, c(2.88543873228900172e-3))
    qo = _madd(_madd(c(2.38957980901884082e-8), r4_hi, c(2.27279857398537278e-6)), r4_hi,
               c(2.47556738444535513e-4))
    q = _madd(qo, r2_hi, qe)
    p_hi, p_lo = _twoprod_dw(r2_hi, r2_lo, q)
    p1_hi, p1_lo = _fast_twosum_dw(c(0.0400377511598501157), c(-4.77726582251425391e-19),
                                   p_hi, p_lo)
    p2_hi, p2_lo = _twoprod_dw_dw(r2_hi, r2_lo, p1_hi, p1_lo)
    p3_hi, p3_lo = _fast_twosum_f_dw(one, p2_hi, p2_lo)
    return _twoprod_dw_dw(p3_hi, p3_lo, r_hi, r_lo)


_EXP2_FLOAT = (1.539513905e-4, 1.340007293e-3, 9.618283249e-3, 5.550328270e-2, 0.2402264923)
_EXP2_FLOAT_C = (0.6931471825, 2.36836577e-08)
_EXP2_DOUBLE = (4.431642109085495276e-10, 7.073829923303358410e-9, 1.017822306737031311e-7,
                1.321543498017646657e-6, 1.525273342728892877e-5, 1.540353045780084423e-4,
                1.333355814685869807e-3, 9.618129107593478832e-3, 5.550410866481961247e-2,
                0.240226506959101332)
_EXP2_DOUBLE_C = (0.693147180559945286, 4.81927865669806721e-17)


def _exp2(x):
    """fast_accurate_exp2: 1 + x (C + x P(x)) on [-0.5, 0.5], P's even and odd halves apart."""
    c = lambda v: _c(v, x)  # noqa: E731
    x2 = x * x
    if x.dtype == torch.float64:
        p9, p8, p7, p6, p5, p4, p3, p2, p1, p0 = map(c, _EXP2_DOUBLE)
        pe = _madd(_madd(_madd(_madd(p8, x2, p6), x2, p4), x2, p2), x2, p0)
        po = _madd(_madd(_madd(_madd(p9, x2, p7), x2, p5), x2, p3), x2, p1)
        hi, lo = _EXP2_DOUBLE_C
    else:
        p4, p3, p2, p1, p0 = map(c, _EXP2_FLOAT)
        pe = _madd(_madd(p4, x2, p2), x2, p0)
        po = _madd(p3, x2, p1)
        hi, lo = _EXP2_FLOAT_C
    p = _madd(po, x, pe)
    p_hi, p_lo = _twoprod(p, x)
    q1_hi, q1_lo = _twosum_dw(p_hi, p_lo, c(hi), c(lo))
    q2_hi, q2_lo = _twoprod_dw(q1_hi, q1_lo, x)
    q3_hi, q3_lo = _fast_twosum(c(1.0), q2_hi)
    return q3_hi + (q2_lo + q3_lo)


# --- frexp / ldexp on the bits ---------------------------------------------------------------

def _layout(dt):
    if dt == torch.float64:
        return torch.int64, 52, 1023, 0x7FF0000000000000, 0x3FE0000000000000
    return torch.int32, 23, 127, 0x7F800000, 0x3F000000


def _frexp(a):
    """pfrexp_generic: a = m 2^e, m in [0.5, 1), denormals scaled by 2^(mantissa+1) first."""
    it, mant, bias, exp_mask, half = _layout(a.dtype)
    den = torch.abs(a) < torch.finfo(a.dtype).tiny
    na = torch.where(den, a * float(2 ** (mant + 1)), a)
    bits = na.view(it)
    e = ((bits >> mant) & (exp_mask >> mant)).to(a.dtype)
    offset = torch.where(den, _c(-(bias - 1) - (mant + 1), a), _c(-(bias - 1), a))
    m = ((bits & ~exp_mask) | half).view(a.dtype)
    return m, e + offset


def _ldexp(a, e):
    """pldexp_generic: e clamped, then a * 2^b * 2^b * 2^b * 2^(e - 3b), b = floor(e / 4)."""
    it, mant, bias, exp_mask, _ = _layout(a.dtype)
    limit = float((exp_mask >> mant) + mant - 1)
    ei = torch.clamp(e, -limit, limit).to(it)
    b = ei >> 2
    c = ((b + bias) << mant).view(a.dtype)
    out = a * c * c * c
    c = ((ei - b - b - b + bias) << mant).view(a.dtype)
    return out * c


def _pow_impl(x, y):
    """generic_pow_impl: x > 0 (other lanes are discarded by the caller)."""
    yv = torch.full_like(x, y)
    m, e = _frexp(x)
    low = m < _c(0.70710678118654752440, x)
    m = torch.where(low, 2.0 * m, m)
    e = torch.where(low, e - 1.0, e)
    rx_hi, rx_lo = (_log2_double if x.dtype == torch.float64 else _log2_float)(m)
    f1_hi, f1_lo = _twoprod(e, yv)
    f2_hi, f2_lo = _twoprod_dw(rx_hi, rx_lo, yv)
    f_hi, f_lo = _fast_twosum_dw(f1_hi, f1_lo, f2_hi, f2_lo)
    n = _round(f_hi)
    r = (f_hi - n) + f_lo
    n_r = _round(r)
    return _ldexp(_exp2(r - n_r), n + n_r)


def _round(a):
    # pround on AVX: round half away from zero (a + copysign(pred(0.5), a), truncated)
    below_half = torch.nextafter(_c(0.5, a), _c(0.0, a))
    return torch.trunc(a + torch.copysign(below_half, a))
