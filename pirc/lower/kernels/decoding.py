"""Sequence-decoding ops on padded [batch, time] inputs: gather_tree, ctc_align and
segment_pool, after phi's CPU kernels (the LoD forms, which a PIR program fed from static
data cannot carry, are not modelled)."""

from __future__ import annotations

import numpy as np
import torch

from ...runtime.registry import REGISTRY


@REGISTRY.register("pd_op.gather_tree", since=1)
def gather_tree(ids, parents):
    """GatherTreeKernel on [time, batch, beam]: the last step as is, then back through the
    parents: out[t, b, k] = ids[t, b, p] with p the parent chain from the last step."""
    steps = ids.shape[0]
    if steps == 0:
        return ids.clone()
    out = [ids[steps - 1]]
    parent = parents[steps - 1].long()
    for t in range(steps - 2, -1, -1):
        out.append(torch.gather(ids[t], 1, parent))
        parent = torch.gather(parents[t], 1, parent).long()
    return torch.stack(out[::-1])


@REGISTRY.register("pd_op.ctc_align", since=1)
def ctc_align(input, input_length=None, *, blank=0, merge_repeated=True,  # noqa: A002
              padding_value=0):
    """CTCAlignKernel, padded form: per row, within its length, drop blanks and (with
    merge_repeated) a token equal to the previous one (blanks included); the kept tokens
    first, then padding_value; output_length per row in input_length's type."""
    x = input.tolist()
    lens = input_length.reshape(-1).tolist()
    rows, kept = [], []
    for row, n in zip(x, lens):
        out, prev = [], -1
        for tok in row[:int(n)]:
            if tok != blank and not (merge_repeated and tok == prev):
                out.append(tok)
            prev = tok
        kept.append(len(out))
        rows.append(out + [padding_value] * (len(row) - len(out)))
    dev = input.device
    return (torch.tensor(rows, dtype=input.dtype, device=dev).reshape(input.shape),
            torch.tensor(kept, dtype=input_length.dtype, device=dev).reshape(-1, 1))


@REGISTRY.register("pd_op.segment_pool", since=1)
def segment_pool(x, segment_ids, *, pooltype="SUM"):
    """SegmentPoolKernel over sorted segment ids: last id + 1 rows; an empty segment is 0;
    MEAN divides the sum by the count, which comes back as summed_ids ([rows, 1], x's type)."""
    ids = segment_ids.long()
    n = int(ids[-1]) + 1 if ids.numel() else 0
    shape = (n,) + tuple(x.shape[1:])
    counts = torch.zeros(n, dtype=x.dtype, device=x.device).index_add_(
        0, ids, torch.ones(ids.shape, dtype=x.dtype, device=x.device))
    if pooltype in ("SUM", "MEAN"):
        out = torch.zeros(shape, dtype=x.dtype, device=x.device).index_add_(0, ids, x)
        if pooltype == "MEAN":
            c = counts.reshape((n,) + (1,) * (x.dim() - 1))
            out = torch.where(c > 0, out / torch.clamp_min(c, 1), out)
            return out, counts.reshape(n, 1)
        return out, None
    reduce = "amax" if pooltype == "MAX" else "amin"
    index = ids.reshape((-1,) + (1,) * (x.dim() - 1)).expand(x.shape)
    out = torch.zeros(shape, dtype=x.dtype, device=x.device).scatter_reduce(
        0, index, x, reduce, include_self=False)
    return out, None


def _first_argmax(t, dim):
    """The kernels' Argmax: the first index of the largest value (strict >), and the value."""
    m = t.amax(dim, keepdim=True)
    return (t == m).to(torch.int8).argmax(dim), m.squeeze(dim)


@REGISTRY.register("pd_op.viterbi_decode", since=1)
def viterbi_decode(potentials, transition_params, lengths, *, include_bos_eos_tag=True):
    """ViterbiDecodeKernel step for step: alpha advances only while a sequence has steps
    left (alpha_nxt * mask + alpha * (1 - mask), float masks as the kernel multiplies them);
    with include_bos_eos_tag the start row (the last of transition) is added first and the
    stop row (the one before) where a sequence ends; the path is backtracked through the
    argmax history, holding the last tag past a sequence's end.

    On the CPU in float32 / float64 the same elementwise steps run in numpy: a step is a
    dozen ops on [batch, tags] arrays, and numpy's per-op cost is a fraction of torch's
    (IEEE adds and multiplies in the same order: the same bits)."""
    if potentials.device.type == "cpu" and potentials.dtype in _NUMPY_FLOATS \
            and transition_params.dtype == potentials.dtype:
        with np.errstate(all="ignore"):   # inf - inf and inf * 0 are NaN, as in torch, silently
            scores, path = _viterbi_numpy(potentials.detach().numpy(),
                                          transition_params.detach().numpy(),
                                          lengths.detach().reshape(-1).to(torch.int64).numpy(),
                                          include_bos_eos_tag)
        return torch.from_numpy(scores), torch.from_numpy(path)
    return _viterbi_torch(potentials, transition_params, lengths, include_bos_eos_tag)


_NUMPY_FLOATS = (torch.float32, torch.float64)


def _first_argmax_np(t, axis):
    """_first_argmax in numpy (a NaN maximum matches nothing: index 0, as torch's)."""
    m = t.max(axis, keepdims=True)
    return (t == m).argmax(axis), m.squeeze(axis)


