"""Specialisation of kernel calls once the graph is built: the same numbers, fewer Python calls.

Every op of a lowered program is a call of its kernel, a Python function that reads its
attributes, checks ranks and dtypes, resolves paddings and only then calls torch.  At run
time each call costs a few microseconds before any arithmetic, so a small model spends most
of its time there (docs/PERFORMANCE.md, "Run").  Most of those decisions depend only on the
attributes and on the static PIR types (`node.meta["pir_shape"]`, `["pir_dtype"]`,
graph_builder), so they can be taken once, here: a kernel may carry a specialiser
(`@specializer(kernel)`), called with a `Site` for each call of the kernel, that returns the
torch calls computing the same result for that call, or None to keep the kernel call (a
dynamic dim, an unusual dtype, a case the kernel handles with care).

The specialiser must compute exactly what its kernel computes on every input the static
types allow (one documented exception: layer_norm, within rounding, kernels/nn.py).
tests/unit/test_specialize.py checks each specialised kernel case against its kernel;
tests/unit/test_parity_corpus.py and test_op_fixtures.py the lowered programs against
Paddle's numbers.  A kernel call whose result a specialiser replaces by a tuple (batch norm,
layer_norm, dropout) is replaced only when every user reads one element of it through
`operator.getitem` that the tuple provides.  The pass runs after the NPU fusion (which
matches kernel calls) and the constant folding, on the root graph and on control-flow
subgraphs, after value_facts has put each value's static facts on its node (`Site.facts`:
never NaN, a lower bound; a replacement carries its node's facts on).  A specialiser may
answer with an existing value (an identity such as dropout at inference); that is taken
only where the value is computed inside the graph: a module output never aliases a
caller's input tensor, and torch's control-flow operators refuse branch outputs that alias
their inputs.
"""

from __future__ import annotations

import inspect
import operator
import struct
from typing import Callable

import torch
import torch.fx as fx

from .failures import OP_META
from .graph_builder import python_name
from .value_facts import FACTS_META, Facts, annotate, facts_of


def specializer(kernel: Callable):
    """Decorator: register `fn(site) -> node | tuple | None` as `kernel`'s specialiser."""
    def decorate(fn):
        kernel.specialize = fn
        return fn
    return decorate


class Site:
    """One kernel call being specialised: its operands, attributes and static types."""

    def __init__(self, gm: fx.GraphModule, node: fx.Node, taken: set[str], root: bool,
                 scalars: dict | None = None):
        self.gm = gm
        self.node = node
        self.root = root
        self._taken = taken
        self._scalars = {} if scalars is None else scalars  # (dtype, bits) -> buffer name
        self.made: list[fx.Node] = []  # nodes this site inserted, in order
        # The kernel's parameters by name, defaults filled in (what the kernel would see).
        bound = inspect.signature(node.target).bind(*node.args, **node.kwargs)
        bound.apply_defaults()
        self.p = bound.arguments

    @staticmethod
    def shape(value) -> tuple | None:
        """Static PIR shape of an operand (dims -1 where dynamic), None if unknown."""
        if isinstance(value, fx.Node):
            s = value.meta.get("pir_shape")
            return tuple(s) if s is not None else None
        return None

    def static_shape(self, value) -> tuple | None:
        """The operand's shape when every dim is static, else None."""
        s = self.shape(value)
        return s if s is not None and all(d >= 0 for d in s) else None

    @staticmethod
    def dtype(value) -> torch.dtype | None:
        return value.meta.get("pir_dtype") if isinstance(value, fx.Node) else None

    @staticmethod
    def facts(value) -> Facts:
        """What value_facts proved about an operand's elements (never NaN, a lower bound)."""
        return facts_of(value)

    def rank(self, value) -> int | None:
        s = self.shape(value)
        return None if s is None else len(s)

    def constant(self, value) -> torch.Tensor | None:
        """The tensor a get_attr operand reads (a parameter or folded buffer), else None."""
        if not isinstance(value, fx.Node) or value.op != "get_attr":
            return None
        obj = self.gm
        for part in value.target.split("."):
            obj = getattr(obj, part, None)
        return obj if isinstance(obj, torch.Tensor) else None

    def buffer(self, tensor: torch.Tensor, hint: str) -> fx.Node | None:
        """A new buffer of the module holding `tensor`, read by a get_attr node (None in a
        control-flow subgraph: torch's operators take their branches' tensors as operands)."""
        if not self.root:
            return None
        name = python_name(f"_{hint}", self._taken)
        self.gm.register_buffer(name, tensor)
        return self._made(self.node.graph.get_attr(name))

    def scalar(self, value, dtype: torch.dtype):
        """The number `value` as an operand of a float32 / float64 call on a tensor of `dtype`:
        a 0-d tensor of that dtype (one buffer per value, read by every call that uses it).
        torch wraps a Python number into such a tensor on every call (~1.5 us at batch 1);
        for these two dtypes the wrapped number is cast to the tensor's dtype before the
        arithmetic, the same rounding as the buffer's, so the result bits are the same
        (tests/unit/test_speed_paths_bert8.py).  The number itself where no buffer can be
        made (a control-flow subgraph) or for another dtype (half types compute with the
        number in float, not rounded to the tensor's type)."""
        if not self.root or dtype not in (torch.float32, torch.float64) \
                or type(value) not in (int, float) or (type(value) is int and abs(value) > 2 ** 53):
            return value  # (an int beyond 2^53 would round twice on its way through a double)
        key = (dtype, struct.pack("<d", float(value)))
        name = self._scalars.get(key)
        if name is None:
            name = python_name(f"_scalar_{value}", self._taken)
            self.gm.register_buffer(name, torch.tensor(float(value), dtype=dtype))
            self._scalars[key] = name
        return self._made(self.node.graph.get_attr(name))

    def call(self, target, *args, **kwargs) -> fx.Node:
        """A call_function node (inserted before the kernel call)."""
        return self._made(self.node.graph.call_function(target, args, kwargs))

    def method(self, name: str, *args, **kwargs) -> fx.Node:
        return self._made(self.node.graph.call_method(name, args, kwargs))

    def _made(self, node: fx.Node) -> fx.Node:
        node.meta["pirc_new"] = True
        if OP_META in self.node.meta:  # a failure of the torch calls names the kernel's op
            node.meta[OP_META] = self.node.meta[OP_META]
        self.made.append(node)
        return node

    def discard_unused(self) -> None:
        """Erase the inserted nodes nothing reads (a refused or partial answer), newest first;
        a buffer only they read goes too (a shared scalar's at the end, `_drop_unread_scalars`)."""
        for n in reversed(self.made):
            n.meta.pop("pirc_new", None)
            if n.users:
                continue
            n.graph.erase_node(n)
            if n.op == "get_attr" and n.target not in self._scalars.values():
                delattr(self.gm, n.target)
                self._taken.discard(n.target)


