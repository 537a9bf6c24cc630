"""pd_op.if, pd_op.while and pd_op.pylayer as graph-honest torch control flow.

`pd_op.if` becomes a call of `cond` and `pd_op.while` a call of `while_loop` (this module):
under torch.export / torch.compile / make_fx tracing they are
`torch.ops.higher_order.cond` / `torch.ops.higher_order.while_loop`, the operators
`torch.cond` / `torch.while_loop` trace to, so the exported program keeps the control flow;
run eagerly they are a plain Python `if` / `while` on the predicate tensor, because the
higher-order operators cost ~0.3 ms per call in eager mode (they check their branches'
outputs and run them through dispatch modes), more than a small model's whole forward.
Each region becomes a GraphModule attached to the root module; the values a region uses from
outside it (PIR regions may) become explicit operands, since higher-order ops take no
closures.

PIR's predicate is a one-element bool tensor of shape [] or [1]; torch wants a scalar, so
the graph reduces it with `torch.all` (same truth value for one element).  A while loop
carries (cond, inputs...): the body yields (new cond, new inputs...), exactly Paddle's
cf.yield of the body block, less the loop values nothing reads (dy2static carries every
variable a body assigns; `_loop_value_read`).  Branch and body outputs that are their own
inputs are cloned; under tracing every region output and every carried value is (`_fresh`):
torch's control-flow operators reject outputs that alias inputs, views included.  A loop that
changes a carried shape cannot be a torch.while_loop: one whose body concatenates onto a loop
value (`_grows`: decoding) runs eagerly behind a graph break under torch.compile and is refused
by torch.export; any other is refused when traced, with a LoweringError naming the op
(`_shape_refusal`, `_traced_failure`); docs/LOWERING.md, "Control flow under
torch.export and torch.compile", has what each construct does under torch.  A region that
writes a tensor array of the enclosing block (a Python list, changed in place by its kernels)
hands the list back like a written dense tensor, uncloned; under tracing such a region is never
given to torch's operators (a list of data-dependent length is no loop value): torch.compile
runs it eagerly behind a graph break, torch.export is refused with a LoweringError naming the
op (docs/LOWERING.md, "Tensor arrays in regions").

pd_op.pylayer runs its forward region once and is inlined (its backward is not needed for
inference).
"""

from __future__ import annotations

import operator
import re

import torch
import torch.fx as fx

from ..errors import LoweringError, PircError, excerpt
from ..ir.types import DenseTensorArrayType
from . import eager_regions
from .eager_regions import eager_if, eager_while


try:
    from torch.fx.experimental.proxy_tensor import get_proxy_mode as _proxy_mode
except ImportError:  # pragma: no cover - older torch
    def _proxy_mode():
        return None


def _tracing(pred) -> bool:
    """True when the call is being traced (export, compile, make_fx), not run on real data."""
    if torch.compiler.is_compiling() or torch.compiler.is_exporting():
        return True
    if type(pred) is not torch.Tensor:  # FakeTensor, functional or other subclass under tracing
        return True
    return _proxy_mode() is not None


def _has_array(values: tuple) -> bool:
    return any(isinstance(v, list) for v in values)


def _refuse_arrays(op_name: str) -> None:
    """torch.export / make_fx: no graph can hold a list whose length the data decides (a
    decoding loop appends one element per step), and nothing runs outside the graph."""
    refusal = LoweringError(f"{eager_regions.array_message(op_name)}, so torch.export cannot trace "
                            "this program (torch.compile runs the region eagerly, with a graph "
                            "break): run it eagerly (pirc.run, pirc-run, or the lowered module "
                            "called directly)")
    # fx appends "While executing %while_loop ..." to an error raised in a node's call; the
    # message as made stays the error's bare_message
    refusal.message = str(refusal)
    raise refusal


def cond(pred, true_fn, false_fn, operands: tuple, where: str = "pd_op.if"):
    """pd_op.if: torch's cond operator when traced, else a Python `if` (module docstring);
    a tensor array among the operands is never traced (eager_regions, `_refuse_arrays`)."""
    if _tracing(pred):
        if _has_array(operands):
            if torch.compiler.is_dynamo_compiling() and not torch.compiler.is_exporting():
                return eager_regions.untraced_if(pred, true_fn, false_fn, operands)
            _refuse_arrays("pd_op.if")
        try:
            return torch.ops.higher_order.cond(pred, _fresh(true_fn), _fresh(false_fn), operands)
        except Exception as e:  # noqa: BLE001 - torch's failure inside a branch, named by the op
            raise _traced_failure(e, where, "its branches (torch.cond)") from None
    return eager_if(pred, true_fn, false_fn, operands)


