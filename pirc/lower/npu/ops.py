"""The fused-op entry points the NPU lowering emits (graph targets `pirc.lower.npu.ops.<name>`).

Each has torch_npu's exact signature and return layout. On a tensor that lives on an NPU it
calls `torch_npu.<name>` (through `npu_call`, the one place torch_npu ops are called, so tests can
record every call and check it against the committed schemas); anywhere else it runs the CPU
reference (reference.py). Where torch_npu documents shape limits that an input breaks, the entry
point runs the reference composition instead; the reference's plain torch ops run on the NPU
through aten, with the same numbers.
"""

from __future__ import annotations

import inspect

import torch
from torch import fx

from ..specialize import specializer
from . import reference


def on_npu(t) -> bool:
    # is_cpu first: a CPU tensor (every call of a module without an NPU) answers without
    # building a torch.device (80 ns against 300 a call)
    return isinstance(t, torch.Tensor) and not t.is_cpu and t.device.type == "npu"


def npu_call(name: str, *args, **kwargs):
    """Call torch_npu.<name>; torch_npu is imported only here, when a tensor is on an NPU."""
    import torch_npu
    return getattr(torch_npu, name)(*args, **kwargs)


def npu_rms_norm(self, gamma, epsilon=1e-06):
    if on_npu(self):
        return npu_call("npu_rms_norm", self, gamma, epsilon=epsilon)
    return reference.npu_rms_norm(self, gamma, epsilon)


def npu_add_rms_norm(x1, x2, gamma, epsilon=1e-06):
    if on_npu(x1):
        return npu_call("npu_add_rms_norm", x1, x2, gamma, epsilon=epsilon)
    return reference.npu_add_rms_norm(x1, x2, gamma, epsilon)


def npu_add_layer_norm(x1, x2, gamma, beta, epsilon=1e-05, additional_output=False):
    if on_npu(x1):
        return npu_call("npu_add_layer_norm", x1, x2, gamma, beta, epsilon=epsilon,
                        additional_output=additional_output)
    return reference.npu_add_layer_norm(x1, x2, gamma, beta, epsilon, additional_output)


def npu_swiglu(self, dim=-1):
    if on_npu(self):
        return npu_call("npu_swiglu", self, dim=dim)
    return reference.npu_swiglu(self, dim)


def npu_rotary_mul(self, r1, r2, rotary_mode="half", rotate=None):
    # torch_npu's kernel takes 4-D input with an even last dim below 896.
    if on_npu(self) and self.dim() == 4 and self.shape[-1] % 2 == 0 and self.shape[-1] < 896:
        return npu_call("npu_rotary_mul", self, r1, r2, rotary_mode=rotary_mode, rotate=rotate)
    return reference.npu_rotary_mul(self, r1, r2, rotary_mode, rotate)


def npu_fusion_attention(query, key, value, head_num, input_layout, pse=None, padding_mask=None,
                         atten_mask=None, scale=1., keep_prob=1., pre_tockens=2147483647,
                         next_tockens=2147483647, inner_precise=0, prefix=None,
                         actual_seq_qlen=None, actual_seq_kvlen=None, sparse_mode=0,
                         gen_mask_parallel=True, sync=False, softmax_layout="", sink=None,
                         dropout_mask=None, seed=0, offset=0):
    if on_npu(query):
        # Every argument the npu.fusion_attention op carries; the newer ones (prefix ...
        # offset) only where they differ from the schema's default, so the call is the one
        # torch_npu's own examples make.
        extra = {k: v for k, v in (("prefix", prefix), ("actual_seq_qlen", actual_seq_qlen),
                                   ("actual_seq_kvlen", actual_seq_kvlen),
                                   ("gen_mask_parallel", gen_mask_parallel), ("sync", sync),
                                   ("softmax_layout", softmax_layout), ("sink", sink),
                                   ("dropout_mask", dropout_mask), ("seed", seed),
                                   ("offset", offset))
                 if ((v is not None) if _ATTENTION_DEFAULTS[k] is None
                     else v != _ATTENTION_DEFAULTS[k])}
        return npu_call("npu_fusion_attention", query, key, value, head_num, input_layout,
                        pse=pse, padding_mask=padding_mask, atten_mask=atten_mask, scale=scale,
                        keep_prob=keep_prob, pre_tockens=pre_tockens, next_tockens=next_tockens,
                        inner_precise=inner_precise, sparse_mode=sparse_mode, **extra)
    return reference.npu_fusion_attention(
        query, key, value, head_num, input_layout, pse, padding_mask, atten_mask, scale,
        keep_prob, pre_tockens, next_tockens, inner_precise, prefix, actual_seq_qlen,
        actual_seq_kvlen, sparse_mode, gen_mask_parallel, sync, softmax_layout, sink,
        dropout_mask, seed, offset)


