"""pirc's cache of parsed data files, under the user cache directory.

Every `pirc-opt` run needs data parsed from YAML (the op specs, the version policy); parsing
it, and even importing the YAML library, costs more than a small program's whole run.  The
parsed data is kept as marshal files in `$XDG_CACHE_HOME/pirc` (else `~/.cache/pirc`), each
holding the key it was made from, so that a changed source is parsed again.  Best effort: an
unreadable or unwritable cache only costs the parse.
"""

from __future__ import annotations

import marshal
import os
from pathlib import Path


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "pirc"


def load(path: Path, key):
    """The data stored at `path` for `key`, or None (no file, another key, a broken file)."""
    try:
        stored_key, data = marshal.loads(path.read_bytes())
    except (OSError, EOFError, ValueError, TypeError):
        return None
    return data if stored_key == key else None


def store(path: Path, key, data) -> None:
    """Write (key, data) to `path` atomically; failures are silent (a read-only home, a full
    disk: the next run parses again)."""
    import tempfile

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".pirc-cache-")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(marshal.dumps((key, data)))
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
    except (OSError, ValueError):
        pass


def yaml_data(path: Path, name: str):
    """The YAML file at `path`, parsed, kept as the cache file `name`.marshal and keyed by
    the file's text (an edited file is parsed again): a warm run imports no YAML parser.
    Data marshal cannot hold (a YAML timestamp) is parsed on every run."""
    text = path.read_text(encoding="utf-8")
    cache = cache_dir() / f"{name}.marshal"
    key = (1, text)  # 1: the shape of the cached data
    data = load(cache, key)
    if data is None:
        import yaml

        data = yaml.safe_load(text)
        store(cache, key, data)
    return data
