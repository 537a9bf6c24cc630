#!/usr/bin/env python3
"""Small `paddle.jit.to_static` programs with `pd_op.if` and `pd_op.while`, saved with
`paddle.jit.save`: what torch.export and torch.compile meet on real control flow
(docs/LOWERING.md, "Control flow under torch.export and torch.compile").

Run with the python of a scratch venv that has paddlepaddle (never pirc's environment):

    /tmp/pd331/bin/python tools/paddle_oracle/gen_control_flow_fixtures.py --out tests/fixtures/control_flow
    /tmp/pd300/bin/python tools/paddle_oracle/gen_control_flow_fixtures.py --out tests/fixtures/control_flow

Writes OUT/VER/NAME.{json,io.npz} (no model has parameters) and OUT/VER/gen_log.json.
Each model has several cases, chosen so that every `if` takes each branch and every loop runs
0, 1 and many times; io.npz holds, per case K, the inputs (`inK__<feed>`) and the outputs of
the saved program loaded back with `paddle.jit.load` (`outK__<i>`).  The gen log records, per
case, what it exercises (`cases`), and the op counts of the saved program.
"""
import argparse
import json
import os
import sys
import time
import zlib

import numpy as np
import paddle
from paddle.static import InputSpec


# Each model: (function, input specs, cases).  A case is (what it exercises, {feed: array}).
# Functions are plain Python that dy2static turns into pd_op.if / pd_op.while: `if` on a
# tensor value becomes paddle.static.nn.cond, `while` on one paddle.static.nn.while_loop.

def if_tensor(x):
    """if on a tensor's value: two branches with the same shapes (exact arithmetic only, so
    that pirc and Paddle agree bit for bit)."""
    if paddle.mean(x) > 0:
        y = paddle.abs(x) * 3.0 + 1.0
    else:
        y = paddle.nn.functional.relu(x) - 1.0
    return y


def if_elif(x):
    """if / elif / else: nested pd_op.if, a branch that returns its input unchanged."""
    s = paddle.sum(x)
    if s > 4.0:
        y = x * 2.0
    elif s < -4.0:
        y = -x
    else:
        y = x
    return y


def if_branch_temp(x):
    """A temporary assigned in one branch only: dy2static yields it from both (the other branch
    gives a placeholder), though nothing reads it after the if."""
    if paddle.sum(x) > 0:
        t = x * 2.0
        y = t + 1.0
    else:
        y = x - 1.0
    return y


def if_two_outputs(x, y):
    """A branch yields two values, one of them a feed."""
    if paddle.max(x) > paddle.max(y):
        a, b = x + y, x
    else:
        a, b = x - y, y
    return a, b


def while_counter(x, n):
    """A counter against a fed trip count: runs n times (0, 1, many)."""
    i = paddle.zeros([1], "int64")
    while i < n:
        x = x * 1.5 + 1.0
        i = i + 1
    return x, i


def while_data(x):
    """A data-dependent trip count: doubles until the sum passes 100 (0 if it already does)."""
    while paddle.sum(paddle.abs(x)) < 100.0:
        x = x * 2.0 + 0.5
    return x


def while_nested(x, n):
    """Nested loops: the inner loop runs i times in outer iteration i.  The inner counter j,
    first assigned inside the outer loop, is returned too: dy2static carries it from a
    placeholder (a 0-d `full` typed tensor<1xi64>), which is what a run of 0 iterations gives."""
    i = paddle.zeros([1], "int64")
    acc = paddle.zeros_like(x)
    while i < n:
        j = paddle.zeros([1], "int64")
        while j < i:
            acc = acc + x * paddle.cast(j + 1, "float32")
            j = j + 1
        i = i + 1
    return acc, i, j


def while_nested_temp(x, n):
    """Nested loops with a temporary t assigned in the inner body and read nowhere after it:
    dy2static carries t through both loops from a 0-d placeholder typed tensor<-1x4xf32>."""
    i = paddle.zeros([1], "int64")
    acc = x
    while i < n:
        j = paddle.zeros([1], "int64")
        while j < 2:
            t = acc * 0.5 + 1.0
            acc = t - x
            j = j + 1
        i = i + 1
    return acc


def while_break(x, n):
    """Early exit: break when the values pass a bound, else n iterations."""
    i = paddle.zeros([1], "int64")
    while i < n:
        x = x * 3.0
        if paddle.max(x) > 50.0:
            break
        i = i + 1
    return x, i


def while_if_body(x, n):
    """An if inside the body whose branch depends on the loop counter."""
    i = paddle.zeros([1], "int64")
    while i < n:
        if i % 2 == 0:
            x = x + 1.0
        else:
            x = x * 2.0
        i = i + 1
    return x


