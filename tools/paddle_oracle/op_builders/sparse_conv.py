"""Builders of the sparse COO convolution family: conv3d_sp (subm and not), maxpool_sp,
batch_norm_sp_ (and the GPU-only conv3d_implicit_gemm_sp / sync_batch_norm_sp_).

The input is a 5-D NDHWC tensor made COO with sparse_dim 4 (channels dense), a quarter of
the positions stored.  Every sparse result is fetched dense AND as its stored values and
indices, so the order and count of the output entries are compared; conv3d_sp and maxpool_sp
also fetch their rulebook ([3, n]: kernel offset, input entry, output entry) and counter
(entries per kernel offset), the op's 2nd and 3rd results, which the Python API drops."""
import numpy as np
import paddle

from . import arr, op

C = paddle._C_ops
SHAPE = [2, 4, 5, 5, 3]  # N, D, H, W, C


def _coo_input(model, key="x", shape=SHAPE, dtype="float32", boundary=False):
    """A dense NDHWC array with about a quarter of the (n, d, h, w) positions non-zero."""
    keep = arr(model, key + "@mask", shape[:4], "int32", 0, 4) == 0
    vals = arr(model, key + "@vals", shape, dtype)
    if boundary:
        # special values on stored rows that keep one ordinary channel, so they stay stored
        rows = np.argwhere(keep)
        special = [np.nan, np.inf, -np.inf, -0.0, 0.0, np.finfo(dtype).max, 1e-40]
        for i, s in enumerate(special):
            vals[tuple(rows[2 * i + 1])][i % (shape[4] - 1)] = s
    return np.where(keep[..., None], vals, 0).astype(dtype)


def _parts(out, with_rulebook=True):
    """The fetches of a sparse conv / pool result: dense, values, indices (+ rulebook,
    counter: the op's other two results)."""
    fetches = [C.sparse_to_dense(out), C.sparse_values(out), C.sparse_indices(out)]
    if with_rulebook:
        res = out.get_defining_op().results()
        fetches += [res[1], res[2]]
    return fetches


def _conv(sx, w, paddings, dilations, strides, subm, key=""):
    return C.sparse_conv3d(sx, w, paddings, dilations, strides, 1, subm, key)


# -- conv3d_sp -------------------------------------------------------------------------------

@op("conv3d_sp")
def _conv3d_sp(f):
    x = f("x", SHAPE, value=_coo_input("conv3d_sp"))
    w = f("w", [3, 3, 3, 3, 4])
    w2 = f("w2", [3, 2, 3, 3, 4])
    w3 = f("w3", [3, 1, 3, 3, 2])
    sx = C.sparse_to_sparse_coo(x, 4)
    fetches = []
    # ordinary convolution: every output position an input reaches is stored
    fetches += _parts(_conv(sx, w, [0, 0, 0], [1, 1, 1], [1, 1, 1], False))
    # submanifold: the input's positions only (paddings reset to kernel/2, strides to 1)
    fetches += _parts(_conv(sx, w, [0, 0, 0], [1, 1, 1], [1, 1, 1], True))
    # stride, padding and dilation differing per axis, a non-cubic kernel
    fetches += _parts(_conv(sx, w2, [1, 0, 1], [1, 2, 1], [2, 1, 2], False))
    # subm ignores the given paddings and strides
    fetches += _parts(_conv(sx, w3, [0, 2, 0], [1, 1, 1], [2, 2, 2], True))
    return fetches, {}


@op("conv3d_sp__f64")
def _conv3d_sp_f64(f):
    x = f("x", [1, 3, 4, 4, 2], value=_coo_input("conv3d_sp__f64", shape=[1, 3, 4, 4, 2],
                                                   dtype="float64"))
    w = f("w", [2, 3, 3, 2, 3], "float64")
    sx = C.sparse_to_sparse_coo(x, 4)
    return (_parts(_conv(sx, w, [1, 1, 1], [1, 1, 1], [1, 1, 1], False))
            + _parts(_conv(sx, w, [0, 0, 0], [1, 1, 1], [1, 1, 1], True))), {}


@op("conv3d_sp__boundary")
def _conv3d_sp_boundary(f):
    x = f("x", SHAPE, value=_coo_input("conv3d_sp__boundary", boundary=True))
    w = f("w", [3, 3, 3, 3, 2])
    sx = C.sparse_to_sparse_coo(x, 4)
    return (_parts(_conv(sx, w, [1, 1, 1], [1, 1, 1], [1, 1, 1], False))
            + _parts(_conv(sx, w, [0, 0, 0], [1, 1, 1], [1, 1, 1], True))), {}


