"""Detection ops: nms, box_coder, prior_box, anchor_generator, yolo_box, bipartite_match,
collect_fpn_proposals, distribute_fpn_proposals, matrix_nms, multiclass_nms3,
generate_proposals.

nms is phi's greedy pass over boxes already in score order: box i, unless suppressed,
suppresses every later box whose IoU with it (CalculateIoU's float arithmetic, vectorised
here element for element) exceeds the threshold; the indices of the survivors come back
(int64).  prior_box and anchor_generator depend on shapes only, so their boxes are computed at
trace time in numpy with the C++ kernels' mix of float and double arithmetic (a `/ 2.` is a
double division, a float `w * stride` stays float).  box_coder follows BoxCoderKernel's
formulas, encoding to [targets, priors, 4] and decoding along `axis`.
"""

from __future__ import annotations

import functools

import numpy as np
import torch

from ...runtime.registry import REGISTRY
from . import c_numerics, stl_order
from .operands import c_int_cast
from .stl_order import partial_sort

F32 = np.float32


@REGISTRY.register("pd_op.nms", since=1)
def nms(x, *, threshold=1.0):
    b = x.reshape(-1, 4)
    x0, y0, x1, y1 = (b[:, k] for k in range(4))
    iw = torch.minimum(x1[:, None], x1[None]) - torch.maximum(x0[:, None], x0[None])
    ih = torch.minimum(y1[:, None], y1[None]) - torch.maximum(y0[:, None], y0[None])
    inter = torch.where(iw > 0, iw, 0) * torch.where(ih > 0, ih, 0)
    area = (x1 - x0) * (y1 - y0)
    union = area[:, None] + area[None] - inter
    overlap = (inter / union > threshold).tolist()
    n = b.shape[0]
    suppressed = [False] * n
    for i in range(n):
        if suppressed[i]:
            continue
        for j in range(i + 1, n):
            if not suppressed[j] and overlap[i][j]:
                suppressed[j] = True
    keep = [i for i in range(n) if not suppressed[i]]
    return torch.tensor(keep, dtype=torch.int64, device=x.device)


@REGISTRY.register("pd_op.box_coder", since=1)
def box_coder(prior_box, prior_box_var, target_box, *, code_type="encode_center_size",
              box_normalized=True, axis=0, variance=()):
    one = 0.0 if box_normalized else 1.0
    p = prior_box
    pw = p[:, 2] - p[:, 0] + one
    ph = p[:, 3] - p[:, 1] + one
    pcx = p[:, 0] + pw / 2
    pcy = p[:, 1] + ph / 2
    var = prior_box_var
    if code_type.lower() == "encode_center_size":
        t = target_box
        tcx = ((t[:, 2] + t[:, 0]) / 2)[:, None]
        tcy = ((t[:, 3] + t[:, 1]) / 2)[:, None]
        tw = (t[:, 2] - t[:, 0] + one)[:, None]
        th = (t[:, 3] - t[:, 1] + one)[:, None]
        out = torch.stack([(tcx - pcx) / pw, (tcy - pcy) / ph, torch.log(torch.abs(tw / pw)),
                           torch.log(torch.abs(th / ph))], -1)
        if var is not None:
            out = out / var[None]
        elif len(variance):
            out = out / torch.tensor(list(variance), dtype=out.dtype, device=out.device)
        return out
    t = target_box
    # the prior of element (i, j) is j along axis 0, i along axis 1
    shape = (1, -1) if axis == 0 else (-1, 1)
    pw, ph, pcx, pcy = (v.reshape(shape) for v in (pw, ph, pcx, pcy))
    if var is not None:
        vx, vy, vw, vh = (var[:, k].reshape(shape) for k in range(4))
    elif len(variance):
        vx, vy, vw, vh = (torch.tensor(float(v), dtype=t.dtype) for v in variance)
    else:
        vx = vy = vw = vh = torch.tensor(1.0, dtype=t.dtype)
    cx = vx * t[..., 0] * pw + pcx
    cy = vy * t[..., 1] * ph + pcy
    w = torch.exp(vw * t[..., 2]) * pw
    h = torch.exp(vh * t[..., 3]) * ph
    return torch.stack([cx - w / 2, cy - h / 2, cx + w / 2 - one, cy + h / 2 - one], -1)


def _expand_aspect_ratios(ratios, flip):
    out = [1.0]
    for ar in ratios:
        ar = float(F32(ar))
        if any(abs(ar - e) < 1e-6 for e in out):
            continue
        out.append(ar)
        if flip:
            out.append(float(F32(1.0) / F32(ar)))
    return out


@REGISTRY.register("pd_op.prior_box", since=1)
def prior_box(input, image, *, min_sizes=(), max_sizes=(), aspect_ratios=(),  # noqa: A002
              variances=(), flip=True, clip=True, step_w=0.0, step_h=0.0, offset=0.5,
              min_max_aspect_ratios_order=False):
    out, var = _prior_boxes(int(input.shape[2]), int(input.shape[3]), int(image.shape[2]),
                            int(image.shape[3]), tuple(min_sizes), tuple(max_sizes),
                            tuple(aspect_ratios), tuple(variances), flip, clip, step_w, step_h,
                            offset, min_max_aspect_ratios_order)
    dt = input.dtype
    return (torch.from_numpy(out.copy()).to(input.device).to(dt),
            torch.from_numpy(var.copy()).to(input.device).to(dt))


