"""Matrix products and norms: matmul, addmm, baddbmm, einsum, p_norm, bmm, dot, mv, cross,
kron, bilinear, matmul_with_flatten, fc, linear_v2, multi_dot, matrix_power, spectral_norm.

Decompositions and solvers are in decompositions.py, FFTs and framing in spectral.py.
GEMMs agree with Paddle's BLAS to rounding, not bit for bit (another summation order)."""

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


@REGISTRY.register("pd_op.bmm", since=1)
def bmm(x, y):
    return torch.bmm(x, y)


@REGISTRY.register("pd_op.dot", since=1)
def dot(x, y):
    # phi DotKernel: the products of each row (a 1-D x is one row) summed one after another,
    # in x's type (an int32 dot stays int32).
    if not x.is_floating_point():
        return torch.sum(x * y, -1, dtype=x.dtype)
    return sequential_sum(x * y, x.dim() - 1)


@REGISTRY.register("pd_op.mv", since=1)
def mv(x, vec):
    return torch.mv(x, vec)


@REGISTRY.register("pd_op.cross", since=1)
def cross(x, y, *, axis=9):
    # axis 9 (Paddle's "unset") is the first dim of size 3.
    if axis == 9:
        axis = next(i for i, d in enumerate(x.shape) if d == 3)
    return torch.linalg.cross(x, y, dim=axis)


@REGISTRY.register("pd_op.kron", since=1)
def kron(x, y):
    return torch.kron(x, y)


@REGISTRY.register("pd_op.bilinear", since=1)
def bilinear(x, y, weight, bias=None):
    """out[b, k] = x[b] @ weight[k] @ y[b] (+ bias[0, k])."""
    out = torch.einsum("bi,kij,bj->bk", x, weight, y)
    return out if bias is None else out + bias


def _flat2(x, num_col_dims: int):
    """x as a matrix: its first num_col_dims dims are the rows, the others the columns."""
    return x.reshape(math.prod(x.shape[:num_col_dims]), math.prod(x.shape[num_col_dims:]))


@REGISTRY.register("pd_op.matmul_with_flatten", since=1)
def matmul_with_flatten(x, y, *, x_num_col_dims=1, y_num_col_dims=1):
    out = torch.matmul(_flat2(x, x_num_col_dims), _flat2(y, y_num_col_dims))
    return out.reshape(tuple(x.shape[:x_num_col_dims]) + tuple(y.shape[y_num_col_dims:]))


@REGISTRY.register("pd_op.fc", since=1)
def fc(input, w, bias=None, *, in_num_col_dims=1, activation_type="", padding_weights=False):  # noqa: A002
    """input's first in_num_col_dims dims are rows, @ w (+ bias), then relu if asked.
    padding_weights: w carries 4 padding rows and columns (phi FCFunctor) that are cut off."""
    if padding_weights:
        w = w[:-4, :-4]
    out = torch.matmul(_flat2(input, in_num_col_dims), w)
    if bias is not None:
        out = out + bias.reshape(-1)
    if activation_type == "relu":
        out = torch.relu(out)
    elif activation_type:
        raise NotImplementedError(f"pd_op.fc: activation_type {activation_type!r}")
    return out.reshape(tuple(input.shape[:in_num_col_dims]) + (w.shape[1],))


@specializer(fc)
def _fc_call(site):
    """The fc a fusion pass makes from matmul + add (+ relu): when the input's last dim is its
    only column dim, torch.matmul on the (contiguous) input (it folds the leading dims into
    the rows: the same mm as `_flat2`, the result already in the kernel's output shape), then the
    bias and relu in place on that fresh product; no flatten / reshape round trip and no
    Python between the calls.  Paddle's CPU fc adds the bias after the GEMM (fc_functor.cc),
    and so does this: not addmm, whose bias enters MKL's accumulation and changes last bits."""
    x, w, bias = site.p["input"], site.p["w"], site.p["bias"]
    rank, wshape = site.rank(x), site.static_shape(w)
    act, dtype = site.p["activation_type"], site.dtype(x)
    if (rank is None or rank < 2 or site.p["in_num_col_dims"] != rank - 1
            or site.p["padding_weights"] or act not in ("", "relu") or wshape is None
            or len(wshape) != 2 or dtype not in (torch.float32, torch.float64)
            or site.dtype(w) != dtype):
        return None
    # torch.matmul folds an N-D input into rows only when its leading dims are packed, else
    # it broadcasts a bmm (other bits); contiguous() (the input itself when it already is)
    # makes it fold, as the kernel's reshape does
    out = site.call(torch.matmul, site.method("contiguous", x) if rank > 2 else x, w)
    if bias is not None:
        if site.dtype(bias) != dtype or site.static_shape(bias) not in ((wshape[1],),
                                                                       (1, wshape[1])):
            return None
        out = site.method("add_", out, bias)
    if act == "relu":
        out = site.method("relu_", out)
    return out


@REGISTRY.register("pd_op.linear_v2", since=4)
def linear_v2(input, weight, bias, *, transpose_weight=False):  # noqa: A002
    return torch.matmul(input, weight.mT if transpose_weight else weight) + bias


@REGISTRY.register("pd_op.multi_dot", since=1)
def multi_dot(x):
    # A 1-D first (last) operand is a row (column) vector; torch picks the same cheapest
    # bracketing as phi's MultiDotKernel.
    return torch.linalg.multi_dot(list(x))


@REGISTRY.register("pd_op.matrix_power", since=1)
def matrix_power(x, *, n=1):
    return torch.linalg.matrix_power(x, n)


@REGISTRY.register("pd_op.spectral_norm", since=1)
def spectral_norm(weight, u, v, *, dim=0, power_iters=1, eps=1e-12):
    """weight / sigma, sigma from power_iters steps of phi's CalcMatrixSigmaAndNormWeight:
    v = W^T u / (|W^T u| + eps), u = W v / (|W v| + eps), sigma = u . (W v); W is weight
    with `dim` moved first and the rest flattened."""
    w = weight.movedim(dim, 0) if dim != 0 else weight
    mat = w.reshape(w.shape[0], -1)
    u, v = u.reshape(-1, 1), v.reshape(-1, 1)
    for _ in range(power_iters):
        v = torch.matmul(mat.mT, u)
        v = v / (v.square().sum().sqrt() + eps)
        u = torch.matmul(mat, v)
        u = u / (u.square().sum().sqrt() + eps)
    sigma = (u * torch.matmul(mat, v)).sum()
    out = (mat / sigma).reshape(w.shape)
    return out.movedim(0, dim) if dim != 0 else out


@specializer(matmul)
def _matmul_call(site):
    x, y = site.p["x"], site.p["y"]
    rx, ry = site.rank(x), site.rank(y)
    if rx is None or ry is None:
        return None
    # .mT: the view transpose(-1, -2) gives (a property: no argument parsing)
    if site.p["transpose_x"] and rx >= 2:
        x = site.call(getattr, x, "mT")
    if site.p["transpose_y"] and ry >= 2:
        y = site.call(getattr, y, "mT")
    return site.call(torch.matmul, x, y)
