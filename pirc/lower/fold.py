"""Constant folding of the lowered graph: kernel calls whose tensor inputs are all parameters.

A Paddle program recomputes, on every run, values that depend on parameters only: conv2d's
bias reshaped to [1, C, 1, 1], a weight transposed or cast.  Their inputs are buffers of the
module, fixed once lowered, so each such call is evaluated here once, with the same kernel
(same numbers), and its result becomes a buffer of the module read by a get_attr node.

Only kernels of the deterministic families are folded (`_PURE_MODULES`: shape, element-wise,
activation, comparison, linear algebra, reductions); random ops, dropout, creation ops (an
NPU fusion reads `pd_op.full` nodes by value), control flow and tensor arrays stay calls.
A call with no tensor input is not folded either: nothing would be saved but a tiny tensor.
Results over `_MAX_ELEMENTS` elements stay calls, so folding never multiplies the module's
memory.  Subgraph modules (if / while branches) read folded buffers of the root like
parameters.
"""

from __future__ import annotations

import operator

import torch
import torch.fx as fx

from .failures import OP_META, KernelFailure, describe_operands
from .graph_builder import python_name

_PURE_MODULES = frozenset(f"pirc.lower.kernels.{m}" for m in (
    "shape", "elementwise", "activation", "compare", "linalg", "reduce"))
_MAX_ELEMENTS = 1 << 20


def _foldable_target(node: fx.Node) -> bool:
    if node.op != "call_function":
        return False
    if node.target is operator.getitem:
        return True
    return getattr(node.target, "__module__", None) in _PURE_MODULES


def _tensor_count(value) -> int | None:
    """Elements of a folded result (None: not a tensor or a list/tuple of tensors)."""
    if isinstance(value, torch.Tensor):
        return value.numel()
    if isinstance(value, (list, tuple)) and value \
            and all(isinstance(v, torch.Tensor) for v in value):
        return sum(v.numel() for v in value)
    return None


def fold_parameter_constants(gm: fx.GraphModule) -> int:
    """Fold every foldable call whose node inputs are all constant; returns how many."""
    graph = gm.graph
    known: dict[fx.Node, object] = {}
    for node in graph.nodes:
        if node.op == "get_attr":
            value = gm
            for part in node.target.split("."):
                value = getattr(value, part, None)
            if isinstance(value, torch.Tensor):
                known[node] = value
    taken = {name for name, _ in gm.named_buffers()} | {name for name, _ in gm.named_children()} \
        | {name for name, _ in gm.named_parameters()}
    folded = 0
    for node in list(graph.nodes):
        if not _foldable_target(node):
            continue
        inputs = node.all_input_nodes
        if not inputs or not all(n in known for n in inputs):
            continue
        args = fx.node.map_arg(node.args, known.__getitem__)
        kwargs = fx.node.map_arg(node.kwargs, known.__getitem__)
        try:
            with torch.no_grad():
                value = node.target(*args, **kwargs)
        except Exception as e:  # noqa: BLE001 - a kernel failure on parameters names its op
            if OP_META not in node.meta:
                raise
            raise KernelFailure(node.meta[OP_META], describe_operands(args), e) from e
        count = _tensor_count(value)
        if count is None or count > _MAX_ELEMENTS:
            continue
        if isinstance(value, torch.Tensor):
            # A view would keep the parameter it looks into alive twice and alias it.
            name = python_name(f"_folded_{node.name}", taken)
            gm.register_buffer(name, value.detach().clone())
            with graph.inserting_before(node):
                replacement = graph.get_attr(name)
            node.replace_all_uses_with(replacement)
            graph.erase_node(node)
            known[replacement] = getattr(gm, name)
        else:
            # A list result (split of a parameter): its getitem users fold one by one.
            known[node] = value
            continue
        folded += 1
    graph.eliminate_dead_code()
    gm.recompile()
    return folded
