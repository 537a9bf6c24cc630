"""Streaming metric ops as Paddle's CPU kernels compute them: auc (phi/kernels/cpu/auc_kernel.cc)."""

from __future__ import annotations

import torch

from ...runtime.registry import REGISTRY


def _bins(x, label, num_thresholds):
    """The batch's positive and negative counts per bucket: the last column of x is the
    positive probability, binned as uint32(p * num_thresholds) in x's float type; a label
    above 0 counts positive, 0 negative, below 0 not at all."""
    p = x[:, -1]
    if bool(((p > 1) | (p < 0) | torch.isnan(p)).any()):
        raise ValueError("auc: the predict data must be in [0, 1]")
    idx = (p * num_thresholds).to(torch.int64)
    lab = label.reshape(-1)
    n = num_thresholds + 1
    return (torch.bincount(idx[lab > 0], minlength=n)[:n],
            torch.bincount(idx[lab == 0], minlength=n)[:n])


def _roc_area(pos, neg):
    """calcAuc: from the highest bucket down, trapezoids of (negatives so far, positives so
    far), divided by both totals when each is positive. The counts are integers and each
    trapezoid a multiple of 1/2, so the double sum is exact in any order."""
    p = torch.flip(pos, [0]).to(torch.float64).cumsum(0)
    q = torch.flip(neg, [0]).to(torch.float64).cumsum(0)
    p_prev = torch.cat([p.new_zeros(1), p[:-1]])
    q_prev = torch.cat([q.new_zeros(1), q[:-1]])
    area = ((q - q_prev).abs() * (p + p_prev) / 2.0).sum()
    tot_p, tot_q = p[-1], q[-1]
    if bool(tot_p > 0) and bool(tot_q > 0):
        area = area / tot_p / tot_q
    return area


@REGISTRY.register("pd_op.auc", since=1)
def auc(x, label, stat_pos, stat_neg, ins_tag_weight=None, *, curve="ROC",
        num_thresholds=4095, slide_steps=1):
    """AucKernel: the statistics out are the ones in plus this batch's buckets. slide_steps 0
    keeps one running row; slide_steps > 0 keeps a ring of slide_steps batches' rows, their
    sum (row slide_steps) and a step counter (the last slot): the batch replaces the row the
    counter names, in the sum too unless ins_tag_weight[0] is 0 (fake data, which with
    slide_steps 0 leaves everything as it was; Paddle's auc is then unset memory, 0 here)."""
    fake = ins_tag_weight is not None and bool(ins_tag_weight.reshape(-1)[0] == 0)
    n = num_thresholds + 1
    pos, neg = stat_pos.reshape(-1).clone(), stat_neg.reshape(-1).clone()
    if slide_steps == 0:
        if fake:
            return torch.zeros((), dtype=torch.float64), stat_pos.clone(), stat_neg.clone()
        bp, bn = _bins(x, label, num_thresholds)
        pos[:n] += bp
        neg[:n] += bn
        area = _roc_area(pos[:n], neg[:n])
    else:
        last = (slide_steps + 1) * n
        cur = (int(pos[last]) % slide_steps) * n
        total = slide_steps * n
        bp, bn = _bins(x, label, num_thresholds)
        for s, b in ((pos, bp), (neg, bn)):
            s[total:total + n] -= s[cur:cur + n]
            s[cur:cur + n] = b
            if not fake:
                s[total:total + n] += b
        area = _roc_area(pos[total:total + n], neg[total:total + n])
        pos[last] += 1
        neg[last] += 1
    return area, pos.reshape(stat_pos.shape), neg.reshape(stat_neg.shape)
