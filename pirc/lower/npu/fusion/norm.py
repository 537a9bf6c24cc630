"""RMS normalisation -> npu_rms_norm / npu_add_rms_norm.

Three source forms: the fused op of PIR versions 1-3 (`pd_op.rms_norm`, renamed
`pd_op.fused_rms_norm_quant` in version 4), paddle.nn.functional.rms_norm's op of version 4
(`pd_op.rms_norm` with [x, scale]), and the composition Paddle programs spell out by hand
(pow -> mean -> + eps -> rsqrt -> multiply -> multiply by the weight). Each rewrite says why
the fused op computes the same numbers.
"""

from __future__ import annotations

import operator

import torch
from torch import fx

from .. import ops
from .match import constant, dtype, flags, op, only_user, replace_results, results_used, shape


def _getitems(g: fx.Graph, fused: fx.Node, count: int) -> list:
    return [g.call_function(operator.getitem, (fused, i)) for i in range(count)]


def fuse_rms_norm_op(gm, node, names) -> bool:
    """pd_op.rms_norm (either meaning) / pd_op.fused_rms_norm_quant -> npu_(add_)rms_norm.

    Sound because the registry entry of the kernel says so (Behaviour.epsilon_placement
    "inside_sqrt", float32 statistics): y = x * rsqrt(mean(x^2) + eps) * w, which is
    npu_rms_norm's formula over the last gamma.dim() dims. The weight is reshaped (a view) to
    the normalised dims: x.shape[begin_norm_axis:] (versions 1-3, flat norm_weight) or
    normalized_shape (version 4).

    Version 1-3 form: fused only without quantisation (quant_scale <= 0), without norm_bias and
    without the bias input (npu_add_rms_norm has none), and when inv_var is unused (Paddle's
    CPU kernel never writes it). With a residual it is npu_add_rms_norm(x, residual, w): x1+x2
    is Paddle's residual_out, its third result. Version 4 form: fused when invvar is unused
    (Paddle's invvar is [rows], npu's rstd keeps the leading dims and 1s for the normalised).
    """
    name = op(node, names)
    if name not in ("pd_op.rms_norm", "pd_op.fused_rms_norm_quant"):
        return False
    behaviour = flags(node)
    if behaviour is None or behaviour.epsilon_placement != "inside_sqrt":
        return False
    used = results_used(node)
    if used is None:
        return False
    g = gm.graph
    kw = node.kwargs
    if len(node.args) == 2:  # version 4: [x, scale]
        x, scale = node.args
        k = len(kw.get("normalized_shape", ()))
        if scale is None or k == 0 or 1 in used:
            return False
        with g.inserting_before(node):
            dims = g.call_function(operator.getitem, (g.call_function(getattr, (x, "shape")),
                                                      slice(-k, None)))
            gamma = g.call_function(torch.reshape, (scale, dims))
            fused = g.call_function(ops.npu_rms_norm, (x, gamma), {"epsilon": kw.get("epsilon", 1e-5)})
            (y, _) = _getitems(g, fused, 2)
        replace_results(g, node, {0: y})
        g.erase_node(node)
        return True
    if len(node.args) != 5:
        return False
    x, bias, residual, weight, norm_bias = node.args
    begin = kw.get("begin_norm_axis", 1)
    if (kw.get("quant_scale", -1.0) > 0 or norm_bias is not None or bias is not None
            or 2 in used or not isinstance(begin, int) or begin < 0):
        return False
    if residual is None and 1 in used:
        return False
    with g.inserting_before(node):
        dims = g.call_function(operator.getitem, (g.call_function(getattr, (x, "shape")),
                                                  slice(begin, None)))
        gamma = g.call_function(torch.reshape, (weight, dims))
        eps = {"epsilon": kw.get("epsilon", 1e-5)}
        if residual is None:
            fused = g.call_function(ops.npu_rms_norm, (x, gamma), eps)
            y, _ = _getitems(g, fused, 2)
            mapping = {0: y}
        else:
            fused = g.call_function(ops.npu_add_rms_norm, (x, residual, gamma), eps)
            y, _, total = _getitems(g, fused, 3)
            mapping = {0: y, 1: total}
    replace_results(g, node, mapping)
    g.erase_node(node)
    return True


def _other(node: fx.Node, this):
    """The operand of a binary call that is not `this` (None if both or neither are)."""
    a, b = node.args[:2]
    if a is this and b is not this:
        return b
    if b is this and a is not this:
        return a
    return None


def _eps_added(node, names):
    """(mean node, eps) when node adds a constant eps to something: scale(m, 1, bias=eps)
    (either bias_after_scale: with factor 1 both are m + eps) or add(m, c) / add(c, m)."""
    name = op(node, names)
    if name == "pd_op.scale":
        factor = constant(node.args[1] if len(node.args) > 1 else node.kwargs.get("scale", 1.0), names)
        bias = node.kwargs.get("bias", 0.0)
        if factor == 1.0 and isinstance(bias, float) and bias > 0:
            return node.args[0], bias
    if name == "pd_op.add":
        for m, c in ((node.args[0], node.args[1]), (node.args[1], node.args[0])):
            value = constant(c, names)
            if value is not None and value > 0 and isinstance(m, fx.Node):
                return m, value
    return None


