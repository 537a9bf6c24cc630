"""Builders of the reduction, scan, sort/search and statistics ops, and boundary programs
(`NAME__boundary`) for the reductions section 7 already covers: NaN / Inf in the reduced
axis, zero-size axes, keepdim, negative axes, reduce-all, integer dtypes, ties."""
import numpy as np
import paddle

from . import INF, Feeds, arr, boundary, int_boundary, op  # noqa: F401

NAN = float("nan")
_C = paddle._C_ops


def _special(f, name="b", dtype="float32"):
    """boundary(dtype) without its NaN and largest values, as [3, 6]: finite sums stay
    finite, +-Inf and +-0 stay in the first row, the denormals in the first two."""
    v = boundary(dtype)
    v = np.concatenate([v[1:9], v[11:]]).reshape(3, 6)
    return f(name, list(v.shape), dtype, value=v)


def _nanrows(f, name="n", dtype="float32"):
    """[3, 4]: a row with one NaN, a row of Infs of both signs, a plain row."""
    v = np.array([[1.0, NAN, -2.0, 3.0], [INF, -INF, 1.0, 2.0], [0.5, -0.0, 0.0, -1.5]], dtype)
    return f(name, [3, 4], dtype, value=v)


def _ints(dtype):
    """int_boundary(dtype) and three small values as [3, 4]."""
    return np.concatenate([int_boundary(dtype), np.array([0, 1, 2], dtype)]).reshape(3, 4)


def _ties(f, name="t", dtype="float32"):
    v = np.array([[2, 1, 2, 1, 3, 3], [0, 0, 0, 0, 0, 0], [5, -1, 5, -1, 5, 2]], dtype)
    return f(name, [3, 6], dtype, value=v)


# --- boolean reductions --------------------------------------------------------------------

@op("all")
def _all(f):
    b = f("b", [3, 4], "bool")
    x = f("x", [2, 3], value=np.array([[1.0, 0.0, NAN], [-0.0, 2.0, INF]], "float32"))
    i = f("i", [2, 3], "int32", 0, 2)
    z = f("z", [0, 3], "bool")
    return [paddle.all(b), paddle.all(b, axis=1), paddle.all(b, axis=-1, keepdim=True),
            paddle.all(b, axis=[0, 1]), paddle.all(x, axis=0), paddle.all(i, axis=1),
            paddle.all(z, axis=0), paddle.all(z), paddle.all(f("s", [], "bool"))], {}


@op("any")
def _any(f):
    b = f("b", [3, 4], "bool")
    x = f("x", [2, 3], value=np.array([[0.0, -0.0, NAN], [-0.0, 0.0, 0.0]], "float32"))
    i = f("i", [2, 3], "int64", 0, 2)
    z = f("z", [0, 3], "bool")
    return [paddle.any(b), paddle.any(b, axis=0), paddle.any(b, axis=-2, keepdim=True),
            paddle.any(x, axis=1), paddle.any(i, axis=0), paddle.any(z, axis=0),
            paddle.any(z)], {}


# --- max / min family ------------------------------------------------------------------------

def _minmax(f, fn):
    x, n, t = f("x", [2, 3, 4]), _nanrows(f), _ties(f)
    d = f("d", [2, 5], "float64")
    i = f("i", [3, 4], "int32", value=_ints("int32"))
    k = f("k", [3, 4], "int64", -9, 9)
    return [fn(x), fn(x, axis=1), fn(x, axis=[0, 2]), fn(x, axis=-1, keepdim=True),
            fn(n, axis=1), fn(n), fn(t, axis=0), fn(d, axis=0), fn(i, axis=1), fn(k),
            fn(f("s", []))]


@op("amax")
def _amax(f):
    return _minmax(f, paddle.amax), {}


@op("amin")
def _amin(f):
    return _minmax(f, paddle.amin), {}


@op("min")
def _min(f):
    return _minmax(f, paddle.min), {}


@op("max__boundary")
def _max_boundary(f):
    b = _special(f)
    return _minmax(f, paddle.max) + [paddle.max(b, axis=0), paddle.max(b, axis=1)], {}


