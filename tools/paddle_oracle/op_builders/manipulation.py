"""Builders of the data-movement ops: flips and rolls, gathers and scatters, the index family,
triangles and diagonals, padding and cropping, set_value (what `x[a:b] = v` emits), views,
created tensors (eye, linspace, ones, empty, ...) and the tensor-array ops.

Out-of-range indices (tried on Paddle 3.3.1's CPU kernels): gather, index_select, gather_nd,
index_sample, take_along_axis, put_along_axis, scatter, scatter_nd_add and index_add all raise
(OutOfRange / InvalidArgument); no fixture feeds one. Negative indices count from the end in
all of them but index_sample, which refuses them ("expected >= 0"): the fixtures feed them there.
"""
import numpy as np
import paddle
import paddle.nn.functional as F

from paddle.tensor.manipulation import tensor_array_to_tensor

from . import Feeds, arr, boundary, int_boundary, op  # noqa: F401

C = paddle._C_ops
NEW = paddle.__version__ >= "3.1"   # cases Paddle 3.0.0's kernels refuse (said where used)
P = paddle._pir_ops      # the PIR op builders (some ops have no paddle.* API)
_STRIDED = ("GPU/stride-only: Paddle registers no CPU kernel that the static PIR executor can "
            "pick (pd_op_to_kernel_pass: 'kernel output args (0) defs should equal op outputs')")


def _b(f, name="b", n=21):
    """The float32 boundary values as a [3, 7] feed."""
    return f(name, [3, 7], value=boundary("float32")[:n].reshape(3, 7))


# -- flips, rolls ----------------------------------------------------------------------------

@op("flip")
def _flip(f):
    x, b = f("x", [2, 3, 4]), _b(f)
    i, k = f("i", [3, 4], "int32", -9, 9), f("k", [5], "bool")
    z = f("z", [0, 3])
    return [paddle.flip(x, [0]), paddle.flip(x, [-1, 1]), paddle.flip(b, [0, 1]),
            paddle.flip(i, 1), paddle.flip(k, 0), paddle.flip(z, [0, 1]),
            paddle.flip(x.astype("float64"), [2])], {}


@op("reverse")
def _reverse(f):
    x, i = f("x", [2, 3, 4]), f("i", [3, 4], "int64", -9, 9)
    return [C.reverse(x, [0]), C.reverse(x, [-1, 1]), C.reverse(i, [1])], {}


@op("roll")
def _roll(f):
    x, b = f("x", [2, 3, 4]), _b(f)
    i = f("i", [3, 4], "int64", -9, 9)
    z = f("z", [0, 3])
    return [paddle.roll(x, 1), paddle.roll(x, -2, 1), paddle.roll(x, [1, 5], [0, 2]),
            paddle.roll(b, 3, 1), paddle.roll(i, [-1, 2], [0, 1]), paddle.roll(i, 7),
            paddle.roll(z, 1, 1), paddle.roll(x, 0, -1)], {}


# -- gathers -----------------------------------------------------------------------------------

@op("gather")
def _gather(f):
    x, b = f("x", [4, 3]), _b(f)
    idx = f("idx", [5], "int64", 0, 4)
    idx32 = f("idx32", [3], "int32", 0, 3)
    i = f("i", [4, 3], "int32", -9, 9)
    e = f("e", [0], "int64", 0, 1)
    s = f("s", [], "int64", 0, 3)
    neg = f("neg", [3], "int64", value=np.array([-1, -4, 2]))
    return [paddle.gather(x, neg), paddle.gather(x, neg[::2], axis=1),
            paddle.gather(x, idx), paddle.gather(x, idx32, axis=1), paddle.gather(b, idx32),
            paddle.gather(i, idx), paddle.gather(x, e), paddle.gather(x, s),
            paddle.gather(x.astype("float64"), idx, axis=0)], {}


