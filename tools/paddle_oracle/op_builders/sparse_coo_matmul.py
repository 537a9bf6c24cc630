"""Builders of the sparse matmul family (matmul_coo_coo_sp, matmul_coo_dense_sp,
addmm_coo_coo_sp, addmm_coo_dense_sp, mv_coo_sp, masked_matmul_sp, fused_attention_sp).

None of them can be built or run by Paddle's CPU wheel (3.0.0 and 3.3.1), for three reasons,
each recorded by the generator as the builder's exception:
- matmul_coo_coo, matmul_coo_dense, addmm_coo_coo: no CPU kernel is registered at all
  (paddle/phi/kernels/sparse/cpu/matmul_kernel.cc registers only matmul_csr_dense and
  masked_matmul_csr, addmm_kernel.cc only addmm_coo_dense and addmm_csr_dense; the COO kernels
  live in sparse/gpu/*.cu), so the PIR builder's list of accepted dtypes is empty and it
  refuses every input ("Check data type error ... expected_dtype: ").
- addmm_coo_dense, mv_coo: a CPU kernel is registered, but it is a stub that throws
  (addmm_kernel.cc AddmmCooDenseKernel, mv_kernel.cc MvCooKernel: "Not support CPU kernel of
  'sparse.addmm' / 'sparse.mv' now."), so the program builds and the executor fails.
- masked_matmul (mask) and fused_attention (sparse_mask) take a CSR tensor, which a static
  program gets only from dense_to_csr_sp / coo_to_csr_sp, whose PIR InferMeta segfaults
  (SIGSEGV in DenseToCsrSpOp::InferMeta, as in sparse_csr.py); past that, their CPU kernels
  are stubs too (matmul_kernel.cc MaskedMatmulCsrKernel throws Unimplemented,
  fused_attention_kernel.cc's FusedAttentionCsrKernel throws and is not even registered).
Both wheels' kernel registry agrees (paddle.base.core._get_registered_phi_kernels("all")):
addmm_coo_dense, mv_coo and masked_matmul_csr have CPU float32 / float64 entries (the stubs);
matmul_coo_coo, matmul_coo_dense, addmm_coo_coo and fused_attention_csr have none.
The builders are still ordinary programs (the inputs a GPU fixture would use), so a wheel
that gains these kernels makes them run.
"""
import numpy as np
import paddle

from . import op

C = paddle._C_ops

# one reason per group of ops (not per op), so that the coverage summary counts them together
_NO_KERNEL = ("a sparse COO matmul with no CPU kernel registered (matmul_coo_coo, "
              "matmul_coo_dense, addmm_coo_coo: paddle/phi/kernels/sparse/cpu/matmul_kernel.cc "
              "and addmm_kernel.cc register only other forms; these are GPU-only), so Paddle's "
              "PIR builder has an empty list of accepted dtypes and refuses every input (Check "
              "data type error, expected_dtype empty) in 3.0.0 and 3.3.1")
_STUB = ("a sparse COO matmul whose CPU kernel is a stub (addmm_coo_dense, mv_coo: "
         "paddle/phi/kernels/sparse/cpu/addmm_kernel.cc / mv_kernel.cc raise Unimplemented "
         "\"Not support CPU kernel of 'sparse.addmm' / 'sparse.mv' now.\"); the program builds "
         "and the executor raises, in 3.0.0 and 3.3.1")
_CSR = ("a sparse matmul with a CSR mask (masked_matmul, fused_attention), which a static program "
        "gets only from dense_to_csr_sp / coo_to_csr_sp, whose PIR InferMeta segfaults (SIGSEGV "
        "in DenseToCsrSpOp::InferMeta) in 3.0.0 and 3.3.1; their CPU kernels are stubs besides "
        "(matmul_kernel.cc MaskedMatmulCsrKernel raises Unimplemented, fused_attention_kernel.cc's "
        "FusedAttentionCsrKernel throws and has no CPU registration)")

# a [3, 4] matrix with an explicit -0, a [4, 2] one, stored COO as Paddle's dense_to_coo makes
_X = np.array([[0, 1.5, 0, -2], [3, 0, 0, 0.5], [0, -0.0, 4, 1]], "float32")
_Y = np.array([[1, 0], [0, 2], [0.25, -4], [-1, 0.5]], "float32")
_IN = np.array([[1, -1], [0, 2], [0.5, 0]], "float32")


def _coo(v):
    return C.sparse_to_sparse_coo(v, 2)


def _parts(out):
    return [C.sparse_to_dense(out), C.sparse_values(out), C.sparse_indices(out)]


@op("matmul_coo_coo_sp", expect=_NO_KERNEL)
def _matmul_coo_coo(f):
    x, y = f("x", [3, 4], value=_X), f("y", [4, 2], value=_Y)
    return _parts(C.sparse_matmul(_coo(x), _coo(y))), {}


@op("matmul_coo_dense_sp", expect=_NO_KERNEL)
def _matmul_coo_dense(f):
    x, y = f("x", [3, 4], value=_X), f("y", [4, 2], value=_Y)
    return [C.sparse_matmul(_coo(x), y)], {}


@op("addmm_coo_coo_sp", expect=_NO_KERNEL)
def _addmm_coo_coo(f):
    i, x, y = f("input", [3, 2], value=_IN), f("x", [3, 4], value=_X), f("y", [4, 2], value=_Y)
    return _parts(C.sparse_addmm(_coo(i), _coo(x), _coo(y), 0.5, 2.0)), {}


@op("addmm_coo_dense_sp", expect=_STUB)
def _addmm_coo_dense(f):
    i, x, y = f("input", [3, 2], value=_IN), f("x", [3, 4], value=_X), f("y", [4, 2], value=_Y)
    return [C.sparse_addmm(i, _coo(x), y, 0.5, 2.0)], {}


@op("mv_coo_sp", expect=_STUB)
def _mv_coo(f):
    x, v = f("x", [3, 4], value=_X), f("vec", [4], value=np.array([1, -2, 0.5, 3], "float32"))
    return [C.sparse_mv(_coo(x), v)], {}


@op("masked_matmul_sp", expect=_CSR)
def _masked_matmul(f):
    x, y = f("x", [3, 4], value=_X), f("y", [4, 2], value=_Y)
    mask = f("mask", [3, 2], value=np.array([[1, 0], [0, 1], [1, 1]], "float32"))
    out = C.sparse_masked_matmul(x, y, C.sparse_to_sparse_csr(mask))
    return [C.sparse_to_dense(out), C.sparse_values(out)], {}


@op("fused_attention_sp", expect=_CSR)
def _fused_attention(f):
    q, k, v = (f(n, [1, 2, 3, 4]) for n in ("query", "key", "value"))
    mask = f("sparse_mask", [2, 3, 3], value=np.tril(np.ones((2, 3, 3), "float32")))
    out, softmax = C.sparse_fused_attention(q, k, v, C.sparse_to_sparse_csr(mask), None, None)
    return [out, C.sparse_to_dense(softmax)], {}
