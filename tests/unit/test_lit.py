"""Runs the lit + FileCheck suite (tests/lit) as part of `pytest`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_lit_suite_passes():
    run = subprocess.run(
        [sys.executable, "-c", "import lit.main; lit.main.main()", "-q", "--no-progress-bar",
         str(ROOT / "tests" / "lit")],
        cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
