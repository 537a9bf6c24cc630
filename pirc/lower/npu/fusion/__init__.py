"""`fuse_for_npu(gm)`: rewrite a lowered graph to call torch_npu's fused ops where a pattern allows.

Each rewrite (one module per family: attention, norm, gating, rotary, basic) replaces a
subgraph of kernel calls with a call to `pirc.lower.npu.ops.<name>`, which runs torch_npu on
an NPU tensor and the CPU reference elsewhere (ops.py). Each rewrite's docstring, and
docs/NPU.md, say which numerics it keeps and why it is sound.

Rewrites run as whole-graph sweeps in the order of REWRITES, larger patterns first: the
attention pattern contains the softmax-of-scale that `fuse_scaled_softmax` would otherwise
take, the rms_norm composition contains multiplies. What a rewrite leaves unused is removed
by dead-code elimination at the end.
"""

from __future__ import annotations

from torch import fx

from .attention import fuse_attention
from .basic import fuse_gelu, fuse_layer_norm, fuse_linear, fuse_scaled_softmax
from .gating import fuse_silu_gate, fuse_swiglu_op
from .match import kernel_names
from .norm import fuse_rms_norm_composition, fuse_rms_norm_op
from .rotary import fuse_rotary_half

REWRITES = (fuse_attention, fuse_rms_norm_op, fuse_rms_norm_composition, fuse_swiglu_op,
            fuse_silu_gate, fuse_rotary_half, fuse_linear, fuse_layer_norm, fuse_gelu,
            fuse_scaled_softmax)

__all__ = ["fuse_for_npu", "REWRITES"]


def fuse_for_npu(gm: fx.GraphModule, names: dict | None = None) -> fx.GraphModule:
    """Apply each rewrite over the graph (and control-flow subgraphs); returns gm."""
    names = kernel_names() if names is None else names
    modules = [gm] + [m for m in gm.modules() if isinstance(m, fx.GraphModule) and m is not gm]
    for module in modules:
        for rewrite in REWRITES:
            for node in list(module.graph.nodes):
                if getattr(node, "_erased", False):  # removed by an earlier match
                    continue
                rewrite(module, node, names)
        module.graph.eliminate_dead_code()
        module.graph.lint()
        module.recompile()
    return gm
