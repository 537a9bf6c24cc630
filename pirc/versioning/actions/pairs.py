"""Paddle's `op_pair_patches` actions: a value between a producer's result and a consumer's
operand, added or removed as one, so the graph stays whole."""

from __future__ import annotations

from .. import paddle_kinds as PK
from ..action_values import type_of
from ..op_actions import Refuse
from ..pair_actions import AddValue, DeleteValue
from .registry import PatchAction, action


class _Pair(PatchAction):
    section = "op_pair_patches"
    object = "pair"
    adding = False

    def check(self, chk, reader, label, subject, a, spec, counts, at):
        producer, consumer = subject
        out_index, in_index = a.object
        results = counts[producer][1]
        operands = counts[consumer][0]
        adding = self.adding
        if results is not None:
            limit = results if adding else results - 1
            if out_index > limit:
                reader.error(a.line, f"{label}: producer result index {out_index} is out of "
                                     f"range: {producer} has {results} result(s) {at}"
                                     + (" (a new result goes at 0..count)" if adding else ""))
            counts[producer] = (counts[producer][0], results + (1 if adding else -1))
        if operands is not None:
            limit = operands if adding else operands - 1
            if in_index > limit:
                reader.error(a.line, f"{label}: consumer operand index {in_index} is out of "
                                     f"range: {consumer} has {operands} operand(s) {at}"
                                     + (" (a new operand goes at 0..count)" if adding else ""))
            counts[consumer] = (operands + (1 if adding else -1), counts[consumer][1])

    def on_change(self, change, subject, a, operand_kind: str, result_kind: str) -> bool:
        producer, consumer = subject
        out_index, in_index = a.object
        if change.kind == operand_kind:
            return consumer == change.op and in_index == change.index
        if change.kind == result_kind:
            return producer == change.op and out_index == change.index
        return False


@action
class AddValueAction(_Pair):
    """add_value: a new result of the producer feeding a new operand of the consumer; a
    downgrade removes the value while nothing else uses it."""

    name = "add_value"
    type = "type"
    data = "type_data"
    adding = True

    def compile(self, c, subject, a, src):
        out_index, in_index = (int(i) for i in a.object)
        return AddValue(subject[0], subject[1], out_index, in_index, type_of(a), src)

    def invert(self, inv, subject, a, forward):
        producer, consumer = subject
        old = inv.spec(producer)
        had_it = old is not None and not old.variadic_results and len(old.results) > forward.out_index
        return DeleteValue(producer, consumer, forward.out_index, forward.in_index,
                           forward.source, strict=True, keep_result=had_it)

    def explain(self, subject, a):
        out_index, in_index = a.object
        return (f"adds a value of type {PK.type_text(a.type_name, a.type_data)} from result "
                f"#{out_index} of {subject[0]} to operand #{in_index} of {subject[1]}")

    def covers(self, change, subject, a, scope):
        return self.on_change(change, subject, a, "operand_added", "result_added")


@action
class DeleteValueAction(_Pair):
    """delete_value: the value goes from both ends; the removed value cannot come back."""

    name = "delete_value"

    def compile(self, c, subject, a, src):
        out_index, in_index = (int(i) for i in a.object)
        return DeleteValue(subject[0], subject[1], out_index, in_index, src)

    def invert(self, inv, subject, a, forward):
        producer, consumer = subject
        return Refuse("delete_value", f"[{forward.out_index}, {forward.in_index}] on "
                                      f"({producer}, {consumer})",
                      "the removed value is unknown", forward.source,
                      when=lambda op, p=producer: op.name == p)

    def explain(self, subject, a):
        out_index, in_index = a.object
        return (f"removes the value from result #{out_index} of {subject[0]} to operand "
                f"#{in_index} of {subject[1]}")

    def covers(self, change, subject, a, scope):
        return self.on_change(change, subject, a, "operand_removed", "result_removed")
