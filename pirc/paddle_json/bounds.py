"""Where a Paddle JSON document goes past one of pirc's input limits (pirc/limits.py).

Depth is JSON bracket depth: the document's own `{` is level 1, a top-level op's object is
level 8 (`{"program":{"regions":[{"blocks":[{"ops":[{...`), and each region of an op adds 6
more (`"regions":[{"blocks":[{"ops":[{`).  Reader and writer count it the same way, so that
pirc refuses to write exactly what it would refuse to read.

Checking costs nothing on the happy path of the reader: the JSON is parsed by Python's C
scanner, the structure the reader walks is counted as it is walked, and a leaf value (an
attribute, a type, a key pirc keeps without knowing it) is measured once per distinct value
(`check_value`), when it is first decoded.  The C scanner itself fails only far beyond the
limits (nesting at Python's recursion limit, integers over Python's 4,300 digits); those
failures are turned into the same located error by `locate_in_text`, which re-reads the
offending value iteratively, on the error path only.
"""

from __future__ import annotations

import re

from .. import limits
from ..errors import JsonError
from ..limits import LimitError

TOP_OP_DEPTH = 8    # a top-level op's object
REGION_STEP = 6     # from an op's object to the objects of the ops in its regions
LEAF_STEP = 2       # from an op's object to a value it holds: "A":[{"AT": value


class TooDeep(Exception):
    """A limit exceeded at `path` (relative to where the check started)."""

    def __init__(self, message: str, path: str = ""):
        super().__init__(message)
        self.message = message
        self.path = path


def depth_message(found: int | None = None) -> str:
    return limits.MAX_NESTING.message(found)


def _digits_over(x: int, max_digits: int) -> bool:
    # `abs(x) >= 10**n` without converting a huge integer to decimal.
    return x.bit_length() > 3 * max_digits and abs(x) >= 10 ** max_digits


def string_over(s: str, max_bytes: int) -> bool:
    n = len(s)
    return n > max_bytes or (4 * n > max_bytes and len(s.encode("utf-8", "surrogatepass")) > max_bytes)


def current_limits() -> tuple[int, int, int]:
    """(nesting, integer digits, string bytes): read once per document, not per value (the
    environment is slow to read)."""
    return limits.MAX_NESTING.value(), limits.MAX_INT_DIGITS.value(), limits.MAX_STRING_ATTR.value()


def check_value(value, depth: int, bounds: tuple[int, int, int] | None = None) -> None:
    """Raise TooDeep if the JSON value, whose outermost bracket would be at `depth`, nests
    past the nesting limit, holds an integer past the digit limit, or a string past the
    string limit (`bounds`: current_limits(), read now if not given).  Iterative: safe
    whatever the value's depth."""
    max_depth, max_digits, max_string = bounds or current_limits()
    stack = [(value, depth, "")]
    while stack:
        v, d, path = stack.pop()
        t = type(v)
        if t is dict or t is list:
            if d > max_depth:
                raise TooDeep(limits.MAX_NESTING.message(), path)
            items = v.items() if t is dict else enumerate(v)
            for k, x in items:
                if t is dict:
                    if string_over(k, max_string):
                        raise TooDeep(limits.MAX_STRING_ATTR.message(len(k)), path)
                    sub = f"{path}.{k}"
                else:
                    sub = f"{path}[{k}]"
                tx = type(x)
                if tx is dict or tx is list or tx is int or tx is str:
                    stack.append((x, d + 1, sub))
        elif t is int:
            if _digits_over(v, max_digits):
                raise TooDeep(limits.MAX_INT_DIGITS.message(), path)
        elif t is str:
            if string_over(v, max_string):
                raise TooDeep(limits.MAX_STRING_ATTR.message(len(v)), path)