@op("conv3d_sp__wide")
def _conv3d_sp_wide(f):
    # more channels: a GEMM of K = 16 per kernel offset (reduction order inside the GEMM)
    shape = [1, 4, 5, 5, 16]
    x = f("x", shape, value=_coo_input("conv3d_sp__wide", shape=shape))
    w = f("w", [3, 3, 3, 16, 8])
    sx = C.sparse_to_sparse_coo(x, 4)
    return (_parts(_conv(sx, w, [1, 1, 1], [1, 1, 1], [1, 1, 1], False))
            + _parts(_conv(sx, w, [0, 0, 0], [1, 1, 1], [1, 1, 1], True))), {}


@op("conv3d_sp__subm_even")
def _conv3d_sp_subm_even(f):
    # an even kernel under subm: padding kernel/2 makes the output one larger than the input
    x = f("x", SHAPE, value=_coo_input("conv3d_sp__subm_even"))
    w = f("w", [2, 2, 2, 3, 2])
    sx = C.sparse_to_sparse_coo(x, 4)
    return _parts(_conv(sx, w, [0, 0, 0], [1, 1, 1], [1, 1, 1], True)), {}


@op("conv3d_sp__empty")
def _conv3d_sp_empty(f):
    x = f("x", SHAPE, value=np.zeros(SHAPE, "float32"))
    w = f("w", [3, 3, 3, 3, 2])
    sx = C.sparse_to_sparse_coo(x, 4)
    return (_parts(_conv(sx, w, [0, 0, 0], [1, 1, 1], [1, 1, 1], False))
            + _parts(_conv(sx, w, [0, 0, 0], [1, 1, 1], [1, 1, 1], True))), {}


@op("conv3d_sp__key")
def _conv3d_sp_key(f):
    # two subm convolutions sharing a key: the second reuses the rulebook the first saved
    # in the tensor (the rulebook / counter results are then left unset: not fetched).  The
    # second keeps the channel count: Paddle's reuse path (PrepareSubm) sizes the output
    # values like the input's, so with fewer output channels the rows are read with the
    # wrong stride and the tail is never written
    x = f("x", SHAPE, value=_coo_input("conv3d_sp__key"))
    w1, w2 = f("w1", [3, 3, 3, 3, 3]), f("w2", [3, 3, 3, 3, 3])
    sx = C.sparse_to_sparse_coo(x, 4)
    y = _conv(sx, w1, [1, 1, 1], [1, 1, 1], [1, 1, 1], True, "subm1")
    z = _conv(y, w2, [1, 1, 1], [1, 1, 1], [1, 1, 1], True, "subm1")
    return _parts(y, False) + _parts(z, False), {}


_IGEMM = ("GPU only: conv3d_implicit_gemm has no CPU kernel, so Paddle's PIR builder accepts no "
          "dtype on the CPU place (Check data type error for op: conv3d_implicit_gemm, "
          "expected_dtype empty) in 3.0.0 and 3.3.1")


@op("conv3d_implicit_gemm_sp", expect=_IGEMM)
def _conv3d_implicit_gemm_sp(f):
    x = f("x", SHAPE, value=_coo_input("conv3d_implicit_gemm_sp"))
    w = f("w", [3, 3, 3, 3, 4])
    out = C.sparse_conv3d_implicit_gemm(C.sparse_to_sparse_coo(x, 4), w, [1, 1, 1],
                                        [1, 1, 1], [1, 1, 1], 1, True, "")
    return _parts(out, False), {}


# -- maxpool_sp ------------------------------------------------------------------------------

def _pool(sx, kernel, paddings, strides):
    return C.sparse_maxpool(sx, kernel, paddings, [1, 1, 1], strides)


@op("maxpool_sp")
def _maxpool_sp(f):
    x = f("x", SHAPE, value=_coo_input("maxpool_sp"))
    sx = C.sparse_to_sparse_coo(x, 4)
    return (_parts(_pool(sx, [2, 2, 2], [0, 0, 0], [2, 2, 2]))   # the API's default stride
            + _parts(_pool(sx, [3, 3, 3], [1, 1, 1], [1, 1, 1]))
            + _parts(_pool(sx, [2, 3, 2], [0, 1, 1], [1, 2, 1]))), {}


@op("maxpool_sp__boundary")
def _maxpool_sp_boundary(f):
    # NaN, +-Inf, +-0 ties: Paddle's `y > x ? y : x` keeps a later NaN and drops an earlier one
    xa = _coo_input("maxpool_sp__boundary", boundary=True)
    xa[0, 0, 0, 0] = [-0.0, 0.0, 1.0]
    xa[0, 0, 0, 1] = [0.0, -0.0, np.nan]
    xa[0, 0, 1, 0] = [np.nan, -np.inf, -0.0]
    x = f("x", SHAPE, value=xa)
    sx = C.sparse_to_sparse_coo(x, 4)
    return (_parts(_pool(sx, [2, 2, 2], [0, 0, 0], [2, 2, 2]))
            + _parts(_pool(sx, [3, 3, 3], [1, 1, 1], [1, 1, 1]))), {}


