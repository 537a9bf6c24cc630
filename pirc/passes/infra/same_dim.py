"""Whether two tensor dims are provably the same size at run time, where the static types say
-1: both copied from one dim of one value.

Every LLaMA is saved with a dynamic batch, so a fusion that asks "a, b and the product have
one shape" or "q, k and v have equal B" sees -1 against -1.  Two -1s are not the same dim in
general: two feeds of [-1, 16] may be 3 and 1 at run time, and an elementwise op or a batched
matmul then broadcasts the 1 -- a fused op that does not broadcast would compute something
else.  But the gate and up projections of one normalised hidden state are both x's batch,
and q, k, v split from projections of one x are too: the -1 is copied, op by op, from one
dim of one value.  `origin(value, axis)` follows that copy up the producers:

* ops whose result has operand 0's shape (unary elementwise ops, softmax, cast, scale, ...);
* broadcasting elementwise ops (add, multiply, ... right-aligned): a dim that is static 1 in
  an operand takes the others', and the rest must all have one origin (two -1s of
  different origins could broadcast each other: no origin);
* matmul: the batch dims broadcast as above, M from x, N from y (by the transpose flags);
* reshape: a 0 in the (constant) target copies the input's dim at that index;
* transpose: result dim i is the input's dim perm[i];
* slice (no decrease_axis) and keepdim reductions: the dims they do not cut or reduce;
* concat: the dims other than its axis, when all its inputs agree (concat does not
  broadcast; an origin is only claimed where every input has it).

Anything else, or a value written in place (its shape could change after it is read: the
alias model), is its own origin: (value, axis) -- the same value read twice is the same
size, nothing more is claimed.  Static dims are their size.  The walk is bounded (`LIMIT`
steps): past it a dim is its own origin, which can only make a fusion decline.
"""

from __future__ import annotations

from ..folding.constants import int_array_values
from .declarative import attr_value
from .forwarding import unwritten

LIMIT = 4096   # ops visited per question; a deeper chain is not followed (a near miss)

# result 0 has operand 0's shape
SAME_SHAPE = frozenset({
    "pd_op.scale", "pd_op.silu", "pd_op.rsqrt", "pd_op.sqrt", "pd_op.exp", "pd_op.relu",
    "pd_op.gelu", "pd_op.tanh", "pd_op.sigmoid", "pd_op.cast", "pd_op.softmax", "pd_op.pow",
    "pd_op.abs", "pd_op.assign", "pd_op.dropout", "pd_op.full_like", "pd_op.logical_not",
    "pd_op.layer_norm", "npu.rotary_mul",
})
BROADCAST = frozenset({
    "pd_op.add", "pd_op.subtract", "pd_op.multiply", "pd_op.divide", "pd_op.maximum",
    "pd_op.minimum", "pd_op.elementwise_pow", "pd_op.where",
})
KEEPDIM_REDUCTIONS = frozenset({"pd_op.mean", "pd_op.sum", "pd_op.max", "pd_op.min"})


def _shape(value):
    shape = getattr(getattr(value, "type", None), "shape", None)
    return None if shape is None else tuple(shape)