@op("gather_nd")
def _gather_nd(f):
    x, b = f("x", [3, 4, 2]), _b(f)
    i1 = f("i1", [5, 1], "int64", 0, 3)
    i2 = f("i2", [2, 3, 2], "int32", 0, 3)
    i3 = f("i3", [4, 3], "int64", 0, 2)
    ib = f("ib", [6, 2], "int64", 0, 3)
    e = f("e", [2, 0], "int64", 0, 1)
    k = f("k", [3, 4], "int32", -9, 9)
    neg = f("neg", [2, 2], "int64", value=np.array([[-1, -2], [0, -4]]))
    return [paddle.gather_nd(x, neg), paddle.gather_nd(x, i1), paddle.gather_nd(x, i2),
            paddle.gather_nd(x, i3),
            paddle.gather_nd(b, ib), paddle.gather_nd(x, e), paddle.gather_nd(k, ib)], {}


@op("index_select")
def _index_select(f):
    x, b = f("x", [4, 3]), _b(f)
    idx = f("idx", [5], "int64", 0, 3)
    idx32 = f("idx32", [4], "int32", 0, 4)
    i = f("i", [4, 3], "int64", -9, 9)
    k = f("k", [4, 3], "bool")
    e = f("e", [0], "int64", 0, 1)
    neg = f("neg", [3], "int32", value=np.array([-1, -3, 0], "int32"))
    return [paddle.index_select(x, neg), paddle.index_select(x, neg, axis=1),
            paddle.index_select(x, idx), paddle.index_select(x, idx, axis=1),
            paddle.index_select(x, idx32, axis=-2), paddle.index_select(b, idx, axis=1),
            paddle.index_select(i, idx32)] + (
            # a bool x and an empty index: refused by 3.0.0's index_select ("Check data type
            # error ... bool", "The length of Input(Index) can't be 0")
            [paddle.index_select(k, idx), paddle.index_select(x, e)] if NEW else [k, e]), {}


@op("index_sample")
def _index_sample(f):
    x, b = f("x", [3, 5]), _b(f)
    idx = f("idx", [3, 4], "int64", 0, 5)
    idx32 = f("idx32", [3, 2], "int32", 0, 7)
    i = f("i", [3, 5], "int32", -9, 9)
    return [paddle.index_sample(x, idx), paddle.index_sample(b, idx32),
            paddle.index_sample(i, idx), paddle.index_sample(x.astype("float64"), idx)], {}


@op("take_along_axis")
def _take_along_axis(f):
    # broadcast=False: the op itself, without the expand ops broadcasting would put before it
    x, b = f("x", [3, 4]), _b(f)
    idx = f("idx", [3, 2], "int64", 0, 4)
    idx0 = f("idx0", [2, 4], "int32", 0, 3)
    ib = f("ib", [1, 7], "int64", 0, 3)
    i = f("i", [3, 4], "int64", -9, 9)
    neg = f("neg", [3, 2], "int64", -4, 0)
    t = lambda a, j, axis: paddle.take_along_axis(a, j, axis, broadcast=False)  # noqa: E731
    return [t(x, idx, 1), t(x, idx0, 0), t(b, ib, 0), t(i, idx, -1), t(x, neg, 1)], {}


@op("index_select_strided", expect=_STRIDED)
def _index_select_strided(f):
    x = f("x", [3, 4])
    i = f("i", [2, 3, 2], "int32", -9, 9)
    return [P.index_select_strided(x, 1, 0), P.index_select_strided(x, 2, 1),
            P.index_select_strided(i, 0, 2), P.index_select_strided(x, -1, 1)], {}


# -- scatters ----------------------------------------------------------------------------------

@op("scatter")
def _scatter(f):
    x, u = f("x", [5, 3]), f("u", [4, 3])
    idx = f("idx", [4], "int64", value=np.array([1, 3, 1, 0]))     # duplicate index 1
    uniq = f("uniq", [4], "int32", value=np.array([4, 0, 2, 3], "int32"))
    i, iu = f("i", [5, 3], "int32", -9, 9), f("iu", [4, 3], "int32", -9, 9)
    s = f("s", [], "int64", 0, 5)
    us = f("us", [3])
    neg = f("neg", [4], "int64", value=np.array([-1, 0, -5, 2]))
    return [paddle.scatter(x, neg, u), paddle.scatter(x, neg, u, overwrite=False),
            paddle.scatter(x, uniq, u), paddle.scatter(x, idx, u, overwrite=False),
            paddle.scatter(i, uniq, iu), paddle.scatter(i, idx, iu, overwrite=False),
            paddle.scatter(x.astype("float64"), uniq, u.astype("float64"), overwrite=False),
            paddle.scatter(x, s, us)], {}


