"""Which pirc.lower.npu.ops entry points a lowered graph calls: the NPU lowering's tests count
them (test_npu_emit.py, test_npu_fusion_programs.py)."""

from __future__ import annotations

from collections import Counter

import torch

from pirc.lower.npu import ops

# npu_fusion_attention_out is npu_fusion_attention where only its output is read (ops.py)
SAME_CALL = {"npu_fusion_attention_out": "npu_fusion_attention"}


def fused_calls(gm) -> Counter:
    """The entry points the graph (and its subgraphs) calls, by torch_npu name."""
    return Counter(SAME_CALL.get(n.target.__name__, n.target.__name__)
                   for m in gm.modules() if isinstance(m, torch.fx.GraphModule)
                   for n in m.graph.nodes
                   if n.op == "call_function" and getattr(n.target, "__module__", "") == ops.__name__)
