"""Vision layers that move or resample pixels: pixel_shuffle, pixel_unshuffle, channel_shuffle,
shuffle_channel, temporal_shift, unfold, fold, affine_grid, grid_sample.

The rearrangements are exact data movement.  Paddle's channels-last variants reshape the
trailing channel dim in the same order as the channels-first ones, so they run here through a
permute to channels-first and back.  unfold / fold take Paddle's four paddings [top, left,
bottom, right]; torch's im2col / col2im take symmetric ones, so the input is padded (unfold)
or the folded canvas cut (fold) here.  affine_grid builds Paddle's base grid (its Linspace,
in the input's dtype) and multiplies it by theta as Paddle's GEMM does.
"""

from __future__ import annotations

import functools

import numpy as np
import torch
import torch.nn.functional as F

from ...runtime.registry import REGISTRY
from .operands import int_list


def _first(x, channels_last):
    return x.permute(0, x.dim() - 1, *range(1, x.dim() - 1)) if channels_last else x


def _last(x, channels_last):
    return x.permute(0, *range(2, x.dim()), 1) if channels_last else x


@REGISTRY.register("pd_op.pixel_shuffle", since=1)
def pixel_shuffle(x, *, upscale_factor=1, data_format="NCHW"):
    last = data_format == "NHWC"
    return _last(F.pixel_shuffle(_first(x, last), upscale_factor), last)


@REGISTRY.register("pd_op.pixel_unshuffle", since=1)
def pixel_unshuffle(x, *, downscale_factor=1, data_format="NCHW"):
    last = data_format == "NHWC"
    return _last(F.pixel_unshuffle(_first(x, last), downscale_factor), last)