def while_loop(cond_fn, body_fn, carried: tuple, additional: tuple, where: str = "pd_op.while",
               types: tuple = (), results: tuple = (), grows: tuple = ()):
    """pd_op.while: torch's while_loop operator when traced, else a Python `while`; a tensor
    array among the loop's values is never traced (eager_regions, `_refuse_arrays`).

    `where` names the op in the program and `results` the op's result of each carried value
    after the condition (for a refusal); `types` are the static shapes of the carried values
    (the condition's, then the body block arguments'), None where not known; `grows` the
    results whose loop value the body concatenates onto (`_grows`)."""
    if _tracing(carried[0]):
        if _has_array(carried + additional):
            if torch.compiler.is_dynamo_compiling() and not torch.compiler.is_exporting():
                return eager_regions.untraced_while(body_fn, carried, additional)
            _refuse_arrays("pd_op.while")
        if grows:  # no torch.while_loop can carry it: eagerly behind a graph break, or refused
            if torch.compiler.is_dynamo_compiling() and not torch.compiler.is_exporting():
                return eager_regions.untraced_growing_while(body_fn, carried, additional)
            raise _growth_refusal(where, grows)
        carried = tuple(_as_typed(c, t) for c, t in zip(carried, types)) + carried[len(types):]
        # a loop value that starts as a feed the body also reads (carried and captured: one
        # tensor twice) is an input aliasing another, which aot_autograd's while_loop refuses
        carried = tuple(torch.clone(c) if isinstance(c, torch.Tensor) else c for c in carried)
        shapes = [c.shape if isinstance(c, torch.Tensor) else None for c in carried]
        try:
            return torch.ops.higher_order.while_loop(cond_fn, _fresh(body_fn, shapes), carried, additional)
        except Exception as e:  # noqa: BLE001 - torch's failure inside the body, named by the op
            raise (_shape_refusal(e, where, results)
                   or _traced_failure(e, where, "its body (torch.while_loop)")) from None
    return eager_while(body_fn, carried, additional)


def _fresh(fn, shapes=None):
    """`fn` as torch's control-flow operators take it: every output a new tensor (they reject
    an output that is, or views, an input: a branch that returns `x[:-1]` or `x`), and, with
    `shapes` (a loop body's carried shapes), a one-element output whose rank differs from its
    carried value's given that value's shape.  Only under tracing: a clone is a copy (exact),
    and the eager path stays a plain call."""
    def region(*args):
        outs = fn(*args)
        if shapes is not None:
            outs = [_one_element_like(o, s) for o, s in zip(outs, shapes)] + list(outs[len(shapes):])
        return tuple(torch.clone(o) for o in outs)
    return region


def _is_one_element(shape) -> bool:
    return all(type(d) is int and d == 1 for d in shape)


def _one_element_like(value, shape):
    if shape is None or len(value.shape) == len(shape) or not (_is_one_element(value.shape) and _is_one_element(shape)):
        return value
    return value.reshape(shape)


def _as_typed(value, shape):
    """A carried one-element tensor whose rank is not its PIR type's, reshaped to the type.

    dy2static carries a variable first assigned inside the loop (an inner loop's counter)
    from a placeholder `pd_op.full` of shape [] typed tensor<1x...>: Paddle's executor lets the
    loop change the variable to [1]; torch.while_loop needs the shape it carries to stay."""
    if shape is None or not isinstance(value, torch.Tensor):
        return value
    return _one_element_like(value, shape)


def _shape_refusal(error: Exception, where: str, results: tuple):
    """torch.while_loop's refusal of a body that changes a carried value's shape or dtype, as a
    LoweringError naming the op and the value; None for any other error."""
    text = str(error)
    if "same metadata" not in text:
        return None
    detail = next((line.strip() for line in text.splitlines() if line.strip().startswith("pair[")), "")
    index = detail[len("pair["):].split("]", 1)[0] if detail else ""
    k = int(index) - 1 if index.isdigit() else None
    which = ("its condition" if k == -1 else f"its loop value {results[k]} (result {results[k]})"
             if k is not None and k < len(results) else "a value it writes in place" if k is not None
             else "a loop value")
    # torch: "pair[2] differ in 'shape: torch.Size([s77, 4]) vs torch.Size([2*s77, 4])', ..."
    # (under torch.export the left side is the value carried in, the right what the body yields)
    changes = [f"{what} {_plain(a)} in, {_plain(b)} out of the body"
               for what, a, b in re.findall(r"'(shape|dtype): (.+?) vs (.+?)'", detail)]
    said = "; ".join(changes) or excerpt(text.splitlines()[0], 200)
    refusal = LoweringError(f"{where}: the loop body changes {which} from one iteration to the next "
                            f"({said}); torch.while_loop carries tensors of a fixed shape and dtype, so "
                            "torch.export / torch.compile cannot keep this loop; run the program eagerly "
                            "(pirc.run, pirc-run, or the module from pirc.lower called directly)")
    # fx appends "While executing %while_loop ..." to the message of an error raised in a
    # node; pirc.export gives the message as it was made (bare_message reads this)
    refusal.message = str(refusal)
    return refusal