# Zero-size inputs: Paddle 3.0.0 raises "Tensor need be reduced must not empty" for max, mean
# and prod (gen_log.3.0.0.reduce.json holds the error); 3.3.1 gives an empty max, NaN means
# and products of 1.

@op("max__empty")
def _max_empty(f):
    z = f("z", [0, 3])
    return [paddle.max(z, axis=1), paddle.max(f("e", [2, 0]), axis=0)], {}


@op("mean__empty")
def _mean_empty(f):
    z = f("z", [0, 3])
    return [paddle.mean(z, axis=0), paddle.mean(z), paddle.mean(z, axis=1, keepdim=True)], {}


@op("prod__empty")
def _prod_empty(f):
    z = f("z", [0, 3])
    return [paddle.prod(z, axis=0), paddle.prod(z), paddle.prod(f("i", [0, 2], "int64"), 0)], {}


@op("argmin")
def _argmin(f):
    x, n, t = f("x", [3, 4, 5]), _nanrows(f), _ties(f)
    i = f("i", [3, 6], "int32", 0, 3)
    return [paddle.argmin(x), paddle.argmin(x, axis=1), paddle.argmin(x, axis=-1, keepdim=True),
            paddle.argmin(x, axis=0, dtype="int32"), paddle.argmin(i, axis=1),
            paddle.argmin(n, axis=1), paddle.argmin(t, axis=1), paddle.argmin(t, axis=0),
            paddle.argmin(f("d", [4, 3], "float64"), axis=0)], {}


@op("argmax__boundary")
def _argmax_boundary(f):
    n, t = _nanrows(f), _ties(f)
    b = _special(f)
    k = f("k", [3, 4], "int64", value=_ints("int64"))
    return [paddle.argmax(n, axis=1), paddle.argmax(n, axis=0), paddle.argmax(t, axis=1),
            paddle.argmax(t, axis=0, keepdim=True), paddle.argmax(b, axis=1),
            paddle.argmax(b), paddle.argmax(k, axis=-1), paddle.argmax(f("s", []))], {}


def _with_index(f, fn):
    x, n, t = f("x", [2, 3, 4]), _nanrows(f), _ties(f)
    i = f("i", [3, 4], "int32", -9, 9)
    return [*fn(x, 1, False, False), *fn(x, -1, True, False), *fn(x, 0, False, True),
            *fn(n, 1, False, False), *fn(t, 1, False, False), *fn(t, 0, True, False),
            *fn(i, 1, False, False)]


_GPU_ONLY = "GPU-only: phi registers max_with_index / min_with_index for GPU (and XPU), no CPU kernel"


@op("max_with_index", expect=_GPU_ONLY)
def _max_with_index(f):
    return _with_index(f, _C.max_with_index), {}


@op("min_with_index", expect=_GPU_ONLY)
def _min_with_index(f):
    return _with_index(f, _C.min_with_index), {}


# --- sums, products, means -------------------------------------------------------------------

@op("sum__boundary")
def _sum_boundary(f):
    b, n = _special(f), _nanrows(f)
    z = f("z", [0, 3])
    i = f("i", [3, 4], "int32", value=_ints("int32"))
    k = f("k", [3, 4], "int64", -9, 9)
    u = f("u", [2, 3], "bool")
    return [paddle.sum(b, axis=0), paddle.sum(b, axis=1), paddle.sum(n, axis=1),
            paddle.sum(n, axis=-1, keepdim=True), paddle.sum(z, axis=0), paddle.sum(z, axis=1),
            paddle.sum(z), paddle.sum(i, axis=1), paddle.sum(i, dtype="int32"),
            paddle.sum(k, axis=[0, 1]), paddle.sum(u, axis=0), paddle.sum(i, axis=0, dtype="float32"),
            paddle.sum(f("d", [3, 4], "float64"), axis=-2), paddle.sum(f("s", []))], {}


@op("mean__boundary")
def _mean_boundary(f):
    b, n = _special(f), _nanrows(f)
    return [paddle.mean(b, axis=0), paddle.mean(n, axis=1), paddle.mean(n, axis=[-1, -2]),
            paddle.mean(n, axis=0, keepdim=True),
            paddle.mean(f("d", [3, 4], "float64"), axis=1), paddle.mean(f("s", []))], {}


