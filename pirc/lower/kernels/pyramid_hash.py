"""pyramid_hash: hashed n-gram embeddings of LoD sequences of ids, as phi's CPU kernel
(cpu/pyramid_hash_kernel.cc) computes them at inference: every n-gram of 2 .. pyramid_layer
consecutive ids of a sequence (the ids as float32 bytes) is hashed with XXH32 into the flat
weight, rand_len values at a time; a sequence with none gives a zero row; the result is
scaled by drop_out_percent. Training (random drop-out with rand_r) and the bloom-filter
white / black lists are not lowered.
"""

from __future__ import annotations

import struct

import numpy as np
import torch

from ..lod import as_lod, lod_kernel, need_lod

NO_LOD = (None,) * 5
_M = 0xFFFFFFFF
_P1, _P2, _P3, _P4, _P5 = 2654435761, 2246822519, 3266489917, 668265263, 374761393


def _rotl(x: int, r: int) -> int:
    return ((x << r) | (x >> (32 - r))) & _M


def xxh32(data: bytes, seed: int) -> int:
    """XXH32 of `data` (little-endian words) with `seed`."""
    n, i, seed = len(data), 0, seed & _M
    if n >= 16:
        v = [(seed + _P1 + _P2) & _M, (seed + _P2) & _M, seed, (seed - _P1) & _M]
        while i + 16 <= n:
            for k in range(4):
                w = struct.unpack_from("<I", data, i + 4 * k)[0]
                v[k] = (_rotl((v[k] + w * _P2) & _M, 13) * _P1) & _M
            i += 16
        h = (_rotl(v[0], 1) + _rotl(v[1], 7) + _rotl(v[2], 12) + _rotl(v[3], 18)) & _M
    else:
        h = (seed + _P5) & _M
    h = (h + n) & _M
    while i + 4 <= n:
        w = struct.unpack_from("<I", data, i)[0]
        h = (_rotl((h + w * _P3) & _M, 17) * _P4) & _M
        i += 4
    while i < n:
        h = (_rotl((h + data[i] * _P5) & _M, 11) * _P1) & _M
        i += 1
    h ^= h >> 15
    h = (h * _P2) & _M
    h ^= h >> 13
    h = (h * _P3) & _M
    return h ^ (h >> 16)


@lod_kernel("pd_op.pyramid_hash")
def pyramid_hash(x, w, white_list, black_list, *, lods=NO_LOD, num_emb=0, space_len=0,
                 pyramid_layer=2, rand_len=0, drop_out_percent=0.0, is_training=0,
                 use_filter=True, white_list_len=0, black_list_len=0, seed=0, lr=0.0,
                 distribute_update_vars=""):
    """Returns (out [rows, num_emb], drop_pos (ones, one per n-gram), x as float); out's
    LoD: each sequence's rows (its n-grams, or one zero row)."""
    if is_training != 0:
        raise ValueError("pyramid_hash with is_training: its drop-out draws from rand_r, "
                         "which is not lowered")
    if use_filter and (white_list_len != 0 or black_list_len != 0):
        raise ValueError("pyramid_hash with a white / black list bloom filter is not lowered")
    offs = need_lod("pyramid_hash", "x", lods[0])[0]
    ids = x.detach().cpu().reshape(x.shape[0], -1)[:, 0].numpy().astype(np.float32)
    weights = w.detach().cpu().reshape(-1).numpy()
    rows, top, grams = [], [0], 0
    for s, e in zip(offs[:-1], offs[1:]):
        n = e - s
        count = 0
        for layer in range(1, min(pyramid_layer, n)):
            for start in range(n - layer):
                key = ids[s + start:s + start + layer + 1].tobytes()
                row = np.zeros(num_emb, weights.dtype)
                p1 = xxh32(key, 0) % space_len
                p2 = xxh32(key, rand_len) % space_len
                for j in range(0, num_emb, rand_len):
                    p3 = xxh32(key, j + 2 * rand_len) % space_len
                    row[j:j + rand_len] = weights[p1:p1 + rand_len][:num_emb - j]
                    p1, p2 = p2, p3
                rows.append(row)
                count += 1
        grams += count
        if count == 0:
            rows.append(np.zeros(num_emb, weights.dtype))
        top.append(len(rows))
    out = np.stack(rows) * weights.dtype.type(drop_out_percent)
    drop_pos = torch.ones((grams, 1), dtype=torch.int32)
    return ((torch.from_numpy(out.astype(weights.dtype)), drop_pos,
             torch.from_numpy(ids.reshape(-1, 1).copy())), (as_lod([top]), None, None))
