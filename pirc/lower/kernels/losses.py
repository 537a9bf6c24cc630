"""The ops Paddle's loss functions emit that had no kernel, forward and backward.

F.softmax_with_cross_entropy and F.cross_entropy emit cross_entropy_with_softmax and its grad;
F.mse_loss emits subtract, square and mean, whose grads are subtract_grad (grad_common.py),
square_grad and mean_grad.

cross_entropy_with_softmax (phi CrossEntropyWithSoftmaxKernel, CPU): softmax along `axis`
(the input itself when use_softmax is false), then per sample -log(p[label]) for a hard label
(0 where the label is ignore_index; the label has size 1 along axis) or -sum(label * log p)
for a soft one.  Results: (softmax, loss), the loss with size 1 along axis.  Its grad (phi
CrossEntropyWithSoftmaxGradCPUKernel): with use_softmax, softmax * loss_grad, then loss_grad
subtracted at the label's position (a hard label; ignored samples get zeros), or
(softmax - label) * loss_grad (soft); without, -loss_grad / p at the label (-label *
loss_grad / p soft).  The order of those operations is the kernel's, so the gradient agrees
with Paddle to the bit given the same softmax.
"""

from __future__ import annotations

import torch

from ...runtime.registry import REGISTRY
from ..specialize import specializer
from .activation import softmax as _softmax


def _axis(t, axis):
    return axis + t.dim() if axis < 0 else axis


@REGISTRY.register("pd_op.cross_entropy_with_softmax", since=1)
def cross_entropy_with_softmax(input, label, *, soft_label=False, use_softmax=True,  # noqa: A002
                               numeric_stable_mode=True, ignore_index=-100, axis=-1):
    axis = _axis(input, axis)
    prob = _softmax(input, axis=axis) if use_softmax else input
    if soft_label:
        loss = -(label.to(prob.dtype) * torch.log(prob)).sum(axis, keepdim=True)
        return prob, loss
    index = label.to(torch.int64)
    ignored = index == ignore_index
    picked = torch.gather(prob, axis, torch.where(ignored, 0, index))
    loss = torch.where(ignored, torch.zeros_like(picked), -torch.log(picked))
    return prob, loss


@REGISTRY.register("pd_op.cross_entropy_with_softmax_grad", since=1)
def cross_entropy_with_softmax_grad(label, softmax, loss_grad, *, soft_label=False,
                                    use_softmax=True, numeric_stable_mode=True,
                                    ignore_index=-100, axis=-1):
    axis = _axis(softmax, axis)
    g = loss_grad.to(softmax.dtype)
    if soft_label:
        lab = label.to(softmax.dtype)
        return (softmax - lab) * g if use_softmax else -lab * g / softmax
    index = label.to(torch.int64)
    ignored = index == ignore_index
    safe = torch.where(ignored, 0, index)
    if use_softmax:
        dx = softmax * g
        at_label = torch.gather(dx, axis, safe) - g
    else:
        dx = torch.zeros_like(softmax)
        at_label = -g / torch.gather(softmax, axis, safe)
    dx = dx.scatter(axis, safe, at_label)
    # an ignored sample's whole row along axis is zero
    return torch.where(ignored, torch.zeros_like(dx), dx)


@REGISTRY.register("pd_op.subtract", since=1)
def subtract(x, y):
    return torch.sub(x, y)  # Paddle broadcasts like numpy (axis -1), as torch does


# the kernel is the torch call: the call itself, without the kernel's frame
specializer(subtract)(lambda site: site.call(torch.sub, site.p["x"], site.p["y"]))


@REGISTRY.register("pd_op.square", since=1)
def square(x):
    return x * x  # phi SquareFunctor: x.square(), one product


@REGISTRY.register("pd_op.square_grad", since=1)
def square_grad(x, out_grad):
    # phi SquareGradFunctor: dout * 2 * x, left to right (autograd's 2 * x * dout can round
    # differently)
    return out_grad * 2 * x
