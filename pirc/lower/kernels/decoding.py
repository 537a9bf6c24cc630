"""Sequence-decoding ops on padded [batch, time] inputs: gather_tree, ctc_align and
segment_pool, after phi's CPU kernels (the LoD forms, which a PIR program fed from static
data cannot carry, are not modelled)."""

from __future__ import annotations

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
