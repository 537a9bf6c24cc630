"""Paddle's exact (erf) gelu, written as its CPU kernel computes it: shared by the kernel of
pd_op.gelu (kernels/activation.py) and the CPU reference of torch_npu's npu_gelu
(npu/reference.py), which lives outside the kernels package so the npu entry points can
import it.

phi GeluFunctor (cpu/gelu_kernel.cc), the wheels' MKLML branch: erf(x * M_SQRT1_2), then
x * (1 + erf) * 0.5 in x's type.  With torch.erf this is bit-exact against Paddle 3.3.1 on
every float32 input (all 2^32 bit patterns) and on 4M float64 ones, where F.gelu
(x * 0.5 * (1 + erf)) differs on 1.91% of the float32 inputs, by up to 8.8e8 ulp in the
tails, and gives NaN at +inf where Paddle's x * 2 overflows to +inf first
(tools/paddle_oracle/activation_all_floats.log).
"""

from __future__ import annotations

import torch

from .number_tensors import number_tensor

M_SQRT1_2 = 0.70710678118654752440  # <cmath>'s double, cast to x's type by the kernel


_NUMBERS: dict = {}   # dtype -> _numbers(dtype)


def _numbers(dtype) -> tuple:
    """(M_SQRT1_2, 1, 0.5) as 0-D tensors of `dtype` where that is the same number
    (number_tensors), made once per dtype: one lookup a call instead of three."""
    made = _NUMBERS.get(dtype)
    if made is None:
        made = _NUMBERS[dtype] = tuple(number_tensor(v, dtype) for v in (M_SQRT1_2, 1, 0.5))
    return made


def gelu_erf(x: torch.Tensor) -> torch.Tensor:
    if x.requires_grad:   # autograd through the kernel (the grad ops): no in-place steps
        return x * (1 + torch.erf(x * M_SQRT1_2)) * 0.5
    # the same operations in the same order, in place on the temporaries: the same bits,
    # two allocations instead of five (~20% faster on a [64, 8, 128] activation)
    c, one, half = _numbers(x.dtype) if x.is_cpu else (M_SQRT1_2, 1, 0.5)
    t = torch.mul(x, c)
    t.erf_().add_(one)
    return torch.mul(x, t).mul_(half)
