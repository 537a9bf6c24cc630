"""Builders of the sparse COO reductions and math ops: sum_coo_sp (axis / keepdim / dtype
variants), softmax_coo_sp (over the last axis of 2-D and 3-D COO tensors, sparse and dense
last dims), pow_coo_sp (the boundary values, in full Eigen packets and in the scalar tail),
divide_coo_coo_sp (the merge over every position) and add_coo_dense_sp (a dense bias over the
last dim); then wider random inputs (__random: the kernels' own walks over sparse axes,
__dense_wide: the dense kernels on the values), integers and a COO without entries.  Each
fetches the dense result and the stored values and indices of the sparse one, so the entries'
order and count are compared too."""
import numpy as np
import paddle

from . import boundary, op

C = paddle._C_ops
UNDEF = paddle.base.core.DataType.UNDEFINED


def _parts(s):
    return [C.sparse_to_dense(s), C.sparse_values(s), C.sparse_indices(s)]


# 3 x 4 with an empty row (row 1), a large negative value and a column with one entry
_X2 = np.array([[1.5, 0, -2, 0.25],
                [0, 0, 0, 0],
                [3, -1e30, 0, 7]], "float32")
# 2 x 3 x 4: some (i, j) rows empty, some full
_X3 = np.array([[[1, 0, 2, 0], [0, 0, 0, 0], [-1, 0.5, 3, -4]],
                [[0, 0, 0, 9], [5, 6, 0, 0], [0, 0, 0, 0]]], "float32")


# --- sum ---------------------------------------------------------------------------------------

def _sum(name, shape_value, sparse_dim, variants, dtype="float32"):
    @op(name)
    def _build(f):
        x = f("x", None, value=shape_value.astype(dtype))
        s = C.sparse_to_sparse_coo(x, sparse_dim)
        outs = []
        for axis, out_dtype, keep in variants:
            outs += _parts(C.sparse_sum(s, axis, out_dtype, keep))
        return outs, {}
    return _build


# every axis (Paddle's reduce_all branch: a single entry; without keepdim indices [1], 0-D
# values, and Paddle's saved program types those values with an uninitialised dim)
_sum("sum_coo_sp__all", _X2, 2, [([], UNDEF, False), ([], UNDEF, True)])
# one sparse axis of a 2-D COO (sparse_dim 2): the std::map walk over the other index
_sum("sum_coo_sp__sparse_axis", _X2, 2,
     [([1], UNDEF, False), ([1], UNDEF, True), ([0], UNDEF, False), ([-1], UNDEF, True)])
# 3-D with sparse_dim 2: a sparse axis, and the dense last axis (phi::Sum on the values)
_sum("sum_coo_sp__3d", _X3, 2,
     [([0], UNDEF, False), ([1], UNDEF, True), ([2], UNDEF, False), ([-1], UNDEF, True)])
# sparse_dim 1: a reduced sparse axis keeps its dim (keep_dim forced)
_sum("sum_coo_sp__sparse_dim1", _X2, 1, [([0], UNDEF, False), ([1], UNDEF, False)])
# the dtype attribute: float32 values summed to float64, and kept float32
_sum("sum_coo_sp__dtype", _X2, 2,
     [([1], paddle.float64, False), ([], paddle.float64, False), ([1], paddle.float32, False)])
_sum("sum_coo_sp__int64", _X3, 2, [([1], UNDEF, False), ([2], UNDEF, False), ([], UNDEF, False)],
     dtype="int64")
_sum("sum_coo_sp__int32", _X3, 3, [([2], paddle.int64, False), ([0], paddle.int64, True)],
     dtype="int32")


# int32 with dtype undefined: SumInferMeta declares int64 values (as the dense sum gives), but
# the sparse-axis walk of SumCooCPUKernel writes int32 ones, so the next kernel reading them
# fails; recorded as Paddle's exception
@op("sum_coo_sp__int32_undefined",
    expect="SumInferMeta declares int64 values for an int32 input, SumCooCPUKernel stores int32 "
           "(a sparse axis): reading them fails, 'The type of data we are trying to retrieve "
           "(int64) does not match the type of data (int32)', in 3.0.0 and 3.3.1")
