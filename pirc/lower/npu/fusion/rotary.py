"""Rotary position embedding in the half layout -> npu_rotary_mul(x, cos, sin, 'half')."""

from __future__ import annotations

from .. import ops
from .match import arg, axis, constant, halves, op, rank, shape


def _negated(node, names):
    """x when node is -x: pd_op.scale(x, -1, bias=0)."""
    if op(node, names) != "pd_op.scale" or node.kwargs.get("bias", 0.0) != 0.0:
        return None
    factor = constant(arg(node, 1, "scale", 1.0), names)
    return node.args[0] if factor == -1.0 else None


def _rotate_half(node, names):
    """x when node = concat([-x2, x1], last axis) with x1, x2 the halves of x's last axis."""
    if op(node, names) != "pd_op.concat":
        return None
    parts = node.args[0]
    if not isinstance(parts, (list, tuple)) or len(parts) != 2:
        return None
    x2 = _negated(parts[0], names)
    if x2 is None:
        return None
    found = halves(parts[1], x2, names)
    if found is None:
        return None
    x, dim = found
    r = rank(x)
    cat_axis = arg(node, 1, "axis", 0)
    if r is None or dim != r - 1 or axis(cat_axis, r) != r - 1:
        return None
    return x


def _product_with(node, x, names):
    """The other factor when node = multiply(x, f) or multiply(f, x)."""
    if op(node, names) != "pd_op.multiply":
        return None
    a, b = node.args[:2]
    if a is x and b is not x:
        return b
    if b is x and a is not x:
        return a
    return None


def fuse_rotary_half(gm, node, names) -> bool:
    """x*cos + rotate_half(x)*sin -> npu_rotary_mul(x, cos, sin, 'half').

    rotate_half(x) = concat(-x2, x1) of the two halves of x's last axis, -x2 being Paddle's
    scale(x2, -1, bias 0). npu_rotary_mul's 'half' mode is exactly r1*x + r2*cat(-x2, x1):
    the same two products and one sum (products and the sum commute exactly in IEEE
    arithmetic), so the numbers are Paddle's bit for bit on the CPU. Only where x, cos and sin
    have the same static rank and cos/sin end in x's (static, even) last dim: torch_npu takes
    cos/sin broadcast over the other dims, not over the last.
    """
    if op(node, names) != "pd_op.add":
        return False
    for direct, rotated in ((node.args[0], node.args[1]), (node.args[1], node.args[0])):
        if op(rotated, names) != "pd_op.multiply":
            continue
        for rot, sin in ((rotated.args[0], rotated.args[1]), (rotated.args[1], rotated.args[0])):
            x = _rotate_half(rot, names)
            if x is None:
                continue
            cos = _product_with(direct, x, names)
            xs, cs, ss = shape(x), shape(cos), shape(sin)
            if cos is None or xs is None or cs is None or ss is None:
                continue
            if not (len(xs) == len(cs) == len(ss) and xs[-1] > 0 and xs[-1] % 2 == 0
                    and cs[-1] == ss[-1] == xs[-1]):
                continue
            g = gm.graph
            with g.inserting_before(node):
                fused = g.call_function(ops.npu_rotary_mul, (x, cos, sin), {"rotary_mode": "half"})
            node.replace_all_uses_with(fused)
            g.erase_node(node)
            return True
    return False
