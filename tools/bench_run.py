#!/usr/bin/env python3
"""Time pirc's lowered torch module against Paddle 3.3.1's own CPU executor on the same inputs.

    python3 tools/bench_run.py                      # corpus mode: table on stdout
    python3 tools/bench_run.py --compile            # + torch.compile of the lowered module
    python3 tools/bench_run.py --write docs/PERFORMANCE.md   # new entry in its "## Run" section
    python3 tools/bench_run.py --mode zoo --compile --write docs/PERFORMANCE.md   # "## Zoo"
    python3 tools/bench_run.py --mode zoo --export --write docs/PERFORMANCE.md
        # "## Zoo export and compile"
    python3 tools/bench_run.py --mode zoo --zoo zoo2 --write docs/PERFORMANCE.md   # the second zoo
    python3 tools/bench_run.py --mode zoo --zoo zoo2 --threads 0 --write docs/PERFORMANCE.md
        # torch's and Paddle's default thread counts
    python3 tools/bench_run.py --mode fusion --write docs/PERFORMANCE.md   # "## Fusion speed"

Three modes:
- `--mode fusion` (issue 22): lowered modules after `--pipelines` (default `npu fuse`: `npu` on
  device npu, where the fused torch_npu calls run their CPU references on a machine without an
  NPU; `fuse` on device cpu; `NAME@DEVICE` for another) against the same models written by hand
  as nn.Modules that read the same weights: the corpus mlp, cnn, transformer and control_flow,
  the LLaMA block of tests/fixtures/bench (gen_bench_fixtures.py: dynamic batch) and the dev
  zoo's BERT (weights from tools/zoo_weights.py), batch 1 and 64 (--batches).  Each hand
  module is first checked against Paddle's recorded outputs (.io.npz), each lowered module
  against the hand module at every batch; then all are timed call by call (no Paddle run).
  Target: lowered / hand module <= 1.05 for every model with a fusion site (control_flow is
  reported).  `--write` puts the table in the "## Fusion speed" section.
- `--mode corpus` (default): the corpus models (tests/fixtures/corpus/3.3.1/*.json) against
  the same models written by hand in eager torch and against Paddle.  Batch sizes 1, 2, 4, ...
  64 (the corpus inputs tiled along the batch axis; control_flow has fixed shapes and runs once
  at its own size).
- `--mode zoo`: the development zoo (tests/fixtures/zoo/VER/MODEL.VER.json with its .io.npz,
  VER = --release) against Paddle, at batch 1 and 16.  Parameters are not committed: they are
  rebuilt from tools/zoo_weights.py (the values gen_zoo.py saved the models with) and written
  to a scratch .pdiparams for Paddle.  A feed whose leading (batch) dim is -1 is the recorded
  input tiled along that dim (an NLP model's sequence dim is kept); a program with no such feed
  runs once at its recorded size.  A model pirc cannot lower is listed with the ops it misses
  (pirc.lowering_coverage) instead of timed.  `--no-paddle` skips Paddle: outputs are then
  checked against the recorded ones (tiled like the inputs) and nothing is compared in time.
  `--compile` compiles with fullgraph=True: a graph break fails that model's compiled
  column (reason listed under the table) instead of timing a split module.
- `--mode zoo --export` (no Paddle): each model's lowered module through torch.export.export
  with every -1 feed dim a Dim.DYNAMIC, exported at a second size (batch one longer, an NLP
  sequence 3 shorter) and checked against the eager lowered module at the recorded size and
  the second one; the same check of torch.compile(backend="eager", fullgraph=True); the
  exported module timed against the lowered one at the recorded size.  A program saved with
  fixed shapes exports static and is checked at its own size.
- `--zoo zoo2`: the second zoo (tests/fixtures/zoo2: sequence, decoding and detection models
  whose loops and NMS outputs depend on the data, so an input tiled along the batch is not a
  reference of its own): by default each model runs at its recorded inputs only (`--batches`
  still tiles, checked against Paddle's outputs for the tiled feeds).

Paddle runs in a child process with the scratch venv's python (--paddle, default
/tmp/pd331/bin/python; paddlepaddle is never a pirc dependency), fetching with
return_numpy=False (a real Faster R-CNN's rois carry a LoD, which a numpy fetch refuses; the
timed calls then leave out Paddle's copy into numpy, as pirc's leave out .numpy()).  Everything runs on one thread
(torch.set_num_threads, OMP/MKL_NUM_THREADS for Paddle) so the numbers compare kernels, not
thread pools on a shared machine; `--threads N` sets N for both, `--threads 0` leaves each at
its own default (torch's intra-op pool and Paddle's OpenMP / MKL defaults: as users run them).  The torch-side modules take turns call by call; time =
median over --rounds rounds of the median of --reps calls, after --warmup calls, in
microseconds per call.  Every timed module's outputs are checked against Paddle's before
timing (max abs diff shown; in zoo mode a module beyond --atol + --rtol * max|Paddle| is
reported as a mismatch and not timed).  `--write FILE` adds the table as a new dated entry at
the top of FILE's "## Run" (corpus) or "## Zoo" (zoo) section and keeps the earlier entries.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import platform
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import types
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
from tools.zoo_weights import zoo_params  # noqa: E402 - tools/ is importable from ROOT

CORPUS = os.path.join(ROOT, "tests", "fixtures", "corpus", "3.3.1")
ZOO = os.path.join(ROOT, "tests", "fixtures", "zoo")
ZOOS = {"zoo": ZOO, "zoo2": os.path.join(ROOT, "tests", "fixtures", "zoo2")}
BATCHES = (1, 2, 4, 8, 16, 32, 64)
ZOO_BATCHES = (1, 16)
PIPELINE = "param-fold,cse,dce"   # what the lowering's own fx-level fold and cse did before 2026-12-02


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

def interleaved_us(fns: dict, args, warmup, reps, rounds, fastest=None):
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
            if fastest is not None:
                fastest.setdefault(k, []).append(min(times[k]))
    if fastest is not None:   # the median over the rounds of each round's fastest call, in us
        for k in list(fastest):
            fastest[k] = float(np.median(fastest[k])) * 1e6
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
    # return_numpy=False: an output with a LoD (a real Faster R-CNN's rois) is refused as numpy
    outs = [np.array(t) for t in exe.run(prog, feed=feed, fetch_list=fetches, return_numpy=False)]
    np.savez(path + ".paddle_out.npz", *outs)
    if not a["rounds"]:   # outputs only
        res[key] = None
        continue
    for _ in range(a["warmup"]):
        exe.run(prog, feed=feed, fetch_list=fetches, return_numpy=False)
    meds = []
    for _ in range(a["rounds"]):
        ts = []
        for _ in range(a["reps"]):
            t0 = time.perf_counter(); exe.run(prog, feed=feed, fetch_list=fetches, return_numpy=False)
            ts.append(time.perf_counter() - t0)
        meds.append(float(np.median(ts)))
    res[key] = float(np.median(meds)) * 1e6
print("VERSION" + paddle.__version__)
print("RESULT" + json.dumps(res))
"""


