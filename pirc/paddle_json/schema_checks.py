"""Shape checks shared by the JSON reader's parts, and the error they raise."""

from __future__ import annotations

import json

from ..errors import excerpt


class SchemaViolation(Exception):
    """A schema violation; `path` grows as the exception unwinds."""

    def __init__(self, message: str, path: str = ""):
        super().__init__(message)
        self.message = message
        self.path = path

    def under(self, prefix: str) -> "SchemaViolation":
        self.path = prefix + self.path
        return self


class SchemaLimit(SchemaViolation):
    """A value past one of pirc's input limits (pirc/limits.py), located like a violation."""


def show(value, limit: int = 60) -> str:
    """A short rendering of a JSON value for a message."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    except RecursionError:
        text = "[...]" if type(value) is list else "{...}"
    return excerpt(text, limit)


def is_int(x) -> bool:
    return type(x) is int


def is_flag(x) -> bool:
    return type(x) is int or type(x) is bool


def is_number(x) -> bool:
    return type(x) is int or type(x) is float