def _growth_refusal(where: str, grows: tuple) -> LoweringError:
    values, many = ", ".join(str(k) for k in grows), len(grows) > 1
    refusal = LoweringError(f"{where}: the loop body concatenates onto its loop value{'s' * many} "
                            f"{values} (result{'s' * many} {values}; pd_op.concat), so "
                            f"{'their shapes grow' if many else 'its shape grows'} each iteration; "
                            "torch.while_loop carries tensors of a fixed "
                            "shape, so torch.export cannot keep this loop (torch.compile runs it eagerly, "
                            "with a graph break): run the program eagerly (pirc.run, pirc-run, or the "
                            "module from pirc.lower called directly)")
    refusal.message = str(refusal)  # fx appends its node notes to str() (see _shape_refusal)
    return refusal


def _traced_failure(error: Exception, where: str, what: str) -> Exception:
    """Any other failure of torch while it traces a region (a data-dependent size it cannot
    follow), as one LoweringError line naming the op; a pirc error (a nested region's refusal)
    stays as it was."""
    if isinstance(error, PircError):
        return error
    first = next((line.strip() for line in str(error).splitlines() if line.strip()), "")
    failure = LoweringError(f"{where}: torch cannot trace {what}: {type(error).__name__}: "
                            f"{excerpt(first, 240)}; run the program eagerly (pirc.run, pirc-run, "
                            "or the module from pirc.lower called directly)")
    failure.message = str(failure)  # fx appends its node notes to str() (see _shape_refusal)
    return failure


def _plain(text: str) -> str:
    """`torch.Size([s77, 4])` -> `[s77, 4]`, `torch.float32` -> `float32`."""
    text = text.strip()
    if text.startswith("torch.Size(") and text.endswith(")"):
        text = text[len("torch.Size("):-1]
    return text.removeprefix("torch.")


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


def _pir_meta(value) -> dict:
    """The static PIR type of a block argument, as graph_builder records it on nodes."""
    from .values import torch_dtype_of_type

    shape = getattr(value.type, "shape", None)
    if shape is None:
        return {}
    return {"pir_shape": tuple(shape), "pir_dtype": torch_dtype_of_type(value.type)}


def _typed(placeholder: fx.Node, outer) -> fx.Node:
    """A captured value's placeholder carries the outer node's static type (specialize)."""
    if isinstance(outer, fx.Node):
        for key in ("pir_shape", "pir_dtype"):
            if key in outer.meta:
                placeholder.meta[key] = outer.meta[key]
    return placeholder


def _subgraph(builder, region, leading_args: list, leading_hints: list[str], captured: list):
    """A GraphBuilder for `region`, with placeholders: leading args, then captured values.

    Returns (sub builder, flat list of outer nodes to pass for the captured values,
    yielded nodes).
    """
    sub = builder.sub_builder()
    for v, hint in zip(leading_args, leading_hints):
        if v is not None:
            sub.env[v] = sub.placeholder(hint)
            sub.env[v].meta.update(_pir_meta(v))
            # A carried value changes from one iteration to the next: a value of the
            # enclosing graph the body writes (paddle.nn.RNN's step counter, made by a
            # pd_op.full and bumped by increment_ after the body's array_read of it) is not
            # its defining op's constant here, even where it is read before the write.
            sub.written.add(v)
        else:
            sub.placeholder(hint)  # an unused carried slot (the while cond)
    outer = []
    sub.captured = {}  # captured tensor -> its placeholder (to see which a write rebound)
    for v in captured:
        got = builder.value(v)
        if got is None:
            continue
        if isinstance(got, list):  # a vec: pass its tensors, rebuild the list inside
            sub.env[v] = [_typed(sub.placeholder("captured"), g) for g in got]
            outer.extend(got)
        else:
            sub.env[v] = sub.captured[v] = _typed(sub.placeholder("captured"), got)
            outer.append(got)
    block = region.blocks.first
    yielded = sub.lower_ops(block.ops)
    if yielded is None:
        raise LoweringError(f"a region of {region.parent.name} does not end in cf.yield")
    return sub, outer, yielded


