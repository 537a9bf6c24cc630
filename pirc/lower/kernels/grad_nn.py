"""Backward ops of the layers a training program holds: batch_norm_grad, dropout_grad,
embedding_grad (and embedding, the forward it needs, which had no kernel).

None of them is the VJP of a forward kernel the generic rule (grad.py) could run:
batch_norm_grad reads the statistics the forward saved (saved_mean, saved_variance = the
inverse std) or, under is_test / use_global_stats, the running ones; dropout_grad reads the
mask the forward drew, which a recomputation would draw anew; embedding_grad's padding_idx
row gets no gradient.  Each follows phi's CPU kernel.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from ...runtime.registry import REGISTRY
from ..specialize import specializer
from .operands import number


def _channel_axis(x, data_format):
    return x.dim() - 1 if data_format in ("NHWC", "NDHWC", "NLC") and x.dim() > 2 else 1


@REGISTRY.register("pd_op.batch_norm_grad", since=1)
def batch_norm_grad(x, scale=None, bias=None, mean_out=None, variance_out=None, saved_mean=None,
                    saved_variance=None, reserve_space=None, out_grad=None, *, momentum=0.9,
                    epsilon=1e-5, data_format="NCHW", is_test=False, use_global_stats=False,
                    trainable_statistics=False):
    """phi BatchNormGradRawKernel (CPU).  In training the statistics are the batch's
    (saved_mean, and saved_variance, which holds 1/sqrt(var + eps)); under is_test or
    use_global_stats the running mean / variance (mean_out, variance_out), whose inverse std
    it recomputes, and then dx = scale * inv_std * dy only.  Otherwise, per channel c over
    its m = N*H*W values:
        dx = scale*inv_std/m * (dy*m - sum(dy) - (x - mean) * sum((x - mean)*inv_std*dy) * inv_std)
    and scale_grad = sum((x - mean) * inv_std * dy), bias_grad = sum(dy) in both modes."""
    axis = _channel_axis(x, data_format)
    c = x.shape[axis]
    shape = [1] * x.dim()
    shape[axis] = c
    dims = [d for d in range(x.dim()) if d != axis]
    global_stats = is_test or use_global_stats
    if global_stats:
        mean = mean_out
        inv_std = 1 / torch.sqrt(variance_out + epsilon)
    else:
        mean, inv_std = saved_mean, saved_variance
    s = scale if scale is not None else torch.ones(c, dtype=x.dtype)
    m = x.numel() // c if c else 0
    centered = x - mean.reshape(shape)
    dy_sum = out_grad.sum(dims)
    dy_xhat_sum = (centered * inv_std.reshape(shape) * out_grad).sum(dims)
    if not global_stats and m == 1:
        dx = out_grad.clone()  # the kernel copies dy through for a single value per channel
    elif global_stats:
        dx = (s * inv_std).reshape(shape) * out_grad
    else:
        coeff = (s * inv_std / m).reshape(shape)
        dx = coeff * (out_grad * m - dy_sum.reshape(shape)
                      - centered * dy_xhat_sum.reshape(shape) * inv_std.reshape(shape))
    # a null scale / bias operand has a null gradient result
    return dx, (dy_xhat_sum if scale is not None else None), (dy_sum if bias is not None else None)


@REGISTRY.register("pd_op.dropout_grad", since=1)
def dropout_grad(mask, out_grad, p=0.5, *, is_test=False, mode="upscale_in_train"):
    """phi DropoutGradRawKernel: under is_test dx = dy (upscale_in_train) or dy * (1 - p);
    in training dy * mask, divided by 1 - p for upscale_in_train (zeros for p == 1).  1 - p
    is taken in float32 as the kernel takes it (`1.0f - p`)."""
    p = float(number(p))
    keep = torch.tensor(1.0, dtype=torch.float32) - torch.tensor(p, dtype=torch.float32)
    keep = keep.to(out_grad.dtype)
    if is_test:
        return out_grad.clone() if mode == "upscale_in_train" else out_grad * keep
    masked = out_grad * mask.to(out_grad.dtype)
    if mode == "upscale_in_train":
        return torch.zeros_like(out_grad) * out_grad if p == 1.0 else masked / keep
    return masked


@REGISTRY.register("pd_op.embedding", since=1)
def embedding(x, weight, *, padding_idx=-1, sparse=False):
    """weight's rows at x; the padding_idx row (as the op holds it: -1 is none, the Python
    API has made a negative index non-negative) reads as zeros (phi EmbeddingKernel)."""
    out = F.embedding(x.to(torch.int64), weight)
    if padding_idx != -1:
        out = out.masked_fill((x == padding_idx).unsqueeze(-1), 0)
    return out


@specializer(embedding)
def _embedding_call(site):
    """int64 ids without a padding row: the aten embedding F.embedding calls, on the ids as
    they are (the kernel's `.to(int64)` of int64 ids is a no-op call on every run, and
    F.embedding's frame only maps padding_idx None to -1)."""
    if site.dtype(site.p["x"]) is not torch.int64 or site.p["padding_idx"] != -1:
        return None
    return site.call(torch.embedding, site.p["weight"], site.p["x"])


@REGISTRY.register("pd_op.embedding_grad", since=1)
def embedding_grad(x, weight, out_grad, *, padding_idx=-1, sparse=False):
    """phi EmbeddingGradKernel (dense): each id's row of dy added into its weight row, in
    id order; ids equal to padding_idx add nothing."""
    ids = x.reshape(-1).to(torch.int64)
    rows = out_grad.reshape(ids.numel(), weight.shape[-1]).to(weight.dtype)
    if padding_idx != -1:
        keep = ids != padding_idx
        ids, rows = ids[keep], rows[keep]
    return torch.zeros_like(weight).index_add_(0, ids, rows)
