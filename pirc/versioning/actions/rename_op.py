"""Paddle's op rename (`op_patches` modify_name): the op takes the name in `data`; a
downgrade renames it back."""

from __future__ import annotations

from ..action_values import new_name
from ..op_actions import RenameOp
from .registry import PatchAction, action


@action
class RenameOpAction(PatchAction):
    name = "modify_name"
    section = "op_patches"
    data = "op_name"

    def compile(self, c, op_name, a, src):
        return RenameOp(new_name(a), src)

    def invert(self, inv, op_name, a, forward):
        return RenameOp(op_name, forward.source)

    def explain(self, op_name, a):
        return f"is renamed to {a.new_name}"

    def covers(self, change, op_name, a, scope):
        if change.kind == "op_removed":
            return True
        return change.kind == "op_renamed" and a.new_name == change.new

    def op_name_after(self, a, name):
        return a.new_name
