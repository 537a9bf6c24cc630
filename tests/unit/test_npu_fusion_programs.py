"""Device npu on real programs (tests/fixtures/fusion, made with Paddle 3.0.0 and 3.3.1 by
tools/paddle_oracle/gen_fusion_fixtures.py; the corpus transformer) and on small PIR texts for
the forms no CPU wheel can build: `lower(program, device="npu")` runs the `npu` pipeline, whose
fusion passes (pirc/passes/fusion) make Paddle's fused ops or npu ops, and the lowering emits
each as its torch_npu call (pirc/lower/npu/emit.py, kernels/npu.py); the tests count the
`pirc.lower.npu.ops` calls the graph makes and compare with the CPU lowering and with Paddle.
Plus the kernels those patterns need (rsqrt, silu, swiglu, both rms_norms)."""

from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import torch

import pirc.api as api
import pirc.lower.kernels  # noqa: F401  (registers the kernels)
from pirc.errors import LoweringError
from pirc.lower.kernels import fused
from npu_calls import fused_calls
from pirc.lower.npu import ops
from pirc.runtime.registry import REGISTRY

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures" / "fusion"
ATOL, RTOL = 1e-5, 1e-4

# Which fused entry points each fixture's graph calls with device="npu".
# composed rms -> fuse-rms-norm -> rms_norm / fused_rms_norm_quant -> npu_(add_)rms_norm;
# rotate-half -> fuse-rotary -> npu.rotary_mul; attention -> fuse-attention ->
# npu.fusion_attention; chunk + silu gate -> fuse-swiglu -> swiglu(x) -> npu_swiglu.  The
# q/k/v/o projections have no bias: a matmul stays a matmul (the fx rewrite made each an
# npu_linear; fuse-fc takes matmul + 1-D bias add only).
LLAMA = {"npu_rms_norm": 1, "npu_add_rms_norm": 1, "npu_rotary_mul": 2,
         "npu_fusion_attention": 1, "npu_swiglu": 2}
# four matmul + bias -> fc -> npu_linear; the attention core -> self_dp_attention ->
# npu_fusion_attention (BSND); gelu -> npu_gelu; the final layer_norm -> npu_layer_norm_eval,
# the residual one -> fused_bias_residual_layernorm -> npu_add_layer_norm
TRANSFORMER = {"npu_linear": 4, "npu_layer_norm_eval": 1, "npu_gelu": 1, "npu_fusion_attention": 1,
               "npu_add_layer_norm": 1}
EXPECTED = {
    "llama_block": LLAMA,
    # plain + two-dim rms -> npu_rms_norm; residual -> npu_add_rms_norm; residual + bias stays
    "fused_rms_norm": {"npu_rms_norm": 2, "npu_add_rms_norm": 1},
}
CASES = [(v, m) for v in ("3.0.0", "3.3.1") for m in EXPECTED]


def fixture(version, name):
    base = FIXTURES / version / f"{name}.{version}"
    io = np.load(f"{base}.io.npz")
    feeds = {k[4:]: torch.from_numpy(io[k]) for k in io.files if k.startswith("in__")}
    outs = [io[f"out__{i}"] for i in range(sum(k.startswith("out__") for k in io.files))]
    return api.load(f"{base}.json"), f"{base}.pdiparams", feeds, outs


@pytest.mark.parametrize("version,name", CASES)
def test_fixture_fuses_and_keeps_paddles_numbers(version, name):
    program, params, feeds, paddle_out = fixture(version, name)
    cpu = api.lower(program, params, device="cpu")
    npu = api.lower(program, params, device="npu")
    assert fused_calls(npu) == EXPECTED[name]
    assert not fused_calls(cpu)
    a, b = cpu(**feeds), npu(**feeds)
    assert len(b) == len(paddle_out)
    for x, y, want in zip(a, b, paddle_out):
        torch.testing.assert_close(y, x, atol=ATOL, rtol=RTOL)
        np.testing.assert_allclose(y.numpy(), want, atol=ATOL, rtol=RTOL)
    torch.export.export(npu, (), feeds)