def paddle_times(python, prefix, inputs, warmup, reps, rounds, threads=1):
    """Paddle's time per call (us) for each input file of `inputs` (key -> .npz of feeds) and its
    version; its outputs land beside each input file as FILE.paddle_out.npz.  `threads` 0 keeps
    Paddle's own OpenMP / MKL defaults."""
    env = dict(os.environ, GLOG_minloglevel="3")
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        if threads:
            env[var] = str(threads)
        else:
            env.pop(var, None)
    args = json.dumps({"prefix": prefix, "inputs": inputs, "warmup": warmup, "reps": reps,
                       "rounds": rounds})
    cp = subprocess.run([python, "-c", PADDLE_CHILD, args], capture_output=True, text=True,
                        env=env)
    lines = cp.stdout.splitlines()
    result = [ln for ln in lines if ln.startswith("RESULT")]
    if not result:
        raise RuntimeError(f"Paddle run failed: {cp.stderr[-1500:]}")
    version = next((ln[len("VERSION"):] for ln in lines if ln.startswith("VERSION")), "?")
    return json.loads(result[0][len("RESULT"):]), version


def paddle_outputs(path):
    """What the Paddle child fetched for the input file `path`, in fetch order."""
    with np.load(path + ".paddle_out.npz") as d:
        return [d[k] for k in sorted(d.files, key=lambda k: int(k.split("_")[1]))]


def max_diff(outs, ref):
    return max(float(np.max(np.abs(np.asarray(o, np.float64) - np.asarray(r, np.float64))))
               if np.asarray(o).size else 0.0 for o, r in zip(outs, ref))


def bench_corpus_model(path, args, tmp):
    import pirc

    name = os.path.basename(path).split(".")[0]
    stem = path[:-len(".json")]
    io = np.load(stem + ".io.npz")
    feeds = {k[4:]: io[k] for k in io.files if k.startswith("in__")}
    params_path = stem + ".pdiparams" if os.path.exists(stem + ".pdiparams") else None
    program = pirc.load(path)
    params = pirc.read_params(params_path, program) if params_path else {}
    from pirc.api import lower  # `pirc.lower` is also the name of the lowering package
    gm = lower(program, params_path, pipeline=PIPELINE)
    hand_module, hand_fn = hand_versions(name, params)
    compiled = torch.compile(gm, backend=args.backend) if args.compile else None
    batches = [None] if name in FIXED_SHAPE else list(args.batches)
    inputs, torch_inputs = {}, {}
    for bsz in batches:
        arrs = feeds if bsz is None else {k: tiled(v, bsz) for k, v in feeds.items()}
        key = "fixed" if bsz is None else str(bsz)
        fpath = os.path.join(tmp, f"{name}.{key}.npz")
        np.savez(fpath, **arrs)
        inputs[key] = fpath
        torch_inputs[key] = [torch.from_numpy(np.array(arrs[k])) for k in feeds]
    pd, args.paddle_version = paddle_times(args.paddle, stem, inputs, args.warmup, args.reps,
                                           args.rounds)
    rows = []
    with torch.no_grad():
        for key, targs in torch_inputs.items():
            ref = paddle_outputs(inputs[key])
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


def corpus_table(rows, compiled):
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


# -- fusion mode: lowered after --pipeline=npu / fuse against hand-written nn.Modules ----------
# Two more models written by hand, reading the same weights as the lowered module: the LLaMA
# block of tests/fixtures/bench (tools/paddle_oracle/gen_bench_fixtures.py) and the dev zoo's
# two-layer BERT.  Written as a torch user writes them today: projections with F.linear on
# weights stored as nn.Linear stores them ([out, in], transposed once at load), attention
# with F.scaled_dot_product_attention, HF's LlamaRMSNorm composition and rotate-half.
BENCH = os.path.join(ROOT, "tests", "fixtures", "bench", "3.3.1")
LLAMA_EPS, LLAMA_HEADS = 1e-6, 4


def _rms(x, w):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + LLAMA_EPS) * w


def _rotate_half(t):
    half = t.shape[-1] // 2
    return torch.cat((-t[..., half:], t[..., :half]), dim=-1)


def hand_llama_block(m, x, cos, sin):
    b, s, hidden = x.shape
    h = _rms(x, m.norm1_w)
    q, k, v = (F.linear(h, w).view(b, s, LLAMA_HEADS, -1).transpose(1, 2)
               for w in (m.q_w, m.k_w, m.v_w))
    q = q * cos + _rotate_half(q) * sin
    k = k * cos + _rotate_half(k) * sin
    o = F.scaled_dot_product_attention(q, k, v).transpose(1, 2).reshape(b, s, hidden)
    h2 = x + F.linear(o, m.o_w)
    n2 = _rms(h2, m.norm2_w)
    return (h2 + F.linear(F.silu(F.linear(n2, m.gate_w)) * F.linear(n2, m.up_w), m.down_w),)


