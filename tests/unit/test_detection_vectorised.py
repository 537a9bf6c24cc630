"""The vectorised pieces of matrix_nms / multiclass_nms3 (pirc/lower/kernels/detection.py)
against the element-by-element C++ replay they stand for, bit for bit, on boxes and scores
chosen to hit every IEEE corner the kernels meet: NaN and inf coordinates, inverted and
zero-area boxes, signed zeros, tied and NaN scores.

jaccard_matrix must give jaccard's value (its bytes) for every pair; _partial_desc's argsort
path must give libstdc++'s partial_sort order (stl_order.partial_sort) whatever the ties;
NMSFast's bit-set pass must keep what the plain 'test against every kept box' loop keeps."""

from __future__ import annotations

import numpy as np
import pytest

from pirc.lower.kernels import detection
from pirc.lower.kernels.stl_order import partial_sort

SPECIAL = [0.0, -0.0, 1.0, 0.5, np.nan, np.inf, -np.inf, 2.0, 0.25]


def awkward_boxes(rng, n, dtype):
    b = rng.random((n, 4)).astype(dtype)
    b[:, 2:] += b[:, :2]
    pick = rng.random((n, 4)) < 0.2
    b[pick] = rng.choice(np.array(SPECIAL, dtype), size=int(pick.sum()))
    b[: n // 4] = b[n // 4: 2 * (n // 4)]          # identical boxes: IoU 1, decay 0 / 0
    b[n - 2, 2:] = b[n - 2, :2]                    # zero area: 0 / 0 against itself
    b[n - 1, [0, 2]] = b[n - 1, [2, 0]]            # inverted
    return b


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("normalized", [True, False])
def test_jaccard_matrix_is_jaccard_bit_for_bit(dtype, normalized):
    rng = np.random.default_rng(7)
    b = awkward_boxes(rng, 24, dtype)
    with np.errstate(all="ignore"):
        got = detection.jaccard_matrix(b, b, normalized)
        want = np.array([[detection.jaccard(p, q, normalized) for q in b] for p in b], dtype)
    assert got.dtype == want.dtype
    assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("seed", range(20))
def test_partial_desc_is_libstdcxx_partial_sort(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 40))
    # few distinct values (many ties) on half the seeds, NaN on some
    values = rng.integers(0, 5, n).astype(np.float32) if seed % 2 else rng.random(n).astype(
        np.float32)
    if seed % 5 == 0:
        values[rng.integers(0, n)] = np.nan
    perm = [i for i in range(n) if rng.random() < 0.8] or [0]
    k = int(rng.integers(1, len(perm) + 1))
    s = [float(v) for v in values]
    want = list(perm)
    partial_sort(want, 0, k, len(want), lambda a, b: s[a] > s[b])
    assert detection._partial_desc(values, perm, k) == want[:k]
    assert detection._partial_desc(s, perm, k) == want[:k]


def nms_fast_by_hand(boxes, scores, score_threshold, nms_threshold, eta, top_k, normalized):
    """NMSFast as the C++ writes it: each candidate against every kept box."""
    order = sorted((i for i in range(len(scores)) if scores[i] > score_threshold),
                   key=lambda i: -scores[i])
    if top_k > -1:
        order = order[:top_k]
    kept, thr = [], nms_threshold
    for i in order:
        if all(detection.jaccard(boxes[i], boxes[k], normalized) <= thr for k in kept):
            kept.append(i)
            if eta < 1 and thr > 0.5:
                thr *= eta
    return kept


@pytest.mark.parametrize("eta", [1.0, 0.9])
@pytest.mark.parametrize("seed", range(8))
def test_nms_fast_keeps_what_the_loop_keeps(seed, eta):
    rng = np.random.default_rng(100 + seed)
    n = 70
    b = awkward_boxes(rng, n, np.float32)
    scores = rng.integers(0, 6, n).astype(np.float32) / 5   # ties
    scores[rng.integers(0, n, 3)] = np.nan
    args = (np.float32(0.1), np.float32(0.4), np.float32(eta), 50 if seed % 2 else -1, bool(seed % 3))
    with np.errstate(all="ignore"):
        want = nms_fast_by_hand(b, scores, *args)
        got = detection._nms_fast(b, scores, *args)
        # the same through one image-wide IoU matrix, as multiclass_nms3 does for its classes
        block = detection._iou_blocks(b, np.ones(n, bool), [n], args[-1])
        shared = detection._nms_fast(b, scores, *args, iou_of=block)
    assert got == want
    assert shared == want


def matrix_nms_class_by_hand(boxes, scores, score_threshold, post_threshold, sigma, top_k,
                             normalized, gaussian):
    """MatrixNMSKernel's per-class loops as the C++ writes them (pirc's kernel before it was
    vectorised)."""
    from pirc.lower.kernels import c_numerics
    t = boxes.dtype.type
    s = [float(v) for v in scores]
    perm = [i for i in range(len(s)) if not s[i] <= score_threshold]
    if not perm:
        return [], []
    n = len(perm) if top_k <= -1 else min(len(perm), top_k)
    perm = list(perm)
    partial_sort(perm, 0, n, len(perm), lambda a, b: s[a] > s[b])
    perm = perm[:n]
    iou = [[t(0)] * n for _ in range(n)]
    iou_max = [t(0)] * n
    for i in range(1, n):
        m = t(0)
        for j in range(i):
            iou[i][j] = detection.jaccard(boxes[perm[i]], boxes[perm[j]], normalized)
            m = max(m, iou[i][j])
        iou_max[i] = m
    sel, dec = [], []
    if scores[perm[0]] > post_threshold:
        sel.append(perm[0])
        dec.append(scores[perm[0]])
    for i in range(1, n):
        min_decay = t(1)
        for j in range(i):
            if gaussian:
                arg = float((iou_max[j] * iou_max[j] - iou[i][j] * iou[i][j]) * t(sigma))
                d = t(c_numerics.expf(arg) if t is np.float32 else c_numerics.exp(arg))
            else:
                d = t((np.float64(1.0) - np.float64(iou[i][j]))
                      / (np.float64(1.0) - np.float64(iou_max[j])))
            min_decay = min(min_decay, d)
        ds = min_decay * scores[perm[i]]
        if ds <= post_threshold:
            continue
        sel.append(perm[i])
        dec.append(ds)
    return sel, dec


@pytest.mark.parametrize("gaussian", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("seed", range(6))
def test_matrix_nms_class_decays_like_the_loops(seed, dtype, gaussian):
    rng = np.random.default_rng(200 + seed)
    n = 40
    b = awkward_boxes(rng, n, dtype)
    scores = (rng.integers(0, 8, n) / 7).astype(dtype)
    scores[rng.integers(0, n, 2)] = np.nan if seed % 2 else np.inf
    t = b.dtype.type
    args = (t(0.05), t(0.1 if seed % 3 else -1.0), 2.0, 30 if seed % 2 else -1, bool(seed % 3),
            gaussian)
    with np.errstate(all="ignore"):
        want = matrix_nms_class_by_hand(b, scores, *args)
        got = detection._matrix_nms_class(b, scores, *args)
        block = detection._iou_blocks(b, np.ones(n, bool), [n], args[4])
        shared = detection._matrix_nms_class(b, scores, *args, iou_of=block)
    for g in (got, shared):
        assert g[0] == want[0]
        assert np.array(g[1], dtype).tobytes() == np.array(want[1], dtype).tobytes()
