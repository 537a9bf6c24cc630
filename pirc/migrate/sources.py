"""The models a migration run works on: one `ModelSource` per saved program under SRC.

A saved program is `NAME.json`, anywhere under SRC; beside it, where present, its parameters
`NAME.pdiparams` and its sample data `NAME.io.npz` (the corpus's convention: inputs
`in__<feed>`, reference outputs `reload_out__<i>`, else `out__<i>`).  Every `.json` file counts
(one that is no program fails as that model's result, never silently skipped), except what
pirc-migrate itself writes when OUT is SRC or inside it: a top-level `report.json`, and
anything under a `.pirc-migrate` folder (the journal).  Models are sorted by their path
relative to SRC, with `/` separators, so the order (and the report) is the same on every OS.

`content_hash` is sha256 over the three files, each framed by its role and its length (a
missing file framed as absent), so moving bytes between files, or dropping one, changes it;
a task keyed by it is never served a result computed from an older file.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass

from ..errors import PircError

# What pirc-migrate writes into OUT, which find_models leaves out when OUT lies under SRC.
STATE_FOLDER = ".pirc-migrate"
REPORT_FILE = "report.json"

_CHUNK = 1 << 20


@dataclass(frozen=True)
class ModelSource:
    """One saved program and the files beside it."""

    path: str            # relative to SRC, posix separators: "zoo/bert.3.3.1.json"
    program: str         # absolute path of NAME.json
    params: str | None   # NAME.pdiparams beside it, if present
    io: str | None       # NAME.io.npz beside it, if present
    content_hash: str    # sha256 hex over the three files (role + length framed)

    @property
    def stem(self) -> str:
        """`path` without `.json`: OUT/<stem>.pdiparams and OUT/<stem>.io.npz sit beside it."""
        return self.path[:-len(".json")]


def content_hash(program: str, params: str | None, io: str | None) -> str:
    h = hashlib.sha256(b"pirc-migrate-source-1\0")
    for role, path in (("json", program), ("pdiparams", params), ("io.npz", io)):
        h.update(role.encode() + b"\0")
        if path is None:
            h.update(b"absent\0")
            continue
        h.update(os.path.getsize(path).to_bytes(8, "little"))
        with open(path, "rb") as f:
            while chunk := f.read(_CHUNK):
                h.update(chunk)
    return h.hexdigest()


def _beside(stem: str, suffix: str) -> str | None:
    path = stem + suffix
    return path if os.path.isfile(path) else None


def source_of(src_root: str, program: str) -> ModelSource:
    """The ModelSource of the program file `program` under `src_root`."""
    program = os.path.abspath(program)
    rel = os.path.relpath(program, os.path.abspath(src_root)).replace(os.sep, "/")
    stem = program[:-len(".json")]
    params, io = _beside(stem, ".pdiparams"), _beside(stem, ".io.npz")
    return ModelSource(rel, program, params, io, content_hash(program, params, io))


def find_models(src: str) -> list[ModelSource]:
    """Every NAME.json under `src` (recursively), sorted by relative path; PircError for a
    SRC that does not exist or is not a folder."""
    if not os.path.exists(src):
        raise PircError(f"{src}: no such folder: give the folder that holds the saved programs "
                        "(NAME.json, with NAME.pdiparams beside it)")
    if not os.path.isdir(src):
        raise PircError(f"{src}: not a folder: pirc-migrate takes a folder of saved programs; "
                        "for one program use pirc-opt --upgrade")
    root = os.path.abspath(src)
    found = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != STATE_FOLDER]
        for name in files:
            if not name.endswith(".json") or name == ".json":
                continue
            if folder == root and name == REPORT_FILE:
                continue
            path = os.path.join(folder, name)
            if os.path.isfile(path):
                found.append(source_of(root, path))
    return sorted(found, key=lambda s: s.path)