BERT_LAYERS = ((0, 1), (6, 3))   # (first linear_N of the layer: q k v out ffn1 ffn2, first layer_norm_N)


def hand_bert(m, ids):
    b, s = ids.shape

    def lin(x, n):
        return F.linear(x, getattr(m, f"linear_{n}_w_0"), getattr(m, f"linear_{n}_b_0"))

    def ln(x, n):
        return F.layer_norm(x, x.shape[-1:], getattr(m, f"layer_norm_{n}_w_0"),
                            getattr(m, f"layer_norm_{n}_b_0"), 1e-12)

    mask = (ids == 0).to(torch.float32).mul(-10000.0)[:, None, None, :]
    h = ln(F.embedding(ids, m.embedding_0_w_0) + m.embedding_1_w_0[:s] + m.embedding_2_w_0[0], 0)
    for first, norm in BERT_LAYERS:
        q, k, v = (lin(h, first + i).view(b, s, 4, 16).transpose(1, 2) for i in range(3))
        a = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        h = ln(h + lin(a.transpose(1, 2).reshape(b, s, 64), first + 3), norm)
        h = ln(h + lin(F.gelu(lin(h, first + 4)), first + 5), norm + 1)
    return (h, torch.tanh(lin(h[:, 0], 12)))


def nn_linear_layout(params, names):
    """The weights as a torch user stores them: each 2-D matmul weight in `names` (Paddle's
    [in, out]) as nn.Linear's [out, in], contiguous; the rest as they are."""
    out = {}
    for k, v in params.items():
        t = torch.from_numpy(np.array(v))
        out[k.replace(".", "_")] = t.t().contiguous() if names(k) and t.ndim == 2 else t
    return out


@dataclass(frozen=True)
class FusionModel:
    name: str
    program: str          # saved JSON
    io: str               # .io.npz beside it: in__<feed>, out__<i> (Paddle's outputs)
    weights: str          # "pdiparams" (the file beside the program) or "zoo" (tools/zoo_weights)
    hand: object          # forward(m, *feeds)
    linear_weights: object = None   # name -> stored as nn.Linear's [out, in] (F.linear users)


def _corpus(name):
    return os.path.join(CORPUS, f"{name}.3.3.1")


FUSION_MODELS = [
    FusionModel("mlp", _corpus("mlp") + ".json", _corpus("mlp") + ".io.npz", "pdiparams", hand_mlp),
    FusionModel("cnn", _corpus("cnn") + ".json", _corpus("cnn") + ".io.npz", "pdiparams", hand_cnn),
    FusionModel("transformer", _corpus("transformer") + ".json",
                _corpus("transformer") + ".io.npz", "pdiparams", hand_transformer),
    FusionModel("llama_block", os.path.join(BENCH, "llama_block.3.3.1.json"),
                os.path.join(BENCH, "llama_block.3.3.1.io.npz"), "pdiparams", hand_llama_block,
                lambda k: k.endswith(".w") and not k.startswith("norm")),
    FusionModel("bert", os.path.join(ZOO, "3.3.1", "bert.3.3.1.json"),
                os.path.join(ZOO, "3.3.1", "bert.3.3.1.io.npz"), "zoo", hand_bert,
                lambda k: k.startswith("linear_") and k.endswith(".w_0")),
    FusionModel("control_flow", _corpus("control_flow") + ".json",
                _corpus("control_flow") + ".io.npz", "pdiparams", hand_control_flow),
]
FUSION_PIPELINES = ("npu", "fuse")
FUSION_BATCHES = (1, 64)
FUSION_TARGET = 1.05   # lowered / hand nn.Module, every model with a fusion site (issue 22)


def pipeline_device(spec):
    """`npu` -> ("npu", "npu"); `fuse` -> ("fuse", "cpu"); `NAME@DEVICE` -> (NAME, DEVICE)."""
    name, _, device = spec.partition("@")
    return name, device or ("npu" if name == "npu" else "cpu")


def fusion_params(fm, program):
    import pirc

    if fm.weights == "zoo":
        return zoo_params(program, fm.program[:-len(".json")] + ".constants.npz")
    path = fm.program[:-len(".json")] + ".pdiparams"
    return pirc.read_params(path, program) if os.path.exists(path) else {}


def fused_ops(gm):
    """The lowered module's calls into fused ops (npu.* entry points and the fused kernels):
    `name xN` sorted, what the pipeline's fusions left for the lowering to emit."""
    from collections import Counter

    names = Counter()
    for node in gm.graph.nodes:
        if node.op != "call_function":
            continue
        mod, fn = getattr(node.target, "__module__", "") or "", getattr(node.target, "__name__", "")
        if mod.startswith("pirc.lower.npu") or mod.endswith("kernels.fused") or \
                mod.endswith("kernels.fused_cpu"):
            names[fn] += 1
    return ", ".join(f"{k} x{v}" if v > 1 else k for k, v in sorted(names.items())) or "none"


def torch_calls(fn, targs):
    """How many torch ops one call of `fn` dispatches from Python (the profiler's top-level
    events): a count that does not move with the machine's load, and at batch 1 most of the
    time (each costs a few microseconds before any arithmetic)."""
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CPU]) as prof:
        fn(*targs)
    return sum(1 for e in prof.events() if e.cpu_parent is None)


