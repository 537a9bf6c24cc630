"""Forward kernels of Paddle's loss ops: bce_loss, huber_loss, kldiv_loss, log_loss, nll_loss,
sigmoid_cross_entropy_with_logits, hinge_loss, label_smooth, identity_loss, accuracy, warpctc.

Each follows its phi CPU kernel's formula in the input's dtype, operation for operation, so
the element-wise ones agree with Paddle to the bit wherever the transcendental functions do
(log / exp are the parity tolerances' business). Reductions are Paddle's sequential sums;
torch's pairwise sums differ in the last bits (also recorded as tolerances).
"""

from __future__ import annotations

import numpy as np
import torch

from ...runtime.registry import REGISTRY
from ..specialize import specializer


def _const(value, like):
    return torch.tensor(value, dtype=like.dtype)


@REGISTRY.register("pd_op.bce_loss", since=1)
def bce_loss(input, label):  # noqa: A002 - Paddle's operand name
    # (label - 1) * max(log(1 - x), -100) - label * max(log(x), -100)
    one = _const(1, input)
    return (label - one) * torch.log(one - input).clamp_min(-100) \
        - label * torch.log(input).clamp_min(-100)


@REGISTRY.register("pd_op.huber_loss", since=1)
def huber_loss(input, label, *, delta=1.0):  # noqa: A002
    # residual = label - input; 0.5 r^2 where |r| <= delta, else delta * (|r| - 0.5 delta)
    d = _const(delta, input)
    half = _const(0.5, input)
    residual = label - input
    a = residual.abs()
    out = torch.where(a <= d, half * residual * residual, d * (a - half * d))
    return out, residual


@REGISTRY.register("pd_op.kldiv_loss", since=1)
def kldiv_loss(x, label, *, reduction="mean", log_target=False):
    # log_target: exp(t) * (t - x); else t <= 0 ? 0 : t * (log t - x)
    if log_target:
        out = torch.exp(label) * (label - x)
    else:
        out = torch.where(label <= 0, torch.zeros_like(label), label * (torch.log(label) - x))
    if reduction == "none":
        return out
    total = out.sum()
    if reduction == "batchmean":
        n = x.shape[0] if x.dim() else 0
        return total / n if n > 0 else total
    if reduction == "mean":
        return out.mean()
    return total


@REGISTRY.register("pd_op.log_loss", since=1)
def log_loss(input, label, *, epsilon=1e-4):  # noqa: A002
    # -(label * log(pred + eps)) - (1 - label) * log(1 - pred + eps)
    eps, one = _const(epsilon, input), _const(1, input)
    return -(label * torch.log(input + eps)) - (one - label) * torch.log(one - input + eps)


@REGISTRY.register("pd_op.nll_loss", since=1)
def nll_loss(input, label, weight=None, *, ignore_index=-100, reduction="mean"):  # noqa: A002
    """phi NllLossRawKernel (2-D [N, C] or 4-D [N, C, H, W] input): -x[label] * w[label], 0 at
    an ignored label; sum / mean divide by the summed weights of the kept labels (mean only
    when that is not 0). total_weight is that sum (0 for 'none')."""
    index = label.to(torch.int64)
    ignored = index == ignore_index
    safe = torch.where(ignored, 0, index)
    picked = torch.gather(input, 1, safe.unsqueeze(1)).squeeze(1)
    w = torch.ones_like(picked) if weight is None else weight[safe]
    zero = torch.zeros_like(picked)
    loss = torch.where(ignored, zero, -picked * w)
    if reduction == "none":
        return loss, torch.zeros((), dtype=input.dtype)
    total_weight = torch.where(ignored, zero, w).sum()
    out = loss.sum()
    if reduction == "mean":
        out = torch.where(total_weight != 0, out / total_weight, out)
    return out, total_weight


@REGISTRY.register("pd_op.sigmoid_cross_entropy_with_logits", since=1)
def sigmoid_cross_entropy_with_logits(x, label, pos_weight=None, *, normalize=False,
                                      ignore_index=-100):
    """max(x, 0) - x * label + log(1 + exp(-|x|)) (pos_weight: below), 0 where int(label) is
    ignore_index; normalize divides by the count of labels farther than 1e-6 from
    ignore_index (an int: a count of 0 divides by 0, as Paddle's kernel does)."""
    term1 = torch.where(x > 0, x, torch.zeros_like(x))
    term3 = torch.log(_const(1, x) + torch.exp(-x.abs()))
    if pos_weight is None:
        out = term1 - x * label + term3
    else:
        # pos_weight scales log(1 + exp(-|x|)) + max(-x, 0), with max(-x, 0) taken back
        # once (no (1 - label) factor): read off the 3.0.0 and 3.3.1 wheels
        m = torch.where(x < 0, -x, torch.zeros_like(x))
        out = term1 - x * label + pos_weight * (term3 + m) - m
    out = torch.where(label.to(torch.int32) == ignore_index, torch.zeros_like(out), out)
    if normalize:
        diff = label - _const(ignore_index, label)
        eps = _const(1e-6, label)
        norm = ((diff < -eps) | (diff > eps)).sum()
        out = out / norm.to(out.dtype)
    return out


@REGISTRY.register("pd_op.hinge_loss", since=1)
def hinge_loss(logits, labels):
    # max(1 - pred * (2 * label - 1), 0)
    one = _const(1, logits)
    return (one - logits * (_const(2, labels) * labels - one)).clamp_min(0)


