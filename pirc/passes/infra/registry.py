"""The pass registry: `@register_pass` on a class, and the modules of `pirc.passes` found by
scanning the package, so that adding a pass touches no list.

Scanning imports every module directly in `pirc/passes/` (not `infra/`) the first time a pass
is looked up; a module defines its pass by decorating it.
"""

from __future__ import annotations

from ...errors import PircError
from ...module_scan import import_modules

_PASSES: dict[str, type] = {}
_scanned = False


class PassRegistryError(PircError):
    """Two passes with one name, or a declaration that cannot hold."""


def register_pass(cls):
    """Class decorator: make `cls` (a PircPass) available by its `name`."""
    name = getattr(cls, "name", None)
    if not isinstance(name, str) or not name:
        raise PassRegistryError(f"{cls.__qualname__}: a pass declares `name = \"...\"`")
    known = _PASSES.get(name)
    if known is not None and known is not cls and known.__qualname__ != cls.__qualname__:
        raise PassRegistryError(f"two passes are named {name!r}: {known.__module__}.{known.__qualname__} "
                                f"and {cls.__module__}.{cls.__qualname__}")
    _PASSES[name] = cls
    return cls


def _scan() -> None:
    global _scanned
    if _scanned:
        return
    _scanned = True
    import_modules("pirc.passes")


def all_passes() -> dict[str, type]:
    """Every registered pass, by name, in name order."""
    _scan()
    return dict(sorted(_PASSES.items()))


def get_pass(name: str) -> type | None:
    _scan()
    return _PASSES.get(name)