@functools.lru_cache(maxsize=64)
def _prior_boxes(fh, fw, ih, iw, min_sizes, max_sizes, aspect_ratios, variances, flip, clip,
                 step_w, step_h, offset, min_max_aspect_ratios_order):
    """prior_box's (boxes, variances) as float32 arrays: they depend on shapes and attributes
    only, so each model's layers compute theirs once (callers copy them)."""
    ratios = _expand_aspect_ratios(aspect_ratios, flip)
    if step_w == 0 or step_h == 0:
        sw, sh = F32(iw) / F32(fw), F32(ih) / F32(fh)
    else:
        sw, sh = F32(step_w), F32(step_h)
    boxes = []
    for h in range(fh):
        for w in range(fw):
            cx = (F32(w) + F32(offset)) * sw
            cy = (F32(h) + F32(offset)) * sh
            cell = []

            def push(bw, bh):
                bw, bh = F32(bw), F32(bh)
                cell.append([(cx - bw) / F32(iw), (cy - bh) / F32(ih),
                             (cx + bw) / F32(iw), (cy + bh) / F32(ih)])

            for s, m in enumerate(min_sizes):
                m = F32(m)
                big = (np.sqrt(m * F32(max_sizes[s])) / 2.0) if len(max_sizes) else None
                if min_max_aspect_ratios_order:
                    push(m / 2.0, m / 2.0)
                    if big is not None:
                        push(big, big)
                    for ar in ratios:
                        if abs(ar - 1.0) < 1e-6:
                            continue
                        push(m * np.sqrt(F32(ar)) / 2.0, m / np.sqrt(F32(ar)) / 2.0)
                else:
                    for ar in ratios:
                        push(m * np.sqrt(F32(ar)) / 2.0, m / np.sqrt(F32(ar)) / 2.0)
                    if big is not None:
                        push(big, big)
            boxes.append(cell)
    out = np.array(boxes, np.float32).reshape(fh, fw, -1, 4)
    if clip:
        out = np.minimum(np.maximum(out, 0.0), 1.0).astype(np.float32)
    var = np.broadcast_to(np.array(list(variances), np.float32), out.shape).copy()
    return out, var


@REGISTRY.register("pd_op.anchor_generator", since=1)
def anchor_generator(input, *, anchor_sizes=(), aspect_ratios=(), variances=(),  # noqa: A002
                     stride=(16.0, 16.0), offset=0.5):
    # the anchors depend on the map's size and the attributes only: built once per shape
    out, var = _anchors(int(input.shape[2]), int(input.shape[3]), tuple(anchor_sizes),
                        tuple(aspect_ratios), tuple(variances), tuple(stride), offset)
    return (torch.as_tensor(out.copy(), device=input.device).to(input.dtype),
            torch.as_tensor(var.copy(), device=input.device).to(input.dtype))


@functools.lru_cache(maxsize=64)
def _anchors(fh, fw, anchor_sizes, aspect_ratios, variances, stride, offset):
    """AnchorGeneratorOpKernel's anchors [fh, fw, A, 4] and variances, float32 numpy."""
    sw, sh = F32(stride[0]), F32(stride[1])
    out = np.zeros((fh, fw, len(aspect_ratios) * len(anchor_sizes), 4), np.float32)
    for h in range(fh):
        for w in range(fw):
            x_ctr = F32(w) * sw + F32(offset) * (sw - F32(1))
            y_ctr = F32(h) * sh + F32(offset) * (sh - F32(1))
            idx = 0
            for ar in aspect_ratios:
                ar = F32(ar)
                for size in anchor_sizes:
                    # std::round: halves away from zero (stride 32, ratio 0.5: 45 * 0.5 = 23)
                    base_w = c_numerics.round_away(np.sqrt((sw * sh) / ar))
                    base_h = c_numerics.round_away(base_w * ar)
                    aw = (F32(size) / sw) * base_w
                    ah = (F32(size) / sh) * base_h
                    # 0.5 * (...) is a double product; the sums are cast back to float
                    out[h, w, idx] = [float(x_ctr) - 0.5 * float(aw - F32(1)),
                                      float(y_ctr) - 0.5 * float(ah - F32(1)),
                                      float(x_ctr) + 0.5 * float(aw - F32(1)),
                                      float(y_ctr) + 0.5 * float(ah - F32(1))]
                    idx += 1
    var = np.broadcast_to(np.array(list(variances), np.float32), out.shape).copy()
    return out, var


def _sigmoid(t):
    return 1 / (1 + torch.exp(-t))  # phi's sigmoid<T>: 1 / (1 + exp(-x))


@REGISTRY.register("pd_op.yolo_box", since=1)
def yolo_box(x, img_size, *, anchors=(), class_num=1, conf_thresh=0.01, downsample_ratio=32,
             clip_bbox=True, scale_x_y=1.0, iou_aware=False, iou_aware_factor=0.5):
    """phi YoloBoxKernel: per anchor and cell, conf = sigmoid(obj) (iou_aware: conf^(1-f) *
    sigmoid(iou)^f); below conf_thresh box and scores stay 0; the box is the decoded centre
    and size ((col + sigmoid * scale + bias) * img_w / w, exp(tw) * anchor_w * img_w /
    input_w, ...) as corners, clipped to the image; scores are conf * sigmoid(class)."""
    n, _, h, w = x.shape
    an = len(anchors) // 2
    entries = 5 + class_num
    if iou_aware:
        iou = x[:, :an].reshape(n, an, h * w)
        body = x[:, an:].reshape(n, an, entries, h * w)
    else:
        body = x.reshape(n, an, entries, h * w)
    conf = _sigmoid(body[:, :, 4])
    if iou_aware:
        conf = torch.pow(conf, 1 - iou_aware_factor) * torch.pow(_sigmoid(iou), iou_aware_factor)
    keep = ~(conf < conf_thresh)
    dt = x.dtype
    scale = torch.tensor(scale_x_y, dtype=dt)
    bias = torch.tensor(-0.5 * (scale_x_y - 1.0), dtype=dt)
    img_h = img_size[:, 0].to(dt).reshape(n, 1, 1)
    img_w = img_size[:, 1].to(dt).reshape(n, 1, 1)
    cols = torch.arange(w, dtype=dt).repeat(h).reshape(1, 1, h * w)
    rows = torch.arange(h, dtype=dt).repeat_interleave(w).reshape(1, 1, h * w)
    a = torch.tensor(list(anchors), dtype=dt).reshape(an, 2)
    aw, ah = a[:, 0].reshape(1, an, 1), a[:, 1].reshape(1, an, 1)
    bx = (cols + _sigmoid(body[:, :, 0]) * scale + bias) * img_w / w
    by = (rows + _sigmoid(body[:, :, 1]) * scale + bias) * img_h / h
    bw = torch.exp(body[:, :, 2]) * aw * img_w / (downsample_ratio * w)
    bh = torch.exp(body[:, :, 3]) * ah * img_h / (downsample_ratio * h)
    x0, y0, x1, y1 = bx - bw / 2, by - bh / 2, bx + bw / 2, by + bh / 2
    if clip_bbox:
        x0, y0 = torch.clamp(x0, min=0), torch.clamp(y0, min=0)
        x1, y1 = torch.minimum(x1, img_w - 1), torch.minimum(y1, img_h - 1)
    boxes = torch.stack([x0, y0, x1, y1], -1)
    boxes = torch.where(keep[..., None], boxes, torch.zeros_like(boxes))
    scores = conf[:, :, None] * _sigmoid(body[:, :, 5:])              # (n, an, cls, hw)
    scores = torch.where(keep[:, :, None], scores, torch.zeros_like(scores))
    return (boxes.reshape(n, an * h * w, 4),
            scores.permute(0, 1, 3, 2).reshape(n, an * h * w, class_num))


