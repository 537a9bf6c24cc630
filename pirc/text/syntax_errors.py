"""Syntax errors a user can act on: FILE:LINE:COL, the line, a caret, and
what was expected there, in words rather than grammar terminal names.
"""

from __future__ import annotations

import re

from lark import Token
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from ..errors import SourceError, excerpt
from .token_names import expected_text


def syntax_error(e: UnexpectedInput, text: str, filename: str, line_offset: int,
                  at: Token | None = None) -> SourceError:
    lines = text.split("\n")
    line, col = e.line, e.column
    if isinstance(e, UnexpectedEOF) or line is None or line < 1:
        line = max(len(lines), 1)
        col = len(lines[-1]) + 1 if lines else 1
        message = "unexpected end of input; expected " + expected_text(e.expected)
    elif isinstance(e, UnexpectedToken) and e.token.type == "$END":
        message = "unexpected end of input; expected " + expected_text(e.expected)
    elif isinstance(e, UnexpectedToken):
        message = f"unexpected '{_clip(str(e.token).strip())}'; expected {expected_text(e.expected)}"
    elif isinstance(e, UnexpectedCharacters):
        ch = text[e.pos_in_stream] if e.pos_in_stream < len(text) else ""
        allowed = e.allowed or set()
        message = f"unexpected character '{ch}'" + (
            f"; expected {expected_text(allowed)}" if allowed else "")
    else:  # pragma: no cover - lark raises only the three above
        message = str(e)
    source = lines[line - 1] if 0 < line <= len(lines) else ""
    return SourceError(message, filename, line + line_offset, col, source)


# Composite tokens and the sub-grammar that reads their insides.
_COMPOSITE_STARTS = {
    "ATTR_DICT": "attr_dict",
    "SIGNATURE": "signature",
    "RESULT_TYPES": "result_types",
    "BLOCK_ARGS": "block_args",
}


def explain_composite(parser, e, text: str, filename: str, line_offset: int):
    """A composite token failed to lex: find the exact problem inside it.

    `{dtype:float32 : ...` does not lex as an attribute dictionary; parsing
    the rest of the line with the `attr_dict` sub-grammar says where and why.
    """
    if isinstance(e, UnexpectedToken):
        allowed, pos = e.expected or set(), e.token.start_pos
    else:
        allowed, pos = e.allowed or set(), e.pos_in_stream
    if pos is None:
        return None
    line_end = text.find("\n", pos)
    rest = text[pos: line_end if line_end >= 0 else len(text)]
    for terminal, start in _COMPOSITE_STARTS.items():
        if terminal not in allowed or not rest or rest[0] != {"ATTR_DICT": "{", "SIGNATURE": ":",
                                                               "RESULT_TYPES": "-", "BLOCK_ARGS": "^"}[terminal]:
            continue
        try:
            parser.parse(rest, start=start)
        except UnexpectedInput as inner:
            err = syntax_error(inner, rest, filename, 0)
            lines = text.split("\n")
            source = lines[e.line - 1] if 0 < e.line <= len(lines) else ""
            col = e.column + (err.column - 1 if inner.line == 1 else len(rest))
            return SourceError(err.message, filename, e.line + line_offset, col, source)
        except Exception:  # noqa: BLE001 - fall back to the plain message
            return None
    return None


# The parts of an op head, in order, with what to say when one is missing.
_HEAD_PARTS = (
    (re.compile(r"\((?:\s*(?:%[A-Za-z0-9_]+|<<NULL VALUE>>)\s*,?)*\)"), "a result list like (%0, %1)"),
    (re.compile(r"\s*=\s*"), "'=' after the result list"),
    (re.compile(r'(?:"[^"\n]+"|[A-Za-z_][A-Za-z0-9_]*\.[A-Za-z0-9_.]+)'), 'an op name like "pd_op.relu"'),
    (re.compile(r"\s*(?:\[id:-?\d+\]\s*)?"), "[id:N]"),
    (re.compile(r"\((?:cond=[^()\n]*|(?:\s*(?:%[A-Za-z0-9_]+|<<NULL VALUE>>)\s*,?)*)\)"),
     "an operand list like (%0, <<NULL VALUE>>) or (cond=%c, inputs=%a, ...)"),
)


def explain_op_line(e, text: str, filename: str, line_offset: int):
    """An op line whose head `(%r) = "name" (%a)` is malformed: say which part."""
    line_no = e.line
    lines = text.split("\n")
    if not line_no or not 0 < line_no <= len(lines):
        return None
    line = lines[line_no - 1]
    start = len(line) - len(line.lstrip())
    if not line[start:].startswith("("):
        return None
    pos = start
    for pattern, what in _HEAD_PARTS:
        m = pattern.match(line, pos)
        if m is None:
            return SourceError(f"malformed op: expected {what}", filename, line_no + line_offset,
                               pos + 1, line)
        pos = m.end()
    return None


def _clip(s: str, n: int = 40) -> str:
    return excerpt(s, n)

