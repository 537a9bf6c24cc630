"""The PIR version policy: which version this build writes, and where its patches live.

The numbers are data, in `patches/versions.yaml` (the one place they are written):

    release: 4        # newest released PIR version: patches 1.yaml .. 4.yaml exist
    develop: false    # a develop build writes version 0 and applies 0.yaml after 4.yaml

`pirc.ir.program` takes KNOWN_VERSIONS / LATEST_VERSION from here.  This module imports
nothing from pirc.ir, so the IR can depend on it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .. import user_cache
from ..errors import ErrorList, PatchError
from ..package_data import data_dir

DEVELOP_VERSION = 0
VERSIONS_FILE = "versions.yaml"


@dataclass(frozen=True)
class VersionPolicy:
    """What a patch folder's `versions.yaml` says (or what its file names imply)."""

    release: int
    develop: bool
    # PIR version -> the Paddle release that writes it ("3.0"); may be incomplete.
    paddle_releases: dict[int, str] = field(default_factory=dict, compare=False)

    @property
    def build_version(self) -> int:
        """The version a build with this policy writes: 0 for develop, else the release."""
        return DEVELOP_VERSION if self.develop else self.release

    @property
    def known_versions(self) -> tuple[int, ...]:
        """The released versions: 1 .. release (0, develop, is not a release)."""
        return tuple(range(1, self.release + 1))

    def paddle_release(self, version: int) -> str | None:
        return self.paddle_releases.get(version)


def patches_dir() -> Path:
    """The folder of pirc's own patches: package data when installed, else the source tree."""
    return data_dir("pirc.patches", VERSIONS_FILE, Path(__file__).resolve().parents[2] / "patches")


def read_versions_file(path: Path | str) -> VersionPolicy:
    """Read and check a `versions.yaml`; raises ErrorList of PatchError naming file and line."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise PatchError(f"cannot read the version policy: {e.strerror}", str(path)) from None
    from .located_yaml import LocatedYaml

    doc = LocatedYaml(text, str(path))
    policy = parse_versions(doc)
    if doc.errors:
        raise ErrorList(sorted(doc.errors, key=lambda e: e.line))
    return policy


_KEYS = ("release", "develop", "paddle")


def parse_versions(doc) -> VersionPolicy:
    """The policy in `doc` (a LocatedYaml); problems are added to doc.errors (a best guess is
    still returned)."""
    from .located_yaml import describe, is_scalar

    root = doc.compose()
    release, develop, paddle = 1, False, {}
    if root is None:
        if not doc.errors:
            doc.error(1, "empty version policy: write `release: N` and `develop: false`")
        return VersionPolicy(release, develop)
    entries = doc.mapping(root, "the version policy")
    if entries is None:
        return VersionPolicy(release, develop)
    found = {e.key: e for e in entries}
    for e in entries:
        if e.key not in _KEYS:
            doc.error(e.key_node, f"unknown key `{e.key}` in the version policy "
                                  f"(allowed: {', '.join(_KEYS)})")
    if "release" not in found:
        doc.error(root, "the version policy needs `release: N` (the newest released PIR version)")
    else:
        node = found["release"].value
        value = doc.value(node) if is_scalar(node) else None
        if type(value) is not int or value < 1:
            doc.error(node, f"`release` must be a PIR version (an integer >= 1), got {describe(node)}")
        else:
            release = value
    if "develop" in found:
        node = found["develop"].value
        value = doc.value(node) if is_scalar(node) else None
        if type(value) is not bool:
            doc.error(node, f"`develop` must be true or false, got {describe(node)}")
        else:
            develop = value
    if "paddle" in found:
        items = doc.mapping(found["paddle"].value, "`paddle` (PIR version -> Paddle release)")
        for item in items or ():
            if not item.key.isdigit():
                doc.error(item.key_node, f"`paddle`: `{item.key}` is not a PIR version number")
                continue
            paddle[int(item.key)] = str(doc.value(item.value))
    return VersionPolicy(release, develop, paddle)


def _load_own() -> VersionPolicy:
    # Every pirc process reads this file at import (pirc.ir.program needs the versions):
    # the parsed policy is cached, keyed by the file's text, so that a run that reads no
    # patch never imports the YAML library (~10% of a small pirc-opt run's start-up).
    path = patches_dir() / VERSIONS_FILE
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return read_versions_file(path)  # says what is wrong
    cache = user_cache.cache_dir() / "versions.marshal"
    key = (1, text)  # 1: the shape of the cached tuple
    cached = user_cache.load(cache, key)
    if cached is not None:
        release, develop, paddle = cached
        return VersionPolicy(release, develop, paddle)
    policy = read_versions_file(path)
    user_cache.store(cache, key, (policy.release, policy.develop, policy.paddle_releases))
    return policy


POLICY = _load_own()
RELEASE_VERSION: int = POLICY.release
DEVELOP: bool = POLICY.develop
# The PIR version this build writes (0 for a develop build).
BUILD_VERSION: int = POLICY.build_version
KNOWN_VERSIONS: tuple[int, ...] = POLICY.known_versions