@REGISTRY.register("pd_op.bipartite_match", since=1)
def bipartite_match(dist_mat, *, match_type="bipartite", dist_threshold=0.5):
    """BipartiteMatchKernel on one instance: (row, col, dist) pairs by descending dist, each
    taken while its row and column are free and dist > 0; per_prediction then gives every
    free column its largest row with dist >= threshold (dists under 1e-6 never match)."""
    d = dist_mat.detach().cpu().numpy()
    rows, cols = d.shape
    match = [-1] * cols
    mdist = np.zeros(cols, d.dtype)
    pairs = sorted(((i, j, d[i, j]) for i in range(rows) for j in range(cols)),
                   key=lambda p: -p[2])
    row_used, taken = [False] * rows, 0
    for i, j, v in pairs:
        if taken >= rows:
            break
        if match[j] == -1 and not row_used[i] and v > 0:
            match[j], row_used[i], mdist[j] = i, True, v
            taken += 1
    if match_type == "per_prediction":
        for j in range(cols):
            if match[j] != -1:
                continue
            best, best_d = -1, -1.0
            for i in range(rows):
                v = d[i, j]
                if v < 1e-6:
                    continue
                if v >= np.float32(dist_threshold) and v > best_d:
                    best, best_d = i, v
            if best != -1:
                match[j], mdist[j] = best, best_d
    dev = dist_mat.device
    return (torch.tensor([match], dtype=torch.int32, device=dev),
            torch.as_tensor(mdist[None], device=dev))


@REGISTRY.register("pd_op.collect_fpn_proposals", since=1)
def collect_fpn_proposals(multi_level_rois, multi_level_scores, multi_level_rois_num=None, *,
                          post_nms_topn=1):
    """CollectFpnProposalsKernel: every level's rois (level, then roi order) std::stable_sort-ed
    by CompareByScore, `a.score >= b.score` -- not a strict order, so tied scores come out in
    the order libstdc++'s merge sort leaves them (stl_order.stable_sort) --, the first
    post_nms_topn, stably regrouped by image; the counts as the kernel makes them (a new one
    each time the image changes)."""
    entries = []  # (score, image, roi row)
    rois = torch.cat(list(multi_level_rois), 0)
    start = 0
    for level, scores in enumerate(multi_level_scores):
        k = scores.shape[0]
        if multi_level_rois_num is not None:
            images = []
            for b, c in enumerate(multi_level_rois_num[level].reshape(-1).tolist()):
                images += [b] * int(c)
        else:
            images = [0] * k
        for r, v in enumerate(scores.reshape(-1).tolist()):
            entries.append((v, images[r], start + r))
        start += k
    stl_order.stable_sort(entries, lambda a, b: a[0] >= b[0])
    top = entries[:min(post_nms_topn, len(entries))]
    stl_order.stable_sort(top, lambda a, b: a[1] < b[1])
    batch = (multi_level_rois_num[0].numel() if multi_level_rois_num is not None else 1)
    counts, image, first = [], 0, 0
    for i, e in enumerate(top):
        if e[1] != image:
            image = e[1]
            counts.append(i - first)
            first = i
    counts.append(len(top) - first)
    counts = (counts + [0] * batch)[:batch]
    index = torch.tensor([e[2] for e in top], dtype=torch.int64, device=rois.device)
    return rois[index], torch.tensor(counts, dtype=torch.int32, device=rois.device)


# -- matrix_nms, multiclass_nms3, generate_proposals (phi's CPU kernels, float32 / float64 as
#    the boxes come: every IoU, decay and box formula in the boxes' type, like the C++) ------


def _area(b, normalized):
    """BBoxArea: 0 for an inverted box, else w * h (+1 on each side unless normalized)."""
    if b[2] < b[0] or b[3] < b[1]:
        return b.dtype.type(0)
    w, h = b[2] - b[0], b[3] - b[1]
    return w * h if normalized else (w + 1) * (h + 1)


def jaccard(b1, b2, normalized):
    """nms_util.h JaccardOverlap on two numpy boxes of one float type."""
    if b2[0] > b1[2] or b2[2] < b1[0] or b2[1] > b1[3] or b2[3] < b1[1]:
        return b1.dtype.type(0)
    norm = b1.dtype.type(0 if normalized else 1)
    iw = min(b1[2], b2[2]) - max(b1[0], b2[0]) + norm
    ih = min(b1[3], b2[3]) - max(b1[1], b2[1]) + norm
    inter = iw * ih
    return inter / (_area(b1, normalized) + _area(b2, normalized) - inter)


def _areas(b, normalized):
    """_area of every row of b, [K, 4]."""
    w, h = b[:, 2] - b[:, 0], b[:, 3] - b[:, 1]
    one = b.dtype.type(1)
    a = w * h if normalized else (w + one) * (h + one)
    return np.where((b[:, 2] < b[:, 0]) | (b[:, 3] < b[:, 1]), b.dtype.type(0), a)