@op("scatter_nd_add")
def _scatter_nd_add(f):
    x = f("x", [3, 4, 2])
    i1 = f("i1", [5, 1], "int64", value=np.array([[0], [2], [0], [1], [2]]))
    u1 = f("u1", [5, 4, 2])
    i2 = f("i2", [3, 2], "int32", value=np.array([[0, 1], [2, 3], [0, 1]], "int32"))
    u2 = f("u2", [3, 2])
    i3 = f("i3", [2, 3], "int64", value=np.array([[0, 1, 1], [2, 3, 0]]))
    u3 = f("u3", [2])
    k = f("k", [3, 4], "int64", -9, 9)
    ku = f("ku", [3], "int64", -9, 9)
    neg = f("neg", [2, 2], "int64", value=np.array([[-1, -1], [-3, 0]]))
    un = f("un", [2, 2])
    return [paddle.scatter_nd_add(x, neg, un), paddle.scatter_nd_add(x, i1, u1),
            paddle.scatter_nd_add(x, i2, u2),
            paddle.scatter_nd_add(x, i3, u3), paddle.scatter_nd_add(k, i2, ku)], {}


@op("index_add")
def _index_add(f):
    x = f("x", [4, 3])
    idx = f("idx", [3], "int64", value=np.array([0, 2, 0]))
    v0, v1 = f("v0", [3, 3]), f("v1", [4, 3])
    i, iv = f("i", [4, 3], "int32", -9, 9), f("iv", [3, 3], "int32", -9, 9)
    idx1 = f("idx1", [3], "int32", value=np.array([2, 1, 2], "int32"))
    neg = f("neg", [3], "int64", value=np.array([-1, 0, -1]))
    return [paddle.index_add(x, neg, 0, v0), paddle.index_add(x, idx, 0, v0),
            paddle.index_add(x, idx1, 1, v1),
            paddle.index_add(i, idx, 0, iv), paddle.index_add(x, idx1, -1, v1)], {}


@op("index_put")
def _index_put(f):
    x = f("x", [4, 3])
    r = f("r", [3], "int64", value=np.array([0, 3, 0]))
    c = f("c", [3], "int64", value=np.array([1, 2, 1]))
    v, v1 = f("v", [3]), f("v1", [1])
    m = f("m", [4, 3], "bool")
    i = f("i", [4, 3], "int64", -9, 9)
    iv = f("iv", [3], "int64", -9, 9)
    rn = f("rn", [2], "int32", value=np.array([-1, 1], "int32"))
    v3 = f("v3", [2, 3])
    return [paddle.index_put(x, (r, c), v, accumulate=True),
            paddle.index_put(x, (r, c), v1),
            paddle.index_put(x, (m,), v1),
            paddle.index_put(i, (r, c), iv, accumulate=True),
            paddle.index_put(x, (rn,), v3)], {}


@op("put_along_axis")
def _put_along_axis(f):
    x = f("x", [3, 4])
    idx = f("idx", [3, 2], "int64", value=np.array([[0, 0], [3, 1], [2, 2]]))
    v = f("v", [3, 2])
    i = f("i", [3, 4], "int32", -9, 9)
    iv = f("iv", [3, 2], "int32", -9, 9)
    uniq = f("uniq", [3, 2], "int64", value=np.array([[0, 1], [3, 1], [2, 0]]))
    idx0 = f("idx0", [2, 4], "int64", value=np.array([[0, 2, 1, 0], [0, 1, 1, 2]]))
    v0 = f("v0", [2, 4])

    def put(a, j, v, axis, **kw):  # broadcast=False: no expand ops before the op
        return paddle.put_along_axis(a, j, v, axis, broadcast=False, **kw)

    outs = [put(x, uniq, v, 1),
            put(x, idx0, v0, 0, reduce="add"),
            put(x, idx, v, 1, reduce="multiply"),
            put(x, idx, v, 1, reduce="add", include_self=False),
            put(x, idx, v, 1, reduce="mean"),
            put(x, idx, v, 1, reduce="mean", include_self=False),
            put(x, idx, v, 1, reduce="amax"),
            put(x, idx0, v0, 0, reduce="amin", include_self=False),
            put(i, idx, iv, 1, reduce="add"),
            put(i, idx, iv, 1, reduce="mean"),
            put(i, uniq, iv, 1, reduce="amin"),
            put(x, uniq, paddle.full([3, 2], 2.5), 1)]
    return outs, {}


