"""The compiled form of `op_patches` actions: one small object per action.

`pirc.versioning.compiler` turns each YAML action into one of these; an op
pattern holds the list for its op name and calls `apply(op, ctx)` in file
order.  `apply` returns True when it changed the op, and records a problem in
the step context (instead of raising) when it cannot act.

Every action is idempotent on its own (applying a step twice changes nothing
the second time) except the two that remove positions, `DeleteInput` here and
`delete_value` on op pairs: after a removal the next operand has moved into
the same index, and nothing in the op says whether it was removed already.
pirc never applies a step twice (a step runs only on a program of the
version before it: docs/PATCHES.md), which is where Paddle needs idempotence.

Result attributes (`stop_gradient`, `persistable`) live in the op's attribute
dictionary in pirc, so the `*_output_attr` actions are the attribute actions
on those names; Paddle also looks both up in one namespace.
"""

from __future__ import annotations

from xdsl.dialects.builtin import ArrayAttr
from xdsl.ir import OpResult

from ..ir import attrs as A
from ..ir.ops import RESULT_ATTR_NAMES
from .paddle_kinds import convert_attr

# What a new result gets in an aligned result-attribute array.
_RESULT_ATTR_DEFAULTS = {"stop_gradient": True, "persistable": False}


class OpAction:
    """Base: `action` is the YAML action name, `source` its FILE:LINE."""

    action = ""

    def __init__(self, source: str = ""):
        self.source = source

    def describe(self) -> str:
        return self.action

    def apply(self, op, ctx) -> bool:  # pragma: no cover - abstract
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.describe()} @ {self.source}>"


class _Named(OpAction):
    def __init__(self, name: str, source: str = ""):
        super().__init__(source)
        self.name = name

    def describe(self) -> str:
        return f"{self.action} {self.name}"


# -- attributes ----------------------------------------------------------------------------


class AddAttr(_Named):
    """add_attr / add_output_attr: set the attribute only when the op lacks it (Paddle keeps
    the file's value too: its attribute map keeps the first of two equal names)."""

    def __init__(self, name: str, value, source: str = "", action: str = "add_attr"):
        super().__init__(name, source)
        self.value = value
        self.action = action

    def apply(self, op, ctx) -> bool:
        if self.name in op.attributes:
            return False
        op.attributes[self.name] = self.value
        return True


class _ConvertInPlace(_Named):
    """An attribute, when present, replaced by `convert(old)`; a conversion that
    cannot keep the value refuses the op."""

    def convert(self, old):
        raise NotImplementedError

    def apply(self, op, ctx) -> bool:
        old = op.attributes.get(self.name)
        if old is None:
            return False
        try:
            new = self.convert(old)
        except (ValueError, TypeError) as e:
            ctx.refuse(op, self, str(e))
            return False
        if new is old:
            return False
        op.attributes[self.name] = new
        return True


class ConvertAttr(_ConvertInPlace):
    """modify_attr with a scalar type and no data: same value, new kind."""

    def __init__(self, name: str, kind: str, source: str = "", action: str = "modify_attr"):
        super().__init__(name, source)
        self.kind = kind
        self.action = action

    def describe(self) -> str:
        return f"{self.action} {self.name} -> {self.kind}"

    def convert(self, old):
        return convert_attr(old, self.kind)


class RetypeArray(_ConvertInPlace):
    """modify_attr with an ArrayAttribute whose elements have types but no data: every
    element takes the new kind, values kept (Paddle takes the first listed element's type
    for all elements, whatever the array's length)."""

    def __init__(self, name: str, element_kind: str, source: str = "", action: str = "modify_attr"):
        super().__init__(name, source)
        self.element_kind = element_kind
        self.action = action

    def describe(self) -> str:
        return f"{self.action} {self.name} -> array<{self.element_kind}>"

    def convert(self, old):
        return retype_array(old, self.element_kind)


class SetAttr(_Named):
    """modify_attr with data: the attribute, when present, takes the patch's value.

    A Bool written onto a result-attribute array (`stop_gradient`, one Bool per result)
    sets every element: Paddle's own test patch writes `modify_output_attr stop_gradient
    type: pir::BoolAttribute` and its reader applies it to the parameter's one result.
    """

    def __init__(self, name: str, value, source: str = "", action: str = "modify_attr"):
        super().__init__(name, source)
        self.value = value
        self.action = action

    def apply(self, op, ctx) -> bool:
        old = op.attributes.get(self.name)
        if old is None:
            return False
        new = self.value
        if (self.name in RESULT_ATTR_NAMES and isinstance(old, ArrayAttr)
                and not isinstance(new, ArrayAttr) and A.attr_kind(new) == "bool"):
            new = A.array_attr((new,) * len(old.data))
        if new == old and A.attr_kind(new) == A.attr_kind(old):
            return False
        op.attributes[self.name] = new
        return True


