"""fuse-rms-norm and fuse-residual-layer-norm on real programs: every RMSNorm and residual +
layer_norm site of the dev zoo's transformers (both releases) and of the llama_block fusion
fixture fuses, the `npu` pipeline's output keeps Paddle's outputs (CPU references), and each
rule is skipped with a version reason where its target is another op."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import pirc
from pirc.ir.ops import is_null_value
from pirc.passes.fusion import rms_norm
from pirc.passes.infra.declarative import compile_rules
from zoo_cases import RELEASES, assert_close, expected, inputs, params, saved_cases

ROOT = Path(__file__).resolve().parents[1]
LIT_INPUT = ROOT / "lit" / "passes" / "fusion" / "Inputs" / "rms_norm_residual.pir"
FUSION = ROOT / "fixtures" / "fusion"
TARGETS = ("pd_op.rms_norm", "pd_op.fused_rms_norm_quant", "pd_op.fused_bias_residual_layernorm")

# Per model: fused sites after `--upgrade -p npu` (PIR 4), the same in both releases.
# RMSNorm models: 2 per decoder block (x 2 blocks) + the final norm; 4 of the 5 read a
# residual add.  layer_norm models: the embedding norm (after the embeddings' add) and 2 per
# block; bloom's embedding and first block norms read no add; albert's embedding add
# broadcasts its [1, S, H] position embedding (a near miss).
EXPECTED = {
    "llama": {"pd_op.fused_rms_norm_quant": 5}, "llama_gqa": {"pd_op.fused_rms_norm_quant": 5},
    "qwen": {"pd_op.fused_rms_norm_quant": 5}, "t5_encoder": {"pd_op.fused_rms_norm_quant": 5},
    "bert": {"pd_op.fused_bias_residual_layernorm": 5}, "ernie": {"pd_op.fused_bias_residual_layernorm": 5},
    "roberta": {"pd_op.fused_bias_residual_layernorm": 5}, "electra": {"pd_op.fused_bias_residual_layernorm": 5},
    "gpt": {"pd_op.fused_bias_residual_layernorm": 5}, "bloom": {"pd_op.fused_bias_residual_layernorm": 4},
    "albert": {"pd_op.fused_bias_residual_layernorm": 4},
}
NEAR = {"albert": ["residual add without broadcast"]}
CASES = [c for c in saved_cases() if c.model in EXPECTED]


def fused(program) -> dict:
    out = {}
    for op in program.module.walk():
        if op.name in TARGETS:
            out[op.name] = out.get(op.name, 0) + 1
    return out


def near_misses(result) -> list[str]:
    return [m["failed"] for r in result.passes if r.name in ("fuse-rms-norm", "fuse-residual-layer-norm")
            for n in r.near_misses.values() for m in n.first]


def test_the_zoo_holds_the_cases():
    assert sorted({c.model for c in CASES}) == sorted(EXPECTED)
    assert {c.release for c in CASES} == set(RELEASES)


@pytest.mark.filterwarnings("ignore::pirc.lower.lower.NpuFallbackWarning")
@pytest.mark.parametrize("case", CASES, ids=str)
def test_zoo_sites_fuse_and_keep_paddles_outputs(case):
    program = pirc.load(str(case.program))
    pirc.upgrade(program)
    weights = params(program, case)
    result = pirc.run_pipeline(program, "npu")
    assert fused(program) == EXPECTED[case.model]
    misses = near_misses(result)
    assert len(misses) == len(NEAR.get(case.model, [])), misses
    for want, got in zip(NEAR.get(case.model, []), misses):
        assert want in got
    got = pirc.run(program, inputs(case), weights, device="npu")
    assert_close(list(got.values()), expected(case), case.model, f"{case} after -p npu")


@pytest.mark.filterwarnings("ignore::pirc.lower.lower.NpuFallbackWarning")
@pytest.mark.parametrize("release", RELEASES)
def test_saved_version_keeps_its_target(release):
    """A 3.0.0 program not upgraded (PIR 1) gets pd_op.rms_norm, a 3.3.1 one (PIR 4)
    pd_op.fused_rms_norm_quant: one rms_norm composition in two forms (plain, residual)."""
    stem = FUSION / release / f"llama_block.{release}"
    program = pirc.load(f"{stem}.json")
    weights = pirc.read_params(f"{stem}.pdiparams", program)
    pirc.run_pipeline(program, "npu")
    target = "pd_op.rms_norm" if release == "3.0.0" else "pd_op.fused_rms_norm_quant"
    assert fused(program) == {target: 2}
    ops = [op for op in program.module.walk() if op.name == target]
    assert [is_null_value(op.operands[2]) for op in ops] == [True, False]   # residual: 2nd
    with np.load(f"{stem}.io.npz") as data:
        feeds = {k[4:]: data[k] for k in data.files if k.startswith("in__")}
        want = [data[k] for k in sorted(data.files) if k.startswith("out__")]
    got = pirc.run(program, feeds, weights, device="npu")
    for g, w in zip(got.values(), want):
        np.testing.assert_allclose(g, w, atol=1e-5, rtol=1e-4)


@pytest.mark.parametrize("version", [1, 2, 3, 4])
@pytest.mark.parametrize("rule", [0, 1], ids=["rms_norm", "fused_rms_norm_quant"])
def test_each_rule_is_skipped_where_its_target_is_another_op(monkeypatch, version, rule):
    """The rule run alone: rms_norm fires at PIR 1-3 and is skipped at 4 (another op there);
    fused_rms_norm_quant fires at 4 and is skipped at 1-3 (no such op)."""
    monkeypatch.setattr(rms_norm.FuseRmsNorm, "_patterns", compile_rules([rms_norm.RULES[rule]]))
    program = pirc.parse(LIT_INPUT.read_text(), from_version=version)
    result = pirc.run_pipeline(program, "fuse-rms-norm")
    (report,) = [r for r in result.passes if r.name == "fuse-rms-norm"]
    builds = version < 4 if rule == 0 else version == 4
    target = ("pd_op.rms_norm", "pd_op.fused_rms_norm_quant")[rule]
    assert fused(program) == ({target: 1} if builds else {})
    reasons = [s.reason for s in report.skips]
    if builds:
        assert reasons == []
    elif rule == 0:
        assert reasons == ["version: target pd_op.rms_norm at PIR version 4 has operands (x, scale) "
                           "and attributes (epsilon, normalized_shape); rms_norm builds (x, residual, "
                           "norm_weight) with (epsilon, begin_norm_axis, quant_scale, quant_round_type, "
                           "quant_max_bound, quant_min_bound)"]
    else:
        assert reasons == [f"version: target pd_op.fused_rms_norm_quant does not exist at PIR version {version}"]


@pytest.mark.filterwarnings("ignore::pirc.lower.lower.NpuFallbackWarning")
@pytest.mark.parametrize("release", RELEASES)
def test_corpus_transformer(release):
    """The corpus transformer (one encoder layer, post-norm): its residual + layer_norm fuses
    and the outputs stay Paddle's."""
    stem = ROOT / "fixtures" / "corpus" / release / f"transformer.{release}"
    program = pirc.load(f"{stem}.json")
    pirc.upgrade(program)
    weights = pirc.read_params(f"{stem}.pdiparams", program)
    pirc.run_pipeline(program, "npu")
    assert fused(program) == {"pd_op.fused_bias_residual_layernorm": 1}
    with np.load(f"{stem}.io.npz") as data:
        feeds = {k[4:]: data[k] for k in data.files if k.startswith("in__")}
        want = data["out__0"]
    (got,) = pirc.run(program, feeds, weights, device="npu").values()
    np.testing.assert_allclose(got, want, atol=1e-5, rtol=1e-4)