# -- triangles, diagonals ----------------------------------------------------------------------

@op("tril")
def _tril(f):
    x, b = f("x", [2, 3, 4]), _b(f)
    i, k = f("i", [4, 3], "int64", -9, 9), f("k", [3, 3], "bool")
    z = f("z", [0, 3])
    return [paddle.tril(x), paddle.tril(x, 1), paddle.tril(x, -2), paddle.tril(b, 2),
            paddle.tril(i, -1), paddle.tril(k), paddle.tril(z), paddle.tril(x, 9)], {}


@op("triu")
def _triu(f):
    x, b = f("x", [2, 3, 4]), _b(f)
    i, k = f("i", [4, 3], "int32", -9, 9), f("k", [3, 3], "bool")
    return [paddle.triu(x), paddle.triu(x, 1), paddle.triu(x, -2), paddle.triu(b, -1),
            paddle.triu(i, 1), paddle.triu(k, -1), paddle.triu(x, -9)], {}


@op("diag")
def _diag(f):
    v, m = f("v", [4]), f("m", [3, 5])
    b = f("b", [21], value=boundary("float32"))
    i = f("i", [3], "int64", -9, 9)
    mi = f("mi", [4, 3], "int32", -9, 9)
    return [paddle.diag(v), paddle.diag(v, 1), paddle.diag(v, -2, padding_value=-1.5),
            paddle.diag(m), paddle.diag(m, 2), paddle.diag(m, -1), paddle.diag(b),
            paddle.diag(i, padding_value=7), paddle.diag(mi, -1)] + (
            # an empty diagonal: 3.0.0's kernel fails ("The meta data must be valid")
            [paddle.diag(mi, -3), paddle.diag(m, 9)] if NEW else []), {}


@op("diag_embed")
def _diag_embed(f):
    x, y = f("x", [2, 3]), f("y", [3])
    i = f("i", [2, 2], "int64", -9, 9)
    return [paddle.diag_embed(x), paddle.diag_embed(x, 1), paddle.diag_embed(x, -1, 0, 2),
            paddle.diag_embed(y, 0, 1, 0), paddle.diag_embed(i, 2)], {}


@op("diagonal")
def _diagonal(f):
    x, m = f("x", [2, 3, 4]), f("m", [3, 5])
    i = f("i", [3, 3], "int32", -9, 9)
    k = f("k", [3, 4], "bool")
    return [paddle.diagonal(x), paddle.diagonal(x, 1, 1, 2), paddle.diagonal(x, -1, -1, 0),
            paddle.diagonal(m, 2), paddle.diagonal(m, -2), paddle.diagonal(i),
            paddle.diagonal(k, 1),
            paddle.diagonal(m, 7)], {}


@op("fill_diagonal")
def _fill_diagonal(f):
    x, t = f("x", [3, 3]), f("t", [7, 3])
    w = f("w", [3, 4])
    c = f("c", [3, 3, 3])
    i = f("i", [4, 4], "int64", -9, 9)
    return [C.fill_diagonal(x, 5.0, 0, False), C.fill_diagonal(x, -1.5, 1, False),
            C.fill_diagonal(t, 2.0, 0, True), C.fill_diagonal(t, 2.0, 0, False),
            C.fill_diagonal(w, 3.0, -1, False), C.fill_diagonal(c, 9.0, 0, False),
            C.fill_diagonal(i, 7.0, 0, False), C.fill_diagonal(t, 1.0, -1, True)], {}


