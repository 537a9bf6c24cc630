"""Element-wise arithmetic: add, multiply, divide, minimum/maximum, scale, pow, clip, ...

Paddle broadcasts like numpy, so torch's operators match; where Paddle's kernel does
something torch would not (scale truncating its factor for integers, maximum ignoring NaN
before Paddle 3.1) the kernel spells Paddle's rule out.
"""

from __future__ import annotations

import math

import torch

from ...runtime.registry import REGISTRY, Behaviour
from ..specialize import specializer
from .eigen_generic_pow import special_values
from .eigen_packets import eigen_packet_lanes
from .operands import INT_CAST_DTYPES, c_int_cast, number, scalar_like


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


def _is_float(t):
    return t.is_floating_point() or t.is_complex()


def _through_float(fn, x, y):
    """Paddle's integer fmax / fmin: int32 goes through float and lrint, int64 through double
    and llrint (phi FMaxFunctor<int>), so INT_MAX comes back as INT_MIN (2^31 wraps)."""
    if x.dtype == torch.int64:
        return fn(x.to(torch.float64), y.to(torch.float64)).to(torch.int64)
    return fn(x.to(torch.float32), y.to(torch.float32)).to(torch.int64).to(x.dtype)


def _fmax(x, y):
    # std::fmax as the wheel's libm gives it: a NaN loses to a number, and of two equal
    # values (0 and -0) the second operand wins, where torch.fmax keeps the first
    return torch.where(torch.isnan(y) | (x > y), x, y)


def _fmin(x, y):
    return torch.where(torch.isnan(y) | (x < y), x, y)


@REGISTRY.register("pd_op.fmax", since=1)
def fmax(x, y):
    return _fmax(x, y) if _is_float(x) else _through_float(_fmax, x, y)


@REGISTRY.register("pd_op.fmin", since=1)
def fmin(x, y):
    return _fmin(x, y) if _is_float(x) else _through_float(_fmin, x, y)


@REGISTRY.register("pd_op.atan2", since=1)
def atan2(x, y):
    # phi Atan2Functor: atan2f for every type but double; integer operands give float64
    # holding the float32 result
    if x.dtype == torch.float64:
        return torch.atan2(x, y)
    out = torch.atan2(x.to(torch.float32), y.to(torch.float32))
    return out if _is_float(x) else out.to(torch.float64)


@REGISTRY.register("pd_op.copysign", since=1)
def copysign(x, y):
    if _is_float(x):
        return torch.copysign(x, y)
    # std::copysign(int, int) computes in double and converts back: |INT_MIN| wraps to INT_MIN
    return torch.copysign(x.to(torch.float64), y.to(torch.float64)).to(x.dtype)


@REGISTRY.register("pd_op.heaviside", since=1, until=2, flags=Behaviour(
    notes="x of lower rank than y: the operands swap (no inverse functor)"))
def heaviside_v1(x, y):
    # Paddle 3.0.0's CPU ElementwiseCompute broadcasts the lower-rank x by calling the
    # functor as f(y, x), and heaviside has no inverse functor: heaviside(y, x) comes out
    # (checked on the 3.0.0 wheel; 3.3.1 computes heaviside(x, y))
    return heaviside(y, x) if x.dim() < y.dim() else heaviside(x, y)


@REGISTRY.register("pd_op.heaviside", since=2)
def heaviside(x, y):
    # x == 0 ? y : (x > 0): a NaN x gives 0
    return torch.where(x == 0, y, (x > 0).to(x.dtype))


@REGISTRY.register("pd_op.nextafter", since=1)
def nextafter(x, y):
    return torch.nextafter(x, y)


@REGISTRY.register("pd_op.floor_divide", since=1)
def floor_divide(x, y):
    # Integers: floor division (Paddle raises on a zero divisor, as torch does). Floats: the
    # fmod-based rule torch's div_floor uses too (b == 0 gives a / b; a zero quotient keeps
    # the sign of a / b).
    return torch.div(x, y, rounding_mode="floor")


def exact_fmod(x, y):
    """C's fmod, exact. torch's vectorised fmod goes wrong (NaN) where x / y overflows:
    float32 is exact through double (the quotient stays below 2^277); float64 first reduces
    by y * 2^2000, 2^1500, ... (exact multiples of y, or inf, which leaves x alone) so that no
    step's quotient passes 2^500."""
    if x.dtype == torch.float32 or x.dtype == torch.float16 or x.dtype == torch.bfloat16:
        return torch.fmod(x.to(torch.float64), y.to(torch.float64)).to(x.dtype)
    if x.dtype != torch.float64:
        return torch.fmod(x, y)
    step = [y]
    for _ in range(4):
        step.append(step[-1] * 2.0 ** 500)
    res = x
    for m in reversed(step):
        res = torch.fmod(res, m)
    return res


