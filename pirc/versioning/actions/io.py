"""Paddle's operand and result actions of `op_patches`: add a result, delete an operand,
retype a result; and the two lone forms pirc refuses (a new operand or a removed result
needs the other end of the value too: op_pair_patches)."""

from __future__ import annotations

from .. import paddle_kinds as PK
from ..action_values import type_of
from ..op_actions import AddOutput, DeleteInput, Refuse, RemoveOutput, SetOutputType
from .registry import PatchAction, action


class _Result(PatchAction):
    section = "op_patches"
    object = "index"

    def check(self, chk, reader, label, op_name, a, spec, counts, at):
        operands, results = counts[op_name]
        if results is None:
            return
        adding = self.name == "add_output"
        if a.object > (results if adding else results - 1):
            reader.error(a.line, f"{label}: result index {a.object} is out of range: "
                                 f"{op_name} has {results} result(s) {at}")
        if adding:
            counts[op_name] = (operands, results + 1)


@action
class AddOutputAction(_Result):
    """add_output: a new result of the given type; undone by removing it while unused."""

    name = "add_output"
    type = "type"
    data = "type_data"

    def compile(self, c, op_name, a, src):
        return AddOutput(int(a.object), type_of(a), src)

    def invert(self, inv, op_name, a, forward):
        return RemoveOutput(forward.index, forward.source)

    def explain(self, op_name, a):
        return f"adds result #{a.object} of type {PK.type_text(a.type_name, a.type_data)}"

    def covers(self, change, op_name, a, scope):
        return change.kind == "result_added" and a.object == change.index


@action
class DeleteInputAction(PatchAction):
    """delete_input: operand `object` goes; the removed value cannot come back."""

    name = "delete_input"
    section = "op_patches"
    object = "index"
    operand_delta = -1

    def compile(self, c, op_name, a, src):
        return DeleteInput(int(a.object), src)

    def invert(self, inv, op_name, a, forward):
        return Refuse(a.action, str(forward.index), "the removed operand is unknown", forward.source)

    def explain(self, op_name, a):
        return f"removes operand #{a.object}"

    def check(self, chk, reader, label, op_name, a, spec, counts, at):
        operands, results = counts[op_name]
        if operands is None:
            return
        if a.object >= operands:
            reader.error(a.line, f"{label}: operand index {a.object} is out of range: "
                                 f"{op_name} has {operands} operand(s) {at}")
        counts[op_name] = (operands - 1, results)

    def covers(self, change, op_name, a, scope):
        return change.kind == "operand_removed" and a.object == change.index


@action
class ModifyOutputType(_Result):
    """modify_output_type: result `object` takes the given type; the old type is unknown."""

    name = "modify_output_type"
    type = "type"
    data = "type_data"

    def compile(self, c, op_name, a, src):
        return SetOutputType(int(a.object), type_of(a), src)

    def invert(self, inv, op_name, a, forward):
        return Refuse(a.action, str(forward.index), "the result's type before the patch is unknown",
                      forward.source)

    def explain(self, op_name, a):
        return f"result #{a.object} becomes {PK.type_text(a.type_name, a.type_data)}"

    def covers(self, change, op_name, a, scope):
        return change.kind == "result_retyped" and a.object == change.index


@action
class AddInput(PatchAction):
    name = "add_input"
    section = "op_patches"
    refused = ("a lone add_input would break the graph (the new operand has no producer): use "
               "op_pair_patches add_value, which adds the producer's result and the consumer's "
               "operand together")


@action
class DeleteOutput(PatchAction):
    name = "delete_output"
    section = "op_patches"
    refused = ("a lone delete_output would break the graph (the result's users would lose their "
               "operand): use op_pair_patches delete_value, which removes both ends together")