def _viterbi_numpy(x, w, lengths, include_bos_eos_tag):
    """_viterbi_torch's arithmetic on numpy arrays: x [batch, time, tags], w [tags, tags]."""
    b, _, n = x.shape
    dt = x.dtype
    left = lengths.reshape(b, 1)
    max_len = int(left.max()) if b else 0
    x = x.transpose(1, 0, 2)
    trans = w.reshape(1, n, n)
    stop = w[n - 2].reshape(1, n)
    start = w[n - 1].reshape(1, n)
    alpha = x[0]
    if include_bos_eos_tag:
        alpha = alpha + start
        alpha = alpha + stop * (left == 1).astype(dt)
    # every step's masks at once: at step i a row has left - i steps left
    left_i = left.reshape(1, b, 1) - np.arange(1, max(max_len, 1)).reshape(-1, 1, 1)
    masks = (left_i > 0).astype(dt)
    keeps = np.ones((b, 1), dt) - masks
    stops = stop * (left_i == 1).astype(dt) if include_bos_eos_tag else None
    history = []
    for i in range(1, max_len):
        best, best_v = _first_argmax_np(alpha.reshape(b, n, 1) + trans, 1)
        history.append(best)
        alpha = alpha * keeps[i - 1] + (best_v + x[i]) * masks[i - 1]
        if include_bos_eos_tag:
            alpha = alpha + stops[i - 1]
    left = left - max(max_len, 1)
    last, scores = _first_argmax_np(alpha, 1)
    if not max_len:
        return scores, np.zeros((b, 0), np.int64)
    # the backtrack in Python ints: a row's steps are a dependent chain of single lookups
    tracks = np.stack(history).tolist() if history else []
    path = []
    for r, (lt, la) in enumerate(zip(left.reshape(b).tolist(), last.tolist())):
        row = [la if lt >= 0 else 0]
        for h in reversed(tracks):
            lt += 1
            upd = h[r][la] if lt > 0 else (la if lt == 0 else 0)
            if lt >= 0:   # past the row's end (lt < 0) the last tag is held
                la = upd
            row.append(upd)
        path.append(row[::-1])
    return scores, np.array(path, dtype=np.int64).reshape(b, max_len)


def _viterbi_torch(potentials, transition_params, lengths, include_bos_eos_tag):
    b, _, n = potentials.shape
    dt = potentials.dtype
    left = lengths.reshape(b, 1).to(torch.int64)
    max_len = int(left.max()) if b else 0
    x = potentials.transpose(0, 1)
    trans = transition_params.reshape(1, n, n)
    stop = transition_params[n - 2].reshape(1, n)
    start = transition_params[n - 1].reshape(1, n)
    one = torch.ones(b, 1, dtype=dt, device=potentials.device)
    alpha = x[0]
    if include_bos_eos_tag:
        alpha = alpha + start
        alpha = alpha + stop * (left == 1).to(dt)
    left = left - 1
    history = []
    for i in range(1, max_len):
        best, best_v = _first_argmax(alpha.reshape(b, n, 1) + trans, 1)
        history.append(best)
        mask = (left > 0).to(dt)
        nxt = (best_v + x[i]) * mask
        alpha = alpha * (one - mask) + nxt
        if include_bos_eos_tag:
            alpha = alpha + stop * (left == 1).to(dt)
        left = left - 1
    last, scores = _first_argmax(alpha, 1)
    left = left.reshape(b)
    path = [last * (left >= 0).long()]
    offset = torch.arange(b, device=potentials.device) * n
    for h in reversed(history):
        left = left + 1
        upd = h.reshape(-1)[offset + last] * (left > 0).long()
        ended = (left == 0).long()
        upd = upd * (1 - ended) + last * ended
        last = upd + last * (left < 0).long()
        path.append(upd)
    return scores, torch.stack(path[::-1], 1) if path and max_len else \
        torch.zeros(b, 0, dtype=torch.int64, device=potentials.device)


@REGISTRY.register("pd_op.crf_decoding", since=1)
def crf_decoding(emission, transition, label=None, length=None):
    """CRFDecodingKernel, padded form ([batch, time, tags] with lengths): Viterbi with the
    transition's row 0 as start weights, row 1 as end weights and rows 2.. as tag-to-tag
    weights, in the emission's type, strict > keeping the first best; with a label, 1 where
    the path equals it; positions past a length are 0."""
    x = emission.detach().cpu().numpy()
    w = transition.detach().cpu().numpy()
    lab = None if label is None else label.detach().cpu().numpy().reshape(x.shape[0], -1)
    b, steps, tags = x.shape
    out = [[0] * steps for _ in range(b)]
    for s, n in enumerate(length.reshape(-1).tolist()):
        n = int(n)
        if n <= 0:
            continue
        alpha = [w[0, i] + x[s, 0, i] for i in range(tags)]
        track = []
        for k in range(1, n):
            nxt, arg = [], []
            for i in range(tags):
                best, best_j = None, 0
                for j in range(tags):
                    v = alpha[j] + w[j + 2, i]
                    if best is None or v > best:
                        best, best_j = v, j
                nxt.append(best + x[s, k, i])
                arg.append(best_j)
            alpha = nxt
            track.append(arg)
        best, last = None, 0
        for i in range(tags):
            v = alpha[i] + w[1, i]
            if best is None or v > best:
                best, last = v, i
        path = [last]
        for arg in reversed(track):
            last = arg[last]
            path.append(last)
        path.reverse()
        for k, tag in enumerate(path):
            out[s][k] = int(tag == lab[s, k]) if lab is not None else tag
    return torch.tensor(out, dtype=torch.int64, device=emission.device)