@op("mean_all")
def _mean_all(f):
    x, n = f("x", [3, 4, 5]), _nanrows(f)
    return [_C.mean_all(x), _C.mean_all(n), _C.mean_all(f("d", [2, 3], "float64")),
            _C.mean_all(f("s", [])), _C.mean_all(f("z", [0, 3]))], {}


@op("nansum")
def _nansum(f):
    x, n, b = f("x", [2, 3, 4]), _nanrows(f), _special(f)
    i = f("i", [3, 4], "int32", -9, 9)
    return [paddle.nansum(n, axis=1), paddle.nansum(n, axis=0, keepdim=True), paddle.nansum(b),
            paddle.nansum(i, axis=1), paddle.nansum(f("d", [3, 4], "float64"), axis=-1),
            paddle.nansum(x, axis=[0, 2], dtype="float64")] + _direct(
        "nansum", lambda op: [op(n, [1], None, False), op(n, [], None, True), op(b, [0], None, False),
                              op(i, [0], None, False), op(x, [-1], paddle.float64, False)]), {}


@op("prod")
def _prod(f):
    x, n = f("x", [2, 3, 4]), _nanrows(f)
    i = f("i", [3, 4], "int32", -5, 5)
    k = f("k", [3, 4], "int64", -9, 9)
    return [paddle.prod(x), paddle.prod(x, axis=1), paddle.prod(x, axis=[0, 2]),
            paddle.prod(x, axis=-1, keepdim=True), paddle.prod(n, axis=1), paddle.prod(i, axis=1),
            paddle.prod(k, axis=0), paddle.prod(x, axis=1, dtype="float64"),
            paddle.prod(f("d", [3, 4], "float64"), axis=0), paddle.prod(f("s", []))], {}


@op("logsumexp")
def _logsumexp(f):
    x, n = f("x", [2, 3, 4]), _nanrows(f)
    big = f("g", [2, 3], value=np.array([[100.0, 90.0, -INF], [-INF, -INF, -INF]], "float32"))
    return [paddle.logsumexp(x), paddle.logsumexp(x, axis=1), paddle.logsumexp(x, axis=[0, 2]),
            paddle.logsumexp(x, axis=-1, keepdim=True), paddle.logsumexp(n, axis=1),
            paddle.logsumexp(big, axis=1), paddle.logsumexp(f("d", [3, 4], "float64"), axis=0),
            paddle.logsumexp(f("s", []))], {}


# --- scans -----------------------------------------------------------------------------------

@op("cumsum__boundary")
def _cumsum_boundary(f):
    n, b = _nanrows(f), _special(f)
    i = f("i", [3, 4], "int32", value=_ints("int32"))
    return [paddle.cumsum(n, axis=1), paddle.cumsum(b, axis=0), paddle.cumsum(b),
            paddle.cumsum(i, axis=1), paddle.cumsum(i, axis=-2, dtype="int64"),
            paddle.cumsum(f("z", [0, 3]), axis=0), paddle.cumsum(f("s", [])),
            _C.cumsum(n, 1, False, True, True)], {}


def _cum_ext(f, fn):
    x, n, t = f("x", [3, 5]), _nanrows(f), _ties(f)
    i = f("i", [3, 4], "int32", -9, 9)
    return [*fn(x), *fn(x, axis=0), *fn(n, axis=1), *fn(n, axis=0), *fn(t, axis=1),
            *fn(i, axis=-1), *fn(x, axis=1, dtype="int32"),
            *fn(f("d", [2, 4], "float64"), axis=1), *fn(f("s", []))]


@op("cummax")
def _cummax(f):
    return _cum_ext(f, paddle.cummax), {}


@op("cummin")
def _cummin(f):
    return _cum_ext(f, paddle.cummin), {}


@op("cumprod")
def _cumprod(f):
    x, n = f("x", [3, 5]), _nanrows(f)
    i = f("i", [3, 4], "int32", -4, 4)
    return [paddle.cumprod(x, dim=1), paddle.cumprod(x, dim=0), paddle.cumprod(n, dim=1),
            paddle.cumprod(i, dim=-1), paddle.cumprod(f("d", [2, 4], "float64"), dim=1),
            _C.cumprod(x, 1, True, False), _C.cumprod(x, 1, False, True),
            _C.cumprod(x, 0, True, True), paddle.cumprod(f("s", []), dim=0)], {}


