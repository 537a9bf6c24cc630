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
