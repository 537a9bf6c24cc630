"""Builders of the linear-algebra ops: products (bmm, dot, mv, cross, kron, bilinear, fc,
matmul_with_flatten, linear_v2, multi_dot, matrix_power), decompositions and solvers
(cholesky, lu, qr, svd, eig*, solve, lstsq, ...) and the spectral ops (fft_*, stft, frame,
overlap_add, spectral_norm).

Decompositions are unique only up to a sign or phase per column (eigenvectors, the U and V
of svd, Q and R of qr): those fixtures fetch what is determined -- singular values and
eigenvalues, reconstructions such as U @ diag(S) @ Vh, and absolute values of the factors
(unique when the eigen/singular values are distinct, which the inputs are chosen to make).
"""
import numpy as np
import paddle
import paddle.nn.functional as F

from . import INF, Feeds, arr, op  # noqa: F401

_C = paddle._C_ops


def _spd(model, key, n, batch=(), dtype="float32"):
    """A well-conditioned symmetric positive-definite matrix (batch of them)."""
    m = arr(model, key, list(batch) + [n, n], "float64")
    a = m @ np.swapaxes(m, -1, -2) + n * np.eye(n)
    return a.astype(dtype)


def _sym(model, key, n, batch=(), dtype="float32"):
    m = arr(model, key, list(batch) + [n, n], "float64")
    return ((m + np.swapaxes(m, -1, -2)) / 2).astype(dtype)


def _wellcond(model, key, n, batch=(), dtype="float32"):
    """A square matrix with a dominant diagonal (far from singular)."""
    m = arr(model, key, list(batch) + [n, n], "float64")
    return (m + 2 * n * np.eye(n) * np.sign(np.diagonal(m, 0, -2, -1))[..., None]
            + 3 * np.eye(n)).astype(dtype)


# --- products ------------------------------------------------------------------------------

@op("bmm")
def _bmm(f):
    x, y = f("x", [2, 3, 4]), f("y", [2, 4, 5])
    xd, yd = f("xd", [2, 2, 3], "float64"), f("yd", [2, 3, 2], "float64")
    z, zy = f("z", [0, 3, 4]), f("zy", [0, 4, 2])
    k, ky = f("k", [2, 3, 0]), f("ky", [2, 0, 4])
    dx = f("dx", [2, 3, 4], dyn=[-1, 3, 4])
    return [paddle.bmm(x, y), paddle.bmm(xd, yd), paddle.bmm(z, zy), paddle.bmm(k, ky),
            paddle.bmm(dx, y)], {}


@op("dot")
def _dot(f):
    x, y = f("x", [5]), f("y", [5])
    b, c = f("b", [3, 4]), f("c", [3, 4])
    d = f("d", [4], "float64")
    i, j = f("i", [6], "int32", -50, 50), f("j", [6], "int64", -9, 9)
    e = f("e", [0])
    return [paddle.dot(x, y), paddle.dot(b, c), paddle.dot(d, d), paddle.dot(i, i),
            paddle.dot(j, j), paddle.dot(e, e)], {}


@op("mv")
def _mv(f):
    x, v = f("x", [3, 4]), f("v", [4])
    xd, vd = f("xd", [2, 3], "float64"), f("vd", [3], "float64")
    z, zv = f("z", [0, 4]), f("zv", [4])
    return [paddle.mv(x, v), paddle.mv(xd, vd), paddle.mv(z, zv)], {}


@op("cross")
def _cross(f):
    x, y = f("x", [2, 3, 4]), f("y", [2, 3, 4])
    a, b = f("a", [3, 3], "float64"), f("b", [3, 3], "float64")
    i, j = f("i", [4, 3], "int32", -9, 9), f("j", [4, 3], "int64", -9, 9)
    return [paddle.cross(x, y), paddle.cross(a, b, axis=1), paddle.cross(a, b, axis=0),
            paddle.cross(i, i[::-1]), paddle.cross(j, j[::-1], axis=-1)], {}


