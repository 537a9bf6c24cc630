#!/usr/bin/env python3
"""Real-Paddle fixtures for every op Paddle's patches 2, 3 and 4 touch (tests/fixtures/patchops/).

Run with the python of a scratch venv that has paddlepaddle (never the repo's environment):

    /tmp/pd300/bin/python tools/paddle_oracle/gen_patch_fixtures.py --out tests/fixtures/patchops
    /tmp/pd311/bin/python tools/paddle_oracle/gen_patch_fixtures.py --out tests/fixtures/patchops
    /tmp/pd322/bin/python tools/paddle_oracle/gen_patch_fixtures.py --out tests/fixtures/patchops
    /tmp/pd331/bin/python tools/paddle_oracle/gen_patch_fixtures.py --out tests/fixtures/patchops
    # then the oracle: each older file loaded by 3.3.1 and written back after its patches
    /tmp/pd331/bin/python tools/paddle_oracle/gen_patch_fixtures.py --out tests/fixtures/patchops \
        --crossload 3.0.0 3.1.1 3.2.2

Per model NAME and Paddle version VER, OUT/VER/ gets what gen_fixtures.py writes (NAME.VER.json,
.pdiparams when the model has parameters, .pir.txt, .loaded.pir.txt, .io.npz with in__<feed>,
out__<i> of the loaded program and built_out__<i>; gen_log.VER.json). `--crossload FROM...`
(3.3.1 only) loads OUT/FROM/NAME.FROM.json with load_inference_model, prints it, runs it on the
saved inputs and re-serializes it with core.serialize_pir_program, the JSON Paddle 3.3.1 writes
after applying its patches (FORMAT-NOTES section 6), into
OUT/crossload/NAME.FROM-loaded-in-3.3.1.{json,pir.txt,out.npz} (out__<i>), with a
crossload_log.json that compares the outputs with the source version's and with native 3.3.1's.

One model per patched op (a few ops get two settings). Attribute values are chosen so that an
f32 -> f64 retype is visible (0.02, 1.7 and 1e-6 are not exact in f32; 1.5 and 2.0 are).
Ops Paddle's patches name that cannot be built on the CPU wheels are listed in NOT_BUILT
with the reason (recorded in each gen_log): top_p_sampling and moe_permute/moe_unpermute have
no CPU kernel, which op construction already checks; the fused, XPU and oneDNN ops are made by
device fusion passes only.
Weights and inputs are deterministic, as in gen_fixtures.py.
"""
import argparse
import importlib.metadata
import json
import os
import subprocess
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

# gen_fixtures imports paddle and switches it to static mode; its builders are looked up by
# name (`m_<model>`) in its own module, so this script's builders are registered there.
import gen_fixtures as gf  # noqa: E402
from gen_fixtures import data, err, rng_for  # noqa: E402

paddle = gf.paddle
F = paddle.nn.functional
PADDLE_VERSION = importlib.metadata.version("paddlepaddle")
NEWEST = "3.3.1"


def randn(model, feed, shape, dtype="float32"):
    return rng_for(f"{model}/{feed}").standard_normal(shape).astype(dtype)


# -- models: builder(model) -> (feeds, fetches, info), run inside program_guard ---------------

def m_lp_pool2d(model):
    xa = np.abs(randn(model, "x", (1, 2, 6, 6))) + 0.1
    x = data("x", xa)
    a = F.lp_pool2d(x, norm_type=2, kernel_size=2, stride=2)
    b = F.lp_pool2d(x, norm_type=3, kernel_size=[3, 2], stride=[1, 2])
    return [("x", xa)], [a, b], {"patches": {2: ["strides", "paddings"]}}


def m_pool2d(model):
    xa = randn(model, "x", (1, 2, 6, 6))
    x = data("x", xa)
    a = F.max_pool2d(x, kernel_size=3, stride=2, padding=1)
    b = F.avg_pool2d(x, kernel_size=2, stride=[1, 2], padding=[1, 0])
    c = F.adaptive_avg_pool2d(x, output_size=3)
    return [("x", xa)], [a, b, c], {"patches": {2: ["strides", "paddings"]}}


def m_pool3d(model):
    xa = randn(model, "x", (1, 2, 4, 6, 6))
    x = data("x", xa)
    a = F.max_pool3d(x, kernel_size=[2, 3, 3], stride=[1, 2, 2], padding=[0, 1, 1])
    b = F.avg_pool3d(x, kernel_size=2, stride=2)
    return [("x", xa)], [a, b], {"patches": {2: ["kernel_size", "strides", "paddings"]}}