@op("fill_diagonal_tensor")
def _fill_diagonal_tensor(f):
    x = f("x", [3, 4])
    y = f("y", [3])
    y1 = f("y1", [2])
    z = f("z", [2, 3, 4])
    yz = f("yz", [2, 3])
    yz2 = f("yz2", [4, 2])
    i, iy = f("i", [3, 3], "int32", -9, 9), f("iy", [3], "int32", -9, 9)
    return [C.fill_diagonal_tensor(x, y, 0, 0, 1), C.fill_diagonal_tensor(x, y, 1, 0, 1),
            C.fill_diagonal_tensor(x, y1, -1, 0, 1), C.fill_diagonal_tensor(z, yz, 0, 1, 2),
            C.fill_diagonal_tensor(z, yz2, 0, 0, 1), C.fill_diagonal_tensor(i, iy, 0, 1, 0)], {}


@op("tril_indices")
def _tril_indices(f):
    x = f("x", [2])
    return [paddle.tril_indices(4, 4, 0), paddle.tril_indices(3, 5, 1, "int32"),
            paddle.tril_indices(4, 3, -1), paddle.tril_indices(3, 3, -5),
            paddle.tril_indices(2, 2) + 0 * x.astype("int64").reshape([1, 2])[:, :1]], {}


@op("triu_indices")
def _triu_indices(f):
    x = f("x", [2])
    return [paddle.triu_indices(4, 4, 0), paddle.triu_indices(3, 5, 1, "int32"),
            paddle.triu_indices(4, 3, -1), paddle.triu_indices(3, 3, 5),
            paddle.triu_indices(2, 2) + 0 * x.astype("int64").reshape([1, 2])[:, :1]], {}


# -- padding, cropping, broadcasting -----------------------------------------------------------

@op("pad")
def _pad(f):
    x, b = f("x", [2, 3]), _b(f)
    i = f("i", [2, 3], "int32", -9, 9)
    z = f("z", [0, 2])
    return [C.pad(x, [1, 0, 2, 1], 0.0), C.pad(x, [0, 2, 1, 1], -1.5),
            C.pad(b, [1, 1, 0, 0], -np.inf), C.pad(i, [2, 0, 0, 3], 7),
            C.pad(z, [1, 1, 0, 1], 3.0), C.pad(x.astype("float64"), [0, 0, 0, 0], 2.0)], {}


@op("crop")
def _crop(f):
    x = f("x", [3, 4, 5])
    i = f("i", [4, 4], "int64", -9, 9)
    return [paddle.crop(x, [2, 2, 3], [1, 0, 2]), paddle.crop(x, [-1, 1, 5], [0, 3, 0]),
            paddle.crop(i, [2, 3], [2, 1]), paddle.crop(x, [3, 4, 5])], {}


@op("meshgrid")
def _meshgrid(f):
    a, b, c = f("a", [3]), f("b", [2]), f("c", [4])
    i, j = f("i", [2], "int32", -9, 9), f("j", [3], "int32", -9, 9)
    return [*paddle.meshgrid(a, b, c), *paddle.meshgrid(i, j), *paddle.meshgrid(a)], {}


@op("broadcast_tensors")
def _broadcast_tensors(f):
    a, b, c = f("a", [2, 1, 3]), f("b", [4, 1]), f("c", [])
    i, k = f("i", [3, 1], "int64", -9, 9), f("k", [1, 2], "int64", -9, 9)
    p, q = f("p", [2, 1], "bool"), f("q", [3], "bool")
    z = f("z", [0, 1])
    return [*paddle.broadcast_tensors([a, b, c]), *paddle.broadcast_tensors([i, k]),
            *paddle.broadcast_tensors([p, q]), *paddle.broadcast_tensors([z, b[:1]])], {}


@op("unstack")
def _unstack(f):
    x = f("x", [2, 3, 4])
    i = f("i", [3, 2], "int32", -9, 9)
    return [*paddle.unstack(x), *paddle.unstack(x, axis=-1), *paddle.unstack(i, 1)], {}


