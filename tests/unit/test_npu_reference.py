"""CPU references of the torch_npu fused ops: formula, plain-torch composition, emitted calls."""

import inspect
import math

import pytest
import torch
import torch.nn.functional as F

from pirc.lower.npu import ops, reference
from pirc.lower.npu.schema_check import check_call, load_schemas
from pirc.compat.torch_versions import SUPPORTED_TORCH_NPU

ATOL, RTOL = 1e-5, 1e-4
g = torch.Generator().manual_seed(0)


def rnd(*shape, dtype=torch.float32):
    return torch.randn(*shape, generator=g).to(dtype)


def close(a, b):
    torch.testing.assert_close(a, b, atol=ATOL, rtol=RTOL)


def test_rms_norm_formula_and_torch_composition():
    x, w = rnd(2, 5, 16), rnd(16)
    y, rstd = reference.npu_rms_norm(x, w, 1e-6)
    for row in range(5):  # the formula by hand, one row
        v = x[1, row]
        r = 1.0 / math.sqrt(float((v.double() ** 2).mean()) + 1e-6)
        close(y[1, row], (v * r * w))
        assert abs(rstd[1, row, 0].item() - r) < 1e-5
    close(y, F.rms_norm(x, (16,), w, 1e-6))
    assert rstd.shape == (2, 5, 1) and rstd.dtype == torch.float32


def test_rms_norm_two_dim_gamma_and_half_precision_layout():
    x, w = rnd(3, 4, 8), rnd(4, 8)
    y, rstd = reference.npu_rms_norm(x, w)
    assert rstd.shape == (3, 1, 1)
    close(y, F.rms_norm(x, (4, 8), w, 1e-6))
    yh, rh = reference.npu_rms_norm(x.half(), w.half())
    assert yh.dtype == torch.float16 and rh.dtype == torch.float32


def test_add_rms_norm_returns_y_rstd_sum():
    a, b, w = rnd(4, 8), rnd(4, 8), rnd(8)
    y, rstd, s = reference.npu_add_rms_norm(a, b, w, 1e-5)
    close(s, a + b)
    close(y, F.rms_norm(a + b, (8,), w, 1e-5))
    assert rstd.shape == (4, 1)


def test_add_layer_norm_returns_y_mean_rstd_sum():
    """AddLayerNorm's formula: x = x1 + x2, y = (x - E[x]) / sqrt(Var[x] + eps) * gamma + beta,
    the variance E[(x - E[x])^2]; mean and rstd float32 of shape x.shape[:-gamma.dim()] + [1]."""
    a, b, w, beta = rnd(2, 3, 8) * 3 + 5, rnd(2, 3, 8), rnd(8), rnd(8)
    y, mean, rstd, s = reference.npu_add_layer_norm(a, b, w, beta, 1e-5, True)
    x = (a + b).double()
    mu = x.mean(-1, keepdim=True)
    var = ((x - mu) ** 2).mean(-1, keepdim=True)
    close(y.double(), (x - mu) / torch.sqrt(var + 1e-5) * w.double() + beta.double())
    assert torch.equal(s, a + b)
    close(mean.double(), mu)
    close(rstd.double(), 1 / torch.sqrt(var + 1e-5))
    assert mean.shape == rstd.shape == (2, 3, 1) and rstd.dtype == torch.float32
    # the same bits as the unfused add + layer_norm (what the npu lowering makes of both ops)
    assert torch.equal(y, F.layer_norm(a + b, [8], w, beta, 1e-5))
    w2, b2 = rnd(3, 8), rnd(3, 8)
    y2, mean2, rstd2, _ = reference.npu_add_layer_norm(a, b, w2, b2)
    assert torch.equal(y2, F.layer_norm(a + b, [3, 8], w2, b2, 1e-5))
    assert mean2.shape == rstd2.shape == (2, 1)


def test_swiglu():
    x = rnd(3, 10)
    a, b = x[:, :5], x[:, 5:]
    close(reference.npu_swiglu(x), a / (1 + torch.exp(-a)) * b)
    close(reference.npu_swiglu(x.T.contiguous(), dim=0), (F.silu(a) * b).T)