@op("kron")
def _kron(f):
    x, y = f("x", [2, 3]), f("y", [3, 2])
    a, b = f("a", [2]), f("b", [2, 2, 2])
    i, j = f("i", [2, 2], "int32", -9, 9), f("j", [2, 3], "int64", -9, 9)
    d = f("d", [2, 2], "float64")
    return [paddle.kron(x, y), paddle.kron(a, b), paddle.kron(i, i), paddle.kron(j, j),
            paddle.kron(d, d)], {}


@op("bilinear")
def _bilinear(f):
    x, y = f("x", [3, 4]), f("y", [3, 5])
    w, b = f("w", [2, 4, 5]), f("b", [1, 2])
    xd, yd, wd = f("xd", [2, 3], "float64"), f("yd", [2, 2], "float64"), f("wd", [3, 3, 2], "float64")
    return [F.bilinear(x, y, w, b), F.bilinear(x, y, w), F.bilinear(xd, yd, wd)], {}


@op("matmul_with_flatten")
def _matmul_with_flatten(f):
    x, y = f("x", [2, 3, 4]), f("y", [12, 5])
    y4 = f("y4", [4, 5])
    a, b = f("a", [2, 3, 2, 2]), f("b", [2, 2, 3])
    return [_C.matmul_with_flatten(x, y, 1, 1), _C.matmul_with_flatten(x, y4, 2, 1),
            _C.matmul_with_flatten(a, b, 2, 2)], {}


@op("legacy_matmul", expect="no builder: _C_ops has no legacy_matmul, and "
                            "paddle.pir.translate_to_pir turns an old-IR matmul op into "
                            "pd_op.matmul + pd_op.scale (checked with 3.3.1)")
def _legacy_matmul(f):
    x, y = f("x", [2, 3]), f("y", [3, 5])
    return [_C.legacy_matmul(x, y, False, False, 2.0)], {}


@op("fc")
def _fc(f):
    x, w, b = f("x", [2, 3]), f("w", [3, 5]), f("b", [5])
    x3 = f("x3", [2, 2, 3])
    w6, b4 = f("w6", [6, 4]), f("b4", [4])
    xd, wd = f("xd", [3, 2], "float64"), f("wd", [2, 2], "float64")
    return [_C.fc(x, w, b, 1, "", False), _C.fc(x, w, b, 1, "relu", False),
            _C.fc(x3, w, None, 2, "", False), _C.fc(x3, w6, b4, 1, "relu", False),
            _C.fc(xd, wd, None, 1, "", False)], {}


@op("linear_v2")
def _linear_v2(f):
    x, w, b = f("x", [2, 3]), f("w", [3, 5]), f("b", [5])
    x3 = f("x3", [2, 2, 3])
    wt = f("wt", [5, 3])
    return [_C.linear_v2(x, w, b, False), _C.linear_v2(x3, w, b, False),
            _C.linear_v2(x, wt, b, True)], {}


@op("multi_dot")
def _multi_dot(f):
    a, b, c = f("a", [3, 4]), f("b", [4, 2]), f("c", [2, 5])
    v, w = f("v", [4]), f("w", [3])
    d1, d2 = f("d1", [2, 3], "float64"), f("d2", [3, 2], "float64")
    return [paddle.linalg.multi_dot([a, b, c]), paddle.linalg.multi_dot([v, paddle.t(a), w]),
            paddle.linalg.multi_dot([d1, d2]), paddle.linalg.multi_dot([a, b])], {}


@op("matrix_power")
def _matrix_power(f):
    x = f("x", [3, 3], value=_wellcond("matrix_power", "x", 3) / 6)
    b = f("b", [2, 2, 2], value=_wellcond("matrix_power", "b", 2, (2,), "float64") / 4)
    z = f("z", [0, 2, 2])
    mp = paddle.linalg.matrix_power
    return [mp(x, 0), mp(x, 1), mp(x, 3), mp(x, 7), mp(x, -1), mp(x, -2), mp(b, 5), mp(b, -3),
            mp(z, 2)], {}


