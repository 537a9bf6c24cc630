#!/usr/bin/env python3
"""Small real Paddle programs holding, in Paddle's own op spelling, the compositions pirc's
portable fusion passes rewrite (pirc/passes/fusion/{fc,gelu,swiglu}.py): linear layers with
and without relu (and a relu6, which must stay unfolded), the erf and tanh gelu formulas as
Python code writes them (PaddleNLP's gelu_new, BLOOM's bloom_gelu_forward), and SwiGLU gates
(two projections, a chunk in halves, x * sigmoid(x) spelled by hand).

Run with the python of a scratch venv that has paddlepaddle (never pirc's environment):

    /tmp/pd331/bin/python tools/paddle_oracle/gen_portable_fusion_fixtures.py --out tests/fixtures/fusion_portable
    /tmp/pd300/bin/python tools/paddle_oracle/gen_portable_fusion_fixtures.py --out tests/fixtures/fusion_portable

Files, per model, as gen_fusion_fixtures.py writes them (OUT/VER/NAME.VER.{json,pdiparams,
pir.txt,loaded.pir.txt,io.npz}, gen_log.VER.json; weights normal*0.5 by parameter name,
inputs normal by MODEL/feed).  check_portable_fusion.py then runs pirc's `fuse` output of
each in real Paddle 3.3.1.
"""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_fixtures as gf  # noqa: E402,F401  (imports paddle, enable_static)
import gen_op_fixtures as gof  # noqa: E402

import paddle  # noqa: E402
import paddle.nn.functional as F  # noqa: E402

B_, S, H = 2, 4, 16
MODELS = {}


def model(name):
    def deco(fn):
        MODELS[name] = fn
        return fn
    return deco


def param(name, shape):
    return paddle.static.create_parameter(shape, "float32", name=name)


def linear(x, name, k, n):
    """paddle.nn.Linear's forward: F.linear = matmul(x, w) + b."""
    return F.linear(x, param(f"{name}.w", [k, n]), param(f"{name}.b", [n]))


@model("fc_layers")
def _fc_layers(f):
    """An MLP on a 2-D input (linear + relu, linear), a linear on a 3-D input, and a linear
    followed by relu6 (folded as an fc, the relu6 kept: Paddle's CPU fc applies relu only)."""
    x, x3 = f("x", [B_ * S, H]), f("x3", [B_, S, H])
    h = F.relu(linear(x, "l1", H, 2 * H))
    out = linear(h, "l2", 2 * H, H)
    out3 = F.relu(linear(x3, "l3", H, H))
    six = F.relu6(linear(x3, "l4", H, H))
    return [out, out3, six], {}


def gelu_erf(x):
    """The exact gelu as Python code writes it."""
    return 0.5 * x * (1.0 + paddle.erf(x / math.sqrt(2.0)))


def gelu_new(x):
    """PaddleNLP / HF's NewGELUActivation (GPT-2): the tanh gelu with pow(x, 3)."""
    return 0.5 * x * (1.0 + paddle.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * paddle.pow(x, 3.0))))


def bloom_gelu(x):
    """PaddleNLP's bloom_gelu_forward: the tanh argument factored as c * x * (1 + k * x * x)."""
    return x * 0.5 * (1.0 + paddle.tanh(0.79788456 * x * (1 + 0.044715 * x * x)))


@model("gelu_compositions")
def _gelu_compositions(f):
    """The three spellings, each after a linear layer (as in a transformer's FFN)."""
    x = f("x", [B_, S, H])
    return [linear(gelu_erf(linear(x, "e", H, H)), "e2", H, H),
            gelu_new(linear(x, "t", H, H)),
            bloom_gelu(linear(x, "b", H, H))], {}


@model("swiglu_gates")
def _swiglu_gates(f):
    """QWen's gate (silu of one projection times another), LLaMA's chunked gate_up, a silu
    spelled x * sigmoid(x) by hand, and a gate_up cut by paddle.split and by slicing."""
    x = f("x", [B_, S, H])
    w = lambda n, k, m: param(n, [k, m])  # noqa: E731
    gate, up = paddle.matmul(x, w("gate.w", H, 2 * H)), paddle.matmul(x, w("up.w", H, 2 * H))
    qwen = paddle.matmul(F.silu(gate) * up, w("down.w", 2 * H, H))
    a, b = paddle.chunk(paddle.matmul(x, w("gate_up.w", H, 4 * H)), 2, axis=-1)
    chunked = F.silu(a) * b
    g2 = paddle.matmul(x, w("g2.w", H, H))
    by_hand = g2 * F.sigmoid(g2) * paddle.matmul(x, w("u2.w", H, H))
    gu = paddle.matmul(x, w("gu3.w", H, 2 * H))
    p, q = paddle.split(gu, [H, H], axis=-1)
    split = F.silu(p) * q
    sliced = F.silu(gu[..., :H]) * gu[..., H:]
    return [qwen, chunked, by_hand, split, sliced], {}


def build(name):
    f = gof.Feeds(name)
    fetches, extra = MODELS[name](f)
    return f.items, fetches, extra


def main():
    gof.fixture_script_main(MODELS, build, "tests/fixtures/fusion_portable",
                            "programs with the portable fusion patterns (fc, gelu, swiglu); "
                            "each built in its own process", __file__)


if __name__ == "__main__":
    main()
