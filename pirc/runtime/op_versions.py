"""Semantic op versions without the kernels: which registry entry an op resolves to.

A pass declares, per op it rewrites, the semantic versions it was written for: the `since`
of the registry entries (pirc.runtime.registry) whose numerics it knows.  The pass manager
asks before every rewrite, and `pirc-opt` must not import torch to ask, so the registry's
ranges are kept as data (`op_versions.json`, generated from the live registry by
`python -m tools.gen_op_versions`; a test fails when it is stale).  Its digest names the
op-version set a program was optimised against (the manifest's `op_versions`).
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from pathlib import Path

from ..ir.program import DEVELOP_VERSION, LATEST_VERSION

TABLE = "op_versions.json"


@lru_cache(maxsize=1)
def _text() -> str:
    # beside this module (package data); importlib.resources would import zipfile (start-up)
    return Path(__file__).with_name(TABLE).read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def _table() -> dict[str, list[list]]:
    return json.loads(_text())["ops"]


def semantic_version(name: str, program_version: int) -> int | None:
    """The `since` of the entry `name` resolves to at `program_version`; None: no entry."""
    version = LATEST_VERSION if program_version == DEVELOP_VERSION else program_version
    for since, until in _table().get(name, ()):
        if since <= version and (until is None or version < until):
            return since
    return None


def ranges(name: str) -> list:
    """The [since, until) ranges registered for `name` (until None: open-ended)."""
    return [tuple(r) for r in _table().get(name, ())]


@lru_cache(maxsize=1)
def digest() -> str:
    """`ovs1:` + sha256 of the table: equal digests, equal op semantics.  Every pipeline run
    asks (the manifest), and the canonical dump costs more than a small program's passes:
    the digest is kept in the user cache, keyed by the table's text."""
    from .. import user_cache

    cache = user_cache.cache_dir() / "op-versions-digest.marshal"
    value = user_cache.load(cache, _text())
    if value is None:
        value = _digest(_table())
        user_cache.store(cache, _text(), value)
    return value


def _digest(table: dict) -> str:
    canonical = json.dumps(table, sort_keys=True, separators=(",", ":"))
    return "ovs1:" + hashlib.sha256(canonical.encode()).hexdigest()


def table_from_registry(registry) -> dict:
    """The data `op_versions.json` holds, read from a loaded registry."""
    return {"ops": {name: [[e.since, e.until] for e in sorted(registry.entries(name), key=lambda e: e.since)]
                    for name in sorted(registry.names())}}


def table_text(registry) -> str:
    """One op per line, so a kernel change reads as a one-line diff."""
    ops = table_from_registry(registry)["ops"]
    lines = [f"  {json.dumps(name)}: {json.dumps(ranges)}" for name, ranges in ops.items()]
    return '{"ops": {\n' + ",\n".join(lines) + "\n}}\n"