# --- decompositions and solvers ------------------------------------------------------------

@op("cholesky")
def _cholesky(f):
    x = f("x", [3, 3], value=_spd("cholesky", "x", 3))
    b = f("b", [2, 4, 4], value=_spd("cholesky", "b", 4, (2,), "float64"))
    z = f("z", [0, 3, 3])
    return [paddle.linalg.cholesky(x), paddle.linalg.cholesky(x, upper=True),
            paddle.linalg.cholesky(b), paddle.linalg.cholesky(b, upper=True),
            paddle.linalg.cholesky(z)], {}


@op("cholesky_solve")
def _cholesky_solve(f):
    l = np.linalg.cholesky(_spd("cholesky_solve", "a", 3).astype("float64"))
    lo = f("lo", [3, 3], value=l.astype("float32"))
    up = f("up", [3, 3], value=l.T.astype("float32"))
    y = f("y", [3, 2])
    lb = np.linalg.cholesky(_spd("cholesky_solve", "ab", 3, (2,), "float64"))
    lbd = f("lbd", [2, 3, 3], value=lb)
    yd = f("yd", [2, 3, 1], "float64")
    yb = f("yb", [3, 4])
    return [paddle.linalg.cholesky_solve(y, lo), paddle.linalg.cholesky_solve(y, up, upper=True),
            paddle.linalg.cholesky_solve(yd, lbd), paddle.linalg.cholesky_solve(yb, lo)], {}


@op("det")
def _det(f):
    x = f("x", [3, 3])
    b = f("b", [2, 4, 4], "float64")
    s = f("s", [3, 3], value=np.array([[1, 2, 3], [2, 4, 6], [0, 1, 1]], "float32"))
    one = f("one", [1, 1])
    z = f("z", [0, 2, 2])
    n = f("n", [2, 2], value=np.array([[np.nan, 1], [1, 1]], "float32"))
    o = f("o", [2, 2], value=np.zeros((2, 2), "float32"))
    e = f("e", [0, 0])              # the empty product: 1
    return [paddle.linalg.det(x), paddle.linalg.det(b), paddle.linalg.det(s),
            paddle.linalg.det(one), paddle.linalg.det(z), paddle.linalg.det(n),
            paddle.linalg.det(o), paddle.linalg.det(e)], {}


@op("slogdet")
def _slogdet(f):
    x = f("x", [3, 3])
    b = f("b", [2, 4, 4], "float64")
    s = f("s", [3, 3], value=np.array([[1, 2, 3], [2, 4, 6], [0, 1, 1]], "float32"))
    n = f("n", [2, 2], value=np.array([[0, 1], [1, 0]], "float32"))
    o = f("o", [2, 2], value=np.zeros((2, 2), "float32"))    # sign 0, log|det| -inf
    z = f("z", [0, 2, 2])
    return [paddle.linalg.slogdet(x), paddle.linalg.slogdet(b), paddle.linalg.slogdet(s),
            paddle.linalg.slogdet(n), paddle.linalg.slogdet(o), paddle.linalg.slogdet(z)], {}


@op("slogdet_v2")
def _slogdet_v2(f):
    x = f("x", [3, 3])
    b = f("b", [2, 4, 4], "float64")
    s = f("s", [3, 3], value=np.array([[1, 2, 3], [2, 4, 6], [0, 1, 1]], "float32"))
    n = f("n", [2, 2], value=np.array([[0, 1], [1, 0]], "float32"))
    o = f("o", [2, 2], value=np.zeros((2, 2), "float32"))
    return [t for m in (x, b, s, n, o) for t in _C.slogdet_v2(m)], {}


