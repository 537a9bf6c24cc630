"""`--skip-list FILE`: known failures, kept visible instead of re-run.

The file is a YAML list, one entry per known failure:

    - path: "legacy/*.json"        # a glob over the model's path relative to SRC
      reason: "uses pd_op.foo, removed in 3.1 (issue 41)"
      expires: 2027-03-01          # optional: from this day on the entry no longer applies

A model whose path matches an entry is reported `skipped` with the entry's reason.  An entry
that has expired is a warning and the model runs: a skip is a promise to come back, and an
expiry date makes the promise visible when it is broken.  The glob is `fnmatch`'s, matched
against the whole relative path with posix separators; `*` matches across folders
(`zoo/*` matches `zoo/a/b.json`).  The first entry that matches decides.

A file that is not such a list, an entry without a path or reason, or an expiry that is not a
date is an error naming the file and the entry's line: a typo must not run (or skip) a model
by surprise.
"""

from __future__ import annotations

import datetime
import fnmatch
from dataclasses import dataclass

import yaml

from ..errors import PircError
from .schema import complete_record

_KEYS = {"path", "reason", "expires"}


@dataclass(frozen=True)
class SkipEntry:
    glob: str
    reason: str
    expires: datetime.date | None
    line: int          # 1-based line of the entry in the file


class SkipList:
    def __init__(self, filename: str, entries: list[SkipEntry]):
        self.filename, self.entries = filename, entries

    def match(self, relpath: str, today: datetime.date) -> tuple[str | None, str | None]:
        """(the reason to skip `relpath`, or None; a warning about an expired entry, or None).
        The warning names the entry's line; the caller prefixes the file."""
        warning = None
        for entry in self.entries:
            if not fnmatch.fnmatchcase(relpath, entry.glob):
                continue
            if entry.expires is not None and today >= entry.expires:
                warning = warning or (
                    f"line {entry.line}: the skip of {entry.glob!r} expired on "
                    f"{entry.expires.isoformat()}: {relpath} runs")
                continue
            return entry.reason, None
        return None, warning


def skipped_record(path: str, reason: str) -> dict:
    """The report's record of a model the skip list skipped: its reason, nothing else known."""
    return complete_record({"path": path, "status": "skipped", "reason": reason})


def load_skip_list(path: str) -> SkipList:
    """The skip list in `path`; PircError naming the file (and line) when it is not one."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as error:
        raise PircError(f"cannot read the skip list: {error.strerror}").in_file(path) from None
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        raise _error(path, mark.line + 1 if mark else 0,
                     f"not valid YAML: {getattr(error, 'problem', None) or error}") from None
    if root is None:
        return SkipList(path, [])
    if not isinstance(root, yaml.SequenceNode):
        raise _error(path, root.start_mark.line + 1,
                     "a skip list is a YAML list of entries (path, reason, expires)")
    return SkipList(path, [_entry(path, node) for node in root.value])


def _entry(path: str, node: yaml.Node) -> SkipEntry:
    line = node.start_mark.line + 1
    try:
        value = yaml.SafeLoader("").construct_document(node)
    except (yaml.YAMLError, ValueError) as error:  # ValueError: a date such as 2027-13-45
        raise _error(path, line, f"the entry does not read: {error}") from None
    if not isinstance(value, dict):
        raise _error(path, line, "an entry is a mapping with path, reason and expires")
    unknown = sorted(str(k) for k in value if k not in _KEYS)
    if unknown:
        raise _error(path, line, f"unknown key {unknown[0]!r}: an entry has path, reason, expires")
    glob, reason, expires = value.get("path"), value.get("reason"), value.get("expires")
    if not isinstance(glob, str) or not glob:
        raise _error(path, line, "the entry has no path (a glob over paths relative to SRC)")
    if not isinstance(reason, str) or not reason.strip():
        raise _error(path, line, f"the entry for {glob!r} has no reason")
    if expires is not None and not (isinstance(expires, datetime.date)
                                    and not isinstance(expires, datetime.datetime)):
        raise _error(path, line, f"the entry for {glob!r} expires on {expires!r}, not a date "
                                 f"(YYYY-MM-DD)")
    return SkipEntry(glob, reason.strip(), expires, line)


def _error(path: str, line: int, message: str) -> PircError:
    error = PircError(message).in_file(path)
    error.line = line
    return error