_ATTENTION_DEFAULTS = {"prefix": None, "actual_seq_qlen": None, "actual_seq_kvlen": None,
                       "gen_mask_parallel": True, "sync": False, "softmax_layout": "",
                       "sink": None, "dropout_mask": None, "seed": 0, "offset": 0}


def npu_fusion_attention_out(query, key, value, head_num, input_layout, pse=None,
                             padding_mask=None, atten_mask=None, scale=1., keep_prob=1.,
                             pre_tockens=2147483647, next_tockens=2147483647, inner_precise=0,
                             sparse_mode=0):
    """npu_fusion_attention's attention_out alone (what `_attention_out_only` puts in place
    of a call whose other results nothing reads): torch_npu's call on an NPU, the reference
    without its softmax statistics elsewhere (the same output bits)."""
    if on_npu(query):
        return npu_fusion_attention(query, key, value, head_num, input_layout, pse=pse,
                                    padding_mask=padding_mask, atten_mask=atten_mask,
                                    scale=scale, keep_prob=keep_prob, pre_tockens=pre_tockens,
                                    next_tockens=next_tockens, inner_precise=inner_precise,
                                    sparse_mode=sparse_mode)[0]
    return reference.npu_fusion_attention_out(query, key, value, head_num, input_layout, pse,
                                              atten_mask, scale, keep_prob, sparse_mode)


_OUT_ONLY_UNSUPPORTED = ("prefix", "actual_seq_qlen", "actual_seq_kvlen", "sink",
                         "dropout_mask")


@specializer(npu_fusion_attention)
def _attention_out_only(site):
    """A call whose users read only attention_out (result 0) becomes npu_fusion_attention_out:
    one result, the same call on an NPU, no softmax statistics on the CPU.  Chosen by the
    call's result uses (docs/LOWERING.md); a call with a varlen / prefix / sink argument,
    or whose statistics are read, stays as it is."""
    if any(site.p[k] is not None for k in _OUT_ONLY_UNSUPPORTED):
        return None
    keep = ("query", "key", "value", "head_num", "input_layout", "pse", "padding_mask",
            "atten_mask", "scale", "keep_prob", "pre_tockens", "next_tockens",
            "inner_precise", "sparse_mode")
    # The keyword arguments at their defaults are left out (the same call: Python fills them
    # in), so a run binds a few instead of nine (1.2 us a call at the LLaMA block's sizes).
    out = site.call(npu_fusion_attention_out, *(site.p[k] for k in keep[:5]),
                    **{k: site.p[k] for k in keep[5:] if not _is_default(k, site.p[k])})
    return (out,) + (None,) * 6


_OUT_DEFAULTS = {k: p.default for k, p in
                 inspect.signature(npu_fusion_attention_out).parameters.items()
                 if p.default is not inspect.Parameter.empty}


def _is_default(name, value) -> bool:
    """`value` (a constant, never a graph value) is npu_fusion_attention_out's default."""
    default = _OUT_DEFAULTS[name]
    if default is None or value is None:
        return value is default
    return type(value) in (int, float, bool) and type(value) is type(default) \
        and value == default


def npu_gelu(self, *, approximate="none"):
    # Not F.gelu: on an NPU, aten gelu ignores `approximate` and uses tanh unless
    # TORCH_NPU_USE_COMPATIBLE_IMPL=1 (Ascend's npu_gelu page); npu_gelu honours it.
    if on_npu(self):
        return npu_call("npu_gelu", self, approximate=approximate)
    return reference.npu_gelu(self, approximate=approximate)