def test_old_rms_norm_upgraded_to_version_4_still_fuses():
    """3.0.0's pd_op.rms_norm is 3.3.1's fused_rms_norm_quant: the upgrade renames it, the
    same kernel runs, and the rewrite still applies."""
    program, params, feeds, paddle_out = fixture("3.0.0", "fused_rms_norm")
    upgraded = api.upgrade(program, 4)
    assert "pd_op.fused_rms_norm_quant" in {op.name for op in upgraded.walk()}
    npu = api.lower(upgraded, params, device="npu")
    assert fused_calls(npu) == EXPECTED["fused_rms_norm"]
    for y, want in zip(npu(**feeds), paddle_out):
        np.testing.assert_allclose(y.numpy(), want, atol=ATOL, rtol=RTOL)


# -- the registry: one name, two ops ------------------------------------------------------

def test_rms_norm_means_the_fused_op_until_version_4():
    assert [e.range_text() for e in REGISTRY.entries("pd_op.rms_norm")] == ["[1, 4)", "[4, ...)"]
    for v in (1, 2, 3):
        assert REGISTRY.resolve("pd_op.rms_norm", v).fn is fused.fused_rms_norm
    assert REGISTRY.resolve("pd_op.rms_norm", 4).fn is fused.rms_norm
    assert REGISTRY.resolve("pd_op.rms_norm", 0).fn is fused.rms_norm  # develop = newest
    assert REGISTRY.resolve("pd_op.fused_rms_norm_quant", 4).fn is fused.fused_rms_norm
    with pytest.raises(LoweringError, match=r"fused_rms_norm_quant has no lowering for PIR version 3"):
        REGISTRY.resolve("pd_op.fused_rms_norm_quant", 3)
    assert REGISTRY.resolve("pd_op.rms_norm", 4).flags.epsilon_placement == "inside_sqrt"


def test_fused_rms_norm_kernel_formula_residual_bias_and_quant_refusal():
    g = torch.Generator().manual_seed(3)
    x, r, w, b = (torch.randn(s, generator=g) for s in ((2, 3, 8), (2, 3, 8), (24,), (24,)))
    out, res, inv = fused.fused_rms_norm(x, None, r, w, None, epsilon=1e-6, begin_norm_axis=1)
    s = (x + r).double().reshape(2, 24)
    ref = s / torch.sqrt((s * s).mean(1, keepdim=True) + 1e-6) * w.double()
    torch.testing.assert_close(out.double().reshape(2, 24), ref, atol=1e-6, rtol=1e-6)
    assert torch.equal(res, x + r) and inv.shape == (2,)
    # without a residual the bias is ignored (Paddle 3.0.0's CPU kernel, see the fixture's out 3)
    alone = fused.fused_rms_norm(x, b, None, w, None, epsilon=1e-6, begin_norm_axis=1)
    assert torch.equal(alone[0], fused.fused_rms_norm(x, None, None, w, None, epsilon=1e-6,
                                                       begin_norm_axis=1)[0])
    assert alone[1] is None
    with pytest.raises(NotImplementedError, match="quant_scale > 0"):
        fused.fused_rms_norm(x, None, None, w, None, quant_scale=0.5)


def test_swiglu_silu_and_rsqrt_kernels():
    g = torch.Generator().manual_seed(4)
    x, y = torch.randn(3, 10, generator=g), torch.randn(3, 10, generator=g)
    a, b = x[:, :5], x[:, 5:]
    torch.testing.assert_close(fused.swiglu(x), a / (1 + torch.exp(-a)) * b)
    torch.testing.assert_close(fused.swiglu(x, y), torch.nn.functional.silu(x) * y)
    with pytest.raises(ValueError, match="must be even"):
        fused.swiglu(torch.ones(2, 3))
    torch.testing.assert_close(fused.rsqrt(x.abs() + 0.1), 1 / torch.sqrt(x.abs() + 0.1))


# -- PIR texts: forms no CPU wheel builds, and patterns that must stay unfused ------------

PARAM = ('"builtin.parameter" () {{is_distributed:[false],is_parameter:[true],need_clip:[true],'
         'parameter_name:"{name}",persistable:[true],stop_gradient:[false],trainable:[true]}} '
         ': () -> tensor<{shape}xf32>')
