"""pirc's upgrade against real Paddle on every op the patches touch (tests/fixtures/patchops,
made by tools/paddle_oracle/gen_patch_fixtures.py with Paddle 3.0.0, 3.1.1, 3.2.2, 3.3.1).

The oracle (each 3.0.0 / 3.1.1 / 3.2.2 file upgraded equals what Paddle 3.3.1 writes after
loading it, crossload/) is tests/unit/test_upgrade_oracle.py.  Here, intermediate versions: an
older file upgraded to version 2 or 3 equals what Paddle 3.1.1 / 3.2.2 saved for the same
model, except kthvalue at version 2 (Paddle ships that retype in patch 3).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pirc.paddle_json.equality import documents_equal
from pirc.paddle_json.reader import read_program
from pirc.paddle_json.writer import write_program
from pirc.versioning.upgrade import upgrade

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "patchops"
RELEASES = {1: "3.0.0", 2: "3.1.1", 3: "3.2.2", 4: "3.3.1"}
MODELS = sorted(p.name.split(".")[0] for p in (FIX / "3.0.0").glob("*.3.0.0.json")
                if not p.name.startswith("gen_log"))


def _read(version: int, model: str):
    path = FIX / RELEASES[version] / f"{model}.{RELEASES[version]}.json"
    return read_program(path.read_text(), str(path))


def test_fixtures_cover_the_patched_ops():
    assert len(MODELS) == 18
    for version in RELEASES:
        for model in MODELS:
            assert _read(version, model).version == version
    assert len(list((FIX / "crossload").glob("*-loaded-in-3.3.1.json"))) == 3 * len(MODELS)


STEPS = [(a, b, m) for a in (1, 2) for b in (2, 3) if b > a for m in MODELS]


@pytest.mark.parametrize("source,target,model", STEPS,
                         ids=[f"{m}.{a}-to-{b}" for a, b, m in STEPS])
def test_upgrade_to_an_intermediate_version_equals_that_release(source, target, model):
    program = upgrade(_read(source, model), target=target)
    diffs = documents_equal(
        (FIX / RELEASES[target] / f"{model}.{RELEASES[target]}.json").read_text(),
        write_program(program))
    # kthvalue 1 -> 2 included: Paddle 3.1.1 writes k as Int64 while Paddle ships the retype
    # in patch 3; pirc's layer (patches/pirc/2.yaml) retypes it at step 2, as 3.1.1 saves it.
    assert diffs == []