def _rms_chain(node, names):
    """Match out = (x * r) * w with r = rsqrt(mean(x^2, -1, keepdim) + eps); returns
    (x, w, eps, [intermediate nodes]) or None. Multiplications may have either operand order."""
    if op(node, names) != "pd_op.multiply":
        return None
    for n, w in ((node.args[0], node.args[1]), (node.args[1], node.args[0])):
        if op(n, names) != "pd_op.multiply" or only_user(n) is not node:
            continue
        for x, r in ((n.args[0], n.args[1]), (n.args[1], n.args[0])):
            found = _inverse_rms(r, x, names)
            if found is not None:
                eps, chain = found
                return x, w, eps, [node, n, *chain]
    return None


def _inverse_rms(r, x, names):
    """(eps, [r, s, m, p]) when r = rsqrt(mean(x^2, [-1], keepdim=True) + eps) (or pow(., -0.5))."""
    name = op(r, names)
    if not isinstance(r, fx.Node) or len(r.users) != 1:
        return None
    if not (name == "pd_op.rsqrt" or (name == "pd_op.pow" and r.kwargs.get("y") == -0.5)):
        return None
    s = r.args[0]
    if len(getattr(s, "users", ())) != 1:
        return None
    found = _eps_added(s, names)
    if found is None:
        return None
    m, eps = found
    if op(m, names) != "pd_op.mean" or len(m.users) != 1 or not m.kwargs.get("keepdim", False):
        return None
    axes = m.args[1] if len(m.args) > 1 else m.kwargs.get("axis", ())
    axes = list(axes) if isinstance(axes, (list, tuple)) else [axes]
    xs = shape(x)
    if xs is None or axes not in ([-1], [len(xs) - 1]):
        return None
    p = m.args[0]
    if not isinstance(p, fx.Node) or len(p.users) != 1:
        return None
    squared = (op(p, names) == "pd_op.pow" and p.kwargs.get("y") == 2.0 and p.args[0] is x) or \
              (op(p, names) == "pd_op.multiply" and p.args[0] is x and p.args[1] is x)
    return (eps, [r, s, m, p]) if squared else None


def fuse_rms_norm_composition(gm, node, names) -> bool:
    """x * rsqrt(mean(x^2, -1, keepdim) + eps) * w -> npu_rms_norm(x, w, eps)[0]; with
    x = add(a, b) of equal shapes -> npu_add_rms_norm(a, b, w, eps) ([2] replaces x).

    Sound for float32 x and a 1-D weight of x's static last dim: the same operations in the
    same order (square, float32 mean over the last axis, eps added to the mean inside the
    square root, x times the inverse root, times w) as npu_rms_norm's definition, which also
    computes in float32. pow(x, 2) is exact-rounded x*x either way; rsqrt against Paddle's
    rsqrt differs by at most an ulp. Not fused for float16/bfloat16 x: Paddle's composition
    rounds every step to the half type, npu_rms_norm computes in float32 (not the same
    numbers), nor where the shapes are not known statically.
    """
    found = _rms_chain(node, names)
    if found is None:
        return False
    x, w, eps, chain = found
    xs, ws = shape(x), shape(w)
    if (dtype(x) is not torch.float32 or xs is None or ws is None or len(ws) != 1
            or xs[-1] < 0 or ws[0] != xs[-1] or (w.op != "get_attr" and w.op != "placeholder")):
        return False
    g = gm.graph
    eps_kw = {"epsilon": eps}
    add = x if op(x, names) == "pd_op.add" else None
    if add is not None:
        a, b = add.args[:2]
        # npu_add_rms_norm adds without broadcasting: both operands must have x's shape (a
        # dynamic dim counts as equal when both have it at the same place, as the add's own
        # inferred type then says).
        if not shape(a) == shape(b) == xs or w.op != "get_attr":
            add = None
    if add is None:
        with g.inserting_before(node):
            fused = g.call_function(ops.npu_rms_norm, (x, w), eps_kw)
            y, _ = _getitems(g, fused, 2)
        node.replace_all_uses_with(y)
        for n in chain:
            g.erase_node(n)
        return True
    # The sum replaces every use of the add, some of which may come before `node`: put the
    # fused call right after the add, with its own read of the weight parameter.
    with g.inserting_before(add.next):
        weight = g.get_attr(w.target)
        fused = g.call_function(ops.npu_add_rms_norm, (a, b, weight), eps_kw)
        y, _, total = _getitems(g, fused, 3)
    node.replace_all_uses_with(y)
    for n in chain:
        g.erase_node(n)
    add.replace_all_uses_with(total)
    g.erase_node(add)
    return True