def _py_min(a, b):
    """Python's / std::min(a, b): b only when b < a (a NaN b leaves a)."""
    return np.where(b < a, b, a)


def _py_max(a, b):
    """Python's / std::max(a, b): b only when b > a."""
    return np.where(b > a, b, a)


def jaccard_matrix(b1, b2, normalized):
    """[len(b1), len(b2)] of jaccard(b1[i], b2[j]): the same IEEE operations in the boxes'
    type, element for element, so every bit (NaN, inf, signed zero) is jaccard's."""
    t = b1.dtype.type
    p = [b1[:, k][:, None] for k in range(4)]
    q = [b2[:, k][None, :] for k in range(4)]
    apart = (q[0] > p[2]) | (q[2] < p[0]) | (q[1] > p[3]) | (q[3] < p[1])
    norm = t(0 if normalized else 1)
    iw = _py_min(p[2], q[2]) - _py_max(p[0], q[0]) + norm
    ih = _py_min(p[3], q[3]) - _py_max(p[1], q[1]) + norm
    inter = iw * ih
    iou = inter / (_areas(b1, normalized)[:, None] + _areas(b2, normalized)[None, :] - inter)
    return np.where(apart, t(0), iou)


def _iou_blocks(boxes, candidates, sizes, normalized):
    """For an image whose classes share their boxes: a function giving jaccard_matrix of
    boxes[order] as a block of one matrix over the candidate boxes (those some class may
    take), computed once -- when that matrix costs no more than the classes' own (`sizes`:
    how many boxes each class takes); else None and each class computes its own."""
    rows = np.flatnonzero(candidates)
    if len(rows) > 64 and len(rows) ** 2 > 2 * sum(k * k for k in sizes):
        return None
    pos = np.zeros(len(boxes), np.int64)
    pos[rows] = np.arange(len(rows))
    iou = jaccard_matrix(boxes[rows], boxes[rows], normalized)

    def block(order):  # order: [n] or [C, n] box indices; [.., n, n] IoUs
        at = pos[order]
        return iou[at[..., :, None], at[..., None, :]]
    return block


def _partial_desc(scores, perm, k):
    """std::partial_sort(perm, perm + k, end, score[a] > score[b]): libstdc++'s heap select,
    step for step (stl_order.partial_sort), so ties and NaN scores (which that comparator
    cannot order) come out where Paddle's come out; the first k."""
    v = list(perm)
    if k == 0:
        return []
    # distinct, non-NaN keys down to the (k+1)-th have one order: any sort gives it; only
    # ties (or NaN) there need libstdc++'s own steps
    key = np.asarray(scores, np.float64)[np.asarray(v, np.int64)]
    if not np.isnan(key).any():
        order = np.argsort(-key, kind="stable")
        top = key[order[:k + 1]]
        if not (top[:-1] == top[1:]).any():
            return [v[i] for i in order[:k].tolist()]
    s = scores.tolist() if isinstance(scores, np.ndarray) else scores
    partial_sort(v, 0, k, len(v), lambda a, b: s[a] > s[b])
    return v[:k]


def _linear_decay(iou, max_iou, t):
    """decay_score<T, false>: (1. - iou) / (1. - max_iou) in double, cast to T; a max_iou of
    1 (identical boxes) gives inf, or NaN over 0, as the C++ division does."""
    return t((np.float64(1.0) - np.float64(iou)) / (np.float64(1.0) - np.float64(max_iou)))


def _matrix_nms_class(boxes, scores, score_threshold, post_threshold, sigma, top_k, normalized,
                      gaussian, iou_of=None):
    """One class of MatrixNMSKernel: (kept box indices, their decayed scores)."""
    sel, dec, _ = _matrix_nms_image(boxes, scores[None], score_threshold, post_threshold,
                                    sigma, top_k, normalized, gaussian, iou_of)
    return sel, dec


def _matrix_nms_image(boxes, scores, score_threshold, post_threshold, sigma, top_k, normalized,
                      gaussian, iou_of=None):
    """MatrixNMSKernel's classes of one image at once: scores [C, M] (a row per class) ->
    (kept box indices, their decayed scores, their rows of `scores`), class by class in the
    C++'s order. Each class's [n, n] block of IoUs and decays is the C++ loops' values
    element for element; the classes are padded to the longest and masked."""
    t = boxes.dtype.type
    perms = []
    for row in scores:
        perm = np.flatnonzero(~(row <= score_threshold)).tolist()  # remove_if, stable
        n = len(perm) if top_k <= -1 else min(len(perm), top_k)
        if perm and n == 0:  # nms_top_k 0: the C++ then writes iou_max[0] of an empty vector
            raise ValueError("matrix_nms: nms_top_k 0 keeps no box to decay against; Paddle's "
                             "kernel crashes on it (SIGSEGV); use -1 for every box")
        perms.append(_partial_desc(row, perm, n) if perm else [])
    live = [r for r, p in enumerate(perms) if p]
    if not live:
        return [], [], []
    c, n = len(live), max(len(perms[r]) for r in live)
    at = np.zeros((c, n), np.int64)
    valid = np.zeros((c, n), bool)
    for k, r in enumerate(live):
        at[k, :len(perms[r])] = perms[r]
        valid[k, :len(perms[r])] = True
    sc = scores[np.asarray(live)[:, None], at]
    if iou_of is not None:
        iou = iou_of(at)
    else:
        iou = np.zeros((c, n, n), boxes.dtype)
        for k, r in enumerate(live):
            box = boxes[perms[r]]
            iou[k, :len(box), :len(box)] = jaccard_matrix(box, box, normalized)
    # iou[i, j] for j < i (the C++ fills only those); iou_max[i] = std::max over them from
    # 0: a NaN never wins and neither does anything <= 0, so the max of the positive ones
    lower = np.tri(n, n, -1, dtype=bool)[None] & valid[:, None, :] & valid[:, :, None]
    iou_max = np.where(lower & (iou > 0), iou, t(0)).max(axis=2)
    if gaussian:  # std::exp((max_iou^2 - iou^2) * sigma) in T: expf for float
        arg = (iou_max[:, None, :] * iou_max[:, None, :] - iou * iou) * t(sigma)
        fn = c_numerics.expf if t is np.float32 else c_numerics.exp
        d = np.zeros((c, n, n), boxes.dtype)
        # expf of each distinct argument once (disjoint boxes repeat one per column)
        args, back = np.unique(arg[lower], return_inverse=True)
        d[lower] = np.array([fn(x) for x in args.tolist()], boxes.dtype)[back]
    else:  # decay_score<T, false>: (1. - iou) / (1. - max_iou) in double, cast to T
        d = ((np.float64(1.0) - iou.astype(np.float64))
             / (np.float64(1.0) - iou_max.astype(np.float64))[:, None, :]).astype(boxes.dtype)
    # min_decay = std::min(min_decay, d) from 1 over j < i: a NaN d leaves it; a zero min may
    # be -0 or +0 by which came first, so those rows take the C++'s steps
    dm = np.where(lower & ~np.isnan(d), d, t(np.inf))
    min_decay = np.minimum(dm.min(axis=2), t(1))
    for k, i in zip(*np.nonzero(min_decay == 0)):
        m = t(1)
        for j in range(i):
            m = min(m, d[k, i, j])
        min_decay[k, i] = m
    ds = min_decay * sc
    ds[:, 0] = sc[:, 0]  # the top box keeps its score, if above post_threshold
    keep = ~(ds <= post_threshold)  # a NaN decayed score is kept, as the C++'s `continue`
    keep[:, 0] = sc[:, 0] > post_threshold
    keep &= valid
    k, i = np.nonzero(keep)
    return at[k, i].tolist(), list(ds[k, i]), np.asarray(live)[k].tolist()


