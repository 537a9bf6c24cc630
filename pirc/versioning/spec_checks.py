"""Checks of an op patch against the op specs of the version it upgrades from.

Used by pirc.versioning.schema when the step a patch makes is known: attribute names,
operand and result indices (counted as an entry's actions apply), and whether a
value-keeping kind change can convert the old kind.
"""

from __future__ import annotations

import difflib

from . import paddle_kinds as K
from .model import Action

# Dialects whose ops pirc has specs for: a name no version of them knows is a mistake.
SPEC_DIALECTS = ("pd_op", "builtin", "cf")


def show_subject(subject) -> str:
    """An entry's subject for messages: `pd_op.pool2d`, `[pd_op.full, pd_op.scale]`."""
    return f"[{subject[0]}, {subject[1]}]" if isinstance(subject, tuple) else subject


class SpecCheck:
    """Checks an op patch against the op specs of the version it upgrades from.

    Only ops a spec knows at that version are checked: test dialects, onednn_op and
    ops new at this step pass unchecked (the structure checks still apply).
    """

    def __init__(self, version: int | None, after: int | None = None):
        self.version = version
        self.after = after  # the version the patch produces (spec_after)
        # (op, attribute) pairs a layer's base patch adds (pirc.versioning.layers)
        self.added: set[tuple[str, str]] = set()

    @classmethod
    def for_version(cls, version: int | None, after: int | None = None) -> "SpecCheck":
        from ..ir.program import KNOWN_VERSIONS
        if version not in KNOWN_VERSIONS:
            return cls(None)
        return cls(version, after if after is not None and after > version else None)

    @staticmethod
    def ops_named(short: str) -> list[str]:
        from ..ir import specs
        return sorted(n for n in specs.all_op_names() if n.split(".", 1)[1] == short)[:3]

    @staticmethod
    def unknown_op(name: str) -> list[str] | None:
        """None if the op is known or its dialect has no specs; else close names (maybe [])."""
        from ..ir import specs
        if name.split(".", 1)[0] not in SPEC_DIALECTS:
            return None
        known = specs.all_op_names()
        if name in known:
            return None
        return difflib.get_close_matches(name, sorted(known), n=3, cutoff=0.8)

    def spec(self, op: str):
        if self.version is None:
            return None
        from ..ir import specs
        return specs.get_spec(op, self.version)

    def counts(self, section: str, subject) -> dict:
        """Operand / result counts the entry's actions change as they go (None: variadic/unknown)."""
        ops = subject if section == "op_pair_patches" else (subject,) if section == "op_patches" else ()
        out = {}
        for op in ops:
            spec = self.spec(op)
            if spec is None:
                out[op] = (None, None)
                continue
            out[op] = (None if spec.variadic_operands else len(spec.operands),
                       None if spec.variadic_results else len(spec.results))
        return out

    def check_action(self, reader, section: str, subject, action: Action, counts) -> None:
        """Check `action` through its class (pirc.versioning.actions): op actions only on
        ops a definition knows at this version."""
        if self.version is None or section not in ("op_patches", "op_pair_patches"):
            return
        from .actions.registry import lookup
        act = lookup(section, action.action)
        spec = None
        if section == "op_patches":
            spec = self.spec(subject)
            if spec is None:
                return
        act.check(self, reader, f"{show_subject(subject)}: {action.action}", subject, action,
                  spec, counts, f"at PIR version {self.version}")

    def spec_after(self, op: str):
        """The definition of `op` at the version the patch produces (None: not known)."""
        if self.after is None:
            return None
        from .defdiff import spec_at
        return spec_at(op, self.after)

    def new_operand_fits(self, reader, label: str, op: str, action: Action, index: int,
                         operands, at) -> bool:
        """A new operand goes at 0..count of an op with a fixed operand count; else an error."""
        if operands is None:
            reader.error(action.line, f"{label}: {op} has a variadic operand {at}; "
                                      f"{action.action} needs a fixed operand count")
            return False
        if index > operands:
            reader.error(action.line, f"{label}: operand index {index} is out of range: "
                                      f"{op} has {operands} operand(s) {at} (a new operand goes "
                                      f"at 0..count)")
            return False
        return True

    def check_attribute(self, reader, label: str, spec, action: Action, at: str,
                        kind_change: bool = False) -> None:
        """The attribute must be the op's at this version; with `kind_change` (a modify_attr
        without data), its kind must convert to the new one keeping the value."""
        from ..ir.specs import UNIVERSAL_ATTRIBUTES
        attr = spec.attribute(action.object) or UNIVERSAL_ATTRIBUTES.get(action.object)
        if attr is None:
            names = [a.name for a in spec.attributes]
            close = K.close_names(action.object, names)
            reader.error(action.line, f"{label}: {spec.name} has no attribute `{action.object}` {at}"
                                      + (f" (did you mean {', '.join(close)}?)" if close else
                                         f" (it has {', '.join(names) or 'none'})"))
            return
        value = action.value
        if not kind_change or value is None or value.has_data:
            return
        old = _spec_kind(attr.type)
        if old is None:
            return
        new = K.attribute_kind(value.type)
        if new == "array" and old[0] == "array" and old[1] is not None:
            target = value.element_type or (value.elements[0].type if value.elements else None)
            if target is not None and not K.can_convert(old[1], K.attribute_kind(target)):
                reader.error(action.line, f"{label}: the elements of `{action.object}` are {old[1]} "
                                          f"{at}; they cannot become {K.short_name(target)} keeping "
                                          f"their values: give the new array in `data`")
        elif not K.can_convert(old[0], new):
            reader.error(action.line, f"{label}: `{action.object}` is {old[0]} {at}; it cannot "
                                      f"become {K.short_name(value.type)} keeping its value: give "
                                      f"the new value in `data`")


def _spec_kind(spec_type: str) -> tuple[str, str | None] | None:
    """(kind, element kind) of a spec attribute type ("array<int32>"), None if not a plain kind."""
    if spec_type.startswith("array<") and spec_type.endswith(">"):
        inner = spec_type[6:-1]
        return ("array", inner if inner in K.ATTRIBUTE_BY_KIND else None)
    if spec_type in K.ATTRIBUTE_BY_KIND:
        return (spec_type, None)
    return None