def m_expand_as(model):
    xa = randn(model, "x", (1, 3))
    ya = randn(model, "y", (2, 4, 3))
    x = data("x", xa)
    y = data("y", ya)
    return [("x", xa), ("y", ya)], [paddle.expand_as(x, y)], {"patches": {2: ["target_shape"]}}


def m_kthvalue(model):
    xa = randn(model, "x", (3, 5))
    x = data("x", xa)
    v, i = paddle.kthvalue(x, k=2, axis=1)
    v2, i2 = paddle.kthvalue(x, k=3, axis=0, keepdim=True)
    return [("x", xa)], [v, i, v2, i2], {"patches": {2: ["k"]}}


def m_repeat_interleave(model):
    xa = randn(model, "x", (2, 3))
    x = data("x", xa)
    return ([("x", xa)], [paddle.repeat_interleave(x, 2, axis=1)],
            {"patches": {3: ["output_size"]}})


def m_repeat_interleave_with_tensor_index(model):
    xa = randn(model, "x", (3, 2))
    ra = np.array([1, 0, 2], dtype="int64")
    x = data("x", xa)
    r = data("r", ra)
    return ([("x", xa), ("r", ra)], [paddle.repeat_interleave(x, r, axis=0)],
            {"patches": {3: ["output_size"]}})


def m_leaky_relu(model):
    xa = randn(model, "x", (2, 5))
    x = data("x", xa)
    a = F.leaky_relu(x, negative_slope=0.02)               # not exact in f32
    b = F.leaky_relu(x, negative_slope=0.25)               # exact
    return [("x", xa)], [a, b], {"patches": {4: ["negative_slope"]}}


def m_softplus(model):
    xa = randn(model, "x", (2, 5)) * 8
    x = data("x", xa)
    a = F.softplus(x, beta=1.7, threshold=15.0)
    b = F.softplus(x)
    return [("x", xa)], [a, b], {"patches": {4: ["beta", "threshold"]}}


def m_logit(model):
    xa = rng_for(model + "/x").uniform(0.0, 1.0, (2, 5)).astype("float32")
    xa[0, 0], xa[1, 1] = 0.0, 1.0                          # eps clamps these
    x = data("x", xa)
    return [("x", xa)], [paddle.logit(x, eps=1e-6)], {"patches": {4: ["eps"]}}


def m_pad3d(model):
    xa = randn(model, "x", (1, 2, 2, 3, 3))
    x = data("x", xa)
    a = F.pad(x, [1, 1, 0, 1, 1, 0], mode="constant", value=0.3)
    b = F.pad(x, [1, 0, 1, 0, 0, 1], mode="reflect")
    return [("x", xa)], [a, b], {"patches": {4: ["pad_value"]}}


def m_group_norm(model):
    xa = randn(model, "x", (2, 4, 3, 3))
    x = data("x", xa)
    gn = paddle.nn.GroupNorm(num_groups=2, num_channels=4, epsilon=1e-5)
    return [("x", xa)], [gn(x)], {"patches": {4: ["epsilon"]}}


def m_linear_interp(model):
    xa = randn(model, "x", (1, 2, 5))
    x = data("x", xa)
    a = F.interpolate(x, scale_factor=1.5, mode="linear", data_format="NCW")
    return [("x", xa)], [a], {"patches": {4: ["scale"]}}


def m_bilinear_interp(model):
    xa = randn(model, "x", (1, 2, 4, 4))
    x = data("x", xa)
    a = F.interpolate(x, scale_factor=[1.5, 1.7], mode="bilinear")
    b = F.interpolate(x, scale_factor=2.0, mode="bilinear", align_corners=True)
    return [("x", xa)], [a, b], {"patches": {4: ["scale"]}}


def m_bicubic_interp(model):
    xa = randn(model, "x", (1, 2, 4, 4))
    x = data("x", xa)
    return ([("x", xa)], [F.interpolate(x, scale_factor=2.0, mode="bicubic")],
            {"patches": {4: ["scale"]}})