DATA = ('"pd_op.data" () {{dtype:{dtype},name:"{name}",place:Place(undefined:0),shape:[{dims}],'
        'stop_gradient:[true]}} : () -> tensor<{shape}x{t}>')
FETCH = ('"pd_op.fetch" ({v}) {{col:{col},name:"{name}",persistable:[true],stop_gradient:[false]}} '
         ': (tensor<{shape}xf32>) -> tensor<{shape}xf32>')


def data(name, dims, t="f32", dtype="float32"):
    return DATA.format(name=name, dims=",".join(map(str, dims)), shape="x".join(map(str, dims)),
                       t=t, dtype=dtype)


def program(lines, version):
    return api.parse("{\n" + "\n".join(f"    {ln}" for ln in lines) + "\n}\n", from_version=version)


def v4_rms_norm(fetch_invvar):
    lines = [
        "(%0) = " + PARAM.format(name="w", shape="3x8"),
        "(%1) = " + data("x", [2, 3, 8]),
        '(%2, %3) = "pd_op.rms_norm" (%1, %0) {epsilon:1e-06,normalized_shape:[3,8],'
        'stop_gradient:[false,false]} : (tensor<2x3x8xf32>, tensor<3x8xf32>) -> '
        'tensor<2x3x8xf32>, tensor<2xf32>',
        "(%4) = " + FETCH.format(v="%2", col=0, name="y", shape="2x3x8"),
    ]
    if fetch_invvar:
        lines.append("(%5) = " + FETCH.format(v="%3", col=1, name="invvar", shape="2"))
    return program(lines, 4)


@pytest.mark.parametrize("fetch_invvar", [False, True])
def test_version_4_rms_norm_lowers_and_fuses_unless_invvar_is_used(fetch_invvar):
    g = torch.Generator().manual_seed(5)
    x, w = torch.randn(2, 3, 8, generator=g), torch.randn(3, 8, generator=g)
    prog = v4_rms_norm(fetch_invvar)
    cpu = api.lower(prog, {"w": w.numpy()}, device="cpu")
    npu = api.lower(prog, {"w": w.numpy()}, device="npu")
    xd = x.double().reshape(2, 24)
    inv = 1 / torch.sqrt((xd * xd).mean(1) + 1e-6)
    want = (xd * inv[:, None]).reshape(2, 3, 8) * w.double()
    a, b = cpu(x), npu(x)
    torch.testing.assert_close(a[0].double(), want, atol=1e-6, rtol=1e-6)
    torch.testing.assert_close(a[0], torch.nn.functional.rms_norm(x, (3, 8), w, 1e-6))
    torch.testing.assert_close(b[0], a[0], atol=ATOL, rtol=RTOL)
    if fetch_invvar:
        torch.testing.assert_close(a[1].double(), inv, atol=1e-6, rtol=1e-6)
        assert fused_calls(npu) == {}  # npu's rstd has another shape than Paddle's invvar
    else:
        assert fused_calls(npu) == {"npu_rms_norm": 1}
        torch.export.export(npu, (x,))


def attention_text(with_mask: bool):
    t4 = "tensor<2x2x4x8xf32>"
    s4 = "tensor<2x2x4x4xf32>"
    lines = [
        "(%0) = " + data("q", [2, 2, 4, 8]), "(%1) = " + data("k", [2, 2, 4, 8]),
        "(%2) = " + data("v", [2, 2, 4, 8]), "(%3) = " + data("m", [2, 2, 4, 4]),
        f'(%4) = "pd_op.matmul" (%0, %1) {{stop_gradient:[true],transpose_x:false,transpose_y:true}} '
        f': ({t4}, {t4}) -> {s4}',
        '(%5) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],'
        'value:0.35} : () -> tensor<1xf32>',
        f'(%6) = "pd_op.scale" (%4, %5) {{bias:0,bias_after_scale:true,stop_gradient:[true]}} '
        f': ({s4}, tensor<1xf32>) -> {s4}',
    ]
    last = "%6"
    if with_mask:
        lines.append(f'(%7) = "pd_op.add" (%6, %3) {{stop_gradient:[true]}} : ({s4}, {s4}) -> {s4}')
        last = "%7"
    lines += [
        f'(%8) = "pd_op.softmax" ({last}) {{axis:-1,stop_gradient:[true]}} : ({s4}) -> {s4}',
        f'(%9) = "pd_op.matmul" (%8, %2) {{stop_gradient:[true],transpose_x:false,transpose_y:false}} '
        f': ({s4}, {t4}) -> {t4}',
        "(%10) = " + FETCH.format(v="%9", col=0, name="out", shape="2x2x4x8"),
    ]
    return program(lines, 4)


