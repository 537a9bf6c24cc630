"""Sparse COO reductions and math: sum, softmax, pow, divide (COO / COO), add (COO + dense).

Each follows Paddle's CPU kernel (paddle/phi/kernels/sparse/cpu/sum_kernel.cc,
softmax_kernel.cc, elementwise_kernel.cc, sparse/impl/unary_kernel_impl.h), down to the order
it stores entries in and the oddities it has: sum reduces over the first listed axis only,
softmax leaves a row without entries empty (a dense softmax would give it 1/n), divide stores
every position of the sparse dims (0 / 0 = NaN where neither side has an entry).  Where Paddle
runs a dense kernel on the values tensor, pirc's dense kernel of that op runs.
"""

from __future__ import annotations

import math

import torch

from ...runtime.registry import REGISTRY
from .eigen_generic_pow import generic_pow
from .eigen_packets import eigen_packet_lanes
from .elementwise import float_pow
from .operands import int_list
from .sparse_coo import SparseCoo, dense_kernel, _coo_of, _merge


def _groups(rows: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The distinct columns of `rows` [k, nnz] in lexicographic order (a std::map over index
    vectors) and each entry's group; k = 0 puts every entry in one group."""
    if rows.shape[0] == 0:
        return rows[:, :1], torch.zeros(rows.shape[1], dtype=torch.int64)
    keys, inverse = torch.unique(rows, dim=1, return_inverse=True)
    return keys, inverse


def _sum_in_order(values: torch.Tensor, group: torch.Tensor, n: int) -> torch.Tensor:
    """T out = 0; out += v for each entry in stored order, per group (index_add_ on the CPU
    adds the rows one after another, in index order)."""
    out = torch.zeros((n, *values.shape[1:]), dtype=values.dtype)
    return out.index_add_(0, group, values)


@REGISTRY.register("pd_op.sum_coo_sp", since=1)
def sum_coo_sp(x, axis=(), *, dtype=None, keepdim=False):
    """SumCooCPUKernel.  No axis: one entry at 0 holding phi::Sum of the values (indices
    [sparse_dim, 1], or 1-D [1] with 0-D values and shape [1] without keepdim).  Otherwise
    only axis[0] is reduced: a dense dim by phi::Sum on the values (indices kept); a sparse
    dim by grouping the entries on their other indices (a sparse_dim of 1 keeps the dim),
    the sums in the values' type, cast to `dtype` afterwards."""
    x = _coo_of(x, "sum_coo_sp")
    axes, ndim, sd = int_list(axis), len(x.shape), x.sparse_dim
    dense_sum = dense_kernel("pd_op.sum")
    if not axes:
        values = dense_sum(x.values, [], dtype=dtype, keepdim=keepdim)
        if keepdim:
            return SparseCoo(torch.zeros((sd, 1), dtype=torch.int64), values, (1,) * ndim)
        return SparseCoo(torch.zeros(1, dtype=torch.int64), values, (1,))
    dim = axes[0] + ndim if axes[0] < 0 else axes[0]
    if not 0 <= dim < ndim:
        raise ValueError(f"sum_coo_sp: axis {axes[0]} is out of range for a {ndim}-D tensor")
    shape = []
    for i, n in enumerate(x.shape):
        if i != dim:
            shape.append(n)
        elif keepdim or (dim < sd and sd == 1):
            shape.append(1)
    if dim >= sd:
        values = dense_sum(x.values, [dim - sd + 1], dtype=dtype, keepdim=keepdim)
        return SparseCoo(x.indices, values, tuple(shape))
    keep = keepdim or sd == 1
    rows = [torch.zeros_like(x.indices[i]) if i == dim else x.indices[i]
            for i in range(sd) if i != dim or keep]
    rows = torch.stack(rows) if rows else torch.zeros((0, x.indices.shape[1]), dtype=torch.int64)
    keys, group = _groups(rows)
    values = _sum_in_order(x.values, group, keys.shape[1])
    if dtype is not None and dtype != values.dtype:
        values = values.to(dtype)
    return SparseCoo(keys.contiguous(), values, tuple(shape))


@REGISTRY.register("pd_op.softmax_coo_sp", since=1)
def softmax_coo_sp(x, *, axis=-1):
    """SoftmaxCooCPUKernel.  A dense axis: the dense softmax on the values.  A sparse axis:
    the entries that share their other sparse indices form a pool; per pool and dense
    element, mx = std::max over the pool (a NaN never wins: mx starts at -inf and
    std::max(mx, NaN) keeps mx), v = std::exp(x - mx), the sum of v in stored order, and
    out = v * (1.0 / sum) with the reciprocal in double.  Positions without an entry stay
    without one."""
    x = _coo_of(x, "softmax_coo_sp")
    ndim, sd = len(x.shape), x.sparse_dim
    dim = axis + ndim if axis < 0 else axis
    if not 0 <= dim < ndim:
        raise ValueError(f"softmax_coo_sp: axis {axis} is out of range for a {ndim}-D tensor")
    if dim >= sd:
        return SparseCoo(x.indices, dense_kernel("pd_op.softmax")(x.values, axis=dim - sd + 1), x.shape)
    v = x.values
    _, pool = _groups(torch.cat([x.indices[:dim], x.indices[dim + 1:]]))
    n = int(pool.max()) + 1 if pool.numel() else 0
    idx = pool.reshape(-1, *([1] * (v.dim() - 1))).expand_as(v)
    mx = torch.full((n, *v.shape[1:]), -torch.inf, dtype=v.dtype)
    mx = mx.scatter_reduce(0, idx, torch.where(torch.isnan(v), -torch.inf, v), "amax")
    e = _exp(v - mx[pool])
    total = _sum_in_order(e, pool, n)
    out = e.to(torch.float64) * (1.0 / total.to(torch.float64))[pool]
    return SparseCoo(x.indices, out.to(v.dtype), x.shape)


def _exp(x: torch.Tensor) -> torch.Tensor:
    """std::exp, element by element.  float32: glibc's expf evaluates in double and rounds,
    as the double exp rounded to float does.  float64: torch's vectorised exp is 1 ulp from
    libm's on some values, so libm's own (math.exp) is called; x - max is <= 0 or NaN, so
    nothing overflows."""
    if x.dtype == torch.float32:
        return torch.exp(x.to(torch.float64)).to(torch.float32)
    if x.dtype == torch.float64:
        return torch.tensor([math.exp(t) for t in x.reshape(-1).tolist()],
                            dtype=torch.float64).reshape(x.shape)
    return torch.exp(x)


@REGISTRY.register("pd_op.pow_coo_sp", since=1)
def pow_coo_sp(x, *, factor):
    """PowCooKernel: phi's PowKernel on the values, i.e. Eigen's `x.pow(T(factor))` with the
    float attribute cast to the values' type.  Eigen evaluates full packets (8 float32 / 4
    float64, eigen_packets.py) with its generic_pow (eigen_generic_pow.py, emulated bit for
    bit: a COO's values are few, where the dense pd_op.pow trades that for speed), whose
    special cases are not C's ((-inf)^3 = +inf, (-0)^-1 = +inf, NaN^0 = 1, a negative
    underflow gives +0) and whose rounding is its own, and the scalar tail with std::pow."""
    x = _coo_of(x, "pow_coo_sp")
    v = x.values
    if v.dtype not in (torch.float32, torch.float64):
        return SparseCoo(x.indices, dense_kernel("pd_op.pow")(v, y=factor), x.shape)
    y = float(torch.tensor(float(factor), dtype=torch.float32))  # the attribute is a float
    out = torch.where(eigen_packet_lanes(v), generic_pow(v, y), float_pow(v, y))
    return SparseCoo(x.indices, out, x.shape)


@REGISTRY.register("pd_op.divide_coo_coo_sp", since=1)
def divide_coo_coo_sp(x, y):
    """ElementWiseDivideCooKernel: the merge of add / subtract / multiply, but with y's index
    list taken as every position of the sparse dims (is_divide's b_full_index), y's value or
    a zero row at each; so every position is stored, x's duplicates beside them."""
    x, y = _coo_of(x, "divide_coo_coo_sp"), _coo_of(y, "divide_coo_coo_sp")
    if x.shape != y.shape:
        raise ValueError(f"divide_coo_coo_sp: shapes differ, {list(x.shape)} and {list(y.shape)}")
    sd = x.sparse_dim
    total = 1
    for n in x.shape[:sd]:
        total *= n
    full = torch.zeros((total, *y.values.shape[1:]), dtype=y.values.dtype)
    last = {f: i for i, f in enumerate(y.flat_indices())}  # b_values[b_index[i]]: last wins
    if last:
        full[torch.tensor(list(last), dtype=torch.int64)] = \
            y.values[torch.tensor(list(last.values()), dtype=torch.int64)]
    flat, coords = torch.arange(total, dtype=torch.int64), []
    for d in reversed(range(sd)):
        coords.append(flat % x.shape[d]); flat = flat // x.shape[d]
    every = SparseCoo(torch.stack(coords[::-1]), full, y.shape)
    return _merge("divide_coo_coo_sp", x, every, _divide)


def _divide(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    if a.is_floating_point() or a.is_complex():
        return a / b
    if (b == 0).any():  # funcs::DivideFunctor's integer check
        raise ValueError("divide_coo_coo_sp: integer division by zero (a position where y "
                         "has no entry divides by 0, as in Paddle)")
    return torch.div(a, b, rounding_mode="trunc")


@REGISTRY.register("pd_op.add_coo_dense_sp", since=1)
def add_coo_dense_sp(x, y):
    """ElementWiseAddDenseKernel: only a 1-D y as long as x's last dim, added to the values
    by the dense add (values [nnz, ..., n] + [n]; with no dense dims, values [nnz] + [n])."""
    x = _coo_of(x, "add_coo_dense_sp")
    if isinstance(y, SparseCoo) or y.dim() != 1 or y.shape[0] != x.shape[-1]:
        got = "a sparse tensor" if isinstance(y, SparseCoo) else f"shape {list(y.shape)}"
        raise ValueError(f"add_coo_dense_sp: Paddle adds only a 1-D dense y of x's last dim "
                         f"({x.shape[-1]}), got {got}")
    if x.values.numel() == 0:  # no entries: Paddle's add returns the empty values as they are
        return SparseCoo(x.indices, x.values.clone(), x.shape)
    return SparseCoo(x.indices, dense_kernel("pd_op.add")(x.values, y), x.shape)