class _Walk:
    def __init__(self, aliases):
        self.aliases = aliases
        self.memo: dict = {}
        self.budget = LIMIT

    def origin(self, value, axis):
        """The static size of dim `axis` of `value`, or (value', axis') it is copied from."""
        shape = _shape(value)
        if shape is None or not 0 <= axis < len(shape):
            return None
        if shape[axis] >= 0:
            return shape[axis]
        key = (id(value), axis)
        if key not in self.memo:
            self.memo[key] = (value, axis)   # itself while its producers are asked
            found = self._copied(value, axis) if self.budget > 0 else None
            self.budget -= 1
            self.memo[key] = found if found is not None else (value, axis)
        return self.memo[key]

    def _copied(self, value, axis):
        op = getattr(value, "op", None)
        if op is None or not unwritten(self.aliases, value) or value is not op.results[0]:
            return None
        name, operands = op.name, op.operands
        if any(not unwritten(self.aliases, o) for o in operands if _shape(o) is not None):
            return None
        rank = len(_shape(value))
        if name in SAME_SHAPE:
            return self.origin(operands[0], axis) if len(_shape(operands[0]) or ()) == rank else None
        if name in BROADCAST:
            return self._broadcast(rank, axis, operands)
        if name == "pd_op.matmul":
            return self._matmul(op, rank, axis)
        if name == "pd_op.reshape":
            target = int_array_values(operands[1], self.aliases)
            if target is None or len(target) != rank or target[axis] != 0:
                return None
            return self.origin(operands[0], axis)
        if name == "pd_op.transpose":
            perm = attr_value(op, "perm")
            return self.origin(operands[0], perm[axis]) if perm and len(perm) == rank else None
        if name == "pd_op.slice":
            if attr_value(op, "decrease_axis"):
                return None
            cut = {a % rank for a in attr_value(op, "axes", ())}
            return None if axis in cut else self.origin(operands[0], axis)
        if name in KEEPDIM_REDUCTIONS:
            axes = int_array_values(operands[1], self.aliases) if len(operands) > 1 else None
            if not attr_value(op, "keepdim", False) or not axes:
                return None
            return None if axis in {a % rank for a in axes} else self.origin(operands[0], axis)
        if name == "pd_op.concat":
            return self._concat(op, rank, axis)
        return None

    def _agree(self, pairs, broadcast=True):
        """The one origin of the (value, axis) pairs, or None; with `broadcast`, a static 1
        takes the others' size and is left out."""
        found = {}
        for v, i in pairs:
            o = self.origin(v, i)
            if o is None:
                return None
            if broadcast and o == 1:
                continue
            found[o if isinstance(o, int) else (id(o[0]), o[1])] = o
        return next(iter(found.values())) if len(found) == 1 else None

    def _broadcast(self, rank, axis, operands):
        pairs = []
        for o in operands:
            shape = _shape(o)
            if shape is None:
                return None
            i = axis - (rank - len(shape))
            if i >= 0:
                pairs.append((o, i))
        return self._agree(pairs)

    def _matmul(self, op, rank, axis):
        x, y = op.operands[0], op.operands[1]
        xs, ys = _shape(x), _shape(y)
        if xs is None or ys is None or len(xs) < 2 or len(ys) < 2:
            return None
        tx, ty = bool(attr_value(op, "transpose_x", False)), bool(attr_value(op, "transpose_y", False))
        if axis == rank - 2:
            return self.origin(x, len(xs) - (1 if tx else 2))
        if axis == rank - 1:
            return self.origin(y, len(ys) - (2 if ty else 1))
        pairs = []
        for v, s in ((x, xs), (y, ys)):
            i = axis - (rank - 2 - (len(s) - 2))
            if i >= 0:
                pairs.append((v, i))
        return self._agree(pairs)

    def _concat(self, op, rank, axis):
        combine = getattr(op.operands[0], "op", None)
        full = getattr(op.operands[1], "op", None) if len(op.operands) > 1 else None
        if combine is None or combine.name != "builtin.combine" or full is None \
                or full.name != "pd_op.full":
            return None
        cat = attr_value(full, "value")
        if cat is None or int(cat) % rank == axis:
            return None
        if any(len(_shape(v) or ()) != rank for v in combine.operands):
            return None
        return self._agree([(v, axis) for v in combine.operands], broadcast=False)


def origin(value, axis: int, aliases=None):
    """The static size of dim `axis` of `value`, or the (value, axis) its -1 is copied from
    (itself where nothing proves more); None for a non-tensor or an axis out of range."""
    return _Walk(aliases).origin(value, axis)


def same_dim(a, i: int, b, j: int, aliases=None) -> bool:
    """Dim i of a and dim j of b are the same size at run time: static and equal, or both
    copied from one dim of one value (module docstring)."""
    walk = _Walk(aliases)
    oa, ob = walk.origin(a, i), walk.origin(b, j)
    if oa is None or ob is None:
        return False
    if isinstance(oa, int) or isinstance(ob, int):
        return oa == ob
    return oa[0] is ob[0] and oa[1] == ob[1]