@REGISTRY.register("pd_op.matrix_nms", since=1)
def matrix_nms(bboxes, scores, *, score_threshold=0.0, nms_top_k=-1, keep_top_k=-1,
               post_threshold=0.0, use_gaussian=False, gaussian_sigma=2.0, background_label=0,
               normalized=True):
    """MatrixNMSKernel: per class, the boxes above score_threshold by score (nms_top_k of
    them) decay by their IoU with every higher box (linear (1-iou)/(1-max_iou) or gaussian);
    those above post_threshold are pooled over classes and the keep_top_k best kept, as rows
    [class, decayed score, box], with the box's flat index (int32) and a count per image.

    Every step is the C++'s on IEEE values: a 0 / 0 IoU (zero-area boxes) is NaN, identical
    boxes make the linear decay inf or NaN, NaN and inf scores go through the same
    comparisons, and both sorts are libstdc++'s partial_sort (not stable)."""
    b, s = bboxes.detach().cpu().numpy(), scores.detach().cpu().numpy()
    t = b.dtype.type
    rows, index, counts = [], [], []
    with np.errstate(all="ignore"):  # inf and NaN are results here, as in the C++
        for n in range(s.shape[0]):
            idx, sc, cls = [], [], []
            fg = [c for c in range(s.shape[1]) if c != background_label]
            over = ~(s[n, fg] <= t(score_threshold))
            sizes = over.sum(axis=1).tolist()
            iou_of = _iou_blocks(b[n], over.any(axis=0), [k if nms_top_k <= -1 else
                                                          min(k, nms_top_k) for k in sizes],
                                 normalized)
            idx, sc, rank = _matrix_nms_image(b[n], s[n, fg], t(score_threshold),
                                              t(post_threshold), gaussian_sigma, nms_top_k,
                                              normalized, use_gaussian, iou_of)
            cls = [fg[r] for r in rank]
            k = len(idx) if keep_top_k < 0 else min(len(idx), keep_top_k)
            best = np.asarray(_partial_desc(np.array(sc, b.dtype), range(len(idx)), k), np.int64)
            at = np.asarray(idx, np.int64)[best]
            rows += _rows(np.asarray(cls, b.dtype)[best], np.array(sc, b.dtype)[best], b[n, at])
            index += (n * s.shape[2] + at).tolist()
            counts.append(k)
    return _detections(rows, index, counts, b, bboxes.device)


def _rows(label, score, box):
    """[label, score, box] rows of the output for arrays of the boxes' type (a list of lists
    of Python floats, which hold those values exactly)."""
    out = np.empty((len(box), box.shape[-1] + 2), box.dtype)
    out[:, 0], out[:, 1], out[:, 2:] = label, score, box
    return out.tolist()


def _detections(rows, index, counts, b, device):
    out = np.array(rows, b.dtype).reshape(-1, b.shape[-1] + 2)
    return (torch.as_tensor(out, device=device),
            torch.tensor(index, dtype=torch.int32, device=device).reshape(-1, 1),
            torch.tensor(counts, dtype=torch.int32, device=device))


def _nms_fast(boxes, scores, score_threshold, nms_threshold, eta, top_k, normalized,
              iou_of=None):
    """NMSFast: greedy over the boxes above score_threshold by score (top_k of them); eta < 1
    shrinks the threshold after each kept box while it is above 0.5."""
    above = np.flatnonzero(scores > score_threshold)
    # std::stable_sort by descending score (NaN is not above the threshold)
    order = above[np.argsort(-scores[above], kind="stable")]
    if top_k > -1:
        order = order[:top_k]
    # ok[i, k]: candidate i survives kept box k (jaccard <= thr; a NaN IoU suppresses)
    iou = iou_of(order) if iou_of else jaccard_matrix(boxes[order], boxes[order], normalized)
    order = order.tolist()
    kept, thr = [], nms_threshold
    if not (eta < 1):  # a fixed threshold: each kept box strikes out the candidates it overlaps
        # bit j of ok[k]: candidate j survives box k; the live candidates are a bit set too
        ok = np.packbits((iou <= thr).T, axis=1, bitorder="little")
        alive, i = (1 << len(order)) - 1, 0
        while alive:
            kept.append(i)
            alive &= int.from_bytes(ok[i].tobytes(), "little") & ~((2 << i) - 1)
            i = (alive & -alive).bit_length() - 1  # the next live candidate
        return [order[i] for i in kept]
    for i in range(len(order)):
        if (iou[i, kept] <= thr).all():
            kept.append(i)
            if thr > 0.5:
                thr *= eta
    return [order[i] for i in kept]


