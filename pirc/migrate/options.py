"""What a pirc-migrate run was asked to do: the options every model's result depends on.

A result is only reusable (a resumed run, a task key) under the same options, so they live in
one frozen value with one canonical JSON form and a digest of it.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class MigrateOptions:
    target_version: int          # resolved: the CLI's default is the version this pirc writes
    pipeline: str | None         # pass pipeline spec, or None for no pipeline
    check: str                   # "auto" | "none" | "self" | "outputs"
    timeout: float | None        # seconds per model
    max_memory_mb: int | None

    def as_json(self) -> dict:
        """Every field, for the journal header and the report."""
        return asdict(self)

    def digest(self) -> str:
        """sha256 hex of the canonical JSON of the options and the pirc version: a result
        made by another pirc is not this run's result either."""
        from pirc import __version__

        canonical = json.dumps({"options": self.as_json(), "pirc_version": __version__},
                               sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canonical.encode()).hexdigest()
