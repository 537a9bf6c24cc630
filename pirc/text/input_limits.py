"""The size limits of a text input, checked before Lark's lexer sees it.

Lark's lexer copies each token several times (a 200 MB string attribute drove `pirc-opt` to
23 GB), so the input's size, its longest line and its longest string literal are checked
first, with C-speed string operations only: a file under a limit needs no scan for it.
Nesting depth is checked by the builder, which walks the (iterative) LALR parser's tree.
"""

from __future__ import annotations

import re

from .. import limits
from ..errors import SourceError

# A STRING token of pir.lark (strings never span lines), written as an unrolled loop so
# that the regular expression engine runs over a long string in one fast character-class step.
_STRING = re.compile(r'"[^"\\\n]*(?:\\.[^"\\\n]*)*"')


def _byte_len(s: str) -> int:
    return len(s) if s.isascii() else len(s.encode("utf-8", "surrogatepass"))


def check_text_input(text: str, filename: str, line_offset: int = 0) -> None:
    """Raise a located error naming the limit when `text` is over a size limit."""
    size = _byte_len(text)
    if size > limits.MAX_INPUT_BYTES.value():
        raise SourceError(limits.MAX_INPUT_BYTES.message(size), filename, 1 + line_offset, 1, None)
    line_limit = limits.MAX_LINE_BYTES.value()
    string_limit = limits.MAX_STRING_ATTR.value()
    shortest = min(line_limit, string_limit)
    if size <= shortest:  # no line and no string can be longer than the whole input
        return
    lines = text.split("\n")
    for number, line in enumerate(lines, 1):
        if len(line) * 4 <= shortest:  # even all 4-byte characters would fit
            continue
        length = _byte_len(line)
        if length <= shortest:
            continue
        where = (filename, number + line_offset)
        if length > string_limit:
            for m in _STRING.finditer(line):
                found = _byte_len(m.group())
                if found > string_limit:
                    raise SourceError(limits.MAX_STRING_ATTR.message(found), *where, m.start() + 1,
                                      line[:m.start() + 80])
        if length > line_limit:
            raise SourceError(limits.MAX_LINE_BYTES.message(length), *where, 1, line[:80])
