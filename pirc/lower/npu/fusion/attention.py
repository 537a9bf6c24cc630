"""Scaled dot-product attention -> npu_fusion_attention(q, k, v, N, 'BNSD', scale=s)[0]."""

from __future__ import annotations

import operator

from .. import ops
from .match import arg, axis, constant, op, only_user, rank, results_used, shape


def _scale_of(node, source, names):
    """s when node = scale(source, s, bias=0) or multiply(source, c) / multiply(c, source)."""
    name = op(node, names)
    if name == "pd_op.scale" and node.args[0] is source and node.kwargs.get("bias", 0.0) == 0.0:
        return constant(arg(node, 1, "scale", 1.0), names)
    if name == "pd_op.multiply":
        a, b = node.args[:2]
        other = b if a is source else a if b is source else None
        return constant(other, names) if other is not None else None
    return None


def _inference_dropout(node, names):
    """The getitem(.., 0) that stands for an inference-mode dropout of `node` that is the
    identity (is_test with upscale_in_train, or p == 0), else None."""
    if op(node, names) != "pd_op.dropout" or not node.kwargs.get("is_test", False):
        return None
    p = constant(arg(node, 2, "p", 0.5), names)
    if node.kwargs.get("mode", "downgrade_in_infer") != "upscale_in_train" and p != 0.0:
        return None
    used = results_used(node)
    if used is None or set(used) != {0} or len(used[0]) != 1:
        return None
    return used[0][0]


def fuse_attention(gm, node, names) -> bool:
    """matmul(q, k, transpose_y) -> scale s -> softmax(-1) [-> inference dropout] -> matmul(., v)
    with 4-D q, k, v -> npu_fusion_attention(q, k, v, q.shape[1], 'BNSD', scale=s)[0].

    Same formula: softmax(s * q k^T) v with nothing masked and no dropout (keep_prob 1); the
    reference computes q k^T in float32, multiplies by s, softmax over the last axis, times v,
    which is Paddle's sequence op for op. head_num is read from q's shape at run time.
    Only where q, k, v agree on the batch and head dims (B, N) as static types say (matmul
    would broadcast them, the fused op does not). Not fused: an additive mask
    (softmax(s q k^T + M)): torch_npu's atten_mask is boolean and its pse is documented both
    before and after the scale, so no float mask can be passed with provably Paddle's numbers.
    """
    if op(node, names) != "pd_op.matmul" or node.kwargs.get("transpose_x", False) \
            or not node.kwargs.get("transpose_y", False):
        return False
    q, k = node.args[:2]
    scaled = only_user(node)
    s = _scale_of(scaled, node, names) if scaled is not None else None
    if s is None:
        return False
    soft = only_user(scaled)
    if op(soft, names) != "pd_op.softmax" or axis(soft.kwargs.get("axis", -1), 4) != 3:
        return False
    after = only_user(soft)
    if after is None:
        return False
    soft_out = _inference_dropout(after, names) or soft
    out = only_user(soft_out)
    if (op(out, names) != "pd_op.matmul" or out.args[0] is not soft_out
            or out.kwargs.get("transpose_x", False) or out.kwargs.get("transpose_y", False)):
        return False
    v = out.args[1]
    qs, ks, vs = shape(q), shape(k), shape(v)
    if qs is None or ks is None or vs is None or not (rank(q) == rank(k) == rank(v) == 4):
        return False
    if not (qs[:2] == ks[:2] == vs[:2] and ks[2] == vs[2]):
        return False
    g = gm.graph
    with g.inserting_before(out):
        heads = g.call_function(operator.getitem, (g.call_function(getattr, (q, "shape")), 1))
        fused = g.call_function(ops.npu_fusion_attention, (q, k, v, heads, "BNSD"), {"scale": s})
        result = g.call_function(operator.getitem, (fused, 0))
    out.replace_all_uses_with(result)
    g.erase_node(out)
    return True
