"""pd_op.weight_quantize: per-channel int8 / int4 quantisation of a [k, n] weight into the
layouts the CUTLASS weight-only GEMMs read, as phi/kernels/cpu/weight_quantize_kernel.cc and
impl/weight_quantize_kernel_impl.h compute it on the CPU.

scale[c] = max_r |w[r, c]| / bound (bound 127 for int8, 7 for int4), stored in w's dtype
(float32 for llm.int8); q = round-half-away(w / scale) clipped to +-bound. Then by algo and
arch:

- llm.int8: q transposed, [n, k];
- weight_only_int8 / int4, arch 75 / 80 / 86 / 89 / 90: rows permuted for the mixed GEMM's
  MMA tiles, transposed (int4: two values a byte, low nibble first), columns interleaved
  in 64-row tiles, then biased to unsigned (+128 / +8) and interleaved within each 32-bit
  register; [n, k] int8 bytes (int4: [n / 2, k]);
- arch 70: the row-major q, biased and register-interleaved.

Version split: Paddle 3.0 (PIR 1) rounds the float scale to float16 TOWARD ZERO (its
software float -> float16 conversion shifts the mantissa), Paddle 3.3 (PIR 4) to nearest; the
quantised values follow from the stored scale. The fixtures show it (the int8 scales differ in
the last bit), and those of 3.1.1 (toward zero) and 3.2.2 (to nearest) place the change at
PIR 3.
"""

from __future__ import annotations

import numpy as np
import torch

from ...runtime.registry import REGISTRY, Behaviour

_ARCHS = (70, 75, 80, 86, 89, 90)
_BITS = {"weight_only_int8": 8, "llm.int8": 8, "weight_only_int4": 4}


def _f16_toward_zero(x: np.ndarray) -> np.ndarray:
    """float32 -> float16 as Paddle 3.0's software conversion: the mantissa truncated, and
    anything above float16's largest finite value (65504) is inf."""
    h = x.astype(np.float16)
    over = np.abs(h.astype(np.float32)) > np.abs(x)
    h = np.where(over, np.nextafter(h, np.float16(0)), h)
    return np.where(np.abs(x) > 65504, np.copysign(np.float16(np.inf), x), h).astype(np.float16)


def _round_away(x: np.ndarray) -> np.ndarray:
    # C's round(): halves away from zero (x - trunc(x) is exact in float32)
    t = np.trunc(x)
    return t + np.where(np.abs(x - t) >= 0.5, np.sign(x), 0).astype(x.dtype)


def _quantise(w: np.ndarray, scale: np.ndarray, bits: int) -> np.ndarray:
    """q = clip(round(w / scale)) per column, as int8 codes [k, n] (int4: [-7, 7])."""
    with np.errstate(divide="ignore", invalid="ignore"):
        r = _round_away(w / scale.astype(np.float32))
    if bits == 8:
        # std::max(-127.f, std::min(127.f, r)): a NaN (0 / 0) comes out as 127
        r = np.where(r < 127, r, np.float32(127))
        r = np.where(np.float32(-127) < r, r, np.float32(-127))
        return r.astype(np.int8)
    # static_cast<int>(NaN) is INT_MIN on x86, which the clamp turns into -7
    r = np.where(np.isnan(r), np.float32(-7), r)
    return np.clip(r, -7, 7).astype(np.int8)


def _pack_int4(q: np.ndarray) -> np.ndarray:
    """[k, n] int4 codes -> [k, n / 2] bytes, column 2j in the low nibble."""
    lo, hi = q[:, 0::2].astype(np.uint8) & 0xF, q[:, 1::2].astype(np.uint8) & 0xF
    return (lo | (hi << 4)).astype(np.uint8)


