"""Downgraded programs load and run in real Paddle 3.0.0: the verdicts recorded by
tools/paddle_oracle/check_downgrade.py still apply to what pirc writes today."""

from __future__ import annotations

import hashlib
import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "tests" / "fixtures" / "paddle_checks" / "downgrade_loads.json"
TOOL = ROOT / "tools" / "paddle_oracle" / "check_downgrade.py"

RECORDED = json.loads(RESULTS.read_text())["results"]
DOWNGRADED = [r for r in RECORDED if r["route"] == "downgrade"]


def _tool():
    spec = importlib.util.spec_from_file_location("check_downgrade", TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_version_4_program_was_checked():
    sources = {str(src.relative_to(ROOT)) for _, src, *_ in _tool().cases()}
    assert sources == {r["source"] for r in DOWNGRADED}
    assert any("corpus" in s for s in sources) and any("patchops" in s for s in sources)


def test_without_the_downgrade_paddle_3_0_0_fails():
    """The downgrade is what makes these run: Paddle 3.0.0 loads the 3.3.1 file without a
    complaint, then fails or crashes at run (FORMAT-NOTES section 6)."""
    as_is = {r["case"]: r["verdict"] for r in RECORDED if r["route"] == "as_is"}
    assert as_is["cnn"] == "RUN_FAIL"
    assert as_is["leaky_relu"] in ("CRASH", "RUN_FAIL")
    assert as_is["mlp"] == "BITEXACT"  # nothing version-specific in it


@pytest.mark.parametrize("entry", DOWNGRADED, ids=[r["case"] for r in DOWNGRADED])
def test_paddle_3_0_0_runs_what_pirc_downgrades_today(entry):
    # ALLCLOSE: 3.3.1 stores e.g. bilinear_interp.scale 1.7 as a double; version 1 can only
    # hold the f32 1.7, and 3.0.0's kernels differ from 3.3.1's in the last bits for some ops.
    assert entry["verdict"] in ("BITEXACT", "ALLCLOSE")
    if "same_document_as_paddle_3.0.0" in entry:
        # The downgraded file is what Paddle 3.0.0 itself saves for the same model.
        assert entry["same_document_as_paddle_3.0.0"], entry.get("differences_from_paddle_3.0.0")
    tool = _tool()
    src = ROOT / entry["source"]
    written = tool.downgraded_json(src)
    assert hashlib.sha256(written.encode()).hexdigest() == entry["sha256"], (
        "pirc now downgrades this program differently: rerun "
        "tools/paddle_oracle/check_downgrade.py against Paddle 3.0.0")