def _nms_images(b, s, rois_num):
    """multiclass_nms3's images: (per-class boxes, per-class scores, index of (class, box),
    whether the kept boxes of a class come back in box order). [N, M, 4] boxes with [N, C, M]
    scores share their boxes over classes; [R, C, 4] boxes with [R, C] scores (a two-stage
    detector's box head: one box per class) hold rois_num[n] rows per image, and their index
    is (first row of the image + row) * C + class, as phi's MultiClassOutput writes it."""
    if s.ndim == 3:
        m = s.shape[2]
        for n in range(s.shape[0]):
            yield (lambda c, n=n: b[n]), (lambda c, n=n: s[n, c]), (lambda c, i, n=n: n * m + i), False
        return
    classes = s.shape[1]
    counts = [s.shape[0]] if rois_num is None else [int(k) for k in rois_num.reshape(-1).tolist()]
    start = 0
    for k in counts:
        lo, hi = start, start + k
        yield ((lambda c, lo=lo, hi=hi: b[lo:hi, c]), (lambda c, lo=lo, hi=hi: s[lo:hi, c]),
               (lambda c, i, lo=lo: (lo + i) * classes + c), True)
        start = hi


@REGISTRY.register("pd_op.multiclass_nms3", since=1)
def multiclass_nms3(bboxes, scores, rois_num=None, *, score_threshold=0.0, nms_top_k=-1,
                    keep_top_k=-1, nms_threshold=0.3, normalized=True, nms_eta=1.0,
                    background_label=0):
    """MultiClassNMSKernel for [N, M, 4] boxes and [N, C, M] scores, or [R, C, 4] boxes and
    [R, C] scores with rois_num (see _nms_images): NMSFast per class; past keep_top_k the best
    (stable by descending score, in class then kept order) survive; rows [label, score, box]
    by label, then in NMS order (box order for [R, C] scores), with an int32 index and a
    count per image."""
    b, s = bboxes.detach().cpu().numpy(), scores.detach().cpu().numpy()
    t = b.dtype.type
    rows, index, counts = [], [], []
    with np.errstate(all="ignore"):  # inf and NaN are results here, as in the C++
        for boxes_of, scores_of, index_of, box_order in _nms_images(b, s, rois_num):
            picked = {}
            fg = [c for c in range(s.shape[1]) if c != background_label]
            iou_of = None
            if not box_order and len(scores_of(0)):  # the classes share the image's boxes
                over = np.stack([scores_of(c) for c in fg]) > t(score_threshold) if fg else \
                    np.zeros((0, len(scores_of(0))), bool)
                sizes = over.sum(axis=1).tolist()
                iou_of = _iou_blocks(boxes_of(0), over.any(axis=0), [
                    k if nms_top_k <= -1 else min(k, nms_top_k) for k in sizes], normalized)
            if len(scores_of(0)):
                for c in fg:
                    kept = _nms_fast(boxes_of(c), scores_of(c), t(score_threshold),
                                     t(nms_threshold), t(nms_eta), nms_top_k, normalized, iou_of)
                    picked[c] = sorted(kept) if box_order else kept
            total = sum(len(v) for v in picked.values())
            if -1 < keep_top_k < total:
                pairs = [(scores_of(c)[i], c, i) for c in sorted(picked) for i in picked[c]]
                # std::stable_sort by SortScorePairDescend on std::pair<float, ...>: float64
                # scores compare as float, NaN as libstdc++'s merge steps leave it
                pairs = [(float(np.float32(v)), c, i) for v, c, i in pairs]
                if any(v != v for v, _, _ in pairs):
                    stl_order.stable_sort(pairs, lambda a, b: a[0] > b[0])
                else:  # a strict weak order: every stable sort gives std::stable_sort's
                    pairs.sort(key=lambda p: -p[0])
                pairs = pairs[:keep_top_k]
                picked = {}
                for _, c, i in pairs:
                    picked.setdefault(c, []).append(i)
                if box_order:
                    picked = {c: sorted(v) for c, v in picked.items()}
                total = keep_top_k
            for c in sorted(picked):
                at = np.asarray(picked[c], np.int64)
                rows += _rows(t(c), scores_of(c)[at], boxes_of(c)[at])
                index += [index_of(c, i) for i in picked[c]]
            counts.append(total)
    return _detections(rows, index, counts, b, bboxes.device)


_BBOX_CLIP = np.log(1000.0 / 16.0)  # kBBoxClipDefault, a double


def _pre_nms(scores, top_n, nms_after=True):
    """ProposalForOneImage's candidates: std::sort of all indices by descending score, or
    std::nth_element at top_n and the first top_n in the order it leaves them -- libstdc++'s
    algorithms step for step (stl_order), since tied scores (a uniform image gives many) come
    out in their order, and NMS then takes ties by position."""
    n = scores.size
    if (nms_after or top_n <= 0 or top_n >= n) and n and not np.isnan(scores).any() \
            and np.unique(scores).size == n:
        # no tie and no NaN: std::sort has one answer; nth_element's first top_n are the
        # top_n best, in an order only the nms_thresh <= 0 output shows (NMS re-sorts them)
        order = np.argsort(-scores.astype(np.float64), kind="stable")
        return (order if top_n <= 0 or top_n >= n else order[:top_n]).tolist()
    order = list(range(n))
    s = scores.tolist()

    def greater(i, j):
        return s[i] > s[j]

    if top_n <= 0 or top_n >= len(order):
        stl_order.sort(order, 0, len(order), greater)
        return order
    stl_order.nth_element(order, top_n, greater)
    return order[:top_n]


