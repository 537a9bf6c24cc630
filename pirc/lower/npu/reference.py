"""CPU reference implementations of the torch_npu fused ops pirc emits.

Each has torch_npu's signature (argument names, defaults) and return layout, and computes the
formula documented for the op (docs/notes/torch-npu.md section 2; sources there). Numerics follow
torch_npu's own goldens: rms_norm and swiglu compute in float32 and cast back.  gelu, a
Paddle op's formula as well, is computed in Paddle's order, so a program lowered on device
npu keeps the unfused gelu's numbers on the CPU.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from ..gelu_erf import gelu_erf
from ..number_tensors import number_tensor
from ..softmax_rows import softmax_last


def _f32(t):
    """t in float32; t itself when it already is (no `.float()` dispatch: these references
    run once per op per call, and on float32 models each no-op conversion is a torch call)."""
    return t if t.dtype == torch.float32 else t.float()


def _as(t, dtype):
    return t if t.dtype == dtype else t.to(dtype)


def npu_rms_norm(self, gamma, epsilon=1e-06):
    """-> (y, rstd): normalised over the last gamma.dim() dims; rstd float32, keepdim shape."""
    if self.dtype == torch.float32 and gamma.dtype == torch.float32 and gamma.dim() == 1 \
            and self.is_cpu:
        # the usual call written out: the same operations (the mean over the last dim, the
        # epsilon and rsqrt in place on the fresh mean), no dims tuple or dtype checks
        eps = number_tensor(epsilon, torch.float32)
        rstd = torch.mean(torch.pow(self, 2), -1, True).add_(eps).rsqrt_()
        return self * rstd * gamma, rstd
    dims = tuple(range(self.dim() - gamma.dim(), self.dim()))
    xf = _f32(self)
    rstd = torch.rsqrt(xf.pow(2).mean(dim=dims, keepdim=True) + epsilon)
    return _as(xf * rstd * _f32(gamma), self.dtype), rstd


def npu_add_rms_norm(x1, x2, gamma, epsilon=1e-06):
    """-> (y, rstd, x) with x = x1 + x2."""
    x = x1 + x2
    y, rstd = npu_rms_norm(x, gamma, epsilon)
    return y, rstd, x


def npu_add_layer_norm(x1, x2, gamma, beta, epsilon=1e-05, additional_output=False):
    """-> (y, mean, rstd, x) with x = x1 + x2 and y = layer_norm(x) over the last gamma.dim()
    dims (torch_npu's AddLayerNorm formula: the variance E[(x - mean)^2], epsilon inside the
    square root); mean and rstd float32 of shape x.shape[:-gamma.dim()] + [1].  x is
    returned whatever additional_output says (torch_npu leaves it unset without it).

    Two torch calls where gamma is 1-D (the add and native_layer_norm, whose statistics
    then already have torch_npu's shape): F.layer_norm's own kernel, so the same bits as an
    unfused add + layer_norm lowered on device npu (npu_layer_norm_eval)."""
    x = x1 + x2
    y, mean, rstd = torch.native_layer_norm(x, gamma.shape, gamma, beta, epsilon)
    if gamma.dim() != 1:
        keep = tuple(x.shape[:x.dim() - gamma.dim()]) + (1,)
        mean, rstd = mean.reshape(keep), rstd.reshape(keep)
    return y, _f32(mean), _f32(rstd), x


def npu_swiglu(self, dim=-1):
    """silu(first half) * second half along dim."""
    a, b = torch.chunk(self, 2, dim=dim)
    return _as(F.silu(_f32(a)) * _f32(b), self.dtype)


def npu_rotary_mul(self, r1, r2, rotary_mode="half", rotate=None):
    """r1 * x + r2 * rotate(x); r1 = cos, r2 = sin."""
    if rotate is not None:
        x_new = self @ rotate
    elif rotary_mode == "half":
        x1, x2 = torch.chunk(self, 2, -1)
        x_new = torch.cat((-x2, x1), -1)
    elif rotary_mode == "interleave":
        x_new = torch.stack((-self[..., 1::2], self[..., ::2]), -1).flatten(-2)
    else:
        raise ValueError(f"npu_rotary_mul: rotary_mode must be 'half' or 'interleave', "
                         f"got {rotary_mode!r}")
    return r1 * self + r2 * x_new


def npu_gelu(self, *, approximate="none"):
    """The erf form as Paddle's CPU gelu computes it (gelu_erf: bit-exact against Paddle on
    every float32 input, where F.gelu differs on 1.91% and gives NaN at +inf), so a
    program lowered on device npu keeps the unfused gelu's numbers on the CPU; the tanh
    form is F.gelu's, as pd_op.gelu's kernel."""
    if approximate == "none":
        return gelu_erf(self)
    return F.gelu(self, approximate=approximate)


def npu_layer_norm_eval(input, normalized_shape, weight=None, bias=None, eps=1e-05):
    # the aten op F.layer_norm calls, without its frame (it takes the shape as any sequence)
    return torch.layer_norm(input, normalized_shape, weight, bias, eps)


def npu_linear(input, weight, bias=None):
    """input @ weight.T + bias; weight is (N, K)."""
    return F.linear(input, weight, bias)


def npu_scaled_masked_softmax(x, mask, scale=1, fixed_triu_mask=False):
    """softmax((x * scale) with mask==True filled, dim=-1); -1e4 fill as torch_npu's golden.
    mask None (pirc's, not torch_npu's): nothing masked, no masked_fill."""
    if fixed_triu_mask:
        mask = torch.triu(torch.ones(x.shape[-2:], dtype=torch.bool, device=x.device), 1)
    scaled = _f32(x) * scale
    if mask is not None:
        scaled = scaled.masked_fill(mask, -1e4)
    return _as(softmax_last(scaled), x.dtype)


_TO_BNSD = {  # layout -> function turning (tensor, head_num) into B, N, S, D
    "BNSD": lambda t, n: t,
    "BSND": lambda t, n: t.transpose(1, 2),
    "BSH": lambda t, n: t.reshape(t.shape[0], t.shape[1], n, -1).transpose(1, 2),
    "SBH": lambda t, n: t.reshape(t.shape[0], t.shape[1], n, -1).permute(1, 2, 0, 3),
}
_FROM_BNSD = {
    "BNSD": lambda t: t,
    "BSND": lambda t: t.transpose(1, 2),
    "BSH": lambda t: t.transpose(1, 2).flatten(2),
    "SBH": lambda t: t.permute(2, 0, 1, 3).flatten(2),
}


def npu_fusion_attention(query, key, value, head_num, input_layout, pse=None, padding_mask=None,
                         atten_mask=None, scale=1., keep_prob=1., pre_tockens=2147483647,
                         next_tockens=2147483647, inner_precise=0, prefix=None,
                         actual_seq_qlen=None, actual_seq_kvlen=None, sparse_mode=0,
                         gen_mask_parallel=True, sync=False, softmax_layout="", sink=None,
                         dropout_mask=None, seed=0, offset=0):
    """-> (attention_out, softmax_max, softmax_sum, softmax_out, seed, offset, numels).

    Covers what pirc emits: layouts BNSD/BSND/BSH/SBH, sparse_mode 0, no dropout (keep_prob 1),
    optional pse added before scaling (the docstring's formula), atten_mask True = masked out.
    softmax_max / softmax_sum ([B, N, S1, 8] float32) hold the row max and the sum of exp(s - max),
    repeated 8 times; softmax_out is the reserved empty tensor.
    """
    s, v = _attention_scores(query, key, value, head_num, input_layout, pse, atten_mask, scale,
                             keep_prob, sparse_mode, sink, actual_seq_qlen)
    row_max = s.amax(-1, keepdim=True)
    row_sum = torch.exp(s - row_max).sum(-1, keepdim=True)
    return (_attention_out(s, v, query.dtype, input_layout),
            row_max.expand(*row_max.shape[:-1], 8).contiguous(),
            row_sum.expand(*row_sum.shape[:-1], 8).contiguous(),
            query.new_empty((0,)), seed, offset, 0)


def npu_fusion_attention_out(query, key, value, head_num, input_layout, pse=None,
                             atten_mask=None, scale=1., keep_prob=1., sparse_mode=0, sink=None,
                             actual_seq_qlen=None):
    """attention_out of npu_fusion_attention alone, computed as that reference computes it
    (the same torch calls, so the same bits), without the softmax statistics: a program
    that reads only the output (every one pirc lowers) skips their exp over the scores."""
    direct = _DIRECT_OUT.get(input_layout)
    if (direct is not None and pse is None and atten_mask is None and keep_prob == 1.0
            and sparse_mode == 0 and sink is None and actual_seq_qlen is None
            and query.dtype == key.dtype == value.dtype == torch.float32
            and query.dim() == key.dim() == 4 and query.is_cpu
            and key.shape[direct[0]] == query.shape[direct[0]]):
        return direct[1](query, key, value, number_tensor(scale, torch.float32))
    s, v = _attention_scores(query, key, value, head_num, input_layout, pse, atten_mask, scale,
                             keep_prob, sparse_mode, sink, actual_seq_qlen)
    return _attention_out(s, v, query.dtype, input_layout)


def _attention_scores(query, key, value, head_num, input_layout, pse, atten_mask, scale,
                      keep_prob, sparse_mode, sink, actual_seq_qlen):
    """(scaled, masked float32 scores [B, N, S1, S2], float32 value in BNSD)."""
    if input_layout not in _TO_BNSD:
        raise ValueError(f"npu_fusion_attention reference: layout {input_layout!r} not supported")
    if keep_prob != 1.0 or sparse_mode != 0 or sink is not None or actual_seq_qlen is not None:
        raise ValueError("npu_fusion_attention reference covers keep_prob=1, sparse_mode=0, "
                         "no sink, no varlen")
    kv_heads = head_num
    q = _TO_BNSD[input_layout](query, head_num)
    if input_layout in ("BSH", "SBH"):
        dk = q.shape[-1]
        kv_heads = key.shape[-1] // dk
    k = _TO_BNSD[input_layout](key, kv_heads)
    v = _TO_BNSD[input_layout](value, kv_heads)
    if k.shape[1] != q.shape[1]:
        k = k.repeat_interleave(q.shape[1] // k.shape[1], 1)
        v = v.repeat_interleave(q.shape[1] // v.shape[1], 1)
    s = _f32(q) @ _f32(k).transpose(-1, -2)
    if pse is not None:
        s = s + _f32(pse)
    s = s * scale
    if atten_mask is not None:
        s = s.masked_fill(atten_mask.bool(), float("-inf"))
    return s, _f32(v)


def _attention_out(s, v, dtype, input_layout):
    return _FROM_BNSD[input_layout](_as(softmax_last(s) @ v, dtype))


# The usual call written out (float32, 4-D BNSD or BSND, as many kv heads as query heads, no
# pse, mask or dropout): the torch calls _attention_scores and _attention_out make, on the
# same views, so the same bits, without their Python frames, layout lambdas and no-op dtype
# conversions (23 against 26 us at [1, 4, 32, 16]); key's two transposes as one permute (the
# same view); the scale multiplies the fresh scores in place (the same multiply), as a 0-D
# float32 tensor (the float32 number torch would make of it).
# layout -> (heads dim, function).
_DIRECT_OUT = {
    "BNSD": (1, lambda q, k, v, scale: torch.matmul(
        softmax_last(torch.matmul(q, k.transpose(-1, -2)).mul_(scale)), v)),
    "BSND": (2, lambda q, k, v, scale: torch.matmul(
        softmax_last(torch.matmul(q.transpose(1, 2), k.permute(0, 2, 3, 1)).mul_(scale)),
        v.transpose(1, 2)).transpose(1, 2)),
}
