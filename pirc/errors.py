"""Errors a user sees: one line saying where and what, no traceback.

Every error renders through one function, `render_diagnostic`: WHERE, the severity, the
message, then (for text) the source line and a caret.  WHERE is whatever location the error
carries: `FILE:LINE:COL` in a text input, `FILE: JSON.PATH` in a JSON input, `FILE:LINE` in a
patch, `FILE` alone, or nothing.  A message is plain words: never a rendered error (that is
how `error: x.pir:1:13: error: ...` came about), so an error raised without a location gets
one with `in_file` or `at`, not by pasting a rendered error into a new one.

One form per kind of location, whatever raised the error:

    FILE:LINE:COL: error: MESSAGE            a place in a text input (with the line and a caret)
    FILE:LINE: error: MESSAGE                a line of a YAML file (patches, rollout) or Python file
    FILE: JSON.PATH: error: MESSAGE          a place in a JSON input (`program.regions[0]...`)
    FILE: error: MESSAGE                     a file as a whole (missing, unreadable, the wrong kind)
    error: MESSAGE                           no file: a command-line value (an unknown pass)

so the file is never part of MESSAGE (`error: x.pir: no such file` was), and a value quoted
in a message is shortened with `excerpt`, never cut inside a word.
"""

from __future__ import annotations


def render_diagnostic(severity: str, message: str, filename: str | None = None, line: int = 0,
                      column: int = 0, source_line: str | None = None, path: str = "") -> str:
    """`WHERE: SEVERITY: MESSAGE`, plus the source line and a caret when there is one."""
    where = filename or ""
    if where and line:
        where += f":{line}"
        if column:
            where += f":{column}"
    if path:
        where = f"{where}: {path}" if where else path
    out = f"{where}: {severity}: {message}" if where else f"{severity}: {message}"
    if source_line is not None:
        shown, caret = _clip(source_line.rstrip("\n"), max(column - 1, 0))
        out += "\n" + shown + "\n" + " " * caret + "^"
    return out


def excerpt(text: str, limit: int) -> str:
    """`text` for a message: whole when it has at most `limit` characters, else its start up
    to the last word boundary that fits, then `...` (the whole is at most `limit`).  A word is
    never cut, unless the first one alone is longer than the limit (a 10,000-character name):
    then it is cut at the limit, still marked with `...`."""
    if len(text) <= limit:
        return text
    room = max(limit - 3, 1)
    cut = room
    while cut > 0 and (_inside_word(text, cut) or not text[:cut].strip()):
        cut -= 1
    if cut == 0:
        cut = room
    return text[:cut].rstrip() + "..."


def first_line(error: BaseException, empty: str = "") -> str:
    """The first line of an exception's message (`empty` when it has none): what a one-line
    record or message quotes of it."""
    lines = str(error).strip().splitlines()
    return lines[0] if lines else empty


def _inside_word(text: str, i: int) -> bool:
    """Whether a cut before text[i] splits a word (a run of letters, digits and `_`)."""
    return _word_char(text[i - 1]) and _word_char(text[i])


def _word_char(c: str) -> bool:
    return c.isalnum() or c == "_"


# A line past this many characters is shown as a window around the column: a 14 MB line
# (one huge attribute) would otherwise be copied into every message about it.
_SHOWN_LINE = 200
_CONTEXT = 80


def _clip(line: str, caret: int) -> tuple[str, int]:
    if len(line) <= _SHOWN_LINE:
        return line, caret
    start = max(caret - _CONTEXT, 0)
    stop = min(caret + _CONTEXT, len(line))
    head = "..." if start else ""
    tail = "..." if stop < len(line) else ""
    return head + line[start:stop] + tail, caret - start + len(head)


class Located:
    """A location (all optional): `filename`, `line` and `column` (1-based), `source_line`
    (the text of that line, for the caret), `path` (a JSON path); and the severity a
    diagnostic at it has."""

    severity = "error"
    filename: str | None = None
    line: int = 0
    column: int = 0
    source_line: str | None = None
    path: str = ""

    @property
    def bare_message(self) -> str:
        """The message alone, without its location."""
        message = self.__dict__.get("message")
        return message if message is not None else Exception.__str__(self)

    def render_self(self) -> str:
        return render_diagnostic(self.severity, self.bare_message, self.filename, self.line,
                                 self.column, self.source_line, self.path)


