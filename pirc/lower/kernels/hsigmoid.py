"""hsigmoid_loss (paddle.nn.functional.hsigmoid_loss, paddle.nn.HSigmoidLoss) on the default
complete binary tree, as phi's CPU HSigmoidLossKernel computes it with MatrixBitCodeFunctor.

Label l of num_classes C has the code c = l + C; its path has bit_length(c) - 1 nodes, node j
being row (c >> (j + 1)) - 1 of w and bias, and its bit c & (1 << j). pre_out, [batch,
bit_length(C - 1)], starts at 0; the kernel adds each node's bias, then its dot product with
x (summed over the features in order, from 0), clips to [-40, 40], takes out = -(the sum of
pre_out over the path nodes whose bit is set), turns pre_out into log(1 + exp(pre_out))
(Eigen's packet math; the entries past a short path stay log 2) and adds its row sums
(column by column) to out. The loops are replayed over the batch at once, in that order.
"""

from __future__ import annotations

import torch

from ...runtime.registry import REGISTRY
from .eigen_packets import eigen_packet_log_input


@REGISTRY.register("pd_op.hsigmoid_loss", since=1)
def hsigmoid_loss(x, label, w, bias=None, path=None, code=None, *, num_classes,
                  is_sparse=False):
    if path is not None or code is not None:
        raise NotImplementedError("hsigmoid_loss with a custom tree (path / code inputs) is "
                                  "not lowered; the default tree is")
    B, D = x.shape
    width = int(num_classes - 1).bit_length()
    c = label.reshape(-1).long() + num_classes
    length = torch.floor(torch.log2(c.double())).long()   # bit_length(c) - 1, c >= 1
    j = torch.arange(width, device=x.device)
    valid = j[None, :] < length[:, None]
    idx = torch.where(valid, (c[:, None] >> (j[None, :] + 1)) - 1, 0)
    bit = (c[:, None] >> j[None, :]) & 1
    pre = torch.zeros(B, width, dtype=x.dtype, device=x.device)
    if bias is not None:
        pre = pre + torch.where(valid, bias.reshape(-1)[idx], 0)
    wr = w[idx]                                              # [B, width, D]
    dot = torch.zeros(B, width, dtype=x.dtype, device=x.device)
    for k in range(D):
        dot = dot + wr[:, :, k] * x[:, k:k + 1]
    pre = torch.where(valid, pre + dot, pre)
    pre = torch.clamp(pre, -40.0, 40.0)
    picked = torch.zeros(B, dtype=x.dtype, device=x.device)
    for k in range(width):
        picked = torch.where(valid[:, k] & (bit[:, k] == 1), picked + pre[:, k], picked)
    out = -picked
    pre = torch.log(eigen_packet_log_input(1 + torch.exp(pre)))
    rows = torch.zeros(B, dtype=x.dtype, device=x.device)
    for k in range(width):
        rows = rows + pre[:, k]
    return (rows + out).reshape(B, 1), pre, w