def json_depth(value) -> int:
    """The bracket depth of a JSON value (0 for a scalar), iteratively."""
    best = 0
    stack = [(value, 1)]
    while stack:
        v, d = stack.pop()
        t = type(v)
        if t is dict:
            best = max(best, d)
            stack.extend((x, d + 1) for x in v.values() if type(x) is dict or type(x) is list)
        elif t is list:
            best = max(best, d)
            stack.extend((x, d + 1) for x in v if type(x) is dict or type(x) is list)
    return best


# One JSON token: a string, a number, punctuation, or a bare word (true, NaN, ...).
_TOKEN = re.compile(
    r'[ \t\n\r]*(?:(")|(-?([0-9]+)(\.[0-9]*)?([eE][-+]?[0-9]+)?)|([\[\]{}:,])|([A-Za-z_]+|-Infinity))')
_STRING_BODY = re.compile(r'[^"\\]*(?:\\.[^"\\]*)*"', re.S)


def locate_in_text(text: str, pos: int, depth: int) -> TooDeep | None:
    """The first point of the JSON value at `text[pos:]` (its outermost bracket at `depth`)
    that goes past a limit, as a TooDeep with its path; None if there is none (the value is
    then malformed in some other way, or too deep for this Python though within the limit).

    Iterative and slow (a Python loop over tokens): only for when the C scanner has failed.
    """
    max_depth = limits.MAX_NESTING.value()
    max_digits = limits.MAX_INT_DIGITS.value()
    # frames: [is_object, key or index, expecting a key]
    stack: list[list] = []
    n = len(text)

    def where() -> str:
        parts = []
        for is_obj, comp, _ in stack:
            if is_obj:
                if comp is not None:
                    parts.append(f".{comp}")
            else:
                parts.append(f"[{comp}]")
        return "".join(parts)

    deepest = None
    while pos < n:
        m = _TOKEN.match(text, pos)
        if m is None:
            return None
        pos = m.end()
        if m.group(1):  # a string
            s = _STRING_BODY.match(text, pos)
            if s is None:
                return None
            body = text[pos:s.end() - 1]
            pos = s.end()
            if stack and stack[-1][0] and stack[-1][2]:
                stack[-1][1] = body
                stack[-1][2] = False
            elif not stack:
                return None
            continue
        if m.group(2):  # a number
            if m.group(4) is None and m.group(5) is None and len(m.group(3)) > max_digits:
                return TooDeep(limits.MAX_INT_DIGITS.message(len(m.group(3))), where())
            if not stack:
                return None
            continue
        p = m.group(6)
        if p is None:  # true / false / null / NaN ...
            if not stack:
                return None
            continue
        if p == "[" or p == "{":
            here = depth + len(stack)
            if here > max_depth:
                return TooDeep(limits.MAX_NESTING.message(), where())
            if deepest is None or here > deepest[0]:
                deepest = (here, where())
            stack.append([p == "{", None if p == "{" else 0, p == "{"])
        elif p == "]" or p == "}":
            if not stack:
                return None
            stack.pop()
            if not stack:
                return None
        elif p == ",":
            if not stack:
                return None
            top = stack[-1]
            if top[0]:
                top[1], top[2] = None, True
            else:
                top[1] += 1
    return None


class JsonLimitError(JsonError, LimitError):
    """An input past one of pirc's limits, located by its JSON path."""


_PATH_PART = re.compile(r"\.[^.\[]*|\[[0-9]+\]|[^.\[]+")


def short_path(path: str, keep: int = 12) -> str:
    """A JSON path of a deeply nested point, with its middle elided (`a[0][0]...[0].b`)."""
    parts = _PATH_PART.findall(path)
    if len(parts) <= keep:
        return path
    return "".join(parts[:keep - 3]) + "..." + "".join(parts[-3:])


def limit_error(e: TooDeep, prefix: str, filename: str) -> JsonLimitError:
    """A TooDeep as the error a user reads: `FILE: PATH: error: MESSAGE`."""
    return JsonLimitError(e.message, path=short_path((prefix + e.path).lstrip(".")),
                          filename=filename)
