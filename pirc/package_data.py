"""Where pirc's data folders (`pirc.dialects`, `pirc.patches`, ...) are on disk.

The folders are packages of their own (pyproject.toml maps `dialects/` and `patches/` to
them), so the import system finds them installed or in an editable checkout.  Looked up
through the package's `__path__` rather than importlib.resources, whose readers import
zipfile and threading: a few percent of a small `pirc-opt` run.
"""

from __future__ import annotations

import importlib
from pathlib import Path


def data_dir(package: str, probe: str, fallback: Path) -> Path:
    """The folder of `package` that holds the file `probe`, else `fallback` (a source tree)."""
    try:
        locations = importlib.import_module(package).__path__
    except ModuleNotFoundError:
        return fallback
    for entry in locations:
        if (Path(entry) / probe).is_file():
            return Path(entry)
    return fallback
