"""Backward ops whose Paddle result autograd of the forward kernel cannot give.

kthvalue_grad, topk_grad and nanmedian_grad send the gradient to the positions the
forward's index result names (ties included, as Paddle chose them); group_norm_grad follows
Paddle's CPU formula, which without a scale never subtracts mean(dy) (3.0.0 and 3.3.1 agree
bit for bit on the migration fixture; plain autograd is 0.47 off).  Imported before grad.py,
whose generic rule leaves ops with a kernel alone.
"""

from __future__ import annotations

import torch

from ...runtime.registry import REGISTRY
from .operands import int_list


def _to_indices(x, indices, out_grad, axis, keepdim):
    """out_grad put at `indices` along `axis`, zeros elsewhere (phi's TopkGradKernel and
    KthvalueGradKernel): the positions the forward op chose, ties included, rather than the
    ones torch's own topk / kthvalue would pick when autograd recomputes them."""
    if x.dim() == 0:
        return out_grad.reshape(()).to(x.dtype).clone()
    axis = axis + x.dim() if axis < 0 else axis
    if not keepdim:
        indices, out_grad = indices.unsqueeze(axis), out_grad.unsqueeze(axis)
    return torch.zeros_like(x).scatter(axis, indices.to(torch.int64), out_grad.to(x.dtype))


@REGISTRY.register("pd_op.kthvalue_grad", since=1)
def kthvalue_grad(x, indices, out_grad, *, k=1, axis=-1, keepdim=False):
    return _to_indices(x, indices, out_grad, axis, keepdim)


@REGISTRY.register("pd_op.topk_grad", since=1)
def topk_grad(x, indices, out_grad, k=1, *, axis=-1, largest=True, sorted=True):  # noqa: A002
    return _to_indices(x, indices, out_grad, axis, True)


@REGISTRY.register("pd_op.group_norm_grad", since=1)
def group_norm_grad(x, scale=None, bias=None, y=None, mean=None, variance=None, y_grad=None, *,
                    epsilon=1e-5, groups=-1, data_format="NCHW"):
    """phi GroupNormGradKernel (CPU), not the derivative autograd gives: per (sample, group)
    x_grad = (dy*s - x_hat*sum(dy*s*x_hat)/m - sum(dy*s)/m) / sqrt(var + eps), with x_hat
    rebuilt from y, bias and scale; without a scale the kernel never accumulates sum(dy)
    (its dp_bias), so the mean of dy is not subtracted.  Paddle 3.0.0 and 3.3.1 both give
    that (tests/fixtures/migrations/group_norm_grad: the outputs of both, bit for bit)."""
    channels_last = data_format in ("NHWC", "NDHWC", "NLC")
    if channels_last:
        y, y_grad = (t.permute(0, t.dim() - 1, *range(1, t.dim() - 1)) for t in (y, y_grad))
    n, c = y.shape[0], y.shape[1]
    shape = [1, c] + [1] * (y.dim() - 2)
    s = scale.reshape(shape) if scale is not None else None
    val = y - bias.reshape(shape) if bias is not None else y
    x_hat = torch.where(s != 0, val / s, val) if s is not None else val
    dys = y_grad * s if s is not None else y_grad

    def per_group(t):
        return t.reshape(n, groups, -1).sum(2)

    count = (c // groups) * (y[0, 0].numel())
    dp_scale = per_group(val * y_grad)  # sum((y - bias) * dy) = sum(dy * s * x_hat)
    dp_bias = per_group(dys) if s is not None else torch.zeros_like(dp_scale)
    inv_std = 1 / torch.sqrt(variance.reshape(n, groups) + epsilon)
    g = lambda t: t.reshape(n, groups, 1)  # noqa: E731
    dx = (dys.reshape(n, groups, -1) - g(dp_scale / count) * x_hat.reshape(n, groups, -1)
          - g(dp_bias / count)) * g(inv_std)
    dx = dx.reshape(y.shape)
    scale_grad = (x_hat * y_grad).sum([d for d in range(y.dim()) if d != 1]) \
        if scale is not None else None
    bias_grad = y_grad.sum([d for d in range(y.dim()) if d != 1]) if bias is not None else None
    if channels_last:
        dx = dx.permute(0, *range(2, dx.dim()), 1)
    return dx, scale_grad, bias_grad


def median_layout(x, axis):
    """x with the reduced axes last, as [rows, cells]; Paddle's PreprocessMedianKernel
    (an empty axis list, or a 1-D x, reduces everything)."""
    axes = sorted({a + x.dim() if a < 0 else a for a in int_list(axis)})
    if not axes or x.dim() <= 1:
        axes = list(range(x.dim()))
    kept = [d for d in range(x.dim()) if d not in axes]
    perm = kept + axes
    permuted = x.permute(perm)
    cells = 1
    for a in axes:
        cells *= x.shape[a]
    return permuted.reshape(-1, cells), perm, list(permuted.shape), axes


@REGISTRY.register("pd_op.nanmedian_grad", since=1)
def nanmedian_grad(x, out=None, medians=None, out_grad=None, *, axis=(), keepdim=True,
                   mode="avg"):
    """phi NanmedianGradKernel: per row, out_grad goes to the median's position, or half to
    each of the two middle positions (mode avg, an even count); index -1 (a row of NaNs)
    gets nothing.  PIR version 3 put `out` before `medians`; before that the op had
    (x, medians, out_grad), which the positional call below sorts out by count."""
    if out_grad is None:  # the three-operand form: (x, medians, out_grad)
        medians, out_grad = out, medians
    rows, perm, permuted_shape, _ = median_layout(x, axis)
    index = medians.reshape(rows.shape[0], -1).to(torch.int64)
    grad = out_grad.reshape(rows.shape[0], 1).to(x.dtype)
    share = grad / index.shape[1]  # two picks of one position in an odd row add up to grad
    valid = index >= 0
    dx = torch.zeros_like(rows).scatter_add(1, index.clamp_min(0),
                                            torch.where(valid, share, torch.zeros_like(share)))
    inverse = [0] * len(perm)
    for i, p in enumerate(perm):
        inverse[p] = i
    return dx.reshape(permuted_shape).permute(inverse).contiguous()


