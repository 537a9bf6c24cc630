"""Gated activations -> npu_swiglu."""

from __future__ import annotations

from .. import ops
from .match import halves, op


def fuse_swiglu_op(gm, node, names) -> bool:
    """pd_op.swiglu(x) (no y) -> npu_swiglu(x, dim=-1).

    Paddle's swiglu without y is silu(first half) * second half of x's last axis
    (paddle.chunk(x, 2, -1)), npu_swiglu's definition with dim=-1. With y given it is
    silu(x) * y, element-wise: npu_swiglu would need cat(x, y) first, a copy the plain
    kernel does not make, so it is fused only when x and y are the two halves of one tensor.
    """
    if op(node, names) != "pd_op.swiglu":
        return False
    x = node.args[0]
    y = node.args[1] if len(node.args) > 1 else node.kwargs.get("y")
    if y is None:
        node.target, node.args, node.kwargs = ops.npu_swiglu, (x,), {"dim": -1}
        return True
    found = halves(x, y, names)
    if found is None:
        return False
    node.target, node.args, node.kwargs = ops.npu_swiglu, (found[0],), {"dim": found[1]}
    return True


def fuse_silu_gate(gm, node, names) -> bool:
    """multiply(silu(a), b) (either order), a and b the two halves of one tensor along one dim
    -> npu_swiglu(source, dim).

    Same numbers: silu(a) * b is npu_swiglu's formula; for float32 input both compute silu
    and the product in float32 (the reference's cast to float32 is a no-op there). For half
    types the fused op rounds once at the end where Paddle also rounds silu's result: equal
    within the half type's rounding.
    """
    if op(node, names) != "pd_op.multiply":
        return False
    for s, b in ((node.args[0], node.args[1]), (node.args[1], node.args[0])):
        if op(s, names) != "pd_op.silu" or len(s.users) != 1:
            continue
        found = halves(s.args[0], b, names)
        if found is None:
            continue
        g = gm.graph
        with g.inserting_before(node):
            fused = g.call_function(ops.npu_swiglu, (found[0],), {"dim": found[1]})
        node.replace_all_uses_with(fused)
        g.erase_node(node)
        g.erase_node(s)
        return True
    return False
