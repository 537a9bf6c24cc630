"""Builders of the element-wise unary ops: math functions (trigonometric, hyperbolic, rounding,
special functions), activations, float-class tests, bitwise/logical not, complex views, and
the `__boundary` fixtures (NaN, +-Inf, +-0, denormals, extremes) of the unary ops section 7
already lowered."""
import numpy as np
import paddle

from old_ir_op import old_ir_op, results
import paddle.nn.functional as F

from . import Feeds, arr, boundary, gf, int_boundary, op  # noqa: F401

HALVES = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, -3.5, 0.49999997, -0.49999997,
                   1e8 + 0.0, 2.0 ** 23 + 1, 2.0 ** 52, -2.0 ** 23 - 1], "float64")


def _math(f, fn, lo=None, hi=None, scale=3.0, ints=(), extra=(), more=()):
    """fn on a float32 and a float64 input of shape [3, 11] (12 ordinary values: normal * scale,
    or uniform in (lo, hi); then the 21 boundary values and `extra`), on a 0-D and a [0, 3]
    input, and on the integer dtypes `ints` (their extremes, where Paddle's API accepts them);
    each of `more` (the op with other attributes) on the two float inputs."""
    name = f.model
    if lo is not None:
        v = gf.rng_for(f"{name}/u").uniform(lo, hi, 12)
    else:
        v = arr(name, "x", [12], "float64") * scale
    xs = []
    for dt, key in (("float32", "x"), ("float64", "x64")):
        full = np.concatenate([v.astype(dt), boundary(dt), np.asarray(extra, dt)])
        full = np.resize(full, 33 if full.size <= 33 else 3 * -(-full.size // 3))
        xs.append(f(key, [3, full.size // 3], value=full.reshape(3, -1)))
    outs = [fn(t) for t in xs]
    outs += [fn(f("s", [], value=np.array(v[0], "float32"))), fn(f("z", [0, 3]))]
    for dt in ints:
        outs.append(fn(f(f"i_{dt}", [9], value=int_boundary(dt))))
    for g in more:
        outs += [g(t) for t in xs]
    return outs


def _simple(name, fn, ints=("int32",), **kw):
    op(name)(lambda f: (_math(f, fn, ints=ints, **kw), {}))


# large arguments of sin / cos: range reduction is where implementations differ
BIG = [100.0, -1e4, 1e6, 3.1415927, 1.5707964, 1e30]
for _name, _fn, _kw in (
        ("sin", paddle.sin, dict(extra=BIG)), ("cos", paddle.cos, dict(extra=BIG)),
        ("tan", paddle.tan, dict(scale=1.0)), ("asin", paddle.asin, dict(lo=-1.0, hi=1.0)),
        ("acos", paddle.acos, dict(lo=-1.0, hi=1.0)), ("atan", paddle.atan, {}),
        ("sinh", paddle.sinh, {}), ("cosh", paddle.cosh, {}), ("asinh", paddle.asinh, dict(scale=10.0)),
        ("acosh", paddle.acosh, dict(lo=1.0, hi=20.0)), ("atanh", paddle.atanh, dict(lo=-1.0, hi=1.0)),
        ("expm1", paddle.expm1, {}), ("log1p", paddle.log1p, dict(lo=-0.99, hi=20.0)),
        ("log2", paddle.log2, dict(lo=0.0, hi=20.0)), ("log10", paddle.log10, dict(lo=0.0, hi=20.0)),
        ("reciprocal", paddle.reciprocal, {}), ("erf", paddle.erf, dict(scale=1.5)),
        ("erfinv", paddle.erfinv, dict(lo=-1.0, hi=1.0)), ("lgamma", paddle.lgamma, {}),
        ("gammaln", paddle.gammaln, dict(ints=())), ("digamma", paddle.digamma, {}),
        ("i0", paddle.i0, {}), ("i0e", paddle.i0e, dict(ints=())), ("i1", paddle.i1, dict(ints=())),
        ("i1e", paddle.i1e, dict(ints=()))):
    _simple(_name, _fn, **_kw)


# -- rounding and sign ----------------------------------------------------------------------------

def _rounding(f, fn, ints=("int32", "int64")):
    return _math(f, fn, ints=ints, extra=HALVES)


@op("floor")
def _floor(f):
    return _rounding(f, paddle.floor), {}


@op("ceil")
def _ceil(f):
    return _rounding(f, paddle.ceil), {}


@op("trunc")
def _trunc(f):
    return _rounding(f, paddle.trunc), {}


@op("round")
def _round(f):
    h = f("hd", [6], value=np.array([1.005, 2.675, -0.125, 123.456, 1e30, -1e-30], "float32"))
    # 3.0.0's round rejects integer inputs (its Python API checks for float32/float64)
    ints = () if gf.PADDLE_VERSION.startswith("3.0.") else ("int32", "int64")
    outs = _rounding(f, paddle.round, ints)
    outs += [paddle.round(h, decimals=2), paddle.round(h, decimals=1),
             paddle.round(h, decimals=-1), paddle.round(paddle.cast(h, "float64"), decimals=2)]
    return outs, {}


@op("rint", note="pd_op.rint is new in Paddle 3.1 (absent from 3.0.0's op definitions and "
                 "paddle._C_ops)")
def _rint(f):
    return _rounding(f, paddle._C_ops.rint, ints=()), {}


@op("sign")
def _sign(f):
    c = f("c", [4], value=np.array([3 + 4j, 0j, -2j, complex(np.nan, 1)], "complex64"))
    u = f("u", [4], value=np.array([0, 1, 128, 255], "uint8"))
    return _math(f, paddle.sign, ints=("int32", "int64", "int8", "int16")) \
        + [paddle.sign(c), paddle.sign(u)], {}


# -- special functions ------------------------------------------------------------------------------

@op("polygamma")
def _polygamma(f):
    x = f("x", [3, 4], value=(np.abs(arr("polygamma", "x", [3, 4])) * 3 + 0.1).astype("float32"))
    x64 = f("x64", [3, 4], value=np.abs(arr("polygamma", "x", [3, 4], "float64")) * 3 + 0.1)
    b = f("b", [21], value=boundary("float32"))
    return [paddle.polygamma(x, 1), paddle.polygamma(x, 2), paddle.polygamma(x64, 1),
            paddle.polygamma(x64, 3), paddle.polygamma(b, 1), paddle.polygamma(x, 0)], {}


# -- activations -------------------------------------------------------------------------------------

def _act(f, fn, *more, scale=3.0):
    return _math(f, fn, scale=scale, more=more)


@op("celu")
def _celu(f):
    return _act(f, F.celu, lambda x: F.celu(x, alpha=0.3), lambda x: F.celu(x, alpha=2.5)), {}


@op("selu")
def _selu(f):
    return _act(f, F.selu, lambda x: F.selu(x, scale=2.0, alpha=0.5)), {}


@op("mish")
def _mish(f):
    # F.mish has no threshold; _C_ops.mish sets the op's `lambda` attribute
    return _act(f, F.mish, lambda x: paddle._C_ops.mish(x, 5.0), scale=10.0), {}


@op("hardshrink")
def _hardshrink(f):
    e = f("e", [6], value=np.array([0.5, -0.5, 0.49999997, 0.50000006, 1.0, -1.0], "float32"))
    return _act(f, F.hardshrink, lambda x: F.hardshrink(x, 1.0)) + \
        [F.hardshrink(e), F.hardshrink(e, 1.0)], {}


@op("softshrink")
def _softshrink(f):
    e = f("e", [6], value=np.array([0.5, -0.5, 0.49999997, 0.50000006, 1.0, -1.0], "float32"))
    return _act(f, F.softshrink, lambda x: F.softshrink(x, 1.0)) + \
        [F.softshrink(e), F.softshrink(e, 1.0)], {}


@op("softsign")
def _softsign(f):
    return _act(f, F.softsign), {}


@op("tanh_shrink")
def _tanh_shrink(f):
    return _act(f, F.tanhshrink), {}


@op("thresholded_relu")
def _thresholded_relu(f):
    e = f("e", [4], value=np.array([1.0, 0.99999994, 1.0000001, -1.0], "float32"))
    return _act(f, F.thresholded_relu, lambda x: F.thresholded_relu(x, 0.5, 0.25)) + \
        [F.thresholded_relu(e), F.thresholded_relu(e, -2.0, 7.0)], {}


@op("logsigmoid")
def _logsigmoid(f):
    return _act(f, F.log_sigmoid, scale=20.0), {}


@op("relu6")
def _relu6(f):
    return _act(f, F.relu6), {}


@op("hardswish")
def _hardswish(f):
    return _act(f, F.hardswish), {}


@op("hardsigmoid")
def _hardsigmoid(f):
    return _act(f, F.hardsigmoid, lambda x: F.hardsigmoid(x, 0.2, 0.5),
                lambda x: F.hardsigmoid(x, -0.7, 0.1)), {}


@op("swish")
def _swish(f):
    return _act(f, F.swish), {}


@op("stanh")
def _stanh(f):
    return _act(f, paddle.stanh, lambda x: paddle.stanh(x, 1.5, 0.5)), {}


@op("soft_relu")
def _soft_relu(f):
    # no Python binding (paddle._C_ops has none): the fluid op through the old-IR translator,
    # as a 3.0.0 model holds it (3.3.1 no longer registers the fluid op)
    x = f("x", [2, 3])
    xb = f("xb", [21], value=boundary())
    outs = []
    for v, t in ((x, 40.0), (x, 0.5), (xb, 40.0), (xb, 3.0)):
        outs += results(old_ir_op("soft_relu", {"X": [v]}, {"Out": 1}, {"threshold": t}))
    return outs, {}


# -- float classes, logical, bitwise --------------------------------------------------------------------

def _float_class(f, fn):
    c = f("c", [4], value=np.array([1 + 1j, complex(np.inf, 0), complex(0, np.nan), 0j],
                                   "complex64"))
    return _math(f, fn, ints=("int32", "int64")) + [fn(c)]


@op("isfinite")
def _isfinite(f):
    return _float_class(f, paddle.isfinite), {}


@op("isinf")
def _isinf(f):
    return _float_class(f, paddle.isinf), {}


@op("logical_not")
def _logical_not(f):
    b = f("bb", [2, 3], "bool")
    return _math(f, paddle.logical_not, ints=("int32", "int64", "int8")) + \
        [paddle.logical_not(b)], {}


@op("bitwise_not")
def _bitwise_not(f):
    b = f("bb", [2, 3], "bool")
    outs = [paddle.bitwise_not(f(f"i_{dt}", [9], value=int_boundary(dt)))
            for dt in ("int32", "int64", "int8", "int16")]
    outs += [paddle.bitwise_not(f("u", [5], value=np.array([0, 1, 127, 128, 255], "uint8"))),
             paddle.bitwise_not(b), paddle.bitwise_not(f("s", [], "int32", -9, 9)),
             paddle.bitwise_not(f("z", [0, 3], "int64", 0, 1))]
    return outs, {}


# -- complex ------------------------------------------------------------------------------------------

COMPLEX = np.array([1 + 2j, -3 - 0.5j, 0j, complex(-0.0, 0.0), complex(0.0, -0.0),
                    complex(-1.0, -0.0), complex(-1.0, 0.0), complex(np.inf, 1),
                    complex(np.nan, 2), complex(1, np.inf), complex(-np.inf, -np.inf), 1e-40j])


@op("conj")
def _conj(f):
    c, c128 = f("c", [12], value=COMPLEX.astype("complex64")), f("c128", [12], value=COMPLEX)
    x = f("x", [3, 4])
    i = f("i", [2, 3], "int64", -9, 9)
    return [paddle.conj(c), paddle.conj(c128), paddle.conj(x), paddle.conj(i),
            paddle.conj(f("m", [2, 2], value=COMPLEX[:4].reshape(2, 2).astype("complex64")))], {}


@op("angle")
def _angle(f):
    c, c128 = f("c", [12], value=COMPLEX.astype("complex64")), f("c128", [12], value=COMPLEX)
    return [paddle.angle(c), paddle.angle(c128), paddle.angle(f("b", [21], value=boundary())),
            paddle.angle(f("b64", [21], value=boundary("float64"))),
            paddle.angle(f("s", []))], {}


@op("as_real")
def _as_real(f):
    c, c128 = f("c", [12], value=COMPLEX.astype("complex64")), f("c128", [12], value=COMPLEX)
    m = f("m", [2, 3], value=np.resize(COMPLEX, 6).reshape(2, 3).astype("complex64"))
    return [paddle.as_real(c), paddle.as_real(c128), paddle.as_real(m),
            paddle.as_real(f("s", [], value=np.array(1 - 1j, "complex64")))], {}


@op("as_complex")
def _as_complex(f):
    x = f("x", [3, 4, 2])
    x64 = f("x64", [5, 2], value=boundary("float64")[:10].reshape(5, 2))
    return [paddle.as_complex(x), paddle.as_complex(x64),
            paddle.as_complex(f("p", [2], value=np.array([1.5, -0.0], "float32")))], {}


# -- others ------------------------------------------------------------------------------------------------

@op("check_numerics")
def _check_numerics(f):
    x = f("x", [3, 4])
    x64 = f("x64", [2, 3], "float64")
    st, vals = paddle._C_ops.check_numerics(x, "op", "x", 3, -1, "")
    st2, vals2 = paddle._C_ops.check_numerics(x64, "op", "x64", 3, -1, "")
    return [st, vals, st2, vals2], {}


@op("increment")
def _increment(f):
    x = f("x", [1])
    i = f("i", [1], "int64", 0, 9)
    d = f("d", [1], "float64")
    # paddle.increment is in place (increment_) in static mode; _C_ops gives pd_op.increment
    inc = paddle._C_ops.increment
    return [inc(x, 1.0), inc(i, 3.0), inc(d, -0.1), inc(i, -2.7),
            paddle.increment(x * 1.0, 2.5)], {}


@op("renorm")
def _renorm(f):
    x = f("x", [3, 4, 2]) * 3
    x64 = f("x64", [3, 4], "float64")
    return [paddle.renorm(x, 2.0, 0, 1.0), paddle.renorm(x, 1.0, 1, 2.0),
            paddle.renorm(x, 3.0, -1, 0.5), paddle.renorm(x, 2.0, 2, 100.0),
            paddle.renorm(x64, 2.0, 1, 0.7)], {}


@op("clip_by_norm")
def _clip_by_norm(f):
    x = f("x", [3, 4])
    # float32 only: Paddle's CPU kernel rejects float64
    return [paddle.nn.clip.clip_by_norm(x, 1.0), paddle.nn.clip.clip_by_norm(x, 100.0),
            paddle.nn.clip.clip_by_norm(f("s", []), 0.5),
            paddle.nn.clip.clip_by_norm(f("z", [2, 2], value=np.zeros((2, 2), "float32")), 1.0)
            ], {}


# -- boundary inputs of the unary ops of section 7 -------------------------------------------------

def _boundary(f, fn, ints=()):
    outs = [fn(f("b", [21], value=boundary("float32"))),
            fn(f("b64", [21], value=boundary("float64")))]
    for dt in ints:
        outs.append(fn(f(f"i_{dt}", [9], value=int_boundary(dt))))
    return outs, {}


def _boundary_op(name, fn, ints=()):
    op(f"{name}__boundary")(lambda f: _boundary(f, fn, ints))


for _name, _fn, _ints in (
        ("abs", paddle.abs, ("int32", "int64")), ("exp", paddle.exp, ()),
        ("log", paddle.log, ()), ("sqrt", paddle.sqrt, ()), ("rsqrt", paddle.rsqrt, ()),
        ("square", paddle.square, ("int32", "int64")), ("sigmoid", F.sigmoid, ()),
        ("tanh", paddle.tanh, ()), ("relu", F.relu, ()), ("gelu", F.gelu, ()),
        ("elu", F.elu, ()), ("silu", F.silu, ()), ("leaky_relu", F.leaky_relu, ()),
        ("softplus", F.softplus, ()), ("logit", paddle.logit, ()),
        ("isnan", paddle.isnan, ("int32", "int64"))):
    _boundary_op(_name, _fn, _ints)


@op("gelu__boundary_tanh")
def _gelu_tanh_boundary(f):
    return _boundary(f, lambda x: F.gelu(x, approximate=True))


@op("logit__boundary_eps")
def _logit_eps_boundary(f):
    return _boundary(f, lambda x: paddle.logit(x, eps=1e-6))


@op("abs__complex")
def _abs_complex(f):
    c, c128 = f("c", [12], value=COMPLEX.astype("complex64")), f("c128", [12], value=COMPLEX)
    return [paddle.abs(c), paddle.abs(c128)], {}
