"""Builds one torch.fx graph from one PIR block, node by node.

Each PIR value maps to what stands for it in the graph (`env`): an fx Node for a tensor
(or for a kernel's list result), a Python list of Nodes for a `builtin.combine` vec, None for
a `<<NULL VALUE>>`.  Ordinary ops become `graph.call_function(kernel, operands, attributes)`
with the kernel the versioned registry resolves for the program's PIR version, so
`print(gm.code)` reads like the program.  Ops with regions go to `control_flow`.

An in-place op's kernel is its out-of-place twin's (kernels/inplace.py): the graph never
mutates a tensor.  After a write, every name of the written storage is bound to the node
that holds its new numbers (`storage.Storage`, from the alias model), as Paddle's executor,
where they are one variable, reads them.
"""

from __future__ import annotations

import keyword
import operator
import re

import torch
import torch.fx as fx

from ..errors import LoweringError
from ..ir.aliasing import op_aliasing
from ..ir.ops import is_null_value
from ..ir.types import DenseTensorArrayType, DenseTensorType
from ..ir.specs import UNIVERSAL_ATTRIBUTES, get_spec
from ..runtime.lowering_coverage import STRUCTURAL_OPS  # ops the lowering handles itself
from ..runtime.registry import REGISTRY
from ..ir.locations import json_paths
from .failures import OP_META, OpOrigin
from .feeds import FeedSpec
from .shape_values import ShapeTracker
from .storage import VIEW_BASES, Storage
from .value_facts import KERNEL_META
from .values import python_value, torch_dtype_of_type


# Attributes that are never a kernel argument even for an op without a spec.
_NOT_ARGUMENTS = frozenset(UNIVERSAL_ATTRIBUTES) | {"pir.block_arg_attrs"}


def python_name(text: str, taken: set[str], fallback: str = "v") -> str:
    """A Python identifier for `text` not yet in `taken` (then added to it)."""
    base = re.sub(r"\W", "_", text) or fallback
    if base[0].isdigit():
        base = f"{fallback}_{base}"
    name, i = base, 1
    while name in taken:
        name = f"{base}_{i}"
        i += 1
    taken.add(name)
    return name


class LoweringContext:
    """What all graphs of one lowering share: the root module, the version, naming."""

    def __init__(self, root: torch.nn.Module, version: int, registry=REGISTRY, emitters=None):
        self.root = root
        self.version = version
        self.registry = registry
        # device npu: the (op, semantic version) pairs that lower to one torch_npu fused call
        # when the op allows (pirc.lower.npu.emit.EMITTERS); None on other devices
        self.emitters = emitters
        self.program = None  # set by lower(): where each op stands (origin)
        self._paths: dict | None = None
        self.attr_names: set[str] = set()
        self.param_nodes: dict[str, str] = {}  # Paddle parameter name -> root attribute name
        self._kwargs_specs: dict[str, object] = {}
        self._mutable: dict = {}

    def origin(self, op) -> OpOrigin:
        """What node.meta["pir_op"] holds for op: its name and line:col or JSON path."""
        where = self.program.locations.get(op) if self.program is not None else None
        if isinstance(where, tuple):
            return OpOrigin(op.name, where[0], where[1], op=op)
        if where is None and self.program is not None:
            if self._paths is None:
                self._paths = json_paths(self.program)
            where = self._paths.get(op)
        return OpOrigin(op.name, path=where or "", op=op)

    def spec_attribute_names(self, name: str):
        """Names of the attributes kernels get for op `name` (None: every non-universal one)."""
        if name not in self._kwargs_specs:
            spec = get_spec(name, self.version)
            self._kwargs_specs[name] = None if spec is None else frozenset(a.name for a in spec.attributes)
        return self._kwargs_specs[name]

    def operand_names(self, name: str) -> tuple[str, ...]:
        """The spec's operand names of op `name`, in order (keyword-operand kernels)."""
        key = ("operand_names", name)
        if key not in self._mutable:
            spec = get_spec(name, self.version)
            self._mutable[key] = () if spec is None else tuple(o.name for o in spec.operands)
        return self._mutable[key]

    def mutable_attribute_operands(self, name: str, count: int) -> frozenset[int]:
        """Positions of operands that stand for int_array / scalar attributes (spec `from_attr`)."""
        key = (name, count)
        if key not in self._mutable:
            spec = get_spec(name, self.version)
            positions = frozenset()
            if spec is not None and not spec.variadic_operands and len(spec.operands) == count:
                positions = frozenset(i for i, o in enumerate(spec.operands) if o.from_attr)
            self._mutable[key] = positions
        return self._mutable[key]

    def aliasing(self, name: str):
        """The alias model's entry for op `name` at this program's version (pirc.ir.aliasing)."""
        key = ("aliasing", name)
        if key not in self._mutable:
            try:
                self._mutable[key] = op_aliasing(name, self.version)
            except ValueError:  # a spec whose in-place map the model cannot place: no aliasing
                self._mutable[key] = None
        return self._mutable[key]

    def add_submodule(self, prefix: str, gm: fx.GraphModule) -> str:
        name = python_name(prefix, self.attr_names)
        self.root.add_module(name, gm)
        return name


