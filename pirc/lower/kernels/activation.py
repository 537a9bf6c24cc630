"""Activations, written in the form Paddle's CPU functors compute them.

Where Paddle's formula differs from torch's builtin (elu as max(x,0)+min(alpha*(e^x-1),0),
softplus with log(1+e^x) rather than log1p) the Paddle form is used so results match
bit-for-bit more often; where they agree the torch builtin is used.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from ...runtime.registry import REGISTRY
from ..specialize import specializer


@REGISTRY.register("pd_op.relu", since=1)
def relu(x):
    return torch.relu(x)


@REGISTRY.register("pd_op.sigmoid", since=1)
def sigmoid(x):
    return torch.sigmoid(x)


@REGISTRY.register("pd_op.tanh", since=1)
def tanh(x):
    return torch.tanh(x)


@REGISTRY.register("pd_op.gelu", since=1)
def gelu(x, *, approximate=False):
    return F.gelu(x, approximate="tanh" if approximate else "none")


@REGISTRY.register("pd_op.elu", since=1)
def elu(x, *, alpha=1.0):
    # phi ELUFunctor: x.cwiseMax(0) + (alpha * (x.exp() - 1)).cwiseMin(0)
    return torch.clamp_min(x, 0) + torch.clamp_max(alpha * (torch.exp(x) - 1), 0)


@REGISTRY.register("pd_op.hardtanh", since=1)
def hardtanh(x, *, t_min=0.0, t_max=24.0):
    return torch.clamp(x, t_min, t_max)


# negative_slope is a float attribute before PIR version 4 and a double from 4 on; the
# kernel computes in x's type either way, so one entry serves both.
@REGISTRY.register("pd_op.leaky_relu", since=1)
def leaky_relu(x, *, negative_slope=0.02):
    return F.leaky_relu(x, negative_slope)


@REGISTRY.register("pd_op.logit", since=1)
def logit(x, *, eps=1e-6):
    # phi LogitFunctor: clip to [eps, 1-eps] when eps != 0; without eps, x outside [0, 1]
    # gives NaN (log of a negative ratio does that already).
    if eps:
        x = torch.clamp(x, eps, 1.0 - eps)
    return torch.log(x / (1 - x))


@REGISTRY.register("pd_op.softplus", since=1)
def softplus(x, *, beta=1.0, threshold=20.0):
    # phi SoftplusFunctor: x*beta > threshold ? x : log(1 + exp(x*beta)) / beta
    xb = x * beta
    # exp of the clamped product: the same values where that branch is taken, and no inf
    # in the other one, whose zero gradient times an infinite exp' would make softplus_grad
    # (autograd of this kernel) NaN for large x.
    soft = torch.log(1 + torch.exp(torch.clamp_max(xb, threshold))) / beta
    return torch.where(xb > threshold, x, soft)


@REGISTRY.register("pd_op.softmax", since=1)
def softmax(x, *, axis=-1):
    if x.dim() == 0:
        return torch.ones_like(x)
    return torch.softmax(x, axis)


@REGISTRY.register("pd_op.log_softmax", since=1)
def log_softmax(x, *, axis=-1):
    if x.dim() == 0:
        return torch.zeros_like(x)
    return torch.log_softmax(x, axis)


@REGISTRY.register("pd_op.sqrt", since=1)
def sqrt(x):
    return torch.sqrt(x)


@REGISTRY.register("pd_op.log", since=1)
def log(x):
    return torch.log(x)


# Specialisations (pirc.lower.specialize): the torch call itself where the kernel is one.
for _kernel, _torch_fn in ((relu, torch.relu), (sigmoid, torch.sigmoid), (tanh, torch.tanh)):
    specializer(_kernel)(lambda site, _fn=_torch_fn: site.call(_fn, site.p["x"]))


@specializer(gelu)
def _gelu_call(site):
    return site.call(F.gelu, site.p["x"], approximate="tanh" if site.p["approximate"] else "none")


@specializer(softmax)
def _softmax_call(site):
    x = site.p["x"]
    if not site.rank(x):  # unknown, or 0-D (the kernel's special case)
        return None
    return site.call(torch.softmax, x, site.p["axis"])
