"""The `npu` dialect's ops (dialects/npu.yaml): each is its pirc.lower.npu.ops entry point.

An npu op's operands and attributes are its torch_npu function's arguments, named as the
schema names them, so the kernel is the entry point itself, called with every operand by
keyword (`keyword_operands`: the schemas put attributes between tensors, as
npu_layer_norm_eval's `normalized_shape` before `weight`).  On a tensor that lives on an NPU
the entry point calls torch_npu; anywhere else its CPU reference (pirc/lower/npu/ops.py), so
a program holding npu ops runs on every device.
"""

from __future__ import annotations

from ...runtime.registry import REGISTRY
from ..npu import ops

# npu op -> its entry point (the spec's `kernel` names the same function).
NPU_OPS = {
    "npu.rms_norm": ops.npu_rms_norm,
    "npu.add_rms_norm": ops.npu_add_rms_norm,
    "npu.add_layer_norm": ops.npu_add_layer_norm,
    "npu.swiglu": ops.npu_swiglu,
    "npu.rotary_mul": ops.npu_rotary_mul,
    "npu.fusion_attention": ops.npu_fusion_attention,
    "npu.scaled_masked_softmax": ops.npu_scaled_masked_softmax,
    "npu.gelu": ops.npu_gelu,
    "npu.layer_norm_eval": ops.npu_layer_norm_eval,
    "npu.linear": ops.npu_linear,
}

for _name, _fn in NPU_OPS.items():
    REGISTRY.register(_name, since=1, keyword_operands=True)(_fn)
