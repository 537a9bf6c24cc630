"""The options of a migration run, what a journal pins, and the key of one model's task.

`target_version` is always a number here: None (what the CLI passes when --target-version is
not given) becomes the version this pirc writes, the version `pirc.upgrade` upgrades to by
default (pirc.versioning.planner.default_target of pirc's own patch set: its release version,
or 0 for a develop set).  A digest made from a resolved number means a journal written before
a pirc that writes a newer version is not resumed as if nothing had changed.

`check`: "self" (the original program against the upgraded one, pirc.migrate.check),
"outputs" (the upgraded program against the reference outputs in NAME.io.npz), "none", or
"auto": "self" where the program can run (its parameters are present, or it has none), else
"none" (pirc.migrate.check.resolve_mode says which per model).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass

from ..errors import PircError
from .sources import ModelSource

CHECKS = ("auto", "none", "self", "outputs")


def default_target_version() -> int:
    """The PIR version this pirc writes (what pirc.upgrade upgrades to by default)."""
    from ..versioning.planner import default_target
    from ..versioning.upgrade import load_patches

    return default_target(load_patches())


def _known_versions() -> list[int]:
    from ..versioning.planner import version_order
    from ..versioning.upgrade import load_patches

    return version_order(load_patches())


@dataclass(frozen=True)
class MigrateOptions:
    """One run's options; `MigrateOptions(None, ...)` resolves the target (module docstring).
    A check mode other than CHECKS, a target this pirc has no patches for, a pipeline that
    cannot be built, or a timeout / memory cap that is not positive is a PircError naming it,
    before any model runs."""

    target_version: int
    pipeline: str | None = None
    check: str = "auto"
    timeout: float | None = None
    max_memory_mb: int | None = None

    def __post_init__(self):
        if self.target_version is None:
            object.__setattr__(self, "target_version", default_target_version())
        known = _known_versions()
        if self.target_version not in known:
            raise PircError(f"target version {self.target_version}: this pirc upgrades to the PIR "
                            f"versions {', '.join(map(str, known))}")
        if self.check not in CHECKS:
            raise PircError(f"check {self.check!r}: the checks are {', '.join(CHECKS)}")
        if self.timeout is not None and not self.timeout > 0:
            raise PircError(f"timeout {self.timeout}: give a number of seconds above 0")
        if self.max_memory_mb is not None and not self.max_memory_mb > 0:
            raise PircError(f"max memory {self.max_memory_mb} MiB: give a number above 0")
        if self.pipeline == "":
            object.__setattr__(self, "pipeline", None)
        if self.pipeline is not None:
            from ..passes.infra.pipeline import build_pipeline

            build_pipeline(self.pipeline)  # PipelineError (a PircError) names what is wrong

    def as_json(self) -> dict:
        """Every field, for the journal header and the report."""
        return dataclasses.asdict(self)

    def digest(self) -> str:
        """sha256 hex of the canonical JSON of the options and the pirc version: a result
        made by another pirc or with other options is never taken for this run's."""
        from .. import __version__

        text = json.dumps({"options": self.as_json(), "pirc_version": __version__},
                          sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()


def task_key(source: ModelSource, options: MigrateOptions) -> str:
    """(relative path, content hash, options digest): the identity of one model's task."""
    return f"{source.path}|{source.content_hash[:16]}|{options.digest()[:16]}"
