"""CI smoke of the fuzzer's `fusion` front (differential fuzzing of the fusion passes): a
seeded 60 programs, each through `fuse`, `npu` and its pattern's own pass, within the fired
fusions' tolerance; no finding allowed.  The long run and its figures: docs/ROBUSTNESS.md."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # `tools` is a folder of the checkout, not an installed package

from tools.fuzz import engine  # noqa: E402
from tools.fuzz.cases import make_case  # noqa: E402
from tools.fuzz.findings import REPLAY, save_class  # noqa: E402

SEED, COUNT = 11, 60


def test_fusion_front_finds_nothing(tmp_path):
    stats = engine.run_campaign("fusion", SEED, COUNT, 1, None, hang_s=20.0, memory_mb=2048,
                                log=lambda m: None)
    assert stats.inputs == COUNT
    if not stats.findings:
        return
    lines = [f"{stats.crashing_inputs} of {stats.inputs} fusion inputs fail:"]
    for f in sorted(stats.findings.values(), key=lambda f: -f.count):
        case = make_case("fusion", SEED, f.index)
        folder = save_class(tmp_path, f.sig, f.count, case, case, f.traceback, "", minimized=False)
        lines.append(f"  {f.count:4d}  {f.sig}\n        {REPLAY.format(sorted(folder.glob('input.*'))[0])}")
    pytest.fail("\n".join(lines), pytrace=False)


def test_fusion_cases_are_deterministic():
    a, b = make_case("fusion", SEED, 5), make_case("fusion", SEED, 5)
    assert a.data == b.data and a.origin == b.origin and a.targets == b.targets