def test_attention_is_fused_and_an_additive_mask_keeps_it_unfused():
    g = torch.Generator().manual_seed(6)
    q, k, v = (torch.randn(2, 2, 4, 8, generator=g) for _ in range(3))
    mask = torch.where(torch.rand(2, 2, 4, 4, generator=g) > 0.7, -1e4, 0.0)
    plain = attention_text(False)
    npu = api.lower(plain, device="npu")
    assert fused_calls(npu) == {"npu_fusion_attention": 1}
    want = torch.softmax(q @ k.transpose(-1, -2) * np.float32(0.35), -1) @ v
    torch.testing.assert_close(npu(q, k, v, mask)[0], want, atol=ATOL, rtol=RTOL)
    torch.testing.assert_close(npu(q, k, v, mask)[0], api.lower(plain)(q, k, v, mask)[0])
    masked = api.lower(attention_text(True), device="npu")
    assert "npu_fusion_attention" not in fused_calls(masked)
    assert "npu_scaled_masked_softmax" not in fused_calls(masked)


def rms_composition_text(dtype_t, dtype):
    t = f"tensor<2x8x{dtype_t}>"
    r = f"tensor<2x1x{dtype_t}>"
    return program([
        "(%0) = " + PARAM.format(name="w", shape="8").replace("xf32", f"x{dtype_t}"),
        "(%1) = " + data("x", [2, 8], dtype_t, dtype),
        f'(%2) = "pd_op.pow" (%1) {{stop_gradient:[true],y:2}} : ({t}) -> {t}',
        '(%3) = "pd_op.full_int_array" () {dtype:int64,place:Place(cpu),stop_gradient:[true],'
        'value:[-1]} : () -> tensor<1xi64>',
        f'(%4) = "pd_op.mean" (%2, %3) {{keepdim:true,stop_gradient:[true]}} : ({t}, tensor<1xi64>) -> {r}',
        '(%5) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],'
        'value:1} : () -> tensor<1xf32>',
        f'(%6) = "pd_op.scale" (%4, %5) {{bias:1e-06,bias_after_scale:true,stop_gradient:[true]}} '
        f': ({r}, tensor<1xf32>) -> {r}',
        f'(%7) = "pd_op.rsqrt" (%6) {{stop_gradient:[true]}} : ({r}) -> {r}',
        f'(%8) = "pd_op.multiply" (%1, %7) {{stop_gradient:[true]}} : ({t}, {r}) -> {t}',
        f'(%9) = "pd_op.multiply" (%8, %0) {{stop_gradient:[true]}} : ({t}, tensor<8x{dtype_t}>) -> {t}',
    ], 4)


def test_rms_composition_fuses_for_float32_only():
    w = np.linspace(-1, 1, 8, dtype="float32")
    x = torch.randn(2, 8, generator=torch.Generator().manual_seed(7))
    f32 = rms_composition_text("f32", "float32")
    npu = api.lower(f32, {"w": w}, device="npu")
    assert fused_calls(npu) == {"npu_rms_norm": 1}
    torch.testing.assert_close(npu(x)[0], api.lower(f32, {"w": w})(x)[0], atol=ATOL, rtol=RTOL)
    torch.testing.assert_close(npu(x)[0], torch.nn.functional.rms_norm(x, (8,), torch.from_numpy(w), 1e-6))
    # float16: Paddle rounds every step to half, npu_rms_norm computes in float32: left alone
    f16 = rms_composition_text("f16", "float16")
    assert fused_calls(api.lower(f16, {"w": w.astype("float16")}, device="npu")) == {}


