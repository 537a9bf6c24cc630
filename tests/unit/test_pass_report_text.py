"""The pass report's JSON layout (pirc.cli.pass_report.report_text): the same document as
`json.dumps` writes, one space per level, and each object or array of scalars on a line of
its own, so a rewrite, a skip or a near miss is one line of the file."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from pirc.cli.pass_report import report_text

INPUTS = Path(__file__).resolve().parents[1] / "lit" / "passes" / "Inputs"

scalars = (st.none() | st.booleans() | st.integers() | st.text()
           | st.floats(allow_nan=False, allow_infinity=False))
documents = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4)
                         | st.dictionaries(st.text(), inner, max_size=4), max_leaves=30)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(), documents, max_size=5))
def test_the_text_is_the_document(report):
    text = report_text(report)
    assert json.loads(text) == report
    assert text.endswith("\n")
    # every line of the layout is either a bracket, a key opening a container, or one
    # flat value: no line holds a nested container
    for line in text.splitlines():
        stripped = line.strip().rstrip(",")
        if stripped.startswith(("{", "[")) and len(stripped) > 1:
            value = json.loads(stripped)
            inner = value.values() if isinstance(value, dict) else value
            assert not any(isinstance(v, (dict, list)) for v in inner), line


def test_nonfinite_floats_are_written_as_json_dumps_writes_them():
    report = {"passes": [{"seconds": math.inf, "x": [1, {"y": -math.inf}]}]}
    assert json.loads(report_text(report)) == json.loads(json.dumps(report))


def test_each_rewrite_of_a_real_report_is_one_line(tmp_path):
    out = tmp_path / "report.json"
    subprocess.run([sys.executable, "-m", "pirc.cli.opt", str(INPUTS / "small.pir"), "--from-version=4",
                    "-p", "default", "--pass-report", str(out), "-o", str(tmp_path / "out.pir")],
                   check=True, capture_output=True, text=True)
    text = out.read_text()
    report = json.loads(text)
    lines = text.splitlines()
    details = [d for p in report["passes"] for d in p.get("rewrites_detail", [])]
    assert details, "small.pir has a cse merge"
    for detail in details:
        assert sum(line.strip().rstrip(",") == json.dumps(detail) for line in lines) >= 1
    assert lines[0] == "{" and lines[-1] == "}"
    assert ' "pipeline": "default",' in lines
