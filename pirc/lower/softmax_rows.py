"""Softmax over the last axis, taking another route where torch's CPU kernel is slow: many
rows, each shorter than one SIMD vector.

torch's vectorised last-dim softmax (aten/src/ATen/native/cpu/SoftMaxKernel.cpp) walks the
rows one by one; a row shorter than a vector goes through partial loads and a horizontal
reduction of a partial vector, about 0.14 us a row whatever its length under AVX-512.  An
attention over 8 keys ([64, 4, 8, 8], 2048 rows of 8 floats) then costs 294 us, where the
same softmax as whole-tensor calls (max, subtract, exp, sum, divide) takes 61 us: each of
those is vectorised over the whole tensor, not over a row.  With few rows the five calls'
fixed cost is the larger (5.6 against 7.3 us at 32 rows), hence a row count too.  Measured
on 2026-12-05 for float32 and float64, rows of 2 to 15 elements, under AVX-512 and AVX2
(docs/LOWERING.md and docs/PERFORMANCE.md, "Softmax over short rows").

The two routes compute the same formula, exp(x - max) / sum, rounded differently: torch's
kernel has an exp of its own (its last bit differs from torch.exp's on ~9% of inputs) and
multiplies by 1 / sum, so no composition of torch calls gives its bits; both are within an
ulp or two of the exact softmax, and a row's last bit can depend on how many rows the call
holds.  Paddle's CPU kernel is a third rounding.  NaN and +-inf rows give what
torch.softmax gives (tests/unit/test_softmax_rows.py).  Every softmax the lowering
makes over a last axis, fused references included, goes through `softmax_last`, so a fused
op and the composition it replaced take the same route on the same shape.
"""

from __future__ import annotations

import torch

# Rows shorter than this many elements are slow in torch's last-dim kernel, for float32 and
# float64 alike: the float32 lanes of the vector unit torch dispatched to (ATEN_CPU_CAPABILITY
# moves it).  Other capabilities were not measured: torch's kernel everywhere.
SHORT_ROW = {"AVX512": 16, "AVX2": 8}.get(torch.backends.cpu.get_cpu_capability(), 0)
# Below this many rows torch's kernel is the faster (its one call against five).
MANY_ROWS = 256

_ROUTED = (torch.float32, torch.float64)


def short_rows(x: torch.Tensor) -> bool:
    """Whether `softmax_last(x)` takes the whole-tensor route."""
    d = x.size(-1)
    return 0 < d < SHORT_ROW and x.numel() >= MANY_ROWS * d and x.dtype in _ROUTED \
        and x.is_cpu


def softmax_last(x: torch.Tensor) -> torch.Tensor:
    """torch.softmax(x, -1) of a tensor of rank >= 1, by the faster route for its shape.

    Traced (torch.export, torch.compile: a fake or symbolic tensor), torch.softmax: the
    route is a choice on the run's shape, and a traced graph holds no such choice (export
    would guard the dynamic dims on the row count).  Fewer elements than MANY_ROWS (every
    batch-1 call) answer before short_rows' frame: 0.7 us a call was 4% of the corpus mlp's
    batch-1 forward."""
    if type(x) is not torch.Tensor or torch.compiler.is_dynamo_compiling() \
            or x.numel() < MANY_ROWS or not short_rows(x):
        return torch.softmax(x, -1)
    e = torch.sub(x, torch.amax(x, -1, True))
    if x.requires_grad and torch.is_grad_enabled():   # autograd: no in-place steps
        e = torch.exp(e)
        return e / torch.sum(e, -1, True)
    e = e.exp_()   # in place on the fresh difference: one allocation
    return e.div_(torch.sum(e, -1, True))