def _permute_rows(b: np.ndarray, bits: int) -> np.ndarray:
    """permute_B_rows_for_mixed_gemm on the [k, bytes] matrix (whole 32-bit words move)."""
    rows_per_mma = 8 * (16 // bits)
    per_reg = 32 // bits
    t = np.arange(rows_per_mma)
    tile_read = 8 * ((t % per_reg) // 2) + t % 2 + 2 * (t // per_reg)
    r = np.arange(b.shape[0])
    return b[r - r % rows_per_mma + tile_read[r % rows_per_mma]]


def _transpose(b: np.ndarray, bits: int, k: int, n: int) -> np.ndarray:
    """subbyte_transpose_impl: the [k, n] code matrix as [n, k] (int4 repacked, low nibble
    first)."""
    if bits == 8:
        return np.ascontiguousarray(b.T)
    codes = np.empty((k, n), np.uint8)
    codes[:, 0::2], codes[:, 1::2] = b & 0xF, b >> 4
    t = codes.T
    return (t[:, 0::2] | (t[:, 1::2] << 4)).astype(np.uint8)


def _interleave_columns(b: np.ndarray, bits: int, k: int, n: int) -> np.ndarray:
    """interleave_column_major_tensor: 32-bit words of the [n, k] matrix, 64-row tiles of
    `interleave` columns side by side."""
    words = b.reshape(-1).view(np.uint32).reshape(n, -1)
    vec_rows = words.shape[1]
    per_tile = 64 // (32 // bits)
    interleave = 128 * 8 // bits // 64
    c = np.arange(n)[:, None]
    r = np.arange(vec_rows)[None, :]
    write_row = interleave * (r - r % per_tile) + per_tile * (c % interleave) + r % per_tile
    write = (c // interleave) * vec_rows * interleave + write_row
    out = np.empty(n * vec_rows, np.uint32)
    out[write.reshape(-1)] = words.reshape(-1)
    return out.view(np.uint8)


def _bias_and_interleave(b: np.ndarray, bits: int) -> np.ndarray:
    """add_bias_and_interleave_inplace on the flat bytes."""
    b = b.reshape(-1).copy()
    if bits == 8:
        b = (b.astype(np.int16) + 128).astype(np.uint8)  # int8 + 128, wrapped
        groups = b.reshape(-1, 4)
        groups[:, [1, 2]] = groups[:, [2, 1]]
        return groups.reshape(-1)
    signed = b.view(np.int8).astype(np.int16)
    first = ((signed << 4).astype(np.int8).astype(np.int16) >> 4) + 8
    second = (signed >> 4) + 8
    b = ((first & 0xF) | ((second & 0xF) << 4)).astype(np.uint8)
    words = b.view(np.uint32)
    out = np.zeros_like(words)
    for dest in range(8):
        src = 2 * dest if dest < 4 else 2 * (dest - 4) + 1
        out |= ((words >> np.uint32(4 * src)) & np.uint32(0xF)) << np.uint32(4 * dest)
    return out.view(np.uint8)


def _weight_quantize(x, algo, arch, group_size, to_half):
    bits = _BITS.get(algo)
    if bits is None:
        raise ValueError(f"weight_quantize: algo must be weight_only_int8, weight_only_int4 "
                         f"or llm.int8, got {algo!r}")
    if int(arch) not in _ARCHS:
        raise ValueError(f"weight_quantize: arch must be one of {list(_ARCHS)} (Paddle's CPU "
                         f"kernel has no layout for arch {arch}), got {arch}")
    if int(group_size) != -1:
        raise NotImplementedError("weight_quantize: group-wise scales (group_size != -1) are "
                                  "not lowered; pirc implements the per-channel form")
    if x.dtype not in (torch.float16, torch.bfloat16):
        raise ValueError(f"weight_quantize: x must be float16 or bfloat16, got {x.dtype}")
    if x.dim() != 2:
        raise ValueError(f"weight_quantize: x must be 2-D, got shape {list(x.shape)}")
    k, n = x.shape
    if algo != "llm.int8" and (k % 64 or n % 32):
        # the tile loops of the layout read past the tensor for other shapes
        raise ValueError(f"weight_quantize: the mixed-GEMM layout needs rows % 64 == 0 and "
                         f"columns % 32 == 0, got {[k, n]}")
    w = x.to(torch.float32).numpy()
    top = np.maximum(w[0], np.abs(w).max(0))  # the kernel starts its max at w[0, c]
    bound = np.float32(127 if bits == 8 else 7)
    s32 = top / bound
    if algo == "llm.int8":
        scale = torch.from_numpy(s32.astype(np.float32))
        s_used = s32
    else:
        scale = to_half(s32, x.dtype)
        s_used = scale.to(torch.float32).numpy()
    q = _quantise(w, s_used, bits)
    if algo == "llm.int8":
        return torch.from_numpy(np.ascontiguousarray(q.T)), scale
    b = q.view(np.uint8) if bits == 8 else _pack_int4(q)
    if int(arch) == 70:
        out = _bias_and_interleave(b, bits)
    else:
        b = _permute_rows(np.ascontiguousarray(b), bits)
        b = _transpose(b, bits, k, n)
        b = _interleave_columns(b, bits, k, n)
        out = _bias_and_interleave(b, bits)
    rows = n if bits == 8 else n // 2
    return torch.from_numpy(out.view(np.int8).reshape(rows, k).copy()), scale


def _half_toward_zero(s32, dtype):
    if dtype == torch.float16:
        return torch.from_numpy(_f16_toward_zero(s32))
    return torch.from_numpy(s32).to(dtype)


def _half_nearest(s32, dtype):
    return torch.from_numpy(s32).to(dtype)


@REGISTRY.register("pd_op.weight_quantize", since=1, until=3, flags=Behaviour(
    notes="float16 scale rounded toward zero (Paddle 3.0's software float16 conversion)"))
def weight_quantize_v1(x, *, algo="weight_only_int8", arch=80, group_size=-1):
    return _weight_quantize(x, algo, arch, group_size, _half_toward_zero)


@REGISTRY.register("pd_op.weight_quantize", since=3, flags=Behaviour(
    notes="float16 scale rounded to nearest (Paddle 3.3)"))
def weight_quantize(x, *, algo="weight_only_int8", arch=80, group_size=-1):
    return _weight_quantize(x, algo, arch, group_size, _half_nearest)
