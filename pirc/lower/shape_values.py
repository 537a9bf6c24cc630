"""Shape arithmetic of a program, kept as Python ints in the graph (dynamic shapes).

A program saved with a dynamic (-1) batch or sequence dim computes the shapes it needs at run
time with tensor ops: `shape64(x)`, a `slice` of it, `scale` / `multiply` of the pieces, a
`stack` or `concat` into the shape operand of reshape, expand, full_with_tensor, arange, slice,
tile or split.  Run as kernels, those are small int tensors that each consumer turns back into
Python ints (`.tolist()`): torch.export cannot trace that (the values become data-dependent
symbols) and torch.compile breaks the graph there.

So, while the graph is built, each integer value of rank 0 or 1 that such ops compute from
shapes and constants is also kept here as a `ShapeValue`: its elements, each a Python int (a
static dim, a constant) or an fx Node that yields an int at run time (`x.size(1)`, an
`operator.mul` of two of them).  A consumer's mutable-attribute operand (graph_builder._folded)
takes the elements instead of the tensor, so at run time kernels get plain ints and under
torch.export / torch.compile symbolic ints (SymInt), and the tensor ops that made them are
dead code.  A tensor consumer (a fetch, an op with no rule here) still reads the kernel's
tensor, computed as before.  A cast of such a value to float32 / float64 is tracked too, with
its int elements (a dim's value is exact in either): it feeds arange's end or a fill value,
scalar operands that kernels take as numbers.

Each rule computes what Paddle's kernel computes on int32 / int64 values of a shape (dims are
small non-negative numbers: no overflow or rounding question arises); an op with no rule, a
float value, or an operand that is no ShapeValue ends the tracking and the tensor is used.
"""

from __future__ import annotations

import math
import operator
from dataclasses import dataclass

import torch
import torch.fx as fx

from ..ir.ops import is_null_value
from .values import python_value, torch_dtype_of_type

_INT_DTYPES = (torch.int32, torch.int64)
_FLOAT_CAST = _INT_DTYPES + (torch.float32, torch.float64)


@dataclass
class ShapeValue:
    """An int tensor of rank 0 (`scalar`) or 1, element by element (an int or an fx Node)."""

    elems: list
    scalar: bool

    def python(self):
        """What a kernel gets for it: the element (rank 0) or the list of elements."""
        return self.elems[0] if self.scalar else list(self.elems)


INT_META = "pirc_int"  # node.meta key: the node yields a Python int (a dim), not a tensor


def int_node(node: fx.Node) -> fx.Node:
    node.meta[INT_META] = True
    return node


def is_int_node(value) -> bool:
    """An fx Node that yields a Python int at run time (a ShapeValue element)."""
    return isinstance(value, fx.Node) and value.meta.get(INT_META, False)


def _result_is_small(op, dtypes=_INT_DTYPES) -> bool:
    """One result, of rank 0 or 1, of one of `dtypes`."""
    if len(op.results) != 1:
        return False
    t = op.results[0].type
    shape = getattr(t, "shape", None)
    return (torch_dtype_of_type(t) in dtypes and shape is not None and len(shape) <= 1)


class ShapeTracker:
    """The ShapeValues of one graph's PIR values (a control-flow subgraph has its own)."""

    def __init__(self, graph: fx.Graph):
        self.graph = graph
        self.values: dict = {}  # PIR value -> ShapeValue, or list of them for a combine

    def get(self, v):
        return None if is_null_value(v) else self.values.get(v)

    def folded(self, v):
        """The Python form of v for a mutable-attribute operand, or None if v is not tracked."""
        got = self.get(v)
        if got is None:
            return None
        if isinstance(got, list):  # builtin.combine of scalars and lists: one flat list
            out = []
            for part in got:
                out.extend(part.elems)
            return out
        return got.python()

    # -- building ---------------------------------------------------------------------

    def _call(self, fn, *args):
        """`fn(*args)` now when every argument is an int, else a node computing it."""
        if all(type(a) is int for a in args):
            return fn(*args)
        return int_node(self.graph.call_function(fn, args))

    def record(self, op, env) -> None:
        """Track op's result when a rule below computes it from tracked values."""
        name = op.name
        if name == "builtin.combine":
            parts = [self.get(v) for v in op.operands]
            if parts and all(isinstance(p, ShapeValue) for p in parts):
                self.values[op.results[0]] = parts
            return
        rule = _RULES.get(name)
        # a cast of a dim to a float keeps its (exact, small integral) value: arange's end
        dtypes = _FLOAT_CAST if name == "pd_op.cast" else _INT_DTYPES
        if rule is None or not _result_is_small(op, dtypes):
            return
        got = rule(self, op, env)
        if got is not None:
            self.values[op.results[0]] = got

    def operand(self, op, i) -> ShapeValue | None:
        got = self.get(op.operands[i])
        return got if isinstance(got, ShapeValue) else None

    def constant_ints(self, op, i) -> list | None:
        """Operand i as a list of Python ints, when it is a tracked constant."""
        got = self.folded(op.operands[i])
        if got is None:
            return None
        got = got if isinstance(got, list) else [got]
        return got if all(type(e) is int for e in got) else None


def _attr(op, key, default=None):
    a = op.attributes.get(key)
    return default if a is None else python_value(a)


def _shape(tracker, op, env):
    """shape / shape64: the static dims as ints, each dynamic one as `x.size(i)`."""
    dims = getattr(op.operands[0].type, "shape", None)
    x = env.get(op.operands[0])
    if dims is None or not isinstance(x, fx.Node):
        return None
    elems = [d if d >= 0 else int_node(tracker.graph.call_method("size", (x, i)))
             for i, d in enumerate(dims)]
    return ShapeValue(elems, False)


