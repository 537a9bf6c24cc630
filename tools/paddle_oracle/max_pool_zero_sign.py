#!/usr/bin/env python3
"""Check pirc's max pool against Paddle's where the max is a zero of either sign.

Paddle's CPU max pool folds each window with `y = y > x ? y : x`, so of equal maxima the
last cell wins: a window of +0 then -0 gives -0, where torch's pooling gives +0.  Run by
hand from the repo root with pirc's Python (paddlepaddle lives in a scratch venv):

    python tools/paddle_oracle/max_pool_zero_sign.py --paddle /tmp/pd331/bin/python \
        [--log tools/paddle_oracle/max_pool_zero_sign.log]

Cases: 2x2 and 3x3 windows over maps holding +0, -0, negatives and NaN in several orders,
float32 and float64, stride = kernel and overlapping strides with padding, pool2d and
pool3d; Paddle's outputs through paddle.nn.functional (the phi CPU kernel pirc's pool2d
lowers) against pirc's kernels, bit for bit.  Adaptive max pools both ways Paddle makes
them: `F.adaptive_max_pool2d/3d` (max_pool*_with_index, whose functor keeps the FIRST of
equal maxima and never takes a NaN: values and mask compared) and `pool2d` with
adaptive=True (the `y > x ? y : x` functor again: the last zero wins).  Every 2x2 window
also under autograd: the value keeps the last zero's sign, the gradient goes to the first
cell equal to the max (MaxPoolGrad).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)

CHILD = r"""
import json, sys, numpy as np, paddle, paddle.nn.functional as F
paddle.set_device("cpu")
cases = json.load(open(sys.argv[1]))
z = np.load(sys.argv[2])
out = {}
for c in cases:
    x = paddle.to_tensor(z[c["name"]])
    if c.get("adaptive") == "with_index":
        fn = F.adaptive_max_pool2d if c["dims"] == 2 else F.adaptive_max_pool3d
        y, mask = fn(x, c["kernel"], return_mask=True)
        out[c["name"]] = y.numpy()
        out[c["name"] + ".mask"] = mask.numpy()
        continue
    if c.get("adaptive") == "pool2d":
        out[c["name"]] = paddle._C_ops.pool2d(x, c["kernel"], [1, 1], [0, 0], False, True, "NCHW",
                                              "max", False, True, "EXPLICIT").numpy()
        continue
    fn = F.max_pool2d if c["dims"] == 2 else F.max_pool3d
    if c.get("grad"):   # the gradient too: MaxPoolGrad's cell
        x.stop_gradient = False
        y = fn(x, c["kernel"], c["stride"], c["padding"])
        y.sum().backward()
        out[c["name"]] = y.numpy()
        out[c["name"] + ".grad"] = x.grad.numpy()
        continue
    out[c["name"]] = fn(x, c["kernel"], c["stride"], c["padding"]).numpy()
