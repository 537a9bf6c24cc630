"""Matrix products and norms: matmul, addmm, baddbmm, einsum, p_norm."""

from __future__ import annotations

import math

import numpy as np
import torch

from ...runtime.registry import REGISTRY
from ..specialize import specializer
from .accumulate import sequential_extreme, sequential_sum
from .elementwise import float_pow


@REGISTRY.register("pd_op.matmul", since=1)
def matmul(x, y, *, transpose_x=False, transpose_y=False):
    # A 1-D operand is a vector whatever its transpose flag says (Paddle ignores it).
    if transpose_x and x.dim() >= 2:
        x = x.transpose(-1, -2)
    if transpose_y and y.dim() >= 2:
        y = y.transpose(-1, -2)
    return torch.matmul(x, y)


@REGISTRY.register("pd_op.addmm", since=1)
def addmm(input, x, y, *, beta=1.0, alpha=1.0):  # noqa: A002 - Paddle's operand name
    return torch.addmm(input, x, y, beta=beta, alpha=alpha)


@REGISTRY.register("pd_op.baddbmm", since=1)
def baddbmm(input, x, y, *, beta=1.0, alpha=1.0):  # noqa: A002
    return torch.baddbmm(input, x, y, beta=beta, alpha=alpha)


@REGISTRY.register("pd_op.einsum", since=1)
def einsum(x, *, equation=""):
    # inner_cache and xshape only serve Paddle's backward pass.
    return torch.einsum(equation, *x), None, None


@REGISTRY.register("pd_op.p_norm", since=1)
def p_norm(x, *, porder=2.0, axis=-1, epsilon=1e-12, keepdim=False, asvector=False):
    # epsilon only guards the gradient; the forward value ignores it.
    if asvector:
        x = x.reshape(-1)
        axis = 0
    a = torch.abs(x)
    if porder == 0:
        return torch.sum((x != 0).to(x.dtype), axis, keepdim=keepdim)
    if porder in (math.inf, -math.inf):  # Eigen's vectorised max/min: NaN is not sticky
        return sequential_extreme(a, axis if axis >= 0 else axis + a.dim(), keepdim,
                                  porder > 0)
    # phi PNormKernel: x.abs().pow(p).sum(axis).pow(1.0f / p), summed element by element
    total = sequential_sum(float_pow(a, porder), axis if axis >= 0 else axis + a.dim(), keepdim)
    return float_pow(total, float(np.float32(1.0 / porder)))


@specializer(matmul)
def _matmul_call(site):
    x, y = site.p["x"], site.p["y"]
    rx, ry = site.rank(x), site.rank(y)
    if rx is None or ry is None:
        return None
    if site.p["transpose_x"] and rx >= 2:
        x = site.method("transpose", x, -1, -2)
    if site.p["transpose_y"] and ry >= 2:
        y = site.method("transpose", y, -1, -2)
    return site.call(torch.matmul, x, y)