def _sum_int32_undefined(f):
    x = f("x", None, value=_X3.astype("int32"))
    return _parts(C.sparse_sum(C.sparse_to_sparse_coo(x, 3), [2], UNDEF, False)), {}

# a middle sparse axis of a 3-D COO (sparse_dim 3), with and without keepdim
_sum("sum_coo_sp__middle", _X3, 3, [([1], UNDEF, False), ([-2], UNDEF, True), ([0], UNDEF, False)])
# an axis list: SumCooCPUKernel reduces axis[0] only
_sum("sum_coo_sp__axis_list", _X3, 3, [([1, 0], UNDEF, False)])


@op("sum_coo_sp__boundary")
def _sum_boundary(f):
    # NaN, +-inf and the extremes summed along the sparse axis (columns of a 3 x 7 grid)
    x = f("x", None, value=boundary()[:21].reshape(3, 7))
    s = C.sparse_to_sparse_coo(x, 2)
    return (_parts(C.sparse_sum(s, [0], UNDEF, False))
            + _parts(C.sparse_sum(s, [1], UNDEF, True))), {}


# --- softmax -----------------------------------------------------------------------------------

@op("softmax_coo_sp")
def _softmax(f):
    x2 = f("x2", None, value=_X2)
    x3 = f("x3", None, value=_X3)
    outs = _parts(C.sparse_softmax(C.sparse_to_sparse_coo(x2, 2), -1))
    outs += _parts(C.sparse_softmax(C.sparse_to_sparse_coo(x3, 3), -1))
    outs += _parts(C.sparse_softmax(C.sparse_to_sparse_coo(x3, 2), -1))  # dense last dim
    outs += _parts(C.sparse_softmax(C.sparse_to_sparse_coo(x2, 2), 0))  # over the columns
    outs += _parts(C.sparse_softmax(C.sparse_to_sparse_coo(x3, 3), 1))  # a middle axis
    outs += _parts(C.sparse_softmax(C.sparse_to_sparse_coo(x3, 2), 0))  # sparse, dense dims
    return outs, {}


@op("softmax_coo_sp__boundary")
def _softmax_boundary(f):
    # rows with NaN, +inf, -inf, all -inf, the extremes; float64 too
    v = np.array([[np.nan, 1, 2, 0], [np.inf, 1, 0, 0], [-np.inf, 1, 0, 2],
                  [-np.inf, -np.inf, 0, 0], [3.4e38, -3.4e38, 1, 0], [0, 0, 0, 1e-45],
                  [88, 89, 90, 0.5]], "float32")
    x = f("x", None, value=v)
    d = f("d", None, value=np.array([[0.1, 0.2, 0, 700], [1e-3, 0, -5, 3]], "float64"))
    return (_parts(C.sparse_softmax(C.sparse_to_sparse_coo(x, 2), -1))
            + _parts(C.sparse_softmax(C.sparse_to_sparse_coo(d, 2), -1))), {}


# --- pow ---------------------------------------------------------------------------------------

_FACTORS = (2.0, 3.0, 0.5, -1.0, 0.0, -0.5, 2.5, -2.0, 1.0, 7.0)


@op("pow_coo_sp")
def _pow(f):
    # boundary() has 19 non-zeros: 16 in two full 8-float packets, 3 in the scalar tail; the
    # reversed copy puts the other values in the tail, float64 (4-double packets) the same
    b = boundary()
    x = f("x", None, value=b)
    r = f("r", None, value=b[::-1].copy())
    d = f("d", None, value=boundary("float64"))
    outs = []
    for fac in _FACTORS:
        for t in (x, r, d):
            outs += _parts(C.sparse_pow(C.sparse_to_sparse_coo(t, 1), fac))[:2]
    return outs, {}


