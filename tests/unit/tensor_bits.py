"""The one comparison the lowering's speed-path tests make: two tensors with the same dtype,
shape and bytes (NaN payloads, -0 and denormals included), which `torch.equal` and
`assert_allclose` do not check."""

from __future__ import annotations

import numpy as np
import torch


def bits_equal(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape, (a.dtype, b.dtype, a.shape, b.shape)
    if a.dtype == torch.bfloat16:   # numpy has no bfloat16: its bits as int16
        a, b = a.view(torch.int16), b.view(torch.int16)
    np.testing.assert_array_equal(a.contiguous().numpy().reshape(-1).view(np.uint8),
                                  b.contiguous().numpy().reshape(-1).view(np.uint8))
