"""Interpolation: linear, bilinear, trilinear, nearest and bicubic *_interp ops.

Paddle's index and weight rules differ from torch's F.interpolate (align_mode=1 maps
dst -> ratio*dst with no half-pixel offset; the ratio is 1/scale when a scale is given,
not in/out), so the source indices and weights are computed here, at trace time, with
the same float32/double mix phi's CPU kernels use, and the output is a weighted sum of
gathered inputs in Paddle's term order.
"""

from __future__ import annotations

import functools

import numpy as np
import torch

from ...runtime.registry import REGISTRY, Behaviour
from .operands import c_int_cast, int_list

F32 = np.float32


def _channels_first(x, data_format):
    if data_format in ("NHWC", "NDHWC", "NWC"):
        return x.permute(0, x.dim() - 1, *range(1, x.dim() - 1)), True
    return x, False


def _out_sizes(in_sizes, out_size, size_tensor, scale_tensor, scale, attr_sizes):
    """(output sizes, scales) by phi's priority: size_tensor, then out_size over scale."""
    spatial = len(in_sizes)
    scales = [-1.0] * spatial
    if size_tensor:
        return int_list(size_tensor), scales
    outs = list(attr_sizes)
    given = None
    if scale_tensor is not None:
        values = [float(v) for v in scale_tensor.reshape(-1).tolist()]
        scales, given = (values if len(values) > 1 else values * spatial), "input 'Scale' Tensor"
    elif len(scale) >= spatial:
        scales, given = [float(s) for s in scale[:spatial]], "Attr(scale)"
    bad = [s for s in scales if not s > 0]
    if given and bad:  # phi enforces every given scale > 0 (NaN included) before out_size
        raise ValueError(f"interpolate: the scale in {given} should be greater than 0, but "
                         f"received value is {bad[0]} (Paddle's InvalidArgument)")
    if given:
        # phi: static_cast<int>(in * scale) with a float (v1) or double (v4) scale; an
        # infinite or huge product is int's minimum on x86, refused below as Paddle does
        # (a symbolic size under torch.export stays symbolic: int() of it)
        outs = [c_int_cast(i * s, torch.int32) if isinstance(i * s, float) else int(i * s)
                for i, s in zip(in_sizes, scales)]
        if out_size is None and all(isinstance(o, int) for o in outs) and min(outs) <= 0:
            raise ValueError(f"interpolate: scales {scales} of input sizes {list(in_sizes)} "
                             f"give output sizes {outs}; out_h in Attr(out_shape) of "
                             f"Op(interpolate) should be greater than 0 (Paddle's "
                             f"InvalidArgument)")
    if out_size is not None:
        outs = int_list(out_size)
    return outs, scales


def _i32(v) -> int:
    """static_cast<int> on x86: a scale so small that 1 / scale is inf makes inf and NaN
    source positions, whose cast is INT_MIN (Python's int() raises)."""
    return c_int_cast(float(v), torch.int32)


def _ratio(in_size, out_size, scale, align_corners):
    if out_size <= 1:
        return F32(0.0)
    if align_corners:
        return F32(in_size - 1) / F32(out_size - 1)
    return F32(1.0 / scale) if scale > 0 else F32(in_size) / F32(out_size)


def _half_pixel(ratio, k, precision):
    """ratio * (k + 0.5) - 0.5 in the precision the Paddle release evaluates it."""
    if precision == "float":
        return float(ratio * F32(k + 0.5) - F32(0.5))
    return float(ratio) * (k + 0.5) - 0.5


def _linear_taps(in_size, out_size, ratio, align_corners, align_mode, precision):
    """Per output index: (low index, high index, weight of high, weight of low)."""
    align_flag = align_mode == 0 and not align_corners
    lo, hi, w_hi, w_lo = [], [], [], []
    for k in range(out_size):
        half = _half_pixel(ratio, k, precision)
        n = _i32(half) if align_flag else _i32(ratio * F32(k))
        n = max(n, 0)
        s = min(n + 1, in_size - 1)
        src = max(F32(half), F32(0.0))
        d = (src - F32(n)) if align_flag else (ratio * F32(k) - F32(n))
        lo.append(n)
        hi.append(s)
        w_hi.append(F32(d))
        w_lo.append(F32(1.0) - F32(d))
    return lo, hi, w_hi, w_lo