np.savez(sys.argv[3], **out)
print(paddle.__version__)
"""


def cases():
    rng = np.random.default_rng(3)
    cells = [0.0, -0.0, -1.0, np.nan, 2.0]
    out = []
    for dtype in ("float32", "float64"):
        for i, window in enumerate(itertools.product([0.0, -0.0, -1.0], repeat=4)):
            out.append(dict(name=f"w2_{dtype}_{i}", dims=2, kernel=2, stride=2, padding=0,
                            x=np.array(window, dtype=dtype).reshape(1, 1, 2, 2)))
            out.append(dict(name=f"g2_{dtype}_{i}", dims=2, kernel=2, stride=2, padding=0, grad=True,
                            x=np.array(window, dtype=dtype).reshape(1, 1, 2, 2)))
        for i in range(40):
            x = rng.choice(cells, size=(2, 3, 6, 6), p=[0.35, 0.35, 0.2, 0.05, 0.05])
            out.append(dict(name=f"r2_{dtype}_{i}", dims=2, kernel=3, stride=[1, 2][i % 2],
                            padding=i % 2, x=x.astype(dtype)))
        for i in range(10):
            x = rng.choice(cells[:3], size=(1, 2, 4, 4, 4))
            out.append(dict(name=f"r3_{dtype}_{i}", dims=3, kernel=2, stride=2, padding=0,
                            x=x.astype(dtype)))
        # adaptive: windows of uneven sizes that overlap (5 cells to 2 or 3 outputs)
        for i in range(30):
            kind = ("with_index", "pool2d")[i % 2]
            dims = 3 if kind == "with_index" and i % 6 == 0 else 2
            x = rng.choice(cells, size=(1, 2) + (5,) * dims, p=[0.35, 0.35, 0.2, 0.05, 0.05])
            outs = [[1, 2, 3][i % 3], [3, 2, 1][i % 3], 2][:dims]
            out.append(dict(name=f"a{dims}_{kind}_{dtype}_{i}", dims=dims, kernel=outs, adaptive=kind,
                            stride=1, padding=0, x=x.astype(dtype)))
    return out


def pirc_pool(c):
    """pirc's output for case `c`, and what else the case compares: {"mask": ...} for a
    pool with indices, {"grad": ...} under autograd (Paddle's side saved under NAME.KEY)."""
    import torch

    from pirc.lower.kernels.pool import pool2d, pool3d
    from pirc.lower.kernels.pool_index import max_pool2d_with_index, max_pool3d_with_index

    x = torch.from_numpy(c["x"])
    k, s, p = c["kernel"], c["stride"], c["padding"]
    if c.get("adaptive") == "with_index":
        fn = max_pool2d_with_index if c["dims"] == 2 else max_pool3d_with_index
        y, mask = fn(x, kernel_size=k, adaptive=True)
        return y.numpy(), {"mask": mask.numpy()}
    if c.get("adaptive") == "pool2d":
        return pool2d(x, k, adaptive=True).numpy(), {}
    if c.get("grad"):   # under autograd: the value, and the cell the gradient reaches
        x.requires_grad_(True)
        y = pool2d(x, [k, k], strides=[s, s], paddings=[p, p])
        y.sum().backward()
        return y.detach().numpy(), {"grad": x.grad.numpy()}
    if c["dims"] == 2:
        return pool2d(x, [k, k], strides=[s, s], paddings=[p, p]).numpy(), {}
    return pool3d(x, kernel_size=[k, k, k], strides=[s, s, s], paddings=[p, p, p]).numpy(), {}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--paddle", default="/tmp/pd331/bin/python")
    ap.add_argument("--log")
    args = ap.parse_args()
    cs = cases()
    with tempfile.TemporaryDirectory() as tmp:
        spec = os.path.join(tmp, "cases.json")
        with open(spec, "w") as f:
            json.dump([{k: v for k, v in c.items() if k != "x"} for c in cs], f)
        np.savez(os.path.join(tmp, "x.npz"), **{c["name"]: c["x"] for c in cs})
        done = subprocess.run([args.paddle, "-c", CHILD, spec, os.path.join(tmp, "x.npz"),
                               os.path.join(tmp, "y.npz")], capture_output=True, text=True)
        if done.returncode:
            sys.exit(done.stderr)
        version = done.stdout.strip().splitlines()[-1]
        ref = dict(np.load(os.path.join(tmp, "y.npz")))
    lines = [f"Paddle {version}: {len(cs)} max pools with signed zeros and NaN, pirc's kernels "
             "against Paddle's CPU kernel, bit for bit"]
    bad = 0
    zero_windows = 0
    for c in cs:
        want, (got, extras) = ref[c["name"]], pirc_pool(c)
        differ = False
        for key, mine in extras.items():   # the mask or the gradient, bit for bit
            theirs = ref[f"{c['name']}.{key}"]
            if theirs.shape != mine.shape or theirs.tobytes() != mine.astype(theirs.dtype).tobytes():
                differ = True
                lines.append(f"  DIFFER {c['name']} {key}: paddle {theirs.ravel()[:8]} pirc {mine.ravel()[:8]}")
        if differ:
            bad += 1
            continue
        zero_windows += int((want == 0).sum())
        same = want.shape == got.shape and want.tobytes() == got.tobytes()
        if not same:
            bad += 1
            lines.append(f"  DIFFER {c['name']}: paddle signbits {np.signbit(want).ravel()[:8]} "
                         f"pirc {np.signbit(got).ravel()[:8]}")
    lines.append(f"windows whose max is a zero: {zero_windows}; cases differing: {bad}")
    text = "\n".join(lines)
    print(text)
    if args.log:
        with open(args.log, "w") as f:
            f.write(text + "\n")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
