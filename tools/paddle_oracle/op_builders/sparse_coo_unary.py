"""Builders of the sparse COO unary ops (`*_coo_sp`): a dense boundary feed made COO
(dense_to_coo_sp stores every non-zero, NaN included, and drops +-0), the op, then both the
dense form and the stored values fetched, so the entries' order and count are compared too."""
import paddle

from . import boundary, op

C = paddle._C_ops


# Paddle's PIR builder of acos_coo / acosh_coo has an empty list of accepted dtypes
# (paddle/fluid/pir/dialect/operator/utils/utils.cc: "expected_dtype: " and nothing), so it
# refuses every input in both releases.
_NO_DTYPE = ("Paddle's PIR builder refuses every input dtype (Check data type error for op: "
             "acos_coo / acosh_coo, expected_dtype empty) in 3.0.0 and 3.3.1")


def _coo_unary(name, fn, expect=None):
    @op(name, **({"expect": expect} if expect else {}))
    def _build(f):
        x = f("x", [21], value=boundary())
        y = fn(C.sparse_to_sparse_coo(x, 1))
        return [C.sparse_to_dense(y), C.sparse_values(y)], {}
    return _build


for _name, _fn in (
        ("sin", C.sparse_sin), ("tan", C.sparse_tan), ("asin", C.sparse_asin),
        ("atan", C.sparse_atan), ("sinh", C.sparse_sinh), ("tanh", C.sparse_tanh),
        ("asinh", C.sparse_asinh), ("atanh", C.sparse_atanh), ("sqrt", C.sparse_sqrt),
        ("square", C.sparse_square), ("log1p", C.sparse_log1p), ("relu", C.sparse_relu),
        ("expm1", C.sparse_expm1), ("relu6", C.sparse_relu6),
        ("leaky_relu", lambda x: C.sparse_leaky_relu(x, -0.1))):
    _coo_unary(f"{_name}_coo_sp", _fn)
_coo_unary("acos_coo_sp", C.sparse_acos, _NO_DTYPE)
_coo_unary("acosh_coo_sp", C.sparse_acosh, _NO_DTYPE)
for _name, _fn in (("scale", lambda x: C.sparse_scale(x, 2.5, -0.5, True)),
                   ("divide_scalar", lambda x: C.sparse_divide_scalar(x, 3.0)),
                   ("isnan", C.sparse_isnan)):
    _coo_unary(f"{_name}_coo_sp", _fn)
