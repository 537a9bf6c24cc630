"""Sparse COO tensors: dense <-> COO conversions, the parts (values, indices), abs, add.

A COO value at run time is a `SparseCoo` (indices [sparse_dim, nnz] int64, values
[nnz, *dense dims], shape), not a torch.sparse_coo_tensor: Paddle keeps its entries in
the order its kernels write them, never coalesces unless asked and keeps explicit zeros
(abs of a stored 0), while torch's sparse kernels coalesce (sort and sum duplicates) on
their own.  Fetching the values or indices then gives Paddle's exact arrays.
Kernels follow paddle/phi/kernels/sparse/cpu/ (sparse_utils_kernel.cc, elementwise_kernel.cc).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from ...runtime.registry import REGISTRY


@dataclass(frozen=True)
class SparseCoo:
    indices: torch.Tensor  # int64 [sparse_dim, nnz]
    values: torch.Tensor  # [nnz, *shape[sparse_dim:]]
    shape: tuple[int, ...]

    @property
    def sparse_dim(self) -> int:
        return self.indices.shape[0]

    def flat_indices(self) -> list[int]:
        """Each entry's row-major offset over the sparse dims (Paddle's FlattenIndices)."""
        flat = torch.zeros(self.indices.shape[1], dtype=torch.int64)
        for d in range(self.sparse_dim):
            flat = flat * self.shape[d] + self.indices[d]
        return flat.tolist()


def dense_kernel(name: str, version: int = 1):
    """The dense kernel a sparse one runs on its values (looked up when called: kernel modules
    register in any order), as registered for PIR `version`."""
    return REGISTRY.resolve(name, version).fn


def _coo_of(x, what: str) -> SparseCoo:
    if not isinstance(x, SparseCoo):
        raise TypeError(f"{what} takes a sparse COO tensor, got {type(x).__name__}")
    return x


@REGISTRY.register("pd_op.dense_to_coo_sp", since=1)
def dense_to_coo_sp(x, *, sparse_dim):
    """DenseToCooKernel: an entry per position of the first sparse_dim dims whose slice has a
    non-zero element, in row-major order."""
    if not 0 < sparse_dim <= x.dim():
        raise ValueError(f"dense_to_coo_sp: sparse_dim {sparse_dim} is not in [1, {x.dim()}]")
    rows = x.reshape(*x.shape[:sparse_dim], -1)
    nonzero = (rows != 0).any(dim=-1)
    indices = nonzero.nonzero().t().contiguous().to(torch.int64)
    values = x[tuple(indices)]
    return SparseCoo(indices, values, tuple(x.shape))


@REGISTRY.register("pd_op.coo_to_dense_sp", since=1)
def coo_to_dense_sp(x):
    """CooToDenseKernel: zeros, then each entry's value copied to its place (a later entry at
    the same place wins, as in Paddle's loop)."""
    x = _coo_of(x, "coo_to_dense_sp")
    if x.indices.dim() == 1:  # sum_coo_sp over every axis: indices [1], 0-D values, shape [1]
        x = SparseCoo(x.indices.reshape(-1, 1), x.values.reshape(1), x.shape)
    out = torch.zeros(x.shape, dtype=x.values.dtype)
    flat = x.flat_indices()
    last = {f: i for i, f in enumerate(flat)}
    keep = torch.tensor(sorted(last.values()), dtype=torch.int64)
    out[tuple(x.indices[:, keep])] = x.values[keep]
    return out


@REGISTRY.register("pd_op.values_coo_sp", since=1)
def values_coo_sp(x):
    return _coo_of(x, "values_coo_sp").values


@REGISTRY.register("pd_op.indices_sp", since=1)
def indices_sp(x):
    return _coo_of(x, "indices_sp").indices


@REGISTRY.register("pd_op.abs_coo_sp", since=1)
def abs_coo_sp(x):
    x = _coo_of(x, "abs_coo_sp")
    return SparseCoo(x.indices, torch.abs(x.values), x.shape)


@REGISTRY.register("pd_op.add_coo_coo_sp", since=1)
def add_coo_coo_sp(x, y):
    """AddFunctor: equal indices add the values directly (Paddle's shortcut), else the merge."""
    x, y = _coo_of(x, "add_coo_coo_sp"), _coo_of(y, "add_coo_coo_sp")
    if x.indices.shape == y.indices.shape and torch.equal(x.indices, y.indices):
        return SparseCoo(x.indices, x.values + y.values, x.shape)
    return _merge("add_coo_coo_sp", x, y, torch.add)


@REGISTRY.register("pd_op.subtract_coo_coo_sp", since=1)
def subtract_coo_coo_sp(x, y):
    return _merge("subtract_coo_coo_sp", _coo_of(x, "subtract_coo_coo_sp"),
                  _coo_of(y, "subtract_coo_coo_sp"), torch.sub)


@REGISTRY.register("pd_op.multiply_coo_coo_sp", since=1)
def multiply_coo_coo_sp(x, y):
    return _merge("multiply_coo_coo_sp", _coo_of(x, "multiply_coo_coo_sp"),
                  _coo_of(y, "multiply_coo_coo_sp"), torch.mul)


def _merge(name: str, x: SparseCoo, y: SparseCoo, fn):
    """ElementWiseCooKernelImpl's Merge: a walk over both flattened index lists (sorted input
    assumed, as Paddle does), a side without the entry giving a zero row to `fn` (so -0 + 0
    gives +0 as in Paddle); every visited position is stored, a zero result included."""
    if x.shape != y.shape:
        raise ValueError(f"{name}: shapes differ, {list(x.shape)} and {list(y.shape)}")
    a, b = x.flat_indices(), y.flat_indices()
    b_row = {f: i for i, f in enumerate(b)}  # b_values[b_index[i]]: the last one wins
    out, ia, ib = [], [], []
    i = j = 0
    while i < len(a) or j < len(b):
        if j >= len(b) or (i < len(a) and a[i] < b[j]):
            out.append(a[i]); ia.append(i); ib.append(-1); i += 1
        elif i >= len(a) or a[i] > b[j]:
            out.append(b[j]); ia.append(-1); ib.append(b_row[b[j]]); j += 1
        else:
            out.append(a[i]); ia.append(i); ib.append(b_row[b[j]]); i += 1; j += 1
    zero = torch.zeros((1, *x.values.shape[1:]), dtype=x.values.dtype)
    xv, yv = torch.cat([x.values, zero]), torch.cat([y.values, zero])  # row -1 is the zero row
    values = fn(xv[torch.tensor(ia, dtype=torch.int64)], yv[torch.tensor(ib, dtype=torch.int64)])
    flat = torch.tensor(out, dtype=torch.int64)
    coords = []
    for d in reversed(range(x.sparse_dim)):
        coords.append(flat % x.shape[d]); flat = flat // x.shape[d]
    indices = torch.stack(coords[::-1]) if coords else torch.zeros((0, len(out)), dtype=torch.int64)
    return SparseCoo(indices, values, x.shape)