def bench_fusion_model(fm, args):
    """Rows per batch: the hand module checked against Paddle's recorded outputs first (the
    hand-written model must be the model), each pipeline's lowered module against the hand
    module's outputs at each batch, then all of them timed call by call."""
    import warnings

    import pirc
    from pirc.api import lower

    program = pirc.load(fm.program)
    params = fusion_params(fm, program)
    feeds, ref = recorded(fm)
    shapes = feed_shapes(program)
    hand_tensors = nn_linear_layout(params, fm.linear_weights or (lambda k: False))
    hand_module = HandModule(fm.hand, hand_tensors)
    ns = types.SimpleNamespace(**hand_tensors)
    hand_fn = (lambda *inputs: fm.hand(ns, *inputs))
    with torch.no_grad():
        outs = [o.numpy() for o in hand_module(*[torch.from_numpy(np.array(feeds[k]))
                                                 for k in shapes])]
    hand_err, ok, why = check_outputs(outs, ref, args.atol, args.rtol)
    if not ok:
        return [{"model": fm.name, "skipped": f"the hand module is not the model: {why}"}]
    lowered, notes = {}, {}
    for spec in args.pipelines:
        pipe, device = pipeline_device(spec)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")   # device npu on a CPU: its fallback warning
                gm = lower(program, params, device=device, pipeline=pipe)
                result = pirc.run_pipeline(pirc.load(fm.program), pipe, params=params,
                                           device=device, report=False)
            lowered[spec] = gm
            rewrites = {p.name: p.rewrites for p in result.passes
                        if p.name.startswith("fuse-") and p.rewrites}
            notes[spec] = (", ".join(f"{k} {v}" for k, v in rewrites.items()) or "no fusion")
            notes[spec] += f"; calls: {fused_ops(gm)}"
        except Exception as e:   # noqa: BLE001 - a pipeline that cannot run is the row's reason
            notes[spec] = "failed: " + first_line(e)
    rec_bsz = recorded_batch(feeds, shapes)
    batches = [None] if fm.name in FIXED_SHAPE else list(args.batches)
    rows = []
    with torch.no_grad():
        for bsz in batches:
            arrs = feeds if bsz is None else batch_inputs(feeds, shapes, bsz)
            if arrs is None:
                continue
            targs = [torch.from_numpy(np.array(arrs[k])) for k in shapes]
            want = [o.numpy() for o in hand_module(*targs)]
            tiled_ref = ref if bsz is None else tiled_outputs(ref, rec_bsz, bsz)
            row = {"model": fm.name, "batch": "fixed" if bsz is None else str(bsz),
                   "hand_err": check_outputs(want, tiled_ref, args.atol, args.rtol)[0],
                   "fused": notes}
            fns = {"hand_module": hand_module, "hand_fn": hand_fn}
            for spec, gm in lowered.items():
                err, ok, why = check_outputs([o.numpy() for o in gm(*targs)], want, args.atol,
                                             args.rtol)
                row[spec + "_err"] = err
                if ok:
                    fns[spec] = gm
                else:
                    row[spec + "_mismatch"] = why
            fastest = {}
            for label, us in interleaved_us(fns, targs, args.warmup, args.reps,
                                            args.rounds, fastest).items():
                row[label + "_us"] = us
                row[label + "_min_us"] = fastest[label]
            for label, fn in fns.items():
                row[label + "_calls"] = torch_calls(fn, targs)
            rows.append(row)
    return rows


def fusion_table(rows, pipelines):
    head = ["model", "batch", "hand nn.Module (us)", "hand function (us)"]
    for spec in pipelines:
        head += [f"`{spec}` lowered (us)", f"`{spec}` / hand module",
                 f"`{spec}` / hand, fastest calls", f"max |`{spec}` - hand|"]
    head += ["max |hand - Paddle|", "torch calls: hand / " + " / ".join(f"`{s}`" for s in pipelines)]

    def cells(r, notes):
        c = [r["model"], r["batch"], _num(r, "hand_module_us", ".0f"), _num(r, "hand_fn_us", ".0f")]
        calls = " / ".join(str(r.get(k + "_calls", "-")) for k in ["hand_module", *pipelines])
        for spec in pipelines:
            us, hand = r.get(spec + "_us"), r.get("hand_module_us")
            mark = "" if r["model"] in FIXED_SHAPE or us is None or us <= FUSION_TARGET * hand \
                else " (over)"
            fast, fast_hand = r.get(spec + "_min_us"), r.get("hand_module_min_us")
            c += [_us(r, spec), "-" if us is None else f"{us / hand:.2f}{mark}",
                  "-" if fast is None else f"{fast / fast_hand:.2f}",
                  _num(r, spec + "_err", ".2g")]
            if r.get(spec + "_mismatch"):
                notes.append(f"- {r['model']} batch {r['batch']} `{spec}`: {r[spec + '_mismatch']}")
        return c + [_num(r, "hand_err", ".2g"), calls]

    tab = markdown_table(head, rows, cells)
    seen, lines = set(), []
    for r in rows:
        if "fused" in r and r["model"] not in seen:
            seen.add(r["model"])
            lines.append(f"- {r['model']}: " + "; ".join(f"`{s}`: {r['fused'].get(s, '-')}"
                                                         for s in pipelines))
    return (tab + "\n\nFusion rewrites of each pipeline (pass report) and the fused calls its "
            "lowered module makes:\n\n" + "\n".join(lines))


def run_fusion(args):
    rows = []
    for fm in FUSION_MODELS:
        if args.models and fm.name not in args.models:
            continue
        try:
            rows += bench_fusion_model(fm, args)
        except Exception as e:   # one model's failure is a row, not the end of the run
            rows.append({"model": fm.name, "skipped": first_line(e)})
        print(f"{fm.name}: done", file=sys.stderr, flush=True)
    what = ("lowered modules (pirc.lower(program, params, device, pipeline=P): `npu` on device "
            "npu, i.e. the torch_npu calls' CPU references on this machine; `fuse` on device cpu) "
            "against the same models written by hand as nn.Modules (weights from the same "
            "files); the hand modules checked against Paddle 3.3.1's recorded outputs (.io.npz, "
            f"atol {args.atol:g} + rtol {args.rtol:g} * max|ref|) and each lowered module "
            "against the hand module at every batch before timing; target: lowered / hand "
            f"module <= {FUSION_TARGET} (\"(over)\" marks a miss; control_flow is reported, not "
            "a target)")
    return fusion_table(rows, args.pipelines), what


# -- zoo mode ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class ZooModel:
    name: str
    program: str   # VER/MODEL.VER.json
    io: str        # VER/MODEL.VER.io.npz: in__<feed>, out__<i> (Paddle's outputs when saved)