@op("logcumsumexp")
def _logcumsumexp(f):
    x, n = f("x", [3, 5]), _nanrows(f)
    big = f("g", [2, 3], value=np.array([[100.0, 90.0, -INF], [-INF, -INF, 5.0]], "float32"))
    return [paddle.logcumsumexp(x), paddle.logcumsumexp(x, axis=1),
            paddle.logcumsumexp(x, axis=0), paddle.logcumsumexp(n, axis=1),
            paddle.logcumsumexp(big, axis=1), paddle.logcumsumexp(f("d", [2, 4], "float64"), 1),
            _C.logcumsumexp(x, 1, False, True, False), _C.logcumsumexp(x, 1, False, False, True),
            _C.logcumsumexp(x, 0, False, True, True)], {}


# --- statistics ------------------------------------------------------------------------------

def _direct(name, fetch):
    """The outputs `fetch(_C_ops.NAME)` builds where this release has pd_op.NAME as an op of
    its own (3.3.1's nansum, std, var; the Python API still composes them of other ops)."""
    return fetch(getattr(_C, name)) if hasattr(_C, name) else []


def _std_var(f, fn, name):
    x, n, b = f("x", [2, 3, 4]), _nanrows(f), _special(f)
    one = f("o", [3, 1])
    # the Python API composes ~10 ops per call: few calls keep the fixture small
    return [fn(x, axis=[0, 2], unbiased=False), fn(n, axis=1, keepdim=True), fn(b, axis=1),
            fn(one, axis=1), fn(f("d", [3, 4], "float64"), axis=0)] + _direct(
        name, lambda op: [op(x, [1], False, True, 1.0), op(x, [], True, False, 0.0),
                          op(n, [-1], False, True, 1.0), op(b, [0], False, True, 1.0),
                          op(x, [0, 2], False, True, 2.0), op(one, [1], False, True, 1.0)])


@op("std")
def _std(f):
    return _std_var(f, paddle.std, "std"), {}


@op("var")
def _var(f):
    return _std_var(f, paddle.var, "var"), {}


@op("median")
def _median(f):
    x, n, t = f("x", [3, 4]), _nanrows(f), _ties(f)
    o = f("o", [3, 5])
    i = f("i", [3, 4], "int32", -9, 9)
    outs = [paddle.median(x), paddle.median(o, axis=1), paddle.median(x, axis=0, keepdim=True),
            paddle.median(n, axis=1), paddle.median(t, axis=1), paddle.median(x, axis=1, mode="min"),
            paddle.median(t, axis=0, mode="min"), paddle.median(i, axis=1),
            paddle.median(f("d", [2, 4], "float64"), axis=1)]
    return [a for o_ in outs for a in (o_ if isinstance(o_, (tuple, list)) else [o_])], {}


@op("nanmedian__boundary")
def _nanmedian_boundary(f):
    n, t = _nanrows(f), _ties(f)
    a = f("a", [2, 4], value=np.array([[NAN, NAN, NAN, NAN], [NAN, 1.0, INF, -INF]], "float32"))
    outs = [paddle.nanmedian(n, axis=1), paddle.nanmedian(n), paddle.nanmedian(a, axis=1),
            paddle.nanmedian(a, axis=-1, mode="min"), paddle.nanmedian(t, axis=1, keepdim=True),
            paddle.nanmedian(t, axis=[0, 1]), paddle.nanmedian(f("d", [2, 4], "float64"), 0)]
    return [a_ for o_ in outs for a_ in (o_ if isinstance(o_, (tuple, list)) else [o_])], {}


