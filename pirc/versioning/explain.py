"""What a patch does, in words: one line per action (`pirc-patch explain`).

    pd_op.pool2d: attribute strides becomes an array of Int64 (values kept)
    pd_op.repeat_interleave: adds attribute output_size = -1 (Int64) when absent
"""

from __future__ import annotations

import json
from pathlib import Path

from ..ir.paddle_names import place_text
from . import paddle_kinds as K
from .actions.registry import lookup
from .model import Action, AttrValue, PatchFile
from .policy import DEVELOP_VERSION, POLICY, VersionPolicy


def explain_patch(patch: PatchFile, policy: VersionPolicy | None = None) -> list[str]:
    """The header line of a patch file, then one line per action, in file order."""
    policy = policy or POLICY
    lines = [f"{patch.path}: {_step(patch.version, policy)}"]
    for entry in patch.op_patches:
        lines += [f"{entry.op_name}: {_say('op_patches', entry.op_name, a)}{_layer(patch, a)}"
                  for a in entry.actions]
    for entry in patch.op_pair_patches:
        lines += [f"[{entry.producer}, {entry.consumer}]: "
                  f"{_say('op_pair_patches', (entry.producer, entry.consumer), a)}{_layer(patch, a)}"
                  for a in entry.actions]
    for entry in patch.attr_patches:
        lines += [f"{entry.attr_type}: {_say('attr_patches', entry.attr_type, a)}{_layer(patch, a)}"
                  for a in entry.actions]
    for entry in patch.type_patches:
        lines += [f"{entry.type_name}: {_say('type_patches', entry.type_name, a)}{_layer(patch, a)}"
                  for a in entry.actions]
    if patch.is_empty():
        lines.append("  no changes")
    return lines


def _say(section: str, subject, a: Action) -> str:
    """The action's own line (its class in pirc.versioning.actions)."""
    act = lookup(section, a.action)
    return act.explain(subject, a) if act is not None else a.action


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
