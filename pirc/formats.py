"""Reading and writing programs in each format, chosen by name or extension.

Formats: `pir` (pirc's canonical text; reading accepts every text form),
`paddle` (Paddle 3.3's printed text; write only: reading it is `pir`),
`json` (Paddle's saved-program JSON).
"""

from __future__ import annotations

import os
import sys
import tempfile

from .errors import PircError
from .ir.program import Program

INPUT_FORMATS = ("pir", "json")
OUTPUT_FORMATS = ("pir", "paddle", "json")


def input_format_for(path: str, forced: str | None = None) -> str:
    if forced:
        return forced
    return "json" if path.endswith(".json") else "pir"


def output_format_for(input_format: str, out_path: str | None, emit: str | None) -> str:
    if emit:
        return emit
    if out_path and out_path != "-":
        return "json" if out_path.endswith(".json") else "pir"
    return "json" if input_format == "json" else "pir"


def read_input(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except FileNotFoundError:
        raise PircError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise PircError(f"{path}: is a directory, expected a PIR text or JSON file") from None
    except UnicodeDecodeError as e:
        raise PircError(f"{path}: not UTF-8 text (byte {e.start}); expected PIR text or Paddle JSON") from None


def parse_program(text: str, fmt: str, filename: str = "<input>", from_version: int | None = None,
                  line_offset: int = 0) -> Program:
    if fmt == "json":
        from .paddle_json.reader import read_program
        program = read_program(text, filename)
        if from_version is not None and from_version != program.version:
            raise PircError(f"{filename}: --from-version={from_version} contradicts the version the "
                            f"file carries (base_code.version {program.version})")
        return program
    from .text.parser import parse_text
    return parse_text(text, filename, from_version, line_offset)


def format_program(program: Program, fmt: str) -> str:
    if fmt == "json":
        from .paddle_json.writer import write_program
        return write_program(program)
    if fmt == "paddle":
        from .text.paddle_printer import print_paddle
        return print_paddle(program)
    from .text.canonical_printer import print_canonical
    return print_canonical(program)


def write_output(path: str | None, text: str) -> None:
    """Write `text` to `path` atomically (temp file + rename), or to stdout."""
    if path is None or path == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".pirc-", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