def zoo_models(release="3.3.1", zoo=ZOO, names=None):
    """The zoo's models saved by `release` (those with an .io.npz beside them), sorted."""
    found = []
    for path in sorted(glob.glob(os.path.join(zoo, release, f"*.{release}.json"))):
        name = os.path.basename(path)[:-len(f".{release}.json")]
        io = path[:-len(".json")] + ".io.npz"
        if os.path.exists(io) and (not names or name in names):
            found.append(ZooModel(name, path, io))
    return found


def feed_shapes(program):
    """Feed name -> the shape its pd_op.data declares (-1 = dynamic), in program order."""
    return {op.attributes["name"].data: tuple(op.results[0].type.shape)
            for op in program.block.ops if op.name == "pd_op.data"}


def recorded(model):
    """(feeds, outputs) of the model's .io.npz: {feed: array}, [output in fetch order]."""
    with np.load(model.io) as d:
        feeds = {k[len("in__"):]: d[k] for k in d.files if k.startswith("in__")}
        outs = [d[k] for k in sorted((k for k in d.files if k.startswith("out__")),
                                     key=lambda k: int(k[len("out__"):]))]
    return feeds, outs


def batch_inputs(feeds, shapes, batch):
    """The feeds at `batch`: each feed whose declared leading dim is -1 tiled (or cut) along it,
    the others as recorded.  None when no feed has a dynamic batch dim and `batch` is not the
    recorded one (such a program runs at its own size only)."""
    dynamic = [k for k in feeds if shapes.get(k, ())[:1] == (-1,) and feeds[k].ndim]
    if not dynamic:
        return feeds if batch == recorded_batch(feeds, shapes) else None
    return {k: tiled(v, batch) if k in dynamic else v for k, v in feeds.items()}


def recorded_batch(feeds, shapes):
    """The batch size of the recorded inputs: the leading dim of the first batched feed."""
    for k, v in feeds.items():
        if shapes.get(k, ())[:1] == (-1,) and v.ndim:
            return v.shape[0]
    return next((v.shape[0] for v in feeds.values() if v.ndim), 1)


def tiled_outputs(outs, recorded_bsz, batch):
    """The recorded outputs at `batch`, tiled like the inputs (inference rows are independent):
    the reference without Paddle.  An output without the batch dim stays as recorded."""
    return [tiled(o, batch) if o.ndim and o.shape[0] == recorded_bsz else o for o in outs]


def check_outputs(outs, ref, atol, rtol):
    """(max abs diff, within atol + rtol * max|ref| and same shapes/dtypes, why not)."""
    if len(outs) != len(ref):
        return float("inf"), False, f"{len(outs)} outputs, the reference has {len(ref)}"
    worst, why = 0.0, ""
    for i, (o, r) in enumerate(zip(outs, ref)):
        o, r = np.asarray(o), np.asarray(r)
        if o.shape != r.shape or o.dtype != r.dtype:
            return float("inf"), False, f"output {i}: {o.shape} {o.dtype}, reference {r.shape} {r.dtype}"
        if not r.size:
            continue
        diff = float(np.max(np.abs(o.astype(np.float64) - r.astype(np.float64))))
        bound = atol + rtol * float(np.max(np.abs(r.astype(np.float64))))
        if not diff <= bound:   # NaN fails too
            why = why or f"output {i}: max abs diff {diff:.3g} > {bound:.3g}"
        if np.isnan(diff) or diff > worst:   # a NaN stays
            worst = diff
    return worst, not why, why


def bench_zoo_model(model, args, tmp):
    """The model's rows (one per batch size), or one row with `skipped` saying why not."""
    import pirc
    from pirc.api import lower

    program = pirc.load(model.program)
    missing = pirc.lowering_coverage(program)
    if missing:
        return [{"model": model.name, "skipped": "missing kernels: "
                 + "; ".join(str(m) for m in missing)}]
    params = zoo_params(program, model.program[:-len(".json")] + ".constants.npz")
    gm = lower(program, params, pipeline=PIPELINE)
    shapes = feed_shapes(program)
    feeds, outs = recorded(model)
    rec_bsz = recorded_batch(feeds, shapes)
    inputs, ref = {}, {}
    for bsz in args.batches or ():   # none (zoo2's default): the recorded inputs only
        arrs = batch_inputs(feeds, shapes, bsz)
        if arrs is None:
            continue
        inputs[str(bsz)] = arrs
        ref[str(bsz)] = tiled_outputs(outs, rec_bsz, bsz)
    if not inputs:   # fixed shapes and no requested batch is the recorded one, or no batch asked
        key = f"{rec_bsz} ({'fixed' if args.batches else 'recorded'})"
        inputs[key], ref[key] = feeds, outs
    pd = {}
    if not args.no_paddle:
        prefix = os.path.join(tmp, model.name)
        shutil.copyfile(model.program, prefix + ".json")
        pirc.write_params(prefix + ".pdiparams", params, program)
        files = {}
        for key, arrs in inputs.items():
            files[key] = f"{prefix}.{key.split()[0]}.npz"
            np.savez(files[key], **arrs)
        pd, args.paddle_version = paddle_times(args.paddle, prefix, files, args.warmup, args.reps,
                                               0 if args.check_only else args.rounds, args.threads)
        ref = {key: paddle_outputs(path) for key, path in files.items()}
    if args.compile:
        torch._dynamo.reset()   # each model compiles from scratch (its time is its own)
    # fullgraph: a graph break (something in a kernel dynamo cannot trace) fails the model's
    # compiled column instead of timing a module split at that point
    compiled = torch.compile(gm, backend=args.backend, fullgraph=True) if args.compile else None
    rows = []
    with torch.no_grad():
        for key, arrs in inputs.items():
            targs = [torch.from_numpy(np.array(arrs[k])) for k in shapes]
            row = {"model": model.name, "batch": key, "paddle_us": pd.get(key)}
            fns = {"lowered": gm}
            if compiled is not None:
                fns["compiled"] = compiled
            for label, fn in list(fns.items()):
                t0 = time.perf_counter()
                try:
                    got = [o.numpy() for o in fn(*targs)]
                except Exception as e:   # noqa: BLE001 - compiling failed: that column's row
                    if label != "compiled":
                        raise
                    row["compiled_mismatch"] = "failed: " + first_line(e)
                    del fns[label]
                    continue
                if label == "compiled":
                    row["compile_s"] = time.perf_counter() - t0
                err, ok, why = check_outputs(got, ref[key], args.atol, args.rtol)
                row[label + "_err"] = err
                if not ok:
                    row[label + "_mismatch"] = why
                    del fns[label]
            if fns and not args.check_only:
                for label, us in interleaved_us(fns, targs, args.warmup, args.reps,
                                                args.rounds).items():
                    row[label + "_us"] = us
            rows.append(row)
    return rows


