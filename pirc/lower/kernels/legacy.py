"""Paddle's legacy ops: the fluid-era gru_unit cell, row_conv, cvm, the dequantising lookup
table, tree / graph helpers, and small framework ops (is_empty, share_data, set, variance,
range_v2, the old reshape), as Paddle's CPU kernels (phi/kernels/cpu/*) compute them."""

from __future__ import annotations

import math

import torch

from ...runtime.registry import REGISTRY
from .creation import running_sum
from .operands import int_list, number


@REGISTRY.register("pd_op.is_empty", since=1)
def is_empty(x):
    # a 0-d bool: true when x has no element
    return torch.tensor(x.numel() == 0)


@REGISTRY.register("pd_op.share_data", since=1)
def share_data(x):
    return x


@REGISTRY.register("pd_op.legacy_reshape", since=1)
def legacy_reshape(x, shape):
    # the fluid reshape: 0 copies x's dim at that position, -1 is inferred
    dims = [int(d) for d in shape.reshape(-1).tolist()] if isinstance(shape, torch.Tensor) \
        else int_list(shape)
    dims = [x.shape[i] if d == 0 else d for i, d in enumerate(dims)]
    return x.reshape(dims)


@REGISTRY.register("pd_op.set", since=1)
def set(x, source, *, dims=(), stride=(), offset=0):
    # phi SetKernel: out views source's storage with `dims`, `stride` and an offset in
    # BYTES; empty dims give a 0-d view of the element at the offset
    flat = source.reshape(-1)
    start = int(offset) // source.element_size()
    return torch.as_strided(flat, list(dims), list(stride), start).clone()


@REGISTRY.register("pd_op.variance", since=1)
def variance(x, *, axis=(), keepdim=False):
    # the population variance (divide by N) over `axis` (all dims when empty)
    dims = list(axis) if axis else list(range(x.dim()))
    mean = x.mean(dim=dims, keepdim=True)
    d = x - mean
    return (d * d).mean(dim=dims, keepdim=keepdim)


@REGISTRY.register("pd_op.cvm", since=1)
def cvm(x, cvm, *, use_cvm=True):
    # phi CVMKernel: use_cvm: y0 = log(x0 + 1), y1 = log(x1 + 1) - y0, the rest copied;
    # else the first two columns are dropped
    if not use_cvm:
        return x[:, 2:]
    y0 = torch.log(x[:, :1] + 1)
    y1 = torch.log(x[:, 1:2] + 1) - y0
    return torch.cat([y0, y1, x[:, 2:]], 1)


@REGISTRY.register("pd_op.range_v2", since=3)
def range_v2(start, end, step, *, dtype=torch.float64, place="cpu"):
    # new in Paddle 3.2 (PIR 3; the same definition at PIR 4, tools/opdefs): torch.range-like,
    # END INCLUDED: floor((end - start) / step) + 1 elements, each the running sum
    # start + step + ... in the output type (as arange)
    s, e, st = number(start), number(end), number(step)
    if st == 0:
        raise ValueError("range_v2: the step should not be 0")
    count = (e - s) / st
    if not math.isfinite(count):
        raise ValueError(f"range_v2: start {s}, end {e} and step {st} give no finite number "
                         f"of elements")
    return running_sum(s, st, max(math.floor(count) + 1, 0), dtype)


@REGISTRY.register("pd_op.row_conv", since=1)
def row_conv(x, filter):
    # lookahead convolution over time (x [batch, time, d], filter [future_context, d]):
    # out[b, t] = sum_k x[b, t + k] * filter[k] for t + k < time
    ctx = filter.shape[0]
    out = torch.zeros_like(x)
    for k in range(ctx):
        if k >= x.shape[1]:
            break
        out[:, : x.shape[1] - k] += x[:, k:] * filter[k]
    return out


_GRU_ACT = {0: lambda t: t, 1: torch.sigmoid, 2: torch.tanh, 3: torch.relu}


@REGISTRY.register("pd_op.gru_unit", since=1)
def gru_unit(input, hidden_prev, weight, bias=None, *, activation=2, gate_activation=1,
             origin_mode=False):
    # phi GRUUnitKernel: gate = input + bias; weight's memory is a [D, 2D] matrix (update,
    # reset) then a [D, D] one (candidate), NOT column slices of [D, 3D];
    # u, r = gate_act(gate[:, :2D] + h_prev W_ur); c = act(gate[:, 2D:] + (r h_prev) W_c);
    # h = u * (c - h_prev) + h_prev, or with origin_mode h = (1 - u) * c + u * h_prev
    # (written c + u * (h_prev - c)). Activation ids: 0 identity, 1 sigmoid, 2 tanh, 3 relu
    d = hidden_prev.shape[1]
    flat = weight.reshape(-1)
    w_ur, w_c = flat[: 2 * d * d].reshape(d, 2 * d), flat[2 * d * d:].reshape(d, d)
    gate = input if bias is None else input + bias.reshape(1, -1)
    ur = _GRU_ACT[gate_activation](gate[:, : 2 * d] + hidden_prev @ w_ur)
    u, r = ur[:, :d], ur[:, d:]
    rhp = r * hidden_prev
    c = _GRU_ACT[activation](gate[:, 2 * d:] + rhp @ w_c)
    h = c + u * (hidden_prev - c) if origin_mode else u * (c - hidden_prev) + hidden_prev
    return torch.cat([ur, c], 1), rhp, h