class GraphBuilder:
    """Lowers the ops of a block into `self.graph`."""

    def __init__(self, ctx: LoweringContext, graph: fx.Graph | None = None):
        self.ctx = ctx
        self.graph = graph if graph is not None else fx.Graph()
        self.env: dict = {}
        self.placeholder_names: set[str] = set()
        self.feeds: list[tuple[str, str]] = []  # (pd_op.data name, placeholder name)
        self.feed_specs: list[FeedSpec] = []  # what each feed must be (feeds.check_feeds)
        self.fetches: list[tuple[int, str, object]] = []  # (col, fetch name, node)
        self.shapes = ShapeTracker(self.graph)  # shape arithmetic as ints (shape_values)
        self.storage = Storage()  # the names of each storage, for rebinding after a write
        self.written: set = set()  # values rebound by a write: no longer their defining op's
        self.parameters: dict = {}  # Paddle parameter name -> (first value, its get_attr node)
        # LoDs (lod.py): set when the program has an op that reads one
        self.lod_enabled = False
        self.lods: dict = {}  # value -> its LoD levels' nodes
        self.lod_feeds: dict[str, list[str]] = {}  # feed -> its LoD levels' forward arguments
        self.fetch_lods: dict[str, list] = {}  # fetch name -> its value's LoD levels' nodes

    # -- values --------------------------------------------------------------------------

    def value(self, v):
        if is_null_value(v):
            return None
        try:
            return self.env[v]
        except KeyError:
            raise LoweringError(f"{v.owner.name if hasattr(v.owner, 'name') else 'a block argument'}"
                                " result used before it is defined (internal lowering error)") from None

    def placeholder(self, hint: str) -> fx.Node:
        return self.graph.placeholder(python_name(hint, self.placeholder_names, "arg"))

    def sub_builder(self) -> "GraphBuilder":
        """A builder for a nested region's graph, in this lowering's context (control_flow
        asks for it, so that it need not import this module back).  It knows which values
        of this graph name one storage and which were written, so a write inside the region
        to one captured name rebinds the others there too."""
        sub = GraphBuilder(self.ctx)
        sub.storage = self.storage.copy()
        sub.written = set(self.written)
        return sub

    def written_captures(self, captured: dict) -> list:
        """The captured values (value -> placeholder) a write in this region rebound: dense
        tensors and tensor arrays (an `array_write_` in a body writes the enclosing block's
        array: what follows the region reads the list the region hands back)."""
        return [v for v, placeholder in captured.items()
                if isinstance(v.type, (DenseTensorType, DenseTensorArrayType))
                and self.env.get(v) is not placeholder and isinstance(self.env.get(v), fx.Node)]

    def rebind_written(self, value, node) -> None:
        """`node` holds `value`'s numbers after a write elsewhere (a region): rebind its names."""
        for v in self.storage.rebind(self, value, node):
            self.written.add(v)
            self.shapes.values.pop(v, None)

    def bind_results(self, op, produced) -> None:
        """Map op's results to `produced` (a node for one result, else a node of a tuple)."""
        results = list(op.results)
        if len(results) == 1:
            self.env[results[0]] = produced
            return
        for i, r in enumerate(results):
            if r.uses:
                self.env[r] = self.graph.call_function(operator.getitem, (produced, i))

    # -- ops -----------------------------------------------------------------------------

    def lower_ops(self, ops) -> list | None:
        """Lower each op; returns the yielded values' nodes when the block ends in cf.yield."""
        from . import control_flow, lod

        for op in ops:
            name = op.name
            if name == "cf.yield":
                return [self.value(v) for v in op.operands]
            if name == "pd_op.data":
                feed = op.attributes["name"].data
                node = self.placeholder(feed)
                # the forward's argument is the target: fx renames the node itself when the
                # feed is called like a builtin (`dict` -> node dict_1, argument dict)
                self.feeds.append((feed, node.target))
                rtype = op.results[0].type
                shape = getattr(rtype, "shape", None)
                self.feed_specs.append(FeedSpec(feed, node.target, torch_dtype_of_type(rtype),
                                                None if shape is None else tuple(shape)))
                self.env[op.results[0]] = node
                if self.lod_enabled:
                    self.lods[op.results[0]] = lod.add_feed_placeholders(self, feed)
            elif name == "builtin.parameter":
                pname = op.attributes["parameter_name"].data
                first = self.parameters.get(pname)
                if first is None:
                    node = self.graph.get_attr(self.ctx.param_nodes[pname])
                    self.parameters[pname] = (op.results[0], node)
                    self.env[op.results[0]] = node
                else:  # the parameter named again: the same variable, as it is now
                    self.env[op.results[0]] = self.env[first[0]]
                    self.storage.same(op.results[0], first[0])
            elif name == "pd_op.fetch":
                node = self.value(op.operands[0])
                col = op.attributes.get("col")
                col = python_value(col) if col is not None else len(self.fetches)
                self.fetches.append((col, op.attributes["name"].data, node))
                if op.operands[0] in self.lods:
                    self.fetch_lods[op.attributes["name"].data] = self.lods[op.operands[0]]
                self.env[op.results[0]] = node
            elif name == "builtin.combine":
                self.env[op.results[0]] = [self.value(v) for v in op.operands]
                self.storage.gathered(op.results[0], [v for v in op.operands if not is_null_value(v)])
            elif name in ("builtin.split", "builtin.slice"):
                self._unpack(op)
            elif name == "pd_op.if":
                control_flow.lower_if(self, op)
            elif name == "pd_op.while":
                control_flow.lower_while(self, op)
            elif name == "pd_op.pylayer":
                control_flow.lower_pylayer(self, op)
            elif name in lod.LOD_KERNELS:
                lod.call_lod_kernel(self, op)
                self.shapes.record(op, self.env)
                self._record_types(op)
                self._tag_new_nodes(op)
            else:
                self._call_kernel(op)
                if self.lods:
                    lod.share_lod(self, op)
                self.shapes.record(op, self.env)
                self._apply_writes(op)
                self._record_types(op)
                self._tag_new_nodes(op)
                continue
            self.shapes.record(op, self.env)
            self._record_types(op)
            self._tag_new_nodes(op)
        return None

    def _tag_new_nodes(self, op) -> None:
        """Mark the nodes `op` just appended with the op (failures.OP_META), so that a kernel
        failure at run time names the op and where it stands in the input."""
        origin = None
        for node in reversed(self.graph.nodes):
            if OP_META in node.meta:
                break
            if origin is None:
                origin = self.ctx.origin(op)
            node.meta[OP_META] = origin

    def _record_types(self, op) -> None:
        """Put each result's static PIR shape and dtype on the node that stands for it.

        The specialiser (specialize.py) reads `node.meta["pir_shape"]` (dims, -1 where
        dynamic) and `node.meta["pir_dtype"]` to pick the torch call a kernel makes for those
        types; the kernels themselves never look at them.
        """
        for r in op.results:
            node = self.env.get(r)
            shape = getattr(r.type, "shape", None)
            if isinstance(node, fx.Node) and shape is not None and "pir_shape" not in node.meta:
                node.meta["pir_shape"] = tuple(shape)
                node.meta["pir_dtype"] = torch_dtype_of_type(r.type)

    def _folded(self, v):
        """A mutable-attribute operand: its Python value when a constant op makes it, else its node.

        reshape's shape or scale's factor usually come from pd_op.full_int_array / pd_op.full;
        passing the constant keeps shapes static (torch.export needs them as ints, not data).
        A value computed from shapes (shape64, slice, stack ...) is its elements, ints and
        nodes that yield ints (shape_values), so a dynamic dim stays symbolic.
        """
        if v in self.written:  # a write changed it since its op made it
            shape = self.shapes.folded(v)
            return shape if shape is not None else self.value(v)
        owner = v.owner
        name = getattr(owner, "name", None)
        if name == "builtin.combine":
            parts = [self._folded(p) for p in owner.operands]
            if not any(isinstance(p, (fx.Node, list)) or p is None for p in parts):
                return parts
        elif name in ("pd_op.full_int_array", "pd_op.full") and not is_null_value(v):
            value = python_value(owner.attributes["value"])
            dtype = python_value(owner.attributes["dtype"]) if "dtype" in owner.attributes else None
            if name == "pd_op.full":
                if list(python_value(owner.attributes["shape"])) not in ([], [1]):
                    return self.value(v)
                if dtype is not None and not dtype.is_complex:
                    # The value the tensor would hold: rounded to its dtype (f32 0.1, int 2).
                    value = torch.tensor(value, dtype=dtype).item()
            return value
        shape = self.shapes.folded(v)
        return shape if shape is not None else self.value(v)

    def _unpack(self, op) -> None:
        source = self.value(op.operands[0])
        if op.name == "builtin.slice":
            picks = [(op.results[0], python_value(op.attributes["index"]))]
        else:
            picks = list(zip(op.results, range(len(op.results))))
        for result, i in picks:
            if isinstance(source, list):
                self.env[result] = source[i]
                member = op.operands[0].owner.operands[i] if hasattr(op.operands[0].owner, "operands") else None
                if member is not None and not is_null_value(member):
                    self.storage.same(result, member)
            else:
                self.env[result] = self.graph.call_function(operator.getitem, (source, i))

    def call_kernel(self, op, replace: dict | None = None) -> fx.Node:
        """A call of op's kernel on its operands' nodes (`replace`: operand index -> node to
        pass instead, for recomputing a view from its written base)."""
        entry = self.ctx.registry.resolve(op.name, self.ctx.version)
        args, kwargs = self.arguments(op, entry, replace)
        node = self.graph.call_function(entry.fn, args, kwargs)
        node.meta[KERNEL_META] = op.name  # whose semantics the call computes (value_facts)
        return node

    def arguments(self, op, entry, replace: dict | None = None) -> tuple[tuple, dict]:
        """(operands' nodes, spec attributes as Python values) as op's kernel takes them."""
        mutable = self.ctx.mutable_attribute_operands(op.name, len(op.operands))
        replace = replace or {}
        args = tuple(replace[i] if i in replace else self._folded(v) if i in mutable else self.value(v)
                     for i, v in enumerate(op.operands))
        wanted = self.ctx.spec_attribute_names(op.name)
        kwargs = {}
        if entry.keyword_operands:  # a foreign schema's signature (registry.Entry says why)
            names = self.ctx.operand_names(op.name)
            kwargs = {n: a for n, a in zip(names, args) if a is not None}
            args = ()
        for key, attr in op.attributes.items():
            if (key in wanted) if wanted is not None else (key not in _NOT_ARGUMENTS):
                # an attribute named like a Python keyword (mish's `lambda`) is `lambda_`:
                # torch.fx writes kwargs into generated source
                kwargs[key + "_" if keyword.iskeyword(key) else key] = python_value(attr)
        return args, kwargs

    def _call_kernel(self, op) -> None:
        if self.ctx.emitters is not None and self._emit_fused(op):
            return
        node = self.call_kernel(op)
        self._last_call = node
        if op.results:
            self.bind_results(op, node)

    def _emit_fused(self, op) -> bool:
        """On device npu: op as its one torch_npu fused call when its emitter accepts it
        (pirc.lower.npu.emit decides from the op alone); False to lower it as everywhere."""
        entry = self.ctx.registry.resolve(op.name, self.ctx.version)
        if (op.name, entry.since) not in self.ctx.emitters:
            return False
        args, kwargs = self.arguments(op, entry)
        from .npu.emit import emit
        nodes = emit(self.graph, op, entry.since, args, kwargs)
        if nodes is None:
            return False
        self._last_call = None
        for i, node in nodes.items():
            self.env[op.results[i]] = node
        return True

    def _apply_writes(self, op) -> None:
        """Record op's in-place results and views as names of their operands' storage, and
        after a write that changes values rebind every name of the written storage."""
        oa = self.ctx.aliasing(op.name)
        if oa is None or not (oa.inplace or oa.views):
            return
        results, operands = list(op.results), list(op.operands)
        for r, o in oa.views:
            # a view the lowering can rebuild its base from (storage.VIEW_BASES); array_pop's
            # element leaves the array it views (tensor arrays are Python lists here)
            if op.name in VIEW_BASES and r < len(results) and o < len(operands) and results[r] in self.env \
                    and not is_null_value(operands[o]) and operands[o] in self.env:
                self.storage.view(results[r], operands[o], op)
        changed = oa.value_writes(op)
        for r, o in oa.inplace:
            if r >= len(results) or o >= len(operands) or is_null_value(operands[o]) \
                    or operands[o] not in self.env or is_null_value(results[r]):
                continue
            result = results[r]
            if result not in self.env:  # an unused result of a multi-result op: its node
                self.env[result] = self.graph.call_function(operator.getitem, (self._last_call, r))
            self.storage.same(result, operands[o])
            if o in changed and isinstance(self.env[operands[o]], fx.Node):
                for v in self.storage.rebind(self, operands[o], self.env[result]):
                    if v is not result:
                        self.written.add(v)
                        self._reshape_tracking(v, result)

    def _reshape_tracking(self, v, result) -> None:
        """A rebound name's tracked shape ints are the written result's (or none)."""
        got = self.shapes.values.get(result)
        if got is not None and self.env.get(v) is self.env.get(result):
            self.shapes.values[v] = got
        else:
            self.shapes.values.pop(v, None)

    def write_back_parameters(self) -> list[tuple[str, fx.Node]]:
        """Copy each parameter a value-changing write left rebound into its module buffer, at
        the end of the graph: a later run reads it, as a later run of Paddle's executor
        reads the scope's variable (docs/LOWERING.md, "In-place writes")."""
        written = []
        for pname, (value, node) in self.parameters.items():
            now = self.env.get(value)
            if isinstance(now, fx.Node) and now is not node:
                # Everything reads a copy of the buffer: kernels may return views of what
                # they get (flatten, reshape), and an output viewing the buffer would show
                # the write made after it.
                with self.graph.inserting_after(node):
                    read = self.graph.call_function(torch.clone, (node,))
                node.replace_all_uses_with(read, delete_user_cb=lambda user: user is not read)
                self.graph.call_function(torch.ops.aten.copy_.default, (node, now))
                written.append((pname, now))
        return written
