"""Reading the top-level op list of a saved program one op at a time.

`json.loads` of a 100k-op program builds a 470 MB tree of dicts and lists
before the first op is made, and the IR is built beside it.  Paddle's
writer (like pirc's) puts the keys in sorted order, so the top-level
block's `"ops"` list comes after everything the reader needs first
(`base_code`, the block's `args`).  `skeleton()` reads the document up to
that list with `json.JSONDecoder.raw_decode` for each value it passes, and
returns it with an `OpStream` in place of the list: the reader then decodes
and builds one op at a time, and each op's JSON is freed once built.

A document laid out otherwise (hand-written keys in another order, extra
keys after the op list) is not streamed: `skeleton()` returns None, or the
stream reports it at the end, and the caller reads it with `json.loads`.
"""

from __future__ import annotations

import json
import re

from .bounds import TOP_OP_DEPTH, TooDeep, locate_in_text

_WS = re.compile(r"[ \t\n\r]*")
_BLANKS = frozenset(" \t\n\r")
# What may follow the top-level op list: the closing brackets of the block,
# the block list, the region, the region list, "program" and the document.
_TAIL = re.compile(r"[ \t\n\r]*\][ \t\n\r]*\}[ \t\n\r]*\][ \t\n\r]*\}[ \t\n\r]*\][ \t\n\r]*\}"
                   r"[ \t\n\r]*\}[ \t\n\r]*\Z")


class NotStreamable(Exception):
    """The document's layout needs the whole-document reader."""


class StreamSyntaxError(Exception):
    """A JSON syntax error found while streaming (carries the JSONDecodeError)."""

    def __init__(self, error: json.JSONDecodeError):
        super().__init__(error.msg)
        self.error = error


TOP_OPS_PATH = "program.regions[0].blocks[0].ops"


def scanner_failure(text: str, pos: int, depth: int, path: str) -> TooDeep:
    """What the C scanner's RecursionError or integer-conversion ValueError at the value
    starting at `pos` means to a user: the limit it went past, located."""
    found = locate_in_text(text, pos, depth)
    if found is None:
        return TooDeep("nested deeper than this Python can read (its recursion limit is "
                       "below pirc's nesting limit, PIRC_MAX_NESTING)", path)
    found.path = path + found.path
    return found


class OpStream:
    """The top-level ops, decoded one by one when iterated (once)."""

    def __init__(self, text: str, pos: int, decoder: json.JSONDecoder):
        self.text = text
        self.pos = pos  # just after the list's `[`
        self.decoder = decoder
        self.complete = False

    def __iter__(self):
        # The C scanner directly (what raw_decode wraps), and the separators tested by
        # character first: Paddle writes compact JSON, so the whitespace regex runs only
        # when a separator is not the next character (~0.1 s of 2 s at 100k ops).
        text, scan, ws = self.text, self.decoder.scan_once, _WS.match
        pos = ws(text, self.pos).end()
        if text.startswith("]", pos):
            self.pos = pos
        else:
            index = 0
            while True:
                try:
                    op, end = scan(text, pos)
                except StopIteration as stop:
                    raise StreamSyntaxError(json.JSONDecodeError("Expecting value", text, stop.value)) from None
                except json.JSONDecodeError as e:
                    raise StreamSyntaxError(e) from None
                except (RecursionError, ValueError):
                    # nesting at Python's recursion limit, or an integer over Python's
                    # 4,300 digits: both far past pirc's own limits
                    raise scanner_failure(text, pos, TOP_OP_DEPTH,
                                          f"{TOP_OPS_PATH}[{index}]") from None
                pos = end
                index += 1
                yield op
                c = text[pos:pos + 1]
                if c == ",":
                    pos += 1
                    if text[pos:pos + 1] in _BLANKS:
                        pos = ws(text, pos).end()
                    continue
                if c == "]":
                    break
                pos = ws(text, pos).end()
                if text.startswith(",", pos):
                    pos = ws(text, pos + 1).end()
                    continue
                if text.startswith("]", pos):
                    break
                raise StreamSyntaxError(json.JSONDecodeError("Expecting ',' delimiter", text, pos))
            self.pos = pos
        if not _TAIL.match(text, self.pos):
            raise NotStreamable("keys after the top-level op list")
        self.complete = True


class _Scanner:
    def __init__(self, text: str, decoder: json.JSONDecoder):
        self.text = text
        self.decode = decoder.raw_decode

    def skip(self, pos: int) -> int:
        return _WS.match(self.text, pos).end()

    def open(self, pos: int, bracket: str) -> int:
        pos = self.skip(pos)
        if not self.text.startswith(bracket, pos):
            raise NotStreamable(f"expected {bracket!r}")
        return pos + 1

    def value(self, pos: int, path: str, depth: int):
        """The JSON value at pos (a container there would be at `depth`, its JSON path `path`)."""
        pos = self.skip(pos)
        try:
            return self.decode(self.text, pos)
        except json.JSONDecodeError as e:
            raise StreamSyntaxError(e) from None
        except (RecursionError, ValueError):
            raise scanner_failure(self.text, pos, depth, path) from None

    def members(self, pos: int):
        """Yield (key, position of its value) for the object whose `{` ends at pos;
        the caller reads each value and sends back the position after it."""
        text = self.text
        pos = self.skip(pos)
        if text.startswith("}", pos):
            return
        while True:
            key, pos = self.value(pos, "", 0)
            if type(key) is not str:
                raise NotStreamable("object key")
            pos = self.skip(pos)
            if not text.startswith(":", pos):
                raise NotStreamable("expected ':'")
            pos = yield key, pos + 1
            pos = self.skip(pos)
            if text.startswith(",", pos):
                pos += 1
                continue
            if text.startswith("}", pos):
                return
            raise NotStreamable("expected ',' or '}'")


def skeleton(text: str, decoder: json.JSONDecoder):
    """The document with an OpStream as its top-level op list, or None."""
    scan = _Scanner(text, decoder)
    doc: dict = {}
    try:
        members = scan.members(scan.open(0, "{"))
        key, pos = next(members)
        while True:
            if key == "program":
                if "base_code" not in doc:
                    return None
                doc["program"] = _program(scan, pos)
                return doc
            doc[key], pos = scan.value(pos, key, 2)
            key, pos = members.send(pos)
    except (NotStreamable, StopIteration):
        return None


def _program(scan: _Scanner, pos: int) -> dict:
    program: dict = {}
    members = scan.members(scan.open(pos, "{"))
    key, pos = next(members)
    if key != "regions":
        raise NotStreamable("program keys")
    pos = scan.open(pos, "[")
    region: dict = {}
    program["regions"] = [region]
    members = scan.members(scan.open(pos, "{"))
    key, pos = next(members)
    while key != "blocks":
        region[key], pos = scan.value(pos, f"program.regions[0].{key}", 5)
        key, pos = members.send(pos)
    pos = scan.open(pos, "[")
    block: dict = {}
    region["blocks"] = [block]
    members = scan.members(scan.open(pos, "{"))
    key, pos = next(members)
    while key != "ops":
        block[key], pos = scan.value(pos, f"program.regions[0].blocks[0].{key}", 7)
        key, pos = members.send(pos)
    block["ops"] = OpStream(scan.text, scan.open(pos, "["), scan_decoder(scan))
    return program


def scan_decoder(scan: _Scanner) -> json.JSONDecoder:
    return scan.decode.__self__
