"""Sparse COO unary ops (`*_coo_sp`): the dense op on the stored values, indices unchanged.

Paddle's sparse unary kernels (paddle/phi/kernels/sparse/impl/unary_kernel_impl.h) copy the
indices and run the dense phi kernel on the values tensor, so each one here calls pirc's dense
kernel of the same op (looked up when called: kernel modules register in any order).  The
stored entries stay as they are, explicit zeros included (relu of a stored -1 is a stored 0).
"""

from __future__ import annotations

import torch

from ...runtime.registry import REGISTRY
from .sparse_coo import SparseCoo, dense_kernel, _coo_of


def _on_values(sparse_name: str, dense_name: str, attrs: dict):
    """Register `sparse_name` as `dense_name` on the values, with the sparse op's attributes
    renamed to the dense kernel's (`attrs`: sparse name -> dense name)."""
    @REGISTRY.register(sparse_name, since=1)
    def kernel(x, **kw):
        x = _coo_of(x, sparse_name)
        dense_kw = {attrs[k]: v for k, v in kw.items()}
        return SparseCoo(x.indices, dense_kernel(dense_name)(x.values, **dense_kw), x.shape)
    kernel.__name__ = sparse_name.removeprefix("pd_op.")
    return kernel


for _op in ("sin", "tan", "asin", "atan", "sinh", "tanh", "asinh", "atanh", "sqrt", "square",
            "log1p", "relu", "expm1", "relu6"):
    _on_values(f"pd_op.{_op}_coo_sp", f"pd_op.{_op}", {})
_on_values("pd_op.leaky_relu_coo_sp", "pd_op.leaky_relu", {"alpha": "negative_slope"})
_on_values("pd_op.scale_coo_sp", "pd_op.scale",
           {"scale": "scale", "bias": "bias", "bias_after_scale": "bias_after_scale"})
_on_values("pd_op.isnan_coo_sp", "pd_op.isnan", {})


@REGISTRY.register("pd_op.divide_scalar_coo_sp", since=1)
def divide_scalar_coo_sp(x, *, scalar):
    # DivScalarCooKernel: values / static_cast<T>(scalar), in the values' dtype (not the
    # dense divide's broadcasting kernel, which takes a tensor)
    x = _coo_of(x, "pd_op.divide_scalar_coo_sp")
    return SparseCoo(x.indices, x.values / torch.tensor(scalar, dtype=x.values.dtype), x.shape)
