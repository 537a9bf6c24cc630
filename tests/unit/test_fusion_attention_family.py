"""fuse-attention, fuse-rotary, fuse-scaled-softmax on real programs and pd_op.fused_rotary_position_embedding's
CPU kernel (pirc/lower/kernels/rotary.py) against the composition it replaces."""

from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import torch

import pirc
import pirc.api as api
from pirc.lower.kernels.rotary import fused_rotary_position_embedding as rope
from pirc.lower.lower import optimised_copy
from pirc.passes import run_pipeline
from tests.unit import zoo_cases as Z

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
TARGETS = ("npu.fusion_attention", "npu.rotary_mul", "npu.scaled_masked_softmax",
           "pd_op.fused_rotary_position_embedding", "pd_op.self_dp_attention")

# Per dev-zoo model: the attention-family ops `-p npu` makes (both releases), and the reason
# the attention sites report (docs/FUSION.md, "Dev zoo").
ZOO = {
    "llama": ({"npu.rotary_mul": 4}, "mask is provably 0/-inf"),
    "qwen": ({"pd_op.fused_rotary_position_embedding": 4}, "mask is provably 0/-inf"),
    "bert": ({}, "mask is provably 0/-inf"),
    "bloom": ({}, "structure: operand 0 of pd_op.add is pd_op.add"),
}


def fused(program) -> Counter:
    return Counter(op.name for op in program.walk() if op.name in TARGETS)


@pytest.mark.parametrize("model", sorted(ZOO))
def test_zoo_counts_and_reasons(model):
    want, reason = ZOO[model]
    case = next(c for c in Z.saved_cases() if c.model == model and c.release == "3.3.1")
    program = pirc.load(str(case.program))
    pirc.upgrade(program)
    result = run_pipeline(program, "npu", device="npu", params=Z.params(program, case))
    assert fused(program) == want
    record = next(r for r in result.passes if r.name == "fuse-attention")
    misses = record.near_misses["attention"]
    assert misses.count == 2 and all(reason in m["failed"] for m in misses.first)


# Real programs Paddle ran (tests/fixtures/fusion and the corpus): what `-p npu` makes of them.
PROGRAMS = {
    ("fusion", "llama_block"): {"npu.fusion_attention": 1, "npu.rotary_mul": 2},
    # a packed QKV projection split into heads: Paddle's self_dp_attention (the fx rewrite
    # made npu_fusion_attention of it)
    ("corpus", "transformer"): {"pd_op.self_dp_attention": 1},
}


@pytest.mark.parametrize("version", ["3.0.0", "3.3.1"])
@pytest.mark.parametrize("where,name", sorted(PROGRAMS))
def test_programs_fuse_and_keep_paddles_numbers(where, name, version):
    base = FIXTURES / where / version / f"{name}.{version}"
    io = np.load(f"{base}.io.npz")
    feeds = {k[4:]: torch.from_numpy(io[k]) for k in io.files if k.startswith("in__")}
    program = api.load(f"{base}.json")
    copy, _ = optimised_copy(program, f"{base}.pdiparams", "npu", "npu")
    assert fused(copy) == PROGRAMS[where, name]
    outs = api.lower(program, f"{base}.pdiparams", device="npu")(**feeds)
    for i, got in enumerate(outs):
        np.testing.assert_allclose(got.numpy(), io[f"out__{i}"], atol=1e-5, rtol=1e-4)


def _composition(x, cos, sin, neox):
    if neox:
        rot = torch.stack((-x[..., 1::2], x[..., 0::2]), -1).flatten(-2)
    else:
        h = x.shape[-1] // 2
        rot = torch.cat((-x[..., h:], x[..., :h]), -1)
    return x * cos + rot * sin


@pytest.mark.parametrize("neox", [False, True])
def test_rope_kernel_is_the_composition(neox):
    g = torch.Generator().manual_seed(3)
    x = torch.randn(2, 5, 3, 8, generator=g)
    k = torch.randn(2, 5, 1, 8, generator=g)
    cos, sin = torch.randn(1, 5, 1, 8, generator=g), torch.randn(1, 5, 1, 8, generator=g)
    q_out, k_out, v_out = rope(x, k, None, sin, cos, use_neox_rotary_style=neox)
    assert v_out is None
    assert torch.equal(q_out, _composition(x, cos, sin, neox))      # float32: op for op
    assert torch.equal(k_out, _composition(k, cos, sin, neox))
    # time_major: [S, B, H, D]
    tm = rope(x.transpose(0, 1).contiguous(), None, None, sin, cos, use_neox_rotary_style=neox,
              time_major=True)[0]
    assert torch.equal(tm.transpose(0, 1), q_out)


def test_rope_kernel_position_ids_and_generated_tables():
    g = torch.Generator().manual_seed(4)
    x = torch.randn(2, 4, 2, 8, generator=g)
    table_cos, table_sin = torch.randn(10, 8, generator=g), torch.randn(10, 8, generator=g)
    pos = torch.tensor([[3, 1, 0, 9], [2, 2, 5, 7]])
    out = rope(x, None, None, table_sin, table_cos, pos, use_neox_rotary_style=False)[0]
    want = _composition(x, table_cos[pos][:, :, None], table_sin[pos][:, :, None], False)
    assert torch.equal(out, want)
    # no sin/cos: freq = pos / base^((i - i % 2) / D), Paddle's kernel's tables
    gen = rope(x, use_neox_rotary_style=True)[0]
    i = torch.arange(8)
    freq = torch.arange(4.0)[:, None] / torch.pow(torch.tensor(10000.0), (i - i % 2).float() / 8)
    want = _composition(x, torch.cos(freq)[None, :, None], torch.sin(freq)[None, :, None], True)
    torch.testing.assert_close(gen, want, atol=1e-6, rtol=1e-6)


def test_rope_kernel_refuses_a_bad_layout():
    with pytest.raises(ValueError, match="1, seq, 1, head_dim"):
        rope(torch.zeros(2, 4, 2, 8), None, None, torch.zeros(2, 4, 1, 8), torch.zeros(2, 4, 1, 8))


# The 3.0.0 files at their own PIR version 1, not upgraded: the same sites fuse.
AT_VERSION_1 = {
    ("fusion", "llama_block"): {"npu.fusion_attention": 1, "npu.rotary_mul": 2},
    ("corpus", "transformer"): {"pd_op.self_dp_attention": 1},
    ("zoo", "qwen"): {"pd_op.fused_rotary_position_embedding": 4},
}


@pytest.mark.parametrize("where,name", sorted(AT_VERSION_1))
def test_pir_version_1_files_fuse(where, name):
    program = pirc.load(str(FIXTURES / where / "3.0.0" / f"{name}.3.0.0.json"))
    assert program.version == 1
    run_pipeline(program, "npu", device="npu")
    assert fused(program) == AT_VERSION_1[where, name]