@op("maxpool_sp__f64")
def _maxpool_sp_f64(f):
    x = f("x", [1, 3, 4, 4, 2], value=_coo_input("maxpool_sp__f64", shape=[1, 3, 4, 4, 2],
                                                   dtype="float64"))
    return _parts(_pool(C.sparse_to_sparse_coo(x, 4), [2, 2, 2], [1, 0, 1], [1, 2, 2])), {}


# -- batch_norm_sp_ ----------------------------------------------------------------------------
# One program (an in-place op's name ends in "_", so it takes no __VARIANT): it is saved in
# test mode and set back to training (`train`), so the variants are training ones and, with
# use_global_stats, the inference formula.  Each variant has its own running mean / variance
# feeds: the op writes them in place.  The layout is NHWC, as the Python API passes it for
# NDHWC: "NCHW" would make the infer-meta take dim 1 of the 5-D shape (D) as the channels.

def _bn(f, i, sx, layout, momentum, epsilon, use_global_stats, channels=3):
    m = f(f"m{i}", [channels])
    v = f(f"v{i}", [channels],
          value=(np.abs(arr("batch_norm_sp_", f"v{i}", [channels])) + 0.5).astype("float32"))
    w, b = f(f"w{i}", [channels]), f(f"b{i}", [channels])
    r = C.sparse_batch_norm_(sx, m, v, w, b, False, momentum, epsilon, layout,
                             use_global_stats, False)
    fetches = [C.sparse_to_dense(r[0]), C.sparse_values(r[0]), C.sparse_indices(r[0]),
               r[1], r[2]]
    # the saved mean / inverse std: written in training only (left unset otherwise)
    return fetches + ([] if use_global_stats else [r[3], r[4]])


@op("batch_norm_sp_", train=[".batch_norm_sp_"])
def _batch_norm_sp(f):
    x = f("x", SHAPE, value=_coo_input("batch_norm_sp_"))
    xb = f("xb", SHAPE, value=_coo_input("batch_norm_sp_", "xb", boundary=True))
    x9 = f("x9", SHAPE[:4] + [9], value=_coo_input("batch_norm_sp_", "x9", SHAPE[:4] + [9]))
    x16 = f("x16", SHAPE[:4] + [16],
            value=_coo_input("batch_norm_sp_", "x16", SHAPE[:4] + [16]))
    sx, sxb = C.sparse_to_sparse_coo(x, 4), C.sparse_to_sparse_coo(xb, 4)
    sx9, sx16 = C.sparse_to_sparse_coo(x9, 4), C.sparse_to_sparse_coo(x16, 4)
    return (_bn(f, 0, sx, "NHWC", 0.9, 1e-5, False)     # batch statistics of the values
            + _bn(f, 1, sx, "NHWC", 0.8, 1e-3, False)
            + _bn(f, 2, sx, "NHWC", 0.9, 1e-5, True)    # the running statistics
            + _bn(f, 3, sx, "NHWC", 0.9, 1e-3, True)
            + _bn(f, 4, sxb, "NHWC", 0.9, 1e-5, True)
            + _bn(f, 5, sxb, "NHWC", 0.9, 1e-5, False)
            # 9 and 16 channels: Eigen runs the per-channel sqrt on full packets of 8
            + _bn(f, 6, sx9, "NHWC", 0.9, 1e-5, True, 9)
            + _bn(f, 7, sx9, "NHWC", 0.9, 1e-5, False, 9)
            + _bn(f, 8, sx16, "NHWC", 0.9, 1e-5, False, 16)), {}


_SYNC = ("GPU / distributed only: sync_batch_norm_coo has no CPU kernel, so Paddle's PIR builder "
         "accepts no dtype on the CPU place (Check data type error for op: "
         "sync_batch_norm_coo_, expected_dtype empty) in 3.0.0 and 3.3.1")


@op("sync_batch_norm_sp_", expect=_SYNC)
def _sync_batch_norm_sp(f):
    x = f("x", SHAPE, value=_coo_input("sync_batch_norm_sp_"))
    m, v, w, b = f("m", [3]), f("v", [3], value=np.ones(3, "float32")), f("w", [3]), f("b", [3])
    sx = C.sparse_to_sparse_coo(x, 4)
    r = C.sparse_sync_batch_norm_(sx, m, v, w, b, True, 0.9, 1e-5, "NHWC", False, False)
    return [C.sparse_to_dense(r[0]), C.sparse_values(r[0])], {}
