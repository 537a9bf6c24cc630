"""Reading and writing programs in each format, chosen by name or extension.

Formats: `pir` (pirc's canonical text; reading accepts every text form),
`paddle` (Paddle 3.3's printed text; write only: reading it is `pir`),
`json` (Paddle's saved-program JSON).
"""

from __future__ import annotations

import sys

from .atomic import write_atomically
from .errors import PircError
from .ir.program import Program

INPUT_FORMATS = ("pir", "json")
OUTPUT_FORMATS = ("pir", "paddle", "json")


STDIN_NAMES = ("-", "<stdin>")


def input_format_for(path: str, forced: str | None = None, text: str | None = None) -> str:
    """`-x` if given; for stdin (no name to go by) the content's kind; else by extension."""
    if forced:
        return forced
    if path in STDIN_NAMES and text is not None:
        return format_of_content(text)
    return "json" if path.endswith(".json") else "pir"


def format_of_content(text: str) -> str:
    """"json" for a JSON object, else "pir".

    Both Paddle JSON and Paddle's printed text open with `{`; in JSON the next thing is a
    key (`"`), in Paddle text an op line (`(%0) = ...`, `() = ...`) or the closing `}`.
    Canonical text opens with `pir.version`.
    """
    rest = text.lstrip("\ufeff \t\r\n")
    return "json" if rest.startswith("{") and rest[1:].lstrip(" \t\r\n").startswith('"') else "pir"


def output_format_for(input_format: str, out_path: str | None, emit: str | None) -> str:
    if emit:
        return emit
    if out_path and out_path != "-":
        return "json" if out_path.endswith(".json") else "pir"
    return "json" if input_format == "json" else "pir"


def read_input(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    from . import limits

    try:
        # bounded: a FIFO that never ends or a sparse file of a terabyte stops at the input
        # size limit instead of filling memory
        text = limits.read_bounded(path, limits.MAX_INPUT_BYTES).decode("utf-8")
    except FileNotFoundError:
        raise PircError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise PircError(f"{path}: is a directory, expected a PIR text or JSON file") from None
    except UnicodeDecodeError as e:
        raise PircError(f"{path}: not UTF-8 text (byte {e.start}); expected PIR text or Paddle JSON") from None
    except OSError as e:
        raise PircError(f"{path}: cannot read it: {e.strerror}") from None
    # what reading in text mode did: universal newlines (a CRLF file reads as LF)
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


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
    return "".join(format_program_chunks(program, fmt))


def format_program_chunks(program: Program, fmt: str):
    """The program in format `fmt`, as an iterable of text pieces."""
    if fmt == "json":
        from .ir.builder import gc_paused
        from .paddle_json.writer import write_program_chunks
        with gc_paused():
            yield from write_program_chunks(program)
        return
    if fmt == "paddle":
        from .text.paddle_printer import print_paddle
        yield print_paddle(program)
        return
    from .text.canonical_printer import print_canonical
    yield print_canonical(program)


def write_output(path: str | None, text) -> None:
    """Write `text` (a string or an iterable of pieces) to `path` atomically
    (temp file + rename), or to stdout."""
    pieces = (text,) if isinstance(text, str) else text
    if path is None or path == "-":
        for piece in pieces:
            sys.stdout.write(piece)
        sys.stdout.flush()
        return
    write_atomically(path, pieces)
