"""What the fields of a validated action build, for the action classes' `compile` and
`invert` (pirc.versioning.actions): attribute kinds, types, rename targets, and the
TypeKindRename of a type kind."""

from __future__ import annotations

from . import paddle_kinds as PK
from .kind_actions import TypeKindRename
from .model import Action

_CONTAINER_CLASSES = {
    "pir::DenseTensorType": "DenseTensorType",
    "paddle::dialect::SelectedRowsType": "SelectedRowsType",
}


def type_rename(old: str, new: str | None, src: str = "") -> TypeKindRename:
    """A TypeKindRename from C++ type `old` to `new` (None: a probe that only detects `old`)."""
    from ..ir import types as T
    label = f"{old} -> {new}" if new else old
    if old in PK.ELEMENT_TYPES:
        to = PK.make_type(new) if new else T.NULL_TYPE
        if new and new not in PK.ELEMENT_TYPES:
            raise ValueError(f"an element type ({old}) can only become another element type, not {new}")
        return TypeKindRename(element_from=PK.make_type(old), element_to=to, source=src, label=label)
    if old in _CONTAINER_CLASSES:
        if new and new not in _CONTAINER_CLASSES:
            raise ValueError(f"{old} can only become {' or '.join(_CONTAINER_CLASSES)} "
                             f"(same parameters), not {new}")
        to = getattr(T, _CONTAINER_CLASSES[new]) if new else _NoSuchContainer
        return TypeKindRename(container_from=getattr(T, _CONTAINER_CLASSES[old]), container_to=to,
                              source=src, label=label)
    raise ValueError(f"pirc renames element types and {' / '.join(_CONTAINER_CLASSES)}, not {old}")


class _NoSuchContainer:
    """Target of a detection-only container rename: never built, since only `is` is compared."""

    def __new__(cls, *args):
        return object.__new__(cls)


def attr_kind_of(cpp_name: str) -> str:
    """The kind (`int64`, `array`) of a C++ attribute class name; ValueError if unknown."""
    if PK.array_shorthand(cpp_name):
        return "array"
    kind = PK.attribute_kind(cpp_name)
    if kind is None:
        raise ValueError(f"unknown attribute kind {cpp_name}")
    return kind


def type_of(a: Action):
    """The type an action's `type:` and `data:` name, built."""
    if not a.type_name:
        raise ValueError("needs `type:` (the type of the value)")
    return PK.make_type(a.type_name, a.type_data)


def new_name(a: Action) -> str:
    """A rename's new name (`data:`)."""
    if a.new_name:
        return a.new_name
    if a.value is not None and a.value.has_data and isinstance(a.value.data, str):
        return a.value.data
    raise ValueError("needs the new name (`data:`)")


def rename_target(a: Action) -> str:
    """A kind rename's new kind (`type:`)."""
    for candidate in (a.new_name, a.type_name, a.value.type if a.value is not None else None):
        if candidate:
            return candidate
    raise ValueError("needs the new kind (`type:`)")
