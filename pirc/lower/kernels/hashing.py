"""pd_op.hash: XXH64 of each row's bytes, as phi/kernels/impl/hash_kernel_impl.h computes it.

For every row of x (the leading dim; a row is the last dim's elements) and every i <
num_hash, out[row, i, 0] = XXH64(row's bytes, seed=i) % mod_by, in x's dtype. XXH64 (the
xxHash library Paddle links) is written here over numpy uint64 lanes, vectorised across rows:
every row has the same byte length, so every row takes the same steps.
"""

from __future__ import annotations

import numpy as np
import torch

from ...runtime.registry import REGISTRY

_P1 = np.uint64(11400714785074694791)
_P2 = np.uint64(14029467366897019727)
_P3 = np.uint64(1609587929392839161)
_P4 = np.uint64(9650029242287828579)
_P5 = np.uint64(2870177450012600261)


def _rotl(x, r: int):
    return (x << np.uint64(r)) | (x >> np.uint64(64 - r))


def _round(acc, lane):
    return _rotl(acc + lane * _P2, 31) * _P1


def _merge(h, v):
    return (h ^ _round(np.uint64(0), v)) * _P1 + _P4


def xxh64(data: np.ndarray, seed: int) -> np.ndarray:
    """XXH64 of each row of `data` (a [rows, nbytes] uint8 array): a [rows] uint64 array."""
    rows, n = data.shape
    data = np.ascontiguousarray(data)
    seed = np.uint64(seed)

    def lanes64(off, count):
        return data[:, off:off + 8 * count].copy().view("<u8").astype(np.uint64)

    with np.errstate(over="ignore"):
        pos = 0
        if n >= 32:
            v = [np.full(rows, seed + _P1 + _P2, np.uint64), np.full(rows, seed + _P2, np.uint64),
                 np.full(rows, seed, np.uint64), np.full(rows, seed - _P1, np.uint64)]
            while pos + 32 <= n:
                lane = lanes64(pos, 4)
                v = [_round(v[i], lane[:, i]) for i in range(4)]
                pos += 32
            h = _rotl(v[0], 1) + _rotl(v[1], 7) + _rotl(v[2], 12) + _rotl(v[3], 18)
            for vi in v:
                h = _merge(h, vi)
        else:
            h = np.full(rows, seed + _P5, np.uint64)
        h = h + np.uint64(n)
        while pos + 8 <= n:
            h = _rotl(h ^ _round(np.uint64(0), lanes64(pos, 1)[:, 0]), 27) * _P1 + _P4
            pos += 8
        if pos + 4 <= n:
            k = data[:, pos:pos + 4].copy().view("<u4")[:, 0].astype(np.uint64)
            h = _rotl(h ^ (k * _P1), 23) * _P2 + _P3
            pos += 4
        while pos < n:
            h = _rotl(h ^ (data[:, pos].astype(np.uint64) * _P5), 11) * _P1
            pos += 1
        h ^= h >> np.uint64(33)
        h *= _P2
        h ^= h >> np.uint64(29)
        h *= _P3
        h ^= h >> np.uint64(32)
    return h


@REGISTRY.register("pd_op.hash", since=1)
def hash_(x, *, num_hash=1, mod_by=100000, runtime_shape=True):
    if x.dtype not in (torch.int32, torch.int64):
        raise ValueError(f"hash: x must be int32 or int64 (Paddle's CPU kernel), got {x.dtype}")
    if x.dim() != 2:
        # the kernel hashes x.shape[0] rows of x.shape[-1] elements into an output of
        # x.shape[:-1] + [num_hash, 1]: for another rank most of that output is never written
        raise ValueError(f"hash: x must be 2-D [rows, row length], got shape {list(x.shape)}")
    mod = int(mod_by)
    if mod <= 0:
        raise ValueError(f"hash: mod_by must be positive, got {mod}")
    rows = x.contiguous().numpy().view(np.uint8).reshape(x.shape[0], -1)
    # uint64 % int64 in C++ is an unsigned modulo; the result fits mod_by, then x's type
    # takes it (truncating to 32 bits for int32 with a mod_by over 2**31, as C++ does)
    cols = [xxh64(rows, i) % np.uint64(mod) for i in range(int(num_hash))]
    out = np.stack(cols, 1) if cols else np.zeros((x.shape[0], 0), np.uint64)
    out = out.astype(np.int64).astype(x.numpy().dtype)
    return torch.from_numpy(out.reshape(x.shape[0], int(num_hash), 1))
