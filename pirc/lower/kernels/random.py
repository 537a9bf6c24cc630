"""Random ops.  Values cannot match Paddle's generator; shape, dtype and distribution do.

A non-zero `seed` attribute seeds a private torch.Generator, so the op is deterministic
run to run as Paddle's is; seed 0 draws from torch's global generator.
"""

from __future__ import annotations

import torch

from ...runtime.registry import REGISTRY
from .operands import int_list, number


def generator(seed) -> torch.Generator | None:
    if seed:
        return torch.Generator().manual_seed(int(seed))
    return None


@REGISTRY.register("pd_op.gaussian", since=1)
def gaussian(shape=(), *, mean=0.0, std=1.0, seed=0, dtype=torch.float32, place="undefined"):
    dtype = dtype or torch.float32
    out = torch.randn(int_list(shape), generator=generator(seed), dtype=torch.float32)
    return (out * std + mean).to(dtype)


@REGISTRY.register("pd_op.uniform", since=1)
def uniform(shape=(), min=-1.0, max=1.0, *, dtype=torch.float32, seed=0, place="undefined"):  # noqa: A002
    dtype = dtype or torch.float32
    lo, hi = float(number(min)), float(number(max))
    out = torch.rand(int_list(shape), generator=generator(seed), dtype=torch.float32)
    return (out * (hi - lo) + lo).to(dtype)
