"""Op classes keyed by (op name, PIR version).

TODO(dialects): attach OpSpec from pirc.ir.specs; today every name maps to a
generic per-name class.
"""

from __future__ import annotations

from .ops import PirOp

_GENERIC: dict[str, type] = {}


def op_class(name: str, version: int) -> type:
    """The op class for `name` at PIR `version` (a generic class if no spec knows it)."""
    cls = _GENERIC.get(name)
    if cls is None:
        cls = type(_class_name(name), (PirOp,), {"name": name, "spec": None})
        _GENERIC[name] = cls
    return cls


def _class_name(name: str) -> str:
    return "".join(p.capitalize() for p in name.replace(".", "_").split("_")) + "Op"
