"""The portable fusions fuse-fc, fuse-gelu and fuse-swiglu (pirc/passes/fusion) on real Paddle
programs: tests/fixtures/fusion_portable (tools/paddle_oracle/gen_portable_fusion_fixtures.py,
Paddle 3.0.0 and 3.3.1) fuse at the sites Paddle's own spelling puts there, and the fused
program keeps the outputs Paddle recorded; the fused ops keep the composition's outputs on
boundary values too (NaN, infinities, signed zeros, denormals, large magnitudes)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import pirc
from pirc.passes.infra.declarative import Either, Op, attr_value, declared_rewrites
from pirc.passes.fusion import fc, gelu, swiglu

ROOT = Path(__file__).resolve().parents[1] / "fixtures" / "fusion_portable"
# rule -> rewrites the `fuse` pipeline makes in each fixture (the same for both releases)
EXPECTED = {
    "fc_layers": {"fc": 4, "fc-relu": 2},
    "gelu_compositions": {"fc": 4, "gelu-erf": 1, "gelu-tanh": 2},
    "swiglu_gates": {"silu": 1, "swiglu": 2, "swiglu-halves": 3},
}
CASES = [(m, r) for m in EXPECTED for r in ("3.3.1", "3.0.0")]


def fuse(program, params=None):
    result = pirc.run_pipeline(program, "fuse", params=params)
    rules = {}
    for p in result.passes:
        for rule, n in p.rule_rewrites.items():
            rules[rule] = rules.get(rule, 0) + n
    return result, rules


@pytest.mark.parametrize("model,release", CASES, ids=lambda v: v)
def test_fixture_fuses_and_keeps_paddles_outputs(model, release):
    base = ROOT / release / f"{model}.{release}"
    program = pirc.load(f"{base}.json")
    pirc.upgrade(program)
    params = pirc.read_params(f"{base}.pdiparams", program)
    result, rules = fuse(program, params)
    assert {k: v for k, v in rules.items() if k in {r for e in EXPECTED.values() for r in e}} \
        == EXPECTED[model]
    with np.load(f"{base}.io.npz") as data:
        inputs = {k[4:]: data[k] for k in data.files if k.startswith("in__")}
        want = [data[k] for k in sorted((k for k in data.files if k.startswith("out__")),
                                        key=lambda k: int(k[5:]))]
    got = list(pirc.run(program, inputs, params=result.params).values())
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), w, atol=2e-5, rtol=1e-4)


def test_relu6_after_fc_stays():
    """Paddle's CPU fc applies relu only: the fixture's linear + relu6 is an fc and a relu6."""
    program = pirc.load(str(ROOT / "3.3.1" / "fc_layers.3.3.1.json"))
    result, _ = fuse(program)
    names = [op.name for op in program.module.walk()]
    assert "pd_op.relu6" in names
    acts = sorted(op.attributes["activation_type"].data for op in program.module.walk()
                  if op.name == "pd_op.fc")
    assert acts == ["", "", "relu", "relu"]
    misses = [m for p in result.passes for n in p.near_misses.values() for m in n.first]
    assert any(m["op"] == "pd_op.relu6" and m["failed"].startswith("activation is relu")
               for m in misses)


BOUNDARY = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -1e-45, 1e-38, 3e38, -3e38,
                     88.0, -88.0, 20.0, -20.0, 1.0, -1.0, 0.5, 1e-4], dtype=np.float32)

GELU_ERF = """{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[18],stop_gradient:[true]} : () -> tensor<18xf32>
    (%1) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:0.5} : () -> tensor<1xf32>
    (%2) = "pd_op.scale" (%0, %1) {bias:0,bias_after_scale:true,stop_gradient:[true]} : (tensor<18xf32>, tensor<1xf32>) -> tensor<18xf32>
    (%3) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:0.7071067690849304} : () -> tensor<1xf32>
    (%4) = "pd_op.scale" (%0, %3) {bias:0,bias_after_scale:true,stop_gradient:[true]} : (tensor<18xf32>, tensor<1xf32>) -> tensor<18xf32>
    (%5) = "pd_op.erf" (%4) {stop_gradient:[true]} : (tensor<18xf32>) -> tensor<18xf32>
    (%6) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:1} : () -> tensor<1xf32>
    (%7) = "pd_op.scale" (%5, %6) {bias:1,bias_after_scale:true,stop_gradient:[true]} : (tensor<18xf32>, tensor<1xf32>) -> tensor<18xf32>
    (%8) = "pd_op.multiply" (%2, %7) {stop_gradient:[true]} : (tensor<18xf32>, tensor<18xf32>) -> tensor<18xf32>
    (%9) = "pd_op.fetch" (%8) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<18xf32>) -> tensor<18xf32>
}"""

GELU_TANH = """{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[18],stop_gradient:[true]} : () -> tensor<18xf32>
    (%1) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:0.5} : () -> tensor<1xf32>
    (%2) = "pd_op.scale" (%0, %1) {bias:0,bias_after_scale:true,stop_gradient:[true]} : (tensor<18xf32>, tensor<1xf32>) -> tensor<18xf32>
    (%3) = "pd_op.pow" (%0) {stop_gradient:[true],y:3} : (tensor<18xf32>) -> tensor<18xf32>
    (%4) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:0.044715} : () -> tensor<1xf32>
    (%5) = "pd_op.scale" (%3, %4) {bias:0,bias_after_scale:true,stop_gradient:[true]} : (tensor<18xf32>, tensor<1xf32>) -> tensor<18xf32>
    (%6) = "pd_op.add" (%0, %5) {stop_gradient:[true]} : (tensor<18xf32>, tensor<18xf32>) -> tensor<18xf32>
    (%7) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:0.7978845834732056} : () -> tensor<1xf32>
    (%8) = "pd_op.scale" (%6, %7) {bias:0,bias_after_scale:true,stop_gradient:[true]} : (tensor<18xf32>, tensor<1xf32>) -> tensor<18xf32>
    (%9) = "pd_op.tanh" (%8) {stop_gradient:[true]} : (tensor<18xf32>) -> tensor<18xf32>
    (%10) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:1} : () -> tensor<1xf32>
    (%11) = "pd_op.scale" (%9, %10) {bias:1,bias_after_scale:true,stop_gradient:[true]} : (tensor<18xf32>, tensor<1xf32>) -> tensor<18xf32>
    (%12) = "pd_op.multiply" (%2, %11) {stop_gradient:[true]} : (tensor<18xf32>, tensor<18xf32>) -> tensor<18xf32>
    (%13) = "pd_op.fetch" (%12) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<18xf32>) -> tensor<18xf32>
}"""

SWIGLU = """{
    (%0) = "pd_op.data" () {dtype:float32,name:"a",place:Place(undefined:0),shape:[18],stop_gradient:[true]} : () -> tensor<18xf32>
    (%1) = "pd_op.data" () {dtype:float32,name:"b",place:Place(undefined:0),shape:[18],stop_gradient:[true]} : () -> tensor<18xf32>
    (%2) = "pd_op.silu" (%0) {stop_gradient:[true]} : (tensor<18xf32>) -> tensor<18xf32>
    (%3) = "pd_op.multiply" (%2, %1) {stop_gradient:[true]} : (tensor<18xf32>, tensor<18xf32>) -> tensor<18xf32>
    (%4) = "pd_op.fetch" (%3) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<18xf32>) -> tensor<18xf32>
}"""


@pytest.mark.parametrize("text,target,inputs", [
    (GELU_ERF, "pd_op.gelu", {"x": BOUNDARY}),
    (SWIGLU, "pd_op.swiglu", {"a": BOUNDARY, "b": BOUNDARY[::-1].copy()}),
], ids=["gelu-erf", "swiglu"])
def test_boundary_values(text, target, inputs):
    """Bit for bit on the boundary values, NaN where the composition gives NaN, except where
    pirc's gelu kernel follows Paddle's (x * 2 overflows first: +inf for x above half the
    float32 max, where the composition's 0.5 * x does not) -- docs/PARITY.md."""
    original, fused = pirc.parse(text, from_version=4), pirc.parse(text, from_version=4)
    pirc.run_pipeline(fused, "fuse")
    assert any(op.name == target for op in fused.module.walk())
    want = np.asarray(list(pirc.run(original, inputs).values())[0])
    got = np.asarray(list(pirc.run(fused, inputs).values())[0])
    same = (got == want) | (np.isnan(got) & np.isnan(want))
    if target == "pd_op.gelu":
        same |= np.abs(inputs["x"]) > 1.7e38
    assert same.all(), f"{inputs} -> {got} vs {want}"


def test_boundary_values_tanh_gelu():
    """The tanh gelu: NaN and the infinities where the composition has them, the rest within
    the fusion's tolerance (x^3 and the products round elsewhere); x^3 overflows from about
    7e12 on, where the composition's tanh argument becomes inf or NaN and gelu's does not."""
    inputs = {"x": BOUNDARY[~((np.abs(BOUNDARY) > 1e12) & np.isfinite(BOUNDARY))]}
    n = inputs["x"].size
    text = GELU_TANH.replace("[18]", f"[{n}]").replace("18xf32", f"{n}xf32")
    original, fused = pirc.parse(text, from_version=4), pirc.parse(text, from_version=4)
    pirc.run_pipeline(fused, "fuse")
    assert any(op.name == "pd_op.gelu" and attr_value(op, "approximate") is True
               for op in fused.module.walk())
    want = np.asarray(list(pirc.run(original, inputs).values())[0])
    got = np.asarray(list(pirc.run(fused, inputs).values())[0])
    np.testing.assert_allclose(got, want, atol=1e-5, rtol=1e-5)


def test_rules_declare_what_they_read():
    """Either reaches every spelling's ops into `rewrites`; builtin.split (no semantic
    versions) is declared for any."""
    assert set(declared_rewrites(gelu.FuseGelu.rules)) >= {
        "pd_op.scale", "pd_op.multiply", "pd_op.add", "pd_op.erf", "pd_op.tanh", "pd_op.pow",
        "pd_op.divide", "pd_op.full"}
    assert declared_rewrites(swiglu.FuseSwiglu.rules)["builtin.split"].semantic == "*"
    assert {r.name for r in fc.FC_RELU.roots()} >= {"pd_op.relu", "pd_op.relu6"}
    assert isinstance(fc.FC_RELU.source, Either) and isinstance(fc.FC.source, Op)
