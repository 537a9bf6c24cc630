"""Common-subexpression elimination on the lowered graph: one call for identical pure calls.

Paddle programs often compute a value twice (a while body's `i + 1` once for the carried
counter and once for the condition; the same reshape of one parameter in two places).  Two
calls of the same pure function on the same operands and attributes give the same tensor, so
the later call's users read the earlier one.  Pure means: a specialised torch call from
`_PURE` or a kernel of a deterministic family (pirc.lower.fold's list).  A call whose result
some in-place method updates (`mul(...).add_(b)`, made by specialisers) is never shared.
"""

from __future__ import annotations

import operator

import torch
import torch.fx as fx
import torch.nn.functional as F

from .fold import _PURE_MODULES

_PURE = frozenset({
    torch.add, torch.mul, torch.div, torch.sub, torch.eq, torch.gt, torch.lt, torch.relu,
    torch.sigmoid, torch.tanh, torch.exp, torch.matmul, torch.softmax, torch.reshape,
    torch.permute, torch.flatten, torch.sum, torch.conv2d, F.conv2d, F.gelu, F.layer_norm,
    F.max_pool2d, F.avg_pool2d, F.pad, operator.getitem,
})


def _pure(node: fx.Node) -> bool:
    if node.op != "call_function":
        return False
    target = node.target
    try:
        if target in _PURE:
            return True
    except TypeError:  # unhashable target
        return False
    return getattr(target, "__module__", None) in _PURE_MODULES


def _updated_in_place(node: fx.Node) -> bool:
    return any(u.op == "call_method" and u.target.endswith("_") and u.args and u.args[0] is node
               for u in node.users)


def _is_output(node: fx.Node) -> bool:
    return any(u.op == "output" for u in node.users)


def _key(node: fx.Node):
    try:
        key = (node.target, node.args, tuple(sorted(node.kwargs.items())))
        hash(key)
        return key
    except TypeError:  # a list or other unhashable operand
        return (node.target, repr(node.args), repr(sorted(node.kwargs.items())))


def eliminate_common_subexpressions(gm: fx.GraphModule) -> int:
    """Share identical pure calls in `gm` and its subgraph modules; returns how many went."""
    seen: dict = {}
    removed = 0
    for node in list(gm.graph.nodes):
        if not _pure(node) or _updated_in_place(node):
            continue
        key = _key(node)
        first = seen.get(key)
        if first is None:
            seen[key] = node
            continue
        if _is_output(node) and _is_output(first):
            continue  # one tensor twice among the outputs: torch's control-flow operators refuse it
        node.replace_all_uses_with(first)
        gm.graph.erase_node(node)
        removed += 1
    if removed:
        gm.recompile()
    for _, child in gm.named_children():
        if isinstance(child, fx.GraphModule):
            removed += eliminate_common_subexpressions(child)
    return removed
