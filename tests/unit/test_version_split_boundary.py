"""Every kernel split by PIR version, old and new semantics side by side on boundary inputs:
docs/PARITY.md's table says which inputs differ and how, and this keeps it true."""

from pathlib import Path

import numpy as np
import pytest

from pirc.testing import boundary_inputs
from pirc.testing import version_split as vs
from pirc.testing.boundary import FLOAT_LABELS, as_float

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def results():
    return vs.compare_all()


def test_every_split_op_has_a_case():
    missing = sorted(set(vs.split_ops()) - set(vs.cases()))
    stale = sorted(set(vs.cases()) - set(vs.split_ops()))
    assert not missing, f"ops split by version without a case in pirc/testing/version_split.yaml: {missing}"
    assert not stale, f"cases for ops no longer split by version: {stale}"


def test_parity_doc_table_is_current(results):
    doc = (ROOT / "docs" / "PARITY.md").read_text(encoding="utf-8")
    assert vs.doc_section(doc) == vs.section(results), \
        "docs/PARITY.md's version-split table is stale: python -m pirc.testing.version_split --write"


def test_ordinary_inputs_run(results):
    # a case that raises on ordinary values is a wrong case, not a finding
    bad = [f"{p.op} {p.old}->{p.new}" for p in results
           if any(lab.split()[-1] == "ordinary" for lab in p.raised_both)]
    assert not bad, f"cases whose kernels raise on ordinary inputs: {bad}"


def _row(results, op, old, new):
    return next(p for p in results if (p.op, p.old, p.new) == (op, old, new))


def test_the_documented_splits_show(results):
    # the behaviours the registry notes promise, seen on the boundary arrays
    assert "nan" in _row(results, "pd_op.maximum", 1, 2).labels
    assert "+0" in _row(results, "pd_op.digamma", 1, 2).labels
    assert "halves" in _row(results, "pd_op.round", 1, 2).labels
    assert "f32 ordinary" in _row(results, "pd_op.cast", 1, 3).labels
    assert "f64 max" in _row(results, "pd_op.elementwise_pow", 2, 4).labels
    assert not _row(results, "pd_op.rms_norm", 1, 4).differences  # one formula, two signatures


def test_cast_to_f16_truncates_before_version_3():
    x = boundary_inputs("f32", (2, 8))["ordinary"].astype(np.float64)
    run = {"attrs": {"dtype": {"dtype": "f16"}}}
    old = vs.run_at("pd_op.cast", 1, "f32", run, "ordinary")[0].astype(np.float64)
    new = vs.run_at("pd_op.cast", 3, "f32", run, "ordinary")[0].astype(np.float64)
    assert (np.abs(old) <= np.abs(x)).all(), "toward zero: never larger in magnitude"
    assert (np.abs(new - x) <= np.abs(old - x)).all(), "to nearest: never farther"
    assert (old != new).any()


@pytest.mark.parametrize("dtype", ["f16", "bf16", "f32", "f64"])
def test_boundary_inputs_hold_what_they_say(dtype):
    inputs = boundary_inputs(dtype, (3, 5))
    assert tuple(inputs) == FLOAT_LABELS
    vals = {k: as_float(v, dtype) for k, v in inputs.items()}
    assert all(v.shape == (3, 5) for v in vals.values())
    assert np.isnan(vals["nan"].flat[0]) and np.isnan(vals["nan"].flat[-1])
    assert np.isfinite(vals["nan"].flat[1:-1]).all()
    assert (vals["+inf"].flat[0], vals["-inf"].flat[-1]) == (np.inf, -np.inf)
    assert not np.signbit(vals["+0"]).any() and np.signbit(vals["-0"]).all()
    tiny = {"f16": 2.0 ** -14, "bf16": 2.0 ** -126, "f32": 2.0 ** -126, "f64": 2.0 ** -1022}[dtype]
    assert (np.abs(vals["smallest_normal"]) == tiny).all()
    assert (0 < np.abs(vals["denorm_min"])).all() and (np.abs(vals["denorm_max"]) < tiny).all()
    assert np.isfinite(vals["max"]).all() and (vals["lowest"] == -vals["max"]).all()
    # mean(x^2) near each epsilon where the dtype can hold sqrt(eps) as a normal number
    for eps in (1e-5, 1e-6):
        assert abs(np.mean(vals[f"sqrt_eps{eps:g}"] ** 2) / eps - 1) < 0.02
    if dtype == "bf16":
        assert inputs["ordinary"].dtype == np.uint16  # as Paddle hands bf16 to numpy


def test_boundary_inputs_are_deterministic_and_typed():
    a, b = boundary_inputs("float32", [4]), boundary_inputs("f32", (4,))
    assert all(np.array_equal(a[k], b[k], equal_nan=True) for k in a)
    ints = boundary_inputs("i64", (6,))
    assert ints["max"][0] == np.iinfo(np.int64).max and ints["min"][0] == np.iinfo(np.int64).min
    assert set(boundary_inputs("u8", (2,))) == {"ordinary", "zero", "max", "min", "mixed"}
    assert boundary_inputs("f32", ())["nan"].shape == ()
    with pytest.raises(ValueError, match="unknown dtype"):
        boundary_inputs("f8", (2,))


def test_boundary_bf16_feeds_run_through_pirc():
    # a bf16 boundary array is a valid bf16 feed as given (no conversion)
    import pirc
    text = """{
    (%0) = "pd_op.data" () {dtype:bfloat16,name:"x",place:Place(cpu),shape:[4],stop_gradient:[true]} : () -> tensor<4xbf16>
    (%1) = "pd_op.assign" (%0) {stop_gradient:[true]} : (tensor<4xbf16>) -> tensor<4xbf16>
    (%2) = "pd_op.fetch" (%1) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<4xbf16>) -> tensor<4xbf16>
}"""
    program = pirc.parse(text, from_version=4)
    x = boundary_inputs("bf16", (4,))["mixed"]
    out = pirc.run(program, {"x": x})["out"]
    assert out.dtype == np.uint16 and np.array_equal(out, x)  # the same bits back
