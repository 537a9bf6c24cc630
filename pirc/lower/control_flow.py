"""pd_op.if, pd_op.while and pd_op.pylayer as graph-honest torch control flow.

`pd_op.if` becomes `torch.ops.higher_order.cond` and `pd_op.while` becomes
`torch.ops.higher_order.while_loop`, the operators `torch.cond` / `torch.while_loop` trace
to: called directly with their branch/body GraphModules they run eagerly without
torch.compile (the public wrappers compile through Dynamo on every eager call), and
`torch.export` keeps them as they are.  Each region becomes a GraphModule attached to the
root module; the values a region uses from outside it (PIR regions may) become explicit
operands, since higher-order ops take no closures.

PIR's predicate is a one-element bool tensor of shape [] or [1]; torch wants a scalar, so
the graph reduces it with `torch.all` (same truth value for one element).  A while loop
carries (cond, inputs...): the body yields (new cond, new inputs...), exactly Paddle's
cf.yield of the body block.  Branch and body outputs that are their own inputs are cloned:
torch's control-flow operators reject outputs that alias inputs.

pd_op.pylayer runs its forward region once and is inlined (its backward is not needed for
inference).
"""

from __future__ import annotations

import operator

import torch
import torch.fx as fx

from ..errors import LoweringError


def _captured_values(region) -> list:
    """Values the region's ops use that are defined outside it, in first-use order."""
    defined, captured, seen = set(), [], set()
    for op in region.walk():
        for r in op.regions:
            for block in r.blocks:
                defined.update(block.args)
        defined.update(op.results)
    for block in region.blocks:
        defined.update(block.args)
    for op in region.walk():
        for v in op.operands:
            if v not in defined and v not in seen:
                seen.add(v)
                captured.append(v)
    return captured


def _subgraph(builder, region, leading_args: list, leading_hints: list[str], captured: list):
    """A GraphBuilder for `region`, with placeholders: leading args, then captured values.

    Returns (sub builder, flat list of outer nodes to pass for the captured values,
    yielded nodes).
    """
    from .graph_builder import GraphBuilder

    sub = GraphBuilder(builder.ctx)
    for v, hint in zip(leading_args, leading_hints):
        if v is not None:
            sub.env[v] = sub.placeholder(hint)
        else:
            sub.placeholder(hint)  # an unused carried slot (the while cond)
    outer = []
    for v in captured:
        got = builder.value(v)
        if got is None:
            continue
        if isinstance(got, list):  # a vec: pass its tensors, rebuild the list inside
            sub.env[v] = [sub.placeholder("captured") for _ in got]
            outer.extend(got)
        else:
            sub.env[v] = sub.placeholder("captured")
            outer.append(got)
    block = region.blocks.first
    yielded = sub.lower_ops(block.ops)
    if yielded is None:
        raise LoweringError(f"a region of {region.parent.name} does not end in cf.yield")
    return sub, outer, yielded


def _finish(sub, outputs: list) -> fx.GraphModule:
    seen = set()
    fixed = []
    for node in outputs:
        if not isinstance(node, fx.Node):
            raise LoweringError("a control-flow region yields a value that is not a single tensor "
                                "(a vec); torch's control-flow operators carry tensors only")
        if node.op == "placeholder" or node in seen:
            node = sub.graph.call_function(torch.clone, (node,))
        seen.add(node)
        fixed.append(node)
    sub.graph.output(tuple(fixed))
    return fx.GraphModule(sub.ctx.root, sub.graph)


def lower_if(builder, op) -> None:
    pred = builder.value(op.operands[0])
    true_region, false_region = op.regions[0], op.regions[1]
    captured = []
    for v in _captured_values(true_region) + _captured_values(false_region):
        if v not in captured:
            captured.append(v)
    branches = []
    outer = None
    for region, label in ((true_region, "true_graph"), (false_region, "false_graph")):
        sub, outer, yielded = _subgraph(builder, region, [], [], captured)
        if len(yielded) != len(op.results):
            raise LoweringError(f"pd_op.if yields {len(yielded)} values in its {label.split('_')[0]} "
                                f"branch but has {len(op.results)} results")
        branches.append(builder.graph.get_attr(builder.ctx.add_submodule(label, _finish(sub, yielded))))
    g = builder.graph
    scalar_pred = g.call_function(torch.all, (pred,))
    node = g.call_function(torch.ops.higher_order.cond, (scalar_pred, branches[0], branches[1], tuple(outer)))
    for i, r in enumerate(op.results):
        builder.env[r] = g.call_function(operator.getitem, (node, i))


def lower_while(builder, op) -> None:
    cond, *inputs = op.operands
    region = op.regions[0]
    block = region.blocks.first
    args = list(block.args)
    if len(args) != len(inputs):
        raise LoweringError(f"pd_op.while has {len(inputs)} loop inputs but its body block has "
                            f"{len(args)} arguments")
    captured = _captured_values(region)
    body, outer, yielded = _subgraph(builder, region, [None] + args,
                                     ["cond"] + [f"arg_{i}" for i in range(len(args))], captured)
    if len(yielded) != len(inputs) + 1:
        raise LoweringError(f"pd_op.while body yields {len(yielded)} values; expected the condition "
                            f"and {len(inputs)} loop values")
    body_name = builder.ctx.add_submodule("body_graph", _finish(body, yielded))

    # The condition graph takes the same arguments as the body and reads the carried cond.
    cg = fx.Graph()
    first = cg.placeholder("cond")
    for i in range(len(args)):
        cg.placeholder(f"arg_{i}")
    for i in range(len(outer)):
        cg.placeholder(f"captured_{i}")
    cg.output(cg.call_function(torch.all, (first,)))
    cond_name = builder.ctx.add_submodule("cond_graph", fx.GraphModule(builder.ctx.root, cg))

    g = builder.graph
    carried = (builder.value(cond),) + tuple(builder.value(v) for v in inputs)
    node = g.call_function(torch.ops.higher_order.while_loop,
                           (g.get_attr(cond_name), g.get_attr(body_name), carried, tuple(outer)))
    for i, r in enumerate(op.results):
        builder.env[r] = g.call_function(operator.getitem, (node, i + 1))


def lower_pylayer(builder, op) -> None:
    yielded = builder.lower_ops(op.regions[0].blocks.first.ops)
    if yielded is None or len(yielded) != len(op.results):
        raise LoweringError("pd_op.pylayer's forward region must yield one value per result")
    for r, node in zip(op.results, yielded):
        builder.env[r] = node