def _finish(sub, outputs: list, types: list) -> fx.GraphModule:
    """The region's graph returning `outputs` (their PIR types in `types`).  A tensor array
    (a Python list, run eagerly only: `_refuse_arrays`) is handed back as it is: the list its
    kernels wrote is what the enclosing graph reads next."""
    seen = set()
    fixed = []
    for node, type_ in zip(outputs, types, strict=True):
        if not isinstance(node, fx.Node):
            raise LoweringError("a control-flow region yields a value that is not a single tensor "
                                "(a vec); torch's control-flow operators carry tensors only")
        if isinstance(type_, DenseTensorArrayType):
            fixed.append(node)
            continue
        if node.op == "placeholder" or node in seen:
            node = sub.graph.call_function(torch.clone, (node,))
        seen.add(node)
        fixed.append(node)
    sub.graph.output(tuple(fixed))
    # Constants folded into their users leave their own ops unused (as in the top graph).
    sub.graph.eliminate_dead_code()
    return fx.GraphModule(sub.ctx.root, sub.graph)


def lower_if(builder, op) -> None:
    pred = builder.value(op.operands[0])
    true_region, false_region = op.regions[0], op.regions[1]
    captured = []
    for v in _captured_values(true_region) + _captured_values(false_region):
        if v not in captured:
            captured.append(v)
    built = []
    outer = None
    for region, label in ((true_region, "true_graph"), (false_region, "false_graph")):
        sub, outer, yielded = _subgraph(builder, region, [], [], captured)
        if len(yielded) != len(op.results):
            raise LoweringError(f"pd_op.if yields {len(yielded)} values in its {label.split('_')[0]} "
                                f"branch but has {len(op.results)} results")
        built.append((sub, yielded, label))
    # A branch that writes a value of this graph in place (Paddle: the branch writes the
    # enclosing scope's variable, which keeps the write after the if) gives its new numbers
    # back as extra outputs; the other branch gives the value as it was.
    written = []
    for sub, _, _ in built:
        written.extend(v for v in sub.written_captures(sub.captured) if v not in written)
    branches = []
    for sub, yielded, label in built:
        extra = [sub.env[v] for v in written]
        types = [r.type for r in op.results] + [v.type for v in written]
        branches.append(builder.graph.get_attr(builder.ctx.add_submodule(label, _finish(sub, yielded + extra,
                                                                                        types))))
    g = builder.graph
    scalar_pred = g.call_function(torch.all, (pred,))
    node = g.call_function(cond, (scalar_pred, branches[0], branches[1], tuple(outer), _where(op)))
    for i, r in enumerate(op.results):
        builder.env[r] = g.call_function(operator.getitem, (node, i))
    for k, v in enumerate(written):
        builder.rebind_written(v, g.call_function(operator.getitem, (node, len(op.results) + k)))


