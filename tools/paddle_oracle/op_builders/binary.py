"""Builders of the binary element-wise ops, comparisons, logical and bitwise ops, and the loss
ops; plus `OP__boundary` programs for the binary ops section7.py already covers (NaN, +-Inf,
-0 operands, integer overflow, zero-size broadcasting, int/bool dtypes).

Most programs take the same shape: every pair of special values of a dtype
(`grid(f, dtype)`: boundary() x boundary() for floats, int_boundary() x int_boundary() for
integers), then broadcasting against a [4] operand, a 0-d operand, a [0, 3] operand and a
dynamic leading dim. Integer division by zero raises in Paddle's CPU kernels (EnforceNotMet
"Integer division by zero") and INT_MIN / -1 kills the process (SIGFPE, checked on both
wheels), so the integer grids of the dividing ops drop those divisors.
"""
import numpy as np
import paddle
import paddle.nn.functional as F

from . import Feeds, arr, boundary, int_boundary, op  # noqa: F401
from . import gf

_C = paddle._C_ops
V300 = gf.PADDLE_VERSION.startswith("3.0.")


def grid(f, dtype, p="", divisor=False, xs=None, ys=None):
    """Feeds `p`x, `p`y holding every pair of the dtype's special values (1-D).

    divisor: drop y == 0 for integers (Paddle raises) and the INT_MIN / -1 pair (SIGFPE)."""
    if xs is None and dtype == "uint8":
        xs = np.array([0, 1, 2, 5, 7, 127, 128, 254, 255], dtype)
    elif xs is None:
        xs = int_boundary(dtype) if dtype.startswith("int") else boundary(dtype)
    ys = xs if ys is None else ys
    x, y = np.repeat(xs, len(ys)), np.tile(ys, len(xs))
    if divisor and dtype.startswith("int"):
        keep = (y != 0) & ~((x == np.iinfo(dtype).min) & (y == -1))
        x, y = x[keep], y[keep]
    return f(p + "x", None, value=x), f(p + "y", None, value=y)


def flat(o):
    """An op's results as a list, whether the API gives one tensor or a tuple."""
    return list(o) if isinstance(o, (list, tuple)) else [o]


def bools(f, p="b"):
    v = np.array([False, True])
    return f(p + "x", None, value=np.repeat(v, 2)), f(p + "y", None, value=np.tile(v, 2))


def shapes(f, fn, dtype="float32", lo=None, hi=None, dyn=True):
    """fn on broadcast operands: [2, 3, 4] with [4], 0-d with 0-d and with [2, 3, 4], a
    [0, 3] with a [3], and a dynamic leading dim."""
    a, b = f("sa", [2, 3, 4], dtype, lo, hi), f("sb", [4], dtype, lo, hi)
    s = f("ss", [], dtype, lo, hi)
    w = f("sw", [3], dtype, lo, hi)
    d = f("sd", [2, 3], dtype, lo, hi, dyn=[-1, 3]) if dyn else None
    outs = [fn(a, b), fn(b, a), fn(s, s), fn(a, s), fn(f("sz", [0, 3], dtype, lo, hi), w)]
    return outs + ([fn(d, w)] if dyn else [])


def binary(f, fn, floats=("float32", "float64"), ints=(), bool_=False, divisor=False,
           shape_dtype="float32", lo=None, hi=None, dyn=True):
    outs = [fn(*grid(f, dt, dt, divisor=divisor)) for dt in floats + tuple(ints)]
    if bool_:
        outs.append(fn(*bools(f)))
    return outs + shapes(f, fn, shape_dtype, lo, hi, dyn)


# --- arithmetic ----------------------------------------------------------------------------

@op("atan2")
def _atan2(f):
    # the kernel does not broadcast (paddle.atan2 expands both operands first)
    i, j = f("i", [6], "int32", -5, 5), f("j", [6], "int64", -5, 5)
    outs = [paddle.atan2(*grid(f, dt, dt)) for dt in ("float32", "float64")]
    s, z = f("s", []), f("z", [0, 3])
    d, e = f("d", [2, 3], dyn=[-1, 3]), f("e", [2, 3], dyn=[-1, 3])
    return outs + [paddle.atan2(i, i[::-1]), paddle.atan2(j, j[::-1]), paddle.atan2(s, s),
                   paddle.atan2(z, z), paddle.atan2(d, e)], {}