def _gather(x, dim, index):
    return x.index_select(dim, torch.tensor(index, dtype=torch.int64, device=x.device))


def _weights(values, dim, rank, dtype, device):
    shape = [1] * rank
    shape[dim] = -1
    return torch.tensor(np.array(values, dtype=F32), device=device).to(dtype).reshape(shape)


def _linear(x, outs, scales, align_corners, align_mode, precision):
    rank = x.dim()
    spatial = rank - 2
    taps = []
    for i in range(spatial):
        in_size = x.shape[2 + i]
        ratio = _ratio(in_size, outs[i], scales[i], align_corners)
        lo, hi, w_hi, w_lo = _linear_taps(in_size, outs[i], ratio, align_corners, align_mode,
                                              precision[i])
        dim = 2 + i
        taps.append(((lo, _weights(w_lo, dim, rank, x.dtype, x.device)),
                     (hi, _weights(w_hi, dim, rank, x.dtype, x.device))))
    # phi's term order: trilinear varies the last dim fastest, bilinear the first (h).
    out = None
    for corner in range(2 ** spatial):
        if spatial == 2:
            bits = [corner & 1, corner >> 1]
        else:
            bits = [(corner >> (spatial - 1 - i)) & 1 for i in range(spatial)]
        picked = x
        for i, b in enumerate(bits):
            picked = _gather(picked, 2 + i, taps[i][b][0])
        term = picked
        for i, b in enumerate(bits):
            term = term * taps[i][b][1]
        out = term if out is None else out + term
    return out


def _nearest(x, outs, scales, align_corners):
    out = x
    for i, size in enumerate(outs):
        key = (x.shape[2 + i], size, scales[i], align_corners)
        try:
            index = _nearest_index(*key)
        except TypeError:   # an unhashable (symbolic, traced) size: worked out afresh
            index = _nearest_index.__wrapped__(*key)
        out = out.index_select(2 + i, index.to(x.device))
    return out


@functools.lru_cache(maxsize=256)
def _nearest_index(in_size, size, scale, align_corners):
    """The source cell of each of `size` output cells (a CPU int64 tensor, never written to):
    the same few sizes come back call after call, and the per-cell float32 scalar arithmetic
    costs more than the gather it feeds."""
    ratio = _ratio(in_size, size, scale, align_corners)
    if align_corners:
        index = [_i32(float(ratio * F32(k)) + 0.5) for k in range(size)]
    else:
        index = [_i32(ratio * F32(k)) for k in range(size)]
    return torch.tensor([min(j, in_size - 1) for j in index], dtype=torch.int64)


def _cubic_coefficients(t):
    a = F32(-0.75)

    def conv1(v):
        return ((a + F32(2)) * v - (a + F32(3))) * v * v + F32(1)

    def conv2(v):
        return ((a * v - F32(5) * a) * v + F32(8) * a) * v - F32(4) * a

    x2 = F32(1.0 - float(t))
    return [conv2(F32(float(t) + 1.0)), conv1(t), conv1(x2), conv2(F32(float(x2) + 1.0))]


def _cubic_taps(in_size, out_size, ratio, align_corners):
    index = [[] for _ in range(4)]
    coeff = [[] for _ in range(4)]
    for k in range(out_size):
        src = ratio * F32(k) if align_corners else F32(float(ratio) * (k + 0.5) - 0.5)
        base = _i32(np.floor(src))
        t = F32(src - F32(base))
        for j, c in enumerate(_cubic_coefficients(t)):
            index[j].append(max(min(base - 1 + j, in_size - 1), 0))
            coeff[j].append(c)
    return index, coeff


