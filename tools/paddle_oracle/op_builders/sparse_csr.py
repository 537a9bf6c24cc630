"""Builders of the sparse CSR ops (`*_csr_sp`, dense_to_csr_sp, csr_to_coo_sp, csr_to_dense_sp,
values_csr_sp): a static program gets a CSR value only from dense_to_csr_sp (or coo_to_csr_sp),
and Paddle's PIR builder of both segfaults in its InferMeta (DenseToCsrSpOp::InferMeta reads
pir::DenseTensorType::offset() of the input, SIGSEGV), so no CSR op can be built; the
generator runs each builder in a child process and records the signal."""
import paddle

from . import op

C = paddle._C_ops

_CRASH = ("a CSR op: its CSR input comes only from dense_to_csr_sp / coo_to_csr_sp, whose PIR "
          "InferMeta segfaults in static mode (SIGSEGV in DenseToCsrSpOp::InferMeta, "
          "pir::DenseTensorType::offset) in 3.0.0 and 3.3.1")


def _csr(name, fn, from_coo=False):
    @op(name, expect=_CRASH)
    def _build(f):
        x = f("x", [4, 5])
        s = C.sparse_to_sparse_coo(x, 2) if from_coo else x
        return [C.sparse_to_dense(fn(C.sparse_to_sparse_csr(s)))], {}
    return _build


for _op in ("abs", "sin", "tan", "asin", "atan", "sinh", "tanh", "asinh", "atanh", "sqrt",
            "square", "log1p", "relu", "expm1", "relu6", "acos", "acosh"):
    _csr(f"{_op}_csr_sp", getattr(C, f"sparse_{_op}"))
_csr("dense_to_csr_sp", lambda s: s)
_csr("csr_to_dense_sp", lambda s: s)
_csr("coo_to_csr_sp", lambda s: s, from_coo=True)
_csr("csr_to_coo_sp", lambda s: C.sparse_to_sparse_coo(s, 2))
_csr("leaky_relu_csr_sp", lambda s: C.sparse_leaky_relu(s, 0.1))
_csr("pow_csr_sp", lambda s: C.sparse_pow(s, 2.0))
_csr("scale_csr_sp", lambda s: C.sparse_scale(s, 2.0, 0.5, True))
_csr("cast_csr_sp", lambda s: C.sparse_cast(s, paddle.int64, paddle.float64))
_csr("add_csr_csr_sp", lambda s: C.sparse_add(s, s))
_csr("subtract_csr_csr_sp", lambda s: C.sparse_subtract(s, s))
_csr("multiply_csr_csr_sp", lambda s: C.sparse_multiply(s, s))
_csr("divide_csr_csr_sp", lambda s: C.sparse_divide(s, s))
_csr("values_csr_sp", lambda s: C.sparse_values(s))
_csr("divide_scalar_csr_sp", lambda s: C.sparse_divide_scalar(s, 2.0))
_csr("isnan_csr_sp", lambda s: C.sparse_isnan(s))
_csr("full_like_csr_sp", lambda s: C.sparse_full_like(s, 1.5, paddle.float32))
_csr("reshape_csr_sp", lambda s: C.sparse_reshape(s, [5, 4]))
_csr("transpose_csr_sp", lambda s: C.sparse_transpose(s, [1, 0]))
_csr("slice_csr_sp", lambda s: C.sparse_slice(s, [0, 1], [1, 0], [3, 4]))
_csr("softmax_csr_sp", lambda s: C.sparse_softmax(s, -1))
_csr("sum_csr_sp", lambda s: C.sparse_sum(s, [1], paddle.float32, False))
_csr("mask_as_csr_sp", lambda s: C.sparse_mask_as(paddle.ones([4, 5]), s))
_csr("matmul_csr_dense_sp", lambda s: C.sparse_matmul(s, paddle.ones([5, 3])))
_csr("matmul_csr_csr_sp", lambda s: C.sparse_matmul(s, C.sparse_transpose(s, [1, 0])))
_csr("addmm_csr_dense_sp", lambda s: C.sparse_addmm(paddle.ones([4, 3]), s, paddle.ones([5, 3]), 1.0, 1.0))
_csr("addmm_csr_csr_sp", lambda s: C.sparse_addmm(s, s, C.sparse_transpose(s, [1, 0]), 1.0, 1.0))
_csr("mv_csr_sp", lambda s: C.sparse_mv(s, paddle.ones([5])))