def npu_layer_norm_eval(input, normalized_shape, weight=None, bias=None, eps=1e-05):
    if on_npu(input):
        return npu_call("npu_layer_norm_eval", input, list(normalized_shape), weight=weight,
                        bias=bias, eps=eps)
    return reference.npu_layer_norm_eval(input, normalized_shape, weight, bias, eps)


def npu_linear(input, weight, bias=None):
    # torch_npu's npu_linear takes a 2-D input: fold leading dims, call, unfold.
    if on_npu(input):
        flat = input.reshape(-1, input.shape[-1])
        out = npu_call("npu_linear", flat, weight, bias=bias)
        return out.reshape(*input.shape[:-1], out.shape[-1])
    return reference.npu_linear(input, weight, bias)


@specializer(npu_linear)
def _weight_transposed_once(site):
    """The fc emitter passes `torch.t(w)` (torch_npu's weight is (N, K), Paddle's (K, N)).
    Where w is a parameter or folded constant, the transpose is taken once here: a buffer
    holding `w.t()` (a view of the same storage: no copy on the CPU, the same strides the
    per-call transpose gives, so the same GEMM and the same bits); a runtime w keeps its
    per-call transpose.  Chosen by the call's operand alone (docs/LOWERING.md)."""
    w = site.p["weight"]
    if not (isinstance(w, fx.Node) and w.op == "call_function" and w.target is torch.t):
        return None
    param = site.constant(w.args[0])
    if param is None or param.dim() != 2:
        return None
    held = site.buffer(param.detach().t(), "npu_linear_weight")
    if held is None:
        return None
    return site.call(npu_linear, site.p["input"], held, bias=site.p["bias"])


def npu_scaled_masked_softmax(x, mask, scale=1, fixed_triu_mask=False):
    # torch_npu's kernel wants the last two dims in [32, 4096] and divisible by 32.
    # mask None (pirc's own: `_nothing_masked`) is nothing masked; torch_npu gets that mask.
    if on_npu(x) and x.dim() == 4 and all(32 <= d <= 4096 and d % 32 == 0 for d in x.shape[-2:]):
        if mask is None:
            mask = torch.zeros_like(x, dtype=torch.bool)
        return npu_call("npu_scaled_masked_softmax", x, mask, scale=scale,
                        fixed_triu_mask=fixed_triu_mask)
    return reference.npu_scaled_masked_softmax(x, mask, scale, fixed_triu_mask)


@specializer(npu_scaled_masked_softmax)
def _nothing_masked(site):
    """A mask the graph fills with False, x's shape (fuse-scaled-softmax's `full_like(x, 0,
    bool)`: a value fixed when the program is lowered, as a constant operand is) is not
    built on every run: the call gets mask None, which the CPU reference reads as nothing
    masked (the masked_fill of nothing it replaces is a copy: the same bits) and the NPU
    branch turns back into the all-False tensor torch_npu's schema asks for."""
    from ..kernels.creation import full_like

    x, mask = site.p["x"], site.p["mask"]
    if not (isinstance(mask, fx.Node) and mask.op == "call_function"
            and mask.target is full_like and mask.kwargs.get("dtype") is torch.bool):
        return None
    value = mask.args[1] if len(mask.args) > 1 else mask.kwargs.get("value", 0.0)
    if type(value) not in (bool, int, float) or value != 0 or mask.args[0] is not x:
        return None
    return site.call(npu_scaled_masked_softmax, x, None, scale=site.p["scale"],
                     fixed_triu_mask=site.p["fixed_triu_mask"])


# The entry points the lowering emits (npu ops, emit.py), in the order of docs/NPU.md.
ENTRY_POINTS = ("npu_rms_norm", "npu_add_rms_norm", "npu_add_layer_norm", "npu_swiglu",
                "npu_rotary_mul", "npu_fusion_attention", "npu_gelu", "npu_layer_norm_eval",
                "npu_linear", "npu_scaled_masked_softmax")
