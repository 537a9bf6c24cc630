"""Sums and products in the order Paddle's CPU kernels combine: one element after another, in
the element type.

torch reduces float32 in double (cumsum, cumprod) or pairwise/vectorised (sum), which rounds
differently from Eigen's and phi's element-by-element loops.  For short axes the reduction is
spelled out as a chain of binary ops, which matches Paddle bit for bit; beyond `LIMIT`
elements the chain would bloat the graph, so torch's own is used (equal to rounding).
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


def sequential_scan(x: torch.Tensor, dim: int, op=torch.add) -> torch.Tensor:
    """Inclusive scan of `op` (torch.add or torch.mul) along `dim`, in x's dtype."""
    n = x.shape[dim]
    if not x.is_floating_point() or n > LIMIT or n == 0:
        scan = torch.cumsum if op is torch.add else torch.cumprod
        return scan(x, dim, dtype=x.dtype)  # torch would widen ints to int64
    parts = [x.narrow(dim, 0, 1)]
    for i in range(1, n):
        parts.append(op(parts[-1], x.narrow(dim, i, 1)))
    return torch.cat(parts, dim)


def shift_in(x: torch.Tensor, dim: int, fill) -> torch.Tensor:
    """x moved one step along `dim`, `fill` first and the last element dropped: an exclusive
    scan is the inclusive scan of this."""
    first = torch.full_like(x.narrow(dim, 0, 1), fill)
    return torch.cat([first, x.narrow(dim, 0, x.shape[dim] - 1)], dim)


def sequential_extreme(x: torch.Tensor, dim: int, keepdim: bool, largest: bool) -> torch.Tensor:
    """max / min along `dim` as a vector unit's max/min folds: acc = acc > t ? acc : t (SSE's
    maxps), so a NaN replaces the running value and the next number replaces the NaN (only
    a trailing NaN survives).  Beyond LIMIT elements torch's NaN-propagating amax / amin."""
    n = x.shape[dim]
    if not x.is_floating_point() or n > LIMIT or n == 0:
        return (torch.amax if largest else torch.amin)(x, dim, keepdim=keepdim)
    acc = x.select(dim, 0)
    for i in range(1, n):
        t = x.select(dim, i)
        acc = torch.where(acc > t if largest else acc < t, acc, t)
    return acc.unsqueeze(dim) if keepdim else acc