@REGISTRY.register("pd_op.label_smooth", since=1)
def label_smooth(label, prior_dist=None, *, epsilon=0.0):
    """(1 - eps) * label + eps / C (or + eps * prior_dist); the coefficients are computed in
    float32 (Paddle's float epsilon attribute) and then cast to the label's type."""
    eps = np.float32(epsilon)
    keep = _const(float(np.float32(1) - eps), label)
    if prior_dist is not None:
        return keep * label + _const(float(eps), label) * prior_dist.reshape(-1)
    classes = label.shape[-1]
    if classes == 0:
        return label.clone()
    return keep * label + _const(float(eps / np.float32(classes)), label)


@REGISTRY.register("pd_op.identity_loss", since=1)
def identity_loss(x, *, reduction=1):
    # 0: sum, 1: mean, 2: none (a copy)
    if reduction == 0:
        return x.sum()
    if reduction == 1:
        return x.mean()
    if reduction == 2:
        return x.clone()
    raise ValueError(f"identity_loss: reduction should be 0, 1 or 2, got {reduction}")


@REGISTRY.register("pd_op.accuracy", since=1)
def accuracy(x, indices, label):
    """phi AccuracyKernel: a row is correct when its label is among its top-k indices;
    results accuracy (float32), correct and total (int32), each 0-d."""
    n = x.shape[0]
    lab = label.reshape(n, -1)[:, :1].to(torch.int64)
    hit = (indices.to(torch.int64) == lab).any(dim=1)
    correct = hit.sum().to(torch.int32)
    total = torch.tensor(n, dtype=torch.int32)
    acc = (correct.to(torch.float32) / float(n)) if n else torch.zeros(())
    return acc, correct, total


@REGISTRY.register("pd_op.warpctc", since=1)
def warpctc(logits, label, logits_length=None, labels_length=None, *, blank=0,
            norm_by_times=False):
    """CTC loss of padded [T, B, C] logits (softmax inside, as warp-ctc does) and padded
    [B, L] labels: (loss [B, 1], the gradient of each loss with respect to the logits, the
    `warpctcgrad` output warp-ctc computes alongside; norm_by_times is unused there).

    A sample no alignment fits (its L labels plus one blank between each pair of equal
    neighbours need more than its T steps) has loss 0 and gradient 0 in warp-ctc
    (cpu_ctc.h cost_and_grad_kernel returns 0 for L + repeats > T; Paddle zeroes the gradient
    first), where torch's ctc_loss gives inf: such a CRNN input (an image too narrow for its
    label) evaluates to 0 in Paddle."""
    if logits_length is None or labels_length is None:
        raise NotImplementedError("warpctc without logits_length / labels_length (LoD input)")
    labels = label.to(torch.int64)
    steps, lengths = logits_length.to(torch.int64), labels_length.to(torch.int64)
    with torch.enable_grad():
        act = logits.detach().requires_grad_(True)
        loss = _ctc_loss(act, labels, steps, lengths, blank)
        (grad,) = torch.autograd.grad(loss.sum(), act)
    infeasible = lengths + _repeats(labels, lengths) > steps
    loss = torch.where(infeasible, torch.zeros_like(loss), loss.detach())
    grad = torch.where(infeasible.reshape(1, -1, 1), torch.zeros_like(grad), grad)  # not inf * 0
    return loss.reshape(-1, 1).to(logits.dtype), grad.to(logits.dtype)


def _ctc_loss(logits, labels, steps, lengths, blank):
    """torch's CTC loss per sample of the log-softmax (the same forward with or without the
    gradient being recorded)."""
    log_probs = torch.log_softmax(logits, dim=-1)
    return torch.nn.functional.ctc_loss(log_probs, labels, steps, lengths, blank=blank,
                                        reduction="none", zero_infinity=False)


def warpctc_loss(logits, label, logits_length, labels_length, blank=0):
    """warpctc's loss alone (what _warpctc_call puts in the graph where nothing reads the
    gradient): the same loss, without the backward pass that computes the gradient."""
    labels = label.to(torch.int64)
    steps, lengths = logits_length.to(torch.int64), labels_length.to(torch.int64)
    loss = _ctc_loss(logits.detach(), labels, steps, lengths, blank)
    infeasible = lengths + _repeats(labels, lengths) > steps
    loss = torch.where(infeasible, torch.zeros_like(loss), loss)
    return loss.reshape(-1, 1).to(logits.dtype)


@specializer(warpctc)
def _warpctc_call(site):
    """The loss alone when no user reads the gradient (an evaluation program's warpctc): the
    tuple's gradient slot is None, so the call is replaced only where every user reads the
    loss (specialize._replace)."""
    p = site.p
    if p["logits_length"] is None or p["labels_length"] is None:
        return None
    return (site.call(warpctc_loss, p["logits"], p["label"], p["logits_length"],
                      p["labels_length"], p["blank"]), None)


def _repeats(labels, lengths):
    """Per sample, how many of its labels equal the one before (within its length): each
    needs a blank step between them (warp-ctc's setup_labels `repeats`)."""
    if labels.shape[-1] < 2:
        return torch.zeros_like(lengths)
    same = labels[:, 1:] == labels[:, :-1]
    inside = torch.arange(1, labels.shape[-1], device=labels.device).unsqueeze(0) < lengths.unsqueeze(1)
    return (same & inside).sum(1)
