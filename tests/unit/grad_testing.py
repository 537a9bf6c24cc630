"""Shared by the backward-op kernel tests: resolve a kernel, seeded random tensors, no_grad.

Kernels run under torch.no_grad() in pirc-run (pirc.lower.execute), so the tests do too:
a grad kernel must switch autograd on itself where it needs it.
"""

from __future__ import annotations

import pytest
import torch

import pirc.lower.kernels  # noqa: F401 - registers every kernel
from pirc.runtime.registry import REGISTRY

V = 4  # the PIR version the upgraded programs run at


def kernel(name: str, version: int = V):
    return REGISTRY.resolve(name, version).fn


def seeded_randn(shape, seed: int, dtype) -> torch.Tensor:
    return torch.randn(tuple(shape), generator=torch.Generator().manual_seed(seed), dtype=dtype)


@pytest.fixture(autouse=True)
def no_grad():
    with torch.no_grad():
        yield
