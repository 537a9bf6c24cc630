"""--verify-diagnostics with every kind (error, warning, note, remark) and location form.

pirc's own front ends report errors (tests/lit/verify_diagnostics drives them); warnings,
notes and remarks come from any part of pirc through one mechanism (a PircWarning issued
with `warnings.warn`, a note attached to an error), so the checker is driven here by a
stand-in for pirc-opt's per-part processing that reports each kind at a given place.
"""

from __future__ import annotations

import types
import warnings

from pirc.cli.diagnostics import check_expected_diagnostics, expected_diagnostics
from pirc.errors import PircRemark, PircWarning, SourceError

ARGS = types.SimpleNamespace(split_input_file=True)


def reporting(*, warn=None, remark=None, error=None, note=None):
    """A `process` that warns at line `warn`, remarks at `remark`, fails at `error` with a
    note at `note` (each a line number, or None), as pirc-opt's processing would."""
    def process(chunk, args, filename, offset):
        if warn:
            warnings.warn(PircWarning("attribute x is unknown", filename, warn, 3))
        if remark:
            warnings.warn(PircRemark("folded 2 ops", filename, remark, 1))
        if error:
            e = SourceError("bad op", filename, error, 5, "")
            if note:
                e.with_note("declared here", SourceError("", filename, note, 2))
            raise e
        return ""
    return process


def run(text, process, capsys):
    status = check_expected_diagnostics(text, "t.pir", ARGS, process)
    return status, capsys.readouterr().err


def test_every_kind_matches_on_its_line(capsys):
    text = ("a // expected-warning {{unknown}}\n"
            "b\n"
            "// expected-remark@-1 {{folded}}\n"
            "// expected-error@below {{bad op}}\n"
            "c\n"
            "d // expected-note {{declared}}\n")
    status, err = run(text, reporting(warn=1, remark=2, error=5, note=6), capsys)
    assert (status, err) == (0, "")


def test_unmatched_and_unexpected_of_each_kind_are_reported(capsys):
    text = "a // expected-note {{declared}}\nb\n"
    status, err = run(text, reporting(warn=2, remark=2, error=2, note=2), capsys)
    assert status == 1
    assert err.splitlines() == [
        "t.pir:2:3: error: unexpected warning: attribute x is unknown",
        "t.pir:2:1: error: unexpected remark: folded 2 ops",
        "t.pir:2:5: error: unexpected error: bad op",
        "t.pir:2:2: error: unexpected note: declared here",
        't.pir:1:6: error: expected note "declared" was not produced',
    ]


def test_an_error_without_a_line_matches_only_unknown(capsys):
    def process(chunk, args, filename, offset):
        from pirc.errors import PircError
        raise PircError("the program as a whole is wrong")
    status, err = run("// expected-error@unknown {{as a whole}}\n", process, capsys)
    assert (status, err) == (0, "")
    status, err = run("// expected-error@+1 {{as a whole}}\nx\n", process, capsys)
    assert status == 1 and "t.pir: error: unexpected error: the program as a whole is wrong" in err


def test_line_numbers_of_later_parts_count_from_the_file_start():
    chunk = "x\n// expected-error@above {{a}}\ny  // expected-warning@+1 {{b {{c}} d}}\n"
    got = [(e.kind, e.text, e.line, e.at_column) for e in expected_diagnostics(chunk, 10, "t.pir")]
    # As mlir: one expectation per line, its text up to the line's last `}}`.
    assert got == [("error", "a", 11, 4), ("warning", "b {{c}} d", 14, 7)]