@op("inverse")
def _inverse(f):
    x = f("x", [3, 3], value=_wellcond("inverse", "x", 3))
    b = f("b", [2, 4, 4], value=_wellcond("inverse", "b", 4, (2,), "float64"))
    one = f("one", [1, 1])
    z = f("z", [0, 2, 2])
    return [paddle.linalg.inv(x), paddle.linalg.inv(b), paddle.linalg.inv(one),
            paddle.linalg.inv(z)], {}


@op("solve")
def _solve(f):
    x = f("x", [3, 3], value=_wellcond("solve", "x", 3))
    y, v = f("y", [3, 2]), f("v", [3])
    b = f("b", [2, 4, 4], value=_wellcond("solve", "b", 4, (2,), "float64"))
    yb = f("yb", [2, 4, 3], "float64")
    yc = f("yc", [2, 3, 1])
    z, zy = f("z", [0, 2, 2]), f("zy", [0, 2, 1])
    bd = f("bd", [2, 4, 4], "float64", value=_wellcond("solve", "bd", 4, (2,), "float64"),
           dyn=[-1, 4, 4])
    return [paddle.linalg.solve(x, y), paddle.linalg.solve(x, v), paddle.linalg.solve(b, yb),
            paddle.linalg.solve(x, yc), paddle.linalg.solve(z, zy), paddle.linalg.solve(bd, yb)], {}


@op("triangular_solve")
def _triangular_solve(f):
    a = _wellcond("triangular_solve", "a", 3)
    x = f("x", [3, 3], value=a)
    y = f("y", [3, 2])
    b = f("b", [2, 3, 3], value=_wellcond("triangular_solve", "b", 3, (2,), "float64"))
    yb = f("yb", [2, 3, 4], "float64")
    ts = paddle.linalg.triangular_solve
    o = f("o", [2, 2], value=np.zeros((2, 2), "float32"))   # a zero diagonal: inf and nan
    oy = f("oy", [2, 1], value=np.ones((2, 1), "float32"))
    return [ts(o, oy), ts(x, y), ts(x, y, upper=False), ts(x, y, transpose=True),
            ts(x, y, unitriangular=True), ts(x, y, upper=False, transpose=True, unitriangular=True),
            ts(b, yb), ts(b, yb, upper=False), ts(x, yb.astype("float32")[0])], {}


@op("lu")
def _lu(f):
    x = f("x", [3, 3])
    r = f("r", [3, 4], "float64")
    t = f("t", [4, 2])
    b = f("b", [2, 3, 3], "float64")
    s = f("s", [3, 3], value=np.array([[1, 2, 3], [2, 4, 6], [0, 1, 1]], "float32"))
    o = f("o", [2, 2], value=np.zeros((2, 2), "float32"))    # info 1: U[0, 0] is 0
    outs = []
    for m in (x, r, t, b, s, o):
        outs += list(paddle.linalg.lu(m, get_infos=True))
    return outs, {}


@op("lu__empty_batch")
def _lu_empty_batch(f):
    # Paddle 3.0.0's lu kernel rejects a zero-size dim ("The dims of Input(X) should be
    # greater than 0"); 3.3.1 answers empty results
    return list(paddle.linalg.lu(f("z", [0, 2, 2]), get_infos=True)), {}


@op("lu_unpack")
def _lu_unpack(f):
    x = f("x", [3, 3])
    r = f("r", [3, 4], "float64")
    t = f("t", [4, 2])
    b = f("b", [2, 3, 3], "float64")
    outs = []
    for m in (x, r, t, b):
        lu, piv = paddle.linalg.lu(m)
        outs += list(paddle.linalg.lu_unpack(lu, piv))
    lu, piv = paddle.linalg.lu(x)
    outs += [paddle.linalg.lu_unpack(lu, piv, unpack_ludata=False)[0],
             paddle.linalg.lu_unpack(lu, piv, unpack_pivots=False)[1]]
    return outs, {}


