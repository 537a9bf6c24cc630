"""yolo_loss (paddle.vision.ops.yolo_loss, YOLOv3's training loss) as phi's CPU YoloLossKernel
computes it, scalar for scalar.

The kernel mixes float and double: sigmoid is 1.0 / (1.0 + expf(-x)) in double, the sigmoid
cross entropy (x > 0 ? x : 0.0) - x * label + log(1.0 + expf(-|x|)) in double, rounded to
float on return; box edges are c -+ w / 2.0 in double; everything else is float. Those
promotions are replayed with numpy scalars (expf / logf as the double function rounded to
float). The losses accumulate per image in the kernel's order: for each valid ground-truth
box (w and h >= 1e-6) whose best anchor (by IoU of the shapes) is in anchor_mask, its
location terms (x, y: sigmoid cross entropy; w, h: L1 on the log size), times
(2 - w*h) * score, then its class terms (label-smoothed when asked), times score; then,
after every image, the objectness terms: positive where a box was assigned (times its
score), negative where no prediction overlaps a box by more than ignore_thresh. Returns
(loss [n], objectness_mask [n, mask, h, w], gt_match_mask [n, boxes] int32).
"""

from __future__ import annotations

import numpy as np
import torch

from ...runtime.registry import REGISTRY
from .operands import int_list

f32, f64 = np.float32, np.float64


def _expf(v):
    return f32(np.exp(f64(v)))


def _logf(v):
    return f32(np.log(f64(v)))


def _sigmoid(v):
    return f32(f64(1.0) / (f64(1.0) + f64(_expf(-v))))


def _sce(x, label):
    pos = f64(x) if x > 0 else f64(0.0)
    return f32(pos - f64(f32(x * label)) + np.log(f64(1.0) + f64(_expf(-abs(x)))))


def _overlap(c1, w1, c2, w2):
    left = max(f32(f64(c1) - f64(w1) / 2.0), f32(f64(c2) - f64(w2) / 2.0))
    right = min(f32(f64(c1) + f64(w1) / 2.0), f32(f64(c2) + f64(w2) / 2.0))
    return f32(right - left)


def _iou(b1, b2):
    w = _overlap(b1[0], b1[2], b2[0], b2[2])
    h = _overlap(b1[1], b1[3], b2[1], b2[3])
    inter = f32(0.0) if (w < 0 or h < 0) else f32(w * h)
    union = f32(f32(f32(b1[2] * b1[3]) + f32(b2[2] * b2[3])) - inter)
    return f32(inter / union)


@REGISTRY.register("pd_op.yolo_loss", since=1)
def yolo_loss(x, gt_box, gt_label, gt_score=None, *, anchors=(), anchor_mask=(), class_num=1,
              ignore_thresh=0.7, downsample_ratio=32, use_label_smooth=True, scale_x_y=1.0):
    with np.errstate(all="ignore"):   # inf / NaN inputs give what the C++ arithmetic gives
        return _yolo_loss(x, gt_box, gt_label, gt_score, int_list(anchors),
                          int_list(anchor_mask), int(class_num), f32(ignore_thresh),
                          int(downsample_ratio), bool(use_label_smooth), f32(scale_x_y))