@REGISTRY.register("pd_op.remainder", since=1)
def remainder(x, y):
    # phi RemainderFunctor: fmod (C's % for integers), then + y where a nonzero remainder's
    # sign differs from y's; -0 stays -0. torch.remainder's x - y * floor(x / y) differs
    # where x / y overflows (max % denormal is 0 here, NaN there).
    res = exact_fmod(x, y)
    fix = (res != 0) & ((res < 0) != (y < 0))
    return torch.where(fix, res + y, res)


@REGISTRY.register("pd_op.trunc_divide", since=4)
def trunc_divide(x, y):
    return torch.div(x, y, rounding_mode="trunc")


def _int_pow(x, y):
    """phi compute_pow for integers: std::pow in double, converted back (an overflow or
    inf becomes the type's minimum, as x86's conversion gives it; int64 operands lose
    their low bits in double first)."""
    return torch.pow(x.to(torch.float64), y.to(torch.float64)).to(x.dtype)


@REGISTRY.register("pd_op.elementwise_pow", since=1, until=2, flags=Behaviour(
    notes="integer 0 ** negative is the type's minimum (inf converted)"))
def elementwise_pow_v1(x, y):
    return float_pow(x, y) if _is_float(x) else _int_pow(x, y)


@REGISTRY.register("pd_op.elementwise_pow", since=2, until=4, flags=Behaviour(
    notes="integer 0 ** negative is 0 (Paddle PR 73274, aligned with torch)"))
def elementwise_pow_v2(x, y):
    if _is_float(x):
        return float_pow(x, y)
    return torch.where((x == 0) & (y < 0), torch.zeros_like(x), _int_pow(x, y))


# Paddle 3.3.1's double pow overflows early: DBL_MAX ** 1 and 2 ** 1023.9999999 are +inf.
# Bisected on the 3.3.1 wheel over y for x = 2, then checked at x = 3, 10, 0.1 and DBL_MAX:
# a result overflows exactly when y * log2|x| reaches this threshold (1024 - 2.5e-6), which
# 3.2.2 (threshold 1024) and float32 (128) do not show.
_F64_POW_OVERFLOW_LOG2 = 1023.9999974841901


@REGISTRY.register("pd_op.elementwise_pow", since=4, flags=Behaviour(
    notes="float64 overflows at y * log2|x| >= 1024 - 2.5e-6 (Paddle 3.3)"))
def elementwise_pow(x, y):
    out = elementwise_pow_v2(x, y)
    if out.dtype != torch.float64:
        return out
    t = torch.as_tensor(y, dtype=torch.float64) * torch.log2(torch.abs(x))
    early = torch.isfinite(out) & (t >= _F64_POW_OVERFLOW_LOG2)
    return torch.where(early, torch.copysign(torch.full_like(out, math.inf), out), out)


@REGISTRY.register("pd_op.lerp", since=1)
def lerp(x, y, weight):
    # phi LerpFunction: x + weight * (y - x) in one formula (not torch.lerp's two-sided one)
    return x + weight * (y - x)


@REGISTRY.register("pd_op.masked_fill", since=2)
def masked_fill(x, mask, value):
    return torch.where(mask.to(torch.bool), value.to(x.dtype), x)


@REGISTRY.register("pd_op.multiplex", since=1)
def multiplex(inputs, index):
    # row i of the output is row i of inputs[index[i]]
    stacked = torch.stack(list(inputs))
    rows = torch.arange(stacked.shape[1])
    return stacked[index.reshape(-1).to(torch.int64), rows]


_MAXLOG = 7.09782712893383996732e2
_MACHEP = 1.11022302462515654042e-16


def _igam_series(a, x, active):
    """Cephes igam's power series in a's dtype: sum of x^n / (a+1)...(a+n), each lane
    iterating until its term falls below MACHEP of the sum (Paddle's do-while loop)."""
    r, c, ans = a.clone(), torch.ones_like(a), torch.ones_like(a)
    active = active.clone()
    for _ in range(10000):
        if not bool(active.any()):
            break
        r = torch.where(active, r + 1, r)
        c = torch.where(active, c * (x / r), c)
        ans = torch.where(active, ans + c, ans)
        active = active & ((c / ans).to(torch.float64) > _MACHEP)
    return ans