@op("copysign")
def _copysign(f):
    return binary(f, paddle.copysign, ints=("int32", "int64")), {}


@op("fmax")
def _fmax(f):
    return binary(f, paddle.fmax, ints=("int32", "int64")), {}


@op("fmin")
def _fmin(f):
    return binary(f, paddle.fmin, ints=("int32", "int64")), {}


def _dividing(f, fn, xs, ys):
    """A dividing op: the grids without the divisors Paddle rejects, integer shapes in
    [1, 9) (no zero divisor), and a few signed float quotients."""
    x = f("fx", [6], value=np.array(xs, "float32"))
    y = f("fy", [6], value=np.array(ys, "float32"))
    return binary(f, fn, ints=("int32", "int64"), divisor=True, shape_dtype="int32",
                  lo=1, hi=9) + [fn(x, y)], {}


@op("floor_divide")
def _floor_divide(f):
    return _dividing(f, paddle.floor_divide, [7, -7, 7, -7, 0.5, 1e30],
                     [2, 2, -2, -2, 0.1, 3e-10])


@op("remainder")
def _remainder(f):
    return _dividing(f, paddle.remainder, [7, -7, 7, -7, 5.5, 1e30],
                     [3, 3, -3, -3, 0.1, 3e-10])


@op("elementwise_pow")
def _elementwise_pow(f):
    small = np.array([-3, -2, -1, 0, 1, 2, 3, 31, 40], "int32")
    outs = binary(f, paddle.pow, ints=("int64",))
    outs.append(paddle.pow(*grid(f, "int32", "p", xs=small)))
    return outs, {}


@op("heaviside")
def _heaviside(f):
    return binary(f, paddle.heaviside, ints=("int32", "int64")), {}


@op("nextafter")
def _nextafter(f):
    if V300:
        # 3.0.0's kernel wants equal shapes ("x and y must have same shape"); 3.3 broadcasts
        outs = [paddle.nextafter(*grid(f, dt, dt)) for dt in ("float32", "float64")]
        s, z = f("ss", []), f("sz", [0, 3])
        return outs + [paddle.nextafter(s, s), paddle.nextafter(z, z)], {}
    return binary(f, paddle.nextafter), {}


@op("trunc_divide", expect="pd_op.trunc_divide is new in Paddle 3.3 (3.0.0 has no such op "
                           "nor divide(rounding_mode=))")
def _trunc_divide(f):
    fn = lambda x, y: paddle.divide(x, y, rounding_mode="trunc")  # noqa: E731
    return binary(f, fn, ints=("int32", "int64"), divisor=True, shape_dtype="int32",
                  lo=1, hi=9), {}


