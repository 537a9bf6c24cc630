"""Paddle's attribute actions of `op_patches`: add / modify / delete an attribute, rename one,
and their `*_output_attr` forms (result attributes such as `stop_gradient` live in the op's
attribute dictionary in pirc, so they are the same rewrites on those names).

Only the plain forms are checked against the op definitions and count as migrating a
definition change: the definitions hold no result attributes.
"""

from __future__ import annotations

from .. import paddle_kinds as PK
from ..action_values import attr_kind_of, new_name
from ..explain import describe_value
from ..op_actions import (
    AddAttr,
    ConvertAttr,
    DeleteAddedAttr,
    DeleteAttr,
    Nothing,
    Refuse,
    RenameAttr,
    RetypeArray,
    SetAttr,
)
from .registry import PatchAction, action

_ADDED = ("attr_added", "attr_now_required")


class _Attribute(PatchAction):
    section = "op_patches"
    object = "name"
    on_results = False  # the *_output_attr form

    def what(self) -> str:
        return "result attribute" if self.on_results else "attribute"


@action
class AddAttribute(_Attribute):
    """add_attr: sets the attribute when the op lacks it; undone when it still holds the
    value written."""

    name = "add_attr"
    type = "attr"
    data = "value"
    adds_attr = True

    def compile(self, c, op_name, a, src):
        return AddAttr(a.object, PK.make_attr(a.value), src, a.action)

    def invert(self, inv, op_name, a, forward):
        return DeleteAddedAttr(forward.name, forward.value, forward.source, a.action)

    def explain(self, op_name, a):
        return f"adds {self.what()} {a.object} = {describe_value(a.value)} when absent"

    def covers(self, change, op_name, a, scope):
        return change.kind in _ADDED and a.object == change.subject

    def attr_given(self, a):
        return a.value


@action
class ModifyAttribute(_Attribute):
    """modify_attr: a new value (with `data`) or a new kind, value kept (without); only the
    kind change can be undone, back to the older definition's kind."""

    name = "modify_attr"
    type = "attr"
    data = "optional_value"

    def compile(self, c, op_name, a, src):
        v = a.value
        kind = a.action
        element = v.element_type or PK.array_shorthand(v.type)
        if element and not v.has_data and not v.elements:
            return RetypeArray(a.object, attr_kind_of(element), src, kind)
        value_kind = attr_kind_of(v.type) if not PK.array_shorthand(v.type) else "array"
        if value_kind == "array":
            if v.elements and not v.elements[0].has_data:
                if any(e.has_data for e in v.elements):
                    raise ValueError("array elements must all carry data (a new value) or none "
                                     "(a new element kind, values kept)")
                return RetypeArray(a.object, attr_kind_of(v.elements[0].type), src, kind)
            if not v.elements and not v.has_data:
                raise ValueError(f"{v.type} without data or element types changes nothing")
            return SetAttr(a.object, PK.make_attr(v), src, kind)
        if v.has_data:
            return SetAttr(a.object, PK.make_attr(v), src, kind)
        return ConvertAttr(a.object, value_kind, src, kind)

    def invert(self, inv, op_name, a, forward):
        kind, src, name = a.action, forward.source, forward.name
        if not isinstance(forward, (ConvertAttr, RetypeArray)):
            return Refuse(kind, name, "the value before the patch is unknown", src,
                          when=_has_attr(name))
        old = inv.old_attr_kind(op_name, name)
        if old is None:
            return Refuse(kind, name, f"the kind {name} had before the patch is unknown (no op "
                                      f"definition of {op_name} at version {inv.old_version} "
                                      f"says it)", src, when=_has_attr(name))
        if isinstance(forward, ConvertAttr):
            if old.startswith("array"):
                return _refuse_kind(kind, name, op_name, old, inv.old_version, src)
            return ConvertAttr(name, old, src, kind)
        element = old[len("array<"):-1] if old.startswith("array<") else None
        if element is None:
            return _refuse_kind(kind, name, op_name, old, inv.old_version, src)
        return RetypeArray(name, element, src, kind)

    def explain(self, op_name, a):
        return f"{self.what()} {a.object} becomes {describe_value(a.value)}"

    def check(self, chk, reader, label, op_name, a, spec, counts, at):
        if (op_name, a.object) not in chk.added:
            chk.check_attribute(reader, label, spec, a, at, kind_change=True)

    def covers(self, change, op_name, a, scope):
        return change.kind == "attr_retyped" and a.object == change.subject

    def attr_given(self, a):
        return a.value


@action
class DeleteAttribute(_Attribute):
    """delete_attr: the attribute goes; a downgrade cannot bring the value back, unless the
    older definition has no such attribute either."""

    name = "delete_attr"

    def compile(self, c, op_name, a, src):
        return DeleteAttr(a.object, src, a.action)

    def invert(self, inv, op_name, a, forward):
        if inv.had_no_attr(op_name, forward.name):
            # The older version has no such attribute either (pirc's layer deletes one
            # that Paddle's patch adds against the definition): nothing to restore.
            return Nothing(a.action, forward.source)
        return Refuse(a.action, forward.name, "the deleted value is unknown", forward.source)

    def explain(self, op_name, a):
        return f"deletes {self.what()} {a.object}"

    def check(self, chk, reader, label, op_name, a, spec, counts, at):
        if (op_name, a.object) not in chk.added:
            chk.check_attribute(reader, label, spec, a, at)

    def covers(self, change, op_name, a, scope):
        return change.kind == "attr_removed" and a.object == change.subject

    def deletes_attr(self, a):
        return a.object


class _OnResults:
    """The `*_output_attr` form of an attribute action: the same rewrite on a result
    attribute, which no op definition holds (nothing to check, no change it migrates)."""

    on_results = True
    adds_attr = False

    def check(self, chk, reader, label, op_name, a, spec, counts, at):
        pass

    def covers(self, change, op_name, a, scope):
        return False

    def attr_given(self, a):
        return None

    def deletes_attr(self, a):
        return None


@action
class AddOutputAttribute(_OnResults, AddAttribute):
    name = "add_output_attr"


@action
class ModifyOutputAttribute(_OnResults, ModifyAttribute):
    name = "modify_output_attr"


@action
class DeleteOutputAttribute(_OnResults, DeleteAttribute):
    name = "delete_output_attr"


@action
class RenameAttribute(_Attribute):
    """modify_attr_name: the attribute takes the name in `data`; undone by the reverse rename."""

    name = "modify_attr_name"
    data = "attr_name"

    def compile(self, c, op_name, a, src):
        return RenameAttr(a.object, new_name(a), src, a.action)

    def invert(self, inv, op_name, a, forward):
        return RenameAttr(forward.new_name, forward.name, forward.source, a.action)

    def explain(self, op_name, a):
        return f"renames {self.what()} {a.object} to {a.new_name}"

    def check(self, chk, reader, label, op_name, a, spec, counts, at):
        if (op_name, a.object) not in chk.added:
            chk.check_attribute(reader, label, spec, a, at)

    def covers(self, change, op_name, a, scope):
        if change.kind == "attr_removed":
            return a.object == change.subject
        return change.kind in _ADDED and a.new_name == change.subject


@action
class RenameOutputAttribute(_OnResults, RenameAttribute):
    name = "modify_output_attr_name"


def _has_attr(name: str):
    return lambda op: name in op.attributes


def _refuse_kind(kind, name, op_name, old, version, src) -> Refuse:
    return Refuse(kind, name, f"{op_name}.{name} is {old} at version {version}; pirc cannot "
                              f"turn the patched value back into that", src, when=_has_attr(name))
