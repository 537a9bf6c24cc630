"""Sums in the order Paddle's CPU kernels add: one element after another, in the element type.

torch reduces float32 in double (cumsum) or pairwise/vectorised (sum), which rounds
differently from Eigen's and phi's element-by-element loops.  For short axes the sum is
spelled out as a chain of adds, which matches Paddle bit for bit; beyond `LIMIT` elements the
chain would bloat the graph, so torch's reduction is used (equal to rounding).
"""

from __future__ import annotations

import torch

LIMIT = 64


def sequential_sum(x: torch.Tensor, dim: int, keepdim: bool = False) -> torch.Tensor:
    n = x.shape[dim]
    if not x.is_floating_point() or n > LIMIT or n == 0:
        return torch.sum(x, dim, keepdim=keepdim)
    total = x.select(dim, 0)
    for i in range(1, n):
        total = total + x.select(dim, i)
    return total.unsqueeze(dim) if keepdim else total


def sequential_scan(x: torch.Tensor, dim: int) -> torch.Tensor:
    n = x.shape[dim]
    if not x.is_floating_point() or n > LIMIT or n == 0:
        return torch.cumsum(x, dim, dtype=x.dtype)  # torch would widen ints to int64
    parts = [x.narrow(dim, 0, 1)]
    for i in range(1, n):
        parts.append(parts[-1] + x.narrow(dim, i, 1))
    return torch.cat(parts, dim)
