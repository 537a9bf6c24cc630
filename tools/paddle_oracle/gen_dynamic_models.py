#!/usr/bin/env python3
"""Small `paddle.jit.to_static` models with dynamic batch (and sequence) dims, saved with
`paddle.jit.save` (InputSpec([None, ...])): what a user's exported model looks like when its
sizes are only known at run time.

Run with the python of a scratch venv that has paddlepaddle (never pirc's environment):

    /tmp/pd331/bin/python tools/paddle_oracle/gen_dynamic_models.py --out tests/fixtures/dynamic
    /tmp/pd300/bin/python tools/paddle_oracle/gen_dynamic_models.py --out tests/fixtures/dynamic

Writes OUT/VER/NAME.{json,pdiparams,io.npz} and OUT/VER/gen_log.json.  io.npz holds the
inputs at two sizes (in__<feed>, in2__<feed>) and the outputs of the saved model, loaded back
with paddle.jit.load, at both (out__<i>, out2__<i>).
"""
import argparse
import json
import os
import sys
import time
import zlib

import numpy as np
import paddle
import paddle.nn.functional as F
from paddle.static import InputSpec


class MLP(paddle.nn.Layer):
    """Dynamic batch: flattens [b, 2, 4] with x.shape[0], two Linear layers."""

    def __init__(self):
        super().__init__()
        self.fc1 = paddle.nn.Linear(8, 16)
        self.fc2 = paddle.nn.Linear(16, 4)

    def forward(self, x):
        h = x.reshape([x.shape[0], -1])
        return self.fc2(F.relu(self.fc1(h)))


class TinyAttention(paddle.nn.Layer):
    """Dynamic batch and sequence: one causal self-attention block with two heads."""

    def __init__(self, dim=8, heads=2):
        super().__init__()
        self.heads, self.hd = heads, dim // heads
        self.qkv = paddle.nn.Linear(dim, 3 * dim)
        self.out = paddle.nn.Linear(dim, dim)

    def forward(self, x):
        b, t = x.shape[0], x.shape[1]
        qkv = self.qkv(x).reshape([b, t, 3, self.heads, self.hd]).transpose([2, 0, 3, 1, 4])
        q, k, v = qkv[0], qkv[1], qkv[2]
        scores = paddle.matmul(q, k, transpose_y=True) * (self.hd ** -0.5)
        mask = paddle.tril(paddle.ones([t, t], "float32"))
        scores = scores + (1.0 - mask) * -1e4
        attn = F.softmax(scores, axis=-1)
        y = paddle.matmul(attn, v).transpose([0, 2, 1, 3]).reshape([b, t, -1])
        return self.out(y), paddle.arange(t) + paddle.zeros([b, 1], "int64")


MODELS = {
    "mlp": (MLP, [InputSpec([None, 2, 4], "float32", "x")], [{"x": [3, 2, 4]}, {"x": [7, 2, 4]}]),
    "attention": (TinyAttention, [InputSpec([None, None, 8], "float32", "x")],
                  [{"x": [2, 5, 8]}, {"x": [3, 9, 8]}]),
}


def gen(name, outdir, ver):
    cls, spec, sizes = MODELS[name]
    paddle.seed(7)
    model = cls()
    model.eval()
    prefix = os.path.join(outdir, name)
    static = paddle.jit.to_static(model, input_spec=spec, full_graph=True)
    paddle.jit.save(static, prefix)
    loaded = paddle.jit.load(prefix)
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    io, log = {}, {"files": sorted(f for f in os.listdir(outdir) if f.startswith(name + "."))}
    for key, feeds in zip(("", "2"), sizes):
        arrays = {k: rng.standard_normal(s).astype("float32") for k, s in feeds.items()}
        outs = loaded(*[paddle.to_tensor(arrays[s.name]) for s in spec])
        outs = outs if isinstance(outs, (list, tuple)) else [outs]
        io.update({f"in{key}__{k}": a for k, a in arrays.items()})
        io.update({f"out{key}__{i}": o.numpy() for i, o in enumerate(outs)})
        log[f"sizes{key}"] = {k: list(a.shape) for k, a in arrays.items()}
    np.savez_compressed(prefix + ".io.npz", **io)
    log["ok"] = True
    return log


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    ver = paddle.__version__
    outdir = os.path.join(args.out, ver)
    os.makedirs(outdir, exist_ok=True)
    log = {"paddle_version": ver, "python": sys.version.split()[0],
           "date_utc": time.strftime("%Y-%m-%d", time.gmtime()), "models": {}}
    for name in MODELS:
        try:
            log["models"][name] = gen(name, outdir, ver)
        except Exception as e:  # noqa: BLE001 - recorded as the evidence
            log["models"][name] = {"ok": False, "error": f"{type(e).__name__}: {str(e)[:2000]}"}
        print(name, log["models"][name].get("ok"), log["models"][name].get("error", "")[:300])
    with open(os.path.join(outdir, "gen_log.json"), "w") as fh:
        json.dump(log, fh, indent=1)
        fh.write("\n")


if __name__ == "__main__":
    main()
