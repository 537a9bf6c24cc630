"""Fluid-era image and activation ops that old models still hold: im2sequence (OCR's image to
sequence), lrn (AlexNet's local response normalisation) and soft_relu, as phi's / fluid's
CPU kernels compute them. No PIR Python API builds lrn or soft_relu; Paddle's old-IR
translator emits them for a fluid model (tools/paddle_oracle/reexamine_unbuildable.py)."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from ...runtime.registry import REGISTRY
from .eigen_packets import eigen_packet_log_input
from .operands import int_list


@REGISTRY.register("pd_op.im2sequence", since=1)
def im2sequence(x, y=None, *, kernels, strides=(1, 1), paddings=(0, 0, 0, 0),
                out_stride=(1, 1)):
    """Im2SequenceKernel: every kernel-sized patch of each image (paddings up, left, down,
    right) becomes one row, its values in (channel, kernel row, kernel column) order; the
    rows of image 0 come first, in output row-major order. The result's LoD (one sequence
    per image) is metadata only. With `y` (each image's real size) the patch grid differs
    per image, which this kernel does not model."""
    if y is not None:
        raise NotImplementedError("im2sequence with per-image sizes (input y) is not lowered")
    kh, kw = int_list(kernels)
    sh, sw = int_list(strides)
    up, left, down, right = int_list(paddings)
    xp = F.pad(x, (left, right, up, down))
    cols = F.unfold(xp, (kh, kw), stride=(sh, sw))          # [N, C*kh*kw, oh*ow]
    return cols.transpose(1, 2).reshape(-1, cols.shape[1])


@REGISTRY.register("pd_op.lrn", since=1)
def lrn(x, *, n=5, k=2.0, alpha=1e-4, beta=0.75, data_format="AnyLayout"):
    """LRNFunctor<CPU>: mid = k + alpha * (sum of x^2 over the n channels centred on c), the
    window summed as the kernel slides it (the first channel's window added square by
    square, each next channel from the previous one plus the entering square minus the
    leaving one, in that order); out = x * mid^-beta. Returns (out, mid)."""
    nhwc = data_format == "NHWC"
    if nhwc:
        x = x.permute(0, 3, 1, 2)
    N, C = x.shape[:2]
    pre = (n - 1) // 2
    sq = x * x
    pad = torch.zeros((N, C + n - 1) + tuple(x.shape[2:]), dtype=x.dtype, device=x.device)
    pad[:, pre:pre + C] = sq
    a = torch.tensor(alpha, dtype=x.dtype, device=x.device)
    mids = []
    m = torch.full_like(x[:, 0], k)
    for c in range(n):
        m = m + a * pad[:, c]
    mids.append(m)
    for c in range(1, C):
        m = mids[-1] + a * pad[:, c + n - 1]
        m = m + (-a) * pad[:, c - 1]
        mids.append(m)
    mid = torch.stack(mids, 1)
    out = x * torch.pow(mid, -beta)
    if nhwc:
        out, mid = out.permute(0, 2, 3, 1), mid.permute(0, 2, 3, 1)
    return out, mid


@REGISTRY.register("pd_op.soft_relu", since=1)
def soft_relu(x, *, threshold=40.0):
    """SoftReluFunctor: log(1 + exp(clip(x, -threshold, threshold))), in Eigen's packet
    math (a denormal argument of log is read as the smallest normal)."""
    t = torch.clamp(x, -threshold, threshold)
    return torch.log(eigen_packet_log_input(1 + torch.exp(t)))


# -- an old model's conditional blocks ----------------------------------------------------------
# A fluid `cond` runs one of two conditional blocks and joins them with select_input (and
# splits a value into them with select_output); the old-IR translator keeps both ops, with the
# mask first and two branches (PIR's own cond is pd_op.if).

@REGISTRY.register("pd_op.select_input", since=1)
def select_input(mask, *inputs):
    """SelectInputKernel: the input the mask (int32, one element) picks."""
    return inputs[int(mask.reshape(-1)[0])]


@REGISTRY.register("pd_op.select_output", since=1)
def select_output(mask, x):
    """SelectOutputKernel: x goes to the output the mask picks, of the translator's two; the
    other is left unset in Paddle (a fetch of it fails there) and is an empty tensor here."""
    pick = int(mask.reshape(-1)[0])
    empty = x.new_empty((0,))
    return tuple(x if i == pick else empty for i in range(2))