def test_rotary_mul_half_interleave_and_rotate():
    x, c, s = rnd(1, 2, 3, 8), rnd(1, 1, 3, 8), rnd(1, 1, 3, 8)
    x1, x2 = x[..., :4], x[..., 4:]
    close(reference.npu_rotary_mul(x, c, s), c * x + s * torch.cat((-x2, x1), -1))
    inter = torch.empty_like(x)
    inter[..., 0::2], inter[..., 1::2] = -x[..., 1::2], x[..., 0::2]
    close(reference.npu_rotary_mul(x, c, s, "interleave"), c * x + s * inter)
    rot = torch.zeros(8, 8)
    rot[:4, 4:] = torch.eye(4)
    rot[4:, :4] = -torch.eye(4)
    close(reference.npu_rotary_mul(x, c, s, rotate=rot), reference.npu_rotary_mul(x, c, s))


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu(approximate):
    x = rnd(50) * 4
    if approximate == "none":
        ref = 0.5 * x * (1 + torch.erf(x / math.sqrt(2)))
    else:
        ref = 0.5 * x * (1 + torch.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
    close(reference.npu_gelu(x, approximate=approximate), ref)


def test_gelu_keeps_the_unfused_programs_numbers():
    """On the CPU, npu_gelu (erf) is pd_op.gelu's kernel, Paddle's erf order (bit-exact
    against Paddle: +inf stays +inf where F.gelu gives NaN), so a program lowered on device
    npu keeps the unfused gelu's bits."""
    import numpy as np

    from pirc.lower.kernels.activation import gelu
    from pirc.testing import boundary_inputs

    for dtype in ("f32", "f64"):
        for label, arr in boundary_inputs(dtype, (3, 40)).items():
            x = torch.from_numpy(np.ascontiguousarray(arr))
            got, want = reference.npu_gelu(x, approximate="none"), gelu(x)
            assert torch.equal(got.isnan(), want.isnan()), label
            assert torch.equal(got.nan_to_num(), want.nan_to_num()), label
    assert reference.npu_gelu(torch.tensor([math.inf]), approximate="none").item() == math.inf
    x = rnd(3, 40) * 4
    assert torch.equal(reference.npu_gelu(x, approximate="tanh"), F.gelu(x, approximate="tanh"))


def test_layer_norm_eval():
    x, w, b = rnd(2, 3, 6), rnd(6), rnd(6)
    mu = x.mean(-1, keepdim=True)
    var = x.var(-1, unbiased=False, keepdim=True)
    close(reference.npu_layer_norm_eval(x, [6], w, b, 1e-5), (x - mu) / torch.sqrt(var + 1e-5) * w + b)
    close(reference.npu_layer_norm_eval(x, [3, 6]), F.layer_norm(x, [3, 6]))


def test_linear():
    x, w, b = rnd(4, 6), rnd(5, 6), rnd(5)
    close(reference.npu_linear(x, w, b), x @ w.T + b)
    close(reference.npu_linear(x, w), torch.matmul(x, w.T))


def test_scaled_masked_softmax():
    x = rnd(2, 2, 4, 4)
    mask = torch.rand(2, 2, 4, 4, generator=g) > 0.7
    mask[..., 0] = False  # no fully masked row
    expected = torch.softmax((x * 0.5).masked_fill(mask, float("-inf")), -1)
    close(reference.npu_scaled_masked_softmax(x, mask, 0.5), expected)
    tri = torch.triu(torch.ones(4, 4, dtype=torch.bool), 1)
    close(reference.npu_scaled_masked_softmax(x, mask, 1.0, fixed_triu_mask=True),
          torch.softmax(x.masked_fill(tri, float("-inf")), -1))


@pytest.mark.parametrize("layout", ["BNSD", "BSND", "BSH", "SBH"])
def test_fusion_attention_against_sdpa(layout):
    B, N, S, D = 2, 4, 5, 8
    q, k, v = rnd(B, N, S, D), rnd(B, 2, S, D), rnd(B, 2, S, D)  # GQA: 2 kv heads
    mask = torch.triu(torch.ones(S, S, dtype=torch.bool), 1)
    expected = F.scaled_dot_product_attention(q, k, v, attn_mask=~mask, scale=0.3, enable_gqa=True)
    to = {"BNSD": lambda t: t, "BSND": lambda t: t.transpose(1, 2),
          "BSH": lambda t: t.transpose(1, 2).flatten(2), "SBH": lambda t: t.permute(2, 0, 1, 3).flatten(2)}
    out = reference.npu_fusion_attention(to[layout](q), to[layout](k), to[layout](v), N, layout,
                                         atten_mask=mask, scale=0.3)
    assert len(out) == 7
    close(out[0], to[layout](expected))
    assert out[1].shape == (B, N, S, 8) and out[1].dtype == torch.float32


# -- signatures and emitted calls -----------------------------------------------------------

SCHEMAS = {v: load_schemas(v) for v in SUPPORTED_TORCH_NPU}


@pytest.mark.parametrize("name", ops.ENTRY_POINTS)
def test_entry_point_signature_matches_every_supported_schema(name):
    """Entry points and references take torch_npu's argument names, order and keyword-onlyness."""
    for version, schemas in SCHEMAS.items():
        (schema,) = [s for s in schemas[name] if not s.overload]
        for fn in (getattr(ops, name), getattr(reference, name)):
            params = list(inspect.signature(fn).parameters.values())
            assert [p.name for p in params] == [a.name for a in schema.arguments], (version, fn)
            assert [p.kind == p.KEYWORD_ONLY for p in params] == \
                   [a.keyword_only for a in schema.arguments], (version, fn)
            assert [p.default is not p.empty for p in params] == \
                   [a.has_default for a in schema.arguments], (version, fn)


class Recorder:
    """Stands in for torch_npu: records each call and answers with the reference's result."""

    def __init__(self):
        self.calls = []

    def __call__(self, name, *args, **kwargs):
        self.calls.append((name, len(args), tuple(kwargs)))
        return getattr(reference, name)(*args, **kwargs)


EXAMPLES = {
    "npu_rms_norm": lambda: (rnd(2, 8), rnd(8)),
    "npu_add_rms_norm": lambda: (rnd(2, 8), rnd(2, 8), rnd(8)),
    "npu_add_layer_norm": lambda: (rnd(2, 8), rnd(2, 8), rnd(8), rnd(8)),
    "npu_swiglu": lambda: (rnd(2, 8),),
    "npu_rotary_mul": lambda: (rnd(1, 2, 3, 8), rnd(1, 1, 3, 8), rnd(1, 1, 3, 8)),
    "npu_fusion_attention": lambda: (rnd(1, 2, 4, 8), rnd(1, 2, 4, 8), rnd(1, 2, 4, 8), 2, "BNSD"),
    "npu_gelu": lambda: (rnd(5),),
    "npu_layer_norm_eval": lambda: (rnd(2, 6), [6], rnd(6), rnd(6)),
    "npu_linear": lambda: (rnd(2, 3, 6), rnd(5, 6), rnd(5)),
    "npu_scaled_masked_softmax": lambda: (rnd(1, 1, 32, 32), torch.zeros(1, 1, 32, 32, dtype=torch.bool)),
}


@pytest.mark.parametrize("name", ops.ENTRY_POINTS)
def test_npu_path_calls_torch_npu_with_schema_arguments(name, monkeypatch):
    """Force the NPU branch, record the torch_npu call it makes, bind it to every schema."""
    rec = Recorder()
    monkeypatch.setattr(ops, "on_npu", lambda t: isinstance(t, torch.Tensor))
    monkeypatch.setattr(ops, "npu_call", rec)
    args = EXAMPLES[name]()
    got = getattr(ops, name)(*args)
    want = getattr(reference, name)(*args)
    assert rec.calls and rec.calls[0][0] == name
    for version, schemas in SCHEMAS.items():
        for call in rec.calls:
            assert check_call(schemas, *call) == [], (version, call)
    first = lambda r: r[0] if isinstance(r, tuple) else r
    close(first(got), first(want))


def test_schema_check_catches_wrong_names():
    s = SCHEMAS["2.14.0"]
    assert check_call(s, "npu_rms_norm", 2, ("eps",))
    assert check_call(s, "npu_gelu", 2, ())  # approximate is keyword-only
    assert check_call(s, "npu_layernorm", 1, ())  # no such op
    assert check_call(s, "npu_linear", 1, ())  # weight missing
    assert check_call(s, "npu_rms_norm", 2, ("epsilon",)) == []


def test_detection_without_torch_npu_reports_not_installed():
    from pirc.lower.npu.detect import npu_status
    import importlib.util
    status = npu_status(refresh=True)
    if importlib.util.find_spec("torch_npu") is None:
        assert status.available is False and status.reason == "torch_npu not installed"
    else:
        assert isinstance(status.available, bool)


def test_detection_with_an_unusable_torch_npu_keeps_torch_working(tmp_path):
    """A torch_npu that fails to import (no CANN) must give 'present but unusable', not a crash."""
    import subprocess
    import sys
    pkg = tmp_path / "torch_npu"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("raise ImportError('libhccl.so: cannot open shared object file')\n")
    code = ("import os; import pirc.lower.npu as n; assert os.environ['TORCH_DEVICE_BACKEND_AUTOLOAD'] == '0';"
            "s = n.npu_status(); import torch; print(torch.ones(2).sum().item(), s.available, s.reason)")
    env = {k: v for k, v in __import__("os").environ.items() if k != "TORCH_DEVICE_BACKEND_AUTOLOAD"}
    env["PYTHONPATH"] = f"{tmp_path}:{Path_repo()}"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("2.0 False torch_npu ? present but unusable: ImportError: libhccl.so")


def Path_repo():
    from pathlib import Path
    return Path(__file__).resolve().parents[2]


def test_generator_for_seeds_when_seed_is_given():
    from pirc.lower.npu.generators import generator_for
    assert generator_for("cpu", 0) is None  # torch's global generator
    a = torch.rand(3, generator=generator_for("cpu", 7))
    b = torch.rand(3, generator=generator_for("cpu", 7))
    assert torch.equal(a, b)