def m_nearest_interp(model):
    xa = randn(model, "x", (1, 2, 3, 3))
    x5a = randn(model, "x5", (1, 1, 2, 2, 2))
    x = data("x", xa)
    x5 = data("x5", x5a)
    a = F.interpolate(x, scale_factor=1.5, mode="nearest")
    b = F.interpolate(x5, scale_factor=[2.0, 1.5, 1.5], mode="nearest")
    return ([("x", xa), ("x5", x5a)], [a, b],
            {"patches": {4: ["scale"]}})


def m_trilinear_interp(model):
    xa = randn(model, "x", (1, 1, 2, 3, 3))
    x = data("x", xa)
    return ([("x", xa)], [F.interpolate(x, scale_factor=1.5, mode="trilinear")],
            {"patches": {4: ["scale"]}})


def m_p_norm(model):
    """Not patched by Paddle 3.3.1 (its upstream 4.yaml's porder patch is not in the wheel):
    porder stays a FloatAttribute; a control case for the oracle."""
    xa = randn(model, "x", (2, 5))
    x = data("x", xa)
    return [("x", xa)], [paddle.linalg.norm(x, p=3.0, axis=1)], {"patches": {}}


MODELS = ["lp_pool2d", "pool2d", "pool3d", "expand_as", "kthvalue", "repeat_interleave",
          "repeat_interleave_with_tensor_index", "leaky_relu", "softplus", "logit", "pad3d",
          "group_norm", "linear_interp", "bilinear_interp", "bicubic_interp", "nearest_interp",
          "trilinear_interp", "p_norm"]

# Ops named by Paddle's patches that no model here builds, and why (recorded in the log).
_NO_CPU_KERNEL = ("the CPU wheel cannot build it: op construction checks the input dtype "
                  "against the registered kernels and there is none on CPU ('Check data type "
                  "error for op: {op}, input: {arg}, ... expected_dtype: ' with float32, float16 "
                  "and bfloat16 inputs; seen in 3.3.1)")
NOT_BUILT = {
    "pd_op.top_p_sampling": _NO_CPU_KERNEL.format(op="top_p_sampling", arg="x"),
    "pd_op.moe_permute": "Python API from 3.2 only; " + _NO_CPU_KERNEL.format(
        op="moe_permute", arg="hidden_states"),
    "pd_op.moe_unpermute": "needs moe_permute's results (see pd_op.moe_permute)",
    "pd_op.add_group_norm_silu": "fused op made by a GPU fusion pass, no Python API",
    "pd_op.group_norm_silu_xpu": "XPU-only op made by an XPU fusion pass, no Python API",
    "onednn_op.fused_softplus": "oneDNN dialect op made by a oneDNN fusion pass, not by Python",
}

for _name in MODELS:
    setattr(gf, "m_" + _name, globals()["m_" + _name])


# -- running ------------------------------------------------------------------------------------

def child(args):
    if args.one:
        try:
            r = gf.gen_one_3x(args.one, args.outdir, PADDLE_VERSION)
        except Exception as e:
            r = {"ok": False, "build_error": err(e), "traceback": traceback.format_exc()[-3000:]}
    else:
        try:
            r = crossload_one(args.crossload_one, args.src_dir, args.outdir, args.from_ver)
        except Exception as e:
            r = {"ok": False, "error": err(e), "traceback": traceback.format_exc()[-3000:]}
    with open(args.result, "w") as f:
        json.dump(r, f)


def isolated(extra):
    """Each model in its own process: PIR uniques attributes per process (gen_fixtures.py)."""
    with tempfile.TemporaryDirectory() as td:
        res = os.path.join(td, "log.json")
        cp = subprocess.run([sys.executable, os.path.abspath(__file__), *extra, "--result", res],
                            capture_output=True, text=True)
        if os.path.exists(res):
            with open(res) as f:
                return json.load(f)
        return {"ok": False, "child_error": f"exit {cp.returncode}: {cp.stderr[-3000:]}"}


