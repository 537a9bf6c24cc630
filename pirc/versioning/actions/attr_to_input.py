"""pirc's attr_to_input (`op_patches`, docs/PATCHES.md): an attribute that became an
operand (Paddle's mutable attributes), made by a one-element `pd_op.full`.

It acts only on ops of the old form: the operand count of the definition at the step's
old version, moved by the entry's earlier actions (the compiler's `operands_before`), so an
op already in the new form is left alone.
"""

from __future__ import annotations

from ...ir import attrs as A
from ...ir.registry import op_class
from ..op_actions import Refuse, _Named
from ..paddle_kinds import convert_attr
from .registry import PatchAction, action

# An attribute kind that can become a tensor: the DataType and element type of a
# one-element tensor holding it, as Paddle's builders make one for a mutable attribute.
# Integers become int64 whatever their attribute width: Paddle holds an integer Scalar as
# int64, and its builder makes `pd_op.full` of int64 for it (seen in Paddle 3.3.1 building
# flash_attn_v3_varlen, whose Int32 max_seqlen_q/k attributes became Scalar operands).
TENSOR_OF_KIND = {"bool": ("bool", "b"), "int32": ("int64", "i64"), "int64": ("int64", "i64"),
                  "float": ("float32", "f32"), "double": ("float64", "f64")}


class AttrToInput(_Named):
    """attr_to_input (pirc): attribute `name` becomes operand `index`, a one-element tensor
    made by a `pd_op.full` inserted before the op (shape [1], the attribute's value, its
    dtype, on the CPU), which is what Paddle's op builders make for a mutable attribute.
    Applied to ops that still have the attribute and `before` operands."""

    action = "attr_to_input"

    def __init__(self, name: str, index: int, before: int, full_class, source: str = ""):
        super().__init__(name, source)
        self.index = index
        self.before = before
        self.full_class = full_class  # pd_op.full's op class at the step's new version

    def describe(self) -> str:
        return f"attr_to_input {self.name} -> operand {self.index}"

    def apply(self, op, ctx) -> bool:
        attr = op.attributes.get(self.name)
        operands = list(op.operands)
        if attr is None or len(operands) != self.before:
            return False
        kind = A.attr_kind(attr)
        if kind not in TENSOR_OF_KIND:
            ctx.refuse(op, self, f"{self.name} is a {kind} attribute; only a bool or a number "
                                 f"becomes a one-element tensor")
            return False
        from ...ir.builder import append_op
        from ...ir.paddle_names import parse_place_text
        from ...ir.types import DenseTensorType, ELEMENT_TYPES
        dtype, element = TENSOR_OF_KIND[kind]
        value = float(A.scalar_value(attr))  # True -> 1.0 (an i1's raw value reads -1)
        full = append_op(self.full_class, [], [DenseTensorType.make(ELEMENT_TYPES[element], (1,))], {
            "dtype": A.dtype_attr(dtype),
            "place": A.place_attr(*parse_place_text("Place(cpu)")),
            "shape": A.int_array_attr((1,)),
            "stop_gradient": A.array_attr([A.bool_attr(True)]),
            "value": A.float_attr(value, double=True),
        }, None)
        op.parent_block().insert_op_before(full, op)
        operands.insert(self.index, full.results[0])
        op.operands = operands
        del op.attributes[self.name]
        return True


class InputToAttr(_Named):
    """Inverse of attr_to_input: operand `index`, when a `pd_op.full` of one element makes
    it, becomes attribute `name` again, of the older definition's `kind`; the full op goes
    when nothing else uses it.  Any other producer holds a value known only when the
    program runs: refused."""

    action = "attr_to_input"

    def __init__(self, name: str, index: int, after: int, kind: str, source: str = ""):
        super().__init__(name, source)
        self.index = index
        self.after = after
        self.kind = kind

    def describe(self) -> str:
        return f"undo attr_to_input {self.name} -> operand {self.index}"

    def apply(self, op, ctx) -> bool:
        operands = list(op.operands)
        if self.name in op.attributes or len(operands) != self.after:
            return False
        value = operands[self.index]
        full = getattr(value, "op", None)
        shape = full.attributes.get("shape") if full is not None else None
        if full is None or full.name != "pd_op.full" or shape is None \
                or tuple(getattr(shape, "data", ())) not in ((1,), ()):
            ctx.refuse(op, self, f"operand {self.index} is not made by a one-element pd_op.full, "
                                 f"so its value is not known before the program runs")
            return False
        try:
            number = float(A.scalar_value(full.attributes["value"]))
            attr = (A.bool_attr(number != 0.0) if self.kind == "bool"
                    else convert_attr(A.float_attr(number, double=True), self.kind))
        except (ValueError, TypeError) as e:
            ctx.refuse(op, self, str(e))
            return False
        del operands[self.index]
        op.operands = operands
        op.attributes[self.name] = attr
        if full.results[0].first_use is None:
            full.detach()
            full.erase()
        return True


@action
class AttrToInputAction(PatchAction):
    """attr_to_input: `object` is the attribute, `data` the operand index it becomes; undone
    while a one-element `pd_op.full` makes that operand."""

    name = "attr_to_input"
    section = "op_patches"
    origin = "pirc"
    object = "name"
    data = "index"
    operand_delta = 1

    def compile(self, c, op_name, a, src):
        return AttrToInput(a.object, int(a.index), c.operands_before(op_name, a),
                           op_class("pd_op.full", c.to_version), src)

    def invert(self, inv, op_name, a, forward):
        old = inv.old_attr_kind(op_name, forward.name)
        if old is None:
            return Refuse(a.action, forward.name, f"no op definition of {op_name} at version "
                                                  f"{inv.old_version} gives the attribute's kind",
                          forward.source)
        return InputToAttr(forward.name, forward.index, forward.before + 1, old, forward.source)

    def explain(self, op_name, a):
        return (f"attribute {a.object} becomes operand #{a.index}, made by a one-element "
                f"pd_op.full holding its value")

    def check(self, chk, reader, label, op_name, a, spec, counts, at):
        """The attribute must exist and hold a bool or a number (it becomes a one-element
        tensor); the index must be a place for a new operand.  Only an action that checks out
        moves the count (the next index is then counted from what really applies)."""
        operands, results = counts[op_name]
        if (op_name, a.object) not in chk.added:
            attr = spec.attribute(a.object)
            if attr is None:
                chk.check_attribute(reader, label, spec, a, at)
                return
            if attr.type not in TENSOR_OF_KIND:
                reader.error(a.line, f"{label}: `{a.object}` is {attr.type} {at}; only "
                                     f"a bool or a number becomes a one-element tensor")
                return
        if chk.new_operand_fits(reader, label, op_name, a, a.index, operands, at):
            counts[op_name] = (operands + 1, results)

    def covers(self, change, op_name, a, scope):
        if change.kind == "attr_removed":
            return a.object == change.subject
        return change.kind == "operand_added" and (a.index == change.index
                                                   or a.object == change.subject)