@op("mode")
def _mode(f):
    t = _ties(f)
    i = f("i", [3, 8], "int64", 0, 3)
    x = f("x", [2, 5])
    n = f("n", [2, 4], value=np.array([[NAN, 1.0, NAN, 1.0], [INF, INF, -0.0, 0.0]], "float32"))
    return [*paddle.mode(t), *paddle.mode(t, axis=0), *paddle.mode(i, axis=1, keepdim=True),
            *paddle.mode(x), *paddle.mode(n), *paddle.mode(f("d", [2, 6], "float64", value=np.array(
                [[1, 2, 2, 3, 3, 1], [4, 4, 4, 2, 2, 2]], "float64")))], {}


@op("kthvalue__boundary")
def _kthvalue_boundary(f):
    n, t = _nanrows(f), _ties(f)
    return [*paddle.kthvalue(n, 2, axis=1), *paddle.kthvalue(t, 3, axis=1),
            *paddle.kthvalue(t, 2, axis=0, keepdim=True), *paddle.kthvalue(t, 6, axis=-1),
            *paddle.kthvalue(f("i", [3, 5], "int64", 0, 3), 2, axis=1)], {}


@op("topk__boundary")
def _topk_boundary(f):
    n, t = _nanrows(f), _ties(f)
    i = f("i", [3, 5], "int32", 0, 3)
    return [*paddle.topk(n, 2, axis=1), *paddle.topk(t, 3, axis=1),
            *paddle.topk(t, 3, axis=1, largest=False), *paddle.topk(t, 2, axis=0),
            *paddle.topk(i, 2), *paddle.topk(n, 4, largest=False)], {}


# --- norms -----------------------------------------------------------------------------------

@op("frobenius_norm")
def _frobenius_norm(f):
    x, n = f("x", [2, 3, 4]), _nanrows(f)
    return [_C.frobenius_norm(x, [1, 2], False, False), _C.frobenius_norm(x, [0, 2], True, False),
            _C.frobenius_norm(x, [-1], False, False), _C.frobenius_norm(x, [], False, True),
            _C.frobenius_norm(n, [0, 1], False, False),
            paddle.linalg.norm(f("d", [3, 4], "float64"), p="fro")], {}


@op("l1_norm")
def _l1_norm(f):
    # float32 only: phi registers l1_norm for float alone
    return [_C.l1_norm(f("x", [3, 4])), _C.l1_norm(_nanrows(f)), _C.l1_norm(f("s", []))], {}


@op("squared_l2_norm")
def _squared_l2_norm(f):
    return [_C.squared_l2_norm(f("x", [3, 4])), _C.squared_l2_norm(_nanrows(f)),
            _C.squared_l2_norm(f("d", [3, 4], "float64")), _C.squared_l2_norm(f("s", []))], {}


@op("norm")
def _norm(f):
    # out = x / sqrt(sum(x^2, axis) + epsilon); save_inference_model sets is_test, which
    # leaves the `norm` output unset, so only `out` is fetched
    x = f("x", [2, 3, 4])
    zero = f("z", [2, 3], value=np.zeros([2, 3], "float32"))
    return [_C.norm(x, 1, 1e-10, False)[0], _C.norm(x, -1, 1e-10, True)[0],
            _C.norm(x, 0, 1e-3, False)[0], _C.norm(zero, 1, 1e-10, False)[0],
            _C.norm(_nanrows(f), 1, 1e-10, False)[0],
            _C.norm(f("d", [3, 4], "float64"), 0, 1e-10, False)[0]], {}


@op("p_norm__boundary")
def _p_norm_boundary(f):
    n, b = _nanrows(f), _special(f)
    z = f("z", [2, 3], value=np.zeros([2, 3], "float32"))
    return [paddle.linalg.vector_norm(n, 2, axis=1), paddle.linalg.vector_norm(n, 1, axis=0),
            paddle.linalg.vector_norm(n, INF, axis=1), paddle.linalg.vector_norm(n, -INF, axis=1),
            paddle.linalg.vector_norm(n, 0, axis=1), paddle.linalg.vector_norm(b, 2, axis=1),
            paddle.linalg.vector_norm(z, 3, axis=1, keepdim=True),
            paddle.linalg.vector_norm(b, 0.5, axis=0)], {}