def while_grow(x, n):
    """A carried tensor that grows each iteration: concat adds a row (shape changes)."""
    i = paddle.zeros([1], "int64")
    y = x
    while i < n:
        y = paddle.concat([y, x * paddle.cast(i + 1, "float32")], axis=0)
        i = i + 1
    return y


def while_last_temp(x, n):
    """A variable first assigned in the body and read after the loop: dy2static starts it from
    a 0-d placeholder (what 0 iterations return) that the first iteration makes [-1, 4]."""
    i = paddle.zeros([1], "int64")
    while i < n:
        t = x * paddle.cast(i + 1, "float32")
        i = i + 1
    return t


def if_shapes_differ(x):
    """Branches whose results have different shapes: one keeps x, one drops its last row."""
    if paddle.sum(x) > 0:
        y = x
    else:
        y = x[:-1]
    return y * 2.0


def if_masked_select(x):
    """A branch whose result's shape depends on the data: the positive or the negative values."""
    if paddle.sum(x) > 0:
        y = paddle.masked_select(x, x > 0)
    else:
        y = paddle.masked_select(x, x < 0) * 2.0
    return y


def while_nonzero(x, n):
    """A data-dependent size inside a body whose carried shapes stay fixed: each iteration adds
    the count of positive entries (nonzero's row count) to a counter."""
    i = paddle.zeros([1], "int64")
    total = paddle.zeros([1], "int64")
    while i < n:
        idx = paddle.nonzero(x > paddle.cast(i, "float32") * 0.5)
        total = total + paddle.shape(idx)[0:1].astype("int64")
        i = i + 1
    return total


def _f(shape, seed, scale=1.0, shift=0.0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) * scale + shift).astype("float32")


def _n(v):
    return np.array([v], dtype="int64")


X = InputSpec([None, 4], "float32", "x")
Y = InputSpec([None, 4], "float32", "y")
N = InputSpec([1], "int64", "n")

MODELS = {
    "if_tensor": (if_tensor, [X], [
        ("true branch", {"x": _f([3, 4], 1, shift=1.0)}),
        ("false branch", {"x": _f([3, 4], 2, shift=-1.0)}),
        ("false branch, other batch", {"x": _f([5, 4], 3, shift=-1.0)}),
    ]),
    "if_elif": (if_elif, [X], [
        ("if", {"x": _f([3, 4], 4, shift=1.0)}),
        ("elif", {"x": _f([3, 4], 5, shift=-1.0)}),
        ("else", {"x": _f([2, 4], 6, scale=0.1)}),
    ]),
    "if_branch_temp": (if_branch_temp, [X], [
        ("true branch", {"x": _f([3, 4], 38, shift=1.0)}),
        ("false branch", {"x": _f([3, 4], 39, shift=-1.0)}),
    ]),
    "if_two_outputs": (if_two_outputs, [X, Y], [
        ("true branch", {"x": _f([3, 4], 7, shift=5.0), "y": _f([3, 4], 8)}),
        ("false branch", {"x": _f([3, 4], 9), "y": _f([3, 4], 10, shift=5.0)}),
    ]),
    "while_counter": (while_counter, [X, N], [
        ("0 iterations", {"x": _f([3, 4], 11), "n": _n(0)}),
        ("1 iteration", {"x": _f([3, 4], 12), "n": _n(1)}),
        ("7 iterations", {"x": _f([2, 4], 13), "n": _n(7)}),
    ]),
    "while_data": (while_data, [X], [
        ("0 iterations", {"x": _f([3, 4], 14, scale=50.0)}),
        ("1 iteration", {"x": np.full([2, 4], 7.0, "float32")}),
        ("many iterations", {"x": _f([3, 4], 15, scale=0.01)}),
    ]),
    "while_nested": (while_nested, [X, N], [
        ("outer 0", {"x": _f([3, 4], 16), "n": _n(0)}),
        ("outer 1, inner 0", {"x": _f([3, 4], 17), "n": _n(1)}),
        ("outer 4, inner 0..3", {"x": _f([2, 4], 18), "n": _n(4)}),
    ]),
    "while_nested_temp": (while_nested_temp, [X, N], [
        ("outer 0", {"x": _f([3, 4], 35), "n": _n(0)}),
        ("outer 1", {"x": _f([3, 4], 36), "n": _n(1)}),
        ("outer 3", {"x": _f([2, 4], 37), "n": _n(3)}),
    ]),
    "while_break": (while_break, [X, N], [
        ("0 iterations", {"x": _f([3, 4], 19), "n": _n(0)}),
        ("runs out", {"x": _f([3, 4], 20, scale=0.001), "n": _n(3)}),
        ("breaks early", {"x": _f([3, 4], 21, scale=2.0), "n": _n(10)}),
    ]),
    "while_if_body": (while_if_body, [X, N], [
        ("0 iterations", {"x": _f([3, 4], 22), "n": _n(0)}),
        ("1 iteration (true branch)", {"x": _f([3, 4], 23), "n": _n(1)}),
        ("5 iterations (both branches)", {"x": _f([2, 4], 24), "n": _n(5)}),
    ]),
    "while_grow": (while_grow, [X, N], [
        ("0 iterations", {"x": _f([1, 4], 25), "n": _n(0)}),
        ("1 iteration", {"x": _f([1, 4], 26), "n": _n(1)}),
        ("4 iterations", {"x": _f([2, 4], 27), "n": _n(4)}),
    ]),
    "if_masked_select": (if_masked_select, [X], [
        ("true branch", {"x": _f([3, 4], 30, shift=1.0)}),
        ("false branch", {"x": _f([3, 4], 31, shift=-1.0)}),
    ]),
    "while_nonzero": (while_nonzero, [X, N], [
        ("0 iterations", {"x": _f([3, 4], 32), "n": _n(0)}),
        ("1 iteration", {"x": _f([3, 4], 33), "n": _n(1)}),
        ("4 iterations", {"x": _f([2, 4], 34, scale=2.0), "n": _n(4)}),
    ]),
    "while_last_temp": (while_last_temp, [X, N], [
        ("0 iterations", {"x": _f([3, 4], 40), "n": _n(0)}),
        ("1 iteration", {"x": _f([3, 4], 41), "n": _n(1)}),
        ("3 iterations", {"x": _f([2, 4], 42), "n": _n(3)}),
    ]),
    "if_shapes_differ": (if_shapes_differ, [X], [
        ("true branch", {"x": _f([3, 4], 28, shift=1.0)}),
        ("false branch", {"x": _f([3, 4], 29, shift=-1.0)}),
    ]),
}