def first_line(e: BaseException) -> str:
    """An exception as one short table cell: its type and the first line of its message."""
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0][:300] if text else ''}".rstrip(": ")


def _us(row, label):
    why = row.get(label + "_mismatch")
    if why:
        return "failed" if why.startswith("failed: ") else "mismatch"
    us = row.get(label + "_us")
    return "-" if us is None else f"{us:.0f}"


def _speed(row, label):
    """Paddle's time over `label`'s: how many times faster than Paddle (> 1: faster)."""
    us, pd = row.get(label + "_us"), row.get("paddle_us")
    if us is None or pd is None:
        return "-", "-"
    return f"{pd / us:.2f}", "yes" if us < pd else "no"


def _num(row, key, fmt):
    return "-" if row.get(key) is None else format(row[key], fmt)


def markdown_table(head, rows, cells):
    """A markdown table: `head`, then `cells(row, notes)` for each row (which may add lines to
    `notes`), a row with `skipped` listed as not run; the notes below the table."""
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    notes = []
    for r in rows:
        if "skipped" in r:
            notes.append(f"- {r['model']}: not run, {r['skipped']}")
        else:
            out.append("| " + " | ".join(cells(r, notes)) + " |")
    return "\n".join(out) + ("\n\n" + "\n".join(notes) if notes else "")


def zoo_table(rows, compiled, paddle_version="3.3.1"):
    """The markdown table of the timed rows, then a list of the models not run and why."""
    comp = int(bool(compiled))   # 0 or 1 of each torch.compile column, beside its eager twin
    head = ["model", "batch", "pirc (us)", *["torch.compile (us)"] * comp,
            f"Paddle {paddle_version} (us)", "pirc / Paddle", "pirc faster",
            *["compiled / Paddle", "compiled faster"] * comp, "max abs diff pirc",
            *["max abs diff compiled", "first compiled call (s)"] * comp]

    def cells(r, notes):
        pd = "-" if r["paddle_us"] is None else f"{r['paddle_us']:.0f}"
        for label in ("lowered", "compiled"):
            why = r.get(label + "_mismatch")
            if why:
                notes.append(f"- {r['model']} batch {r['batch']}: {label} "
                             + (why if why.startswith("failed: ") else f"not timed, {why}"))
        return [r["model"], r["batch"], _us(r, "lowered"), *[_us(r, "compiled")] * comp, pd,
                *_speed(r, "lowered"), *(_speed(r, "compiled") if comp else ()),
                f"{r['lowered_err']:.2g}",
                *([_num(r, "compiled_err", ".2g"), _num(r, "compile_s", ".1f")] if comp else ())]

    return markdown_table(head, rows, cells)


# -- zoo export: torch.export with dynamic dims, torch.compile(fullgraph) ----------------------

def dynamic_dims(gm):
    """torch.export's dynamic_shapes for a lowered module: every -1 dim of every feed a
    Dim.DYNAMIC (export then fails if anything in the module makes it a constant), a feed
    with none None (static).  Keyed by the forward's argument names."""
    Dim = torch.export.Dim
    return {s.arg: ({i: Dim.DYNAMIC for i, d in enumerate(s.shape) if d == -1} or None)
            for s in gm.pirc_feed_specs}


def describe_dims(shapes):
    """`input_ids: 0, 1` per feed with -1 dims ("static" when none has one)."""
    parts = [f"{k}: {', '.join(str(i) for i, d in enumerate(v) if d == -1)}"
             for k, v in shapes.items() if -1 in v]
    return "; ".join(parts) or "static"


