"""One-op and two-op rewrites: gelu, layer_norm, linear, scaled softmax."""

from __future__ import annotations

import operator

import torch

from .. import ops
from .match import attr, constant, op


def fuse_gelu(gm, node, names) -> bool:
    """pd_op.gelu -> npu_gelu(x, approximate='tanh'|'none').

    Why: aten gelu on an NPU ignores `approximate` and uses tanh (Ascend's npu_gelu page), so
    an erf gelu must be the npu_gelu call to keep Paddle's numbers. Same formula on the CPU.
    """
    if op(node, names) != "pd_op.gelu":
        return False
    approximate = "tanh" if node.kwargs.get("approximate", False) else "none"
    node.target = ops.npu_gelu
    node.args = node.args[:1]
    node.kwargs = {"approximate": approximate}
    return True


def fuse_layer_norm(gm, node, names) -> bool:
    """pd_op.layer_norm whose mean/variance nobody uses -> npu_layer_norm_eval.

    Paddle normalises over dims [begin_norm_axis:] with a flattened 1-D scale and bias;
    npu_layer_norm_eval (= F.layer_norm) takes normalized_shape and weight of that shape, so the
    graph reads x.shape[begin_norm_axis:] and reshapes scale/bias to it (views, no copies).
    Same epsilon placement (inside the rsqrt) and float32 statistics.
    """
    if op(node, names) != "pd_op.layer_norm":
        return False
    users = list(node.users)
    if not users or any(u.target is not operator.getitem or u.args[1] != 0 for u in users):
        return False
    begin = node.kwargs.get("begin_norm_axis", 1)
    if not isinstance(begin, int) or begin < 0:
        return False
    x, scale, bias = (list(node.args) + [None, None])[:3]
    g = gm.graph
    with g.inserting_before(node):
        shape = g.call_function(getattr, (x, "shape"))
        normalized = g.call_function(operator.getitem, (shape, slice(begin, None)))
        weight = g.call_function(torch.reshape, (scale, normalized)) if scale is not None else None
        b = g.call_function(torch.reshape, (bias, normalized)) if bias is not None else None
        fused = g.call_function(ops.npu_layer_norm_eval, (x, normalized),
                                {"weight": weight, "bias": b,
                                 "eps": node.kwargs.get("epsilon", 1e-5)})
    for u in users:
        u.replace_all_uses_with(fused)
        g.erase_node(u)
    g.erase_node(node)
    return True


def fuse_linear(gm, node, names) -> bool:
    """pd_op.matmul(x, W) [+ pd_op.add(., b)] with W a 2-D parameter -> npu_linear(x, W.T, b).

    Paddle's weight is (K, N), torch_npu's (N, K): the graph passes torch.t(W), a view. Bias is
    fused only when it is a 1-D parameter (broadcast over the last dim, as linear's bias).
    Numerics: linear adds the bias inside the GEMM (addmm), matmul+add after it: equal within
    float32 rounding, not bit-exact.
    """
    if op(node, names) != "pd_op.matmul":
        return False
    if node.kwargs.get("transpose_x", False) or node.kwargs.get("transpose_y", False):
        return False
    x, w = node.args[:2]
    weight = attr(gm, w)
    if weight is None or weight.dim() != 2:
        return False
    g = gm.graph
    bias, add = None, None
    users = list(node.users)
    if len(users) == 1 and op(users[0], names) == "pd_op.add":
        other = [a for a in users[0].args[:2] if a is not node]
        tensor = attr(gm, other[0]) if len(other) == 1 else None
        if tensor is not None and tensor.dim() == 1 and tensor.shape[0] == weight.shape[1]:
            bias, add = other[0], users[0]
    with g.inserting_before(add if add is not None else node):
        wt = g.call_function(torch.t, (w,))
        fused = g.call_function(ops.npu_linear, (x, wt), {"bias": bias})
    (add or node).replace_all_uses_with(fused)
    if add is not None:
        g.erase_node(add)
    g.erase_node(node)
    return True


def fuse_scaled_softmax(gm, node, names) -> bool:
    """pd_op.softmax(axis=-1) of pd_op.scale(x, s, bias=0) -> npu_scaled_masked_softmax(x, none masked, s).

    Exact: Paddle computes x*s (+0) then softmax over the last axis; the fused op computes
    softmax(x*scale) with nothing masked. An additive float mask (softmax(x*s + M)) is NOT fused:
    turning M into torch_npu's bool mask is exact only when M holds nothing but 0 and -inf,
    which the graph cannot know. Runs after the attention rewrite, which takes the softmaxes
    that sit between two matmuls.
    """
    if op(node, names) != "pd_op.softmax" or node.kwargs.get("axis", -1) != -1:
        return False
    src = node.args[0]
    if op(src, names) != "pd_op.scale" or len(src.users) != 1:
        return False
    if src.kwargs.get("bias", 0.0) != 0.0:
        return False
    s = constant(src.args[1] if len(src.args) > 1 else src.kwargs.get("scale", 1.0), names)
    if s is None:
        return False
    x = src.args[0]
    g = gm.graph
    with g.inserting_before(node):
        mask = g.call_function(torch.zeros_like, (x,), {"dtype": torch.bool})
        fused = g.call_function(ops.npu_scaled_masked_softmax, (x, mask), {"scale": s})
    node.replace_all_uses_with(fused)
    g.erase_node(node)
    g.erase_node(src)
    return True
