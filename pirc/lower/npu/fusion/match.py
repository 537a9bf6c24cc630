"""What the rewrites ask of a lowered graph: which PIR op a node runs, constants, static shapes.

The lowering emits one call per PIR op, its target the kernel registered for the op
(pirc.runtime.registry); a node's op is found by looking its target up in a {kernel: op name}
table. The graph builder puts each result's static PIR shape (-1 where dynamic) and dtype in
`node.meta["pir_shape"]` / `["pir_dtype"]`; a rewrite that needs a rank or a size reads them
and does not fire where they are missing.
"""

from __future__ import annotations

import math
import operator

import torch
from torch import fx


def kernel_names() -> dict:
    """{kernel function: PIR op name} over every registered entry.

    An in-place op shares its out-of-place twin's kernel (kernels/inplace.py); the names are
    visited in sorted order, so the function keeps the out-of-place name (`relu`, not
    `relu_`), which is what the patterns match: functionally the two are the same op.
    """
    from ....runtime.registry import REGISTRY
    import pirc.lower.kernels  # noqa: F401  (registers the kernels)
    table = {}
    for name in REGISTRY.names():
        for entry in REGISTRY.entries(name):
            table.setdefault(entry.fn, name)
    return table


def flags(node):
    """The registry Behaviour of the kernel a node calls (None for an unregistered target)."""
    from ....runtime.registry import REGISTRY
    if not isinstance(node, fx.Node) or node.op != "call_function":
        return None
    for name in REGISTRY.names():
        for entry in REGISTRY.entries(name):
            if entry.fn is node.target:
                return entry.flags
    return None


def op(node, names: dict) -> str | None:
    if not isinstance(node, fx.Node) or node.op != "call_function":
        return None
    try:
        return names.get(node.target)
    except TypeError:  # unhashable target
        return None


def attr(gm: fx.GraphModule, node) -> torch.Tensor | None:
    """The tensor of a get_attr node (a parameter or buffer), else None."""
    if not isinstance(node, fx.Node) or node.op != "get_attr":
        return None
    obj = gm
    for part in node.target.split("."):
        obj = getattr(obj, part, None)
    return obj if isinstance(obj, torch.Tensor) else None


def constant(node, names: dict):
    """A Python number an operand is known to hold: a literal, or a one-element pd_op.full."""
    if isinstance(node, (int, float)) and not isinstance(node, bool):
        return float(node)
    if isinstance(node, (list, tuple)) and len(node) == 1:
        return constant(node[0], names)
    if isinstance(node, fx.Node) and op(node, names) == "pd_op.full":
        shape = list(node.kwargs.get("shape", ()))
        value = node.kwargs.get("value")
        if isinstance(value, (int, float)) and all(d == 1 for d in shape):
            return float(value)
    return None


def int_constant(node, names: dict):
    value = constant(node, names)
    # (a NaN or infinite constant is no integer: int() of it would raise)
    return (int(value) if value is not None and math.isfinite(value) and value == int(value)
            else None)


def shape(node) -> tuple | None:
    """The static PIR shape of a node's value (dims -1 where dynamic), or None if unknown."""
    if isinstance(node, fx.Node):
        s = node.meta.get("pir_shape")
        if s is not None:
            return tuple(s)
    return None


def rank(node) -> int | None:
    s = shape(node)
    return None if s is None else len(s)


def dtype(node):
    return node.meta.get("pir_dtype") if isinstance(node, fx.Node) else None


def axis(value, node_rank: int | None):
    """A literal axis made non-negative (None if it is not a literal or the rank is unknown)."""
    if isinstance(value, (list, tuple)) and len(value) == 1:
        value = value[0]
    if not isinstance(value, int) or isinstance(value, bool):
        return None
    if value >= 0:
        return value
    return None if node_rank is None else value + node_rank


