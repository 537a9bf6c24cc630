"""Patch files (`N.yaml`): read, validated strictly, turned into the model (folders: patch_sets.py).

Paddle's schema (docs/PATCHES.md): four top-level lists, `op_patches`, `op_pair_patches`,
`attr_patches`, `type_patches`; each entry names what it acts on and lists `actions`, each
`{action, object, type, data}` (`default` is Paddle's older name for `data`).  What each
action needs its class declares (pirc.versioning.actions: `object`, `type`, `data`).  Paddle ignores what it does not understand; pirc
reports every mistake with its file, line and action, and keeps reading to report them all.

When the step a file makes is known (it is named N.yaml, or the caller says), the ops it
names are also checked against the op specs of the version it upgrades from: attribute
names, operand and result indices, and whether a kind change can keep the old value.
"""

from __future__ import annotations

import difflib
import re
from pathlib import Path

from yaml.nodes import SequenceNode

from ..errors import ErrorList, PatchError
from . import paddle_kinds as K
from .located_yaml import Entry, LocatedYaml, describe, is_null, is_scalar, line_of
from .model import (
    Action,
    AttrKindPatch,
    AttrValue,
    OpPairPatch,
    OpPatch,
    PatchFile,
    TypeKindPatch,
)
from .policy import DEVELOP_VERSION
from . import layers
from . import policy as _policy
from .actions.registry import SECTIONS, PatchAction, accepted, lookup
from .spec_checks import SpecCheck, show_subject as _show_subject

UNKNOWN_VERSION = -1  # PatchFile.version of a file validated on its own, not named N.yaml
_NO_BASE = PatchFile("", UNKNOWN_VERSION)  # "a base file itself": look for no base of it

# The key naming what an entry acts on, per section.
SUBJECT_KEY = {"op_patches": "op_name", "op_pair_patches": "op_pair",
               "attr_patches": "attr_name", "type_patches": "type_name"}
DATA_KEYS = ("data", "default")


_OBJECT_HELP = {"name": "the attribute name", "index": "an index (0, 1, ...)",
                "pair": "[producer result index, consumer operand index]"}
_OP_NAME = re.compile(r"^[A-Za-z_]\w*\.[A-Za-z_][\w.]*$")
_ATTR_NAME = re.compile(r"^[A-Za-z_][\w.]*$")
_FILE_NAME = re.compile(r"^(0|[1-9][0-9]*)\.yaml$")


# -- entry points -----------------------------------------------------------------------------


def load_patch_file(path: str | Path, version: int | None = None,
                    release: int | None = None) -> PatchFile:
    """Read and validate one patch file; raises ErrorList of every PatchError found.

    `version` is the step the file makes (default: N of a file named N.yaml); `release`
    is its patch set's release version (for 0.yaml; default: pirc's own).
    """
    patch, errors = check_patch_file(path, version, release)
    if errors:
        raise ErrorList(errors)
    return patch


def check_patch_file(path: str | Path, version: int | None = None,
                     release: int | None = None,
                     base: PatchFile | None = None) -> tuple[PatchFile, list[PatchError]]:
    """Like load_patch_file, but returns the errors (and a best-effort PatchFile).

    `base`: the patch a layer file (pirc.versioning.layers) is merged over; attributes its
    `add_attr`s give an op count as the op's own when the layer's actions are checked."""
    path = Path(path)
    if version is None:
        version = version_of_file(path)
    if base is None:
        base = _base_of_layer_file(path, version, release)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        return PatchFile(str(path), version), [PatchError(f"not UTF-8 text (byte {e.start})", str(path))]
    except OSError as e:
        return PatchFile(str(path), version), [PatchError(f"cannot read: {e.strerror}", str(path))]
    return parse_patch_text(text, str(path), version, release, base)


def parse_patch_text(text: str, filename: str, version: int = UNKNOWN_VERSION,
                     release: int | None = None,
                     base: PatchFile | None = None) -> tuple[PatchFile, list[PatchError]]:
    doc = LocatedYaml(text, filename)
    reader = _FileReader(doc, version, _policy.RELEASE_VERSION if release is None else release)
    if base is not None and base is not _NO_BASE:
        reader.specs.added = {(e.op_name, a.object) for e in base.op_patches
                              for a in e.actions if lookup("op_patches", a.action).adds_attr}
    patch = reader.read()
    return patch, sorted(doc.errors, key=lambda e: (e.line, e.column))  # stable: file order