def second_size(feeds, shapes):
    """The recorded feeds at another size in every dynamic dim: the leading (batch) dim one
    row longer (tiled), every other -1 dim (an NLP model's sequence) 3 shorter (its first
    positions; 1 longer, tiled, when that leaves fewer than 2).  Token ids cut along the
    sequence stay valid ids and positions; 2 and more keeps off the sizes 0 and 1 torch.export
    specialises on."""
    out = {}
    for name, arr in feeds.items():
        shape = shapes.get(name, ())
        for axis, d in enumerate(shape):
            if d != -1 or axis >= arr.ndim:
                continue
            n = arr.shape[axis]
            size = n + 1 if axis == 0 or n - 3 < 2 else n - 3
            reps = -(-size // n)
            arr = np.concatenate([arr] * reps, axis=axis).take(range(size), axis=axis)
        out[name] = arr
    return out


def size_label(arrs):
    """The first feed's shape, `2x8`: what a size of the table's rows means."""
    first = next(iter(arrs.values()), np.zeros(()))
    return "x".join(str(d) for d in first.shape) or "scalar"


def export_zoo_model(model, args):
    """One row: the lowered module through torch.export.export with its -1 dims dynamic
    (exported at the second size, checked against the eager module at the recorded size and
    the second one), through torch.compile(backend="eager", fullgraph=True) at both sizes,
    and the exported module's time against the lowered one's at the recorded size."""
    import pirc
    from pirc.api import lower

    program = pirc.load(model.program)
    missing = pirc.lowering_coverage(program)
    if missing:
        return {"model": model.name, "skipped": "missing kernels: "
                + "; ".join(str(m) for m in missing)}
    gm = lower(program, zoo_params(program, model.program[:-len(".json")] + ".constants.npz"),
               pipeline=PIPELINE)
    shapes = feed_shapes(program)
    feeds, _ = recorded(model)
    sizes = [feeds, second_size(feeds, shapes)]
    if all(a.shape == b.shape for a, b in zip(sizes[0].values(), sizes[1].values())):
        sizes = sizes[:1]   # every dim static: one size
    targs = [[torch.from_numpy(np.array(arrs[k])) for k in shapes] for arrs in sizes]
    row = {"model": model.name, "dims": describe_dims(shapes),
           "sizes": ", ".join(size_label(a) for a in sizes)}
    with torch.no_grad():
        want = [[o.numpy() for o in gm(*a)] for a in targs]

        def check(label, fn):
            worst = 0.0
            for a, ref, arrs in zip(targs, want, sizes):
                err, ok, why = check_outputs([o.numpy() for o in fn(*a)], ref, args.atol,
                                             args.rtol)
                if not ok:
                    row[label + "_failed"] = f"at {size_label(arrs)}: {why}"
                    return
                worst = max(worst, err)
            row[label + "_err"] = worst

        t0 = time.perf_counter()
        try:
            exported = torch.export.export(gm, tuple(targs[-1]), dynamic_shapes=dynamic_dims(gm))
            row["export_s"] = time.perf_counter() - t0
            run = exported.module()
            check("exported", run)
        except Exception as e:   # noqa: BLE001 - the reason is the row's
            row["exported_failed"] = first_line(e)
        torch._dynamo.reset()
        try:
            check("fullgraph", torch.compile(gm, backend="eager", fullgraph=True))
        except Exception as e:   # noqa: BLE001
            row["fullgraph_failed"] = first_line(e)
        if "exported_failed" not in row and not args.check_only:
            row.update({f"{k}_us": v for k, v in interleaved_us(
                {"lowered": gm, "exported": run}, targs[0], args.warmup, args.reps,
                args.rounds).items()})
    return row


def export_table(rows):
    """The markdown table of the export rows, then the failures and models not run, why."""
    head = ["model", "dynamic dims (feed: axes)", "sizes checked", "torch.export",
            "export (s)", "max abs diff exported", "torch.compile eager fullgraph",
            "pirc (us)", "exported (us)", "exported / pirc"]

    def cells(r, notes):
        for label, what in (("exported", "torch.export"), ("fullgraph", "eager fullgraph")):
            if label + "_failed" in r:
                notes.append(f"- {r['model']}: {what} failed, {r[label + '_failed']}")
        ratio = (f"{r['exported_us'] / r['lowered_us']:.2f}" if r.get("exported_us")
                 and r.get("lowered_us") else "-")
        return [r["model"], r["dims"], r["sizes"],
                "failed" if "exported_failed" in r else "ok", _num(r, "export_s", ".1f"),
                _num(r, "exported_err", ".2g"), "failed" if "fullgraph_failed" in r else "ok",
                _num(r, "lowered_us", ".0f"), _num(r, "exported_us", ".0f"), ratio]

    return markdown_table(head, rows, cells)


# -- recording -----------------------------------------------------------------------------------

def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def commit():
    """HEAD's short hash, `+changes` when the work tree differs from it."""
    def git(*a):
        return subprocess.run(["git", "-C", ROOT, *a], capture_output=True, text=True).stdout.strip()
    head = git("rev-parse", "--short", "HEAD") or "unknown"
    return head + ("+changes" if git("status", "--porcelain", "--untracked-files=no") else "")


def write_section(path, entry, section="Run"):
    """Put `entry` first in the "## SECTION" section of the markdown file, keeping what was there."""
    with open(path) as f:
        doc = f.read()
    marker = f"\n## {section}\n"
    start = doc.find(marker)
    if start < 0:
        doc = doc.rstrip("\n") + f"\n\n## {section}\n\n" + entry
    else:
        body = start + len(marker)
        doc = doc[:body] + "\n" + entry + doc[body:]
    with open(path, "w") as f:
        f.write(doc if doc.endswith("\n") else doc + "\n")


# -- command line --------------------------------------------------------------------------------

DEFAULTS = {"corpus": {"batches": BATCHES, "reps": 50, "rounds": 5, "warmup": 5},
            "zoo": {"batches": ZOO_BATCHES, "reps": 10, "rounds": 3, "warmup": 2},
            "fusion": {"batches": FUSION_BATCHES, "reps": 30, "rounds": 7, "warmup": 5}}


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mode", choices=sorted(DEFAULTS), default="corpus")
    ap.add_argument("--models", nargs="*", help="subset of model names")
    ap.add_argument("--batches", nargs="*", type=int,
                    help="batch sizes (corpus: 1 2 4 ... 64; zoo: 1 16)")
    ap.add_argument("--reps", type=int, help="calls per round (corpus 50, zoo 10)")
    ap.add_argument("--rounds", type=int,
                    help="rounds of --reps calls, median of the rounds' medians (corpus 5, zoo 3)")
    ap.add_argument("--warmup", type=int, help="untimed calls first (corpus 5, zoo 2)")
    ap.add_argument("--compile", action="store_true",
                    help="also time torch.compile(lowered) (zoo: fullgraph=True)")
    ap.add_argument("--export", action="store_true",
                    help="zoo: torch.export every model with its -1 dims dynamic, check it at "
                         "two sizes, and torch.compile(backend='eager', fullgraph=True); time "
                         "the exported module (no Paddle)")
    ap.add_argument("--backend", default="inductor", help="torch.compile backend (--compile)")
    ap.add_argument("--paddle", default="/tmp/pd331/bin/python")
    ap.add_argument("--no-paddle", action="store_true",
                    help="zoo: skip Paddle, check against the recorded outputs, no Paddle times")
    ap.add_argument("--check-only", action="store_true", help="zoo: check outputs, time nothing")
    ap.add_argument("--zoo", choices=sorted(ZOOS), default="zoo",
                    help="zoo mode: the first zoo (tests/fixtures/zoo) or the second (zoo2)")
    ap.add_argument("--threads", type=int, default=1,
                    help="threads for torch and Paddle alike (default 1; 0: each one's default)")
    ap.add_argument("--release", default="3.3.1",
                    help="zoo: the release whose saved files run (tests/fixtures/zoo/RELEASE)")
    ap.add_argument("--atol", type=float, default=1e-5, help="zoo: output check, absolute part")
    ap.add_argument("--rtol", type=float, default=1e-3,
                    help="zoo: output check, part relative to the output's max |Paddle|")
    ap.add_argument("--pipelines", nargs="*", default=list(FUSION_PIPELINES),
                    help="fusion mode: the pipelines whose lowered modules are timed (npu on "
                         "device npu, the others on cpu; NAME@DEVICE to choose)")
    ap.add_argument("--write", help="add the table to the '## Run' (corpus) or '## Zoo' (zoo) "
                                    "section of this markdown file")
    args = ap.parse_args(argv)
    if args.mode == "zoo" and args.zoo == "zoo2" and args.batches is None:
        args.batches = []   # recorded inputs only (module docstring)
    for key, value in DEFAULTS[args.mode].items():
        if getattr(args, key) is None:
            setattr(args, key, list(value) if isinstance(value, tuple) else value)
    if args.mode != "zoo" and (args.no_paddle or args.check_only or args.export):
        ap.error("--no-paddle, --check-only and --export are zoo-mode options")
    if args.export and args.compile:
        ap.error("--export and --compile are separate runs (--export checks the eager "
                 "backend's fullgraph itself; --compile times --backend against Paddle)")
    args.paddle_version = None
    return args


def run_corpus(args):
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for path in sorted(glob.glob(os.path.join(CORPUS, "*.json"))):
            name = os.path.basename(path).split(".")[0]
            if name not in HAND or (args.models and name not in args.models):
                continue
            rows += bench_corpus_model(path, args, tmp)
            print(f"{name}: done", file=sys.stderr, flush=True)
    return corpus_table(rows, args.compile), "corpus 3.3.1 models"


def selected_zoo_models(args):
    """The zoo models --models names (all by default); an unknown name ends the run."""
    zoo = ZOOS[args.zoo]
    models = zoo_models(args.release, zoo, names=args.models)
    unknown = sorted(set(args.models or ()) - {m.name for m in models})
    if unknown:
        sys.exit(f"bench_run: no zoo model {', '.join(unknown)} in {os.path.join(zoo, args.release)}")
    return models


def run_zoo(args):
    models = selected_zoo_models(args)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for model in models:
            try:
                rows += bench_zoo_model(model, args, tmp)
            except Exception as e:   # one model's failure is a row, not the end of the run
                rows.append({"model": model.name,
                             "skipped": f"{type(e).__name__}: {str(e).splitlines()[0][:300]}"})
            print(f"{model.name}: done", file=sys.stderr, flush=True)
    ref = "the recorded outputs" if args.no_paddle else "Paddle's"
    what = (f"{args.zoo} {args.release} models (tests/fixtures/{args.zoo}/{args.release}, weights from "
            f"tools/zoo_weights.py), outputs checked against {ref} within atol {args.atol:g} + "
            f"rtol {args.rtol:g} * max|ref|; pirc / Paddle = Paddle's time over pirc's (> 1: pirc "
            "is faster)")
    if args.compile:
        what += f"; torch.compile backend {args.backend}"
    return zoo_table(rows, args.compile, args.paddle_version or "3.3.1"), what


def run_zoo_export(args):
    models = selected_zoo_models(args)
    rows = []
    for model in models:
        try:
            rows.append(export_zoo_model(model, args))
        except Exception as e:   # one model's failure is a row, not the end of the run
            rows.append({"model": model.name, "skipped": first_line(e)})
        print(f"{model.name}: done", file=sys.stderr, flush=True)
    what = (f"zoo {args.release} models lowered with `{PIPELINE}`, torch.export.export with "
            "every -1 feed dim a Dim.DYNAMIC, exported at the second size and checked against "
            f"the eager lowered module at the recorded and the second size within atol "
            f"{args.atol:g} + rtol {args.rtol:g} * max|ref|; the same check of "
            "torch.compile(backend='eager', fullgraph=True); times at the recorded size")
    return export_table(rows), what


def section(args):
    if args.mode == "corpus":
        return "Run"
    if args.mode == "fusion":
        return "Fusion speed"
    return "Zoo export and compile" if args.export else "Zoo"


def main(argv=None):
    args = parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    threads = (f"{args.threads} thread{'s' if args.threads > 1 else ''}" if args.threads else
               f"default threads (torch {torch.get_num_threads()}, Paddle's OpenMP default)")
    run = (run_corpus if args.mode == "corpus" else run_fusion if args.mode == "fusion" else
           run_zoo_export if args.export else run_zoo)
    tab, what = run(args)
    print(tab)
    if args.write:
        paddle = ("not run" if args.no_paddle or args.export or args.mode == "fusion" else
                  (args.paddle_version or "?"))
        command = shlex.join(["python3", "tools/bench_run.py",
                              *(argv if argv is not None else sys.argv[1:])])
        text = (f"### {time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC, commit {commit()}: "
                f"`{command}`\n\n"
                f"Machine {platform.node()} ({platform.machine()}), CPU {cpu_model()}, "
                f"{os.cpu_count()} CPUs (load average {os.getloadavg()[0]:.1f} at the end); "
                f"torch {torch.__version__}, Paddle {paddle}, Python {platform.python_version()}; "
                f"{threads}, median of {args.rounds} rounds' medians of {args.reps} calls after "
                f"{args.warmup} warm-up calls, the torch-side modules interleaved call by call; "
                f"{what}.\n\n" + tab + "\n")
        write_section(args.write, text, section(args))


if __name__ == "__main__":
    main()
