"""Which graph nodes a write must rebind: Paddle's names of one storage, in a functional graph.

In Paddle's executor an in-place op (`relu_`, `assign_value_`, ...) writes its operand's
variable and its result IS that variable; a view op (`share_data`, `view_slice`, ...) gives a
second name of its operand's storage.  So after a write every name of the storage reads the
new numbers: the operand, the op's result, earlier in-place results of the same storage, views
of it, and the storage a view was taken from.  The lowering stays functional (no in-place
mutation in the graph: torch.export and torch.compile trace it as it is): a write makes a new
node and `Storage.rebind` points every name at the node that holds its new numbers.

What is a name of what comes from the alias model, op by op (`pirc.ir.aliasing.op_aliasing`:
`inplace` and `views` pairs, `value_writes`); this module only records, as the builder meets
them, the exact edges between the names (an in-place result or a `builtin.split` member is
the same tensor as its operand; a view is a function of its base) -- the analysis's buffers
are may-alias unions (an `if`'s two branches' yields are one buffer there), while a rebind
needs the must-alias data flow.  Ops Paddle's ops.yaml marks `view:` but whose static
executor copies (reshape, squeeze, unsqueeze, flatten: the model's `copies`, observed in
Paddle 3.3.1, tests/fixtures/aliasing/view_*) alias nothing, so a write to either side is not
seen through the other.

A write through a view rebuilds its base: `VIEW_BASES` says how, per view op, from the base
as it was and the view's new value; a write to the base recomputes the view (its kernel again,
on the base's new node).  Only those views are linked: the model's other views either have no
kernel (view_dtype, as_strided, tensor_unfold: such a program is refused before lowering) or
are tensor-array elements (array_pop: arrays are Python lists in the lowering, and a popped
element leaves its array), docs/LOWERING.md "In-place writes".
"""

from __future__ import annotations

import torch

from .values import python_value


def _same_elements(graph, op, base, view):
    """share_data / view_shape: the view holds the base's elements (pirc's view_shape keeps
    the base's shape, kernels/manipulation.py), so the base is the view, reshaped back."""
    return graph.call_method("reshape_as", (view, base))


def _rows(graph, op, base, view):
    """view_slice: rows [begin_idx, end_idx) of dim 0 (DenseTensor::Slice)."""
    begin = python_value(op.attributes["begin_idx"]) if "begin_idx" in op.attributes else 0
    end = python_value(op.attributes["end_idx"]) if "end_idx" in op.attributes else 0
    return graph.call_function(torch.slice_scatter, (base, view), {"dim": 0, "start": begin, "end": end})


# View op -> how a write through the view rebuilds its base (graph, view op, base node, view node).
VIEW_BASES = {
    "pd_op.share_data": _same_elements,
    "pd_op.share_data_sr": _same_elements,
    "pd_op.view_shape": _same_elements,
    "pd_op.view_slice": _rows,
}


class Storage:
    """The names of each storage met so far in one graph, as a forest: a value's parent is
    the value it names the storage of (`None` edge: the same tensor; an op: a view made by
    that op)."""

    def __init__(self):
        self.parent: dict = {}    # value -> (parent value, view op or None)
        self.children: dict = {}  # value -> [(child value, view op or None)]
        self.vectors: dict = {}   # value -> builtin.combine results that gather it

    def copy(self) -> "Storage":
        """The same edges, for a nested region's graph to add its own to."""
        other = Storage()
        other.parent = dict(self.parent)
        other.children = {k: list(v) for k, v in self.children.items()}
        other.vectors = {k: list(v) for k, v in self.vectors.items()}
        return other

    def same(self, name, of) -> None:
        """`name` is the tensor `of` is (an in-place result, a split member, a parameter again)."""
        self._link(name, of, None)

    def view(self, name, of, op) -> None:
        self._link(name, of, op)

    def gathered(self, vector, members) -> None:
        for m in members:
            self.vectors.setdefault(m, []).append(vector)

    def _link(self, name, of, op) -> None:
        if name is of or name in self.parent:
            return
        self.parent[name] = (of, op)
        self.children.setdefault(of, []).append((name, op))

    def rebind(self, builder, value, node) -> list:
        """After a write left `node` as `value`'s new numbers, bind every name of its storage
        to what it now reads; returns the values rebound."""
        env = builder.env
        # Up: a write through a view writes its base (rebuilt from the base as it was).
        path = {value: node}
        while value in self.parent:
            base, op = self.parent[value]
            if base not in env:
                break  # the base lives in an enclosing graph (docs/LOWERING.md, regions)
            if op is not None:
                node = VIEW_BASES[op.name](builder.graph, op, env[base], node)
            value = base
            path[value] = node
        # Down: every name below the storage's root reads the new numbers.
        rebound = []
        stack = [(value, path[value])]
        while stack:
            v, n = stack.pop()
            if env.get(v) is not n:
                env[v] = n
                rebound.append(v)
            for child, op in self.children.get(v, ()):
                if child not in env:
                    continue  # defined in a nested graph
                if child in path:
                    stack.append((child, path[child]))
                elif op is None:
                    stack.append((child, n))
                else:
                    stack.append((child, builder.call_kernel(op, {_base_index(op, v): n})))
        for v in rebound:
            for vector in self.vectors.get(v, ()):
                if vector in env:
                    env[vector] = [builder.value(m) for m in vector.owner.operands]
        return rebound


def _base_index(op, base) -> int:
    return next(i for i, v in enumerate(op.operands) if v is base)

