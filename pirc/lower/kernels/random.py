"""Random ops.  Values cannot match Paddle's generator; shape, dtype and distribution do.

A non-zero `seed` attribute seeds a private torch.Generator, so the op is deterministic
run to run as Paddle's is; seed 0 draws from torch's global generator.
"""

from __future__ import annotations

import torch

from ...runtime.registry import REGISTRY
from . import c_numerics
from .operands import int_list, number


def generator(seed) -> torch.Generator | None:
    if seed:
        return torch.Generator().manual_seed(int(seed))
    return None


@REGISTRY.register("pd_op.gaussian", since=1)
def gaussian(shape=(), *, mean=0.0, std=1.0, seed=0, dtype=torch.float32, place="undefined"):
    dtype = dtype or torch.float32
    out = torch.randn(int_list(shape), generator=generator(seed), dtype=torch.float32)
    return (out * std + mean).to(dtype)


@REGISTRY.register("pd_op.uniform", since=1)
def uniform(shape=(), min=-1.0, max=1.0, *, dtype=torch.float32, seed=0, place="undefined"):  # noqa: A002
    dtype = dtype or torch.float32
    lo, hi = float(number(min)), float(number(max))
    out = torch.rand(int_list(shape), generator=generator(seed), dtype=torch.float32)
    return (out * (hi - lo) + lo).to(dtype)


# -- sampling from a distribution given by a tensor ----------------------------------------------

@REGISTRY.register("pd_op.bernoulli", since=1)
def bernoulli(x):
    # phi BernoulliKernel: out = (uniform(0, 1) < x) in x's dtype
    return torch.bernoulli(x)


@REGISTRY.register("pd_op.binomial", since=1)
def binomial(count, prob):
    # int64 draws of Binomial(count, prob), one per element (count and prob broadcast first)
    return torch.binomial(count.to(prob.dtype), prob).to(torch.int64)


@REGISTRY.register("pd_op.poisson", since=1)
def poisson(x):
    return torch.poisson(x)


@REGISTRY.register("pd_op.dirichlet", since=1)
def dirichlet(alpha):
    return torch._sample_dirichlet(alpha)


@REGISTRY.register("pd_op.standard_gamma", since=1)
def standard_gamma(x):
    return torch._standard_gamma(x)


@REGISTRY.register("pd_op.exponential_", since=1)
def exponential_(x, *, lam=1.0):
    return torch.empty_like(x).exponential_(lam)


@REGISTRY.register("pd_op.multinomial", since=1)
def multinomial(x, num_samples=1, *, replacement=False):
    # rows of x are unnormalised weights (1-D x: one distribution); int64 category indices
    return torch.multinomial(x, int(number(num_samples)), replacement)


@REGISTRY.register("pd_op.gumbel_softmax", since=1)
def gumbel_softmax(x, *, temperature=1.0, hard=False, axis=-1):
    # phi GumbelSoftmaxKernel: softmax((x + g) / temperature) with g = -log(-log(U)),
    # U ~ U(1e-5, 1); hard gives the one-hot of its argmax (the forward value of the
    # straight-through estimator)
    u = torch.rand_like(x) * (1 - 1e-5) + 1e-5
    y = torch.softmax((x - torch.log(-torch.log(u))) / temperature, axis)
    if not hard:
        return y
    return torch.zeros_like(y).scatter_(axis, y.argmax(axis, keepdim=True), 1.0)


# -- creation ----------------------------------------------------------------------------------

@REGISTRY.register("pd_op.randint", since=1)
def randint(shape=(), *, low=0, high=1, dtype=torch.int64, place="undefined"):
    return torch.randint(int(low), int(high), int_list(shape), dtype=dtype or torch.int64)


@REGISTRY.register("pd_op.randperm", since=1)
def randperm(*, n=1, dtype=torch.int64, place="undefined"):
    return torch.randperm(int(n)).to(dtype or torch.int64)


