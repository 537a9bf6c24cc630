"""pd_op.self_dp_attention: the CPU-only fused self-attention of Paddle's inference passes
(phi/kernels/fusion/cpu/self_dp_attention_kernel.cc).

x packs q, k, v as [batch, seq, 3, heads, head_size]; the output [batch, seq, heads,
head_size] is softmax(alpha * q k^T) v per head, in float32. Paddle tiles the keys in blocks
of 512 with an online softmax (running max and sum), oneDNN sgemm and a Cephes-polynomial
AVX-512 exp: the same function, but not the same last bits (parity/fused_cpu.yaml).
"""

from __future__ import annotations

import torch

from ...runtime.registry import REGISTRY


@REGISTRY.register("pd_op.self_dp_attention", since=1)
def self_dp_attention(x, *, alpha=1.0, head_number=1):
    if x.dim() != 5 or x.shape[2] != 3:
        raise ValueError(f"self_dp_attention: x must be [batch, seq, 3, heads, head_size], "
                         f"got {list(x.shape)}")
    q, k, v = (x[:, :, i].to(torch.float32).transpose(1, 2) for i in range(3))
    scores = q @ k.transpose(-1, -2)
    # the kernel's order: the row max of the raw scores, scaled, subtracted inside the exp
    top = scores.amax(-1, keepdim=True) * alpha
    p = torch.exp(scores * alpha - top)
    p = p * (1.0 / p.sum(-1, keepdim=True))
    return (p @ v).transpose(1, 2).contiguous().to(x.dtype)