def _base_of_layer_file(path: Path, version: int, release: int | None) -> PatchFile | None:
    """For a layer file validated on its own (`pirc-patch validate patches/pirc/4.yaml`): the
    folder's own N.yaml it is merged over, so its actions are checked as they apply."""
    own = path.parent.parent / path.name
    if path.parent.name != layers.LAYER_DIR or version < 0 or not own.is_file():
        return None
    patch, _ = check_patch_file(own, version, release, base=_NO_BASE)
    return patch


def version_of_file(path: Path) -> int:
    m = _FILE_NAME.match(path.name)
    return int(m.group(1)) if m else UNKNOWN_VERSION


def version_before(version: int, release: int) -> int | None:
    """The PIR version a program has before patch `version` applies (None: not known).

    N.yaml upgrades N-1 to N; 0.yaml (develop) upgrades the release; 1.yaml, the first
    version, is checked against version 1 itself.
    """
    if version == DEVELOP_VERSION:
        return release
    if version >= 1:
        return max(version - 1, 1)
    return None


# -- reading one file -----------------------------------------------------------------------


class _FileReader:
    def __init__(self, doc: LocatedYaml, version: int, release: int):
        self.doc = doc
        self.version = version
        before = version_before(version, release) if version >= 0 else None
        after = release + 1 if version == DEVELOP_VERSION else version
        self.specs = SpecCheck.for_version(before, after)

    def error(self, at, message: str) -> None:
        self.doc.error(at, message)

    def read(self) -> PatchFile:
        doc = self.doc
        sections: dict[str, tuple] = {s: () for s in SECTIONS}
        root = doc.compose()
        if root is not None and not is_null(root):
            entries = doc.mapping(root, "a patch file")
            for e in entries or ():
                if e.key not in SECTIONS:
                    note = _UNIMPLEMENTED_SECTIONS.get(e.key) or _did_you_mean(e.key, SECTIONS)
                    self.error(e.key_node, f"unknown top-level key `{e.key}`{note}; "
                                           f"a patch file has {', '.join(SECTIONS)}")
                    continue
                if is_null(e.value):
                    continue  # `attr_patches:` with nothing under it: an empty list
                items = doc.sequence(e.value, f"`{e.key}`")
                sections[e.key] = tuple(self.section(e.key, items or ()))
        return PatchFile(path=doc.filename, version=self.version,
                         op_patches=sections["op_patches"], op_pair_patches=sections["op_pair_patches"],
                         attr_patches=sections["attr_patches"], type_patches=sections["type_patches"])

    def section(self, section: str, items) -> list:
        out = []
        seen: dict = {}
        for item in items:
            entry = self.entry(section, item)
            if entry is None:
                continue
            subject = _subject(entry)
            if subject in seen:
                self.error(entry.line, f"{_show_subject(subject)} already has an entry at line "
                                       f"{seen[subject]}: put all its actions in one entry "
                                       f"(Paddle keeps only one of them)")
                continue
            seen[subject] = entry.line
            out.append(entry)
        return out

    # -- entries ---------------------------------------------------------------------------

    def entry(self, section: str, node):
        subject_key = SUBJECT_KEY[section]
        what = f"an entry of `{section}`"
        entries = self.doc.mapping(node, what)
        if entries is None:
            return None
        keys = {e.key: e for e in entries}
        for e in entries:
            if e.key not in (subject_key, "actions"):
                self.error(e.key_node, f"{what}: unknown key `{e.key}`{_did_you_mean(e.key, (subject_key, 'actions'))}; "
                                       f"an entry has `{subject_key}` and `actions`")
        if subject_key not in keys:
            self.error(node, f"{what} needs `{subject_key}:` ({_SUBJECT_HELP[section]})")
            return None
        subject = self.subject(section, keys[subject_key].value)
        if subject is None:
            return None
        where = _show_subject(subject)
        if "actions" not in keys or is_null(keys["actions"].value):
            self.error(node, f"{where}: no `actions:` (an entry lists what changes)")
            return None
        action_nodes = self.doc.sequence(keys["actions"].value, f"{where}: `actions`")
        if action_nodes is None:
            return None
        if not action_nodes:
            self.error(keys["actions"].value, f"{where}: `actions` is empty")
        actions = []
        seen: dict = {}
        counts = self.specs.counts(section, subject)
        for action_node in action_nodes:
            action = self.action(section, subject, action_node)
            if action is None:
                continue
            key = (action.action, _hashable(action.object))
            if key in seen:
                self.error(action.line, f"{where}: {action.action}"
                                        f"{'' if action.object is None else ' ' + _show_object(action.object)}"
                                        f" already appears at line {seen[key]}")
                continue
            seen[key] = action.line
            if section == "type_patches" and action.object is not None:
                self.check_type_parameter(where, subject, action)
            self.specs.check_action(self, section, subject, action, counts)
            actions.append(action)
        line = line_of(node)
        if section == "op_patches":
            return OpPatch(subject, tuple(actions), line)
        if section == "op_pair_patches":
            return OpPairPatch(subject[0], subject[1], tuple(actions), line)
        if section == "attr_patches":
            return AttrKindPatch(subject, tuple(actions), line)
        return TypeKindPatch(subject, tuple(actions), line)

    def check_type_parameter(self, where: str, type_name: str, action: Action) -> None:
        if type_name == "pir::VectorType":
            return  # as many parameters as elements
        fields = K.CONTAINER_TYPES.get(type_name, ())
        limit = len(fields) if lookup("type_patches", action.action).adds_parameter else len(fields) - 1
        if action.object > limit:
            has = f"parameters {', '.join(fields)}" if fields else "no parameters"
            self.error(action.line, f"{where}: {action.action}: parameter index {action.object} "
                                    f"is out of range: {type_name} has {has}")

    def subject(self, section: str, node):
        if section == "op_patches":
            return self.op_name(node, "op_name")
        if section == "op_pair_patches":
            items = node.value if isinstance(node, SequenceNode) else None
            if items is None or len(items) != 2 or not all(is_scalar(n) for n in items):
                self.error(node, f"`op_pair` must be two op names, [producer, consumer], got {describe(node)}")
                return None
            names = [self.op_name(n, "op_pair") for n in items]
            return None if None in names else tuple(names)
        if section == "attr_patches":
            name = self.scalar_text(node, "attr_name")
            if name is None:
                return None
            if K.attribute_kind(name) is None:
                self.unknown_name(node, "attribute kind", name, K.ATTRIBUTE_KINDS)
                return None
            return name
        name = self.scalar_text(node, "type_name")
        if name is None:
            return None
        if not K.is_type_name(name):
            self.unknown_name(node, "type", name, K.TYPE_NAMES)
            return None
        return name

    def op_name(self, node, key: str) -> str | None:
        name = self.scalar_text(node, key)
        if name is None:
            return None
        if not _OP_NAME.match(name):
            hint = SpecCheck.ops_named(name)
            self.error(node, f"`{key}`: op name `{name}` has no dialect; write it as dialect.name"
                             + (f" (did you mean {', '.join(hint)}?)" if hint else " (pd_op.x, builtin.x, ...)"))
            return None
        unknown_hint = SpecCheck.unknown_op(name)
        if unknown_hint is not None:
            self.error(node, f"`{key}`: no version of the {name.split('.')[0]} dialect has an op `{name}`"
                             + (f" (did you mean {', '.join(unknown_hint)}?)" if unknown_hint else "")
                             + "; a new op needs its definition in dialects/ first")
            return None
        return name

    def scalar_text(self, node, key: str) -> str | None:
        if not is_scalar(node) or is_null(node) or not node.value.strip():
            self.error(node, f"`{key}` must be a name, got {describe(node)}")
            return None
        return node.value.strip()

    def unknown_name(self, node, what: str, name: str, known) -> None:
        close = K.close_names(name, known)
        hint = f" (did you mean {', '.join(close)}?)" if close else ""
        note = ""
        if "::" not in name and close and close[0].rsplit("::", 1)[-1] == name:
            note = "; Paddle's patch reader accepts only qualified names"
        self.error(node, f"unknown {what} `{name}`{hint}{note}")

    # -- actions ---------------------------------------------------------------------------

    def action(self, section: str, subject, node) -> Action | None:
        where = _show_subject(subject)
        entries = self.doc.mapping(node, f"{where}: an action")
        if entries is None:
            return None
        keys = {e.key: e for e in entries}
        rules = accepted(section)
        if "action" not in keys:
            self.error(node, f"{where}: an action needs `action:` (one of {', '.join(rules)})")
            return None
        name = self.scalar_text(keys["action"].value, "action")
        if name is None:
            return None
        at = keys["action"].value
        rule = rules.get(name)
        if rule is None:
            self.refuse(section, where, name, at)
            return None
        label = f"{where}: {name}"
        for e in entries:
            if e.key not in ("action", "object", "type") + DATA_KEYS:
                allowed = ["action"] + [k for k, on in (("object", rule.object), ("type", rule.type),
                                                        ("data", rule.data)) if on]
                self.error(e.key_node, f"{label}: unknown key `{e.key}`{_did_you_mean(e.key, allowed + ['default'])}; "
                                       f"{name} takes {', '.join(allowed)}")
        data_entry = self.data_entry(label, keys)
        obj = self.object(label, rule, keys.get("object"), node)
        if rule.object is not None and obj is None:
            return None
        line = line_of(node)
        if rule.type is None and "type" in keys:
            self.error(keys["type"].key_node, f"{label}: takes no `type`"
                       + (" (with a type, Paddle would modify the attribute instead of deleting it)"
                          if name.startswith("delete") and rule.object == "name" else ""))
        if rule.data is None and data_entry is not None:
            self.error(data_entry.key_node, f"{label}: takes no `{data_entry.key}`")
        if rule.type is not None and "type" not in keys:
            self.error(node, f"{label}: needs `type:` ({_TYPE_HELP[rule.type]})")
            return None
        type_node = keys["type"].value if "type" in keys else None
        if rule.type in ("attr", "attr_kind", "type", "type_kind"):
            type_name = self.scalar_text(type_node, "type")
            if type_name is None:
                return None
        if rule.type == "attr":
            value = self.attr_value(label, type_node, type_name, data_entry, rule.data == "value", line)
            if value is None:
                return None
            return Action(name, obj, value=value, line=line)
        if rule.type == "type":
            checked = self.type_value(label, type_node, type_name, data_entry, node)
            if checked is None:
                return None
            # An element type's data is only a note (Paddle's test patch names the replaced
            # type there): checked above, not kept.
            data = checked[1] if type_name in K.CONTAINER_TYPES else None
            return Action(name, obj, type_name=type_name, type_data=data, line=line)
        if rule.type == "attr_kind":
            return self.kind_rename(name, label, subject, type_node, type_name, line, attrs=True)
        if rule.type == "type_kind":
            return self.kind_rename(name, label, subject, type_node, type_name, line, attrs=False)
        if rule.data in ("attr_name", "op_name"):
            if data_entry is None:
                self.error(node, f"{label}: needs the new name in `data:`")
                return None
            new = self.scalar_text(data_entry.value, data_entry.key)
            if new is None:
                return None
            if rule.data == "op_name":
                new = self.op_name(data_entry.value, data_entry.key)
                if new is None:
                    return None
                if new == subject:
                    self.error(data_entry.value, f"{label}: renames the op to its own name")
            elif not _ATTR_NAME.match(new):
                self.error(data_entry.value, f"{label}: `{new}` is not an attribute name")
                return None
            elif new == obj:
                self.error(data_entry.value, f"{label}: renames `{obj}` to itself")
            return Action(name, obj, new_name=new, line=line)
        if rule.data == "index":
            if data_entry is None:
                self.error(node, f"{label}: needs the operand index in `data:`")
                return None
            value = self.doc.value(data_entry.value) if is_scalar(data_entry.value) else None
            if type(value) is not int or value < 0:
                self.error(data_entry.value, f"{label}: `{data_entry.key}` must be an operand "
                                             f"index (0, 1, ...), got {describe(data_entry.value)}")
                return None
            return Action(name, obj, index=value, line=line)
        return Action(name, obj, line=line)

    def refuse(self, section: str, where: str, name: str, at) -> None:
        known = lookup(section, name)
        if known is not None and known.refused:
            self.error(at, f"{where}: {name}: {known.refused}")
            return
        here = accepted(section)
        elsewhere = [s for s in SECTIONS if name in accepted(s)]
        if elsewhere:
            self.error(at, f"{where}: `{name}` is not an action of {section}; it belongs in "
                           f"{' or '.join(elsewhere)} (here: {', '.join(here)})")
            return
        self.error(at, f"{where}: unknown action `{name}`{_did_you_mean(name, here)}; "
                       f"{section} actions are {', '.join(here)}")

    def data_entry(self, label: str, keys: dict[str, Entry]) -> Entry | None:
        if "data" in keys and "default" in keys:
            self.error(keys["default"].key_node, f"{label}: both `data` and `default` (the older name "
                                                 f"of `data`); keep one")
        return keys.get("data") or keys.get("default")

    def object(self, label: str, rule: PatchAction, entry: Entry | None, node):
        if rule.object is None:
            if entry is not None:
                self.error(entry.key_node, f"{label}: takes no `object`")
            return None
        if entry is None:
            self.error(node, f"{label}: needs `object:` ({_OBJECT_HELP[rule.object]})")
            return None
        value_node = entry.value
        if rule.object == "name":
            text = self.scalar_text(value_node, "object")
            if text is not None and not _ATTR_NAME.match(text):
                self.error(value_node, f"{label}: `object` must be an attribute name, got `{text}`")
                return None
            return text
        if rule.object == "index":
            value = self.doc.value(value_node) if is_scalar(value_node) else None
            if type(value) is not int or value < 0:
                self.error(value_node, f"{label}: `object` must be an index (0, 1, ...), got {describe(value_node)}")
                return None
            return value
        value = self.doc.value(value_node)
        if (not isinstance(value, list) or len(value) != 2
                or not all(type(v) is int and v >= 0 for v in value)):
            self.error(value_node, f"{label}: `object` must be two indices, [producer result, "
                                   f"consumer operand], got {describe(value_node) if is_scalar(value_node) else value}")
            return None
        return (value[0], value[1])

    def attr_value(self, label: str, type_node, type_name: str, data_entry: Entry | None,
                   required: bool, line: int) -> AttrValue | None:
        """The attribute `type:` + `data:` describe (arrays: element by element)."""
        element_type = K.array_shorthand(type_name)
        if element_type is not None:
            if K.attribute_kind(element_type) in (None, "array"):
                self.unknown_name(type_node, "array element kind", element_type,
                                  [k for k in K.ATTRIBUTE_KINDS if k != K.ARRAY])
                return None
            type_name = K.ARRAY
        elif K.attribute_kind(type_name) is None:
            self.unknown_name(type_node, "attribute kind", type_name, K.ATTRIBUTE_KINDS)
            return None
        kind = K.attribute_kind(type_name)
        if data_entry is None or is_null(data_entry.value):
            if required:
                self.error(data_entry.value if data_entry else line,
                           f"{label}: needs `data:` (the {K.short_name(type_name)} value it writes)")
                return None
            return AttrValue(type_name, element_type=element_type, line=line)
        node = data_entry.value
        if kind == "array":
            elements = self.array_elements(label, node, element_type, required)
            if elements is None:
                return None
            return AttrValue(type_name, None, True, elements, element_type, line_of(node))
        data = self.scalar_data(label, kind, type_name, node)
        if data is _BAD:
            return None
        return AttrValue(type_name, data, True, line=line_of(node))

    def scalar_data(self, label: str, kind: str, type_name: str, node):
        try:
            return K.attr_data(kind, self.doc.value(node), node.value if is_scalar(node) else None)
        except ValueError as e:
            self.error(node, f"{label}: `data` does not fit {type_name}: {e}")
            return _BAD

    def array_elements(self, label: str, node, element_type: str | None, required: bool):
        items = self.doc.sequence(node, f"{label}: `data` of an array")
        if items is None:
            return None
        if element_type is not None:
            # pirc extension: `ArrayAttribute<X>` with plain values, `data: [1.5, 2.0]`.
            kind = K.attribute_kind(element_type)
            out = []
            for item in items:
                data = self.scalar_data(label, kind, element_type, item)
                if data is _BAD:
                    return None
                out.append(AttrValue(element_type, data, True, line=line_of(item)))
            return tuple(out)
        out = []
        for i, item in enumerate(items):
            entries = self.doc.mapping(item, f"{label}: array element {i}")
            if entries is None:
                return None
            keys = {e.key: e for e in entries}
            for e in entries:
                if e.key not in ("type",) + DATA_KEYS:
                    self.error(e.key_node, f"{label}: array element {i}: unknown key `{e.key}`; "
                                           f"an element has `type` and `data`")
            if "type" not in keys:
                self.error(item, f"{label}: array element {i} needs `type:`")
                return None
            type_node = keys["type"].value
            name = self.scalar_text(type_node, "type")
            if name is None:
                return None
            value = self.attr_value(f"{label}: array element {i}", type_node, name,
                                    self.data_entry(label, keys), False, line_of(item))
            if value is None:
                return None
            out.append(value)
        with_data = [e.has_data for e in out]
        if any(with_data) and not all(with_data):
            self.error(node, f"{label}: either every array element has `data` (a new array) or "
                             f"none has (retype the existing elements, values kept)")
            return None
        if out and not any(with_data):
            kinds = {e.type for e in out}
            if len(kinds) > 1:
                self.error(node, f"{label}: array elements without `data` retype every existing "
                                 f"element to one kind, but they name {', '.join(sorted(kinds))} "
                                 f"(Paddle would use the first for all)")
                return None
            if out[0].type == K.ARRAY:
                self.error(node, f"{label}: nested arrays cannot be retyped element by element")
                return None
        return tuple(out)

    def type_value(self, label: str, type_node, type_name: str, data_entry: Entry | None, node):
        if not K.is_type_name(type_name):
            self.unknown_name(type_node, "type", type_name, K.TYPE_NAMES)
            return None
        raw = None if data_entry is None or is_null(data_entry.value) else self.doc.value(data_entry.value)
        if raw is None and type_name in K.CONTAINER_TYPES:
            self.error(node, f"{label}: needs `data:` for {type_name} "
                             f"({', '.join(K.CONTAINER_TYPES[type_name]) or 'its element types'})")
            return None
        try:
            return type_name, K.type_data(type_name, raw)
        except ValueError as e:
            self.error(data_entry.value, f"{label}: `data` does not fit {type_name}: {e}")
            return None

    def kind_rename(self, name: str, label: str, subject: str, type_node, new: str, line: int, attrs: bool):
        if attrs:
            if K.attribute_kind(new) is None:
                self.unknown_name(type_node, "attribute kind", new, K.ATTRIBUTE_KINDS)
                return None
            old_kind, new_kind = K.attribute_kind(subject), K.attribute_kind(new)
            if not K.can_convert(old_kind, new_kind):
                self.error(type_node, f"{label}: a {K.short_name(subject)} attribute cannot become "
                                      f"{K.short_name(new)} keeping its value; change such attributes "
                                      f"op by op with modify_attr and `data`")
                return None
        else:
            if not K.is_type_name(new):
                self.unknown_name(type_node, "type", new, K.TYPE_NAMES)
                return None
            if (subject in K.ELEMENT_TYPES) != (new in K.ELEMENT_TYPES) or (
                    subject in K.CONTAINER_TYPES and K.CONTAINER_TYPES[subject] != K.CONTAINER_TYPES[new]):
                self.error(type_node, f"{label}: {subject} cannot be renamed to {new}: a rename "
                                      f"keeps the type's parameters, so both must have the same shape")
                return None
        if new == subject:
            self.error(type_node, f"{label}: renames {subject} to itself")
        # new_name holds the new kind; it is also given as the value (attributes) or the
        # type (types) the action writes, for code that reads those fields.
        if attrs:
            return Action(name, value=AttrValue(new, line=line), new_name=new, line=line)
        return Action(name, type_name=new, new_name=new, line=line)


