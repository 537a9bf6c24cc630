"""docs/PASSES.md's example passes run as written."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "PASSES.md"


def test_the_example_pass_runs(tmp_path):
    code = re.search(r"```python\n(.*?)```", DOC.read_text(), re.S).group(1)
    script = tmp_path / "example.py"
    script.write_text(code)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert '"pd_op.fetch" (%0)' in done.stdout


def test_the_declarative_example_runs(tmp_path):
    """"Writing a rewrite declaratively": the fusion fires, and its near miss names the check."""
    section = DOC.read_text().split("## Writing a rewrite declaratively", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    script = tmp_path / "declarative_example.py"
    script.write_text(code)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert '"pd_op.hardsigmoid" (%0) {offset:0.5,slope:0.2' in done.stdout
    assert "clip max is 1: constant operand 2 of pd_op.clip is 6.0" in done.stdout
