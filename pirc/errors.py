"""Errors a user sees: one line saying where and what, no traceback."""

from __future__ import annotations


class PircError(Exception):
    """Base of every error pirc reports to a user."""

    filename: str | None = None

    def render(self) -> str:
        if self.filename:
            return f"{self.filename}: error: {self}"
        return f"error: {self}"

    def in_file(self, filename: str) -> "PircError":
        """Name the input file this error is about (for errors raised without it)."""
        if not self.filename:
            self.filename = filename
        return self


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

    def render(self) -> str:
        out = f"{self.filename}:{self.line}:{self.column}: error: {self.message}"
        if self.source_line is not None:
            out += "\n" + self.source_line.rstrip("\n") + "\n" + " " * max(self.column - 1, 0) + "^"
        return out

    def __str__(self) -> str:
        return self.render()


class JsonError(PircError):
    """An error in a Paddle JSON input, located by its JSON path."""

    def __init__(self, message: str, path: str = "", filename: str = "<input>"):
        super().__init__(message)
        self.message = message
        self.path = path
        self.filename = filename

    def render(self) -> str:
        where = f"{self.filename}: {self.path}: " if self.path else f"{self.filename}: "
        return f"{where}error: {self.message}"

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

    def render(self) -> str:
        where = self.filename
        if self.line:
            where += f":{self.line}"
            if self.column:
                where += f":{self.column}"
        return f"{where}: error: {self.message}"

    def __str__(self) -> str:
        return self.render()


class LoweringError(PircError):
    """A program pirc cannot turn into a torch module: ops with no lowering, missing parameters."""


class ParamsError(PircError):
    """A Paddle `.pdiparams` file pirc cannot read, or one that does not fit the program."""