@op("lu_solve")
def _lu_solve(f):
    x = f("x", [3, 3], value=_wellcond("lu_solve", "x", 3))
    y = f("y", [3, 2])
    b = f("b", [2, 3, 3], value=_wellcond("lu_solve", "b", 3, (2,), "float64"))
    yb = f("yb", [2, 3, 1], "float64")
    lu, piv = paddle.linalg.lu(x)
    lub, pivb = paddle.linalg.lu(b)
    ls = paddle.linalg.lu_solve
    return [ls(y, lu, piv), ls(y, lu, piv, trans="T"), ls(yb, lub, pivb),
            ls(yb, lub, pivb, trans="T")], {}


@op("qr")
def _qr(f):
    x = f("x", [4, 3])
    w = f("w", [3, 5], "float64")
    b = f("b", [2, 3, 3])
    outs = []
    for m in (x, w, b):
        for mode in ("reduced", "complete"):
            q, r = paddle.linalg.qr(m, mode=mode)
            outs += [paddle.matmul(q, r), paddle.abs(q), paddle.abs(r)]
        outs.append(paddle.abs(paddle.linalg.qr(m, mode="r")))
    outs += list(paddle.linalg.qr(f("z", [0, 3, 2])))
    return outs, {}


@op("svd")
def _svd(f):
    x = f("x", [4, 3])
    w = f("w", [3, 5], "float64")
    b = f("b", [2, 3, 3])
    outs = []
    for m in (x, w, b):
        u, s, vh = paddle.linalg.svd(m)
        outs += [s, paddle.abs(u), paddle.abs(vh), paddle.matmul(u * s.unsqueeze(-2), vh)]
        # full_matrices: the columns of U and rows of Vh beyond min(m, n) span the
        # complement, unique only as a subspace: fetch the leading ones and U^T U, Vh Vh^T.
        u, s, vh = paddle.linalg.svd(m, full_matrices=True)
        k = min(m.shape[-2:])
        outs += [s, paddle.abs(u[..., :k]), paddle.abs(vh[..., :k, :]),
                 paddle.matmul(u, u, transpose_x=True), paddle.matmul(vh, vh, transpose_y=True)]
    u, s, vh = paddle.linalg.svd(f("z", [0, 2, 3]))
    outs += [s, u, vh]
    return outs, {}


@op("svdvals")
def _svdvals(f):
    x = f("x", [4, 3])
    w = f("w", [3, 5], "float64")
    b = f("b", [2, 3, 3])
    s = f("s", [3, 3], value=np.array([[1, 2, 3], [2, 4, 6], [0, 1, 1]], "float32"))
    o = f("o", [2, 2], value=np.zeros((2, 2), "float32"))
    return [_C.svdvals(x), _C.svdvals(w), _C.svdvals(b), _C.svdvals(s), _C.svdvals(o)], {}


@op("svdvals__empty_batch")
def _svdvals_empty_batch(f):
    # Paddle 3.0.0's svdvals kernel rejects a zero batch ("The batch size of Input(X) must
    # be > 0"); 3.3.1 answers an empty result
    return [_C.svdvals(f("z", [0, 2, 3]))], {}


def _order_free(w, v=None):
    """What LAPACK's geev determines whatever order it deflates in (the order differs
    between LAPACK builds): the power sums sum(w^k), k = 1..n, of the eigenvalues (they fix
    the eigenvalues as a set), and per row of the unit eigenvectors the sums over columns of
    |v|^2 and |v|^4 (free of both the column order and each column's phase)."""
    out, p = [], w
    for _ in range(w.shape[-1]):
        out.append(paddle.sum(p, axis=-1))
        p = p * w
    if v is not None:
        a2 = paddle.abs(v) * paddle.abs(v)
        out += [paddle.sum(a2, axis=-1), paddle.sum(a2 * a2, axis=-1)]
    return out