# -- set_value (x[...] = v in static mode) -----------------------------------------------------
# paddle.static.setitem(x, index, v) is `x[index] = v` with its result as a value of its own
# (the in-place form leaves the fetched variable naming the tensor before the write, and
# save_inference_model prunes the write away). It writes into its operand (set_value_): each
# output starts from a copy of the input.


def S(x, index, value):
    return paddle.static.setitem(paddle.assign(x), index, value)


@op("set_value")
def _set_value(f):
    x = f("x", [4, 5, 3])
    i = f("i", [4, 5], "int64", -9, 9)
    k = f("k", [3, 2], "bool")
    # A NaN in `values` is saved as JSON null and the program no longer loads (Paddle 3.3.1:
    # "key 'D' not found"); diag's padding_value and pad's pad_value fail the same way.
    big = float(np.finfo("float32").max)
    return [S(x, slice(1, 3), 2.5),                                   # one axis
            S(x, (slice(None, None, 2), slice(1, 5, 2), -1), -1.0),   # steps, a decreased axis
            S(x, (slice(3, 0, -2), slice(None), 0), 7.0),             # a negative step
            S(x, (slice(-3, -1), None, 2), big),                      # negative bounds, none axis
            S(i, (slice(None), 1), 9),                                # int64
            S(x, 1, float("-inf")),
            S(x, (Ellipsis, slice(1, None)), 0.5),                    # ellipsis
            S(x, (slice(-1, -5, -1), slice(4, None, -3)), -0.0),      # negative steps, two axes
            S(k, (slice(0, 2),), True),                               # bool
            S(x, slice(7, 9), 1.0),                                   # empty range: a no-op
            C.set_value(x, [0], [2], [1], [1], [], [], [1], [-0.0])], {}  # the out-of-place op


@op("set_value_with_tensor")
def _set_value_with_tensor(f):
    x = f("x", [4, 5, 3])
    v = f("v", [2, 5, 3])
    v1 = f("v1", [3])
    vs = f("vs", [])
    w = f("w", [2, 3])
    i, iv = f("i", [4, 5], "int32", -9, 9), f("iv", [5], "int32", -9, 9)
    v64 = f("v64", [2, 3], "float64")
    return [S(x, slice(1, 3), v),
            S(x, (slice(None, None, 2), slice(1, 5, 2)), v1),             # a broadcast value
            S(x, (slice(3, 0, -2), 2), w),                                # negative step, decreased
            S(x, (-1, None, slice(1, 3)), vs),                            # 0-d value, none axis
            S(i, 2, iv),                                                  # int32
            S(x, (slice(None, 2), 0), v64)], {}                           # a float64 value, cast


# -- views -------------------------------------------------------------------------------------

@op("view_dtype", expect=_STRIDED)
def _view_dtype(f):
    x, i = f("x", [2, 4]), f("i", [3, 2], "int32", -9, 9)
    return [P.view_dtype(x, paddle.int32), P.view_dtype(i, paddle.float32)], {}


@op("view_shape")
def _view_shape(f):
    x = f("x", [2, 3, 4])
    i = f("i", [6], "int64", -9, 9)
    return [P.view_shape(x, [6, 4]), P.view_shape(x, [-1, 2]), P.view_shape(x, [4, 3, 2]),
            P.view_shape(i, [3, 2])], {}


@op("as_strided", expect=_STRIDED)
def _as_strided(f):
    x = f("x", [3, 4])
    return [P.as_strided(x, [2, 2], [4, 1], 0), P.as_strided(x, [3, 3], [1, 3], 1)], {}


# -- created tensors ---------------------------------------------------------------------------

@op("eye")
def _eye(f):
    x = f("x", [3, 3])
    return [paddle.eye(3) + x, paddle.eye(2, 4, "int32"), paddle.eye(4, 2, "float64"),
            paddle.eye(0, 3), paddle.eye(1, 1, "int64")], {}


