#!/usr/bin/env python3
"""A LLaMA decoder block with a dynamic batch dim, for tools/bench_run.py's fusion mode.

tests/fixtures/fusion/*/llama_block* saves fixed shapes ([2, 8, 16]: its reshapes hold the
batch), so it cannot run at batch 1 and 64; this one is the same block as a LLaMA user writes
it (paddlenlp's reshape to [0, 0, heads, head_dim], separate gate and up projections with
silu(gate) * up, the rotate-half rotary form, rms_norm as the x * rsqrt(mean(x^2) + eps) * w
composition), at a size where the kernels are not all call overhead: sequence 32, hidden 64
(4 heads of 16), intermediate 128.  Feeds: x [-1, 32, 64] (recorded at batch 2), cos / sin
[1, 1, 32, 16].

Run with the python of a scratch venv that has paddlepaddle (never pirc's environment):

    /tmp/pd331/bin/python tools/paddle_oracle/gen_bench_fixtures.py --out tests/fixtures/bench

Files as gen_fixtures.py writes them (OUT/VER/NAME.VER.{json,pdiparams,pir.txt,
loaded.pir.txt,io.npz}, gen_log.VER.json; weights normal * 0.5 by parameter name, inputs
normal by MODEL/feed).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_fixtures as gf  # noqa: E402  (imports paddle, enable_static)
import gen_op_fixtures as gof  # noqa: E402

import numpy as np  # noqa: E402
import paddle  # noqa: E402
import paddle.nn.functional as F  # noqa: E402

B_, S, N, D = 2, 32, 4, 16         # recorded batch, sequence, heads, head dim
H = N * D                          # hidden
FF = 128                           # intermediate
EPS = 1e-6
MODELS = {}


def model(name):
    def deco(fn):
        MODELS[name] = fn
        return fn
    return deco


def param(name, shape):
    return paddle.static.create_parameter(shape, "float32", name=name)


def rms(x, w):
    return x * paddle.rsqrt(x.pow(2).mean(-1, keepdim=True) + EPS) * w


def rotate_half(x):
    x1, x2 = x[..., : D // 2], x[..., D // 2:]
    return paddle.concat([-x2, x1], axis=-1)


def heads(t):
    return paddle.transpose(paddle.reshape(t, [0, 0, N, D]), [0, 2, 1, 3])


@model("llama_block")
def _llama_block(name):
    xa = gf.rng_for(f"{name}/x").standard_normal((B_, S, H)).astype("float32")
    pos = np.arange(S, dtype="float64")[:, None]
    inv = 1.0 / (10000 ** (np.arange(0, D, 2, dtype="float64") / D))
    ang = np.concatenate([pos * inv, pos * inv], -1)[None, None]  # [1, 1, S, D]
    cosa, sina = np.cos(ang).astype("float32"), np.sin(ang).astype("float32")
    x = gf.data("x", xa, [-1, S, H])
    cos, sin = gf.data("cos", cosa), gf.data("sin", sina)
    h = rms(x, param("norm1.w", [H]))
    q, k, v = (heads(paddle.matmul(h, param(f"{n}.w", [H, H]))) for n in "qkv")
    q = q * cos + rotate_half(q) * sin
    k = k * cos + rotate_half(k) * sin
    att = paddle.matmul(F.softmax(paddle.matmul(q, k, transpose_y=True) * (D ** -0.5), -1), v)
    att = paddle.reshape(paddle.transpose(att, [0, 2, 1, 3]), [0, 0, H])
    h2 = x + paddle.matmul(att, param("o.w", [H, H]))
    n2 = rms(h2, param("norm2.w", [H]))
    gate = paddle.matmul(n2, param("gate.w", [H, FF]))
    up = paddle.matmul(n2, param("up.w", [H, FF]))
    out = h2 + paddle.matmul(F.silu(gate) * up, param("down.w", [FF, H]))
    return [("x", xa), ("cos", cosa), ("sin", sina)], [out], {}


def main():
    gof.fixture_script_main(MODELS, lambda name: MODELS[name](name), "tests/fixtures/bench",
                            "benchmark programs with a dynamic batch dim; "
                            "each built in its own process", __file__)


if __name__ == "__main__":
    main()
