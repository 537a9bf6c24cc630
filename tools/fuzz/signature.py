"""Crash classes: one signature per root cause, as far as a traceback can tell.

An exception's signature is its type and the innermost frame in pirc's own code
(`TypeError @ pirc/text/attr_literals.py:80:<genexpr>`), followed by the innermost frame
outside pirc when the exception was raised there (`<- xdsl/dialects/builtin.py:777:verify_value`).
Recursion and memory errors drop the line number and the outside frame: where the stack or
the heap runs out varies from input to input, the pirc function it runs out in does not.  A property failure's
signature is its property and whether the input verified (`Finding json-write-does-not-read
[input verified]`); a hang's is `Hang` and the frame it was interrupted in.
"""

from __future__ import annotations

import traceback
from pathlib import Path

import pirc

from .checks import PropertyFailure

# The pirc being fuzzed: the checkout's, or an installed copy (CI installs with `pip install .`).
PIRC_ROOT = Path(pirc.__file__).resolve().parent
_FUZZ_ROOT = Path(__file__).resolve().parent
_UNSTABLE_LINES = (RecursionError, MemoryError)


class Hang(BaseException):
    """Raised by the watchdog in a check that ran past the time limit (BaseException, so
    that no `except Exception` in pirc swallows it)."""


def _short(filename: str) -> str:
    path = Path(filename)
    try:
        return "pirc/" + str(path.resolve().relative_to(PIRC_ROOT))
    except ValueError:
        pass
    parts = path.parts
    for marker in ("site-packages", "dist-packages"):
        if marker in parts:
            return "/".join(parts[parts.index(marker) + 1:])
    if "lib" in parts and any(p.startswith("python3") for p in parts):
        i = max(i for i, p in enumerate(parts) if p.startswith("python3"))
        return "/".join(parts[i + 1:])
    return path.name


def _is_pirc(filename: str) -> bool:
    try:
        Path(filename).resolve().relative_to(PIRC_ROOT)
        return True
    except ValueError:
        return False


def _frame(fs: traceback.FrameSummary, with_line: bool) -> str:
    where = f"{_short(fs.filename)}:{fs.lineno}:" if with_line else f"{_short(fs.filename)}:"
    return where + fs.name


def signature(exc: BaseException) -> str:
    if isinstance(exc, PropertyFailure):
        return f"Finding {exc.prop} [{exc.tag}]"
    frames = traceback.extract_tb(exc.__traceback__)
    frames = [f for f in frames if not str(Path(f.filename).resolve()).startswith(str(_FUZZ_ROOT))]
    with_line = not isinstance(exc, _UNSTABLE_LINES)
    name = "Hang" if isinstance(exc, Hang) else type(exc).__name__
    pirc_frames = [f for f in frames if _is_pirc(f.filename)]
    if not pirc_frames:
        inner = _frame(frames[-1], with_line) if frames else "<no frame>"
        return f"{name} @ {inner}"
    sig = f"{name} @ {_frame(pirc_frames[-1], with_line)}"
    if with_line and frames and not _is_pirc(frames[-1].filename):
        sig += f" <- {_frame(frames[-1], with_line)}"
    return sig


def slug(sig: str, limit: int = 80) -> str:
    """A file-name form of a signature: `TypeError-pirc-text-attr-literals-py-80-genexpr`."""
    out = []
    for ch in sig:
        out.append(ch if ch.isalnum() else "-")
    text = "".join(out)
    while "--" in text:
        text = text.replace("--", "-")
    return text.strip("-")[:limit].rstrip("-")


def format_exception(exc: BaseException) -> str:
    if isinstance(exc, PropertyFailure):
        return f"property failed: {exc.prop} [{exc.tag}]\n{exc.detail}\n"
    lines = traceback.format_exception(type(exc), exc, exc.__traceback__)
    text = "".join(lines)
    if isinstance(exc, RecursionError) and len(text) > 20000:  # thousands of identical frames
        text = "".join(lines[:12]) + f"\n  ... ({len(lines) - 24} frames) ...\n\n" + "".join(lines[-12:])
    return text
