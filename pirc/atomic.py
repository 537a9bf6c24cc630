"""Write a file atomically: a temp file in the target's folder, then one rename.

A failed or interrupted write never leaves a half-written file and never touches an
existing one (the README's contract for `-o`: outputs are written atomically).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable


def write_atomically(path: str, pieces: Iterable[str | bytes], *, binary: bool = False) -> None:
    """Write the pieces, in order, to `path` (str pieces, UTF-8, unless `binary`)."""
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".pirc-", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb" if binary else "w", **({} if binary else {"encoding": "utf-8"})) as f:
            for piece in pieces:
                f.write(piece)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