def _igamc_fraction(a, x, active):
    """Cephes igamc's continued fraction in a's dtype (Paddle's loop, rescaling by 2^-52
    when the numerators pass 2^52)."""
    big = torch.tensor(4.503599627370496e15, dtype=a.dtype)
    biginv = torch.tensor(2.22044604925031308085e-16, dtype=a.dtype)
    y = 1 - a
    z = x + y + 1
    c = torch.zeros_like(a)
    pkm2, qkm2 = torch.ones_like(a), x.clone()
    pkm1 = x + 1
    qkm1 = z * x
    ans = pkm1 / qkm1
    active = active.clone()
    for _ in range(10000):
        if not bool(active.any()):
            break
        c, y, z = c + 1, y + 1, z + 2
        yc = y * c
        pk = pkm1 * z - pkm2 * yc
        qk = qkm1 * z - qkm2 * yc
        nonzero = qk != 0
        r = pk / torch.where(nonzero, qk, torch.ones_like(qk))
        t = torch.where(nonzero, ((ans - r) / r).abs(), torch.ones_like(r))
        ans = torch.where(active & nonzero, r, ans)
        scale = pk.abs() > big
        new = [torch.where(scale, v * biginv, v) for v in (pkm1, pk, qkm1, qk)]
        pkm2 = torch.where(active, new[0], pkm2)
        pkm1 = torch.where(active, new[1], pkm1)
        qkm2 = torch.where(active, new[2], qkm2)
        qkm1 = torch.where(active, new[3], qkm1)
        active = active & (t.to(torch.float64) > _MACHEP)
    return ans


@REGISTRY.register("pd_op.gammaincc", since=1)
def gammaincc(x, y):
    """Q(x, y) as phi's GammainccKernel computes it: Cephes igamc(a=x, x=y) in the input's
    dtype (float32 stays float32, so it is far less accurate than torch.special.gammaincc),
    1 where y <= 0 or x <= 0, and element by element without broadcasting."""
    a, v = x, y
    valid = ~((v <= 0) | (a <= 0))
    series = valid & ((v < 1) | (v < a))
    fraction = valid & ~series
    ax = a * torch.log(v) - v - torch.lgamma(a)
    small = ax.to(torch.float64) < -_MAXLOG
    ax = torch.exp(ax)
    # series: igamc = 1 - igam, igam = ans * ax / a (0 when ax underflows)
    igam = _igam_series(a, v, series & ~small) * ax / a
    out_series = 1 - torch.where(small, torch.zeros_like(igam), igam)
    cf = _igamc_fraction(a, v, fraction & ~small) * ax
    out_fraction = torch.where(small, torch.zeros_like(cf), cf)
    out = torch.where(series, out_series, out_fraction)
    return torch.where(valid, out, torch.ones_like(out))


@REGISTRY.register("pd_op.add_n_", since=1)  # in place into inputs[0], the same sum
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
    elif x.dtype in INT_CAST_DTYPES:
        # Paddle casts scale and bias to the integer type first (Scalar::to<T>, a C++
        # static_cast): scale(7, 1.5, 0.7) == 7, and NaN or inf is INT_MIN (c_int_cast);
        # the integer product and sum then wrap, in Paddle's kernel as in torch's.
        s = torch.tensor(c_int_cast(scale, x.dtype), dtype=x.dtype)
        b = torch.tensor(c_int_cast(bias, x.dtype), dtype=x.dtype)
    else:
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
    if isinstance(y, (int, float)) and y in (0.5, -0.5):
        # torch turns a +-0.5 exponent into sqrt / rsqrt: sqrt(-inf) = NaN, sqrt(-0) = -0,
        # rsqrt(-0) = -inf, rsqrt(-inf) = NaN where pow gives +inf, +0, +inf and 0 (checked
        # on the 3.3.1 wheel); a tensor exponent keeps pow
        y = torch.tensor(y, dtype=torch.float64)
    if x.dtype in (torch.float32, torch.float16, torch.bfloat16):
        return torch.pow(x.to(torch.float64), y).to(x.dtype)
    return torch.pow(x, y)


