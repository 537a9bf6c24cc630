"""The near-miss corpus (tests/fixtures/near_misses, README there): programs a fusion must not
fuse, each beside a positive twin that must; the pass never throws on them, reports the
check that failed, and the `npu` pipeline keeps every program's numbers."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import pirc
from pirc.ir.types import ELEMENT_TYPE_NAMES

ROOT = Path(__file__).resolve().parents[1] / "fixtures" / "near_misses"
CASES = sorted(ROOT.glob("*/*.pir"))
MISSES = [c for c in CASES if c.name.endswith(".miss.pir")]
NUMPY = {"f16": np.float16, "f32": np.float32, "f64": np.float64, "i32": np.int32,
         "i64": np.int64, "bool": np.bool_}


def header(path: Path) -> dict:
    out = {}
    for line in path.read_text().splitlines():
        m = re.match(r"//\s*([a-z-]+):\s*(.*)$", line)
        if m is None:
            break
        out[m.group(1)] = m.group(2).strip()
    return out


def load(path: Path):
    return pirc.parse(path.read_text(), from_version=int(header(path)["from-version"]))


def ops_named(program, name: str) -> int:
    return sum(1 for op in program.module.walk() if op.name == name)


def random_inputs(program, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    inputs = {}
    for op in program.module.walk():
        if op.name != "pd_op.data":
            continue
        t = op.results[0].type
        shape = [d if d >= 0 else 3 for d in t.shape]
        dtype = NUMPY[ELEMENT_TYPE_NAMES[t.dtype]]
        if np.issubdtype(dtype, np.floating):
            value = rng.standard_normal(shape).astype(dtype)
        elif dtype is np.bool_:
            value = rng.random(shape) < 0.5
        else:
            value = rng.integers(0, 4, shape).astype(dtype)
        inputs[op.attributes["name"].data] = value
    return inputs


def test_corpus_size_and_twins():
    assert len(MISSES) >= 40, f"the issue asks for at least 40 near misses; {len(MISSES)} so far"
    for miss in MISSES:
        twin = miss.with_name(miss.name.replace(".miss.pir", ".fuse.pir"))
        assert twin.exists(), f"{miss.name} has no positive twin {twin.name}"


@pytest.mark.parametrize("path", CASES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_pass_alone(path):
    h = header(path)
    program = load(path)
    result = pirc.run_pipeline(program, h["pass"], device="npu")
    fused = ops_named(program, h["target"])
    if path.name.endswith(".miss.pir"):
        assert fused == 0, f"{path.name}: the near miss was fused"
        reasons = [m["failed"] for r in result.passes for n in r.near_misses.values() for m in n.first]
        reasons += [s.reason for r in result.passes for s in r.skips]
        assert any(h["failed"] in reason for reason in reasons), \
            f"{path.name}: no near miss says {h['failed']!r}; reported: {reasons}"
    else:
        assert fused >= 1, f"{path.name}: the positive twin was not fused"


@pytest.mark.parametrize("path", CASES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_npu_pipeline_keeps_numbers(path):
    h = header(path)
    original = load(path)
    optimised = load(path)
    pirc.run_pipeline(optimised, "npu")
    if path.name.endswith(".miss.pir"):
        assert ops_named(optimised, h["target"]) == 0, f"{path.name}: fused by the npu pipeline"
    atol, rtol = (float(v) for v in h.get("tolerance", "1e-5 1e-4").split())
    inputs = random_inputs(original)
    want = pirc.run(original, inputs)
    got = pirc.run(optimised, inputs)
    assert list(got) == list(want)
    for name in want:
        np.testing.assert_allclose(np.asarray(got[name], dtype=np.float64),
                                   np.asarray(want[name], dtype=np.float64),
                                   atol=atol, rtol=rtol, err_msg=f"{path.name}: {name}")
