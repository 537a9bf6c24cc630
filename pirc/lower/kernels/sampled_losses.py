"""pd_op.nce: noise-contrastive estimation, as phi/kernels/cpu/nce_kernel.cc computes it.

Each row keeps its true labels and draws num_neg_samples noise labels (custom_neg_classes
when given) from the sampler (0 uniform over the classes, 1 log-uniform, 2 the alias tables
custom_dist_alias / custom_dist_alias_probs, scored by custom_dist_probs);
o = sigmoid(x . w[label] + b[label]) per sampled label, and the cost of a row is
sum_true -log(o / (o + q)) + sum_noise -log(q / (o + q)) with q = P(label) * num_neg_samples,
weighted by sample_weight. With custom_neg_classes nothing is drawn (the nce__custom_neg
fixture is deterministic). Paddle's sampler is its own seeded
engine, so the noise labels match by distribution only (a non-zero seed seeds a private
torch generator, 0 uses torch's global one).
"""

from __future__ import annotations

import math

import torch

from ...runtime.registry import REGISTRY
from .random import generator


def _sampler(kind: int, classes: int, custom, gen):
    """(draw(n) -> int64 labels, P(labels) as float32) of Paddle's math::Sampler `kind`
    (phi/kernels/funcs/math/sampler.cc)."""
    if classes < 1:  # (1.0 / classes below; Paddle's samplers draw from [0, classes))
        raise ValueError(f"nce: num_total_classes must be at least 1, got {classes}")
    if kind == 0:
        return (lambda n: torch.randint(0, classes, (n,), generator=gen),
                lambda t: torch.full(t.shape, 1.0 / classes, dtype=torch.float32))
    if kind == 1:
        # inverse transform: int(exp(U * log(classes))) - 1, taken modulo classes - 1 (the
        # sampler's range) against round-off; P(v) = log((v + 2) / (v + 1)) / log(classes)
        if classes < 2:
            raise ValueError("nce: the log-uniform sampler needs at least 2 classes")
        log_range = math.log(classes)

        def draw(n):
            u = torch.rand(n, generator=gen, dtype=torch.float64)
            return (torch.exp(u * log_range).to(torch.int64) - 1) % (classes - 1)

        return draw, lambda t: (torch.log((t + 2.0) / (t + 1.0)) / log_range).to(torch.float32)
    if kind == 2:
        probs, alias, alias_probs = custom
        if any(t is None or t.numel() != classes for t in custom):
            raise ValueError(f"nce: sampler 2 needs custom_dist_probs, custom_dist_alias and "
                             f"custom_dist_alias_probs of {classes} values each")
        probs, alias, alias_probs = (t.reshape(-1) for t in custom)

        def draw(n):
            # the alias method: a uniform index, kept with its alias probability, else its
            # alias (an alias of -1 keeps the index)
            index = torch.randint(0, classes, (n,), generator=gen)
            p = torch.rand(n, generator=gen, dtype=torch.float64)
            other = alias[index].to(torch.int64)
            swap = (p > alias_probs[index].to(torch.float64)) & (other != -1)
            return torch.where(swap, other, index)

        return draw, lambda t: probs.to(torch.float32)[t]
    raise ValueError(f"nce: sampler should be 0 (uniform), 1 (log-uniform) or 2 (custom), "
                     f"got {kind}")


@REGISTRY.register("pd_op.nce", since=1)
def nce(input, label, weight, bias=None, sample_weight=None, custom_dist_probs=None,  # noqa: A002
        custom_dist_alias=None, custom_dist_alias_probs=None, *, num_total_classes=1,
        custom_neg_classes=(), num_neg_samples=10, sampler=0, seed=0, is_sparse=False,
        remote_prefetch=False, is_test=False):
    classes, n_neg = int(num_total_classes), int(num_neg_samples)
    custom = (custom_dist_probs, custom_dist_alias, custom_dist_alias_probs)
    draw, prob = _sampler(int(sampler), classes, custom, generator(seed))
    rows = input.shape[0]
    true = label.reshape(rows, -1).to(torch.int64)
    if custom_neg_classes:
        noise = torch.tensor([int(c) for c in custom_neg_classes]).expand(rows, -1)
    else:
        noise = draw(rows * n_neg).reshape(rows, n_neg)
    labels = torch.cat([true, noise], 1)
    if (labels < 0).any() or (labels >= weight.shape[0]).any():
        raise ValueError(f"nce: sample labels must be in [0, {weight.shape[0]}), got "
                         f"{labels.tolist()}")
    logits = (input[:, None, :] * weight[labels]).sum(-1)
    if bias is not None:
        logits = bias.reshape(-1)[labels] + logits
    o = torch.sigmoid(logits)
    q = (prob(labels) * n_neg).to(o.dtype)
    is_true = torch.arange(labels.shape[1]) < true.shape[1]
    cost = torch.where(is_true, -torch.log(o / (o + q)), -torch.log(q / (o + q)))
    if sample_weight is not None:
        cost = cost * sample_weight.reshape(rows, 1).to(cost.dtype)
    return cost.sum(1, keepdim=True), o, labels
