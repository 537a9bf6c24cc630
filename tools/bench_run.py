#!/usr/bin/env python3
"""Time pirc's lowered torch module against the same model written by hand in eager torch and
against Paddle 3.3.1's own CPU executor, on the same inputs, for every corpus model.

    python3 tools/bench_run.py                      # table on stdout
    python3 tools/bench_run.py --compile            # + torch.compile of the lowered module
    python3 tools/bench_run.py --write docs/PERFORMANCE.md   # replace its "## Run" section

Models: tests/fixtures/corpus/3.3.1/*.json.  Batch sizes 1, 2, 4, ... 64 (the corpus inputs
tiled along the batch axis; control_flow has fixed shapes and runs once at its own size).
Paddle runs in a child process with the scratch venv's python (--paddle, default
/tmp/pd331/bin/python; paddlepaddle is never a pirc dependency).  Everything runs on one thread
(torch.set_num_threads, OMP/MKL_NUM_THREADS for Paddle) so the numbers compare kernels, not
thread pools on a shared machine.  The lowered module and the two hand-written versions (an
nn.Module and a plain function, see below) take turns call by call; time = median over
--rounds rounds of the median of --reps calls, after --warmup calls, in microseconds per call.
Every timed module's outputs are checked against Paddle's before timing (max abs diff shown).
`--write FILE` adds the table as a new dated entry at the top of FILE's "## Run" section and
keeps the earlier entries below it.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile
import time
import types

import numpy as np
import torch
import torch.nn.functional as F

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
CORPUS = os.path.join(ROOT, "tests", "fixtures", "corpus", "3.3.1")
BATCHES = (1, 2, 4, 8, 16, 32, 64)


# -- the corpus models written by hand in eager torch (weights from the same .pdiparams) ----------
# Each forward reads its weights as attributes of `m`: an nn.Module holding them as buffers
# (how a torch user writes a model, and what the lowered module is: both then pay
# nn.Module.__call__ and attribute lookups), and a plain namespace (a closure in effect: the
# least Python a forward can have).  Both are timed.

def hand_mlp(m, x):
    return (torch.softmax(torch.relu(x @ m.linear_0_w_0 + m.linear_0_b_0) @ m.linear_1_w_0
                          + m.linear_1_b_0, dim=-1),)


def hand_cnn(m, img):
    h = F.conv2d(img, m.conv2d_0_w_0, m.conv2d_0_b_0, padding=1)
    # Paddle's batch_norm_ operands: x, mean (w_1), variance (w_2), scale (w_0), bias (b_0)
    h = F.batch_norm(h, m.batch_norm2d_0_w_1, m.batch_norm2d_0_w_2, m.batch_norm2d_0_w_0,
                     m.batch_norm2d_0_b_0, False, 0.0, 1e-5)
    h = F.max_pool2d(torch.relu(h), 2)
    h = F.conv2d(h, m.conv2d_1_w_0, m.conv2d_1_b_0, padding=1)
    h = F.avg_pool2d(torch.relu(h), 2)
    return (torch.flatten(h, 1) @ m.linear_2_w_0 + m.linear_2_b_0,)


def hand_transformer(m, tokens):
    b = tokens.shape[0]
    h = F.layer_norm(tokens, [32], m.layer_norm_0_w_0, m.layer_norm_0_b_0, 1e-5)
    qkv = (h @ m.linear_3_w_0 + m.linear_3_b_0).reshape(b, 8, 3, 4, 8)
    q, k, v = qkv.permute(2, 0, 3, 1, 4).unbind(0)
    att = torch.softmax((q @ k.transpose(-1, -2)) * 8 ** -0.5, dim=-1)
    o = (att @ v).transpose(1, 2).reshape(b, 8, 32)
    x = tokens + (o @ m.linear_4_w_0 + m.linear_4_b_0)  # dropout: identity at inference
    h = F.layer_norm(x, [32], m.layer_norm_1_w_0, m.layer_norm_1_b_0, 1e-6)
    h = F.gelu(h @ m.linear_5_w_0 + m.linear_5_b_0)
    return (x + (h @ m.linear_6_w_0 + m.linear_6_b_0),)


def hand_control_flow(m, x, n):
    if x.sum() > 0:
        y, flag = torch.exp(x) * 2.0, torch.ones(1, dtype=torch.int32)
    else:
        y, flag = torch.tanh(x) - 1.0, torch.zeros(1, dtype=torch.int32)
    i = torch.zeros(1, dtype=torch.int64)
    acc = torch.zeros_like(x)
    while bool(i < n):
        i = i + 1
        acc = acc + x * i.to(torch.float32)
    return (y, flag, i, acc)


HAND = {"mlp": hand_mlp, "cnn": hand_cnn, "transformer": hand_transformer,
        "control_flow": hand_control_flow}
FIXED_SHAPE = {"control_flow"}   # its feeds have static shapes: one run at the corpus size


class HandModule(torch.nn.Module):
    """A hand-written forward as an nn.Module whose weights are buffers."""

    def __init__(self, forward_fn, tensors):
        super().__init__()
        for name, t in tensors.items():
            self.register_buffer(name, t)
        self._forward_fn = forward_fn

    def forward(self, *inputs):
        return self._forward_fn(self, *inputs)


def hand_versions(name, params):
    """(nn.Module version, plain-function version) of a corpus model written by hand."""
    tensors = {k.replace(".", "_"): torch.from_numpy(np.array(v)) for k, v in params.items()}
    fn = HAND[name]
    ns = types.SimpleNamespace(**tensors)
    return HandModule(fn, tensors), (lambda *inputs: fn(ns, *inputs))


# -- timing -------------------------------------------------------------------------------------

def interleaved_us(fns: dict, args, warmup, reps, rounds):
    """Median time per call of each function, in microseconds.

    The functions take turns call by call (a load spike on a shared machine hits them all
    alike); each of `rounds` rounds takes the median of `reps` calls, and the result is the
    median of the rounds' medians.
    """
    for fn in fns.values():
        for _ in range(warmup):
            fn(*args)
    per_round = {k: [] for k in fns}
    for _ in range(rounds):
        times = {k: [] for k in fns}
        for _ in range(reps):
            for k, fn in fns.items():
                t0 = time.perf_counter()
                fn(*args)
                times[k].append(time.perf_counter() - t0)
        for k in fns:
            per_round[k].append(float(np.median(times[k])))
    return {k: float(np.median(v)) * 1e6 for k, v in per_round.items()}


def tiled(arr, batch):
    reps = -(-batch // arr.shape[0])
    return np.concatenate([arr] * reps, axis=0)[:batch]


PADDLE_CHILD = r"""
import json, sys, time, numpy as np, paddle
paddle.enable_static()
a = json.loads(sys.argv[1])
exe = paddle.static.Executor(paddle.CPUPlace())
prog, feeds, fetches = paddle.static.load_inference_model(a["prefix"], exe)
res = {}
for key, path in a["inputs"].items():
    d = np.load(path)
    feed = {k: d[k] for k in feeds}
    outs = exe.run(prog, feed=feed, fetch_list=fetches)
    np.savez(path + ".paddle_out.npz", *outs)
    for _ in range(a["warmup"]):
        exe.run(prog, feed=feed, fetch_list=fetches)
    meds = []
    for _ in range(a["rounds"]):
        ts = []
        for _ in range(a["reps"]):
            t0 = time.perf_counter(); exe.run(prog, feed=feed, fetch_list=fetches)
            ts.append(time.perf_counter() - t0)
        meds.append(float(np.median(ts)))
    res[key] = float(np.median(meds)) * 1e6
