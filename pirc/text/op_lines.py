"""The parts of an op line, split with regular expressions.

An ordinary op line is lexed as one OP_LINE token (see pir.lark); these
helpers cut it into its head (results, op name, operands), attribute
dictionary and signature without a second parse.
"""

from __future__ import annotations

import re

from lark import Token

NULL_VALUE_TEXT = "<<NULL VALUE>>"

# The op name as pir.lark lexes it: quoted (any character but `"` and a newline; the builder
# checks it against pirc.ir.op_names) or bare `dialect.name`.  Exactly one of the two groups
# matches.
_NAME = r'(?:"([^"\n]*)"|([A-Za-z_][A-Za-z0-9_]*\.[A-Za-z0-9_.]+))'

_LINE = re.compile(
    r'(\(([^()]*)\)[ \t]*=[ \t]*' + _NAME + r'[ \t]*(?:\[id:-?\d+\][ \t]*)?\(([^()]*)\)[ \t]*)'
    r'(\{[^{}"\n]*(?:"[^"\\\n]*(?:\\.[^"\\\n]*)*"[^{}"\n]*)*\}[ \t]*)?'
    r'(:.*)$', re.S)


class Piece:
    """A part of an OP_LINE token, with its position (a light stand-in for a lark Token)."""

    __slots__ = ("text", "type", "line", "column", "parts")

    def __init__(self, text: str, type_: str, line: int, column: int, parts=None):
        self.text = text
        self.type = type_
        self.line = line
        self.column = column
        self.parts = parts  # for an op head: (results text, op name, operands text)

    def __str__(self) -> str:
        return self.text


def split_line(tok: Token):
    """Split an OP_LINE token into its OP_HEAD, ATTR_DICT (or None) and SIGNATURE parts."""
    m = _LINE.match(tok)
    line, col = tok.line, tok.column
    head, results, quoted, bare, operands, attrs, sig = m.groups()
    name = bare if quoted is None else quoted
    return (Piece(head, "OP_HEAD", line, col, (results, name, operands)),
            None if attrs is None else Piece(attrs, "ATTR_DICT", line, col + m.start(6)),
            Piece(sig, "SIGNATURE", line, col + m.start(7)))


_HEAD = re.compile(r'\(([^()]*)\)\s*=\s*' + _NAME + r'\s*(?:\[id:-?\d+\]\s*)?(\(.*\))\s*$', re.S)


def split_head(text: str) -> tuple[str, str, str]:
    """`(%r) = "pd_op.x" [id:3] (%a, %b)` -> ("%r", "pd_op.x", "(%a, %b)")."""
    m = _HEAD.match(text)
    results, quoted, bare, operands = m.groups()
    return results, bare if quoted is None else quoted, operands


_VALUE_NAME = re.compile(r"%[A-Za-z0-9_]+|<<NULL VALUE>>")


def value_names(text: str) -> list[str]:
    """`(%0, <<NULL VALUE>>, %arg_1)` -> ["%0", "<<NULL VALUE>>", "%arg_1"]."""
    return _VALUE_NAME.findall(text)


def while_operands(text: str) -> tuple[str, list[str]]:
    inner = text[1:-1]
    cond_part, _, inputs_part = inner.partition("inputs=")
    cond = cond_part.replace("cond=", "").strip().rstrip(",").strip()
    inputs = [n.strip() for n in inputs_part.split(",") if n.strip()]
    return cond, inputs

