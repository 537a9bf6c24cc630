"""The JSON pirc writes loads and runs in real Paddle: the verdicts recorded by
tools/paddle_oracle/check_pirc_json.py still apply to what pirc writes today."""

from __future__ import annotations

import hashlib
import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "tests" / "fixtures" / "paddle_checks" / "pirc_json_loads.json"
TOOL = ROOT / "tools" / "paddle_oracle" / "check_pirc_json.py"


def _tool():
    spec = importlib.util.spec_from_file_location("check_pirc_json", TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


RECORDED = json.loads(RESULTS.read_text())["results"]


def test_every_route_and_both_releases_were_checked():
    routes = {(r["route"], r["paddle"]) for r in RECORDED}
    assert {("json", "3.0.0"), ("json", "3.3.1"), ("text", "3.0.0"), ("text", "3.3.1"),
            ("nan", "3.0.0"), ("nan", "3.3.1")} <= routes


@pytest.mark.parametrize("entry", RECORDED, ids=[f"{r['route']}-{r['case']}" for r in RECORDED])
def test_paddle_loaded_and_ran_what_pirc_writes_today(entry):
    assert entry["verdict"] in ("BITEXACT", "ALLCLOSE")
    if entry["route"] != "text":  # Paddle's text keeps 6 digits; its JSON is exact
        assert entry["verdict"] == "BITEXACT"
    tool = _tool()
    for name, route, src, read, *_ in tool.cases():
        if name == entry["case"] and route == entry["route"] and str(src.relative_to(ROOT)) == entry["source"]:
            written = tool.write_program(read())
            assert hashlib.sha256(written.encode()).hexdigest() == entry["sha256"], (
                "pirc now writes different JSON for this case: rerun "
                "tools/paddle_oracle/check_pirc_json.py against real Paddle")
            return
    pytest.fail(f"case {entry['case']} ({entry['route']}) no longer exists")
