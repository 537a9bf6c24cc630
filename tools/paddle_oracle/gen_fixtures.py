#!/usr/bin/env python3
"""Generate real-Paddle PIR fixtures for pirc's tests.

Run with the python of a scratch venv that has paddlepaddle installed (never the repo's
environment; paddlepaddle is not a pirc dependency):

    /tmp/pd331/bin/python tools/paddle_oracle/gen_fixtures.py --out tests/fixtures/generated
    /tmp/pd300/bin/python tools/paddle_oracle/gen_fixtures.py --out tests/fixtures/generated
    /tmp/pd262/bin/python tools/paddle_oracle/gen_fixtures.py --out tests/fixtures/generated

For Paddle 3.x it writes, into OUT/VER/, per model NAME:
    NAME.VER.pir.txt         str(program) as built (no fetch ops)
    NAME.VER.json            save_inference_model program (fetch ops appended)
    NAME.VER.pdiparams       its parameters (only when the model has parameters)
    NAME.VER.loaded.pir.txt  the saved program loaded back with load_inference_model, printed
    NAME.VER.io.npz          in__<feed> inputs; out__<i> outputs of the loaded program;
                             built_out__<i> outputs of the program as built
    gen_log.VER.json         what happened per model (errors included)
For Paddle 2.6.2 (FLAGS_enable_pir_api=1 is set before importing paddle) it writes only the
printed text into OUT/2.6.2-text/ (2.6.2 cannot write the JSON format), and records whether
2.6.2's own text parser (paddle.base.libpaddle.pir.parse_program) round-trips the print.

Weights are deterministic by parameter name: numpy default_rng(crc32(name)), normal * 0.5,
cast to the parameter dtype. Inputs: default_rng(crc32("MODEL/feed")).
"""
import argparse
import importlib.metadata
import json
import os
import shutil
import sys
import tempfile
import time
import traceback
import zlib

PADDLE_VERSION = importlib.metadata.version("paddlepaddle")
IS_26 = PADDLE_VERSION.startswith("2.")
if IS_26:
    # Must happen before `import paddle` (FORMAT-NOTES section 2).
    os.environ["FLAGS_enable_pir_api"] = "1"

import numpy as np  # noqa: E402
import paddle  # noqa: E402

paddle.enable_static()

NAN = float("nan")
INF = float("inf")


def rng_for(key):
    return np.random.default_rng(zlib.crc32(key.encode("utf-8")))


def np_dtype(pd_dtype):
    s = str(pd_dtype).replace("paddle.", "")
    return {"bfloat16": "float32"}.get(s, s)


# ----------------------------------------------------------------------------------------------
# Models. Each builder runs inside program_guard and returns (feeds, fetches, info):
#   feeds: list of (name, ndarray) in feed order (paddle.static.data created by the builder)
#   fetches: list of values to fetch
#   info: dict of notes for the log; info["save"] = False means print only
# ----------------------------------------------------------------------------------------------

def data(name, arr, shape=None):
    shape = list(arr.shape) if shape is None else shape
    return paddle.static.data(name, shape, str(arr.dtype))


def m_vecops(model):
    r = rng_for(model + "/x")
    xa = r.standard_normal((2, 4, 6)).astype("float32")
    ya = rng_for(model + "/y").standard_normal((2, 4, 6)).astype("float32")
    x = data("x", xa, [-1, 4, 6])
    y = data("y", ya, [-1, 4, 6])
    lin = paddle.nn.Linear(6, 6)
    z = lin(x)
    c = paddle.concat([x, z], axis=2)                      # builtin.combine + pd_op.concat
    a, b = paddle.split(c, [5, 7], axis=2)                 # pd_op.split + builtin.split
    s = paddle.stack([x, y], axis=1)                       # pd_op.stack
    u0, u1 = paddle.unbind(s, axis=1)                      # pd_op.unbind + builtin.split
    e = paddle.einsum("bij,bkj->bik", u0, u1)              # pd_op.einsum (vec results)
    n = paddle.add_n([u0, u1, z])                          # pd_op.add_n (vec operand)
    return [("x", xa), ("y", ya)], [a, b, e, s, n], {}