def arg(node: fx.Node, index: int, name: str, default=None):
    """Operand `index` of a kernel call, or its keyword `name` (kernels take either)."""
    if len(node.args) > index:
        return node.args[index]
    return node.kwargs.get(name, default)


def only_user(node: fx.Node):
    users = list(node.users)
    return users[0] if len(users) == 1 else None


def item(node, i: int):
    """The source of `operator.getitem(source, i)`, else None."""
    if (isinstance(node, fx.Node) and node.op == "call_function" and node.target is operator.getitem
            and node.args[1] == i):
        return node.args[0]
    return None


def results_used(node: fx.Node) -> dict[int, list]:
    """{result index: getitem users} of a node returning a tuple; None if used another way."""
    out: dict[int, list] = {}
    for u in node.users:
        if u.op != "call_function" or u.target is not operator.getitem or not isinstance(u.args[1], int):
            return None
        out.setdefault(u.args[1], []).append(u)
    return out


def halves(a, b, names: dict):
    """(source, dim) when a and b are the first and second half of one tensor along one dim.

    Recognised: the two results of pd_op.split_with_num(num=2) or of pd_op.split with two
    equal sections, and two pd_op.slice ops [0, h) and [h, end) of the same axis where the
    source's static size on that axis is 2h.
    """
    sa, sb = item(a, 0), item(b, 1)
    if sa is not None and sa is sb:
        name = op(sa, names)
        src = sa.args[0]
        if name == "pd_op.split_with_num" and sa.kwargs.get("num") == 2:
            dim = axis(_int(arg(sa, 1, "axis", 0), names), rank(src))
            return (src, dim) if dim is not None else None
        if name == "pd_op.split":
            sections = arg(sa, 1, "sections", ())
            dim = axis(_int(arg(sa, 2, "axis", 0), names), rank(src))
            s = shape(src)
            if (dim is not None and isinstance(sections, (list, tuple)) and len(sections) == 2
                    and all(isinstance(v, int) for v in sections)):
                if sections[0] == sections[1] and sections[0] > 0:
                    return src, dim
                if s is not None and s[dim] > 0 and -1 in sections and 2 * max(sections) == s[dim]:
                    return src, dim
        return None
    if op(a, names) == op(b, names) == "pd_op.slice" and a.args[0] is b.args[0]:
        src = a.args[0]
        s = shape(src)
        (ax_a, start_a, end_a), (ax_b, start_b, end_b) = _slice_of(a), _slice_of(b)
        if s is None or ax_a is None or ax_a != ax_b:
            return None
        dim = axis(ax_a, len(s))
        size = s[dim] if dim is not None else -1
        if size <= 0 or size % 2:
            return None
        h = size // 2
        if start_a == 0 and end_a == h and start_b == h and end_b is not None and end_b >= size:
            return src, dim
    return None


def _int(value, names):
    return value if isinstance(value, int) and not isinstance(value, bool) else int_constant(value, names)


def _slice_of(node):
    """(axis, start, end) of a one-axis pd_op.slice with literal bounds and no decrease_axis."""
    axes = node.kwargs.get("axes", ())
    if len(axes) != 1 or node.kwargs.get("decrease_axis"):
        return None, None, None
    starts, ends = arg(node, 1, "starts", ()), arg(node, 2, "ends", ())
    starts = starts if isinstance(starts, (list, tuple)) else [starts]
    ends = ends if isinstance(ends, (list, tuple)) else [ends]
    if len(starts) != 1 or len(ends) != 1 or not all(isinstance(v, int) for v in (*starts, *ends)):
        return None, None, None
    return axes[0], starts[0], ends[0]


def replace_results(graph: fx.Graph, old: fx.Node, mapping: dict) -> None:
    """Point the getitem users of `old`'s result i at mapping[i] (a node), then drop them."""
    for u in list(old.users):
        new = mapping[u.args[1]]
        u.replace_all_uses_with(new)
        graph.erase_node(u)