def _fresh(node) -> bool:
    """A value the graph computes itself (a module output may be it without aliasing a feed)."""
    return isinstance(node, fx.Node) and node.op == "call_function"


def _replace(node: fx.Node, got, root: bool) -> bool:
    """Point node's users at `got`; False (nothing changed) when that is not allowed."""
    if isinstance(got, tuple):
        users = list(node.users)
        if not all(u.op == "call_function" and u.target is operator.getitem
                   and isinstance(u.args[1], int) and u.args[1] < len(got)
                   and got[u.args[1]] is not None for u in users):
            return False
        if not all(_ok_value(got[u.args[1]], root) for u in users):
            return False
        for u in users:
            _carry_meta(u, got[u.args[1]])
            u.replace_all_uses_with(got[u.args[1]])
        return True
    if not _ok_value(got, root):
        return False
    _carry_meta(node, got)
    node.replace_all_uses_with(got)
    return True


def _ok_value(value, root: bool) -> bool:
    if not isinstance(value, fx.Node):
        return False
    if "pirc_new" in value.meta:  # made by this specialiser
        return True
    return root and _fresh(value)  # an existing value: an identity (see the docstring)


def _carry_meta(old: fx.Node, new: fx.Node) -> None:
    for key in ("pir_shape", "pir_dtype", FACTS_META):
        if key in old.meta and key not in new.meta:
            new.meta[key] = old.meta[key]


def specialize_calls(gm: fx.GraphModule, root: bool = True) -> int:
    """Specialise every kernel call of `gm` (and of its subgraph modules); returns how many."""
    taken = {name for name, _ in gm.named_buffers()} | {name for name, _ in gm.named_children()} \
        | {name for name, _ in gm.named_parameters()}
    graph = gm.graph
    annotate(graph)
    done = 0
    scalars: dict = {}
    for node in list(graph.nodes):
        fn = getattr(node.target, "specialize", None) if node.op == "call_function" else None
        if fn is None:
            continue
        site = Site(gm, node, taken, root, scalars)
        with graph.inserting_before(node):
            got = fn(site)
        if got is not None and _replace(node, got, root):
            if not node.users:
                graph.erase_node(node)
            done += 1
        site.discard_unused()
    graph.eliminate_dead_code()
    _drop_unread_scalars(gm, scalars)
    gm.recompile()
    if root:
        for _, child in gm.named_children():
            if isinstance(child, fx.GraphModule):
                done += specialize_calls(child, root=False)
    return done


def _drop_unread_scalars(gm: fx.GraphModule, scalars: dict) -> None:
    """The scalar buffers (Site.scalar) no node reads any more (a refused answer's, or one
    dead code elimination removed) leave the module."""
    read = {n.target for n in gm.graph.nodes if n.op == "get_attr"}
    for name in scalars.values():
        if name not in read:
            delattr(gm, name)
