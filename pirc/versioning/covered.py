"""Which patch action makes up for a breaking definition change, and which release steps
the check looks at: what pirc.versioning.coverage measures and pirc.versioning.defcheck
reports.  Each action says what it covers (its class in pirc.versioning.actions)."""

from __future__ import annotations

from dataclasses import dataclass

from . import paddle_kinds as K
from .actions.registry import lookup
from .defdiff import DefChange
from .model import AttrValue, PatchFile


def steps(release: int, develop: bool) -> list[tuple[int, int, int]]:
    """(old version, new version, patch file number) for every step the check looks at."""
    out = [(n - 1, n, n) for n in range(2, release + 1)]
    if develop:
        out.append((release, release + 1, 0))
    return out


def action_kind(value: AttrValue | None) -> str | None:
    """The definition kind an action's attribute value gives (`array<int64>`, `double`)."""
    if value is None:
        return None
    inner = K.array_shorthand(value.type)
    if inner is not None:
        return f"array<{K.attribute_kind(inner)}>"
    kind = K.attribute_kind(value.type)
    if kind == "array":
        element = value.element_type or (value.elements[0].type if value.elements else None)
        return f"array<{K.attribute_kind(element)}>" if element else "array"
    return kind


def renamed_kind(kind: str, renames: dict[str, str]) -> str:
    """`kind` (an attribute kind of the definitions, "array<int32>") after kind renames."""
    if kind.startswith("array<"):
        return f"array<{renames.get(kind[6:-1], kind[6:-1])}>"
    return renames.get(kind, kind)


@dataclass(frozen=True)
class CoverScope:
    """What an action's `covers` may look at besides itself: the actions of the op's entry
    and the step's other breaking changes."""

    actions: tuple
    changes: tuple


def covered(c: DefChange, patch: PatchFile | None, changes: list[DefChange] = ()) -> bool:
    """Whether an action of `patch` makes up for the breaking change `c`; each action says
    what it covers (its class in pirc.versioning.actions): the actions of `c`'s op, every
    op-pair action and every kind action are asked."""
    if patch is None:
        return False
    actions = tuple(a for p in patch.op_patches if p.op_name == c.op for a in p.actions)
    scope = CoverScope(actions, tuple(changes))
    asked = [("op_patches", c.op, a) for a in actions]
    asked += [("op_pair_patches", (p.producer, p.consumer), a)
              for p in patch.op_pair_patches for a in p.actions]
    asked += [("attr_patches", p.attr_type, a) for p in patch.attr_patches for a in p.actions]
    for section, subject, a in asked:
        act = lookup(section, a.action)
        if act is not None and act.covers(c, subject, a, scope):
            return True
    return False  # operand_retyped, operand_now_required, regions_changed: nothing migrates them