def m_floats(model):
    xa = rng_for(model + "/x").standard_normal((2, 3)).astype("float32")
    x = data("x", xa)
    lin = paddle.nn.Linear(3, 3)
    h = lin(x)
    outs = [
        paddle.full([2], INF, "float32"),
        paddle.full([2], -INF, "float32"),
        paddle.full([2], 1e30, "float32"),
        paddle.full([2], -1e30, "float32"),
        paddle.full([2], 3.4e38, "float32"),
        paddle.full([2], 1e-30, "float32"),
        paddle.full([2], 1.23456789e8, "float64"),
        paddle.full([2], 123456789, "int64"),
        paddle.full([2], 0.1, "float64"),
        paddle.full([2], -0.0, "float32"),
        paddle.scale(h, scale=0.1, bias=1e-30),             # scale.bias is f32
        paddle.scale(h, scale=3.0, bias=1.23456789e8),
        paddle.clip(h, min=-1e30, max=3.4e38),
        paddle.nn.functional.leaky_relu(h, negative_slope=0.02),
        paddle.pow(paddle.abs(h), 1.7),
        paddle.nn.functional.elu(h, alpha=0.3),
        paddle.nn.functional.softplus(h, beta=1.7, threshold=15.0),
        paddle.nn.functional.hardtanh(h, min=-0.1, max=0.7),
        paddle.nn.functional.gelu(h, approximate=True),
        paddle.scale(h, scale=2.0, bias=INF),               # f32 attribute = +inf
        paddle.full([2], INF, "float64"),                  # inf vs DBL_MAX visible in f64
        paddle.full([2], -INF, "float64"),
    ]
    return [("x", xa)], outs, {}


def m_nan_attr(model):
    xa = rng_for(model + "/x").standard_normal((2, 3)).astype("float32")
    x = data("x", xa)
    f_nan = paddle.full([2, 3], NAN, "float32")           # full.value (f64) = NaN
    f_inf = paddle.full([2, 3], INF, "float32")           # full.value (f64) = +inf
    f_ninf = paddle.full([2, 3], -INF, "float32")         # full.value (f64) = -inf
    o1 = x + f_nan
    o2 = paddle.maximum(x, f_inf)
    o3 = paddle.minimum(x, f_ninf)
    f64_nan = paddle.full([2], NAN, "float64")
    f64_inf = paddle.full([2], INF, "float64")
    return [("x", xa)], [o1, o2, o3, f_nan, f64_nan, f64_inf], {}


def m_nan_f32(model):
    """NaN in a float (0.a_f32) attribute rather than a double one."""
    xa = rng_for(model + "/x").standard_normal((2, 3)).astype("float32")
    x = data("x", xa)
    # scale=2.0, not 1.0: save_inference_model treats a fetched scale(x, 1.0) as its own
    # identity wrapper and fetches x instead (seen in 3.0.0 and 3.3.1).
    o1 = paddle.scale(x, scale=2.0, bias=NAN)             # scale.bias: f32 NaN
    o2 = paddle.scale(x, scale=2.0, bias=-INF)            # scale.bias: f32 -inf
    return [("x", xa)], [o1, o2], {}


def m_halfs(model):
    xa = rng_for(model + "/x").standard_normal((2, 3)).astype("float32") * 3
    x = data("x", xa)
    w16 = paddle.create_parameter([3], "float16", name="halfs_w16")
    w64 = paddle.create_parameter([3], "float64", name="halfs_w64")
    # CPU kernels mostly lack float16 math: keep f16 values in casts and a parameter.
    h = paddle.cast(paddle.cast(x, "float16"), "float32") * paddle.cast(w16, "float32")
    bf = paddle.cast(x, "bfloat16")
    outs = [
        h,
        paddle.cast(x, "float16"),
        paddle.cast(paddle.cast(bf, "float32") + 1.0, "float32"),
        paddle.cast(paddle.cast(x, "float64") * w64, "float32"),
        paddle.cast(x, "int8"),
        paddle.cast(paddle.abs(x), "uint8"),
        paddle.cast(x, "int16"),
        paddle.cast(x, "int32"),
        paddle.cast(x, "int64"),
        paddle.cast(x, "bool"),
        paddle.full([2], 1.5, "float16"),
        paddle.cast(paddle.full([2], 1.5, "bfloat16"), "float32"),
        paddle.full([2], 7, "int8"),
        paddle.full([2], 200, "uint8"),
        paddle.full([2], -300, "int16"),
        paddle.full([2], True, "bool"),
        paddle.full([2], 0.25, "float64"),
        paddle.sum(x),                                     # pd_op.sum dtype Undefined
        paddle.sum(x, dtype="float64"),
        paddle.sum(paddle.cast(x, "int32"), dtype="int64"),
    ]
    return [("x", xa)], outs, {}


