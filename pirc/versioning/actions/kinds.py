"""Paddle's kind actions: `attr_patches` and `type_patches` act on every attribute or type of
a kind, in every op.  A rename keeps values and parameters; a downgrade cannot tell which of
the new kind's values were the old kind, so it refuses ops holding the new kind."""

from __future__ import annotations

from .. import paddle_kinds as PK
from ..action_values import attr_kind_of, rename_target, type_rename
from ..covered import action_kind, renamed_kind
from ..kind_actions import (
    AttrKindPresent,
    AttrKindRename,
    TypeKindPresent,
    op_holds_attr_kind,
    op_holds_type,
)
from ..op_actions import Refuse
from .registry import PatchAction, action


class _AttrKind(PatchAction):
    section = "attr_patches"

    def invert(self, inv, attr_type, a, forward):
        new_type = a.new_name or a.type_name
        new_kind = PK.attribute_kind(new_type) if new_type else None
        return Refuse(f"attr_patches {a.action}", f"{attr_type} -> {new_type}",
                      f"it holds {new_type} attributes, and pirc cannot tell which of them were "
                      f"{attr_type} before the patch", inv.source(a),
                      when=(lambda op, k=new_kind: op_holds_attr_kind(op, k)) if new_kind else None)


@action
class AttrKindRenameAction(_AttrKind):
    """attr_patches modify_name: every attribute of the kind becomes the kind in `type`."""

    name = "modify_name"
    type = "attr_kind"

    def compile(self, c, attr_type, a, src):
        old = attr_kind_of(attr_type)
        new_type = rename_target(a)
        return AttrKindRename(old, attr_kind_of(new_type), src, f"{attr_type} -> {new_type}")

    def explain(self, attr_type, a):
        return (f"every {PK.short_name(attr_type)} attribute becomes {PK.short_name(a.new_name)} "
                f"(values kept)")

    def covers(self, change, attr_type, a, scope):
        if change.kind != "attr_retyped" or a.value is None:
            return False
        renames = {PK.attribute_kind(attr_type): action_kind(a.value)}
        return renamed_kind(change.old, renames) == change.new


@action
class AttrKindDelete(_AttrKind):
    name = "delete_attr"
    refused = ("deleting an attribute kind leaves its attributes with no kind (Paddle's loader "
               "then fails with 'Unknown id'): rename the kind with modify_name, or delete the "
               "attributes op by op with op_patches delete_attr")

    def compile(self, c, attr_type, a, src):
        return AttrKindPresent(attr_kind_of(attr_type), f"{attr_type} no longer exists after this patch "
                                                 f"(Paddle fails to load such a file)", src, attr_type)


class _TypeKind(PatchAction):
    section = "type_patches"

    def invert(self, inv, type_name, a, forward):
        new_type = a.new_name or a.type_name
        probe = None
        try:
            probe = type_rename(new_type, None, inv.source(a)) if new_type else None
        except ValueError:
            pass
        return Refuse(f"type_patches {a.action}", f"{type_name} -> {new_type}",
                      f"it holds {new_type} types, and pirc cannot tell which of them were "
                      f"{type_name} before the patch", inv.source(a),
                      when=(lambda op, p=probe: op_holds_type(op, p)) if probe else None)


@action
class TypeKindRenameAction(_TypeKind):
    """type_patches modify_name: every type of the kind becomes the type in `type`."""

    name = "modify_name"
    type = "type_kind"

    def compile(self, c, type_name, a, src):
        return type_rename(type_name, rename_target(a), src)

    def explain(self, type_name, a):
        return f"every {PK.type_text(type_name)} type becomes {PK.type_text(a.new_name)}"


class _TypeParameter(_TypeKind):
    object = "index"

    def compile(self, c, type_name, a, src):
        raise ValueError(
            "not supported: Paddle never implemented it (its patch reader ignores it), "
            "and a DenseTensorType has exactly dtype, dims, layout, lod and offset; "
            "change a tensor's layout, lod or offset with modify_output_type instead")


@action
class AddTypeParameter(_TypeParameter):
    """add_type_attr: in Paddle's vocabulary, never implemented by it; validated, not compiled."""

    name = "add_type_attr"
    type = "attr"
    data = "value"
    adds_parameter = True

    def explain(self, type_name, a):
        from ..explain import describe_value
        return f"adds parameter #{a.object} = {describe_value(a.value)}"


@action
class DeleteTypeParameter(_TypeParameter):
    """delete_type_attr: like add_type_attr, validated, not compiled."""

    name = "delete_type_attr"

    def explain(self, type_name, a):
        return f"removes parameter #{a.object}"


@action
class TypeKindDelete(_TypeKind):
    name = "delete_type"
    refused = ("deleting a type kind leaves values with no type (Paddle's loader then fails with "
               "'Unknown id'): rename the kind with modify_name")

    def compile(self, c, type_name, a, src):
        probe = type_rename(type_name, None, src)
        return TypeKindPresent(probe, f"{type_name} no longer exists after this patch "
                                      f"(Paddle fails to load such a file)", src, type_name)
