"""beam_search: one step of the fluid beam search over LoD sequences (two levels: source
sentences, then their live prefixes), as phi's CPU BeamSearchFunctor
(funcs/math/beam_search.cc) computes it: per source the top beam_size (prefix, candidate)
items by score, kept in an insertion-sorted list (a tie in score ranks the later prefix
first; an equal item replaces the last kept one), a finished prefix (pre_id == end_id)
contributing only itself; a source whose every item is end_id after an end_id prefix is
pruned. Scores are float: accumulated ones as given, else pre_score + logf(score).
"""

from __future__ import annotations

import numpy as np
import torch

from ..lod import as_lod, lod_kernel, need_lod
from .c_numerics import _libm_float

NO_LOD = (None,) * 5
_LOGF = _libm_float("logf")


def _logf(x: np.float32) -> np.float32:
    """std::log of a float: the C library's logf (NaN below 0, -inf at 0)."""
    if _LOGF is not None:
        return np.float32(_LOGF(float(x)))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.float32(np.log(np.float64(x)))


def _abs_offsets(levels):
    """phi::ToAbsOffset: every level's offsets in rows of the tensor."""
    out = [list(lv) for lv in levels]
    for i in range(len(out) - 2, -1, -1):
        out[i] = [out[i + 1][j] for j in out[i]]
    return out


def _less(a, b):
    """Item::operator<: lower score, or the same score and an earlier prefix."""
    return a[2] < b[2] or (a[2] == b[2] and a[0] < b[0])


def _insert(top, item, beam_size):
    if len(top) < beam_size:
        top.append(None)
    elif _less(item, top[beam_size - 1]):
        return
    for k in range(len(top) - 2, -1, -1):
        if _less(top[k], item):
            top[k + 1] = top[k]
        else:
            top[k + 1] = item
            return
    top[0] = item


@lod_kernel("pd_op.beam_search")
def beam_search(pre_ids, pre_scores, ids, scores, *, lods=NO_LOD, level=0, beam_size=4,
                end_id=0, is_accumulated=True):
    """Returns (selected_ids [n, 1] int64, selected_scores [n, 1] float32, parent_idx [n]
    int32: the prefix row of each); the selected values' LoD is (the sources' absolute
    offsets, each prefix's offsets into the selected rows)."""
    abs_lod = _abs_offsets(need_lod("beam_search", "scores", lods[3]))
    high = abs_lod[level]
    pre_ids, pre_scores, scores = (t.detach().cpu() for t in (pre_ids, pre_scores, scores))
    ids = None if ids is None else ids.detach().cpu()
    pid = pre_ids.reshape(-1).tolist()
    psc = pre_scores.reshape(-1).numpy().astype(np.float32)
    sc = scores.reshape(scores.shape[0], -1).numpy().astype(np.float32)
    idv = None if ids is None else ids.reshape(ids.shape[0], -1).tolist()
    width = sc.shape[1]
    per_source = []
    for s, e in zip(high[:-1], high[1:]):
        top = []
        for off in range(s, e):
            if pid[off] == end_id:
                _insert(top, (off, end_id, psc[off]), beam_size)
                continue
            for d in range(width):
                cid = idv[off][d] if idv is not None else d
                score = sc[off, d] if is_accumulated else np.float32(psc[off] + _logf(sc[off, d]))
                _insert(top, (off, cid, score), beam_size)
        per_source.append(top)
    by_prefix = [[] for _ in range(high[-1])]
    for top in per_source:
        for item in top:
            by_prefix[item[0]].append(item)
    for s, e in zip(high[:-1], high[1:]):  # PruneEndBeams
        done = all(item[1] == end_id and pid[off] == end_id
                   for off in range(s, e) for item in by_prefix[off])
        if done:
            for off in range(s, e):
                by_prefix[off] = []
    low, sel_ids, sel_scores, parents = [0], [], [], []
    for off, items in enumerate(by_prefix):
        for item in items:
            sel_ids.append(item[1])
            sel_scores.append(item[2])
            parents.append(off)
        low.append(len(sel_ids))
    n = len(sel_ids)
    out_ids = torch.tensor(sel_ids, dtype=torch.int64).reshape(n, 1)
    out_scores = torch.from_numpy(np.array(sel_scores, np.float32).reshape(n, 1))
    parent = torch.tensor(parents, dtype=torch.int32)
    lod = as_lod([high, low])
    return (out_ids, out_scores, parent), (lod, lod, None)