print("RESULT" + json.dumps(res))
"""


def paddle_times(python, prefix, inputs, warmup, reps, rounds):
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", GLOG_minloglevel="3")
    args = json.dumps({"prefix": prefix, "inputs": inputs, "warmup": warmup, "reps": reps,
                       "rounds": rounds})
    cp = subprocess.run([python, "-c", PADDLE_CHILD, args], capture_output=True, text=True,
                        env=env)
    line = [ln for ln in cp.stdout.splitlines() if ln.startswith("RESULT")]
    if not line:
        raise RuntimeError(f"Paddle run failed: {cp.stderr[-1500:]}")
    return json.loads(line[0][len("RESULT"):])


def max_diff(outs, ref):
    return max(float(np.max(np.abs(np.asarray(o, np.float64) - np.asarray(r, np.float64))))
               if np.asarray(o).size else 0.0 for o, r in zip(outs, ref))


def bench_model(path, args, tmp):
    import pirc

    name = os.path.basename(path).split(".")[0]
    stem = path[:-len(".json")]
    io = np.load(stem + ".io.npz")
    feeds = {k[4:]: io[k] for k in io.files if k.startswith("in__")}
    params_path = stem + ".pdiparams" if os.path.exists(stem + ".pdiparams") else None
    program = pirc.load(path)
    params = pirc.read_params(params_path, _param_names(program)) if params_path else {}
    from pirc.api import lower  # `pirc.lower` is also the name of the lowering package
    # Folding and sharing are passes (docs/PASSES.md): the module timed is the one the
    # lowering's own fx-level fold and cse made before 2026-12-02.
    gm = lower(program, params_path, pipeline="param-fold,cse,dce")
    hand_module, hand_fn = hand_versions(name, params)
    compiled = torch.compile(gm) if args.compile else None
    batches = [None] if name in FIXED_SHAPE else list(args.batches)
    inputs, torch_inputs = {}, {}
    for bsz in batches:
        arrs = feeds if bsz is None else {k: tiled(v, bsz) for k, v in feeds.items()}
        key = "fixed" if bsz is None else str(bsz)
        fpath = os.path.join(tmp, f"{name}.{key}.npz")
        np.savez(fpath, **arrs)
        inputs[key] = fpath
        torch_inputs[key] = [torch.from_numpy(np.array(arrs[k])) for k in feeds]
    pd = paddle_times(args.paddle, stem, inputs, args.warmup, args.reps, args.rounds)
    rows = []
    with torch.no_grad():
        for key, targs in torch_inputs.items():
            ref = [v for _, v in sorted(np.load(inputs[key] + ".paddle_out.npz").items(),
                                        key=lambda kv: int(kv[0].split("_")[1]))]
            row = {"model": name, "batch": key, "paddle_us": pd[key]}
            fns = {"lowered": gm, "hand_module": hand_module, "hand_fn": hand_fn}
            if compiled is not None:
                fns["compiled"] = compiled
            for label, fn in fns.items():
                outs = fn(*targs)
                row[label + "_err"] = max_diff([o.numpy() for o in outs], ref)
            times = interleaved_us(fns, targs, args.warmup, args.reps, args.rounds)
            for label, us in times.items():
                row[label + "_us"] = us
            rows.append(row)
    return rows


def _param_names(program):
    return sorted(op.attributes["parameter_name"].data for op in program.block.ops
                  if op.name == "builtin.parameter")


def table(rows, compiled):
    head = ["model", "batch", "pirc lowered (us)", "hand nn.Module (us)", "hand function (us)",
            "Paddle 3.3.1 (us)", "lowered / hand module", "lowered / hand function",
            "lowered / Paddle", "max |lowered - Paddle|"]
    if compiled:
        head[5:5] = ["torch.compile(lowered) (us)"]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        cells = [r["model"], r["batch"], f"{r['lowered_us']:.0f}", f"{r['hand_module_us']:.0f}",
                 f"{r['hand_fn_us']:.0f}", f"{r['paddle_us']:.0f}",
                 f"{r['lowered_us'] / r['hand_module_us']:.2f}",
                 f"{r['lowered_us'] / r['hand_fn_us']:.2f}",
                 f"{r['lowered_us'] / r['paddle_us']:.2f}", f"{r['lowered_err']:.2g}"]
        if compiled:
            cells[5:5] = [f"{r['compiled_us']:.0f}"]
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


def write_section(path, entry):
    """Put `entry` first in the "## Run" section of the markdown file, keeping what was there."""
    with open(path) as f:
        doc = f.read()
    start = doc.find("\n## Run\n")
    if start < 0:
        doc = doc.rstrip("\n") + "\n\n## Run\n\n" + entry
    else:
        body = start + len("\n## Run\n")
        doc = doc[:body] + "\n" + entry + doc[body:]
    with open(path, "w") as f:
        f.write(doc if doc.endswith("\n") else doc + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", nargs="*", help="subset of corpus model names")
    ap.add_argument("--batches", nargs="*", type=int, default=list(BATCHES))
    ap.add_argument("--reps", type=int, default=50)
    ap.add_argument("--rounds", type=int, default=5,
                    help="rounds of --reps calls (median of the rounds' medians)")
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--compile", action="store_true", help="also time torch.compile(lowered)")
    ap.add_argument("--paddle", default="/tmp/pd331/bin/python")
    ap.add_argument("--write", help="add the table to the '## Run' section of this markdown file")
    args = ap.parse_args()
    torch.set_num_threads(1)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for path in sorted(glob.glob(os.path.join(CORPUS, "*.json"))):
            name = os.path.basename(path).split(".")[0]
            if name not in HAND or (args.models and name not in args.models):
                continue
            rows += bench_model(path, args, tmp)
            print(f"{name}: done", file=sys.stderr, flush=True)
    tab = table(rows, args.compile)
    print(tab)
    if args.write:
        import platform
        text = (f"### {time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC: `python3 tools/bench_run.py"
                + (" --compile" if args.compile else "")
                + f"`\n\ntorch {torch.__version__}, Python {platform.python_version()}, "
                f"{os.cpu_count()} CPUs (load average {os.getloadavg()[0]:.1f} at the end), one "
                f"thread, median of {args.rounds} rounds' medians of {args.reps} calls after "
                f"{args.warmup} warm-up calls, pirc and hand torch interleaved call by call; "
                "corpus 3.3.1 models.\n\n" + tab + "\n")
        write_section(args.write, text)


if __name__ == "__main__":
    main()