def _yolo_loss(xt, gt_box, gt_label, gt_score, anchors, mask, class_num, ignore_thresh,
               downsample_ratio, smooth, scale):
    x = xt.detach().cpu().numpy().astype(np.float32)
    gtb = gt_box.detach().cpu().numpy().astype(np.float32)
    gtl = gt_label.detach().cpu().numpy().astype(np.int64)
    n, _, h, w = x.shape
    b = gtb.shape[1]
    an_num, mask_num = len(anchors) // 2, len(mask)
    input_size = downsample_ratio * h
    bias = f32(f32(-0.5) * f32(scale - f32(1.0)))
    score = (gt_score.detach().cpu().numpy().astype(np.float32) if gt_score is not None
             else np.ones((n, b), np.float32))
    pos, neg = f32(1.0), f32(0.0)
    if smooth:
        weight = min(f64(1.0) / f64(f32(class_num)), f64(1.0) / 40)
        pos, neg = f32(f64(1.0) - weight), f32(weight)
    # x as [n, mask, 5 + class, h, w]: entry e of anchor j at cell (k, l)
    xv = x.reshape(n, mask_num, 5 + class_num, h, w)
    loss = np.zeros(n, np.float32)
    obj = np.zeros((n, mask_num, h, w), np.float32)
    match = np.zeros((n, b), np.int32)
    valid = ~((gtb[:, :, 2] < 1e-6) | (gtb[:, :, 3] < 1e-6))
    for i in range(n):
        gts = [tuple(gtb[i, t]) for t in range(b) if valid[i, t]]
        for j in range(mask_num):
            a = mask[j]
            for k in range(h):
                for l in range(w):
                    e = xv[i, j, :, k, l]
                    pred = (f32(f32(f32(f32(l) + f32(_sigmoid(e[0]) * scale)) + bias) / f32(h)),
                            f32(f32(f32(k) + f32(_sigmoid(e[1]) * scale)) + bias) / f32(h),
                            f32(f32(_expf(e[2]) * f32(anchors[2 * a])) / f32(input_size)),
                            f32(f32(_expf(e[3]) * f32(anchors[2 * a + 1])) / f32(input_size)))
                    best = f32(0.0)
                    for gt in gts:
                        iou = _iou(pred, gt)
                        if iou > best:
                            best = iou
                    if best > ignore_thresh:
                        obj[i, j, k, l] = -1.0
        for t in range(b):
            if not valid[i, t]:
                match[i, t] = -1
                continue
            gx, gy, gw, gh = (f32(v) for v in gtb[i, t])
            gi, gj = int(f32(gx * f32(w))), int(f32(gy * f32(h)))
            best, best_n = f32(0.0), 0
            for an in range(an_num):
                an_box = (f32(0.0), f32(0.0), f32(f32(anchors[2 * an]) / f32(input_size)),
                          f32(f32(anchors[2 * an + 1]) / f32(input_size)))
                iou = _iou(an_box, (f32(0.0), f32(0.0), gw, gh))
                if iou > best:
                    best, best_n = iou, an
            m = mask.index(best_n) if best_n in mask else -1
            match[i, t] = m
            if m < 0:
                continue
            s = score[i, t]
            e = xv[i, m, :, gj, gi]
            tx = f32(f32(gx * f32(h)) - f32(gi))
            ty = f32(f32(gy * f32(h)) - f32(gj))
            tw = _logf(f32(f32(gw * f32(input_size)) / f32(anchors[2 * best_n])))
            th = _logf(f32(f32(gh * f32(input_size)) / f32(anchors[2 * best_n + 1])))
            sc = f32(f64(f64(2.0) - f64(f32(gw * gh))) * f64(s))
            acc = loss[i]
            acc = f32(acc + f32(_sce(e[0], tx) * sc))
            acc = f32(acc + f32(_sce(e[1], ty) * sc))
            acc = f32(acc + f32(f32(abs(f32(tw - e[2]))) * sc))
            acc = f32(acc + f32(f32(abs(f32(th - e[3]))) * sc))
            obj[i, m, gj, gi] = s
            label = int(gtl[i, t])
            for c in range(class_num):
                acc = f32(acc + f32(_sce(e[5 + c], pos if c == label else neg) * s))
            loss[i] = acc
    for i in range(n):
        acc = loss[i]
        for j in range(mask_num):
            for k in range(h):
                for l in range(w):
                    o = obj[i, j, k, l]
                    if o > 1e-5:
                        acc = f32(acc + f32(_sce(xv[i, j, 4, k, l], f32(1.0)) * o))
                    elif o > -0.5:
                        acc = f32(acc + _sce(xv[i, j, 4, k, l], f32(0.0)))
        loss[i] = acc
    dev = xt.device
    return (torch.from_numpy(loss).to(dev), torch.from_numpy(obj).to(dev),
            torch.from_numpy(match).to(dev))
