"""Builders of interp_antialias (Paddle 3.3.1 only: 3.0.0 has no such op), beyond the one
bilinear program in nn.py: bicubic, align_corners, upsampling (where the antialias filter is
the plain one), NHWC and a scale instead of a size."""
import paddle

from . import Feeds, op  # noqa: F401

C = paddle._C_ops


@op("interp_antialias__modes")
def _interp_antialias_modes(f):
    x = f("x", [1, 2, 6, 8])
    xh = f("xh", [1, 6, 8, 2])
    outs = []
    for method, ac, h, w in (("bilinear", True, 3, 4), ("bicubic", False, 3, 4),
                             ("bicubic", True, 2, 5), ("bilinear", False, 9, 12),
                             ("bicubic", False, 4, 11), ("bilinear", False, 5, 3)):
        outs.append(C.interp_antialias(x, None, None, None, "NCHW", 0, h, w, [], method, ac, 0))
    outs.append(C.interp_antialias(xh, None, None, None, "NHWC", 0, 3, 4, [], "bilinear", False,
                                   0))
    outs.append(C.interp_antialias(x, None, None, None, "NCHW", 0, -1, -1, [0.5, 0.25],
                                   "bicubic", False, 0))
    return outs, {}
