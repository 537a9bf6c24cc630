"""Issue 22's "done when", as a user runs it: on the dev zoo's LLaMA, GPT and BERT families and
the corpus transformer, from both releases, `pirc-opt --upgrade --pipeline=npu` prints the fused
ops and reports every fusion and near miss, and the fused program keeps Paddle's outputs
(pirc-run --device npu runs the same pipeline first: tests/unit/test_zoo.py's npu cases)."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import pirc
from pirc.cli.opt import run as pirc_opt

ROOT = Path(__file__).resolve().parents[2]
ZOO = ROOT / "tests" / "fixtures" / "zoo"
CORPUS = ROOT / "tests" / "fixtures" / "corpus"

# the fused ops each program must hold after --upgrade -p npu (PIR 4), at least this many
# (docs/FUSION.md has each pass's zoo table; this is their floor, both releases alike)
EXPECTED = {
    "llama": {"pd_op.fused_rms_norm_quant": 5, "pd_op.fused_rotary_position_embedding": 4},
    "llama_gqa": {"pd_op.fused_rms_norm_quant": 5},
    "qwen": {"pd_op.fused_rms_norm_quant": 5, "pd_op.swiglu": 2, "pd_op.fc": 2},
    "gpt": {"pd_op.fc": 12, "pd_op.fused_bias_residual_layernorm": 5},
    "bloom": {"pd_op.fc": 8, "pd_op.gelu": 2, "pd_op.fused_bias_residual_layernorm": 4},
    "bert": {"pd_op.fc": 13, "pd_op.fused_bias_residual_layernorm": 5},
    "ernie": {"pd_op.fc": 13, "pd_op.fused_bias_residual_layernorm": 5},
    "roberta": {"pd_op.fc": 13, "pd_op.fused_bias_residual_layernorm": 5},
    "transformer": {"pd_op.fc": 4, "pd_op.self_dp_attention": 1},
}
CASES = [(m, r) for m in EXPECTED for r in ("3.3.1", "3.0.0")]


def source(model: str, release: str) -> Path:
    folder = CORPUS if model == "transformer" else ZOO
    return folder / release / f"{model}.{release}.json"


@pytest.mark.parametrize("model,release", CASES, ids=lambda v: v)
def test_upgrade_npu_prints_fused_ops_and_reports(model, release, tmp_path):
    out, report = tmp_path / "out.pir", tmp_path / "report.json"
    assert pirc_opt([str(source(model, release)), "--upgrade", "--pipeline=npu",
                     f"--pass-report={report}", "-o", str(out)]) == 0
    printed = Counter(re.findall(r'"((?:pd_op|npu)\.[a-z0-9_]+)"', out.read_text()))
    for op, count in EXPECTED[model].items():
        assert printed[op] >= count, f"{model}.{release}: {printed[op]} {op}, expected {count}"
    data = json.loads(report.read_text())
    fusions = [p for p in data["passes"] if p["name"].startswith("fuse-")]
    assert {p["name"] for p in fusions} >= {"fuse-fc", "fuse-rms-norm", "fuse-attention"}
    for p in fusions:
        assert p["ran"] and "near_misses" in p and "rule_rewrites" in p
        assert p["rewrites"] == sum(p["rule_rewrites"].values())
    # every fused op in the output was made by a reported rewrite
    assert sum(p["rewrites"] for p in fusions) >= sum(EXPECTED[model].values())


@pytest.mark.filterwarnings("ignore::pirc.lower.lower.NpuFallbackWarning")
@pytest.mark.parametrize("model", ["llama", "bert", "transformer"])
def test_npu_device_keeps_paddles_outputs(model):
    # the corpus transformer has its .pdiparams beside it; the zoo's are rebuilt (zoo_cases)
    from zoo_cases import ZooCase, params

    path = source(model, "3.3.1")
    program = pirc.load(str(path))
    io = np.load(str(path).replace(".json", ".io.npz"))
    if model == "transformer":
        weights = str(path).replace(".json", ".pdiparams")
    else:
        weights = params(program, ZooCase(model, "3.3.1", path, path, path))
    feeds = {k[4:]: io[k] for k in io.files if k.startswith("in__")}
    got = pirc.run(program, feeds, weights, device="npu")
    want = [io[k] for k in sorted((k for k in io.files if k.startswith("out__")), key=lambda k: int(k[5:]))]
    for g, w in zip(got.values(), want):
        np.testing.assert_allclose(g, w, atol=2e-5, rtol=1e-4)
