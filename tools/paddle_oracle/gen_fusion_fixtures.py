#!/usr/bin/env python3
"""Small real Paddle programs holding the patterns pirc's npu pipeline fuses
(pirc/passes/fusion): rms_norm (composed and fused), swiglu, rotary half, attention.

Run with the python of a scratch venv that has paddlepaddle (never pirc's environment):

    /tmp/pd331/bin/python tools/paddle_oracle/gen_fusion_fixtures.py --out tests/fixtures/fusion
    /tmp/pd300/bin/python tools/paddle_oracle/gen_fusion_fixtures.py --out tests/fixtures/fusion

Files, per model, as gen_op_fixtures.py writes them (OUT/VER/NAME.VER.{json,pdiparams,
pir.txt,loaded.pir.txt,io.npz}, gen_log.VER.json; weights normal*0.5 by parameter name,
inputs normal by MODEL/feed). paddle.nn.functional.rms_norm (PIR version 4's pd_op.rms_norm)
has no CPU kernel in the 3.3.1 wheel: the CPU build refuses even to build it, so no fixture
holds it (tests/unit/test_npu_fusion_programs.py builds that op from text instead).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_fixtures as gf  # noqa: E402  (imports paddle, enable_static)
import gen_op_fixtures as gof  # noqa: E402

import numpy as np  # noqa: E402
import paddle  # noqa: E402
import paddle.nn.functional as F  # noqa: E402
from paddle.incubate.nn.functional import fused_rms_norm  # noqa: E402

B_, S, N, D = 2, 8, 2, 8          # batch, sequence, heads, head dim
H = N * D                          # hidden
EPS = 1e-6
IS_33 = gf.PADDLE_VERSION.startswith("3.3")
MODELS = {}


def model(name):
    def deco(fn):
        MODELS[name] = fn
        return fn
    return deco


def param(name, shape):
    return paddle.static.create_parameter(shape, "float32", name=name)


def rms(x, w):
    """The composition LLaMA-style code writes: x * rsqrt(mean(x^2, -1) + eps) * w."""
    return x * paddle.rsqrt(x.pow(2).mean(-1, keepdim=True) + EPS) * w


def rotate_half(x):
    x1, x2 = x[..., : D // 2], x[..., D // 2:]
    return paddle.concat([-x2, x1], axis=-1)


def heads(t):
    return paddle.transpose(paddle.reshape(t, [B_, S, N, D]), [0, 2, 1, 3])


def swiglu(x):
    if IS_33:
        return F.swiglu(x)
    return paddle.incubate.nn.functional.swiglu(x)


def cos_sin(f):
    pos = np.arange(S, dtype="float64")[:, None]
    inv = 1.0 / (10000 ** (np.arange(0, D, 2, dtype="float64") / D))
    ang = np.concatenate([pos * inv, pos * inv], -1)[None, None]  # [1, 1, S, D]
    return (f("cos", [1, 1, S, D], value=np.cos(ang).astype("float32")),
            f("sin", [1, 1, S, D], value=np.sin(ang).astype("float32")))


@model("llama_block")
def _llama_block(f):
    """One decoder block: rms -> q/k/v -> rotary -> attention -> o -> residual add + rms ->
    gate/up -> swiglu -> down -> residual; plus a chunk + silu * b gate on the same input."""
    x = f("x", [B_, S, H])
    cos, sin = cos_sin(f)
    h = rms(x, param("norm1.w", [H]))
    q, k, v = (heads(paddle.matmul(h, param(f"{n}.w", [H, H]))) for n in "qkv")
    q = q * cos + rotate_half(q) * sin
    k = k * cos + rotate_half(k) * sin
    att = paddle.matmul(F.softmax(paddle.matmul(q, k, transpose_y=True) * (D ** -0.5), -1), v)
    att = paddle.reshape(paddle.transpose(att, [0, 2, 1, 3]), [B_, S, H])
    h2 = x + paddle.matmul(att, param("o.w", [H, H]))
    n2 = rms(h2, param("norm2.w", [H]))
    up = paddle.matmul(n2, param("gate_up.w", [H, 4 * H]))
    out = h2 + paddle.matmul(swiglu(up), param("down.w", [2 * H, H]))
    a, b = paddle.chunk(up, 2, axis=-1)
    gated = F.silu(a) * b
    return [out, gated], {}


@model("fused_rms_norm")
def _fused_rms_norm(f):
    """paddle.incubate's fused_rms_norm: pd_op.rms_norm at PIR versions 1-3,
    pd_op.fused_rms_norm_quant at 4; plain, with a residual, and with residual + bias (the
    bias variant is not fused); begin_norm_axis 1 normalises over two dims."""
    x, r = f("x", [B_, S, H]), f("r", [B_, S, H])
    w, w2, b = param("rms.w", [H]), param("rms.w2", [S * H]), param("rms.b", [H])
    plain = fused_rms_norm(x, w, None, EPS, 2)[0]
    with_res = fused_rms_norm(x, w, None, EPS, 2, residual=r)
    with_bias = fused_rms_norm(x, w, None, EPS, 2, bias=b, residual=r)[0]
    two_dims = fused_rms_norm(x, w2, None, 1e-5, 1)[0]
    return [plain, with_res[0], with_res[1], with_bias, two_dims], {}


def build(name):
    f = gof.Feeds(name)
    fetches, extra = MODELS[name](f)
    return f.items, fetches, extra


def main():
    gof.fixture_script_main(MODELS, build, "tests/fixtures/fusion",
                            "programs with the NPU fusion patterns; "
                            "each built in its own process", __file__)


if __name__ == "__main__":
    main()
