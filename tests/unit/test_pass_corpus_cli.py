"""The command users run most, on every corpus program: `pirc-opt --upgrade
--pipeline=default PROGRAM.json --pass-report R -o OUT.json`.  The output carries a graph tag
per pass that changed the program (the upgrade first, for programs saved by an older
Paddle) and a manifest, the report describes each pass, and OUT.json, read back, computes
bit for bit what the program upgraded alone computes (random outputs skipped)."""

from __future__ import annotations

import json

import numpy as np
import pytest

import pirc
from pirc.cli.opt import run

from test_parity_corpus import CASES, case_id, random_fetches, run_case

CORPUS = [c for c in CASES if "/corpus/" in str(c[1])]


@pytest.mark.parametrize("case", CORPUS, ids=case_id)
def test_upgrade_and_default_through_pirc_opt(case, tmp_path):
    npz, path, _ = case
    out, report = tmp_path / "out.json", tmp_path / "report.json"
    assert run([str(path), "--upgrade", "-p", "default", "-o", str(out), "--pass-report", str(report)]) == 0
    doc = json.loads(report.read_text())
    names = [p["name"] for p in doc["passes"]]
    assert names[0] == "upgrade" and "cse" in names and "dce" in names
    read_as = pirc.load(str(path)).version
    assert doc["program"] == {"name": path.stem, "fingerprint": doc["program"]["fingerprint"],
                              "pir_version": read_as, "pir_version_after": 4}
    optimised = pirc.load(str(out))
    changed = [p["name"] for p in doc["passes"] if p["rewrites"]]
    assert [t.pass_name for t in optimised.graph_tags] == changed
    assert optimised.manifest.pir_version == 4 and optimised.manifest.pipeline.startswith("upgrade{")
    plain = pirc.load(str(path))
    pirc.upgrade(plain)
    want, got = run_case(plain, npz), run_case(optimised, npz)
    assert list(want) == list(got)
    random = random_fetches(plain)
    for i, name in enumerate(want):
        if i not in random:
            np.testing.assert_array_equal(got[name], want[name], err_msg=f"{name} changed by the pipeline")
