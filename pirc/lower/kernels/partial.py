"""The partial ops over a list of 2-D [batch, D] tensors, as Paddle's CPU kernels
(phi/kernels/impl/partial_{concat,sum}_kernel_impl.h) compute them."""

from __future__ import annotations

import torch

from ...runtime.registry import REGISTRY


def _columns(x, start_index, length, negative_start):
    if not x or any(t.dim() != 2 for t in x):
        raise ValueError("partial ops take a non-empty list of 2-D [batch, D] tensors")
    d = x[0].shape[1]
    start = start_index + d if negative_start and start_index < 0 else start_index
    n = d - start if length < 0 else length
    if not 0 <= start <= start + n <= d:
        raise ValueError(f"partial ops: columns [{start_index}, {start_index} + {length}) "
                         f"do not fit {d} columns")
    return start, n


@REGISTRY.register("pd_op.partial_concat", since=1)
def partial_concat(x, *, start_index=0, length=-1):
    # a negative start_index counts from the end (ComputeStartIndex)
    start, n = _columns(x, start_index, length, True)
    return torch.cat([t[:, start:start + n] for t in x], 1)


@REGISTRY.register("pd_op.partial_sum", since=1)
def partial_sum(x, *, start_index=0, length=-1):
    # the kernel adds each input's columns into zeros, in input order (so -0 alone is +0)
    start, n = _columns(x, start_index, length, False)
    out = torch.zeros((x[0].shape[0], n), dtype=x[0].dtype)
    for t in x:
        out = out + t[:, start:start + n]
    return out