@op("linspace")
def _linspace(f):
    x = f("x", [5])
    return [paddle.linspace(0, 1, 5) + x, paddle.linspace(-3.0, 7.0, 11, "float64"),
            paddle.linspace(10, 0, 4, "int32"), paddle.linspace(0, 10, 7, "int64"),
            paddle.linspace(2.0, 2.0, 1), paddle.linspace(0.1, 0.7, 9),
            paddle.linspace(1, -1, 0)], {}


@op("logspace")
def _logspace(f):
    x = f("x", [5])
    return [paddle.logspace(0, 1, 5) + x, paddle.logspace(-2.0, 2.0, 9, 10.0, "float64"),
            paddle.logspace(0, 4, 5, 2.0, "int32"), paddle.logspace(1.0, 0.0, 3, 3.0),
            paddle.logspace(0, 3, 4, 10, "int64")], {}


@op("empty")
def _empty(f):
    # Values are undefined: only zero-size results and ones read for their shape are fetched.
    x = f("x", [2, 3])
    e = paddle.empty([2, 3], "int32")
    return [paddle.empty([0, 3]), paddle.full_like(e, 4), paddle.empty([3, 0], "int64"),
            paddle.full_like(paddle.empty([4], "bool"), True), x + 0.0], {}


@op("empty_like")
def _empty_like(f):
    # paddle.empty_like emits shape64 + empty: the op itself comes from its PIR builder
    x, z = f("x", [2, 3]), f("z", [0, 2])
    i = f("i", [3], "int32", -9, 9)
    el = lambda t, dt: P.empty_like(t, dt, paddle.CPUPlace())  # noqa: E731
    return [paddle.full_like(el(x, paddle.float64), 2.0), el(z, paddle.float32),
            paddle.full_like(el(i, paddle.int32), -1), el(z, paddle.int64)], {}


_EAGER = ("no PIR builder: paddle._pir_ops has no {0} (paddle._C_ops.{0} is eager-only and "
          "crashes or refuses a pir.Value in static mode); paddle.{0} emits pd_op.full / full_like")


@op("ones", expect=_EAGER.format("ones"))
def _ones(f):
    x = f("x", [2, 3])
    return [P.ones([2, 3], paddle.float32, paddle.CPUPlace()) + x], {}


@op("ones_like", expect=_EAGER.format("ones_like"))
def _ones_like(f):
    x = f("x", [2, 3])
    return [P.ones_like(x, paddle.float32, paddle.CPUPlace())], {}


@op("zeros", expect=_EAGER.format("zeros"))
def _zeros(f):
    x = f("x", [2, 3])
    return [P.zeros([2, 3], paddle.float32, paddle.CPUPlace()) + x], {}


@op("zeros_like", expect=_EAGER.format("zeros_like"))
def _zeros_like(f):
    x = f("x", [2, 3])
    return [P.zeros_like(x, paddle.float32, paddle.CPUPlace())], {}


@op("assign_value")
def _assign_value(f):
    x = f("x", [2, 2])
    a = C.assign_value([2, 2], paddle.float32, [1.5, -0.0, float("inf"), 3.0], paddle.CPUPlace())
    return [x + a, C.assign_value([3], paddle.int32, [1, -2, 3], paddle.CPUPlace()),
            C.assign_value([2], paddle.int64, [7, 2**40], paddle.CPUPlace()),
            C.assign_value([2], paddle.bool, [True, False], paddle.CPUPlace())], {}


@op("assign_out_")
def _assign_out(f):
    x, i = f("x", [2, 3]), f("i", [3], "int64", -9, 9)
    # the op's result (3.0.0's paddle.assign(..., output=) returns the output operand, and
    # save_inference_model prunes the write away)
    y = C.assign_out_(x * 2.0, paddle.zeros([2, 3]))
    j = C.assign_out_(i, paddle.zeros([3], "int64"))
    return [y + 1.0, j * 1], {}


