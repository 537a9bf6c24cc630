"""Ops that move, view or re-lay a tensor's memory without computing on it, as Paddle's CPU
wheel runs them: the place copies (memcpy, memcpy_d2h, memcpy_h2d: the CPU is the only place
there), the layout transfers (npu_identity, onednn_to_paddle_layout: a fed tensor is already
in Paddle's layout), trans_layout's transpose, view_slice's rows, the in-place nop_, and the
fused buffer of coalesce_tensor."""

from __future__ import annotations

import math

import torch

from ...runtime.registry import REGISTRY
from .operands import int_list

# paddle::platform::Alignment on a CPU place: align_size -1 means CpuMinChunkSize, 4 KiB
_CPU_MIN_CHUNK = 4096


def _copy(x):
    return x.clone()


for _name in ("memcpy", "memcpy_d2h", "memcpy_h2d"):
    # dst_place_type names the place to copy to; on a CPU wheel every accepted one is the CPU
    REGISTRY.register(f"pd_op.{_name}", since=1)(
        lambda x, *, dst_place_type=0: _copy(x))


@REGISTRY.register("pd_op.npu_identity", since=1)
def npu_identity(x, *, format=-1):  # noqa: A002 - Paddle's attribute name
    # the format is an NPU storage format; off an NPU the kernel copies x
    return _copy(x)


@REGISTRY.register("pd_op.onednn_to_paddle_layout", since=1)
def onednn_to_paddle_layout(x, *, dst_layout=1):
    # only a tensor in oneDNN's blocked layout is reordered; a program's tensors are in
    # Paddle's layout already, which the kernel copies whatever dst_layout says
    return _copy(x)


@REGISTRY.register("pd_op.nop_", since=1)
def nop_(x):
    # writes nothing: the result is the input variable itself
    return x


@REGISTRY.register("pd_op.trans_layout", since=1)
def trans_layout(x, *, perm=()):
    return x.permute(int_list(perm)).contiguous()


@REGISTRY.register("pd_op.view_slice", since=1)
def view_slice(input, *, begin_idx=0, end_idx=0):  # noqa: A002 - Paddle's operand name
    # DenseTensor::Slice: rows [begin_idx, end_idx) of dim 0
    if not 0 <= begin_idx < end_idx <= input.shape[0]:
        raise ValueError(f"view_slice: need 0 <= begin_idx < end_idx <= {input.shape[0]}, "
                         f"got begin_idx={begin_idx}, end_idx={end_idx}")
    return input[begin_idx:end_idx].clone()


def _aligned(numel: int, size_of_dtype: int, use_align: bool, align_size: int) -> int:
    """The elements coalesce_tensor reserves for a tensor of `numel`: its bytes rounded up to
    the alignment (Alignment(numel * size, place, align_size) / size)."""
    if not use_align:
        return numel
    align = _CPU_MIN_CHUNK if align_size == -1 else align_size
    return math.ceil(numel * size_of_dtype / align) * align // size_of_dtype


def _coalesce_tensor(input, *, dtype=None, copy_data=False, set_constant=False,  # noqa: A002
                     persist_output=False, constant=0.0, use_align=True, align_size=-1,
                     size_of_dtype=-1, concated_shapes=(), concated_ranks=()):
    """CoalesceTensorKernel: one buffer of `dtype` holding every input back to back, each at
    an aligned offset; the outputs are the inputs' views into it. copy_data copies the inputs
    in, set_constant fills the whole buffer; otherwise (and in the alignment gaps of
    copy_data) the buffer is uninitialised memory in Paddle, zeros here."""
    if not input:
        raise ValueError("coalesce_tensor: the op has no input")
    if any(t.numel() == 0 for t in input):
        raise ValueError("coalesce_tensor: an input has no element")
    dtype = dtype or input[0].dtype
    size = torch.empty((), dtype=dtype).element_size() if size_of_dtype == -1 else size_of_dtype
    lens = [_aligned(t.numel(), size, use_align, align_size) for t in input]
    if set_constant and not copy_data:
        fused = torch.full((sum(lens),), constant, dtype=dtype)
    else:
        fused = torch.zeros((sum(lens),), dtype=dtype)
    if copy_data:
        parts, start = [], 0
        for t, n in zip(input, lens):
            pad = torch.zeros((n - t.numel(),), dtype=dtype)
            parts += [t.reshape(-1).to(dtype), pad]
            start += n
        fused = torch.cat(parts)
    outs, start = [], 0
    for t, n in zip(input, lens):
        outs.append(fused[start:start + t.numel()].reshape(t.shape).clone())
        start += n
    return outs, fused


for _name in ("coalesce_tensor", "coalesce_tensor_"):
    REGISTRY.register(f"pd_op.{_name}", since=1)(_coalesce_tensor)
