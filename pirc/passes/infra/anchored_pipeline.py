"""mlir-opt's anchored pipeline form, `--pass-pipeline='builtin.module(cse,dce)'`: the list
inside `builtin.module(...)` is the same pipeline as `-p cse,dce`, options and named
pipelines included (`builtin.module(const-fold{max-iterations=2},dce)`); blanks around a
pass are trimmed, as mlir-opt trims them (`builtin.module(cse, dce)`).

pirc's passes all run on the whole program, so `builtin.module` is the only anchor; anything
else in that form (another anchor, a nested one, no anchor, an unclosed parenthesis, text
after the closing one) is a PipelineError saying what was expected at which column.  Braces
and double-quoted strings are skipped while looking for parentheses: an option's value may
hold one (`upgrade{patch-dir="a(b)"}`).
"""

from __future__ import annotations

import re

from .pipeline import PipelineError

ANCHOR = "builtin.module"
_ANCHOR_NAME = re.compile(r"[A-Za-z_][\w.$-]*\s*$")
_BLANK_BEFORE_OPTIONS = re.compile(r"^([^\s{]+)\s+\{")
_OTHER_ANCHOR = re.compile(r"([A-Za-z_][\w.$-]*)\s*\(")


def pipeline_from_anchored(text: str) -> str | None:
    """The `-p` spec that `builtin.module(SPEC)` anchors; None for `builtin.module()` (no pass).
    PipelineError for anything else."""
    stripped = text.strip()
    start = len(text) - len(text.lstrip())
    other = _OTHER_ANCHOR.match(stripped)
    if other is not None and other.group(1) != ANCHOR:
        raise _error(text, start, f"pirc's passes run on the whole program, anchored on `{ANCHOR}`"
                     f" only, not `{other.group(1)}`: `{ANCHOR}(cse,dce)`")
    if not stripped.startswith(ANCHOR):
        raise _error(text, start, f"expected `{ANCHOR}(` (mlir-opt's anchored form, as in "
                     f"`{ANCHOR}(cse,dce)`); a plain list of passes goes to -p: -p {stripped or 'cse,dce'}")
    pos = start + len(ANCHOR)
    while pos < len(text) and text[pos].isspace():
        pos += 1
    if pos >= len(text) or text[pos] != "(":
        raise _error(text, pos, f"expected `(` after `{ANCHOR}`")
    close = _closing_paren(text, pos)
    rest = text[close + 1:]
    if rest.strip():
        raise _error(text, close + 1 + len(rest) - len(rest.lstrip()),
                     f"unexpected text after `{ANCHOR}(...)`: pirc runs one pipeline on the program")
    return _as_list(text[pos + 1:close]) or None


def _top_level(text: str, start: int):
    """(position, character) of each character of `text` from `start` that stands outside a
    quoted string and outside a pass's `{...}` options: where `,` separates passes and `(` /
    `)` nest.  A `}` with no `{` before it closes nothing here."""
    braces, i = 0, start
    while i < len(text):
        c = text[i]
        if c == '"':
            i = _string_end(text, i)
        elif c == "{":
            braces += 1
        elif c == "}":
            braces = max(braces - 1, 0)
        elif braces == 0:
            yield i, c
        i += 1


def _as_list(inner: str) -> str:
    """The list as `-p` spells it: mlir-opt trims the blanks around each pass (`cse, dce`,
    `const-fold {max-iterations=2}`), xDSL's parser does not; blanks inside `{...}` separate
    options and stay."""
    entries, start = [], 0
    for i, c in _top_level(inner, 0):
        if c == ",":
            entries.append(inner[start:i])
            start = i + 1
    entries.append(inner[start:])
    if not inner.strip():
        return ""
    return ",".join(_BLANK_BEFORE_OPTIONS.sub(r"\1{", e.strip(), count=1) for e in entries)


def _closing_paren(text: str, open_pos: int) -> int:
    """The position of the `)` that closes the `(` at `open_pos`; a PipelineError for a
    nested anchor or a missing `)`."""
    for i, c in _top_level(text, open_pos + 1):
        if c == "(":
            anchor = _ANCHOR_NAME.search(text, 0, i)
            name = anchor.group().strip() if anchor else ""
            raise _error(text, (anchor.start() if anchor else i),
                         f"pirc's passes run on the whole program: `{ANCHOR}(...)` holds a list of "
                         f"passes, not {('`' + name + '(...)`') if name else 'a nested `(...)`'}")
        elif c == ")":
            return i
    raise _error(text, open_pos, f"`{ANCHOR}(` is never closed: expected `)` at the end")


def _string_end(text: str, quote: int) -> int:
    i = quote + 1
    while i < len(text) and text[i] != '"':
        i += 2 if text[i] == "\\" else 1
    return i


def _error(text: str, pos: int, problem: str) -> PipelineError:
    return PipelineError(f"--pass-pipeline {text!r}: at column {pos + 1}: {problem}")