class DeleteAttr(_Named):
    """delete_attr / delete_output_attr."""

    def __init__(self, name: str, source: str = "", action: str = "delete_attr"):
        super().__init__(name, source)
        self.action = action

    def apply(self, op, ctx) -> bool:
        if self.name not in op.attributes:
            return False
        del op.attributes[self.name]
        return True


class RenameAttr(_Named):
    """modify_attr_name / modify_output_attr_name: `name` -> `new_name`, value kept.

    Applies when the old name is present and the new one is not; both present is a
    conflict the step reports (the patch would overwrite a value)."""

    def __init__(self, name: str, new_name: str, source: str = "", action: str = "modify_attr_name"):
        super().__init__(name, source)
        self.new_name = new_name
        self.action = action

    def describe(self) -> str:
        return f"{self.action} {self.name} -> {self.new_name}"

    def apply(self, op, ctx) -> bool:
        if self.name not in op.attributes:
            return False
        if self.new_name in op.attributes:
            ctx.refuse(op, self, f"the op already has an attribute {self.new_name}")
            return False
        # Keep the dictionary's order: the renamed entry stays where it was.
        op.attributes = {(self.new_name if k == self.name else k): v for k, v in op.attributes.items()}
        return True


class DeleteAddedAttr(_Named):
    """Inverse of add_attr: remove the attribute when it holds the value the patch adds.

    Any other value is refused: the older version has no way to say it, and dropping it
    would make an old reader run the op with the default instead."""

    def __init__(self, name: str, added, source: str = "", action: str = "add_attr"):
        super().__init__(name, source)
        self.added = added
        self.action = action

    def describe(self) -> str:
        return f"undo {self.action} {self.name}"

    def apply(self, op, ctx) -> bool:
        value = op.attributes.get(self.name)
        if value is None:
            return False
        if not _same_value(value, self.added):
            ctx.refuse(op, self, f"{self.name} is {_show(value)}, not the default {_show(self.added)} "
                                 f"the patch adds; the older version cannot express it")
            return False
        del op.attributes[self.name]
        return True


# -- results, operands, name ------------------------------------------------------------------


class AddOutput(OpAction):
    """add_output: a new result of `type` at `index`, when the op has exactly `index`
    results (fewer than index+1; an op that has it already is left alone).  An op with
    fewer than `index` results cannot take it there: refused."""

    action = "add_output"

    def __init__(self, index: int, type_, source: str = ""):
        super().__init__(source)
        self.index = index
        self.type = type_

    def describe(self) -> str:
        return f"add_output {self.index}"

    def apply(self, op, ctx) -> bool:
        return add_result_once(op, self.index, self.type, ctx, self, "the op")


class RemoveOutput(OpAction):
    """Inverse of add_output: remove result `index` unless something uses it."""

    action = "add_output"

    def __init__(self, index: int, source: str = ""):
        super().__init__(source)
        self.index = index

    def describe(self) -> str:
        return f"undo add_output {self.index}"

    def apply(self, op, ctx) -> bool:
        if len(op.results) <= self.index:
            return False
        result = op.results[self.index]
        if result.first_use is not None:
            users = sorted({u.operation.name for u in result.uses})
            ctx.refuse(op, self, f"result {self.index} is used (by {', '.join(users)}); the older "
                                 f"version has no such result")
            return False
        remove_result(op, self.index)
        return True


class DeleteInput(OpAction):
    """delete_input: remove operand `index` (nothing, if the op has no such operand)."""

    action = "delete_input"

    def __init__(self, index: int, source: str = ""):
        super().__init__(source)
        self.index = index

    def describe(self) -> str:
        return f"delete_input {self.index}"

    def apply(self, op, ctx) -> bool:
        operands = list(op.operands)
        if len(operands) <= self.index:
            return False
        del operands[self.index]
        op.operands = operands
        return True