def _jaccard_grid(b1, b2, normalized):
    """[len(b2), len(b1)]: entry [i, j] is jaccard(b1[j], b2[i]), element for element as
    the scalar version computes it (std::min / std::max argument order kept: NaN coordinates
    pick the same operand)."""
    t = b1.dtype.type
    p = [b1[:, k][None, :] for k in range(4)]
    q = [b2[:, k][:, None] for k in range(4)]
    apart = (q[0] > p[2]) | (q[2] < p[0]) | (q[1] > p[3]) | (q[3] < p[1])
    norm = t(0 if normalized else 1)

    def cmin(a, b):
        return np.where(b < a, b, a)

    def cmax(a, b):
        return np.where(a < b, b, a)

    def areas(b):
        w, h = b[:, 2] - b[:, 0], b[:, 3] - b[:, 1]
        a = w * h if normalized else (w + norm) * (h + norm)
        return np.where((b[:, 2] < b[:, 0]) | (b[:, 3] < b[:, 1]), t(0), a)

    iw = cmin(p[2], q[2]) - cmax(p[0], q[0]) + norm
    ih = cmin(p[3], q[3]) - cmax(p[1], q[1]) + norm
    inter = iw * ih
    return np.where(apart, t(0), inter / (areas(b1)[None, :] + areas(b2)[:, None] - inter))


# Candidates up to which generate_proposals' NMS computes every IoU at once (n * n floats);
# past it, one row per kept box.
_NMS_GRID = 1024


def _nms_suppress(prop, sc, thr, normalized, top_n=0):
    """generate_proposals' NMS loop for a fixed threshold (eta >= 1) and no NaN score: the
    same picks as testing each candidate against every kept box, found by letting each kept
    box strike out the later candidates it overlaps (`not iou <= thr`: a NaN IoU strikes).
    top_n > 0: stop at that many picks (the caller keeps no more)."""
    order = np.argsort(sc, kind="stable")[::-1]  # the stable ascending order, from the back
    boxes = prop[order]
    n = len(order)
    sel = []
    if n <= _NMS_GRID:
        # row i's bit j: box i strikes candidate j (bits j <= i are past: never read again);
        # the picks walk one int of bits
        strike = ~(_jaccard_grid(boxes, boxes, normalized) <= thr)
        rows = np.packbits(strike, axis=1, bitorder="little")
        alive, picked = (1 << n) - 1, order.tolist()
        for pos in range(n):
            if alive >> pos & 1:
                sel.append(picked[pos])
                if len(sel) == top_n:
                    break
                alive &= ~int.from_bytes(rows[pos].tobytes(), "little")
        return sel
    alive = np.ones(n, bool)
    for pos in range(n):
        if not alive[pos]:
            continue
        sel.append(int(order[pos]))
        if len(sel) == top_n:
            break
        alive[pos + 1:] &= _jaccard_grid(boxes[pos + 1:], boxes[pos:pos + 1],
                                         normalized)[0] <= thr
    return sel


def _std_exp(a):
    """std::exp element by element in a's type: glibc's expf for float32 (numpy's vectorised
    float32 exp is a last bit away from it on ~40% of inputs), exp for float64.  expf is
    within 0.502 ulp (glibc >= 2.27): it rounds as the double exp rounded to float does except
    near a rounding midpoint; only elements within 0.05 ulp of one (and powers of two,
    subnormals, inf, NaN) ask the C library one by one."""
    if a.dtype != np.float32:
        return np.array([c_numerics.exp(x) for x in a.tolist()], a.dtype).reshape(a.shape)
    wide = np.exp(a.astype(np.float64))
    out = wide.astype(np.float32)
    ulp = np.spacing(out).astype(np.float64)
    off = np.abs(np.abs(wide - out.astype(np.float64)) - ulp / 2)
    hard = ~np.isfinite(out) | (out < np.finfo(np.float32).tiny) | (off <= ulp / 20) \
        | (np.frexp(out)[0] == 0.5)
    for i in np.flatnonzero(hard).tolist():
        out.flat[i] = c_numerics.expf(float(a.flat[i]))
    return out


def _proposals_one(scores, deltas, im, anchors, variances, pre_nms_top_n, post_nms_top_n,
                   nms_thresh, min_size, eta, pixel_offset):
    t = scores.dtype.type
    n = scores.size
    order = _pre_nms(scores, pre_nms_top_n, nms_thresh > 0)
    sc, d, a, v = scores[order], deltas[order], anchors[order], variances[order]
    off = t(1 if pixel_offset else 0)
    aw = a[:, 2] - a[:, 0] + off
    ah = a[:, 3] - a[:, 1] + off
    acx = (a[:, 0] + 0.5 * aw).astype(scores.dtype)
    acy = (a[:, 1] + 0.5 * ah).astype(scores.dtype)
    cx = v[:, 0] * d[:, 0] * aw + acx
    cy = v[:, 1] * d[:, 1] * ah + acy
    clip = t(_BBOX_CLIP)
    wh = _std_exp(np.minimum(v[:, 2:] * d[:, 2:], clip))  # one call for both sizes
    w, h = wh[:, 0] * aw, wh[:, 1] * ah
    prop = np.stack([cx - w / t(2), cy - h / t(2), cx + w / t(2) - off, cy + h / t(2) - off], 1)
    im_h, im_w = im[0], im[1]
    lim = np.array([im_w - off, im_h - off, im_w - off, im_h - off], scores.dtype)
    prop = np.maximum(np.minimum(prop, lim), t(0))  # ClipTiledBoxes
    ms = t(max(np.float32(min_size), np.float32(1.0)))
    ws, hs = prop[:, 2] - prop[:, 0] + off, prop[:, 3] - prop[:, 1] + off  # FilterBoxes
    ok = (ws >= ms) & (hs >= ms)
    if pixel_offset:
        ok &= (prop[:, 0] + ws / t(2) <= im_w) & (prop[:, 1] + hs / t(2) <= im_h)
    keep = np.flatnonzero(ok).tolist()
    if not keep:
        return np.zeros((1, 4), scores.dtype), np.zeros((1, 1), scores.dtype)
    prop, sc = prop[keep], sc[keep]
    if nms_thresh <= 0:
        return prop, sc.reshape(-1, 1)
    # nms_util.h NMS: ascending stable sort, taken from the back (ties: the later box first)
    if eta >= 1 and not np.isnan(sc).any():
        sel = _nms_suppress(prop, sc, t(nms_thresh), not pixel_offset, post_nms_top_n)
    else:
        asc = sorted(range(len(sc)), key=lambda i: sc[i])
        sel, thr = [], t(nms_thresh)
        while asc:
            i = asc.pop()
            if all(jaccard(prop[i], prop[k], not pixel_offset) <= thr for k in sel):
                sel.append(i)
                if eta < 1 and thr > 0.5:
                    thr *= t(eta)
    if 0 < post_nms_top_n < len(sel):
        sel = sel[:post_nms_top_n]
    return prop[sel], sc[sel].reshape(-1, 1)


