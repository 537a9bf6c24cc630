"""The run's journal: what finished, so that a run killed at any moment resumes.

OUT/.pirc-migrate/journal.jsonl is append-only JSON lines.  The first line pins the run's
options, `{"options": {...}, "digest": "..."}`; every later line is one finished model,
`{"key": TASK KEY, "record": {...}}`, written as one `write`, flushed and fsync'd before the
next model is reported, so a line either is complete on disk or is the last line, cut short
by a kill.  On `--resume` that cut line is ignored (and cut off the file before anything is
appended after it); any other unreadable line is an error, never silently skipped.

Resuming with other options than the journal's would mix results of two different runs in
one report: an error that names the options that differ.  A model whose key is in the journal
is done; the key carries the content hash, so a file changed since is run again.
"""

from __future__ import annotations

import json
import os

from ..errors import PircError
from .options import MigrateOptions

JOURNAL_DIR = ".pirc-migrate"
JOURNAL_NAME = "journal.jsonl"


class Journal:
    def __init__(self, path: str, handle, done: dict[str, dict]):
        self.path, self._handle, self._done = path, handle, done

    @classmethod
    def open(cls, out_root: str, options: MigrateOptions, resume: bool) -> "Journal":
        """A fresh journal (an old one is replaced), or with `resume` the old one, read and
        checked against `options` (a missing one is a fresh start)."""
        folder = os.path.join(out_root, JOURNAL_DIR)
        path = os.path.join(folder, JOURNAL_NAME)
        header = {"options": options.as_json(), "digest": options.digest()}
        if resume and os.path.exists(path):
            done, good_size = _read(path, header)
            handle = open(path, "r+b")
            handle.truncate(good_size)
            handle.seek(good_size)
            return cls(path, handle, done)
        os.makedirs(folder, exist_ok=True)
        handle = open(path, "wb")
        journal = cls(path, handle, {})
        journal._write(header)
        _sync_folder(folder)
        return journal

    def done(self) -> dict[str, dict]:
        """Task key -> the record already finished."""
        return dict(self._done)

    def append(self, record: dict, key: str) -> None:
        """One finished model, on disk before this returns."""
        self._write({"key": key, "record": record})
        self._done[key] = record

    def close(self) -> None:
        self._handle.close()

    def __enter__(self) -> "Journal":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _write(self, entry: dict) -> None:
        line = json.dumps(entry, sort_keys=True, allow_nan=False) + "\n"
        self._handle.write(line.encode())
        self._handle.flush()
        os.fsync(self._handle.fileno())


def _read(path: str, header: dict) -> tuple[dict[str, dict], int]:
    """The finished records and the size of the file up to its last complete line."""
    with open(path, "rb") as f:
        data = f.read()
    lines = data.split(b"\n")
    # Every complete line ends in "\n": what follows the last one is a cut line (or nothing).
    complete, good_size = lines[:-1], len(data) - len(lines[-1])
    if not complete:
        raise PircError("the journal has no header line: start again without --resume"
                        ).in_file(path)
    entries = []
    for number, line in enumerate(complete, 1):
        try:
            entries.append(json.loads(line))
        except ValueError:
            raise _damaged(path, number, "not JSON") from None
    _check_options(path, entries[0], header)
    done = {}
    for number, entry in enumerate(entries[1:], 2):
        if not isinstance(entry, dict) or "key" not in entry or "record" not in entry:
            raise _damaged(path, number, "not a finished model's entry")
        done[entry["key"]] = entry["record"]
    return done, good_size


def _damaged(path: str, number: int, what: str) -> PircError:
    error = PircError(f"this line is {what}: the journal is damaged; start again without "
                      f"--resume").in_file(path)
    error.line = number
    return error


def _check_options(path: str, first: dict, header: dict) -> None:
    if not isinstance(first, dict) or not isinstance(first.get("options"), dict):
        raise PircError("the first line does not hold the run's options: start again without "
                        "--resume").in_file(path)
    theirs, ours = first["options"], header["options"]
    differ = sorted(k for k in set(theirs) | set(ours) if theirs.get(k) != ours.get(k))
    if differ:
        shown = ", ".join(f"{k} (journal {theirs.get(k)!r}, now {ours.get(k)!r})" for k in differ)
        raise PircError(f"--resume with other options than the journal's: {shown}; resume with "
                        f"the journal's options or start again without --resume").in_file(path)
    if first.get("digest") != header["digest"]:
        raise PircError("--resume with another pirc version than the journal's (the options' "
                        "digest differs): start again without --resume").in_file(path)


def _sync_folder(folder: str) -> None:
    """The journal's name is on disk too, not only its bytes."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
