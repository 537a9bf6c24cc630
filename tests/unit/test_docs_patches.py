"""docs/PATCHES.md's example action ("Writing a new action") runs as written."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "PATCHES.md"
ROOT = DOC.parents[1]


def test_the_example_action_validates_explains_upgrades_and_downgrades(tmp_path):
    section = DOC.read_text().split("## Writing a new action", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    script = tmp_path / "example.py"
    script.write_text(code)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[1:] == [
        "pd_op.instance_norm_grad: drops operand #2 where it is <<NULL VALUE>>",
        "bad.yaml:4: error: pd_op.instance_norm_grad: drop_null_input: needs `object:` (an index (0, 1, ...))",
        "after 2.yaml: 6 operands",
        "after drop_null_input: 5 operands",
        "after its inverse: 6 operands, operand 2 null: True",
    ]
