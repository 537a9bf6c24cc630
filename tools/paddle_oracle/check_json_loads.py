#!/usr/bin/env python3
"""Prove that real Paddle loads (and runs) a PIR JSON program.

Run with a Paddle 3.x scratch venv's python (paddlepaddle is never a pirc dependency):

    /tmp/pd331/bin/python tools/paddle_oracle/check_json_loads.py \
        --json X.json [--params X.pdiparams] --inputs X.io.npz \
        [--expect-outputs Y.npz] [--expect-key out__] [--report out.json] \
        [--dump-text loaded.pir.txt] [--save-outputs got.npz] [--rtol 1e-5 --atol 1e-6]

Steps: copies the .json (and .pdiparams, if any) into a temp dir as model.json /
model.pdiparams, calls paddle.static.load_inference_model(<tmp>/model, exe) in a fresh scope,
feeds `in__<feed name>` arrays from --inputs in the program's feed order, runs, and compares
output i against `<expect-key><i>` from --expect-outputs (default: the --inputs file).
Prints one verdict line and writes a JSON report.

Verdicts: BITEXACT, ALLCLOSE, MISMATCH, RAN (no expected arrays found), LOAD_FAIL, RUN_FAIL,
INPUT_MISSING, PRINT_FAIL (only with --dump-text). Exit status: 0 for BITEXACT/ALLCLOSE/RAN, 1 otherwise.
NaNs compare equal (allclose uses equal_nan=True; bit-exact compares the raw bytes).
"""
import argparse
import json
import os
import shutil
import sys
import tempfile
import time
import warnings


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", required=True)
    ap.add_argument("--params", help=".pdiparams (omit for a program without parameters)")
    ap.add_argument("--inputs", required=True, help="npz with in__<feed name> arrays")
    ap.add_argument("--expect-outputs", help="npz with expected outputs (default: --inputs)")
    ap.add_argument("--expect-key", default="out__",
                    help="key prefix of expected output i (default out__; the shared corpus "
                         "uses reload_out__ for the saved program's outputs)")
    ap.add_argument("--report", help="write a JSON report here")
    ap.add_argument("--dump-text", help="write str(loaded program) here")
    ap.add_argument("--save-outputs", help="write the outputs (out__<i>) to this npz")
    ap.add_argument("--rtol", type=float, default=1e-5)
    ap.add_argument("--atol", type=float, default=1e-6)
    args = ap.parse_args()

    import numpy as np
    import paddle
    paddle.enable_static()

    rep = {"paddle_version": paddle.__version__, "json": os.path.abspath(args.json),
           "params": os.path.abspath(args.params) if args.params else None,
           "inputs": os.path.abspath(args.inputs), "expect_key": args.expect_key}
    t0 = time.time()
    with open(args.json) as f:
        try:
            base = json.load(f).get("base_code", {})
            rep["json_pir_version"] = base.get("version")
        except Exception as e:  # non-standard JSON (NaN literal etc.): Paddle may still read it
            rep["json_python_parse_error"] = f"{type(e).__name__}: {e}"

    def finish(verdict, code):
        rep["verdict"] = verdict
        rep["secs"] = round(time.time() - t0, 3)
        line = f"{verdict}: {os.path.basename(args.json)} (paddle {paddle.__version__})"
        if "detail" in rep:
            line += f" {rep['detail']}"
        print(line)
        if args.report:
            with open(args.report, "w") as f:
                json.dump(rep, f, indent=1)
                f.write("\n")
        sys.exit(code)

    inputs = dict(np.load(args.inputs))
    exp_path = args.expect_outputs or args.inputs
    expected = dict(np.load(exp_path))
    rep["expect_outputs"] = os.path.abspath(exp_path)

    place = paddle.CPUPlace()
    with tempfile.TemporaryDirectory() as td:
        prefix = os.path.join(td, "model")
        shutil.copy(args.json, prefix + ".json")
        if args.params:
            shutil.copy(args.params, prefix + ".pdiparams")
        scope = paddle.static.Scope()
        with paddle.static.scope_guard(scope):
            exe = paddle.static.Executor(place)
            try:
                prog, feed_names, fetch_targets = paddle.static.load_inference_model(prefix, exe)
            except Exception as e:
                rep["error"] = f"{type(e).__name__}: {str(e).strip()[:3000]}"
                rep["detail"] = rep["error"].splitlines()[0][:200]
                finish("LOAD_FAIL", 1)
            rep["feed_names"] = list(feed_names)
            rep["num_fetch"] = len(fetch_targets)
            rep["num_ops"] = len(prog.global_block().ops)
            if args.dump_text:
                try:
                    text = str(prog)
                except Exception as e:
                    rep["error"] = f"{type(e).__name__}: {str(e).strip()[:3000]}"
                    rep["detail"] = "print failed: " + rep["error"].splitlines()[0][:200]
                    finish("PRINT_FAIL", 1)
                with open(args.dump_text, "w") as f:
                    f.write(text)
            missing = [n for n in feed_names if f"in__{n}" not in inputs]
            if missing:
                rep["detail"] = f"missing inputs {missing}"
                finish("INPUT_MISSING", 1)
            feed = {n: inputs[f"in__{n}"] for n in feed_names}
            try:
                outs = exe.run(prog, feed=feed, fetch_list=fetch_targets)
            except Exception as e:
                rep["error"] = f"{type(e).__name__}: {str(e).strip()[:3000]}"
                rep["detail"] = rep["error"].splitlines()[0][:200]
                finish("RUN_FAIL", 1)
    outs = [np.asarray(o) for o in outs]
    if args.save_outputs:
        np.savez(args.save_outputs, **{f"out__{i}": o for i, o in enumerate(outs)})

    per = []
    n_cmp = n_bit = n_close = 0
    for i, got in enumerate(outs):
        ent = {"i": i, "shape": list(got.shape), "dtype": str(got.dtype)}
        if got.dtype.kind in "fc":
            ent["nan_count"] = int(np.isnan(got).sum())
            ent["inf_count"] = int(np.isinf(got).sum())
        key = f"{args.expect_key}{i}"
        if key in expected:
            exp = expected[key]
            n_cmp += 1
            ent["expected_shape"] = list(exp.shape)
            ent["expected_dtype"] = str(exp.dtype)
            same_meta = exp.shape == got.shape and exp.dtype == got.dtype
            ent["bitexact"] = bool(same_meta and exp.tobytes() == got.tobytes())
            try:
                close = exp.shape == got.shape and bool(np.allclose(
                    got, exp, rtol=args.rtol, atol=args.atol, equal_nan=True))
            except TypeError:
                close = bool(exp.shape == got.shape and np.array_equal(got, exp))
            ent["allclose"] = close
            if not close and exp.shape == got.shape and got.dtype.kind in "fciu":
                with np.errstate(invalid="ignore"), warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    d = np.abs(got.astype("complex128") - exp.astype("complex128"))
                ent["max_abs_diff"] = float(np.nanmax(d)) if d.size else 0.0
            n_bit += ent["bitexact"]
            n_close += close
        per.append(ent)
    rep["outputs"] = per
    rep["num_compared"] = n_cmp
    extra = sorted(k for k in expected if k.startswith(args.expect_key)
                   and k[len(args.expect_key):].isdigit()
                   and int(k[len(args.expect_key):]) >= len(outs))
    if extra:
        rep["expected_but_not_produced"] = extra
    rep["detail"] = f"{len(outs)} outputs, {n_cmp} compared, {n_bit} bit-exact, {n_close} allclose"
    if n_cmp == 0:
        finish("RAN", 0)
    if n_bit == n_cmp and not extra:
        finish("BITEXACT", 0)
    if n_close == n_cmp and not extra:
        finish("ALLCLOSE", 0)
    finish("MISMATCH", 1)


if __name__ == "__main__":
    main()
