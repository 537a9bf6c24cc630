"""Norms and distances: frobenius_norm, l1_norm, squared_l2_norm, norm (l2-normalise),
dist, trace, edit_distance.  (p_norm lives with the matrix ops in linalg.py.)"""

from __future__ import annotations

import math

import torch

from ...runtime.registry import REGISTRY
from .operands import int_list


@REGISTRY.register("pd_op.frobenius_norm", since=1)
def frobenius_norm(x, axis=(), *, keep_dim=False, reduce_all=False):
    dims = int_list(axis)
    if reduce_all or not dims:
        dims = list(range(x.dim()))
    return torch.sqrt(torch.sum(x * x, dims, keepdim=keep_dim))


@REGISTRY.register("pd_op.l1_norm", since=1)
def l1_norm(x):
    return torch.sum(torch.abs(x))


@REGISTRY.register("pd_op.squared_l2_norm", since=1)
def squared_l2_norm(x):
    return torch.sum(x * x).reshape([1])


@REGISTRY.register("pd_op.norm", since=1)
def norm(x, *, axis=-1, epsilon=1e-10, is_test=False):
    """phi NormKernel: out = x / sqrt(sum(x^2, axis) + epsilon); `norm` is that root."""
    root = torch.sqrt(torch.sum(x * x, axis, keepdim=True) + epsilon)
    return x / root, root


@REGISTRY.register("pd_op.dist", since=1)
def dist(x, y, *, p=2.0):
    """phi DistKernel: the p-norm of x - y (broadcast): p 0 counts the nonzeros, +-inf takes
    the max / min magnitude."""
    d = torch.abs(x - y)
    if p == 0:
        return torch.sum((d != 0).to(x.dtype))
    if p == math.inf:
        return torch.amax(d)
    if p == -math.inf:
        return torch.amin(d)
    return torch.pow(torch.sum(torch.pow(d, p)), 1.0 / p)


@REGISTRY.register("pd_op.trace", since=1)
def trace(x, *, offset=0, axis1=0, axis2=1):
    diag = torch.diagonal(x, offset, axis1, axis2)
    return torch.sum(diag, -1, dtype=x.dtype)


@REGISTRY.register("pd_op.edit_distance", since=1)
def edit_distance(hyps, refs, hypslength=None, refslength=None, *, normalized=False):
    """phi EditDistanceKernel: the Levenshtein distance of each hyps row against its refs
    row (their first hypslength / refslength tokens), divided by the ref length when
    normalized; `sequencenum` is the batch size."""
    batch = hyps.shape[0]
    hl = hypslength.tolist() if hypslength is not None else [hyps.shape[1]] * batch
    rl = refslength.tolist() if refslength is not None else [refs.shape[1]] * batch
    h_rows, r_rows = hyps.reshape(batch, -1).tolist(), refs.reshape(batch, -1).tolist()
    out = []
    for b in range(batch):
        h, r = h_rows[b][:hl[b]], r_rows[b][:rl[b]]
        prev = list(range(len(r) + 1))
        for i, tok in enumerate(h, 1):
            cur = [i]
            for j, ref in enumerate(r, 1):
                cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (tok != ref)))
            prev = cur
        d = float(prev[-1])
        out.append(d / len(r) if normalized and len(r) else d)
    return (torch.tensor([batch], dtype=torch.int64),
            torch.tensor(out, dtype=torch.float32).reshape(batch, 1))
