"""What a patch does, in words: one line per action (`pirc-patch explain`).

    pd_op.pool2d: attribute strides becomes an array of Int64 (values kept)
    pd_op.repeat_interleave: adds attribute output_size = -1 (Int64) when absent
"""

from __future__ import annotations

import json
from pathlib import Path

from ..ir.paddle_names import place_text
from . import paddle_kinds as K
from .model import Action, AttrValue, PatchFile
from .policy import DEVELOP_VERSION, POLICY, VersionPolicy


def explain_patch(patch: PatchFile, policy: VersionPolicy | None = None) -> list[str]:
    """The header line of a patch file, then one line per action, in file order."""
    policy = policy or POLICY
    lines = [f"{patch.path}: {_step(patch.version, policy)}"]
    for entry in patch.op_patches:
        lines += [f"{entry.op_name}: {_op_action(a)}{_layer(patch, a)}" for a in entry.actions]
    for entry in patch.op_pair_patches:
        lines += [f"[{entry.producer}, {entry.consumer}]: "
                  f"{_pair_action(entry.producer, entry.consumer, a)}{_layer(patch, a)}"
                  for a in entry.actions]
    for entry in patch.attr_patches:
        lines += [f"{entry.attr_type}: {_attr_kind_action(entry.attr_type, a)}{_layer(patch, a)}"
                  for a in entry.actions]
    for entry in patch.type_patches:
        lines += [f"{entry.type_name}: {_type_kind_action(entry.type_name, a)}{_layer(patch, a)}"
                  for a in entry.actions]
    if patch.is_empty():
        lines.append("  no changes")
    return lines


def _layer(patch: PatchFile, a: Action) -> str:
    """Where an action merged from the folder's layer (pirc.versioning.layers) comes from."""
    if not a.path or a.path == patch.path:
        return ""
    path = Path(a.path)
    return f"  [{path.parent.name}/{path.name}:{a.line}]"


def _step(version: int, policy: VersionPolicy) -> str:
    if version == DEVELOP_VERSION:
        return (f"unreleased changes: a develop build (version 0) applies them after "
                f"{policy.release}.yaml")
    if version < 0:
        return "patch (not named N.yaml, so the version step it makes is not known)"
    if version == 1:
        return ("makes PIR version 1" + _paddle(policy, 1) + ", the first release: no older "
                "version exists, so upgrades never apply it")
    before, after = policy.paddle_release(version - 1), policy.paddle_release(version)
    paddle = f" (Paddle {before} -> {after})" if before and after else ""
    return f"upgrades PIR version {version - 1} to {version}{paddle}"


def _paddle(policy: VersionPolicy, version: int) -> str:
    release = policy.paddle_release(version)
    return f" (Paddle {release})" if release else ""


def describe_value(value: AttrValue) -> str:
    """`-1 (Int64)`, `Double (value kept)`, `an array of Int64 (values kept)`."""
    if value.type == K.ARRAY:
        elements = value.elements or ()
        if elements and elements[0].has_data:
            kinds = {e.type for e in elements}
            if len(kinds) == 1:
                items = ", ".join(_data_text(e.data) for e in elements)
                return f"[{items}] (array of {K.short_name(elements[0].type)})"
            return "[" + ", ".join(describe_value(e) for e in elements) + "] (array)"
        element = value.element_type or (elements[0].type if elements else None)
        if element is not None and not (value.has_data and value.element_type and not elements
                                        and value.elements is not None):
            return f"an array of {K.short_name(element)} (values kept)"
        return "[] (array)" if value.has_data else "an array (value kept)"
    if value.has_data:
        if K.attribute_kind(value.type) == "place":
            return f"{place_text(*value.data)} (Place)"
        return f"{_data_text(value.data)} ({K.short_name(value.type)})"
    return f"{K.short_name(value.type)} (value kept)"


def _data_text(data) -> str:
    if isinstance(data, bool):
        return "true" if data else "false"
    if isinstance(data, str):
        return json.dumps(data)
    if isinstance(data, tuple):
        return "[" + ", ".join(_data_text(d) for d in data) + "]"
    return repr(data)


def _op_action(a: Action) -> str:
    name = a.action
    attribute = "result attribute" if "output_attr" in name else "attribute"
    if name in ("add_attr", "add_output_attr"):
        return f"adds {attribute} {a.object} = {describe_value(a.value)} when absent"
    if name in ("modify_attr", "modify_output_attr"):
        return f"{attribute} {a.object} becomes {describe_value(a.value)}"
    if name in ("delete_attr", "delete_output_attr"):
        return f"deletes {attribute} {a.object}"
    if name in ("modify_attr_name", "modify_output_attr_name"):
        return f"renames {attribute} {a.object} to {a.new_name}"
    if name == "add_output":
        return f"adds result #{a.object} of type {K.type_text(a.type_name, a.type_data)}"
    if name == "delete_input":
        return f"removes operand #{a.object}"
    if name == "modify_output_type":
        return f"result #{a.object} becomes {K.type_text(a.type_name, a.type_data)}"
    if name == "modify_name":
        return f"is renamed to {a.new_name}"
    if name == "attr_to_input":
        return (f"attribute {a.object} becomes operand #{a.index}, made by a one-element "
                f"pd_op.full holding its value")
    if name == "add_null_input":
        return f"takes <<NULL VALUE>> as a new optional operand #{a.object} (old form only)"
    return name  # pragma: no cover - schema admits no other op action


def _pair_action(producer: str, consumer: str, a: Action) -> str:
    out_index, in_index = a.object
    if a.action == "add_value":
        return (f"adds a value of type {K.type_text(a.type_name, a.type_data)} from result "
                f"#{out_index} of {producer} to operand #{in_index} of {consumer}")
    return f"removes the value from result #{out_index} of {producer} to operand #{in_index} of {consumer}"


def _attr_kind_action(kind: str, a: Action) -> str:
    return (f"every {K.short_name(kind)} attribute becomes {K.short_name(a.new_name)} "
            f"(values kept)")


def _type_kind_action(type_name: str, a: Action) -> str:
    if a.action == "modify_name":
        return f"every {K.type_text(type_name)} type becomes {K.type_text(a.new_name)}"
    if a.action == "add_type_attr":
        return f"adds parameter #{a.object} = {describe_value(a.value)}"
    return f"removes parameter #{a.object}"
