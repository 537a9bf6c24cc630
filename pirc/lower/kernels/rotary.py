"""pd_op.fused_rotary_position_embedding: Paddle's fused rotary embedding
(paddle.incubate.nn.functional.fused_rotary_position_embedding).

Paddle registers this op for GPU (and XPU) only: no CPU wheel runs it.  This is a CPU
reference of the GPU kernel (phi/kernels/fusion/gpu/fused_rope_kernel.cu and
fused_rope_utils.h's FusedRopeKernelImpl), so a program that pirc's `npu` pipeline fused
(fuse-rotary) runs anywhere:

* q, k, v are [batch, seq, heads, head_dim] ([seq, batch, heads, head_dim] with
  `time_major`); k and v are optional and rotated exactly as q (v too, when given);
* sin and cos, both or neither, are [seq', head_dim] or [1, seq', 1, head_dim]; row `pos`
  of them serves sequence position s, pos = position_ids[b, s] when position_ids ([batch,
  seq], int64) is given, else s.  Without sin/cos the kernel makes them:
  freq = pos / rotary_emb_base^((i - i % 2) / head_dim), sin(freq), cos(freq);
* per element, in float32 whatever the dtype: out = x * cos + rotate(x) * sin, cast back to
  the dtype once.  rotate(x) is, for use_neox_rotary_style=False, the rotate-half form
  concat(-x[D/2:], x[:D/2]) (the kernel: d < D/2 ? -x[d + D/2] : x[d - D/2]); for True,
  the interleaved form (even d: -x[d + 1], odd d: x[d - 1]).

In float32 the products and the sum are the unfused composition's, op for op (two
multiplies, one add: bit-exact on the CPU).  A float16/bfloat16 input is rounded once
instead of after each op, and a float64 input is computed in float32 as the GPU kernel does.
"""

from __future__ import annotations

import torch

from ...runtime.registry import REGISTRY


def _rotate(x: torch.Tensor, neox: bool) -> torch.Tensor:
    if neox:
        return torch.stack((-x[..., 1::2], x[..., 0::2]), -1).flatten(-2)
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), -1)


def _tables(sin, cos, position_ids, batch, seq, dim, base, device):
    """sin and cos as float32 [batch, seq, 1, dim]."""
    if sin is None or cos is None:
        if position_ids is not None:
            pos = position_ids.to(torch.float32).to(device)
        else:
            pos = torch.arange(seq, dtype=torch.float32, device=device).expand(batch, seq)
        i = torch.arange(dim, device=device)
        idx = (i - i % 2).to(torch.float32)
        inv_freq = 1.0 / torch.pow(torch.tensor(base, dtype=torch.float32), idx / dim)
        freq = pos[..., None] * inv_freq
        return torch.sin(freq)[:, :, None], torch.cos(freq)[:, :, None]
    if tuple(sin.shape) != tuple(cos.shape):
        raise ValueError(f"fused_rotary_position_embedding: sin {list(sin.shape)} and cos "
                         f"{list(cos.shape)} must have the same shape")
    if sin.dim() == 4 and (sin.shape[0] != 1 or sin.shape[2] != 1):
        raise ValueError(f"fused_rotary_position_embedding: a 4-D sin/cos must be "
                         f"[1, seq, 1, head_dim], got {list(sin.shape)}")
    if sin.dim() not in (2, 4):
        raise ValueError(f"fused_rotary_position_embedding: sin/cos must be 2-D or 4-D, "
                         f"got {list(sin.shape)}")
    if sin.shape[-1] != dim:
        raise ValueError(f"fused_rotary_position_embedding: sin/cos end in {sin.shape[-1]}, "
                         f"the head_dim is {dim}")
    rows_sin = sin.reshape(-1, dim).to(torch.float32)
    rows_cos = cos.reshape(-1, dim).to(torch.float32)
    if position_ids is not None:
        if tuple(position_ids.shape) != (batch, seq):
            raise ValueError(f"fused_rotary_position_embedding: position_ids must be "
                             f"[{batch}, {seq}], got {list(position_ids.shape)}")
        pos = position_ids.to(torch.int64)
    else:
        if rows_sin.shape[0] < seq:
            raise ValueError(f"fused_rotary_position_embedding: sin/cos hold "
                             f"{rows_sin.shape[0]} positions, the sequence {seq}")
        pos = torch.arange(seq, device=rows_sin.device).expand(batch, seq)
    return rows_sin[pos][:, :, None], rows_cos[pos][:, :, None]


def _apply(x, sin, cos, neox, time_major):
    if x is None:
        return None
    if x.dim() != 4 or x.shape[-1] % 2:
        raise ValueError(f"fused_rotary_position_embedding: inputs must be 4-D with an even "
                         f"head_dim, got {list(x.shape)}")
    xb = x.transpose(0, 1) if time_major else x
    if xb.shape[0] != sin.shape[0] or xb.shape[1] != sin.shape[1]:
        raise ValueError(f"fused_rotary_position_embedding: batch and sequence of "
                         f"{list(x.shape)} differ from q's")
    f = xb.to(torch.float32)
    out = (f * cos + _rotate(f, neox) * sin).to(x.dtype)
    return out.transpose(0, 1) if time_major else out


@REGISTRY.register("pd_op.fused_rotary_position_embedding", since=1)
def fused_rotary_position_embedding(q, k=None, v=None, sin=None, cos=None, position_ids=None, *,
                                    use_neox_rotary_style=True, time_major=False,
                                    rotary_emb_base=10000.0):
    if q.dim() != 4:
        raise ValueError(f"fused_rotary_position_embedding: q must be 4-D, got {list(q.shape)}")
    batch, seq = (q.shape[1], q.shape[0]) if time_major else (q.shape[0], q.shape[1])
    s, c = _tables(sin, cos, position_ids, batch, seq, q.shape[-1], rotary_emb_base, q.device)
    neox = bool(use_neox_rotary_style)
    return tuple(_apply(t, s, c, neox, time_major) for t in (q, k, v))
