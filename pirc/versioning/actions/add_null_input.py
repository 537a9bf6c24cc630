"""pirc's add_null_input (`op_patches`, docs/PATCHES.md): an optional operand a new
definition inserted is, in a program saved before it, absent; a `<<NULL VALUE>>` says
exactly that, needs no producer, and cannot break the graph.

It acts only on ops of the old form: the operand count of the definition at the step's
old version, moved by the entry's earlier actions (the compiler's `operands_before`), so an
op already in the new form is left alone.
"""

from __future__ import annotations

from ..op_actions import OpAction
from .registry import PatchAction, action


class AddNullInput(OpAction):
    """add_null_input (pirc): operand `index` becomes a `<<NULL VALUE>>`, for an optional
    operand a new definition inserted.  Applied to ops that have `before` operands (the
    old definition's count, after the entry's earlier actions), so an op that has the
    operand already is left alone; an absent optional operand is exactly what a null value
    means, so no producer is needed and the graph cannot break."""

    action = "add_null_input"

    def __init__(self, index: int, before: int, source: str = ""):
        super().__init__(source)
        self.index = index
        self.before = before

    def describe(self) -> str:
        return f"add_null_input {self.index}"

    def apply(self, op, ctx) -> bool:
        operands = list(op.operands)
        if len(operands) != self.before:
            return False
        from ...ir.ops import null_value
        operands.insert(self.index, null_value())
        op.operands = operands
        return True


class RemoveNullInput(OpAction):
    """Inverse of add_null_input: remove operand `index` when it is a `<<NULL VALUE>>`; a
    real value there cannot be expressed by the older version: refused."""

    action = "add_null_input"

    def __init__(self, index: int, after: int, source: str = ""):
        super().__init__(source)
        self.index = index
        self.after = after

    def describe(self) -> str:
        return f"undo add_null_input {self.index}"

    def apply(self, op, ctx) -> bool:
        operands = list(op.operands)
        if len(operands) != self.after:
            return False
        from ...ir.ops import is_null_value
        if not is_null_value(operands[self.index]):
            ctx.refuse(op, self, f"operand {self.index} holds a value; the older version has no "
                                 f"such operand")
            return False
        del operands[self.index]
        op.operands = operands
        return True


@action
class AddNullInputAction(PatchAction):
    """add_null_input: `object` is the operand index; undone by removing the null value."""

    name = "add_null_input"
    section = "op_patches"
    origin = "pirc"
    object = "index"
    operand_delta = 1

    def compile(self, c, op_name, a, src):
        return AddNullInput(int(a.object), c.operands_before(op_name, a), src)

    def invert(self, inv, op_name, a, forward):
        return RemoveNullInput(forward.index, forward.before + 1, forward.source)

    def explain(self, op_name, a):
        return f"takes <<NULL VALUE>> as a new optional operand #{a.object} (old form only)"

    def check(self, chk, reader, label, op_name, a, spec, counts, at):
        """The index must be a place for a new operand, and the definition the patch produces
        must have an optional operand there (a null value anywhere else is invalid).  Only an
        action that checks out moves the count."""
        operands, results = counts[op_name]
        if not chk.new_operand_fits(reader, label, op_name, a, a.object, operands, at):
            return
        new = chk.spec_after(op_name)
        if new is not None:
            slots = new.operands
            if a.object >= len(slots) or not slots[a.object].optional:
                what = (f"operand {a.object} ({slots[a.object].name}) is required"
                        if a.object < len(slots) else f"it has {len(slots)} operand(s)")
                reader.error(a.line, f"{label}: at PIR version {chk.after}, {op_name}'s {what}; "
                                     f"only an optional operand can be a <<NULL VALUE>> (a "
                                     f"required one needs a producer: op_pair_patches add_value)")
                return
        counts[op_name] = (operands + 1, results)

    def covers(self, change, op_name, a, scope):
        # Operands are positional: the definitions align them by name, which need not be
        # where the new one went (flash_attn_v3_varlen's seqused_q / seqused_k went before
        # qv), so an optional operand counts as covered while the entry inserts as many
        # null values as the step adds optional operands.  check() makes sure each null
        # value lands on an optional operand of the new definition.
        if change.kind != "operand_added" or not (change.new or "").endswith("optional"):
            return False
        added = [d for d in scope.changes if d.op == change.op and d.kind == "operand_added"]
        return (all((d.new or "").endswith("optional") for d in added)
                and len([b for b in scope.actions if b.action == a.action]) >= len(added))
