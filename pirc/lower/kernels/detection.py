"""Detection ops: nms, box_coder, prior_box, anchor_generator.

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
