"""Builders of the sparse COO ops that make, cast, fill, coalesce, reshape, transpose, slice or
mask a COO tensor (cast_coo, full_like_coo, coalesce, reshape_coo, transpose_coo, slice_coo,
sparse_coo_tensor, mask_as_coo).

Most inputs are built with sparse_coo_tensor from fed values and indices, so they hold what a
dense_to_coo never gives: unsorted entries, duplicates, explicit zeros and NaN.  Each program
fetches the result's dense form, values and indices, so the entries' order, count and index
dtype are compared too.  Variants `__hybrid` use sparse_dim < ndim (values [nnz, *dense]) where
Paddle's CPU kernel handles it; transpose_coo and slice_coo do not (their kernels index the
indices rows by dense axes, or copy one value per entry), so they have none.
"""
import numpy as np
import paddle

from . import boundary, op

C = paddle._C_ops
NAN, INF = float("nan"), float("inf")

# 5 entries of a [3, 4] tensor, unsorted, (2, 1) and (0, 3) stored twice
IDX = np.array([[2, 0, 2, 1, 0], [1, 3, 1, 0, 3]], "int64")


def _parts(out):
    return [C.sparse_to_dense(out), C.sparse_values(out), C.sparse_indices(out)]


def _coo(f, values, indices, shape, vname="v", iname="i"):
    v = f(vname, list(np.shape(values)), value=np.asarray(values))
    i = f(iname, list(np.shape(indices)), value=np.asarray(indices))
    return C.sparse_sparse_coo_tensor(v, i, shape)


# --- sparse_coo_tensor --------------------------------------------------------------------------

@op("sparse_coo_tensor_sp")
def _sparse_coo_tensor(f):
    v = np.array([1.5, NAN, -0.0, INF, 0.0], "float32")
    return _parts(_coo(f, v, IDX, [3, 4])), {}


@op("sparse_coo_tensor_sp__hybrid")
def _sparse_coo_tensor_hybrid(f):
    v = np.arange(15, dtype="float64").reshape(5, 3) - 7
    return _parts(_coo(f, v, IDX, [3, 4, 3])), {}


@op("sparse_coo_tensor_sp__int32_indices")
def _sparse_coo_tensor_int32(f):
    v = np.array([1, -2, 3], "int32")
    i = np.array([[0, 2, 1]], "int32")
    return _parts(_coo(f, v, i, [4])), {}


# --- cast_coo -----------------------------------------------------------------------------------

def _boundary_coo(f, sparse_dim=1):
    x = f("x", [21], value=boundary())
    return C.sparse_to_sparse_coo(x, sparse_dim)


@op("cast_coo_sp")
def _cast(f):
    out = C.sparse_cast(_boundary_coo(f), paddle.int32, paddle.float64)
    return _parts(out), {}


@op("cast_coo_sp__f16")
def _cast_f16(f):
    # values only (index_dtype undefined): Paddle's dense cast kernel on the values tensor
    out = C.sparse_cast(_boundary_coo(f), paddle.base.core.DataType.UNDEFINED, paddle.float16)
    return _parts(out), {}


@op("cast_coo_sp__hybrid")
def _cast_hybrid(f):
    xa = np.array([[[1.5, -2.7], [0, 0]], [[0, 0], [0, 0]], [[3.9, 0], [-0.0, 8]]], "float32")
    x = f("x", [3, 2, 2], value=xa)
    out = C.sparse_cast(C.sparse_to_sparse_coo(x, 1), paddle.base.core.DataType.UNDEFINED,
                        paddle.int32)
    return _parts(out), {}


# --- full_like_coo ------------------------------------------------------------------------------

@op("full_like_coo_sp")
def _full_like(f):
    coo = _boundary_coo(f)
    outs = []
    for value, dtype in ((2.5, paddle.float32), (-0.0, paddle.float64), (3.7, paddle.int32),
                         (-INF, paddle.float32)):
        outs += _parts(C.sparse_full_like(coo, value, dtype))
    return outs, {}


@op("full_like_coo_sp__hybrid")
def _full_like_hybrid(f):
    v = np.arange(15, dtype="float32").reshape(5, 3)
    return _parts(C.sparse_full_like(_coo(f, v, IDX, [3, 4, 3]), -1.25, paddle.float32)), {}


# --- coalesce -----------------------------------------------------------------------------------

@op("coalesce_sp")
def _coalesce(f):
    # duplicates summed in stored order: 1e8 + 1 - 1e8 (0 in float32, 1 the other way round),
    # inf + -inf, -0 + -0 (stays -0), NaN
    idx = np.array([[3, 0, 3, 1, 3, 2, 2, 1, 0, 4],
                    [2, 1, 2, 0, 2, 2, 2, 0, 0, 1]], "int64")
    v = np.array([1e8, NAN, 1, -0.0, -1e8, INF, -INF, -0.0, 0.5, -3], "float32")
    return _parts(C.sparse_coalesce(_coo(f, v, idx, [5, 3]))), {}


