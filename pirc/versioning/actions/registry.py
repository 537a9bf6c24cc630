"""The action registry: `@action` on a class, and the modules of this package found by
scanning it, so that the schema reader, the compiler, downgrade, explain and check know no
action by name.

An action class holds, together, everything pirc does with one YAML action:

* its schema: `object`, `type` and `data` say which keys it takes and of what kind (the
  reader in pirc.versioning.schema validates them and reports `file:line` errors);
* `compile`: the rewrite it makes (an OpAction of op_actions / pair_actions /
  kind_actions, built once per patch);
* `invert`: the rewrite that undoes it for a downgrade, or a Refuse saying why none can;
* `explain`: its line in `pirc-patch explain`;
* `check` (against the op definitions of the version a patch upgrades from, for
  `pirc-patch validate`) and `covers` (which breaking definition change it migrates, for
  `pirc-patch check` and `coverage`).

Actions are listed (in messages: "op_patches actions are ...") Paddle's first, then
pirc's, each in module name order and, within a module, in the order they are defined.
"""

from __future__ import annotations

from ...errors import PircError
from ...module_scan import import_modules

SECTIONS = ("op_patches", "op_pair_patches", "attr_patches", "type_patches")

_ACTIONS: dict[tuple[str, str], "PatchAction"] = {}
_ORDER: dict[tuple[str, str], tuple] = {}
_scanned = False


class ActionRegistryError(PircError):
    """Two actions with one name in one section, or a declaration that cannot hold."""


class PatchAction:
    """Base of every patch action; see the module docstring for what a subclass declares.

    Schema, as class attributes:
      object: "name" (an attribute), "index" (operand / result / type parameter),
              "pair" ([producer result, consumer operand]) or None (takes none).
      type:   "attr" (an attribute kind and its value), "type" (a type), "attr_kind" /
              "type_kind" (the new kind of a kind rename) or None.
      data:   "value" (required, fits `type`), "optional_value", "type_data" (required for
              container types), "attr_name" / "op_name" (a rename's new name), "index" (an
              operand index) or None.
      refused: why pirc refuses an action Paddle's vocabulary has (None: accepted).
    """

    name = ""
    section = ""
    origin = "paddle"  # "paddle": Paddle's vocabulary; "pirc": pirc's extensions
    object: str | None = None
    type: str | None = None
    data: str | None = None
    refused: str | None = None
    # How many operands the action adds to an op (negative: removes), for the actions after
    # it in its entry that count operands.
    operand_delta = 0
    adds_attr = False  # an attribute the op then holds as its own (a layer's base adds it)
    adds_parameter = False  # type_patches: a new type parameter (index may be one past the end)

    # -- compile / invert / explain ---------------------------------------------------------

    def compile(self, c, subject, a, src: str):
        """The OpAction doing `a` on `subject`; `c` is the compiler (its patch, versions,
        `operands_before`).  A ValueError / TypeError / KeyError is reported at `a`'s line."""
        raise ValueError(f"not {'an' if self.section[0] in 'aeiou' else 'a'} {self.section} action")

    def invert(self, inv, subject, a, forward):
        """The OpAction undoing `a` (`forward`: what `compile` made; None for the kind
        sections); `inv` is the inverter (pirc.versioning.downgrade)."""
        from ..op_actions import Refuse
        return Refuse(a.action, "", "pirc has no inverse for this action", forward.source)

    def explain(self, subject, a) -> str:
        return a.action

    # -- checks against the op definitions ---------------------------------------------------

    def check(self, chk, reader, label: str, subject, a, spec, counts, at: str) -> None:
        """Report (reader.error) what contradicts the definitions of `chk.version`, moving
        `counts` (operand / result counts per op) as the action changes them."""

    def covers(self, change, subject, a, scope) -> bool:
        """Whether `a` migrates the breaking definition change `change` (pirc.versioning.
        covered.covered; `scope` holds the op's actions and the step's changes)."""
        return False

    def op_name_after(self, a, name: str) -> str:
        """The op's name after `a` (a rename's new name)."""
        return name

    def attr_given(self, a):
        """The AttrValue `a` gives its attribute, checked against the new definition (None:
        none)."""
        return None

    def deletes_attr(self, a) -> str | None:
        """The attribute `a` deletes from an op (None: none)."""
        return None


def action(cls):
    """Class decorator: register one instance of `cls` (a PatchAction) by section and name."""
    if not (isinstance(cls.name, str) and cls.name and cls.section in SECTIONS):
        raise ActionRegistryError(f"{cls.__qualname__}: an action declares `name = \"...\"` and "
                                  f"`section` (one of {', '.join(SECTIONS)})")
    key = (cls.section, cls.name)
    known = _ACTIONS.get(key)
    if known is not None and type(known).__qualname__ != cls.__qualname__:
        raise ActionRegistryError(f"two {cls.section} actions are named {cls.name!r}: "
                                  f"{type(known).__module__}.{type(known).__qualname__} and "
                                  f"{cls.__module__}.{cls.__qualname__}")
    _ACTIONS[key] = cls()
    _ORDER[key] = (cls.origin != "paddle", cls.__module__, len(_ORDER))
    return cls


def _scan() -> None:
    global _scanned
    if _scanned:
        return
    _scanned = True
    import_modules("pirc.versioning.actions", skip=frozenset({"registry"}))


def lookup(section: str, name: str) -> PatchAction | None:
    """The action `name` of `section`, accepted or refused (None: no such action)."""
    _scan()
    return _ACTIONS.get((section, name))


def accepted(section: str) -> dict[str, PatchAction]:
    """The actions pirc accepts in `section`, by name, in listing order."""
    _scan()
    keys = sorted((k for k, a in _ACTIONS.items() if k[0] == section and a.refused is None),
                  key=_ORDER.__getitem__)
    return {name: _ACTIONS[(s, name)] for s, name in keys}


def refused() -> dict[tuple[str, str], str]:
    """(section, action) -> why pirc refuses it."""
    _scan()
    return {k: a.refused for k, a in sorted(_ACTIONS.items(), key=lambda kv: _ORDER[kv[0]])
            if a.refused is not None}