@REGISTRY.register("pd_op.pow", since=1)
def pow_(x, *, y=1.0):
    """phi PowKernel: Eigen's `x.pow(T(factor))` on the flattened tensor (a float factor).
    Eigen evaluates full packets (8 float32 / 4 float64, eigen_packets.py) with its
    generic_pow and the scalar tail with std::pow.  generic_pow's special cases are kept
    exactly (`_generic_pow_specials`); its ordinary results are 1 ulp from the correctly
    rounded power on ~4% of values (x ** 2: 88,644 of 2,000,000 float32), which this kernel
    does not reproduce: the bit-exact emulation (eigen_generic_pow.py, pow_coo_sp's kernel)
    costs some 200 tensor operations a call (1.7 ms on a [1, 8, 64] tensor, 400 times x * x)
    and made every RMS-norm transformer of the zoo slower than Paddle."""
    if not x.is_floating_point():
        return torch.pow(x, c_int_cast(y, x.dtype))  # Paddle casts the exponent to x's type
    if x.dtype not in (torch.float32, torch.float64):
        return float_pow(x, y)
    y = float(torch.tensor(float(y), dtype=torch.float32))  # the attribute is a float
    return _generic_pow_specials(x, y, float_pow(x, y))


def _generic_pow_specials(x, y: float, out):
    """`out` with generic_pow's special values on x's full packets.  They differ from C's
    only for an odd integer y (other than 1), whose sign generic_pow drops: so only then is
    its selection (eigen_generic_pow.special_values) applied, and a zero result made +0 (a
    negative result that underflows: AVX's pnegate is 0 - r)."""
    if y == 1 or not (math.isfinite(y) and y == math.floor(y) and y % 2 == 1):
        return out
    eigen = special_values(x, y, out)
    eigen = torch.where(eigen == 0, torch.zeros_like(eigen), eigen)
    return torch.where(eigen_packet_lanes(x), eigen, out)


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
        # the kernel's integer rule (Python ints keep x's dtype)
        s, b = c_int_cast(s, site.dtype(x)), c_int_cast(b, site.dtype(x))
    elif site.dtype(x) not in _REAL_FLOATS:
        return None
    # float32 / float64: the numbers as 0-d tensors of x's dtype (Site.scalar: the same
    # bits, without torch wrapping each number on every call)
    if s == 1:
        # x * 1 is x exactly: either order is x + b
        return site.call(torch.add, x, site.scalar(b, site.dtype(x)))
    if s == -1 and site.p["bias_after_scale"] and site.dtype(x) in _REAL_FLOATS:
        # x * -1 is -x exactly, and -x + b is b - x by definition (the +0.0 bias turns
        # -0 into +0 as 0 - x does; a NaN x comes back as itself either way): one call
        return site.call(torch.rsub, x, site.scalar(b, site.dtype(x)))
    s, b = site.scalar(s, site.dtype(x)), site.scalar(b, site.dtype(x))
    if site.p["bias_after_scale"]:
        return site.method("add_", site.call(torch.mul, x, s), b)
    return site.method("mul_", site.call(torch.add, x, b), s)


@specializer(pow_)
def _pow_call(site):
    """A float32 / float64 pow by a number: the exponent's float32 value taken once (the
    kernel builds a 0-D tensor and reads it back on every call), then the kernel's own
    calls: x ** 2 is x * x (float32: the double square of a float is exact, so rounding it
    to float is the correctly rounded float square, which is what x * x gives; float64: torch's
    pow by 2 is x * x), any other power the kernel's double pow rounded back.  The
    exponents the kernel treats apart stay with it: an odd integer (generic_pow's special
    values) and +-0.5 (a tensor exponent)."""
    x, y = site.p["x"], site.p["y"]
    dtype = site.dtype(x)
    if dtype not in _REAL_FLOATS or type(y) not in (int, float):
        return None
    y = float(torch.tensor(float(y), dtype=torch.float32))
    if y in (0.5, -0.5) or (math.isfinite(y) and y == math.floor(y) and y % 2 == 1 and y != 1):
        return None
    if y == 2:
        return site.call(torch.mul, x, x)
    if dtype == torch.float64:
        return site.call(torch.pow, x, y)
    return site.method("to", site.call(torch.pow, site.method("to", x, dtype=torch.float64), y),
                       dtype=torch.float32)


@specializer(cast)
def _cast_call(site):
    x, dtype = site.p["x"], site.p["dtype"]
    if dtype is None or site.dtype(x) == dtype:
        return x  # an identity: taken only where x is computed in the graph
    # dtype by keyword: the same overload of Tensor.to, without torch first trying the
    # positional dtype as a device (~0.7 us of argument parsing at batch 1)
    return site.method("to", x, dtype=dtype)


@specializer(cast_v1)
def _cast_v1_call(site):
    x, dtype = site.p["x"], site.p["dtype"]
    if dtype == torch.float16 and site.dtype(x) in (None, torch.float32):
        return None  # the truncating conversion
    return _cast_call(site)
