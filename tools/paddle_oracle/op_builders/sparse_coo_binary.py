"""Builders of the sparse COO elementwise ops on two COO tensors of one shape with different
stored positions (so Paddle's merge walk runs, not its equal-indices shortcut for add): the
dense result and the stored values are fetched, so the merged entries' order and count (a
zero result stays stored) are compared too."""
import numpy as np
import paddle

from . import op

C = paddle._C_ops


def _coo_binary(name, fn):
    @op(name)
    def _build(f):
        xa = np.array([[0, 1.5, 0, -2], [3, 0, 0, 0.5], [0, -0.0, 4, 1]], "float32")
        ya = np.array([[1, 0, 0, -2], [0, 2, 0, 0], [0, 0.25, -4, 1]], "float32")
        x, y = f("x", [3, 4], value=xa), f("y", [3, 4], value=ya)
        out = fn(C.sparse_to_sparse_coo(x, 2), C.sparse_to_sparse_coo(y, 2))
        return [C.sparse_to_dense(out), C.sparse_values(out), C.sparse_indices(out)], {}
    return _build


for _name, _fn in (("add_coo_coo_sp", C.sparse_add), ("subtract_coo_coo_sp", C.sparse_subtract),
                   ("multiply_coo_coo_sp", C.sparse_multiply)):
    _coo_binary(_name, _fn)