@op("pow_coo_sp__ordinary")
def _pow_ordinary(f):
    x = f("x", [6, 5])
    outs = []
    for fac in (2.0, 3.0, 1.7, -1.0, 0.5):
        outs += _parts(C.sparse_pow(C.sparse_to_sparse_coo(x, 2), fac))
    return outs, {}


# --- divide ------------------------------------------------------------------------------------

@op("divide_coo_coo_sp")
def _divide(f):
    # stored in x only (x / 0), in y only (0 / y), in both, and in neither (0 / 0): Paddle's
    # divide merge visits every position of the sparse dims
    xa = np.array([[0, 1.5, 0, -2], [3, 0, 0, 0.5], [0, -7, 4, 1]], "float32")
    ya = np.array([[1, 0, 0, -2], [0, 2, 0, 0], [0, 0.25, -4, 0]], "float32")
    x, y = f("x", None, value=xa), f("y", None, value=ya)
    out = C.sparse_divide(C.sparse_to_sparse_coo(x, 2), C.sparse_to_sparse_coo(y, 2))
    x3, y3 = f("x3", None, value=_X3), f("y3", None, value=_X3[::-1].copy() * 0.5)
    out3 = C.sparse_divide(C.sparse_to_sparse_coo(x3, 2), C.sparse_to_sparse_coo(y3, 2))
    return _parts(out) + _parts(out3), {}


@op("divide_coo_coo_sp__boundary")
def _divide_boundary(f):
    b = boundary()
    x, y = f("x", None, value=np.repeat(b, 21)), f("y", None, value=np.tile(b, 21))
    out = C.sparse_divide(C.sparse_to_sparse_coo(x, 1), C.sparse_to_sparse_coo(y, 1))
    return _parts(out), {}


# --- add coo + dense ---------------------------------------------------------------------------

@op("add_coo_dense_sp")
def _add_dense(f):
    # a bias over the dense last dim (values [nnz, 4] + [4]), as Paddle supports it
    x3 = f("x3", None, value=_X3)
    bias = f("bias", None, value=np.array([0.5, -1, 0, np.inf], "float32"))
    out = C.sparse_add(C.sparse_to_sparse_coo(x3, 2), bias)
    # sparse_dim = ndim: values [nnz] + [last dim] broadcast only when nnz == last dim
    v = np.array([[0, 1, 0], [2, 0, 3]], "float32")
    x2, y2 = f("x2", None, value=v), f("y2", None, value=np.array([10, -20, 0.5], "float32"))
    out2 = C.sparse_add(C.sparse_to_sparse_coo(x2, 2), y2)
    return _parts(out) + _parts(out2), {}


# --- wider inputs ------------------------------------------------------------------------------

def _half_sparse(shape, dtype, seed):
    r = np.random.default_rng(seed)
    a = r.standard_normal(shape) * 10
    a[r.random(shape) < 0.5] = 0
    return a.astype(dtype)


@op("softmax_coo_sp__random")
def _softmax_random(f):
    # pools of up to 37 entries in stored order (sparse axes: the exp / sum / scale walk)
    outs = []
    for dt in ("float32", "float64"):
        x = f(f"x_{dt}", None, value=_half_sparse((40, 37), dt, 1))
        y = f(f"y_{dt}", None, value=_half_sparse((6, 7, 9), dt, 2))
        outs += _parts(C.sparse_softmax(C.sparse_to_sparse_coo(x, 2), -1))[1:2]
        outs += _parts(C.sparse_softmax(C.sparse_to_sparse_coo(x, 2), 0))[1:2]
        outs += _parts(C.sparse_softmax(C.sparse_to_sparse_coo(y, 3), 1))[1:2]
    return outs, {}


@op("softmax_coo_sp__dense_wide")
def _softmax_dense_wide(f):
    # a dense last dim of 9: phi's dense softmax on the values [nnz, 9]
    outs = []
    for dt in ("float32", "float64"):
        y = f(f"y_{dt}", None, value=_half_sparse((6, 7, 9), dt, 2))
        outs += _parts(C.sparse_softmax(C.sparse_to_sparse_coo(y, 2), -1))[1:2]
    return outs, {}