def _full_int_array(tracker, op, env):
    return ShapeValue([int(v) for v in _attr(op, "value", [])], False)


def _full(tracker, op, env):
    shape = list(_attr(op, "shape", []))
    if shape not in ([], [1]):
        return None
    value = _attr(op, "value", 0)
    if isinstance(value, float) and not value.is_integer():
        return None
    return ShapeValue([int(value)], shape == [])


def _assign_value(tracker, op, env):
    values = [int(v) for v in _attr(op, "values", [])]
    shape = list(_attr(op, "shape", []))
    if len(shape) > 1 or math.prod(shape) != len(values):
        return None
    return ShapeValue(values, shape == [])


def _slice(tracker, op, env):
    """A slice of a 1-D shape along axis 0 with constant bounds (decrease_axis gives rank 0)."""
    x = tracker.operand(op, 0)
    starts, ends = tracker.constant_ints(op, 1), tracker.constant_ints(op, 2)
    axes = list(_attr(op, "axes", []))
    if x is None or x.scalar or starts is None or ends is None or axes != [0] \
            or len(starts) != 1 or len(ends) != 1:
        return None
    picked = x.elems[starts[0]:ends[0]]  # Python slicing clamps as Paddle's slice does
    if list(_attr(op, "decrease_axis", [])) == [0]:
        return ShapeValue(picked, True) if len(picked) == 1 else None
    return ShapeValue(picked, False)


def _stack(tracker, op, env):
    parts = tracker.get(op.operands[0])
    if not isinstance(parts, list) or _attr(op, "axis", 0) not in (0, -1) \
            or not all(p.scalar for p in parts):
        return None
    return ShapeValue([p.elems[0] for p in parts], False)


def _concat(tracker, op, env):
    parts = tracker.get(op.operands[0])
    if not isinstance(parts, list) or any(p.scalar for p in parts):
        return None
    axis = tracker.constant_ints(op, 1) if len(op.operands) > 1 else [0]
    if axis not in ([0], [-1]):
        return None
    return ShapeValue([e for p in parts for e in p.elems], False)


def _cast(tracker, op, env):
    x = tracker.operand(op, 0)
    return None if x is None else ShapeValue(list(x.elems), x.scalar)


def _elementwise(fn):
    """add / subtract / multiply of two tracked values (numpy broadcasting of rank <= 1)."""
    def rule(tracker, op, env):
        x, y = tracker.operand(op, 0), tracker.operand(op, 1)
        if x is None or y is None:
            return None
        xs, ys = x.elems, y.elems
        if len(xs) != len(ys):
            if len(xs) == 1:
                xs = xs * len(ys)
            elif len(ys) == 1:
                ys = ys * len(xs)
            else:
                return None
        return ShapeValue([tracker._call(fn, a, b) for a, b in zip(xs, ys)], x.scalar and y.scalar)
    return rule


def _scale(tracker, op, env):
    """Paddle's int scale: x * scale + bias (bias_after_scale) or (x + bias) * scale, with
    scale and bias cast to the int type; kept only for integral scale and bias."""
    x = tracker.operand(op, 0)
    has_operand = len(op.operands) > 1 and not is_null_value(op.operands[1])
    factor = _constant_number(op.operands[1]) if has_operand else _attr(op, "scale", 1.0)
    bias = _attr(op, "bias", 0.0)
    if x is None or factor is None or not float(factor).is_integer() \
            or not float(bias).is_integer():
        return None
    s, b = int(factor), int(bias)
    call = tracker._call
    if _attr(op, "bias_after_scale", True):
        elems = [call(operator.add, call(operator.mul, e, s), b) for e in x.elems]
    else:
        elems = [call(operator.mul, call(operator.add, e, b), s) for e in x.elems]
    return ShapeValue(elems, x.scalar)


def _constant_number(v):
    """A constant operand (pd_op.full of shape [] or [1]) as a Python number, else None."""
    owner = getattr(v, "owner", None)
    if getattr(owner, "name", None) != "pd_op.full":
        return None
    if list(python_value(owner.attributes["shape"])) not in ([], [1]):
        return None
    return python_value(owner.attributes["value"])


def broadcast_dim(a, b):
    """One dim of Paddle's broadcast of two shapes (ElementwiseInferMeta): a 1 takes the other."""
    return b if a == 1 else a


def _shape_broadcast(tracker, op, env):
    x, y = tracker.operand(op, 0), tracker.operand(op, 1)
    if x is None or y is None or x.scalar or y.scalar:
        return None
    xs, ys = list(x.elems), list(y.elems)
    n = max(len(xs), len(ys))
    xs, ys = [1] * (n - len(xs)) + xs, [1] * (n - len(ys)) + ys
    return ShapeValue([tracker._call(broadcast_dim, a, b) for a, b in zip(xs, ys)], False)


_RULES = {
    "pd_op.shape": _shape,
    "pd_op.shape64": _shape,
    "pd_op.full_int_array": _full_int_array,
    "pd_op.full": _full,
    "pd_op.assign_value_": _assign_value,
    "pd_op.assign_value": _assign_value,
    "pd_op.slice": _slice,
    "pd_op.stack": _stack,
    "pd_op.concat": _concat,
    "pd_op.cast": _cast,
    "pd_op.assign": _cast,
    "pd_op.add": _elementwise(operator.add),
    "pd_op.subtract": _elementwise(operator.sub),
    "pd_op.multiply": _elementwise(operator.mul),
    "pd_op.scale": _scale,
    "pd_op.shape_broadcast": _shape_broadcast,
}
