"""Values of the kernel cases (tests/fixtures/kernel_cases/*.json) as the kernels take them.

A tensor is stored as {"array", "dtype", "shape"}, a list of tensors as {"vec": [...]}, a
dtype attribute as {"dtype": name}; tools/paddle_oracle/gen_kernel_cases.py writes them.
"""

from __future__ import annotations

import numpy as np
import torch

from pirc.lower.values import torch_dtype


def decode(value):
    """A stored operand or expected result as a tensor (a list for a vec, None for null)."""
    if value is None:
        return None
    if "vec" in value:
        return [decode(v) for v in value["vec"]]
    return torch.from_numpy(np.array(value["array"], dtype=value["dtype"]).reshape(value["shape"]))


def attribute(value):
    """A stored attribute as the kernel's keyword argument (a dtype becomes a torch.dtype)."""
    if isinstance(value, dict) and "dtype" in value:
        return torch_dtype(value["dtype"])
    return value