@op("sum_coo_sp__random")
def _sum_random(f):
    # groups of up to 40 entries summed in stored order (sparse axes)
    outs = []
    for dt in ("float32", "float64"):
        x = f(f"x_{dt}", None, value=_half_sparse((40, 37), dt, 3))
        y = f(f"y_{dt}", None, value=_half_sparse((6, 7, 9), dt, 4))
        outs += _parts(C.sparse_sum(C.sparse_to_sparse_coo(x, 2), [0], UNDEF, False))[1:]
        outs += _parts(C.sparse_sum(C.sparse_to_sparse_coo(y, 3), [1], UNDEF, True))[1:]
    return outs, {}


@op("sum_coo_sp__dense_wide")
def _sum_dense_wide(f):
    # a dense dim of 9 reduced, and every axis: phi's dense sum (Eigen) on the values
    outs = []
    for dt in ("float32", "float64"):
        y = f(f"y_{dt}", None, value=_half_sparse((6, 7, 9), dt, 4))
        s = C.sparse_to_sparse_coo(y, 2)
        outs += _parts(C.sparse_sum(s, [2], UNDEF, False))[1:2]
        outs += _parts(C.sparse_sum(s, [], UNDEF, False))[1:2]
    return outs, {}


# --- integers ----------------------------------------------------------------------------------

@op("sum_coo_sp__int16")
def _sum_int16(f):
    # summed in the values' type: 30000 + 30000 + 7 wraps to -5529 in int16
    h = f("h", None, value=np.array([30000, 30000, 7, 0, -3], "int16"))
    return _parts(C.sparse_sum(C.sparse_to_sparse_coo(h, 1), [0], UNDEF, False)), {}


_IX = np.array([[7, -7, 0], [5, 0, 9]], "int64")


@op("divide_coo_coo_sp__int64")
def _divide_int64(f):
    # every position stored in y: C++'s truncating integer division (7 / -2 = -3)
    x = f("x", None, value=_IX)
    y = f("y", None, value=np.array([[2, -2, 3], [-2, 1, 4]], "int64"))
    return _parts(C.sparse_divide(C.sparse_to_sparse_coo(x, 2), C.sparse_to_sparse_coo(y, 2))), {}


@op("divide_coo_coo_sp__int64_absent",
    expect="a position y has no entry divides by an integer 0: DivideFunctor raises 'Integer "
           "division by zero encountered in (floor) divide' (3.0.0; '(floor/trunc)' in 3.3.1)")
def _divide_int64_absent(f):
    x = f("x", None, value=_IX)
    y = f("y", None, value=np.array([[2, 0, 3], [-2, 1, 0]], "int64"))
    return _parts(C.sparse_divide(C.sparse_to_sparse_coo(x, 2), C.sparse_to_sparse_coo(y, 2))), {}


# --- no entries --------------------------------------------------------------------------------

def _empty(name, fn):
    @op(name)
    def _build(f):
        s = C.sparse_to_sparse_coo(f("x", None, value=np.zeros((3, 4), "float32")), 2)
        return _parts(fn(s, lambda: f("y", None, value=np.ones(4, "float32")))), {}
    return _build


_empty("sum_coo_sp__empty", lambda s, y: C.sparse_sum(s, [1], UNDEF, False))
_empty("sum_coo_sp__empty_keepdim", lambda s, y: C.sparse_sum(s, [0], UNDEF, True))
_empty("sum_coo_sp__empty_all", lambda s, y: C.sparse_sum(s, [], UNDEF, False))
_empty("softmax_coo_sp__empty", lambda s, y: C.sparse_softmax(s, -1))
_empty("pow_coo_sp__empty", lambda s, y: C.sparse_pow(s, 3.0))
_empty("divide_coo_coo_sp__empty", lambda s, y: C.sparse_divide(s, s))  # 0 / 0 everywhere
_empty("add_coo_dense_sp__empty", lambda s, y: C.sparse_add(s, y()))
