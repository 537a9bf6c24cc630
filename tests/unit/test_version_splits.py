"""Every kernel split by PIR version is shown by Paddle's own numbers: for each boundary between
two registry entries of an op, some fixture of a release on one side (tests/fixtures/ops and
tests/fixtures/patchops, Paddle 3.0.0 / 3.1.1 / 3.2.2 / 3.3.1) fails, or is bit-exact on fewer
outputs, when run with the entry of the other side.  A split no fixture tells apart would be
a guess about where Paddle changed; this is what placed unique's change at PIR 3 and
put_along_axis's at PIR 4.
"""

import glob
import json
import os

import pytest
import torch

from pirc.lower import kernels  # noqa: F401  (registers the kernels)
from pirc.runtime.registry import REGISTRY
from pirc.testing.parity import fixture_parity, load_tolerances

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures")
TOLERANCES = load_tolerances(os.path.join(FIXTURES, "ops", "parity"))
PIR_VERSION = {"3.0.0": 1, "3.1.1": 2, "3.2.2": 3, "3.3.1": 4}


def _fixtures_by_op():
    found = {}
    for log in sorted(glob.glob(os.path.join(FIXTURES, "ops", "*", "gen_log*.json"))
                      + glob.glob(os.path.join(FIXTURES, "patchops", "*", "gen_log*.json"))):
        ver = os.path.basename(os.path.dirname(log))
        with open(log) as f:
            models = json.load(f)["models"]
        for name, entry in sorted(models.items()):
            path = os.path.join(os.path.dirname(log), f"{name}.{ver}.json")
            if entry.get("ok") and entry.get("loaded_out") and os.path.exists(path):
                op = "pd_op." + name.split("__")[0]
                found.setdefault(op, []).append((ver, path, bool(entry.get("random"))))
    return found


FIXTURES_BY_OP = _fixtures_by_op()
SPLITS = [pytest.param(op, i, id=f"{op}@{REGISTRY.entries(op)[i + 1].since}")
          for op in REGISTRY.names() if op in FIXTURES_BY_OP
          for i in range(len(REGISTRY.entries(op)) - 1)]


def _run_with(monkeypatch, entry, op, path, random):
    """(every output ok, number bit-exact) of the fixture with `op` forced to `entry`."""
    resolve = REGISTRY.resolve.__func__
    monkeypatch.setattr(REGISTRY, "resolve", lambda name, version: entry if name == op
                        else resolve(REGISTRY, name, version))
    try:
        torch.manual_seed(0)
        tol = TOLERANCES.get(op)
        res = fixture_parity(path, random=random, tol=tol.pair if tol else None)
        return all(r.ok for r in res), sum(r.verdict == "bitexact" for r in res)
    except Exception:  # the other side's kernel may reject this release's attributes
        return False, 0
    finally:
        monkeypatch.undo()


def test_the_split_ops_have_fixtures_of_the_first_and_last_release():
    assert len(SPLITS) >= 15
    for param in SPLITS:
        op = param.values[0]
        assert {ver for ver, _, _ in FIXTURES_BY_OP[op]} >= {"3.0.0", "3.3.1"}, op


@pytest.mark.parametrize("op,index", SPLITS)
def test_each_version_split_is_shown_by_a_fixture(monkeypatch, op, index):
    older, newer = REGISTRY.entries(op)[index], REGISTRY.entries(op)[index + 1]
    shown = []
    for ver, path, random in FIXTURES_BY_OP[op]:
        v = PIR_VERSION[ver]
        if not (older.since <= v and (newer.until is None or v < newer.until)):
            continue  # another entry of the op covers this release
        right, wrong = (older, newer) if v < newer.since else (newer, older)
        ok_w, exact_w = _run_with(monkeypatch, wrong, op, path, random)
        ok_r, exact_r = _run_with(monkeypatch, right, op, path, random)
        assert ok_r, f"{path}: fails with its own entry {right.range_text()}"
        if not ok_w or exact_w < exact_r:
            shown.append(ver)
    assert shown, (f"{op}: no fixture tells {older.range_text()} from {newer.range_text()}; "
                   f"add one from a release on each side of PIR {newer.since}")
