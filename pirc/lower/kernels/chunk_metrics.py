"""pd_op.chunk_eval: precision, recall and F1 of the chunks (named-entity spans) a tagger
found, as phi/kernels/impl/chunk_eval_kernel_impl.h counts them.

A label is type * num_tag_types + tag (tags by scheme: IOB = B, I; IOE = I, E; IOBES = B,
I, E, S; plain = one tag), type num_chunk_types being "outside". Chunks are read from each
padded row's first seq_length[i] labels; a found chunk is correct when a label chunk has the
same begin, end and type. Types in excluded_chunk_types are not counted. The ratios are
float32 as Paddle computes them (0 where the divisor count is 0).
"""

from __future__ import annotations

import numpy as np
import torch

from ...runtime.registry import REGISTRY

# scheme: (num_tag_types, tag_begin, tag_inside, tag_end, tag_single); -1 = no such tag
_SCHEMES = {"IOB": (2, 0, 1, -1, -1), "IOE": (2, -1, 0, 1, -1),
            "IOBES": (4, 0, 1, 2, 3), "plain": (1, -1, -1, -1, -1)}


def _c_divmod(a: int, b: int) -> tuple[int, int]:
    # C++ integer / and % truncate toward zero
    q = abs(a) // b * (1 if a >= 0 else -1)
    return q, a - q * b


def _chunk_end(prev_tag, prev_type, tag, type_, other, b, i, e, s) -> bool:
    if prev_type == other:
        return False
    if type_ == other or type_ != prev_type:
        return True
    if prev_tag in (b, i):
        return tag in (b, s)
    return prev_tag in (e, s)


def _chunk_begin(prev_tag, prev_type, tag, type_, other, b, i, e, s) -> bool:
    if prev_type == other:
        return type_ != other
    if type_ == other:
        return False
    if type_ != prev_type or tag == b:
        return True
    if tag in (i, e):
        return prev_tag in (e, s)
    return tag == s


def _segments(labels, num_chunk_types, scheme):
    n_tags, b, i, e, s = scheme
    other = num_chunk_types
    segs, start, in_chunk = [], 0, False
    tag, type_ = -1, other
    for pos, lab in enumerate(labels):
        if lab > num_chunk_types * n_tags:
            raise ValueError(f"chunk_eval: label {lab} exceeds num_chunk_types * "
                             f"num_tag_types = {num_chunk_types * n_tags}")
        prev_tag, prev_type = tag, type_
        type_, tag = _c_divmod(lab, n_tags)
        if in_chunk and _chunk_end(prev_tag, prev_type, tag, type_, other, b, i, e, s):
            segs.append((start, pos - 1, prev_type))
            in_chunk = False
        if _chunk_begin(prev_tag, prev_type, tag, type_, other, b, i, e, s):
            start, in_chunk = pos, True
    if in_chunk:
        # Paddle closes the last chunk with the type of the last label
        segs.append((start, len(labels) - 1, type_))
    return segs


def _count(found, wanted, excluded):
    correct, a, c = 0, 0, 0
    while a < len(found) and c < len(wanted):
        if found[a] == wanted[c] and found[a][2] not in excluded:
            correct += 1
        if found[a][1] < wanted[c][1]:
            a += 1
        elif found[a][1] > wanted[c][1]:
            c += 1
        else:
            a, c = a + 1, c + 1
    return correct


@REGISTRY.register("pd_op.chunk_eval", since=1)
def chunk_eval(inference, label, seq_length=None, *, num_chunk_types=1, chunk_scheme="IOB",
               excluded_chunk_types=()):
    scheme = _SCHEMES.get(chunk_scheme)
    if scheme is None:
        raise ValueError(f"chunk_eval: unknown chunk scheme {chunk_scheme!r} "
                         f"(IOB, IOE, IOBES or plain)")
    if seq_length is None:
        # without it the kernel reads the sequences from the input's LoD, which a PIR
        # DenseTensor never carries
        raise ValueError("chunk_eval: seq_length is required (the padded form)")
    excluded = {int(t) for t in excluded_chunk_types}
    k = int(num_chunk_types)
    inf = inference.reshape(inference.shape[0], -1).tolist()
    lab = label.reshape(label.shape[0], -1).tolist()
    n_inf = n_lab = n_ok = 0
    for row, length in enumerate(seq_length.reshape(-1).tolist()):
        found = _segments(inf[row][:length], k, scheme)
        wanted = _segments(lab[row][:length], k, scheme)
        n_ok += _count(found, wanted, excluded)
        n_lab += sum(seg[2] not in excluded for seg in wanted)
        n_inf += sum(seg[2] not in excluded for seg in found)
    f32 = np.float32
    precision = f32(n_ok) / f32(n_inf) if n_inf else f32(0)
    recall = f32(n_ok) / f32(n_lab) if n_lab else f32(0)
    f1 = f32(2) * precision * recall / (precision + recall) if n_ok else f32(0)

    def one(v, dtype):
        return torch.tensor([v], dtype=dtype)

    return (one(float(precision), torch.float32), one(float(recall), torch.float32),
            one(float(f1), torch.float32), one(n_inf, torch.int64), one(n_lab, torch.int64),
            one(n_ok, torch.int64))