def _channel_shuffle(x, groups):
    n, c = x.shape[:2]
    return x.reshape(n, groups, c // groups, *x.shape[2:]).transpose(1, 2).reshape(x.shape)


@REGISTRY.register("pd_op.channel_shuffle", since=1)
def channel_shuffle(x, *, groups=1, data_format="NCHW"):
    last = data_format == "NHWC"
    return _last(_channel_shuffle(_first(x, last), groups), last)


@REGISTRY.register("pd_op.shuffle_channel", since=1)
def shuffle_channel(x, *, group=1):
    """channel_shuffle on NCHW, but phi's ShuffleChannelKernel copies each channel's block
    with memcpy(sizeof(int) * H * W): for an 8-byte dtype only the first half of the block's
    bytes move, the rest of the fresh output holds zeros (as the fixtures show)."""
    out = _channel_shuffle(x, group)
    if x.element_size() != 8:
        return out
    cells = int(np.prod(x.shape[2:]))
    full, half = cells // 2, cells % 2  # whole elements copied; an odd last one by 4 bytes
    pos = torch.arange(cells, device=x.device).reshape(x.shape[2:])
    bits = out.view(torch.int64)
    kept = torch.where(pos < full, bits, torch.zeros_like(bits))
    if half:
        kept = torch.where(pos == full, bits & 0xFFFFFFFF, kept)
    return kept.view(x.dtype)


@REGISTRY.register("pd_op.temporal_shift", since=1)
def temporal_shift(x, *, seg_num=1, shift_ratio=0.25, data_format="NCHW"):
    """phi TemporalShiftKernel: over [N*T, C, H, W] seen as [N, T, C, H, W], channels below
    c1 = int(C * ratio) take frame t - 1, those below c2 = int(C * 2 * ratio) frame t + 1
    (float32 products), the rest stay; frames outside [0, T) give zeros."""
    if not 0 < shift_ratio < 0.5:  # TemporalShiftInferMeta (NaN fails it too)
        raise ValueError(f"temporal_shift: Attr(shift_ratio) should be greater than 0 and "
                         f"less than 0.5, but received {shift_ratio} (Paddle's "
                         f"InvalidArgument)")
    last = data_format == "NHWC"
    x = _first(x, last)
    nt, c = x.shape[:2]
    ratio = np.float32(shift_ratio)
    c1, c2 = int(np.float32(c) * ratio), int(np.float32(c * 2) * ratio)
    v = x.reshape(nt // seg_num, seg_num, c, *x.shape[2:])
    pad = F.pad(v, [0, 0] * (v.dim() - 2) + [1, 1])  # a zero frame before and after
    out = torch.cat([pad[:, :seg_num, :c1], pad[:, 2:, c1:c2], v[:, :, c2:]], 2)
    return _last(out.reshape(x.shape), last)


@REGISTRY.register("pd_op.unfold", since=1)
def unfold(x, *, kernel_sizes=(), strides=(), paddings=(), dilations=()):
    top, left, bottom, right = [int(p) for p in paddings]
    xp = F.pad(x, [left, right, top, bottom])
    return F.unfold(xp, list(kernel_sizes), list(dilations), 0, list(strides))


@REGISTRY.register("pd_op.fold", since=1)
def fold(x, *, output_sizes=(), kernel_sizes=(), strides=(), paddings=(), dilations=()):
    top, left, bottom, right = [int(p) for p in paddings]
    h, w = [int(s) for s in output_sizes]
    canvas = F.fold(x, [h + top + bottom, w + left + right], list(kernel_sizes),
                    list(dilations), 0, list(strides))
    return canvas[:, :, top:top + h, left:left + w]


def _linspace(count, align_corners, dtype):
    """phi funcs::Linspace(-1, 1, count): start + i * slice, in the kernel's dtype."""
    t = np.dtype(dtype).type
    start, end = t(-1), t(1)
    with np.errstate(divide="ignore", invalid="ignore"):
        step = (end - start) / t(count - 1)
        if not align_corners:
            step = (end - start) / t(count)
            start = start * (t(count - 1) / t(count))
        return np.array([start + t(i) * step for i in range(count)], dtype)


@REGISTRY.register("pd_op.affine_grid", since=1)
def affine_grid(input, output_shape=None, *, align_corners=True):  # noqa: A002
    """Base grid [..., x, y, (z,) 1] of Paddle's linspaces times theta^T, per sample."""
    shape = int_list(output_shape)
    dtype = np.float64 if input.dtype == torch.float64 else np.float32
    n = shape[0]
    spatial = shape[2:]  # (H, W) or (D, H, W)
    axes = [_linspace(s, align_corners, dtype) for s in spatial]
    mesh = np.meshgrid(*axes, indexing="ij")   # D, H, W order
    cols = [mesh[-1], mesh[-2]] + ([mesh[0]] if len(spatial) == 3 else [])  # x, y, (z)
    base = np.stack(cols + [np.ones_like(mesh[0])], -1).reshape(-1, len(spatial) + 1)
    base_t = torch.as_tensor(base, device=input.device)
    out = torch.matmul(base_t, input.transpose(1, 2))
    return out.reshape(n, *spatial, len(spatial))


@REGISTRY.register("pd_op.grid_sample", since=1)
def grid_sample(x, grid, *, mode="bilinear", padding_mode="zeros", align_corners=True):
    # torch's grid_sample has Paddle's coordinate rules (unnormalisation, border clamping,
    # reflection) and its zero padding; the bilinear weights round in another order.
    return F.grid_sample(x, grid, mode, padding_mode, align_corners)


def _bilinear_zero(img, hw, inside):
    """phi DmcnIm2colBilinear at the points `inside` (-1 < h < H and -1 < w < W): the four
    neighbours (zero outside the map) weighted hh*hw, hh*lw, lh*hw, lh*lw and summed in that
    order.  img (N, G, C, H, W) with G deformable groups; hw (N, G, K, 2, Ho, Wo) the points'
    h and w, inside (N, G, K, Ho, Wo), shared by the group's C channels.  Returns
    (N, G, C, K, Ho, Wo); a point not inside is left to the caller (its value is whatever the
    clamped corners give).

    The corners are read from the map with a one-pixel zero border, so a corner just outside
    the map reads an exact 0 without a per-corner mask; the indices and weights are worked out
    once per group instead of once per channel, h and w in the same ops; per sample and group
    one index_select reads all four corners of every channel, and the weights broadcast along
    the leading channel dim."""
    n, g, c, height, width = img.shape
    hw = torch.where(inside.unsqueeze(3), hw, torch.zeros_like(hw))   # indices in range
    low = torch.floor(hw)
    frac = hw - low
    high = 1 - frac
    lh, lw, hh, hw_ = frac[:, :, :, 0], frac[:, :, :, 1], high[:, :, :, 0], high[:, :, :, 1]
    pw = width + 2
    cell = low.to(torch.int64) + 1                                     # (hl, wl) in the border map
    top = cell[:, :, :, 0] * pw + cell[:, :, :, 1]
    corners = torch.tensor([0, 1, pw, pw + 1], dtype=torch.int64, device=img.device)
    idx = top.unsqueeze(2) + corners.reshape(1, 1, 4, 1, 1, 1)         # (n, g, 4, k, ho, wo)
    pad = F.pad(img, (1, 1, 1, 1)).reshape(n * g, c, (height + 2) * pw)
    idx = idx.reshape(n * g, -1)
    v = torch.stack([pad[i].index_select(1, idx[i]) for i in range(n * g)])
    v = v.reshape((n, g, c, 4) + tuple(top.shape[2:]))
    wts = [t.unsqueeze(2) for t in (hh * hw_, hh * lw, lh * hw_, lh * lw)]
    return wts[0] * v[:, :, :, 0] + wts[1] * v[:, :, :, 1] + wts[2] * v[:, :, :, 2] \
        + wts[3] * v[:, :, :, 3]


@functools.lru_cache(maxsize=64)
def _deformable_grid(ho, wo, kh, kw, sh, sw, ph, pw, dh, dw, dtype):
    """Each output cell's kernel taps before the offsets, p0 + p_k, h and w stacked
    (1, 1, k, 2, ho, wo) (a CPU tensor, never written to): the same for every call of a
    layer, a dozen small ops to build."""
    k = kh * kw
    base_h = (torch.arange(ho, dtype=dtype) * sh - ph).reshape(1, 1, 1, ho, 1)
    base_w = (torch.arange(wo, dtype=dtype) * sw - pw).reshape(1, 1, 1, 1, wo)
    ki = torch.arange(kh, dtype=dtype).repeat_interleave(kw).reshape(1, 1, k, 1, 1) * dh
    kj = torch.arange(kw, dtype=dtype).repeat(kh).reshape(1, 1, k, 1, 1) * dw
    return torch.stack(torch.broadcast_tensors(base_h + ki, base_w + kj), 3)


@REGISTRY.register("pd_op.deformable_conv", since=1)
def deformable_conv(x, offset, filter, mask=None, *, strides=(1, 1), paddings=(0, 0),  # noqa: A002
                    dilations=(1, 1), deformable_groups=1, groups=1, im2col_step=64):
    """phi DeformableConvKernel: columns sampled at p0 + p_k + offset (zero unless
    -1 < h < H and -1 < w < W), times the mask (v2), then the grouped GEMM with the filter."""
    n, c, height, width = x.shape
    cout, _, kh, kw = filter.shape
    sh, sw = int(strides[0]), int(strides[1])
    ph, pw = int(paddings[0]), int(paddings[1])
    dh, dw = int(dilations[0]), int(dilations[1])
    ho, wo = offset.shape[2], offset.shape[3]
    k = kh * kw
    dg = deformable_groups
    key = (ho, wo, kh, kw, sh, sw, ph, pw, dh, dw, x.dtype)
    try:
        grid = _deformable_grid(*key)
    except TypeError:   # an unhashable (symbolic, traced) size: worked out afresh
        grid = _deformable_grid.__wrapped__(*key)
    hw = grid + offset.reshape(n, dg, k, 2, ho, wo)          # (n, dg, k, 2, ho, wo): h, w
    limit = torch.tensor([height, width], dtype=x.dtype).reshape(1, 1, 1, 2, 1, 1)
    inside = ((hw > -1) & (hw < limit)).all(3)              # (n, dg, k, ho, wo)
    per = c // dg
    val = _bilinear_zero(x.reshape(n, dg, per, height, width), hw, inside)
    val = torch.where(inside.unsqueeze(2), val, torch.zeros_like(val))   # (n, dg, per, k, ho, wo)
    if mask is not None:
        val = val * mask.reshape(n, dg, 1, k, ho, wo)
    cols = val.reshape(n, groups, (c // groups) * k, ho * wo)
    wmat = filter.reshape(groups, cout // groups, (c // groups) * k)
    out = torch.matmul(wmat.unsqueeze(0), cols)    # (n, groups, cout/g, ho*wo)
    return out.reshape(n, cout, ho, wo)