@op("lerp")
def _lerp(f):
    x, y = grid(f, "float32")
    w = f("w", None, value=np.tile(np.array([0, 0.25, 0.5, 0.75, 1, -1, 2], "float32"),
                                   len(boundary()) ** 2 // 7))
    a, b, c = f("a", [2, 3, 4]), f("b", [4]), f("c", [3, 1])
    d, e = f("d", [3], "float64"), f("e", [3], "float64")
    outs = [paddle.lerp(x, y, w), paddle.lerp(x, y, 0.3), paddle.lerp(a, b, c),
            paddle.lerp(a, b, 0.7), paddle.lerp(d, e, 0.5),
            paddle.lerp(d, e, paddle.full([], 0.1, "float64"))]
    if not V300:  # 3.0.0 raises "LerpKernel's input x must not empty"
        outs.append(paddle.lerp(f("z", [0, 4]), b, 0.5))
    return outs, {}


@op("gammaincc")
def _gammaincc(f):
    v = np.array([np.nan, np.inf, 0.0, 1e-3, 0.5, 1.0, 2.5, 10.0, 30.0, -1.0], "float32")
    x, y = grid(f, "float32", xs=v)
    d, e = grid(f, "float64", "d", xs=v.astype("float64"))
    # no broadcasting: the CPU kernel reads y element by element as if it were x's shape
    a, b = f("a", [2, 3], value=np.abs(arr("gammaincc", "a", [2, 3])) * 3), \
        f("b", [2, 3], value=np.abs(arr("gammaincc", "b", [2, 3])) * 3)
    return [paddle.gammaincc(x, y), paddle.gammaincc(d, e), paddle.gammaincc(a, b)], {}


@op("masked_fill", expect="pd_op.masked_fill is new in Paddle 3.1 (3.0.0's paddle.masked_fill "
                          "decomposes to where; _C_ops has no masked_fill)")
def _masked_fill(f):
    x, m = f("x", [2, 3, 4]), f("m", [2, 3, 4], "bool")
    mb = f("mb", [3, 1], "bool")
    i = f("i", [2, 3], "int32", -9, 9)
    bv = f("bv", [2, 3], "bool")
    m2 = m[:, :, 0]
    v = f("v", None, value=np.array(-2.5, "float32"))
    vn = f("vn", None, value=np.array(np.nan, "float32"))
    vi, vb = f("vi", None, value=np.array(7, "int32")), f("vb", None, value=np.array(True))
    return [_C.masked_fill(x, m, v), _C.masked_fill(x, mb, v), _C.masked_fill(x, m, vn),
            _C.masked_fill(i, m2, vi), _C.masked_fill(bv, m2, vb),
            paddle.masked_fill(x, mb, 1.5)], {}


@op("multiplex")
def _multiplex(f):
    a, b, c = f("a", [4, 3]), f("b", [4, 3]), f("c", [4, 3])
    # the CPU kernel reads the index as int32 (an int64 index raises "type of data ... does
    # not match")
    ix = f("ix", None, value=np.array([[2], [0], [1], [2]], "int32"))
    p, q = f("p", [4, 2], "int64", -9, 9), f("q", [4, 2], "int64", -9, 9)
    return [paddle.multiplex([a, b, c], ix), paddle.multiplex([c, a], ix // 2),
            paddle.multiplex([p, q], paddle.full([4, 1], 1, "int32"))], {}


# --- comparisons and logical ops --------------------------------------------------------

def _compare(f, fn):
    return binary(f, fn, ints=("int32", "int64"), bool_=True), {}


@op("greater_equal")
def _greater_equal(f):
    return _compare(f, paddle.greater_equal)


@op("less_equal")
def _less_equal(f):
    return _compare(f, paddle.less_equal)


@op("not_equal")
def _not_equal(f):
    return _compare(f, paddle.not_equal)


@op("logical_or")
def _logical_or(f):
    return _compare(f, paddle.logical_or)


@op("logical_xor")
def _logical_xor(f):
    return _compare(f, paddle.logical_xor)


def _bitwise(f, fn):
    outs = [fn(*grid(f, dt, dt)) for dt in ("int32", "int64", "int16", "int8", "uint8")]
    outs.append(fn(*bools(f)))
    return outs + shapes(f, fn, "int32", -99, 99), {}


@op("bitwise_and")
def _bitwise_and(f):
    return _bitwise(f, paddle.bitwise_and)


@op("bitwise_or")
def _bitwise_or(f):
    return _bitwise(f, paddle.bitwise_or)


@op("bitwise_xor")
def _bitwise_xor(f):
    return _bitwise(f, paddle.bitwise_xor)


_SHIFTS = np.array([-1, 0, 1, 3, 7, 8, 15, 31, 32, 63, 64, 100])


def _shift(f, fn):
    outs = []
    for dt in ("int32", "int64", "int16", "int8", "uint8"):
        ys = _SHIFTS.astype(dt) if dt != "uint8" else _SHIFTS[1:].astype(dt)
        x, y = grid(f, dt, dt, ys=ys)
        outs += [fn(x, y, is_arithmetic=True), fn(x, y, is_arithmetic=False)]
    a, b = f("a", [2, 3], "int64", -99, 99), f("b", [3], "int64", 0, 9)
    return outs + [fn(a, b), fn(f("z", [0, 3], "int64", 0, 9), b)], {}


@op("bitwise_left_shift")
def _bitwise_left_shift(f):
    return _shift(f, paddle.bitwise_left_shift)


@op("bitwise_right_shift")
def _bitwise_right_shift(f):
    return _shift(f, paddle.bitwise_right_shift)


@op("allclose")
def _allclose(f):
    x, y = f("x", [2, 3]), f("y", [2, 3])
    d = f("d", [2, 3], "float64")
    n = f("n", None, value=np.array([np.nan, 1.0, np.inf, -np.inf], "float32"))
    e = f("e", None, value=np.array([np.nan, 1.0 + 1e-6, np.inf, -np.inf], "float32"))
    return [paddle.allclose(x, x + 1e-6), paddle.allclose(x, y),
            paddle.allclose(x, y, rtol=10.0, atol=10.0), paddle.allclose(d, d * (1 + 1e-9)),
            paddle.allclose(n, e), paddle.allclose(n, e, equal_nan=True),
            paddle.allclose(n, n, rtol=0.0, atol=0.0, equal_nan=True),
            paddle.allclose(f("z", [0, 3]), f("w", [0, 3]))], {}


@op("isclose")
def _isclose(f):
    x, y = grid(f, "float32")
    d, e = grid(f, "float64", "d")
    a, b = f("a", [2, 3]), f("b", [2, 3])    # no broadcasting (infermeta wants equal dims)
    return [paddle.isclose(x, y), paddle.isclose(x, y, equal_nan=True),
            paddle.isclose(x, y, rtol=0.5, atol=1.0), paddle.isclose(d, e),
            paddle.isclose(d, e, rtol=0.0, atol=0.0, equal_nan=True),
            paddle.isclose(a, a + 1e-6), paddle.isclose(a, b, atol=1.0)], {}


@op("equal_all")
def _equal_all(f):
    x, y = f("x", [2, 3]), f("y", [2, 3])
    n = f("n", None, value=np.array([np.nan, 1.0], "float32"))
    z = f("z", None, value=np.array([0.0, -0.0], "float32"))
    i = f("i", [2, 3], "int64", -3, 3)
    b = f("b", [4], "bool")
    return [paddle.equal_all(x, x), paddle.equal_all(x, y), paddle.equal_all(n, n),
            paddle.equal_all(z, f("zr", None, value=np.array([-0.0, 0.0], "float32"))),
            paddle.equal_all(i, i),
            paddle.equal_all(i, i + 1), paddle.equal_all(b, b),
            paddle.equal_all(f("e", [0, 3]), f("e2", [0, 3])),
            paddle.equal_all(f("s", []), f("s2", []))], {}


# --- boundary programs of the ops section7.py covers -------------------------------------

def _boundary(f, fn, divisor=False):
    outs = [fn(*grid(f, dt, dt, divisor=divisor))
            for dt in ("float32", "float64", "int32", "int64")]
    return outs + shapes(f, fn, "int64", 1, 9), {}


@op("add__boundary")
def _add_b(f):
    return _boundary(f, paddle.add)


@op("subtract__boundary")
def _subtract_b(f):
    return _boundary(f, paddle.subtract)


@op("multiply__boundary")
def _multiply_b(f):
    outs, info = _boundary(f, paddle.multiply)
    return outs + [paddle.multiply(*bools(f))], info


@op("divide__boundary")
def _divide_b(f):
    # integer operands: the op divides as float, so a zero divisor gives +-inf / nan
    outs = [paddle.divide(*grid(f, dt, dt)) for dt in ("float32", "float64")]
    i, j = grid(f, "int32", "i")
    k, m = grid(f, "int64", "k")
    return outs + [_C.divide(i, j), _C.divide(k, m)] + shapes(f, paddle.divide), {}


@op("maximum__boundary")
def _maximum_b(f):
    return _boundary(f, paddle.maximum)


@op("minimum__boundary")
def _minimum_b(f):
    return _boundary(f, paddle.minimum)


@op("pow__boundary")
def _pow_b(f):
    x, d = f("x", None, value=boundary("float32")), f("d", None, value=boundary("float64"))
    i = f("i", None, value=np.array([-3, -2, -1, 0, 1, 2, 3, 1000, 2**31 - 1], "int32"))
    k = f("k", None, value=np.array([-3, -1, 0, 1, 2, 3, 10**6, 2**62], "int64"))
    outs = []
    for e in (2.0, 3.0, 0.5, -1.0, 0.0, -0.5, 2.5, -2.0, 1.0):
        outs += [paddle.pow(x, e), paddle.pow(d, e)]
    for e in (2, 3, 0, 1):
        outs += [paddle.pow(i, e), paddle.pow(k, e)]
    return outs + [paddle.pow(f("z", [0, 3]), 2.0), paddle.pow(f("s", []), 3.0)], {}


@op("equal__boundary")
def _equal_b(f):
    return _compare(f, paddle.equal)


@op("greater_than__boundary")
def _greater_than_b(f):
    return _compare(f, paddle.greater_than)


@op("less_than__boundary")
def _less_than_b(f):
    return _compare(f, paddle.less_than)


@op("logical_and__boundary")
def _logical_and_b(f):
    return _compare(f, paddle.logical_and)


# --- losses --------------------------------------------------------------------------------

def _prob(f, name, shape, dtype="float32"):
    """Feeds in (0, 1) with the ends 0 and 1 themselves (bce / log_loss clamp or not there)."""
    a = 1 / (1 + np.exp(-arr(f.model, name, shape, dtype)))
    a.reshape(-1)[:2] = [0.0, 1.0]
    return f(name, None, value=a.astype(dtype))


@op("bce_loss")
def _bce_loss(f):
    x, y = _prob(f, "x", [3, 4]), _prob(f, "y", [3, 4])
    d, e = _prob(f, "d", [5], "float64"), _prob(f, "e", [5], "float64")
    hard = f("h", None, value=np.array([[0, 1, 1, 0]] * 3, "float32"))
    return [F.binary_cross_entropy(x, y, reduction="none"),
            F.binary_cross_entropy(x, hard, reduction="none"),
            F.binary_cross_entropy(d, e, reduction="none"),
            _C.bce_loss(f("z", [0, 4]), f("z2", [0, 4]))], {}


@op("huber_loss")
def _huber_loss(f):
    x, y = f("x", [3, 4]), f("y", [3, 4])
    d, e = f("d", [5], "float64"), f("e", [5], "float64")
    b = f("b", None, value=boundary("float32")[3:])
    outs = []
    for delta in (1.0, 0.5, 2.0):
        outs += flat(_C.huber_loss(x, y, delta))
    return outs + flat(_C.huber_loss(d, e, 0.3)) + flat(_C.huber_loss(b, b[::-1], 1.0)), {}


@op("kldiv_loss")
def _kldiv_loss(f):
    x = paddle.log(_prob(f, "x", [3, 4]))
    y = _prob(f, "y", [3, 4])
    ly = f("ly", [3, 4])
    d, e = f("d", [2, 3], "float64"), _prob(f, "e", [2, 3], "float64")
    return [_C.kldiv_loss(x, y, "none", False), _C.kldiv_loss(x, y, "mean", False),
            _C.kldiv_loss(x, y, "sum", False), _C.kldiv_loss(x, y, "batchmean", False),
            _C.kldiv_loss(x, ly, "none", True), _C.kldiv_loss(x, ly, "batchmean", True),
            _C.kldiv_loss(d, e, "none", False), _C.kldiv_loss(d, e, "mean", False)], {}


@op("log_loss")
def _log_loss(f):
    x, y = _prob(f, "x", [6, 1]), f("y", None, value=np.array([[0], [1], [1], [0], [1], [0]],
                                                                  "float32"))
    # float32 only (the CPU kernel has no float64: "expected_dtype: float32")
    return [F.log_loss(x, y), F.log_loss(x, y, epsilon=0.1), F.log_loss(y, x, 1e-7)], {}


@op("nll_loss")
def _nll_loss(f):
    """The CPU kernel writes out[i] = 0 for an ignored label i even when the output is the
    0-d reduced loss (a heap overflow: 'free(): invalid next size' on 3.3.1), so the reduced
    variants ignore only label 0's position; 'none' ignores one in the middle."""
    x = F.log_softmax(f("x", [5, 4]), axis=1)
    lab = f("l", None, value=np.array([0, 3, 1, -100, 2], "int64"))
    lab0 = f("l0", None, value=np.array([-100, 3, 1, 0, 2], "int64"))
    lab3 = f("l3", None, value=np.array([3, 0, 1, 2, 2], "int64"))
    w = f("w", None, value=np.array([0.5, 1.0, 2.0, 0.25], "float32"))
    x4 = F.log_softmax(f("x4", [2, 3, 2, 2]), axis=1)
    l4 = f("l4", [2, 2, 2], "int64", 0, 3)
    outs = [_C.nll_loss(x, lab, None, -100, "none"), _C.nll_loss(x, lab, w, -100, "none"),
            _C.nll_loss(x4, l4, None, 1, "none"), _C.nll_loss(x4, l4, None, -100, "none")]
    for red in ("mean", "sum"):
        outs += [_C.nll_loss(x, lab0, None, -100, red), _C.nll_loss(x, lab0, w, -100, red),
                 _C.nll_loss(x, lab3, w, 3, red), _C.nll_loss(x4, l4, None, -100, red)]
    d = F.log_softmax(f("d", [3, 4], "float64"), axis=1)
    outs.append(_C.nll_loss(d, lab0[:3], w.astype("float64"), -100, "mean"))
    return [t for o in outs for t in flat(o)], {}


@op("sigmoid_cross_entropy_with_logits")
def _sce(f):
    b = boundary("float32")
    x, y = f("x", [3, 4]), _prob(f, "y", [3, 4])
    lab = f("l", None, value=np.array([[0, 1, -100, 1]] * 3, "float32"))
    pw = f("pw", None, value=np.tile(np.array([1.0, 2.0, 0.5, 3.0], "float32"), (3, 1)))
    xb = f("xb", None, value=b)
    d, e = f("d", [5], "float64"), _prob(f, "e", [5], "float64")
    sce = _C.sigmoid_cross_entropy_with_logits
    return [sce(x, y, None, False, -100), sce(x, lab, None, False, -100),
            sce(x, lab, None, True, -100), sce(x, y, pw, False, -100),
            sce(x, lab, pw, True, -100), sce(xb, paddle.full_like(xb, 0.25), None, False, -100),
            sce(d, e, None, False, -100)], {}


@op("hinge_loss")
def _hinge_loss(f):
    x = f("x", [6, 1])
    y = f("y", None, value=np.array([[0], [1], [1], [0], [1], [0]], "float32"))
    return [_C.hinge_loss(x, y), _C.hinge_loss(x * 3, y)], {}


@op("label_smooth")
def _label_smooth(f):
    lab = F.one_hot(f("l", [2, 3], "int64", 0, 4), 4)
    p = f("p", None, value=np.array([[0.1, 0.2, 0.3, 0.4]], "float32"))
    d = f("d", [3, 5], "float64")
    return [F.label_smooth(lab), F.label_smooth(lab, epsilon=0.2),
            F.label_smooth(lab, prior_dist=p, epsilon=0.3), F.label_smooth(d, epsilon=0.05),
            F.label_smooth(lab, epsilon=0.0)], {}


@op("identity_loss")
def _identity_loss(f):
    x, d = f("x", [3, 4]), f("d", [5], "float64")
    return [paddle.incubate.identity_loss(x, r) for r in (0, 1, 2)] \
        + [paddle.incubate.identity_loss(d, 1), paddle.incubate.identity_loss(f("s", []), 0)], {}


@op("accuracy")
def _accuracy(f):
    x = f("x", [6, 5])
    lab = f("l", None, value=np.array([[0], [1], [4], [2], [3], [1]], "int64"))
    outs = []
    for k in (1, 2, 3):
        v, i = paddle.topk(x, k)
        outs += flat(_C.accuracy(v, i, lab))
    return outs, {}


@op("margin_cross_entropy", expect="GPU-only: the CPU kernel raises 'Do not support "
                                   "margin_cross_entropy for cpu kernel now'")
def _margin_cross_entropy(f):
    x = F.normalize(f("x", [4, 6]), axis=1)
    lab = f("l", None, value=np.array([0, 5, 2, 3], "int64"))
    return flat(_C.margin_cross_entropy(x, lab, True, 0, 0, 1, 1.0, 0.5, 0.0, 64.0)), {}


@op("warpctc")
def _warpctc(f):
    logits = f("lg", [6, 2, 5])
    lab = f("lb", None, value=np.array([[1, 2, 2], [3, 1, 0]], "int32"))
    il = f("il", None, value=np.array([6, 5], "int64"))
    ll = f("ll", None, value=np.array([3, 2], "int64"))
    outs = []
    for blank, norm in ((0, False), (4, False), (0, True)):
        outs += flat(_C.warpctc(logits, lab, il, ll, blank, norm))
    return outs, {}