def m_complex(model):
    xa = rng_for(model + "/x").standard_normal((2, 3)).astype("float32")
    ya = rng_for(model + "/y").standard_normal((2, 3)).astype("float32")
    x = data("x", xa)
    y = data("y", ya)
    c = paddle.complex(x, y)                               # tensor<2x3xc64>
    c2 = c * c
    outs = [c2, paddle.real(c2), paddle.imag(c2), paddle.abs(c2),
            paddle.cast(paddle.cast(x, "float64"), "complex128"),
            paddle.cast(x, "complex64"),                   # dtype attr "complex64"
            paddle.full([2], 1 + 2j, "complex64")]          # Python API: full re + full im + complex
    return [("x", xa), ("y", ya)], outs, {}


def m_tensor_array(model):
    xa = rng_for(model + "/x").standard_normal((2, 3)).astype("float32")
    x = data("x", xa)
    arr = paddle.tensor.create_array("float32")
    i0 = paddle.zeros([1], "int64")
    i1 = paddle.ones([1], "int64")
    arr = paddle.tensor.array_write(x, i0, array=arr)
    arr = paddle.tensor.array_write(paddle.exp(x), i1, array=arr)
    r0 = paddle.tensor.array_read(arr, i0)
    r1 = paddle.tensor.array_read(arr, i1)
    n = paddle.tensor.array_length(arr)
    return [("x", xa)], [r0 + r1, n], {}


def m_pylayer(model):
    if not hasattr(paddle.static.nn, "static_pylayer"):
        raise RuntimeError("paddle.static.nn.static_pylayer does not exist in this version")
    xa = rng_for(model + "/x").standard_normal((2, 3)).astype("float32")
    x = data("x", xa)

    def fwd(a):
        return paddle.tanh(a) * 2.0

    def bwd(dy):
        return dy * 2.0

    p = paddle.static.nn.static_pylayer(fwd, [x], backward_fn=bwd)
    return [("x", xa)], [p + 1.0], {}


def m_optional(model):
    """Optional inputs absent (<<NULL VALUE>> / {"%":0})."""
    xa = rng_for(model + "/x").standard_normal((2, 4, 6)).astype("float32")
    x = data("x", xa)
    ln = paddle.nn.functional.layer_norm(x, normalized_shape=[6], weight=None, bias=None,
                                         epsilon=1e-5)
    ln2 = paddle.nn.LayerNorm(6)(x)                        # with scale and bias
    d = paddle.nn.functional.dropout(x, p=0.5, training=False)
    gn = paddle.nn.functional.group_norm(paddle.reshape(x, [2, 4, 6, 1]), num_groups=2,
                                         epsilon=1e-5, weight=None, bias=None)
    return [("x", xa)], [ln, ln2, d, gn], {}


def m_selected_rows(model):
    """A data op retyped to selected_rows (print + save; running needs a SelectedRows feed)."""
    from paddle.base import libpaddle
    xa = rng_for(model + "/x").standard_normal((4, 3)).astype("float32")
    x = data("x", xa)
    x.set_type(libpaddle.pir.create_selected_rows_type_by_dense_tensor(x.type()))
    m = paddle._pir_ops.merge_selected_rows(x)
    t = paddle._pir_ops.get_tensor_from_selected_rows(m)
    return [("x", xa)], [t * 2.0], {"run": False}


