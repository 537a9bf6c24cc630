"""A patch folder's layer: `pirc/N.yaml` files merged over the folder's own `N.yaml`.

pirc's `patches/1..4.yaml` stay byte for byte Paddle's own patches, so an upgrade through
them alone reproduces what Paddle 3.3.1 does.  Paddle's patches leave most breaking
definition changes unmigrated (docs/PATCH-CHECK.md), so pirc adds its own actions in a
layer, `patches/pirc/N.yaml`, in the same schema.  The folder's patch N is then Paddle's
patch N with the layer's entries appended: an entry for an op Paddle already patches gets
the layer's actions after Paddle's, any other entry is added after Paddle's entries.
Paddle's patch N is therefore always a subset of the merged patch N, and the layer can
only add: an action that repeats one of Paddle's (same action, same object) is an error.

Any patch folder may have a layer (`--patch-dir DIR` reads `DIR/pirc/` when it exists), so
a copy of pirc's folder behaves like pirc's own; a folder without one is read as it is.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from ..errors import PatchError
from .model import OpPairPatch, OpPatch, PatchFile, action_path

LAYER_DIR = "pirc"  # the layer's subfolder of a patch folder
_FILE_NAME = re.compile(r"^(0|[1-9][0-9]*)\.yaml$")


def read_layer_names(folder: Path, base: dict[int, Path]) -> tuple[dict[int, Path], list]:
    """The layer's N.yaml files by N ({} without a layer), and errors for files that are
    not named N.yaml or that extend a step the folder has no file for."""
    layer = folder / LAYER_DIR
    numbered: dict[int, Path] = {}
    errors: list[PatchError] = []
    if not layer.is_dir():
        return numbered, errors
    for path in sorted(layer.iterdir()):
        if path.suffix not in (".yaml", ".yml"):
            continue  # README.md: not a patch
        m = _FILE_NAME.match(path.name)
        if m is None:
            errors.append(PatchError("a layer file is named N.yaml, like the patch it extends "
                                     "(../N.yaml); rename or move this file", str(path)))
        elif int(m.group(1)) not in base:
            errors.append(PatchError(f"extends {path.name}, which the folder does not have: a "
                                     f"layer only adds to an existing step", str(path)))
        else:
            numbered[int(m.group(1))] = path
    return numbered, errors


def merge(base: PatchFile, layer: PatchFile) -> tuple[PatchFile, list[PatchError]]:
    """`base` with `layer`'s entries added (see the module docstring), and the errors."""
    errors: list[PatchError] = []

    def own(actions):
        return tuple(replace(a, path=action_path(layer, a)) for a in actions)

    def merged(entries, extra, key):
        out = list(entries)
        index = {key(e): i for i, e in enumerate(out)}
        for entry in extra:
            k = key(entry)
            if k not in index:
                index[k] = len(out)
                out.append(replace(entry, actions=own(entry.actions)))
                continue
            old = out[index[k]]
            seen = {(a.action, _hashable(a.object)): a for a in old.actions}
            keep = []
            for a in entry.actions:
                twin = seen.get((a.action, _hashable(a.object)))
                if twin is not None:
                    errors.append(PatchError(
                        f"{_subject(entry)}: {a.action}"
                        f"{'' if a.object is None else ' ' + str(a.object)} is already in "
                        f"{action_path(base, twin)}:{twin.line}; the layer adds to that patch "
                        f"and cannot repeat or change its actions", layer.path, a.line))
                else:
                    keep.append(a)
            out[index[k]] = replace(old, actions=old.actions + own(keep))
        return tuple(out)

    result = replace(
        base,
        op_patches=merged(base.op_patches, layer.op_patches, lambda e: e.op_name),
        op_pair_patches=merged(base.op_pair_patches, layer.op_pair_patches,
                               lambda e: (e.producer, e.consumer)),
        attr_patches=merged(base.attr_patches, layer.attr_patches, lambda e: e.attr_type),
        type_patches=merged(base.type_patches, layer.type_patches, lambda e: e.type_name),
    )
    return result, errors


def is_subset(base: PatchFile, patch: PatchFile) -> bool:
    """Whether every entry and action of `base` is in `patch`, in the same order (what a
    merged patch guarantees about Paddle's)."""
    def entries(p):
        out = {}
        for section in ("op_patches", "op_pair_patches", "attr_patches", "type_patches"):
            for e in getattr(p, section):
                out[(section, _subject(e))] = [replace(a, path=None) for a in e.actions]
        return out
    mine, theirs = entries(base), entries(patch)
    return all(k in theirs and theirs[k][:len(v)] == v for k, v in mine.items())


def _subject(entry) -> str:
    if isinstance(entry, OpPatch):
        return entry.op_name
    if isinstance(entry, OpPairPatch):
        return f"[{entry.producer}, {entry.consumer}]"
    return getattr(entry, "attr_type", None) or entry.type_name


def _hashable(obj):
    return tuple(obj) if isinstance(obj, list) else obj
