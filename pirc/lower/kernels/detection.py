"""Detection ops: nms, box_coder, prior_box, anchor_generator, yolo_box, bipartite_match,
collect_fpn_proposals.

nms is phi's greedy pass over boxes already in score order: box i, unless suppressed,
suppresses every later box whose IoU with it (CalculateIoU's float arithmetic, vectorised
here element for element) exceeds the threshold; the indices of the survivors come back
(int64).  prior_box and anchor_generator depend on shapes only, so their boxes are computed at
trace time in numpy with the C++ kernels' mix of float and double arithmetic (a `/ 2.` is a
double division, a float `w * stride` stays float).  box_coder follows BoxCoderKernel's
formulas, encoding to [targets, priors, 4] and decoding along `axis`.
"""

from __future__ import annotations

import numpy as np
import torch

from ...runtime.registry import REGISTRY

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
    fh, fw = int(input.shape[2]), int(input.shape[3])
    ih, iw = int(image.shape[2]), int(image.shape[3])
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
    dt = input.dtype
    return (torch.as_tensor(out, device=input.device).to(dt),
            torch.as_tensor(var, device=input.device).to(dt))


@REGISTRY.register("pd_op.anchor_generator", since=1)
def anchor_generator(input, *, anchor_sizes=(), aspect_ratios=(), variances=(),  # noqa: A002
                     stride=(16.0, 16.0), offset=0.5):
    fh, fw = int(input.shape[2]), int(input.shape[3])
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
                    base_w = np.round(np.sqrt((sw * sh) / ar))
                    base_h = np.round(base_w * ar)
                    aw = (F32(size) / sw) * base_w
                    ah = (F32(size) / sh) * base_h
                    # 0.5 * (...) is a double product; the sums are cast back to float
                    out[h, w, idx] = [float(x_ctr) - 0.5 * float(aw - F32(1)),
                                      float(y_ctr) - 0.5 * float(ah - F32(1)),
                                      float(x_ctr) + 0.5 * float(aw - F32(1)),
                                      float(y_ctr) + 0.5 * float(ah - F32(1))]
                    idx += 1
    var = np.broadcast_to(np.array(list(variances), np.float32), out.shape).copy()
    return (torch.as_tensor(out, device=input.device).to(input.dtype),
            torch.as_tensor(var, device=input.device).to(input.dtype))


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
    """CollectFpnProposalsKernel: every level's rois by descending score (stable: ties keep
    level, then roi order), the first post_nms_topn, then stably regrouped by image."""
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
    entries.sort(key=lambda e: -e[0])
    top = sorted(entries[:min(post_nms_topn, len(entries))], key=lambda e: e[1])
    batch = (multi_level_rois_num[0].numel() if multi_level_rois_num is not None else 1)
    counts = [0] * batch
    for e in top:
        counts[e[1]] += 1
    index = torch.tensor([e[2] for e in top], dtype=torch.int64, device=rois.device)
    return rois[index], torch.tensor(counts, dtype=torch.int32, device=rois.device)
