"""Builders of the SelectedRows (`_sr`) forms of dense ops: scale, sqrt, square (and their
in-place forms), isnan / isinf / isfinite, shape / shape64, clip_by_norm, multiply,
share_data, the ftrl and lamb updates, lookup_table and uniform_random_batch_size_like.

A static program gets a SelectedRows value only from a data op retyped to selected_rows
(as gen_fixtures' `selected_rows` model does): the PIR builders then emit the op's `_sr`
form. Paddle's executor cannot run such a program (it crashes lowering it to kernels), so each
builder records what Paddle does with it."""
import numpy as np
import paddle
from paddle.base import libpaddle

from . import op

P = paddle._pir_ops
C = paddle._C_ops

_FEED = ("a SelectedRows op: a program gets a SelectedRows input only from a data op "
         "retyped to selected_rows, and Paddle's executor crashes lowering that program to "
         "kernels (SIGSEGV in GetKernelKey, DenseTensorType::dtype)")


def _sr(f, name, shape, dtype="float32"):
    x = f(name, shape, dtype)
    x.set_type(libpaddle.pir.create_selected_rows_type_by_dense_tensor(x.type()))
    return x


def _dense(v):
    # the fetchable form of a SelectedRows result (a dense result is fetched as it is; a bool
    # one too, since get_tensor_from_selected_rows has no bool kernel)
    if v.is_selected_row_type() and v.dtype != paddle.bool:
        return P.get_tensor_from_selected_rows(v)
    return v


_BOOL = ("a SelectedRows op with a bool SelectedRows result, which nothing fetches: "
         "get_tensor_from_selected_rows has no bool kernel and the fetch op refuses the type "
         "(nor can Paddle's executor feed the retyped data op the input needs)")


def _unary(name, fn, expect=_FEED):
    @op(name, expect=expect)
    def _build(f):
        return [_dense(fn(_sr(f, "x", [6, 3])))], {}
    return _build


for _name, _fn in (("scale_sr", lambda x: P.scale(x, 2.0, 0.5, True)),
                   ("scale_sr_", lambda x: P.scale_(x, 2.0, 0.5, True)),
                   ("sqrt_sr", P.sqrt), ("sqrt_sr_", P.sqrt_),
                   ("square_sr", P.square), ("square_sr_", P.square_),
                   ("shape_sr", P.shape), ("shape64_sr", P.shape64),
                   ("clip_by_norm_sr", lambda x: P.clip_by_norm(x, 1.0)),
                   ("share_data_sr", P.share_data),
                   ("uniform_random_batch_size_like_sr",
                    lambda x: P.uniform_random_batch_size_like(x, [1, 4], 0, 0, -1.0, 1.0, 0,
                                                               0, 0, 1.0, paddle.float32))):
    _unary(_name, _fn)
for _name, _fn in (("isnan_sr", P.isnan), ("isinf_sr", P.isinf), ("isfinite_sr", P.isfinite)):
    _unary(_name, _fn, _BOOL)


@op("multiply_sr", expect=_FEED)
def _multiply_sr(f):
    return [_dense(P.multiply(_sr(f, "x", [6, 3]), f("y", [6, 3])))], {}


@op("multiply_sr_", expect=_FEED)
def _multiply_sr_(f):
    return [_dense(P.multiply_(_sr(f, "x", [6, 3]), f("y", [6, 3])))], {}


@op("lamb_sr_", expect=_FEED)
def _lamb_sr_(f):
    p, g = f("p", [6, 3]), _sr(f, "g", [6, 3])
    lr = f("lr", [1], value=np.array([0.1], "float32"))
    m1, m2 = f("m1", [6, 3]), f("m2", [6, 3], value=np.full([6, 3], 0.5, "float32"))
    b1p = f("b1p", [1], value=np.array([0.9], "float32"))
    b2p = f("b2p", [1], value=np.array([0.999], "float32"))
    o = P.lamb_(p, g, lr, m1, m2, b1p, b2p, None, None, 0.01, 0.9, 0.999, 1e-6, False, False)
    return [o[0], o[1], o[2]], {}


@op("ftrl_sr", expect="no Python entry builds it: paddle._C_ops.ftrl is eager-only (it "
                      "refuses a static-graph value), and the old-IR translator makes a "
                      "SelectedRows feed a dense pd_op.data, so its ftrl is pd_op.ftrl")
def _ftrl_sr(f):
    p, g = f("p", [6, 3]), _sr(f, "g", [6, 3])
    sq = f("sq", [6, 3], value=np.full([6, 3], 0.5, "float32"))
    lin, lr = f("lin", [6, 3]), f("lr", [1], value=np.array([0.1], "float32"))
    return list(C.ftrl(p, sq, lin, g, lr, 0.0, 0.0, -0.5))[:1], {}


@op("lookup_table_sr", expect="no Python entry builds it: paddle._C_ops has no lookup_table, "
                              "and the old-IR translator turns the fluid op into "
                              "pd_op.embedding")
def _lookup_table_sr(f):
    w = _sr(f, "w", [6, 3])
    ids = f("ids", [4, 1], "int64", value=np.array([[0], [5], [2], [5]], "int64"))
    return [C.lookup_table(w, ids, False, False, -1)], {}


@op("sparse_weight_embedding", expect=_FEED)
def _sparse_weight_embedding(f):
    # embedding of a SelectedRows weight: the PIR builder emits the op's sparse-weight form
    w = _sr(f, "w", [6, 3])
    ids = f("ids", [4], "int64", value=np.array([0, 5, 2, 5], "int64"))
    return [P.embedding(ids, w, -1, False)], {}