@op("eig")
def _eig(f):
    x = f("x", [3, 3])
    s = f("s", [3, 3], value=_sym("eig", "s", 3, (), "float64"))
    b = f("b", [2, 2, 2])
    c = f("c", [2, 4, 4], "float64")
    outs = []
    for m in (x, s, b, c):
        outs += _order_free(*paddle.linalg.eig(m))
    return outs, {}


@op("eigvals")
def _eigvals(f):
    x = f("x", [3, 3])
    s = f("s", [3, 3], value=_sym("eigvals", "s", 3, (), "float64"))
    b = f("b", [2, 4, 4])
    return [t for m in (x, s, b) for t in _order_free(paddle.linalg.eigvals(m))], {}


@op("eigh")
def _eigh(f):
    x = f("x", [3, 3], value=_sym("eigh", "x", 3))
    b = f("b", [2, 4, 4], value=_sym("eigh", "b", 4, (2,), "float64"))
    outs = []
    for m in (x, b):
        for uplo in ("L", "U"):
            w, v = paddle.linalg.eigh(m, UPLO=uplo)
            outs += [w, paddle.abs(v)]
    outs += list(paddle.linalg.eigh(f("z", [0, 2, 2])))
    return outs, {}


@op("eigvalsh")
def _eigvalsh(f):
    x = f("x", [3, 3], value=_sym("eigvalsh", "x", 3))
    a = f("a", [3, 3])              # not symmetric: only one triangle is read
    b = f("b", [2, 4, 4], value=_sym("eigvalsh", "b", 4, (2,), "float64"))
    return [paddle.linalg.eigvalsh(x), paddle.linalg.eigvalsh(x, UPLO="U"),
            paddle.linalg.eigvalsh(a), paddle.linalg.eigvalsh(a, UPLO="U"),
            paddle.linalg.eigvalsh(b)], {}


def _rank_inputs(f):
    x = f("x", [4, 3])
    s = f("s", [3, 3], value=np.array([[1, 2, 3], [2, 4, 6], [0, 1, 1]], "float32"))
    b = f("b", [2, 3, 3], "float64")
    h = f("h", [3, 3], value=np.array([[2, 1, 0], [1, 2, 0], [0, 0, 1e-6]], "float32"))
    return x, s, b, h


@op("matrix_rank")
def _matrix_rank(f):
    x, s, b, h = _rank_inputs(f)
    mr = paddle.linalg.matrix_rank
    o = f("o", [2, 2], value=np.zeros((2, 2), "float32"))
    return [mr(o), mr(x), mr(s), mr(b), mr(h), mr(h, hermitian=True), mr(h, tol=1e-3),
            mr(h, tol=1e-3, hermitian=True), mr(x, tol=1.0), mr(b, tol=0.5)], {}


@op("matrix_rank_tol")
def _matrix_rank_tol(f):
    x, s, b, h = _rank_inputs(f)
    t = f("t", [1], value=np.array([1.0], "float32"))
    tb = f("tb", [2], value=np.array([0.5, 5.0], "float64"))
    mr = paddle.linalg.matrix_rank
    return [mr(x, tol=t), mr(s, tol=t), mr(h, tol=t, hermitian=True), mr(b, tol=tb)], {}


@op("matrix_rank_atol_rtol")
def _matrix_rank_atol_rtol(f):
    # _C_ops directly: paddle.linalg.matrix_rank would broadcast atol/rtol to the batch
    # shape with a broadcast_tensors op first
    x, s, b, h = _rank_inputs(f)
    a0, a5, a1 = (f(k, [], value=np.array(v, "float32")) for k, v in
                  (("a0", 0.0), ("a5", 0.5), ("a1", 1e-3)))
    r0, r3 = f("r0", [], value=np.array(0.0, "float32")), f("r3", [], value=np.array(0.3, "float32"))
    ab, rb = f("ab", [2], value=np.array([0.2, 2.0])), f("rb", [2], value=np.array([0.1, 0.0]))
    mr = _C.matrix_rank_atol_rtol
    return [mr(x, a5, None, False), mr(x, a0, r3, False), mr(x, a1, a5, False),
            mr(s, a0, r0, False), mr(s, a0, None, False), mr(h, a1, None, True),
            mr(b, ab, rb, False), mr(b, ab, None, False)], {}