@REGISTRY.register("pd_op.generate_proposals", since=1)
def generate_proposals(scores, bbox_deltas, im_shape, anchors, variances, *, pre_nms_top_n=6000,
                       post_nms_top_n=1000, nms_thresh=0.5, min_size=0.1, eta=1.0,
                       pixel_offset=True):
    """GenerateProposalsKernel (v2) per image: scores and deltas to [H*W*A], the
    pre_nms_top_n best decoded against their anchors (BoxCoder, exp clipped at
    log(1000/16)), clipped to the image, small boxes dropped (none left: one zero box),
    then NMS and the post_nms_top_n first; rois, probabilities and a count per image."""
    s = scores.detach().cpu().numpy()
    d = bbox_deltas.detach().cpu().numpy()
    im = im_shape.detach().cpu().numpy()
    a = anchors.detach().cpu().numpy().reshape(-1, 4)
    v = variances.detach().cpu().numpy().reshape(-1, 4)
    rois, probs, counts = [], [], []
    with np.errstate(all="ignore"):  # inf and NaN are results here, as in the C++
        for n in range(s.shape[0]):
            sn = s[n].transpose(1, 2, 0).reshape(-1)
            dn = d[n].transpose(1, 2, 0).reshape(-1, 4)
            r, p = _proposals_one(sn, dn, im[n], a, v, pre_nms_top_n, post_nms_top_n, nms_thresh,
                                  min_size, eta, pixel_offset)
            rois.append(r)
            probs.append(p)
            counts.append(len(r))
    dev = scores.device
    return (torch.as_tensor(np.concatenate(rois), device=dev),
            torch.as_tensor(np.concatenate(probs), device=dev),
            torch.tensor(counts, dtype=torch.int32, device=dev))


def _fpn_levels(rois, min_level, max_level, refer_level, refer_scale, pixel_offset):
    """Each roi's level: floor(log2(sqrt(BBoxArea) / refer_scale + 1e-6) + refer_level) in the
    rois' type T, clamped to [min_level, max_level]."""
    t = rois.dtype.type
    x0, y0, x1, y1 = (rois[:, k] for k in range(4))
    w, h = x1 - x0, y1 - y0
    area = (w + t(1)) * (h + t(1)) if pixel_offset else w * h
    area = np.where((x1 < x0) | (y1 < y0), t(0), area).astype(rois.dtype)  # BBoxArea
    ratio = np.sqrt(area) / t(refer_scale) + t(1e-6)
    levels = []
    for r in ratio.tolist():
        # std::log2 of a float is log2f (glibc's, not the double log2 rounded to float)
        lg = t(c_numerics.log2f(r) if t is np.float32 else c_numerics.log2(r))
        # floor in T, then static_cast<int>: NaN and inf give INT_MIN, so min_level
        lvl = c_int_cast(float(np.floor(lg + t(refer_level))), torch.int32)
        levels.append(min(max_level, max(lvl, min_level)))
    return levels


@REGISTRY.register("pd_op.distribute_fpn_proposals", since=1)
def distribute_fpn_proposals(fpn_rois, rois_num=None, *, min_level=2, max_level=5,
                             refer_level=4, refer_scale=224, pixel_offset=False):
    """DistributeFpnProposalsKernel: every roi goes to the FPN level of its scale
    (_fpn_levels); a level's rois keep their order (image by image), restore_index [N, 1]
    gives each roi's row in the levels concatenated, and multi_level_rois_num each level's
    count per image (int32).  Without rois_num the rois are one image: Paddle reads the
    images from the input's LoD, and the level rois and restore_index do not depend on how
    the rows split into images."""
    r = fpn_rois.detach().cpu().numpy()
    counts = ([int(c) for c in rois_num.reshape(-1).tolist()] if rois_num is not None
              else [r.shape[0]])
    total = sum(counts)
    if total > r.shape[0] or min(counts, default=0) < 0:
        # (Paddle's DenseTensor::Slice refuses a slice past the rows: InvalidArgument)
        raise ValueError(f"distribute_fpn_proposals: rois_num {counts} asks for {total} rois "
                         f"but fpn_rois has {r.shape[0]} rows")
    r = r[:total]
    with np.errstate(all="ignore"):  # inf and NaN areas are levels too, as in the C++
        levels = _fpn_levels(r, min_level, max_level, refer_level, refer_scale, pixel_offset)
    nlev = max_level - min_level + 1
    image = [b for b, c in enumerate(counts) for _ in range(c)]
    rows = [[i for i in range(total) if levels[i] == min_level + k] for k in range(nlev)]
    dev = fpn_rois.device
    multi = [fpn_rois[torch.tensor(ix, dtype=torch.int64, device=dev)].reshape(-1, 4)
             for ix in rows]
    restore = [0] * total
    for pos, i in enumerate(i for ix in rows for i in ix):
        restore[i] = pos
    per_image = [[0] * len(counts) for _ in range(nlev)]
    for i in range(total):
        per_image[levels[i] - min_level][image[i]] += 1
    nums = [torch.tensor(c, dtype=torch.int32, device=dev) for c in per_image]
    return (multi, nums,
            torch.tensor(restore, dtype=torch.int32, device=dev).reshape(-1, 1))