@REGISTRY.register("pd_op.truncated_gaussian_random", since=1)
def truncated_gaussian_random(*, shape=(), mean=0.0, std=1.0, seed=0, a=-2.0, b=2.0,
                              dtype=torch.float32, place="undefined"):
    # phi TruncatedNormal: inverse CDF of N(mean, std) on [a, b] (absolute bounds) at
    # u ~ U(FLT_MIN, 1), computed in float64 for float64 outputs and float32 otherwise,
    # clamped to [a, b]
    dtype = dtype or torch.float32
    work = torch.float64 if dtype == torch.float64 else torch.float32
    u = torch.rand(int_list(shape), generator=generator(seed), dtype=work)
    u = u.clamp_min(torch.finfo(torch.float32).tiny)
    # (v - mean) / std / sqrt(2) in double, as C divides: std == 0 gives +-inf (or NaN), so
    # the CDF is a step and every value the mean (Paddle 3.3.1 gives zeros for std 0)
    cdf = lambda v: (1.0 + torch.erf(torch.tensor(  # noqa: E731
        c_numerics.div(c_numerics.div(v - mean, std), 2 ** 0.5), dtype=work))) / 2.0
    p = cdf(a) + (cdf(b) - cdf(a)) * u
    out = 2 ** 0.5 * torch.erfinv(2 * p - 1) * std + mean
    return out.clamp(a, b).to(dtype)


@REGISTRY.register("pd_op.uniform_inplace", since=1)
def uniform_inplace(x, *, min=-1.0, max=1.0, seed=0, diag_num=0, diag_step=0, diag_val=1.0):  # noqa: A002
    # phi UniformInplaceKernel: x's shape and dtype, U(min, max); then diag_num elements of
    # the flattened tensor at i * diag_step + i are set to diag_val
    out = torch.rand(x.shape, generator=generator(seed), dtype=x.dtype) * (max - min) + min
    if diag_num > 0:
        flat = out.reshape(-1)
        flat[torch.arange(diag_num) * (diag_step + 1)] = diag_val
    return out


@REGISTRY.register("pd_op.gaussian_inplace", since=1)
def gaussian_inplace(x, *, mean=0.0, std=1.0, seed=0):
    return torch.randn(x.shape, generator=generator(seed), dtype=x.dtype) * std + mean


# -- sampling of indices -------------------------------------------------------------------------

@REGISTRY.register("pd_op.class_center_sample", since=1)
def class_center_sample(label, *, num_classes=1, num_samples=1, ring_id=0, rank=0, nranks=1,
                        fix_seed=False, seed=0):
    # phi ClassCenterSampleKernel (one rank): the label's classes ascending, then random
    # other classes until num_samples are chosen; remapped_label = each label's position
    positive = torch.unique(label)
    picked = positive.tolist()
    if len(picked) < num_samples:
        gen = generator(seed if fix_seed else 0)
        rest = torch.ones(num_classes, dtype=torch.bool)
        rest[positive] = False
        others = rest.nonzero().reshape(-1)
        order = torch.randperm(others.numel(), generator=gen)
        picked += others[order[:num_samples - len(picked)]].tolist()
    centers = torch.tensor(picked, dtype=label.dtype)
    remapped = torch.searchsorted(positive, label).to(label.dtype)
    return remapped, centers


@REGISTRY.register("pd_op.shuffle_batch", since=1)
def shuffle_batch(x, seed, *, startup_seed=0):
    # phi ShuffleBatchKernel: the rows of x (all dims but the last, flattened) in a random
    # order; shuffle_idx is that order, seed_out the seed for the next call
    rows = x.reshape(-1, x.shape[-1]) if x.dim() > 1 else x.reshape(-1, 1)
    idx = torch.randperm(rows.shape[0])
    out = rows[idx].reshape(x.shape)
    return out, idx.to(torch.int64), seed.clone()