@op("lstsq")
def _lstsq(f):
    x, y = f("x", [5, 3]), f("y", [5, 2])
    xd, yd = f("xd", [2, 4, 3], "float64"), f("yd", [2, 4, 1], "float64")
    w, wy = f("w", [3, 5]), f("wy", [3, 2])
    outs = []
    for drv in ("gels", "gelsy", "gelsd", "gelss"):
        sol, res, rank, sv = paddle.linalg.lstsq(x, y, driver=drv)
        outs.append(sol)
        if drv == "gels":
            outs.append(res)        # (its rank is paddle.empty([0], int64), not the op's)
        if drv in ("gelsd", "gelss"):
            outs += [res, rank, sv]
        elif drv == "gelsy":
            outs.append(rank)
    sol, res, rank, sv = paddle.linalg.lstsq(xd, yd, driver="gelsd")
    outs += [sol, res, rank, sv]
    outs.append(paddle.linalg.lstsq(w, wy, driver="gelsd")[0])
    outs.append(paddle.linalg.lstsq(x, y, rcond=0.5, driver="gelss")[2])
    # rank-deficient: gelsd/gelss give the minimum-norm solution, rank 2
    s = f("s", [3, 3], value=np.array([[1, 2, 3], [2, 4, 6], [0, 1, 1]], "float32"))
    sy = f("sy", [3, 1])
    for drv in ("gelsd", "gelss"):
        sol, res, rank, sv = paddle.linalg.lstsq(s, sy, driver=drv)
        outs += [sol, rank, sv]
    # tall and rank-deficient (column 2 = column 0 + column 1): no residuals
    t = f("t", [5, 3], value=arr("lstsq", "t", [5, 3]) @ np.array([[1, 0, 1], [0, 1, 1], [0, 0, 0]], "float32"))
    sol, res, rank, sv = paddle.linalg.lstsq(t, y, driver="gelsd")
    outs += [sol, res, rank]
    return outs, {}


# --- spectral ------------------------------------------------------------------------------

@op("fft_c2c")
def _fft_c2c(f):
    x = f("x", [3, 8], "complex64", value=(arr("fft_c2c", "xr", [3, 8])
                                             + 1j * arr("fft_c2c", "xi", [3, 8])).astype("complex64"))
    d = f("d", [2, 4, 6], "complex128", value=(arr("fft_c2c", "dr", [2, 4, 6], "float64")
                                                 + 1j * arr("fft_c2c", "di", [2, 4, 6], "float64")))
    o = [paddle.fft.fft(x), paddle.fft.ifft(x), paddle.fft.fft(x, norm="ortho"),
         paddle.fft.fft(x, norm="forward"), paddle.fft.ifft(x, norm="forward"),
         paddle.fft.ifft(x, norm="ortho"), paddle.fft.fft(x, axis=0), paddle.fft.fft(x, n=5),
         paddle.fft.fft2(x), paddle.fft.ifftn(d, axes=[0, 2]),
         paddle.fft.fftn(d, norm="ortho"), paddle.fft.fft(d, axis=1, norm="forward"),
         paddle.fft.fft(f("z", [0, 4], "complex64", value=np.zeros((0, 4), "complex64")))]
    return o, {}


@op("fft_r2c")
def _fft_r2c(f):
    x = f("x", [3, 8])
    d = f("d", [2, 4, 6], "float64")
    o = f("o", [7])
    xd = f("xd", [3, 8], dyn=[-1, 8])
    return [paddle.fft.rfft(xd), paddle.fft.rfft(x), paddle.fft.rfft(x, norm="ortho"), paddle.fft.rfft(x, norm="forward"),
            paddle.fft.rfft(o), paddle.fft.rfft(x, n=5), paddle.fft.rfft(x, axis=0),
            paddle.fft.fft(x), paddle.fft.ihfft(x), paddle.fft.ihfft(x, norm="ortho"),
            paddle.fft.rfftn(d), paddle.fft.rfft2(d, norm="forward"), paddle.fft.fftn(d, axes=[0, 1]),
            paddle.fft.ihfftn(d, axes=[1, 2])], {}