def silu_gate_text(last_dim):
    d = str(last_dim)
    t, h = f"tensor<2x{d}xf32>", f"tensor<2x{'4' if last_dim == 8 else '-1'}xf32>"
    full = ('"pd_op.full_int_array" () {{dtype:int64,place:Place(cpu),stop_gradient:[true],'
            'value:[{v}]}} : () -> tensor<1xi64>')
    slice_ = ('"pd_op.slice" (%0, {a}, {b}) {{axes:[1],decrease_axis:[],infer_flags:[1],'
              'stop_gradient:[true]}} : ({t}, tensor<1xi64>, tensor<1xi64>) -> {h}')
    return program([
        "(%0) = " + data("x", [2, last_dim]),
        "(%1) = " + full.format(v=0), "(%2) = " + full.format(v=4), "(%3) = " + full.format(v=2147483647),
        "(%4) = " + slice_.format(a="%1", b="%2", t=t, h="tensor<2x4xf32>"),
        "(%5) = " + slice_.format(a="%2", b="%3", t=t, h=h),
        '(%6) = "pd_op.silu" (%4) {stop_gradient:[true]} : (tensor<2x4xf32>) -> tensor<2x4xf32>',
        f'(%7) = "pd_op.multiply" (%5, %6) {{stop_gradient:[true]}} : ({h}, tensor<2x4xf32>) -> tensor<2x4xf32>',
    ], 4)


def test_silu_gate_of_slices_fuses_only_when_they_are_provably_halves():
    x = torch.randn(2, 8, generator=torch.Generator().manual_seed(8))
    halves = silu_gate_text(8)
    npu = api.lower(halves, device="npu")
    assert fused_calls(npu) == {"npu_swiglu": 1}
    torch.testing.assert_close(npu(x)[0], api.lower(halves)(x)[0])
    torch.testing.assert_close(npu(x)[0], torch.nn.functional.silu(x[:, :4]) * x[:, 4:])
    # last dim unknown: [0, 4) and [4, end) are halves only if it is 8
    assert fused_calls(api.lower(silu_gate_text(-1), device="npu")) == {}


def test_every_torch_npu_call_of_the_fused_llama_block_binds_to_the_schemas(monkeypatch):
    """The NPU branch forced, torch_npu replaced by a recorder: each call the fused graph makes
    must exist in every supported torch_npu release's schemas with those arguments."""
    from pirc.compat.torch_versions import SUPPORTED_TORCH_NPU
    from pirc.lower.npu import reference
    from pirc.lower.npu.schema_check import check_call, load_schemas
    calls = []

    def record(name, *args, **kwargs):
        calls.append((name, len(args), tuple(kwargs)))
        return getattr(reference, name)(*args, **kwargs)

    program, params, feeds, paddle_out = fixture("3.3.1", "llama_block")
    npu = api.lower(program, params, device="npu")
    monkeypatch.setattr(ops, "on_npu", lambda t: isinstance(t, torch.Tensor))
    monkeypatch.setattr(ops, "npu_call", record)
    out = npu(**feeds)
    assert Counter(c[0] for c in calls) == LLAMA
    for version in SUPPORTED_TORCH_NPU:
        schemas = load_schemas(version)
        for call in calls:
            assert check_call(schemas, *call) == [], (version, call)
    for y, want in zip(out, paddle_out):
        np.testing.assert_allclose(y.numpy(), want, atol=ATOL, rtol=RTOL)


def test_transformer_on_npu_device_runs_references_and_matches_cpu():
    base = REPO / "tests/fixtures/corpus/3.3.1/transformer.3.3.1"
    program = api.load(str(base) + ".json")
    io = np.load(str(base) + ".io.npz")
    feeds = {k[4:]: torch.from_numpy(io[k]) for k in io.files if k.startswith("in__")}
    cpu = api.lower(program, str(base) + ".pdiparams", device="cpu")
    npu = api.lower(program, str(base) + ".pdiparams", device="npu")
    assert fused_calls(npu) == TRANSFORMER
    a, b = cpu(**feeds), npu(**feeds)
    for x, y in zip(a, b):
        torch.testing.assert_close(y, x, atol=1e-5, rtol=1e-4)
    np.testing.assert_allclose(b[0].numpy(), io["reload_out__0"], atol=1e-5, rtol=1e-4)
    torch.export.export(npu, (), feeds)