def lower_while(builder, op) -> None:
    cond, *inputs = op.operands
    region = op.regions[0]
    block = region.blocks.first
    args = list(block.args)
    if len(args) != len(inputs):
        raise LoweringError(f"pd_op.while has {len(inputs)} loop inputs but its body block has "
                            f"{len(args)} arguments")
    # dy2static carries every variable the body assigns, also one that neither the body reads
    # before assigning it nor the code after the loop reads (a temporary such as a nonzero
    # result): such a loop value is dead.  It is not carried (same numbers eagerly), so that a
    # temporary whose shape changes per iteration does not make torch.while_loop refuse the loop.
    live = [k for k in range(len(args)) if _loop_value_read(op, k, set())]
    inputs, live_args = [inputs[k] for k in live], [args[k] for k in live]
    captured = _captured_values(region)
    hints = ["cond"] + [f"arg_{k}" for k in live]
    modules = set(builder.ctx.root._modules)
    body, outer, yielded = _subgraph(builder, region, [None] + live_args, hints, captured)
    # A body that writes a value of this graph in place writes the enclosing scope's variable
    # in Paddle: the next iteration and the code after the loop read the written numbers.  Such
    # values are carried too (the body lowered again with them as loop values).
    written = body.written_captures(body.captured)
    if written:
        _drop_new_submodules(builder.ctx, modules)
        captured = [v for v in captured if v not in written]
        body, outer, yielded = _subgraph(builder, region, [None] + live_args + written,
                                         hints + [f"written_{i}" for i in range(len(written))], captured)
    if len(yielded) != len(args) + 1:
        raise LoweringError(f"pd_op.while body yields {len(yielded)} values; expected the condition "
                            f"and {len(args)} loop values")
    yielded = yielded[:1] + [yielded[1 + k] for k in live] + [body.env[v] for v in written]
    types = [v.type for v in [cond] + inputs + written]  # inputs: the live ones
    body_name = builder.ctx.add_submodule("body_graph", _finish(body, yielded, types))

    # The condition graph takes the same arguments as the body and reads the carried cond.
    cg = fx.Graph()
    first = cg.placeholder("cond")
    for i in range(len(live) + len(written)):
        cg.placeholder(f"arg_{i}")
    for i in range(len(outer)):
        cg.placeholder(f"captured_{i}")
    cg.output(cg.call_function(torch.all, (first,)))
    cond_name = builder.ctx.add_submodule("cond_graph", fx.GraphModule(builder.ctx.root, cg))

    g = builder.graph
    carried = (builder.value(cond),) + tuple(builder.value(v) for v in inputs + written)
    types = tuple(_static_shape(v) for v in [cond] + live_args)
    grows = tuple(k for k in live if _grows(op, k))
    node = g.call_function(while_loop, (g.get_attr(cond_name), g.get_attr(body_name), carried,
                                        tuple(outer), _where(op), types, tuple(live), grows))
    for k, r in enumerate(op.results):  # a dead result is read by nothing but dead yields
        builder.env[r] = g.call_function(operator.getitem, (node, live.index(k) + 1)) if k in live else None
    for k, v in enumerate(written):
        builder.rebind_written(v, g.call_function(operator.getitem, (node, 1 + len(live) + k)))


def _loop_value_read(op, k: int, seen: set) -> bool:
    """Whether a pd_op.while's loop value k is read: by the body (its block argument) or after
    the loop (its result).  A read that is only a while body's cf.yield passing the value on
    counts when what it yields into is read: an inner loop's temporary yielded into an outer
    loop value that is itself dead is dead too, and so is a block argument the body only
    yields back."""
    if (op, k) in seen:
        return False
    seen.add((op, k))
    return (_read(op.regions[0].blocks.first.args[k], seen) or _read(op.results[k], seen))


def _read(value, seen: set) -> bool:
    for use in value.uses:
        user = use.operation
        parent = user.parent_op() if user.name == "cf.yield" else None
        # an if's branches yield every result: a value yielded there is read
        if parent is None or parent.name != "pd_op.while":
            return True
        if use.index == 0 or _loop_value_read(parent, use.index - 1, seen):
            return True
    return False


def _grows(op, k: int) -> bool:
    """Whether the body yields for loop value k a pd_op.concat with that value's block argument
    among the parts (`tokens = concat([tokens, next])`, a key/value cache): its shape grows
    each iteration, which no torch.while_loop can carry."""
    block = op.regions[0].blocks.first
    made = block.last_op.operands[1 + k].owner
    if getattr(made, "name", None) != "pd_op.concat":
        return False
    parts = made.operands[0].owner
    return getattr(parts, "name", None) == "builtin.combine" and block.args[k] in parts.operands


def _where(op) -> str:
    """`pd_op.while at program.regions[0].blocks[0].ops[8]`: the op, for a refusal at trace time."""
    from ..ir.locations import json_path_of

    return f"{op.name} at {json_path_of(op)}"


def _static_shape(value):
    """A value's PIR shape when every dim is known, else None."""
    shape = getattr(value.type, "shape", None)
    return None if shape is None or any(d < 0 for d in shape) else tuple(shape)


def _drop_new_submodules(ctx, before: set) -> None:
    """Forget the region graphs a first lowering of a body attached (it is lowered again)."""
    for name in [n for n in ctx.root._modules if n not in before]:
        delattr(ctx.root, name)
        ctx.attr_names.discard(name)


def lower_pylayer(builder, op) -> None:
    yielded = builder.lower_ops(op.regions[0].blocks.first.ops)
    if yielded is None or len(yielded) != len(op.results):
        raise LoweringError("pd_op.pylayer's forward region must yield one value per result")
    for r, node in zip(op.results, yielded):
        builder.env[r] = node
