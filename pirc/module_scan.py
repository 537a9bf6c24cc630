"""Import every module of a package: how registries find what registers itself by decorator
(passes, patch actions), so adding one is adding its module, with no list to edit."""

from __future__ import annotations

import importlib
import pkgutil


def module_names(package_name: str, skip: frozenset = frozenset()) -> list[str]:
    """The full names of the plain modules of `package_name` (no subpackages, no `_private`
    ones, none in `skip`), in name order, so registration order never depends on the file
    system."""
    package = importlib.import_module(package_name)
    return [f"{package_name}.{info.name}"
            for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name)
            if not info.ispkg and not info.name.startswith("_") and info.name not in skip]


def import_modules(package_name: str, skip: frozenset = frozenset()) -> None:
    """Import each module `module_names` lists, in its order."""
    for name in module_names(package_name, skip):
        importlib.import_module(name)
