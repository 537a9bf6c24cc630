"""`//` comments are removed before the lexer sees the text.

A comment runs from `//` outside a string literal to the end of its line.  The grammar
ignores comments between tokens, but an op line is lexed as a few large tokens (pir.lark),
and a comment after an op on its own line (`... -> tensor<f32> // expected-error {{...}}`)
would be read as part of the result types, or its braces as a region.  Dropping each
comment, and only the comment, keeps every line number and every column before it, so
errors point where they did.  `//` inside a string attribute (`"http://..."`) stays.
"""

from __future__ import annotations

import re

# The part of a line before its comment: anything but a quote, a slash or a newline, a slash
# that does not start `//`, or a whole string literal (with backslash escapes).  Possessive
# (Python 3.11): nothing before a `//` can be matched another way, and backtracking into runs
# of characters is exponential on a line without a comment and linear memory per character.
_CODE = r'(?:[^"/\n]++|/(?!/)|"[^"\\\n]*+(?:\\.[^"\\\n]*+)*+")*+'
_COMMENTED_LINE = re.compile(rf"^({_CODE})//[^\n]*", re.M)


def strip_comments(text: str) -> str:
    """`text` with every `//` comment outside a string literal removed (lines kept)."""
    if "//" not in text:  # most programs: no copy, no scan
        return text
    return _COMMENTED_LINE.sub(r"\1", text)
