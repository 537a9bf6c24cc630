"""Every per-op Paddle fixture (tests/fixtures/ops/VER/, made by
tools/paddle_oracle/gen_op_fixtures.py) runs through pirc.run with Paddle's numbers:
bit-exact, or within the tolerance recorded for its op with the reason
(tests/fixtures/ops/parity/FAMILY.yaml, shown in docs/PARITY.md); random ops by shape, dtype
and distribution.

A fixture whose program has an op with no lowering is an xfail naming those ops (the
lowering's own error lists them all); any other failure fails.
"""

import glob
import json
import os
import warnings

import pytest
import torch

from pirc.errors import LoweringError
from pirc.testing.parity import fixture_parity, load_tolerances

ROOT = os.path.join(os.path.dirname(__file__), "..", "fixtures", "ops")
TOLERANCES = load_tolerances(os.path.join(ROOT, "parity"))


class ParityReport(UserWarning):
    """An op that was expected bit-exact and is only within the float32 bar here."""


def fixture_op(name: str) -> str:
    """The op a fixture is about: its name up to `__VARIANT`."""
    return "pd_op." + name.split("__")[0]


def _cases():
    cases = []
    for logpath in sorted(glob.glob(os.path.join(ROOT, "*", "gen_log.*json"))):
        ver = os.path.basename(os.path.dirname(logpath))
        with open(logpath) as f:
            models = json.load(f)["models"]
        for name, log in sorted(models.items()):
            path = os.path.join(ROOT, ver, f"{name}.{ver}.json")
            if log.get("ok") and log.get("loaded_out") and os.path.exists(path):
                cases.append(pytest.param(path, bool(log.get("random")), fixture_op(name),
                                          id=f"{ver}/{name}"))
    return cases


CASES = _cases()


def test_fixtures_exist():
    # both Paddle releases (3.1.1 and 3.2.2 for the ops whose kernel changes between them),
    # and every op of FORMAT-NOTES section 7 that a kernel implements
    assert {os.path.basename(os.path.dirname(p.values[0])) for p in CASES} == {
        "3.0.0", "3.1.1", "3.2.2", "3.3.1"}
    assert len(CASES) >= 140


@pytest.mark.parametrize("path,random,op", CASES)
def test_op_fixture_matches_paddle(path, random, op):
    torch.manual_seed(0)
    tol = TOLERANCES.get(op)
    try:
        res = fixture_parity(path, random=random, tol=tol.pair if tol else None)
    except LoweringError as e:
        if "cannot be lowered" in str(e):
            lines = str(e).splitlines()[1:]
            pytest.xfail("missing kernels: " + " ".join(ln.strip() for ln in lines))
        raise
    bad = [str(r) for r in res if not r.ok]
    assert not bad, "\n".join(bad)
    loose = [str(r) for r in res if r.verdict == "unrecorded"]
    if loose:
        warnings.warn(ParityReport(f"{op}: not bit-exact on this machine, within float32 "
                                   f"tolerance; record a tolerance with its reason in "
                                   f"tests/fixtures/ops/parity/: " + "; ".join(loose)))


def _section7_ops():
    """The 81 op names of FORMAT-NOTES section 7 (the copy under tests/fixtures/corpus)."""
    import re

    path = os.path.join(ROOT, "..", "corpus", "FORMAT-NOTES.md")
    with open(path) as f:
        text = f.read()
    sec = text[text.index("## 7."):]
    sec = sec[:sec.index("}.") + 1]
    names = set(re.findall(r"\b(builtin\.\w+|cf\.\w+)", sec))
    body = sec[sec.index("pd_op.{") + len("pd_op.{"):sec.index("}")]
    names |= {"pd_op." + n.strip() for n in body.replace("\n", " ").split(",")}
    return names


@pytest.mark.parametrize("ver", ["3.0.0", "3.3.1"])
def test_every_section7_op_has_a_fixture(ver):
    import re

    wanted = _section7_ops()
    assert len(wanted) == 81
    seen = set()
    for d in (os.path.join(ROOT, ver), os.path.join(ROOT, "..", "corpus", ver)):
        for p in glob.glob(os.path.join(d, "*.loaded.pir.txt")):
            with open(p) as f:
                seen |= set(re.findall(r'"((?:pd_op|builtin|cf)\.\w+)"', f.read()))
    assert not wanted - seen, sorted(wanted - seen)


def test_every_tolerance_names_an_op_with_a_fixture():
    # a tolerance for an op no fixture exercises is a bar nothing checks
    ops = {p.values[2] for p in CASES}
    assert not set(TOLERANCES) - ops, sorted(set(TOLERANCES) - ops)