def _bicubic(x, outs, scales, align_corners):
    rank = x.dim()
    (h_idx, h_c), (w_idx, w_c) = [
        _cubic_taps(x.shape[2 + i], outs[i], _ratio(x.shape[2 + i], outs[i], scales[i], align_corners),
                    align_corners) for i in range(2)]
    out = None
    for ii in range(4):  # each of the four rows is interpolated along w first, then the rows
        rows = _gather(x, 2, h_idx[ii])
        row = None
        for jj in range(4):
            term = _gather(rows, 3, w_idx[jj]) * _weights(w_c[jj], 3, rank, x.dtype, x.device)
            row = term if row is None else row + term
        term = row * _weights(h_c[ii], 2, rank, x.dtype, x.device)
        out = term if out is None else out + term
    return out


def interpolate(method, x, out_size, size_tensor, scale_tensor, *, data_format, out_d, out_h,
                out_w, scale, align_corners, align_mode, precision=None):
    """`precision`: per spatial dim, "float" or "double" for the half-pixel source index."""
    x, channels_last = _channels_first(x, data_format)
    in_sizes = list(x.shape[2:])
    attr_sizes = {1: [out_w], 2: [out_h, out_w], 3: [out_d, out_h, out_w]}[len(in_sizes)]
    outs, scales = _out_sizes(in_sizes, out_size, size_tensor, scale_tensor, list(scale or ()),
                              attr_sizes)
    precision = precision or ("float",) * len(in_sizes)
    if outs == in_sizes:
        out = x.clone()  # phi copies the input when the size does not change
    elif method == "nearest":
        out = _nearest(x, outs, scales, align_corners)
    elif method == "bicubic":
        out = _bicubic(x, outs, scales, align_corners)
    else:
        out = _linear(x, outs, scales, align_corners, align_mode, precision)
    if channels_last:
        out = out.permute(0, *range(2, out.dim()), 1)
    return out


def _register(op, method, since=1, until=None, precision=None, flags=None):
    # scale is array<float> before PIR version 4 and array<double> from 4: one meaning.
    @REGISTRY.register(op, since=since, until=until, flags=flags)
    def kernel(x, out_size=None, size_tensor=None, scale_tensor=None, *, data_format="NCHW",
               out_d=0, out_h=0, out_w=0, scale=(), interp_method=method, align_corners=True,
               align_mode=1):
        return interpolate(method, x, out_size, size_tensor, scale_tensor,
                           data_format=data_format, out_d=out_d, out_h=out_h, out_w=out_w,
                           scale=scale, align_corners=align_corners, align_mode=align_mode,
                           precision=precision)

    suffix = f"_v{since}" if until is not None else ""
    kernel.__name__ = kernel.__qualname__ = op.split(".")[1] + suffix
    return kernel


# Paddle 3.3 (PIR version 4) evaluates the half-pixel source index ratio*(k+0.5)-0.5 in
# double for linear_interp's w and bilinear_interp's h (w stays float); 3.0-3.2 use float
# throughout and trilinear stays float.  Found by matching the 3.0.0/3.1.1/3.2.2/3.3.1
# wheels bit for bit (tests/fixtures/patchops/*/{linear,bilinear}_interp, kernel_cases).
_FLOAT_INDEX = Behaviour(notes="half-pixel source index computed in float32")
_DOUBLE_INDEX = Behaviour(notes="half-pixel source index in double (linear w, bilinear h)")
linear_interp_v1 = _register("pd_op.linear_interp", "linear", 1, 4, ("float",), _FLOAT_INDEX)
linear_interp = _register("pd_op.linear_interp", "linear", 4, None, ("double",), _DOUBLE_INDEX)
bilinear_interp_v1 = _register("pd_op.bilinear_interp", "bilinear", 1, 4, ("float", "float"),
                               _FLOAT_INDEX)
bilinear_interp = _register("pd_op.bilinear_interp", "bilinear", 4, None, ("double", "float"),
                            _DOUBLE_INDEX)
trilinear_interp = _register("pd_op.trilinear_interp", "trilinear")
nearest_interp = _register("pd_op.nearest_interp", "nearest")
bicubic_interp = _register("pd_op.bicubic_interp", "bicubic")
