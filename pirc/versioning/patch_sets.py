"""Patch folders: `N.yaml` files, the version policy, pirc's layer and the unmigratable list.

A folder is read as one patch set: its file names and `versions.yaml` are checked, every
`N.yaml` is read and validated (schema.py), pirc's layer files `pirc/N.yaml` are merged over
them (layers.py), and `unmigratable.yaml` is read (unmigratable.py). Every problem is
reported, with its file and line, before anything uses the set.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import ErrorList, PatchError
from . import layers
from . import policy as _policy
from .located_yaml import LocatedYaml
from .model import PatchFile, PatchSet
from .policy import VERSIONS_FILE, VersionPolicy, parse_versions, patches_dir
from .schema import _FILE_NAME, check_patch_file
from .unmigratable import UNMIGRATABLE_FILE, read_unmigratable


def load_patch_set(directory: str | Path | None = None) -> PatchSet:
    """Read and validate a patch folder (default: pirc's own); raises ErrorList of all errors."""
    patch_set, errors = check_patch_set(directory)
    if errors:
        raise ErrorList(errors)
    return patch_set


def check_patch_set(directory: str | Path | None = None) -> tuple[PatchSet, list[PatchError]]:
    """Every problem of a patch folder: its file names, its version policy, every file.

    Files are `N.yaml` (N = the PIR version the file produces; 0 = a develop build's
    unreleased changes).  The policy is the folder's `versions.yaml`; a folder without one
    (Paddle's test patches) has release = its largest N and is a develop build when it
    has a 0.yaml, which is the rule Paddle used when it scanned its patch folder.
    """
    folder = Path(directory) if directory is not None else patches_dir()
    name = str(folder)
    if not folder.is_dir():
        error = PatchError("no such patch folder" if not folder.exists() else "not a folder", name)
        return PatchSet(name, _policy.RELEASE_VERSION, _policy.DEVELOP), [error]
    errors: list[PatchError] = []
    numbered: dict[int, Path] = {}
    for path in sorted(folder.iterdir()):
        if path.suffix not in (".yaml", ".yml") or path.name in (VERSIONS_FILE, UNMIGRATABLE_FILE):
            continue  # README.md, __init__.py: not patches
        m = _FILE_NAME.match(path.name)
        if m is None:
            errors.append(PatchError(
                "patch files are named N.yaml, N = the PIR version the file upgrades to "
                "(0.yaml = unreleased changes); rename or move this file", str(path)))
            continue
        numbered[int(m.group(1))] = path

    policy = _folder_policy(folder, numbered, errors)
    versions_at = str(folder / VERSIONS_FILE) if (folder / VERSIONS_FILE).is_file() else name
    for n in range(1, policy.release + 1):
        if n not in numbered:
            errors.append(PatchError(
                f"no {n}.yaml: every step 1..{policy.release} (the release version) needs a "
                f"patch file; add an empty {n}.yaml if PIR version {n} changed nothing", name))
    for n, path in numbered.items():
        if n > policy.release:
            errors.append(PatchError(
                f"patch for PIR version {n}, but the release version is {policy.release}: "
                f"unreleased changes go in 0.yaml; at release, rename 0.yaml to "
                f"{policy.release + 1}.yaml and set `release: {policy.release + 1}` in {VERSIONS_FILE}",
                str(path)))
    if 0 in numbered and not policy.develop:
        errors.append(PatchError(
            f"0.yaml holds a develop build's unreleased changes, but {VERSIONS_FILE} says "
            f"`develop: false`: set `develop: true`, or release it (rename 0.yaml to "
            f"{policy.release + 1}.yaml and set `release: {policy.release + 1}`)", versions_at))

    files: dict[int, PatchFile] = {}
    for n, path in sorted(numbered.items()):
        patch, file_errors = check_patch_file(path, n, policy.release)
        files[n] = patch
        errors.extend(file_errors)
    base = dict(files)
    layer_numbered, layer_errors = layers.read_layer_names(folder, numbered)
    errors.extend(layer_errors)
    layer_files: dict[int, PatchFile] = {}
    for n, path in sorted(layer_numbered.items()):
        patch, file_errors = check_patch_file(path, n, policy.release, base[n])
        layer_files[n] = patch
        errors.extend(file_errors)
        files[n], merge_errors = layers.merge(files[n], patch)
        errors.extend(merge_errors)
    from .defdiff import BREAKING_KINDS
    unmigratable, list_errors = read_unmigratable(folder / UNMIGRATABLE_FILE, BREAKING_KINDS)
    errors.extend(list_errors)
    return PatchSet(name, policy.release, policy.develop, files, base, layer_files,
                    unmigratable), errors


def _folder_policy(folder: Path, numbered: dict[int, Path], errors: list) -> VersionPolicy:
    path = folder / VERSIONS_FILE
    if path.is_file():
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            errors.append(PatchError(f"cannot read the version policy: {e}", str(path)))
            text = ""
        doc = LocatedYaml(text, str(path))
        policy = parse_versions(doc)
        errors.extend(sorted(doc.errors, key=lambda e: e.line))
        return policy
    released = [n for n in numbered if n > 0]
    return VersionPolicy(max(released) if released else _policy.RELEASE_VERSION, 0 in numbered)
