"""pd_op.assert: stop the program when cond is false, as Paddle's AssertOp does
(paddle/fluid/operators/assert_op.cc): cond must hold one bool; the
error shows the first `summarize` values of each data tensor (-1: all of them).

The op has no result, so the lowering's dead-code elimination would drop its call: the
kernel is registered with torch.fx as a side effect.
"""

from __future__ import annotations

import torch
from torch.fx.node import has_side_effect

from ...runtime.registry import REGISTRY


class AssertionFailed(ValueError):
    """A pd_op.assert whose condition was false."""


@REGISTRY.register("pd_op.assert", since=1)
@has_side_effect
def assert_(cond, data=None, *, summarize=-1):
    if cond.numel() != 1 or cond.dtype != torch.bool:
        raise ValueError(f"assert: cond must be one bool, got {cond.dtype}{list(cond.shape)}")
    if bool(cond.reshape(())):
        return
    n = int(summarize)
    shown = []
    for i, t in enumerate(data or []):
        flat = t.reshape(-1)
        vals = flat.tolist() if n < 0 else flat[:n].tolist()
        shown.append(f"  data {i}: {t.dtype}{list(t.shape)} first values {vals}")
    raise AssertionFailed("\n".join(["assert: the condition is false"] + shown))