def m_sparse_coo(model):
    """Sparse COO values between dense feeds and fetches (tests/unit/test_sparse_types.py):
    the types print as `pd_op.sparsecootensor<4x3xf32>` and save as `1.t_sparse_coo_tensor`.
    (CSR is absent: Paddle's dense_to_csr_sp InferMeta segfaults in static mode.)"""
    xa = rng_for(model + "/x").standard_normal((4, 3)).astype("float32")
    xa[xa < 0.3] = 0.0  # some zeros, so the COO form is really sparse
    x = data("x", xa)
    s = paddle._C_ops.sparse_to_sparse_coo(x, 2)
    a = paddle._C_ops.sparse_abs(s)
    b = paddle._C_ops.sparse_add(a, s)
    out = paddle._C_ops.sparse_to_dense(b)
    vals = paddle._C_ops.sparse_values(b)
    idx = paddle._C_ops.sparse_indices(b)
    return [("x", xa)], [out, vals, idx], {}


def m_control_flow(model):
    xa = rng_for(model + "/x").standard_normal((2, 3)).astype("float32")
    x = data("x", xa)
    s = paddle.mean(x)
    zero = paddle.full([], 0.0, "float32")
    pred = paddle.greater_than(s, zero)
    out = paddle.static.nn.cond(pred, lambda: paddle.exp(x), lambda: paddle.tanh(x))
    i = paddle.full([1], 0, "int64")
    ten = paddle.full([1], 3, "int64")

    def cond_fn(i, v):
        return paddle.less_than(i, ten)

    def body_fn(i, v):
        return [i + 1, v * 1.5]

    i2, v2 = paddle.static.nn.while_loop(cond_fn, body_fn, [i, out])
    return [("x", xa)], [out, i2, v2], {}


MODELS_3X = ["vecops", "floats", "nan_attr", "nan_f32", "halfs", "complex", "tensor_array",
             "pylayer", "optional", "selected_rows", "sparse_coo", "control_flow"]
MODELS_26 = ["control_flow", "vecops", "floats"]


# ----------------------------------------------------------------------------------------------

def list_params(prog):
    try:
        return list(prog.global_block().all_parameters())
    except Exception:
        return []


def set_params(prog, scope, place):
    out = []
    for p in list_params(prog):
        name = p.name
        shape = [int(d) for d in p.shape]
        dt = str(p.dtype).replace("paddle.", "")
        arr = (rng_for(name).standard_normal(shape) * 0.5).astype(np_dtype(dt))
        var = scope.find_var(name)
        if var is None:
            out.append({"name": name, "shape": shape, "dtype": dt, "set": False})
            continue
        var.get_tensor().set(arr, place)
        out.append({"name": name, "shape": shape, "dtype": dt, "set": True})
    return out


def op_names(prog):
    names = []

    def walk(block):
        for op in block.ops:
            names.append(op.name())
            try:
                subs = op.blocks()
            except Exception:
                subs = []
            for b in subs:
                walk(b)
    walk(prog.global_block())
    return names


def arr_meta(a):
    a = np.asarray(a)
    return {"shape": list(a.shape), "dtype": str(a.dtype)}


