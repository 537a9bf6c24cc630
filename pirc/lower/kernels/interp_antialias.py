"""interp_antialias (Paddle 3.3.1): bilinear / bicubic resizing whose filter widens by the
downscale ratio (PIL's antialias), the algorithm of torch's F.interpolate(antialias=True), so
that is the kernel; Paddle sums the taps in another order (a few float32 ulps apart, recorded
in parity/detection.yaml).  Output sizes follow the other *_interp ops (size_tensor, then
out_size, over scale); given a scale, the filter uses it, as torch does with scale_factor.
"""

from __future__ import annotations

import torch.nn.functional as F

from ...runtime.registry import REGISTRY
from .interp import _channels_first, _out_sizes


@REGISTRY.register("pd_op.interp_antialias", since=4)
def interp_antialias(x, out_size=None, size_tensor=None, scale_tensor=None, *, data_format="NCHW",
                     out_d=0, out_h=0, out_w=0, scale=(), interp_method="bilinear",
                     align_corners=True, align_mode=1):
    xc, last = _channels_first(x, data_format)
    sizes, scales = _out_sizes(list(xc.shape[2:]), out_size, size_tensor, scale_tensor, scale,
                               [out_h, out_w])
    if out_size is None and not size_tensor and all(s > 0 for s in scales):
        y = F.interpolate(xc, scale_factor=tuple(scales), mode=interp_method,
                          align_corners=align_corners, antialias=True)
    else:
        y = F.interpolate(xc, size=tuple(sizes), mode=interp_method,
                          align_corners=align_corners, antialias=True)
    return y.permute(0, 2, 3, 1) if last else y
