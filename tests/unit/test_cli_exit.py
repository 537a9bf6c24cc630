"""How the commands end when their reader goes away: `pirc-opt big.pir | head`.

A closed stdout is not an error of the program: no traceback and no "Exception ignored"
at exit, status 141 (what a shell reports for SIGPIPE).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("command", [
    ["pirc", str(ROOT / "examples" / "cnn.3.0.0.json"), "--emit=pir"],
    ["pirc.cli.patch", "diff", "1", "4", "--format=text"],
    ["pirc.cli.compat", "list"],
], ids=["pirc-opt", "pirc-patch", "pirc-compat"])
def test_a_closed_stdout_ends_the_command_quietly(command):
    process = subprocess.Popen([sys.executable, "-m", *command], cwd=ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    process.stdout.close()  # the reader is gone before the first line is written
    stderr = process.stderr.read().decode()
    process.stderr.close()
    assert process.wait(timeout=120) == 141
    assert stderr == ""


def test_an_exception_that_is_no_pirc_error_is_one_line_and_status_70(capsys):
    """A bug in pirc (not a refused input): no traceback, a line saying so, exit 70."""
    from pirc.cli.exit_status import INTERNAL_ERROR_STATUS, report_errors

    def broken() -> int:
        return {}["missing"]

    assert report_errors(broken) == INTERNAL_ERROR_STATUS == 70
    err = capsys.readouterr().err
    assert err.splitlines() == [
        "error: internal error in pirc: KeyError: 'missing'",
        "note: this is a bug in pirc, not in the input; rerun with --debug for the traceback "
        "and report it"]
    with pytest.raises(KeyError):
        report_errors(broken, debug=True)


def test_errors_render_their_location_once():
    """Every location kind renders through one function: `WHERE: error: MESSAGE`."""
    from pirc.errors import JsonError, PatchError, PircError, SourceError, VersionError

    assert SourceError("bad", "f.pir", 3, 7, "abcdefg").render() == "f.pir:3:7: error: bad\nabcdefg\n      ^"
    assert JsonError("bad", "program.regions[0]", "f.json").render() == "f.json: program.regions[0]: error: bad"
    assert PatchError("bad", "2.yaml", 4).render() == "2.yaml:4: error: bad"
    assert PircError("bad").render() == "error: bad"
    located = VersionError("too new").at(SourceError("ignored", "v.pir", 1, 13, "pir.version 9"))
    assert located.render() == "v.pir:1:13: error: too new\npir.version 9\n            ^"