_BAD = object()

# Sections Paddle's files have held that no Paddle version reads (it skips them silently).
_UNIMPLEMENTED_SECTIONS = {
    "dialect_patches": " (in an early Paddle test patch, but no Paddle version implements it)",
}

_SUBJECT_HELP = {"op_patches": "the op it changes, e.g. pd_op.pool2d",
                 "op_pair_patches": "[producer op, consumer op]",
                 "attr_patches": "an attribute kind, e.g. pir::FloatAttribute",
                 "type_patches": "a type, e.g. pir::Float32Type"}
_TYPE_HELP = {"attr": "an attribute kind, e.g. pir::Int64Attribute",
              "type": "a type, e.g. pir::DenseTensorType or pir::Float64Type",
              "attr_kind": "the new attribute kind, e.g. pir::DoubleAttribute",
              "type_kind": "the new type, e.g. pir::Float64Type"}


def _did_you_mean(name: str, known) -> str:
    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.8)
    return f" (did you mean `{close[0]}`?)" if close else ""


def _subject(entry):
    if isinstance(entry, OpPatch):
        return entry.op_name
    if isinstance(entry, OpPairPatch):
        return (entry.producer, entry.consumer)
    if isinstance(entry, AttrKindPatch):
        return entry.attr_type
    return entry.type_name


def _show_object(obj) -> str:
    return f"[{obj[0]}, {obj[1]}]" if isinstance(obj, tuple) else str(obj)


def _hashable(obj):
    return tuple(obj) if isinstance(obj, list) else obj
