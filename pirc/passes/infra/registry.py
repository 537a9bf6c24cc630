"""The pass registry: `@register_pass` on a class, the modules of `pirc.passes` found by
scanning the package, and passes of other packages found through the entry point group
`pirc.passes`, so that adding a pass touches no list.

Scanning imports every module directly in `pirc/passes/` (not `infra/`) the first time a pass
is looked up; a module defines its pass by decorating it.  Then each installed entry point of
the group `pirc.passes` is loaded (docs/PASSES.md, "A pass in another package"): it names a
module (`name = "pkg.module"`, whose import registers its passes) or a pass class
(`name = "pkg.module:MyPass"`, registered if it is not yet).  Both happen only when passes
are listed or a pipeline names one, so a command that runs no pass never imports a plugin; a
plugin that fails to load is an error naming it and its distribution, every time it is
looked up (never a registry silently missing its passes).

A pipeline names a few passes, and importing every pass module (the fusions' rules, xDSL's
transforms) was a third of what `-p default` adds to a small run.  `pirc/passes/index.txt`
says which module registers each of pirc's own passes (written by `python -m
tools.gen_pass_index`; a test compares it with a full scan), so looking up one pass imports
its module alone.  The index answers only while it can be complete: no plugin may be
installed, and the scanned packages hold exactly the modules it lists (a pass module added
to the tree and not yet indexed is found by the full scan, as before).  Listing passes, and
an unknown name's error with its closest match, scan everything.
"""

from __future__ import annotations

import importlib
import types
from pathlib import Path

from ...errors import PircError, excerpt
from ...module_scan import import_modules, module_names

ENTRY_POINT_GROUP = "pirc.passes"
SCANNED_PACKAGES = ("pirc.passes", "pirc.passes.fusion")  # the fusion passes: one module each
INDEX_FILE = Path(__file__).resolve().parents[1] / "index.txt"

_PASSES: dict[str, type] = {}
_scanned = False
_index: dict[str, str] | None = None  # pass name -> module, once read; {} when it cannot answer


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
    _scanned = True  # before importing: a pass module that looks a pass up must not rescan
    try:
        for package in SCANNED_PACKAGES:
            import_modules(package)
        _load_plugins()
    except BaseException:
        _scanned = False  # the next lookup reports the broken plugin again
        raise


def _load_plugins() -> None:
    if not _may_have_plugins():
        return
    from importlib.metadata import entry_points

    from .pass_base import PircPass

    for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: (e.name, e.value)):
        try:
            loaded = ep.load()
        except Exception as e:  # noqa: BLE001 - any failure of foreign code is the plugin's
            raise _plugin_error(ep, f"failed to load: {type(e).__name__}: {e}") from None
        if isinstance(loaded, type) and issubclass(loaded, PircPass):
            register_pass(loaded)
        elif not isinstance(loaded, types.ModuleType):
            what = (loaded.__qualname__ if isinstance(loaded, type)
                    else f"{excerpt(repr(loaded), 40)} (of type {type(loaded).__name__})")
            raise _plugin_error(ep, f"names {what}, which is neither a module nor a PircPass class")


# Distribution finders that search sys.path's folders as the standard PathFinder does (what
# the scan below reads): importlib_metadata, which dask / distributed import, installs its
# MetadataPathFinder in sys.meta_path, and a process that imported them would scan every pass
# module for every pipeline.
_PATH_SEARCHING_FINDERS = frozenset({("importlib_metadata", "MetadataPathFinder")})


def _may_have_plugins() -> bool:
    """Whether an installed distribution may declare the group.  Importing importlib.metadata
    (email, zipfile, ...) costs 30-80 ms, a sixth of a small `pirc-opt -p` run, and most
    installs have no plugin: the folders on sys.path are listed and the `entry_points.txt`
    of each `*.dist-info` / `*.egg-info` read, which is what importlib.metadata's path finder
    searches.  Whatever this cannot see (a zip on the path, a finder of distributions other
    than the standard one) answers yes: importlib.metadata then decides."""
    import importlib.machinery
    import os
    import sys

    for finder in sys.meta_path:
        cls = finder if isinstance(finder, type) else type(finder)
        if (hasattr(finder, "find_distributions") and finder is not importlib.machinery.PathFinder
                and (cls.__module__, cls.__qualname__) not in _PATH_SEARCHING_FINDERS):
            return True
    for entry in sys.path:
        folder = entry or "."
        if os.path.isfile(folder):
            return True
        try:
            with os.scandir(folder) as found:
                names = [e.name for e in found if e.name.endswith((".dist-info", ".egg-info", ".egg"))]
        except OSError:
            continue  # missing, or a path hook's name
        for name in names:
            if name.endswith(".egg"):
                return True
            try:
                with open(os.path.join(folder, name, "entry_points.txt"), encoding="utf-8",
                          errors="replace") as f:
                    if f"[{ENTRY_POINT_GROUP}]" in f.read():
                        return True
            except OSError:
                continue
    return False


def _plugin_error(ep, problem: str) -> PassRegistryError:
    dist = getattr(ep, "dist", None)
    source = f", from the distribution {dist.name} {dist.version}" if dist is not None else ""
    remedy = f"uninstall {dist.name}" if dist is not None else "remove the entry point"
    return PassRegistryError(
        f"pass plugin {ep.name!r} (entry point `{ep.name} = {ep.value}` in group "
        f"{ENTRY_POINT_GROUP}{source}) {problem}; fix the plugin or {remedy}")


def all_passes() -> dict[str, type]:
    """Every registered pass, by name, in name order."""
    _scan()
    return dict(sorted(_PASSES.items()))


def get_pass(name: str) -> type | None:
    """The pass named `name`, or None; imports the module the index names for it, or every
    pass module when the index cannot answer."""
    if not _scanned:
        index = _read_index()
        if index:
            module = index.get(name)
            if module is None:  # none of pirc's: a pass the caller's own code registered, or none
                return _PASSES.get(name)
            if name not in _PASSES:
                importlib.import_module(module)
            if name in _PASSES:
                return _PASSES[name]
        _scan()  # no index, or a stale one: look everywhere
    return _PASSES.get(name)


def index_text(passes: dict[str, type]) -> str:
    """The text of INDEX_FILE for a full scan's `passes`: each scanned module of pirc's, and
    the names of the passes it registers (none for a module that registers none)."""
    by_module: dict[str, list[str]] = {m: [] for p in SCANNED_PACKAGES for m in module_names(p)}
    for name, cls in sorted(passes.items()):
        if cls.__module__ in by_module:
            by_module[cls.__module__].append(name)
    lines = [" ".join([module, *names]) for module, names in by_module.items()]
    return ("# Each pass module of pirc and the passes it registers: what a pipeline imports\n"
            "# (pirc.passes.infra.registry).  Written by `python -m tools.gen_pass_index`.\n"
            + "".join(line + "\n" for line in lines))


def _read_index() -> dict[str, str]:
    """INDEX_FILE as pass name -> module, or {} where it cannot be complete: a plugin may be
    installed, the file is missing, or the scanned packages hold other modules than it
    lists.  Read once per process."""
    global _index
    if _index is None:
        _index = {}
        try:
            lines = INDEX_FILE.read_text(encoding="utf-8").splitlines()
        except OSError:
            return _index
        by_name, modules = {}, []
        for line in lines:
            if line and not line.startswith("#"):
                module, *names = line.split()
                modules.append(module)
                by_name.update((name, module) for name in names)
        listed = [m for p in SCANNED_PACKAGES for m in module_names(p)]
        if modules == listed and not _may_have_plugins():
            _index = by_name
    return _index
