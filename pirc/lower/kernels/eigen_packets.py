"""Where Paddle's CPU kernels run Eigen's vectorised math, the special values come out as
Eigen's packet functions give them, not as IEEE / libm would.

Eigen evaluates a flattened tensor in full packets of 32 bytes (the wheels are built for AVX:
8 float32 or 4 float64 values) and the last `numel % packet` elements one by one with the
scalar std:: function. The packet functions differ from libm on special inputs: float32 sqrt
is an rsqrt estimate refined once (+inf -> NaN, denormals and -0 -> +0), rsqrt flushes
denormals to zero first (so gives +-inf), log takes a denormal as the smallest normal number.
Checked with the 3.0.0 and 3.3.1 wheels (sixteen copies of each special value, and twelve
+inf: the first eight come back NaN, the last four +inf).
"""

from __future__ import annotations

import torch

FLT_MIN = float(torch.finfo(torch.float32).tiny)

PACKET_BYTES = 32


def eigen_packet_lanes(x: torch.Tensor) -> torch.Tensor:
    """True where Eigen computes x's element in a full packet (all but the scalar tail)."""
    n = x.numel()
    per = PACKET_BYTES // x.element_size()
    idx = torch.arange(n, device=x.device).reshape(x.shape)
    return idx < n - n % per


def eigen_packet_log_input(r: torch.Tensor) -> torch.Tensor:
    """r as Eigen's packet log sees it: a positive denormal becomes the smallest normal."""
    if not r.is_floating_point():
        return r
    tiny = torch.finfo(r.dtype).tiny
    denormal = (r > 0) & (r < tiny) & eigen_packet_lanes(r)
    return torch.where(denormal, torch.full_like(r, tiny), r)