def bitexact(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    return a.tobytes() == b.tobytes()


def err(e):
    return f"{type(e).__name__}: {str(e).strip()[:2000]}"


def gen_one_3x(name, outdir, ver):
    log = {"ok": False}
    t0 = time.time()
    place = paddle.CPUPlace()
    main, start = paddle.static.Program(), paddle.static.Program()
    scope = paddle.static.Scope()
    with paddle.static.scope_guard(scope), paddle.utils.unique_name.guard():
        with paddle.static.program_guard(main, start):
            feeds, fetches, info = globals()["m_" + name](name)
        log.update({k: v for k, v in info.items()})
        txt = str(main)
        with open(os.path.join(outdir, f"{name}.{ver}.pir.txt"), "w") as f:
            f.write(txt)
        log["num_ops_main"] = len(main.global_block().ops)
        log["ops_main"] = sorted(set(op_names(main)))
        log["feed_order"] = [n for n, _ in feeds]
        exe = paddle.static.Executor(place)
        exe.run(start)
        log["params"] = set_params(main, scope, place)
        feed = {n: a for n, a in feeds}
        built = None
        # return_numpy=False: fetch DenseTensors (an output with a LoD, which exe.run refuses
        # to turn into numpy) and convert them here
        rn = info.get("return_numpy", True)
        if info.get("run", True):
            try:
                built = exe.run(main, feed=feed, fetch_list=fetches, return_numpy=rn)
                if not rn:
                    built = [np.array(a) for a in built]
                log["built_out"] = [arr_meta(a) for a in built]
            except Exception as e:
                log["built_run_error"] = err(e)
        if info.get("save", True):
            feed_vars = [v for v in main.global_block().ops if v.name() == "pd_op.data"]
            feed_vals = [op.result(0) for op in feed_vars]
            with tempfile.TemporaryDirectory() as td:
                prefix = os.path.join(td, f"{name}.{ver}")
                try:
                    # save_kwargs: e.g. skip_prune_program for an op with no result
                    # (pd_op.assert), which pruning to the fetches would drop
                    paddle.static.save_inference_model(prefix, feed_vals, fetches, exe,
                                                       program=main,
                                                       **info.get("save_kwargs", {}))
                except Exception as e:
                    log["save_error"] = err(e)
                    log["secs"] = round(time.time() - t0, 3)
                    return log
                saved = sorted(os.listdir(td))
                log["saved_files"] = saved
                for fn in saved:
                    shutil.copy(os.path.join(td, fn), os.path.join(outdir, fn))
                # load back in a fresh scope
                scope2 = paddle.static.Scope()
                with paddle.static.scope_guard(scope2):
                    exe2 = paddle.static.Executor(place)
                    try:
                        prog2, feed_names, fetch_targets = paddle.static.load_inference_model(
                            prefix, exe2)
                    except Exception as e:
                        log["load_error"] = err(e)
                        npz = {f"in__{n}": a for n, a in feeds}
                        for i, a in enumerate(built or []):
                            npz[f"built_out__{i}"] = np.asarray(a)
                        np.savez(os.path.join(outdir, f"{name}.{ver}.io.npz"), **npz)
                        log["secs"] = round(time.time() - t0, 3)
                        return log
                    with open(os.path.join(outdir, f"{name}.{ver}.loaded.pir.txt"), "w") as f:
                        f.write(str(prog2))
                    log["loaded_feed_names"] = list(feed_names)
                    log["num_ops_loaded"] = len(prog2.global_block().ops)
                    npz = {f"in__{n}": a for n, a in feeds}
                    if info.get("run", True):
                        try:
                            outs = exe2.run(prog2, feed={n: feed[n] for n in feed_names},
                                            fetch_list=fetch_targets, return_numpy=rn)
                            if not rn:
                                outs = [np.array(a) for a in outs]
                        except Exception as e:
                            log["loaded_run_error"] = err(e)
                            outs = None
                        if outs is not None:
                            for i, a in enumerate(outs):
                                npz[f"out__{i}"] = np.asarray(a)
                            log["loaded_out"] = [arr_meta(a) for a in outs]
                            if built is not None:
                                log["reload_bitexact_vs_built"] = [
                                    bitexact(a, b) for a, b in zip(outs, built)]
                    if built is not None:
                        for i, a in enumerate(built):
                            npz[f"built_out__{i}"] = np.asarray(a)
                    np.savez(os.path.join(outdir, f"{name}.{ver}.io.npz"), **npz)
    log["ok"] = not any(k.endswith("_error") for k in log)
    log["secs"] = round(time.time() - t0, 3)
    return log


def gen_one_26(name, outdir, ver):
    log = {"ok": False}
    main, start = paddle.static.Program(), paddle.static.Program()
    with paddle.utils.unique_name.guard():
        with paddle.static.program_guard(main, start):
            feeds, fetches, info = globals()["m_" + name](name)
    txt = str(main)
    with open(os.path.join(outdir, f"{name}.{ver}.pir.txt"), "w") as f:
        f.write(txt)
    log["num_ops_main"] = len(main.global_block().ops)
    log["feed_order"] = [n for n, _ in feeds]
    try:
        from paddle.base.libpaddle import pir as lpir
        p2 = lpir.parse_program(txt)
        log["parse_program_roundtrip_equal"] = (str(p2) == txt)
    except Exception as e:
        log["parse_program_error"] = err(e)
    log["ok"] = True
    return log


def m_negzero(model):
    """-0.0 in double and float attributes. PIR uniques attributes per process and -0.0 == 0.0
    there, so whichever of 0.0 / -0.0 is created first in the process is what every later
    op gets; this model has no parameters (no startup `full(0.0)`) and creates -0.0 first."""
    xa = rng_for(model + "/x").standard_normal((2, 3)).astype("float32")
    a = paddle.full([2], -0.0, "float32")                 # 0.a_f64 -0.0
    b = paddle.full([2], -0.0, "float64")
    x = data("x", xa)
    c = paddle.scale(x, scale=1.0, bias=-0.0)              # 0.a_f32 -0.0
    d = paddle.full([2], 0.0, "float32")                   # same attribute as -0.0 (uniqued)
    return [("x", xa)], [a, b, c, d], {}


MODELS_3X.append("negzero")


def run_isolated(m, outdir, ver, fn):
    """Run one model in a child process: PIR attribute uniquing is process-global (see
    m_negzero), so a model's print must not depend on which models ran before it."""
    import subprocess
    with tempfile.TemporaryDirectory() as td:
        res = os.path.join(td, "log.json")
        cp = subprocess.run([sys.executable, os.path.abspath(__file__), "--one", m,
                             "--outdir", outdir, "--result", res],
                            capture_output=True, text=True)
        if os.path.exists(res):
            with open(res) as f:
                return json.load(f)
        return {"ok": False, "child_error": f"exit {cp.returncode}: {cp.stderr[-3000:]}"}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", help="e.g. tests/fixtures/generated")
    ap.add_argument("--models", nargs="*", help="subset of models")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    ap.add_argument("--outdir", help=argparse.SUPPRESS)
    ap.add_argument("--result", help=argparse.SUPPRESS)
    args = ap.parse_args()
    ver = PADDLE_VERSION
    fn = gen_one_26 if IS_26 else gen_one_3x
    if args.one:
        try:
            r = fn(args.one, args.outdir, ver)
        except Exception as e:
            r = {"ok": False, "build_error": err(e), "traceback": traceback.format_exc()[-3000:]}
        with open(args.result, "w") as f:
            json.dump(r, f)
        return
    if not args.out:
        ap.error("--out is required")
    if IS_26:
        outdir = os.path.join(args.out, f"{ver}-text")
        models = MODELS_26
        assert paddle.framework.in_pir_mode(), "FLAGS_enable_pir_api did not take effect"
    else:
        outdir = os.path.join(args.out, ver)
        models = MODELS_3X
    if args.models:
        models = [m for m in models if m in args.models]
    os.makedirs(outdir, exist_ok=True)
    logpath = os.path.join(outdir, f"gen_log.{ver}.json")
    full = {"paddle_version": ver, "commit": getattr(paddle.version, "commit", None),
            "numpy_version": np.__version__, "python": sys.version.split()[0],
            "date_utc": time.strftime("%Y-%m-%d", time.gmtime()),
            "note": "each model is built in its own process", "models": {}}
    if args.models and os.path.exists(logpath):
        with open(logpath) as f:
            full["models"] = json.load(f).get("models", {})
    for m in models:
        print(f"== {m}", flush=True)
        full["models"][m] = run_isolated(m, outdir, ver, fn)
        print(json.dumps({k: v for k, v in full["models"][m].items()
                          if k.endswith("error") or k in ("ok", "saved_files")})[:600],
              flush=True)
    with open(logpath, "w") as f:
        json.dump(full, f, indent=1, sort_keys=False)
        f.write("\n")


if __name__ == "__main__":
    main()