class SetOutputType(OpAction):
    """modify_output_type: result `index` takes `type` (uses see the new type)."""

    action = "modify_output_type"

    def __init__(self, index: int, type_, source: str = ""):
        super().__init__(source)
        self.index = index
        self.type = type_

    def describe(self) -> str:
        return f"modify_output_type {self.index}"

    def apply(self, op, ctx) -> bool:
        if len(op.results) <= self.index:
            ctx.refuse(op, self, f"the op has {len(op.results)} results, no result {self.index}")
            return False
        result = op.results[self.index]
        if result.type == self.type:
            return False
        result._type = self.type  # in place: every use sees the new type, as in Paddle
        return True


class RenameOp(OpAction):
    """modify_name: the op becomes `new_name` (its op class is set by the step runner)."""

    action = "modify_name"

    def __init__(self, new_name: str, source: str = ""):
        super().__init__(source)
        self.new_name = new_name

    def describe(self) -> str:
        return f"modify_name -> {self.new_name}"

    def apply(self, op, ctx) -> bool:
        if op.name == self.new_name:
            return False
        from ..ir.registry import generic_class
        # The class of the new name is settled per version by the step runner; until then
        # a generic class carries the name.
        op.__class__ = generic_class(self.new_name)
        return True


class Nothing(OpAction):
    """An inverse with nothing to undo (the action removed what the older version lacks too)."""

    def __init__(self, action: str, source: str = ""):
        super().__init__(source)
        self.action = action

    def apply(self, op, ctx) -> bool:
        return False


class Refuse(OpAction):
    """An action that cannot be undone: every op it would act on is reported."""

    def __init__(self, action: str, what: str, reason: str, source: str = "",
                 when=None):
        super().__init__(source)
        self.action = action
        self.what = what
        self.reason = reason
        self.when = when  # optional predicate: refuse only ops it holds for

    def describe(self) -> str:
        return f"{self.action} {self.what}".rstrip()

    def apply(self, op, ctx) -> bool:
        if self.when is None or self.when(op):
            ctx.refuse(op, self, self.reason)
        return False


# -- helpers -------------------------------------------------------------------------------


def retype_array(attr, element_kind: str):
    """An ArrayAttribute whose elements all become `element_kind`, values kept (the same
    object when nothing changes, so idempotence is visible as identity)."""
    if not isinstance(attr, ArrayAttr):
        raise ValueError(f"a {A.attr_kind(attr)} attribute is not an array, so its elements "
                         f"cannot become {element_kind}")
    new = tuple(convert_attr(e, element_kind) for e in attr.data)
    if all(a is b for a, b in zip(new, attr.data)):
        return attr
    return A.array_attr(new)


def add_result_once(op, index: int, type_, ctx, action, who: str) -> bool:
    """A new result at `index` unless the op has it already (a program in the new form);
    refused when results before it are missing. True when the op changed."""
    n = len(op.results)
    if n > index:
        return False
    if n < index:
        ctx.refuse(op, action, f"{who} has {n} results; a result at index {index} "
                               f"would leave a gap")
        return False
    insert_result(op, index, type_)
    return True


def insert_result(op, index: int, type_) -> OpResult:
    """Give `op` a new result at `index`; result-attribute arrays that had one entry per
    result get a default entry for it, so they stay aligned."""
    old = list(op.results)
    new = OpResult(type_, op, index)
    results = old[:index] + [new] + old[index:]
    for i, r in enumerate(results):
        r.index = i
    op.results = type(op.results)(results)
    for name, default in _RESULT_ATTR_DEFAULTS.items():
        flags = op.attributes.get(name)
        if isinstance(flags, ArrayAttr) and len(flags.data) == len(old):
            items = list(flags.data)
            items.insert(index, A.bool_attr(default))
            op.attributes[name] = A.array_attr(items)
    return new


def remove_result(op, index: int) -> None:
    """Remove result `index` of `op` (which has no uses), keeping result attributes aligned."""
    old = list(op.results)
    assert old[index].first_use is None
    results = old[:index] + old[index + 1:]
    for i, r in enumerate(results):
        r.index = i
    op.results = type(op.results)(results)
    for name in _RESULT_ATTR_DEFAULTS:
        flags = op.attributes.get(name)
        if isinstance(flags, ArrayAttr) and len(flags.data) == len(old):
            items = list(flags.data)
            del items[index]
            op.attributes[name] = A.array_attr(items)


def _same_value(a, b) -> bool:
    from ..ir.equality import attrs_equal
    return attrs_equal(a, b)


def _show(attr) -> str:
    from ..text.canonical_printer import canonical_attr_text
    try:
        return canonical_attr_text(attr)
    except Exception:  # a value the printer does not know: still say something
        return str(attr)