@op("dist")
def _dist(f):
    x, y, b = f("x", [2, 3]), f("y", [2, 3]), f("b", [3])
    n = _nanrows(f)
    return [paddle.dist(x, y), paddle.dist(x, y, p=1), paddle.dist(x, b, p=INF),
            paddle.dist(x, y, p=-INF), paddle.dist(x, y, p=0), paddle.dist(x, b, p=3),
            paddle.dist(n, f("m", [4]), p=2), paddle.dist(f("d", [2, 3], "float64"),
                                                          f("e", [3], "float64"), p=2.5)], {}


@op("trace")
def _trace(f):
    x = f("x", [3, 4])
    t = f("t", [2, 3, 4])
    i = f("i", [3, 3], "int32", -9, 9)
    return [paddle.trace(x), paddle.trace(x, offset=1), paddle.trace(x, offset=-2),
            paddle.trace(x, offset=5), paddle.trace(t, axis1=1, axis2=2),
            paddle.trace(t, offset=1, axis1=0, axis2=-1), paddle.trace(i),
            paddle.trace(f("d", [3, 3], "float64"))], {}


@op("reduce_as")
def _reduce_as(f):
    x = f("x", [2, 3, 4])
    i = f("i", [2, 3], "int32", -9, 9)
    return [paddle.reduce_as(x, f("a", [3, 4])), paddle.reduce_as(x, f("b", [2, 1, 4])),
            paddle.reduce_as(x, f("c", [1, 3, 1])), paddle.reduce_as(x, f("e", [4])),
            paddle.reduce_as(i, f("j", [3], "int32")),
            paddle.reduce_as(_nanrows(f), f("m", [3, 1]))], {}


@op("numel")
def _numel(f):
    x = f("x", [2, 3, 4])
    return [paddle.numel(x), paddle.numel(f("s", [])), paddle.numel(f("z", [0, 3])),
            paddle.numel(f("y", [2, 3], dyn=[-1, 3]))], {}


# --- sort and search -------------------------------------------------------------------------

@op("argsort")
def _argsort(f):
    x, n, t = f("x", [3, 5]), _nanrows(f), _ties(f)
    i = f("i", [3, 6], "int32", 0, 3)
    z = f("z", [2, 3], value=np.array([[0.0, -0.0, 0.0], [-0.0, 0.0, -0.0]], "float32"))
    return [*_C.argsort(x, -1, False, False), *_C.argsort(x, 0, True, False),
            *_C.argsort(n, 1, False, True), *_C.argsort(n, 1, True, True),
            *_C.argsort(t, 1, False, True), *_C.argsort(t, 1, True, True),
            *_C.argsort(t, 0, False, True), *_C.argsort(i, 1, False, True),
            *_C.argsort(z, 1, False, True), paddle.sort(f("d", [2, 4], "float64"), axis=1)], {}


@op("unique")
def _unique(f):
    x = f("x", [8], value=np.array([3, 1, 2, 3, 1, 5, -1, 2], "float32"))
    i = f("i", [2, 6], "int64", 0, 4)
    m = f("m", [4, 3], "int32", value=np.array([[1, 2, 3], [0, 1, 1], [1, 2, 3], [0, 1, 0]], "int32"))
    n = f("n", [6], value=np.array([NAN, 1.0, -0.0, 0.0, NAN, 1.0], "float32"))
    return [paddle.unique(x), *paddle.unique(x, return_index=True, return_inverse=True,
                                             return_counts=True),
            *paddle.unique(i, return_inverse=True, return_counts=True, dtype="int32"),
            *paddle.unique(m, return_index=True, return_inverse=True, return_counts=True, axis=0),
            *paddle.unique(m, return_inverse=True, axis=1), paddle.unique(n),
            paddle.unique(f("z", [0], "float32"))], {}


@op("unique_consecutive")
def _unique_consecutive(f):
    x = f("x", [9], value=np.array([1, 1, 2, 2, 2, 1, 3, 3, 1], "float32"))
    i = f("i", [2, 6], "int64", 0, 2)
    m = f("m", [4, 3], "int32", value=np.array([[1, 2, 3], [1, 2, 3], [0, 1, 0], [1, 2, 3]], "int32"))
    return [paddle.unique_consecutive(x),
            *paddle.unique_consecutive(x, return_inverse=True, return_counts=True),
            *paddle.unique_consecutive(i, return_inverse=True, return_counts=True, dtype="int32"),
            *paddle.unique_consecutive(m, return_inverse=True, return_counts=True, axis=0),
            *paddle.unique_consecutive(m, return_counts=True, axis=1)], {}