@op("fft_c2r")
def _fft_c2r(f):
    x = f("x", [3, 5], "complex64", value=(arr("fft_c2r", "xr", [3, 5])
                                             + 1j * arr("fft_c2r", "xi", [3, 5])).astype("complex64"))
    d = f("d", [2, 4, 4], "complex128", value=(arr("fft_c2r", "dr", [2, 4, 4], "float64")
                                                 + 1j * arr("fft_c2r", "di", [2, 4, 4], "float64")))
    return [paddle.fft.irfft(x), paddle.fft.irfft(x, n=9), paddle.fft.irfft(x, norm="ortho"),
            paddle.fft.irfft(x, norm="forward"), paddle.fft.irfft(x, axis=0),
            paddle.fft.hfft(x), paddle.fft.hfft(x, n=7, norm="ortho"),
            paddle.fft.irfftn(d), paddle.fft.irfft2(d, s=[3, 5], norm="ortho"),
            paddle.fft.hfftn(d, axes=[0, 2])], {}


@op("frame")
def _frame(f):
    x = f("x", [2, 10])
    d = f("d", [9, 2], "float64")
    i = f("i", [12], "int32", -50, 50)
    xd = f("xd", [2, 10], dyn=[-1, 10])
    fr = paddle.signal.frame
    return [fr(xd, 4, 2), fr(x, 4, 2), fr(x, 3, 3), fr(x, 10, 1), fr(d, 4, 5, axis=0), fr(i, 5, 2)], {}


@op("overlap_add")
def _overlap_add(f):
    x = f("x", [2, 4, 3])
    d = f("d", [3, 5, 2], "float64")
    i = f("i", [3, 4], "int64", -50, 50)
    oa = paddle.signal.overlap_add
    return [oa(x, 2), oa(x, 4), oa(x, 1), oa(d, 2, axis=0), oa(i, 3)], {}


@op("stft")
def _stft(f):
    x = f("x", [2, 32])
    w = f("w", [8], value=np.hanning(8).astype("float32"))
    xd = f("xd", [1, 24], "float64")
    wd = f("wd", [6], "float64", value=np.hamming(6))
    wr = f("wr", [4], value=np.ones(4, "float32"))
    return [_C.stft(x, w, 8, 4, False, True), _C.stft(x, w, 8, 3, True, True),
            _C.stft(xd, wd, 6, 2, False, True), _C.stft(x, wr, 4, 5, True, True)], {}


@op("stft__twosided", expect="Paddle's CPU stft kernel cannot run onesided=False on a real "
                             "input (its FFT reads the real frames as complex)")
def _stft_twosided(f):
    x = f("x", [2, 32])
    w = f("w", [8], value=np.hanning(8).astype("float32"))
    return [_C.stft(x, w, 8, 4, False, False)], {}


@op("spectral_norm")
def _spectral_norm(f):
    w = f("w", [3, 4])
    u, v = f("u", [3]), f("v", [4])
    w4 = f("w4", [2, 3, 2, 2])
    u1, v1 = f("u1", [3]), f("v1", [8])
    wd = f("wd", [4, 2], "float64")
    ud, vd = f("ud", [4], "float64"), f("vd", [2], "float64")
    sn = _C.spectral_norm
    return [sn(w, u, v, 0, 1, 1e-12), sn(w, u, v, 0, 0, 1e-12), sn(w, u, v, 0, 5, 1e-6),
            sn(w4, u1, v1, 1, 2, 1e-12), sn(wd, ud, vd, 0, 3, 1e-12)], {}