@op("coalesce_sp__hybrid")
def _coalesce_hybrid(f):
    v = np.array([[1, 2, 3], [4, 5, 6], [0.25, -0.5, 1e8], [7, 8, 9], [-0.0, 1, -1e8]], "float32")
    return _parts(C.sparse_coalesce(_coo(f, v, IDX, [3, 4, 3]))), {}


@op("coalesce_sp__int64")
def _coalesce_int(f):
    v = np.array([9, -4, 2**62, 1, 2**62], "int64")  # (0, 3): 2**62 + 2**62 wraps
    return _parts(C.sparse_coalesce(_coo(f, v, IDX, [3, 4]))), {}


@op("coalesce_sp__empty")
def _coalesce_empty(f):
    v = np.zeros([0], "float32")
    return _parts(C.sparse_coalesce(_coo(f, v, np.zeros([2, 0], "int64"), [3, 4]))), {}


# --- reshape_coo --------------------------------------------------------------------------------

@op("reshape_coo_sp")
def _reshape(f):
    v = np.array([1.5, NAN, -0.0, INF, 0.0], "float32")
    coo = _coo(f, v, IDX, [3, 4])
    outs = []
    for shape in ([2, 6], [12], [2, 3, 2], [4, 3], [-1, 6], [0, 4]):
        outs += _parts(C.sparse_reshape(coo, shape))
    return outs, {}


@op("reshape_coo_sp__hybrid")
def _reshape_hybrid(f):
    v = np.arange(15, dtype="float32").reshape(5, 3) - 7
    coo = _coo(f, v, IDX, [3, 4, 3])
    return _parts(C.sparse_reshape(coo, [12, 3])) + _parts(C.sparse_reshape(coo, [2, 2, 3, 3])), {}


# --- transpose_coo ------------------------------------------------------------------------------

@op("transpose_coo_sp")
def _transpose(f):
    v = np.array([1.5, NAN, -0.0, INF, 0.0], "float32")
    coo = _coo(f, v, IDX, [3, 4])
    return _parts(C.sparse_transpose(coo, [1, 0])) + _parts(C.sparse_transpose(coo, [0, 1])), {}


@op("transpose_coo_sp__3d")
def _transpose_3d(f):
    xa = np.zeros([2, 3, 4], "float32")
    xa[0, 1, 2], xa[1, 0, 3], xa[1, 2, 0], xa[0, 0, 0], xa[1, 2, 3] = 1, -2, NAN, 4, -INF
    coo = C.sparse_to_sparse_coo(f("x", [2, 3, 4], value=xa), 3)
    outs = []
    for perm in ([2, 0, 1], [1, 2, 0], [0, 2, 1]):
        outs += _parts(C.sparse_transpose(coo, perm))
    return outs, {}


# --- slice_coo ----------------------------------------------------------------------------------

@op("slice_coo_sp")
def _slice(f):
    v = np.array([1.5, NAN, -0.0, INF, 0.0], "float32")
    coo = _coo(f, v, IDX, [3, 4])
    outs = []
    for axes, starts, ends in (([0, 1], [1, 1], [3, 4]), ([1], [-1], [100]),
                               ([-2], [-10], [-1]), ([0], [1], [1]), ([1, 0], [0, 2], [4, 3]),
                               ([0], [2], [1])):
        outs += _parts(C.sparse_slice(coo, axes, starts, ends))
    return outs, {}


@op("slice_coo_sp__3d")
def _slice_3d(f):
    xa = np.zeros([2, 3, 4], "float32")
    xa[0, 1, 2], xa[1, 0, 3], xa[1, 2, 0], xa[0, 0, 0], xa[1, 2, 3] = 1, -2, NAN, 4, -INF
    coo = C.sparse_to_sparse_coo(f("x", [2, 3, 4], value=xa), 3)
    return (_parts(C.sparse_slice(coo, [2, 0], [1, 1], [4, 2]))
            + _parts(C.sparse_slice(coo, [1], [1], [3]))), {}


# --- mask_as_coo --------------------------------------------------------------------------------

@op("mask_as_coo_sp")
def _mask_as(f):
    xa = np.arange(12, dtype="float32").reshape(3, 4) - 5
    xa[0, 3], xa[2, 1], xa[1, 0] = NAN, -0.0, INF
    x = f("x", [3, 4], value=xa)
    mask = _coo(f, np.ones(5, "float32"), IDX, [3, 4])
    return _parts(C.sparse_mask_as(x, mask)), {}


@op("mask_as_coo_sp__hybrid")
def _mask_as_hybrid(f):
    xa = np.arange(36, dtype="float64").reshape(3, 4, 3) - 18
    xa[2, 1, 0], xa[0, 3, 2] = NAN, -0.0
    x = f("x", [3, 4, 3], value=xa)
    mask = _coo(f, np.ones([5, 3], "float64"), IDX, [3, 4, 3])
    return _parts(C.sparse_mask_as(x, mask)), {}
