"""Transposed convolution: conv2d_transpose, depthwise_conv2d_transpose, conv3d_transpose.

Paddle (phi ConvTransposeKernel, ConvTransposeInferMeta) computes the full transposed
convolution with a GEMM and col2im, then keeps the window that starts `padding_before` cells
in: out = (in - 1) * stride - pad_before - pad_after + dilation * (k - 1) + 1, plus
output_padding, or exactly output_size when one is given (Paddle checks that it lies within
one stride of that size); cells past the full result are zero.  The padding goes through the
same UpdatePaddingAndDilation as convolution: SAME pads so that a forward convolution of the
input would keep ceil(in / stride) cells and resets the dilation to 1, VALID pads nothing.
torch's conv_transpose takes symmetric padding only, so the full result is computed with
padding 0 and cut (or zero-extended) here; the filter layout [C_in, C_out / groups, k...] is
torch's.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from ...runtime.registry import REGISTRY
from . import padding
from .operands import int_list

_TORCH = {2: F.conv_transpose2d, 3: F.conv_transpose3d}


def conv_transpose(x, filter, output_size, strides, paddings, output_padding,  # noqa: A002
                   padding_algorithm, groups, dilations, data_format):
    spatial = filter.dim() - 2
    channels_last = data_format in ("NHWC", "NDHWC")
    if channels_last:
        x = x.permute(0, x.dim() - 1, *range(1, x.dim() - 1))
    sizes = list(x.shape[2:])
    kernel = list(filter.shape[2:])
    strides = [int(s) for s in strides]
    dilations = [int(d) for d in dilations]
    if padding_algorithm == "SAME":
        dilations = [1] * spatial
    pads = padding.resolve(paddings, padding_algorithm, sizes, kernel, strides)
    if spatial == 2 and groups == 1 and strides == kernel and dilations == [1, 1] \
            and x.shape[1] * filter.shape[1] <= _TILED_MAX_CHANNELS:
        full = _tiled_2d(x, filter)
    else:
        full = _TORCH[spatial](x, filter, None, strides, 0, 0, groups, dilations)
    outs = [(sizes[i] - 1) * strides[i] - pads[i][0] - pads[i][1]
            + dilations[i] * (kernel[i] - 1) + 1 for i in range(spatial)]
    output_size = int_list(output_size)
    output_padding = [int(p) for p in output_padding]
    if output_size:
        outs = output_size
    elif output_padding:
        outs = [o + p for o, p in zip(outs, output_padding)]
    # zeros past the full result, then the window [pad_before, pad_before + out)
    extra = [(0, max(pads[i][0] + outs[i] - full.shape[2 + i], 0)) for i in range(spatial)]
    if any(a for _, a in extra):
        full = F.pad(full, padding.torch_pad_list(extra))
    index = (slice(None), slice(None)) + tuple(slice(pads[i][0], pads[i][0] + outs[i])
                                               for i in range(spatial))
    out = full[index]
    return out.permute(0, *range(2, out.dim()), 1) if channels_last else out


# A stride equal to the kernel (the 2x2 / stride 2 upsampling of DB, U-Net and FPN heads):
# the windows do not overlap, so the full result is one GEMM per pixel, x's channels times
# the filter, laid out in kh x kw tiles.  With few channels torch's CPU conv_transpose2d takes
# its slow (im2col-less col2im) path, ~60-75 us for a [2, 3, 32, 32] map where the GEMM and
# the tile copy take ~20 us (measured, one thread); with more channels its oneDNN path wins.
_TILED_MAX_CHANNELS = 64


def _tiled_2d(x, filter):  # noqa: A002
    n, c, h, w = x.shape
    _, o, kh, kw = filter.shape
    y = torch.matmul(x.reshape(n, c, h * w).transpose(1, 2), filter.reshape(c, o * kh * kw))
    return y.reshape(n, h, w, o, kh, kw).permute(0, 3, 1, 4, 2, 5).reshape(n, o, h * kh, w * kw)


@REGISTRY.register("pd_op.conv2d_transpose", since=1)
def conv2d_transpose(x, filter, output_size=None, *, strides=(1, 1), paddings=(0, 0),  # noqa: A002
                     output_padding=(), padding_algorithm="EXPLICIT", groups=1,
                     dilations=(1, 1), data_format="NCHW"):
    return conv_transpose(x, filter, output_size, strides, paddings, output_padding,
                          padding_algorithm, groups, dilations, data_format)


# What F.conv2d_transpose emits when groups == in_channels and the filter has one output
# channel per group: the same rules, phi's depthwise kernel.
@REGISTRY.register("pd_op.depthwise_conv2d_transpose", since=1)
def depthwise_conv2d_transpose(x, filter, output_size=None, *, strides=(1, 1),  # noqa: A002
                               paddings=(0, 0), output_padding=(), padding_algorithm="EXPLICIT",
                               groups=1, dilations=(1, 1), data_format="NCHW"):
    return conv_transpose(x, filter, output_size, strides, paddings, output_padding,
                          padding_algorithm, groups, dilations, data_format)


# output_size is an attribute here (an operand in the 2-D ops).
@REGISTRY.register("pd_op.conv3d_transpose", since=1)
def conv3d_transpose(x, filter, *, strides=(1, 1, 1), paddings=(0, 0, 0),  # noqa: A002
                     output_padding=(), output_size=(), padding_algorithm="EXPLICIT", groups=1,
                     dilations=(1, 1, 1), data_format="NCDHW"):
    return conv_transpose(x, filter, list(output_size), strides, paddings, output_padding,
                          padding_algorithm, groups, dilations, data_format)