@op("shard_index")
def _shard_index(f):
    x = f("x", [5, 1], "int64", value=np.array([[0], [3], [7], [12], [19]]))
    y = f("y", [4, 1], "int32", value=np.array([[1], [5], [9], [10]], "int32"))
    return [paddle.shard_index(x, 20, 2, 0), paddle.shard_index(x, 20, 2, 1),
            paddle.shard_index(x, 20, 3, 1, ignore_value=-2), paddle.shard_index(y, 11, 4, 2)], {}


@op("fill")
def _fill(f):
    x, i = f("x", [2, 3]), f("i", [3], "int32", -9, 9)
    # a NaN value is refused by Paddle's FillKernel ("fill value should not be NaN")
    return [C.fill(x, 2.5), C.fill(i, 4), C.fill(x, float("inf")), C.fill(x, -0.0)], {}


# -- tensor arrays -----------------------------------------------------------------------------

def _array(*xs):
    a = paddle.tensor.create_array(xs[0].dtype)
    for n, x in enumerate(xs):
        paddle.tensor.array_write(x, paddle.full([1], n, "int64"), a)
    return a


@op("array_to_tensor")
def _array_to_tensor(f):
    x, y, z = f("x", [2, 3]), f("y", [2, 3]), f("z", [2, 1])
    a = _array(x, y)
    out, idx = tensor_array_to_tensor(a, axis=0)
    st, sidx = tensor_array_to_tensor(_array(x, y), axis=1, use_stack=True)
    # arrays of unequal shapes: refused by ArrayToTensorInferMeta ("dims ... must be equal");
    # with a negative axis out_index is left unwritten (garbage in 3.3.1): not fetched
    c, _ = tensor_array_to_tensor(_array(x, y, x), axis=-1)
    return [out, idx, st, sidx, c, z], {}


@op("array_pop")
def _array_pop(f):
    x, y, z = f("x", [2, 3]), f("y", [2, 3]), f("z", [2, 3])
    a = _array(x, y, z)
    last = a.pop(-1)
    first = a.pop(0)
    return [last, first, paddle.tensor.array_length(a),
            paddle.tensor.array_read(a, paddle.full([1], 0, "int64"))], {}


@op("slice_array")
def _slice_array(f):
    x, y, z = f("x", [2, 3]), f("y", [2, 3]), f("z", [2, 3])
    a = _array(x, y, z)
    s = P.slice_array(a, [1], [3])
    out, _ = tensor_array_to_tensor(s, axis=0)
    return [out, paddle.tensor.array_length(s)], {}


@op("slice_array_dense")
def _slice_array_dense(f):
    x, y, z = f("x", [2, 3]), f("y", [2, 3]), f("z", [2, 3])
    a = _array(x, y, z)
    return [P.slice_array_dense(a, [1]), P.slice_array_dense(a, [0])], {}


@op("tensor_to_array")
def _tensor_to_array(f):
    # the backward of array_to_tensor: gradients() emits it
    x, y = f("x", [2, 3]), f("y", [2, 3])
    x.stop_gradient = y.stop_gradient = False
    out, _ = tensor_array_to_tensor(_array(x * 1.0, y * 2.0), axis=1)
    st, _ = tensor_array_to_tensor(_array(x * 3.0, y * 1.0), axis=0, use_stack=True)
    gx, gy = paddle.static.gradients([out * out, st], [x, y])
    return [out, gx, gy], {}


@op("create_array_like")
def _create_array_like(f):
    x, y = f("x", [2, 3]), f("y", [2, 3])
    a = P.create_array_like(_array(x, y), 1.5)
    out, _ = tensor_array_to_tensor(a, axis=0)
    return [out], {}


@op("assign_array")
def _assign_array(f):
    x, y = f("x", [2, 3]), f("y", [2, 3])
    a = paddle.assign(_array(x, y))     # an array operand: assign_array
    out, _ = tensor_array_to_tensor(a, axis=0)
    return [out], {}


@op("add_n_array")
def _add_n_array(f):
    x, y, u, v = f("x", [2, 3]), f("y", [2, 3]), f("u", [2, 3]), f("v", [2, 3])
    a = P.add_n_array([_array(x, y), _array(u, v)])
    out, _ = tensor_array_to_tensor(a, axis=0)
    return [out], {}
