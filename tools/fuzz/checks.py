"""The properties checked on every input, in process.

1. pirc answers with its own error or not at all: any exception that is not a PircError
   escapes `check_case` and is a crash (classified by signature.py).
2. No hang: the engine's watchdog (engine.py) interrupts a check after the time limit.
3. Every write reads back: a program pirc accepted is printed as canonical text, Paddle text
   and JSON; each must parse again (or the writer must refuse with a PircError), and the
   re-parse must be the same program (pirc.ir.equality; Paddle's print is lossy, so there
   the print of the re-parse must equal the first print: a fixpoint).
4. An upgrade's output verifies: a verified program below the newest version is upgraded
   with pirc's own patches; the result must verify and its writes must read back.  For the
   YAML front end the fuzzed patch is applied as N.yaml of a patch folder to a version N-1
   program; its output need not verify (the patch may be wrong), but its writes must read back.

A property that fails raises PropertyFailure (not a PircError, so it is a finding too).
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from pirc.errors import PircError

from .cases import Case
from . import seeds as S

NEWEST_VERSION = 4


class PropertyFailure(Exception):
    """A property that does not hold on an input pirc accepted."""

    def __init__(self, prop: str, tag: str, detail: str):
        super().__init__(f"{prop} [{tag}]\n{detail}")
        self.prop = prop
        self.tag = tag
        self.detail = detail


@dataclass
class Outcome:
    accepted: bool = False   # the front end read it (no PircError)
    verified: bool = False   # and it verifies at its version
    note: str = ""           # the pirc error that refused it, for replay's report


def check_case(case: Case) -> Outcome:
    if case.front == "text":
        return _check_program(lambda: _parse_text(case.data, "<fuzz>", case.from_version), case.write_order)
    if case.front == "json":
        return _check_program(lambda: _read_json(case.data, "<fuzz.json>"), case.write_order)
    if case.front == "yaml":
        return _check_patch(case)
    if case.front == "passes":
        from .differential import check_passes_case
        return check_passes_case(case)
    if case.front == "fusion":
        from .fusion import check_fusion_case
        return check_fusion_case(case)
    from .cases import SURFACES
    if case.front in SURFACES:
        from .surfaces import check_surface_case
        return check_surface_case(case)
    raise ValueError(f"unknown front end {case.front!r}")


# -- programs (text, JSON) ------------------------------------------------------------------


def _parse_text(text, filename, from_version=None):
    from pirc.text.parser import parse_text
    return parse_text(text, filename, from_version)


def _read_json(text, filename):
    from pirc.paddle_json.reader import read_program
    return read_program(text, filename)


def _verifies(program) -> bool:
    from pirc.ir.verifier import verify_program
    try:
        verify_program(program)
        return True
    except PircError:
        return False


def _check_program(read, order: int) -> Outcome:
    try:
        program = read()
    except PircError as e:
        return Outcome(note=_render(e))
    verified = _verifies(program)
    reread = check_writes(program, "input verified" if verified else "input fails verify", order)
    if verified and program.version < NEWEST_VERSION and reread is not None:
        _check_upgrade(reread, order)
    return Outcome(True, verified)


def check_writes(program, tag: str, order: int = 0):
    """Property 3 on `program`; returns the re-parse of its canonical text (a copy), or None.

    `order` (0-2, the case's write_order) says which format is checked first: a failure in
    one format would otherwise always hide the others.  It belongs to the case, not to the
    data, so that minimizing an input does not change which failure shows."""
    found = {}
    steps = [("pir", _check_canonical), ("json", _check_json), ("paddle", _check_paddle)]
    first = _write(program, "pir")
    turn = order % 3
    for form, step in steps[turn:] + steps[:turn]:
        written = first if form == "pir" else _write(program, form)
        if written is not None:
            found[form] = step(program, written, tag)
    return found.get("pir")


def _check_canonical(program, canonical: str, tag: str):
    return _read_back_equal(program, canonical, lambda t: _parse_text(t, "<canonical>"), tag,
                            "canonical-print-does-not-parse", "canonical-roundtrip-changes-program",
                            "printed")


def _check_json(program, written: str, tag: str):
    return _read_back_equal(program, written, lambda t: _read_json(t, "<written.json>"), tag,
                            "json-write-does-not-read", "json-roundtrip-changes-program", "written")


def _read_back_equal(program, text: str, read, tag: str, unreadable: str, changed: str, label: str):
    """A lossless form's property: `text` (what pirc wrote of `program`) reads back, to an
    equal program; the two property names say which of the two failed."""
    from pirc.ir.equality import program_differences
    try:
        back = read(text)
    except PircError as e:
        raise PropertyFailure(unreadable, tag, _render(e) + f"\n--- {label}:\n" + _clip(text)) from None
    diffs = program_differences(program, back)
    if diffs:
        raise PropertyFailure(changed, tag, "\n".join(diffs) + f"\n--- {label}:\n" + _clip(text))
    return back


def _check_paddle(program, printed: str, tag: str):
    """Paddle's print is lossy (6 digits, no Float/Double): its re-parse must print the same."""
    try:
        back = _parse_text(printed, "<paddle>", program.version)
    except PircError as e:
        raise PropertyFailure("paddle-print-does-not-parse", tag,
                              _render(e) + "\n--- printed:\n" + _clip(printed)) from None
    again = _write(back, "paddle")
    if again is not None and again != printed:
        raise PropertyFailure("paddle-print-not-fixpoint", tag, _first_difference(printed, again))
    return back


def _write(program, form: str) -> str | None:
    """The program in `form`, or None when pirc refuses to write it (a PircError says why)."""
    from pirc.formats import format_program
    try:
        return format_program(program, form)
    except PircError:
        return None


def _check_upgrade(program, order: int) -> None:
    from pirc.versioning.upgrade import upgrade
    from pirc.ir.verifier import verify_program
    try:
        upgrade(program)
    except PircError:
        return  # refused before writing: allowed
    try:
        verify_program(program)
    except PircError as e:
        raise PropertyFailure("upgrade-output-fails-verifier", "input verified", _render(e)) from None
    check_writes(program, "upgraded", order)


# -- patches (YAML) -------------------------------------------------------------------------

_PATCH_ROOT: Path | None = None


def _patch_dir(version: int, text: str) -> Path:
    """A folder holding only `N.yaml` (release N, per check_patch_set's rule for folders
    without versions.yaml), reused for every input of this process."""
    global _PATCH_ROOT
    if _PATCH_ROOT is None:
        _PATCH_ROOT = Path(tempfile.mkdtemp(prefix="pirc-fuzz-patches-"))
    folder = _PATCH_ROOT / "set"
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir()
    (folder / f"{version}.yaml").write_text(text, encoding="utf-8", errors="surrogatepass")
    return folder


def _forget_patch_set(folder: Path) -> None:
    """Drop the upgrade module's per-process caches of this folder (it is rewritten per input)."""
    from pirc.versioning import upgrade as U
    U._SETS.pop(str(folder.resolve()), None)
    for key, (patch, _) in list(U._COMPILED.items()):
        if str(getattr(patch, "path", "")).startswith(str(folder)):
            del U._COMPILED[key]


def _check_patch(case: Case) -> Outcome:
    from pirc.versioning.schema import parse_patch_text
    from pirc.versioning.upgrade import change_version

    version = case.patch_version if case.patch_version is not None else -1
    try:
        _, errors = parse_patch_text(case.data, f"{version}.yaml", version)
    except PircError as e:
        return Outcome(note=_render(e))
    if errors:
        return Outcome(note=_render(errors[0]))
    if case.program is None or case.patch_version is None or case.patch_version < 1:
        return Outcome(True, False)
    seed = S.by_path(case.program, "json")
    if seed is None:
        raise ValueError(f"the program {case.program} is not in the seed corpus")
    program = _read_json(seed.text, case.program)
    folder = _patch_dir(case.patch_version, case.data)
    try:
        change_version(program, target=case.patch_version, patch_dir=folder)
    except PircError as e:
        return Outcome(True, False, note=_render(e))
    finally:
        _forget_patch_set(folder)
    verified = _verifies(program)
    check_writes(program, "patched, verifies" if verified else "patched, fails verify", case.write_order)
    return Outcome(True, verified)


# -- helpers --------------------------------------------------------------------------------


def _render(e: PircError) -> str:
    return e.render()  # a render that raises is a crash too: it is what a user would see


def _clip(text: str, limit: int = 4000) -> str:
    return text if len(text) <= limit else text[:limit] + f"\n... ({len(text)} characters)"


def _first_difference(a: str, b: str) -> str:
    la, lb = a.split("\n"), b.split("\n")
    for i, (x, y) in enumerate(zip(la, lb)):
        if x != y:
            return f"line {i + 1}:\n- {x}\n+ {y}"
    return f"{len(la)} lines != {len(lb)} lines"