class Note(Located, Exception):
    """A note attached to an error (`FILE:LINE:COL: note: ...`), printed after it."""

    severity = "note"

    def __init__(self, message: str, where: "Located | None" = None):
        super().__init__(message)
        self.message = message
        if where is not None:
            for key in ("filename", "line", "column", "source_line", "path"):
                setattr(self, key, getattr(where, key))


class PircError(Located, Exception):
    """Base of every error pirc reports to a user; `notes` follow it when it is printed."""

    notes: tuple = ()

    def render(self) -> str:
        return "\n".join([self.render_self()] + [n.render_self() for n in self.notes])

    def with_note(self, message: str, where: "Located | None" = None) -> "PircError":
        """Attach a note (at `where`'s location, else this error's)."""
        self.notes = tuple(self.notes) + (Note(message, where if where is not None else self),)
        return self

    def in_file(self, filename: str) -> "PircError":
        """Name the input file this error is about (for errors raised without it)."""
        if not self.filename:
            self.filename = filename
        return self

    def at(self, where: "PircError") -> "PircError":
        """Take `where`'s location (an error of another kind raised at the same place)."""
        for key in ("filename", "line", "column", "source_line", "path"):
            setattr(self, key, getattr(where, key))
        return self


class PircWarning(Located, UserWarning):
    """A warning pirc reports and goes on (issued with `warnings.warn`, so a library user
    sees it as a Python warning and every command prints it as `WHERE: warning: MESSAGE`;
    `--verify-diagnostics` checks it against `expected-warning`).  PircRemark is a remark."""

    severity = "warning"

    def __init__(self, message: str, filename: str | None = None, line: int = 0,
                 column: int = 0, source_line: str | None = None, path: str = ""):
        super().__init__(message)
        self.message = message
        self.filename, self.line, self.column = filename, line, column
        self.source_line, self.path = source_line, path

    def render(self) -> str:
        return self.render_self()

    def __str__(self) -> str:
        return self.message


class PircRemark(PircWarning):
    severity = "remark"


class SourceError(PircError):
    """An error at a position in a text input: FILE:LINE:COL plus the line and a caret."""

    def __init__(self, message: str, filename: str = "<input>", line: int = 0, column: int = 0,
                 source_line: str | None = None):
        super().__init__(message)
        self.message = message
        self.filename = filename
        self.line = line
        self.column = column
        self.source_line = source_line

    def __str__(self) -> str:
        return self.render()


class JsonError(PircError):
    """An error in a Paddle JSON input, located by its JSON path."""

    def __init__(self, message: str, path: str = "", filename: str = "<input>"):
        super().__init__(message)
        self.message = message
        self.path = path
        self.filename = filename

    def __str__(self) -> str:
        return self.render()


class VersionError(PircError):
    """A program whose PIR version pirc cannot handle."""


class VerifyError(PircError):
    """A program that does not satisfy its version's op specs; `problems` lists them."""

    def __init__(self, message: str, problems=()):
        super().__init__(message)
        self.problems = list(problems)


class ErrorList(PircError):
    """Several located errors reported together (verification of a text input)."""

    def __init__(self, errors: list):  # SourceError or PatchError: anything with render()
        super().__init__("\n".join(e.render() for e in errors))
        self.errors = errors

    def render(self) -> str:
        return "\n".join(e.render() for e in self.errors)


class PatchError(PircError):
    """A mistake in a migration patch file or patch folder: `FILE:LINE: error: ...`.

    Several are reported together as an ErrorList (`pirc-patch validate` shows them all).
    """

    def __init__(self, message: str, filename: str = "<patch>", line: int = 0, column: int = 0):
        super().__init__(message)
        self.message = message
        self.filename = filename
        self.line = line
        self.column = column

    def __str__(self) -> str:
        return self.render()


class LoweringError(PircError):
    """A program pirc cannot turn into a torch module: ops with no lowering, missing parameters."""


class ParamsError(PircError):
    """A Paddle `.pdiparams` file pirc cannot read, or one that does not fit the program."""