@op("nonzero")
def _nonzero(f):
    b = f("b", [3, 4], "bool")
    x = f("x", [2, 3], value=np.array([[0.0, -0.0, NAN], [1.0, 0.0, -INF]], "float32"))
    i = f("i", [7], "int32", -1, 2)
    return [paddle.nonzero(b), paddle.nonzero(x), paddle.nonzero(i),
            paddle.nonzero(f("z", [2, 3], value=np.zeros([2, 3], "float32"))),
            paddle.nonzero(f("t", [2, 2, 2], "int64", 0, 2))], {}


@op("masked_select")
def _masked_select(f):
    x, m = f("x", [3, 4]), f("m", [3, 4], "bool")
    r = f("r", [4], "bool")
    i = f("i", [3, 4], "int64", -9, 9)
    return [paddle.masked_select(x, m), paddle.masked_select(x, r), paddle.masked_select(i, m),
            paddle.masked_select(x, f("n", [3, 4], "bool", value=np.zeros([3, 4], bool)))], {}


@op("searchsorted")
def _searchsorted(f):
    s = f("s", [6], value=np.array([-1.0, 0.0, 0.0, 2.0, 2.0, 5.0], "float32"))
    v = f("v", [2, 4], value=np.array([[0.0, 2.0, -5.0, 9.0], [NAN, INF, -INF, 1.0]], "float32"))
    s2 = f("s2", [2, 4], value=np.array([[1, 3, 5, 7], [2, 2, 4, 8]], "int64"))
    v2 = f("v2", [2, 3], "int64", 0, 9)
    d = f("d", [5], "float64", value=np.array([0.0, 1.0, 1.0, NAN, NAN]))
    return [paddle.searchsorted(s, v), paddle.searchsorted(s, v, right=True),
            paddle.searchsorted(s, v, out_int32=True), paddle.searchsorted(s2, v2),
            paddle.searchsorted(s2, v2, right=True),
            paddle.searchsorted(d, f("w", [4], "float64", value=np.array([1.0, NAN, 2.0, -1.0])))], {}


@op("histogram")
def _histogram(f):
    x = f("x", [3, 5])
    i = f("i", [10], "int64", -3, 7)
    c = f("c", [5], value=np.array([0.0, 1.0, 2.0, 3.0, 4.0], "float32"))
    w = f("w", [3, 5])
    return [paddle.histogram(x, bins=5), paddle.histogram(x, bins=4, min=-1, max=1),
            paddle.histogram(i, bins=10, min=-3, max=7), paddle.histogram(c, bins=4),
            paddle.histogram(x, bins=3, min=-1, max=1, weight=w),
            paddle.histogram(x, bins=3, min=-1, max=1, density=True),
            paddle.histogram(f("o", [4], value=np.full([4], 2.0, "float32")), bins=3)], {}


@op("bincount")
def _bincount(f):
    x = f("x", [8], "int64", 0, 5)
    w = f("w", [8])
    i = f("i", [6], "int32", 0, 4)
    return [paddle.bincount(x), paddle.bincount(x, weights=w), paddle.bincount(x, minlength=9),
            paddle.bincount(i, weights=f("d", [6], "float64")), paddle.bincount(i, minlength=2),
            paddle.bincount(i, weights=f("k", [6], "int32", -3, 3))], {}


@op("edit_distance")
def _edit_distance(f):
    h = f("h", [3, 5], "int64", 0, 4)
    r = f("r", [3, 4], "int64", 0, 4)
    hl = f("hl", [3], "int64", value=np.array([5, 3, 0], "int64"))
    rl = f("rl", [3], "int64", value=np.array([4, 4, 2], "int64"))
    # F.loss.edit_distance is the legacy static API (Variables only): build the op directly
    return [*_C.edit_distance(h, r, hl, rl, False), *_C.edit_distance(h, r, hl, rl, True)], {}