def _op_counts(program_json):
    counts = {}

    def walk(node):
        if isinstance(node, dict):
            # an op is {"#": "DIALECT_ID.name", "I": operands, "O": results, ...}
            if isinstance(node.get("#"), str) and "O" in node and "." in node["#"]:
                name = node["#"].split(".", 1)[1]
                counts[name] = counts.get(name, 0) + 1
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(program_json)
    return dict(sorted(counts.items()))


def gen(name, outdir):
    fn, spec, cases = MODELS[name]
    prefix = os.path.join(outdir, name)
    static = paddle.jit.to_static(fn, input_spec=spec, full_graph=True)
    paddle.jit.save(static, prefix)
    loaded = paddle.jit.load(prefix)
    io, log = {}, {"doc": fn.__doc__, "cases": [],
                   "files": sorted(f for f in os.listdir(outdir) if f.startswith(name + "."))}
    for k, (what, feeds) in enumerate(cases):
        outs = loaded(*[paddle.to_tensor(feeds[s.name]) for s in spec])
        outs = outs if isinstance(outs, (list, tuple)) else [outs]
        io.update({f"in{k}__{f}": a for f, a in feeds.items()})
        io.update({f"out{k}__{i}": o.numpy() for i, o in enumerate(outs)})
        log["cases"].append({"what": what, "inputs": {f: list(a.shape) for f, a in feeds.items()},
                             "outputs": [list(o.shape) for o in outs]})
    np.savez_compressed(prefix + ".io.npz", **io)
    with open(prefix + ".json") as fh:
        log["ops"] = _op_counts(json.load(fh))
    # paddle.jit.save writes an empty .pdiparams for a program without parameters
    if os.path.exists(prefix + ".pdiparams") and os.path.getsize(prefix + ".pdiparams") == 0:
        os.remove(prefix + ".pdiparams")
    log["files"] = sorted(f for f in os.listdir(outdir) if f.startswith(name + "."))
    log["ok"] = True
    return log


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--models", nargs="*")
    args = ap.parse_args()
    ver = paddle.__version__
    outdir = os.path.join(args.out, ver)
    os.makedirs(outdir, exist_ok=True)
    log = {"paddle_version": ver, "python": sys.version.split()[0],
           "date_utc": time.strftime("%Y-%m-%d", time.gmtime()), "models": {}}
    logfile = os.path.join(outdir, "gen_log.json")
    if args.models and os.path.exists(logfile):
        with open(logfile) as fh:
            log["models"] = json.load(fh)["models"]
    for name in args.models or MODELS:
        try:
            log["models"][name] = gen(name, outdir)
        except Exception as e:  # noqa: BLE001 - recorded as the evidence
            log["models"][name] = {"ok": False, "error": f"{type(e).__name__}: {str(e)[:2000]}"}
        print(name, log["models"][name].get("ok"), log["models"][name].get("error", "")[:300])
    log["models"] = dict(sorted(log["models"].items()))
    with open(logfile, "w") as fh:
        json.dump(log, fh, indent=1)
        fh.write("\n")


if __name__ == "__main__":
    main()