def compare(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        return "shape/dtype differ"
    if a.tobytes() == b.tobytes():
        return "bitexact"
    if np.issubdtype(a.dtype, np.number) and np.allclose(a, b, rtol=1e-5, atol=1e-6,
                                                          equal_nan=True):
        return f"allclose (max abs diff {float(np.max(np.abs(a - b))):.3g})"
    return "mismatch"


def crossload_one(name, src_dir, outdir, from_ver):
    from paddle.base import core
    log = {"ok": False}
    prefix = os.path.join(src_dir, f"{name}.{from_ver}")
    if not os.path.exists(prefix + ".json"):
        return {"ok": False, "error": "no source JSON"}
    io = dict(np.load(prefix + ".io.npz"))
    place = paddle.CPUPlace()
    scope = paddle.static.Scope()
    base = os.path.join(outdir, f"{name}.{from_ver}-loaded-in-{NEWEST}")
    with paddle.static.scope_guard(scope):
        exe = paddle.static.Executor(place)
        prog, feed_names, fetch_targets = paddle.static.load_inference_model(prefix, exe)
        with open(base + ".pir.txt", "w") as f:
            f.write(str(prog))
        core.serialize_pir_program(prog, base + ".json", True, False, True)
        log["feed_names"] = list(feed_names)
        try:
            outs = exe.run(prog, feed={n: io[f"in__{n}"] for n in feed_names},
                           fetch_list=fetch_targets)
        except Exception as e:
            log["run_error"] = err(e)
            outs = None
    if outs is not None:
        np.savez(base + ".out.npz", **{f"out__{i}": np.asarray(a) for i, a in enumerate(outs)})
        log["vs_source"] = [compare(a, io[f"out__{i}"]) if f"out__{i}" in io else "absent"
                            for i, a in enumerate(outs)]
        native = os.path.join(os.path.dirname(src_dir), NEWEST, f"{name}.{NEWEST}.io.npz")
        if os.path.exists(native):
            nat = dict(np.load(native))
            log["vs_native_3.3.1"] = [compare(a, nat[f"out__{i}"]) if f"out__{i}" in nat
                                      else "absent" for i, a in enumerate(outs)]
    log["ok"] = "run_error" not in log
    return log


def write_log(path, entries, extra):
    full = {"paddle_version": PADDLE_VERSION, "commit": getattr(paddle.version, "commit", None),
            "numpy_version": np.__version__, "python": sys.version.split()[0],
            "date_utc": time.strftime("%Y-%m-%d", time.gmtime()), **extra, "models": {}}
    if os.path.exists(path):
        with open(path) as f:
            full["models"] = json.load(f).get("models", {})
    full["models"].update(entries)
    full["models"] = dict(sorted(full["models"].items()))
    with open(path, "w") as f:
        json.dump(full, f, indent=1)
        f.write("\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", help="e.g. tests/fixtures/patchops")
    ap.add_argument("--models", nargs="*", help="subset of models")
    ap.add_argument("--crossload", nargs="*", metavar="FROM",
                    help="(3.3.1) load OUT/FROM/*.json and re-serialize them")
    for hidden in ("--one", "--outdir", "--result", "--crossload-one", "--src-dir",
                   "--from-ver"):
        ap.add_argument(hidden, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.result:
        return child(args)
    if not args.out:
        ap.error("--out is required")
    models = [m for m in MODELS if not args.models or m in args.models]
    if args.crossload:
        if PADDLE_VERSION != NEWEST:
            ap.error(f"--crossload needs paddle {NEWEST}, this is {PADDLE_VERSION}")
        outdir = os.path.join(args.out, "crossload")
        os.makedirs(outdir, exist_ok=True)
        entries = {}
        for ver in args.crossload:
            src = os.path.join(args.out, ver)
            for m in models:
                key = f"{m}.{ver}"
                entries[key] = isolated(["--crossload-one", m, "--src-dir", src,
                                         "--outdir", outdir, "--from-ver", ver])
                print(key, json.dumps(entries[key])[:300], flush=True)
        write_log(os.path.join(outdir, "crossload_log.json"), entries,
                  {"what": "FROM files loaded by load_inference_model in 3.3.1, re-serialized "
                           "with core.serialize_pir_program(prog, path, True, False, True)"})
        return
    outdir = os.path.join(args.out, PADDLE_VERSION)
    os.makedirs(outdir, exist_ok=True)
    entries = {}
    for m in models:
        entries[m] = isolated(["--one", m, "--outdir", outdir])
        print(m, json.dumps({k: v for k, v in entries[m].items()
                             if k.endswith("error") or k in ("ok", "saved_files")})[:400],
              flush=True)
    write_log(os.path.join(outdir, f"gen_log.{PADDLE_VERSION}.json"), entries,
              {"note": "each model is built in its own process", "not_built": NOT_BUILT})


if __name__ == "__main__":
    main()
