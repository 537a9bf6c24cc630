"""CI smoke of the fuzzer (tools/fuzz): a seeded 1,000 inputs per reader front end and 60-80
per pass-layer front end (differential mode and surfaces), no finding allowed.

The inputs are the same on every run and machine (input k is a function of the seed and k
alone), so a failure here is reproducible: the message names each class with the command
that replays its input.  docs/ROBUSTNESS.md ("Fuzzing") describes the tool and the
properties checked; the long campaigns run the same code with more inputs.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # `tools` is a folder of the checkout, not an installed package

from tools.fuzz import engine  # noqa: E402
from tools.fuzz.cases import make_case  # noqa: E402
from tools.fuzz.findings import REPLAY, save_class  # noqa: E402

SMOKE_SEED = 9
SMOKE_INPUTS = 1000
# The pass layer's fronts cost more per input (a program run, passes, a command in process):
# the differential mode 60 programs (each through three or four targets), the surfaces 80.
PASS_LAYER_INPUTS = {"passes": 60, "spec": 80, "rollout": 80, "repro": 80, "tags-text": 80,
                     "tags-json": 80, "inputs": 80, "params": 80}


def _jobs() -> int:
    return max(1, min(2, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1))


@pytest.mark.parametrize("front", ["text", "json", "yaml"] + list(PASS_LAYER_INPUTS))
def test_fuzz_smoke_finds_nothing(front, tmp_path):
    count = PASS_LAYER_INPUTS.get(front, SMOKE_INPUTS)
    stats = engine.run_campaign(front, SMOKE_SEED, count, _jobs(), None, hang_s=10.0,
                                memory_mb=2048, log=lambda m: None)
    assert stats.inputs == count
    if not stats.findings:
        return
    lines = [f"{stats.crashing_inputs} of {stats.inputs} {front} inputs fail, in {len(stats.findings)} classes:"]
    for f in sorted(stats.findings.values(), key=lambda f: -f.count):
        case = make_case(front, SMOKE_SEED, f.index)
        folder = save_class(tmp_path, f.sig, f.count, case, case, f.traceback, "", minimized=False)
        inputs = sorted(folder.glob("input.*"))
        lines.append(f"  {f.count:4d}  {f.sig}")
        lines.append(f"        {REPLAY.format(inputs[0])}")
        lines.append(f"        (regenerate: python -m tools.fuzz case --front {front} --seed {SMOKE_SEED} "
                     f"--index {f.index} -o input{inputs[0].suffix})")
    pytest.fail("\n".join(lines), pytrace=False)
