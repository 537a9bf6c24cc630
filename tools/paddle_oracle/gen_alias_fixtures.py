#!/usr/bin/env python3
"""Real Paddle 3.3.1's outputs for hand-written programs whose outputs depend on aliasing.

Run by hand from the repo root with a Paddle 3.3.1 venv's python (paddlepaddle is never a
pirc dependency); pirc itself runs in its own venv (`--pirc-python`, default .venv/bin/python):

    /work/venvs/pd331/bin/python tools/paddle_oracle/gen_alias_fixtures.py \
        [--dir tests/fixtures/aliasing] [--pirc-python .venv/bin/python] [--only NAME ...]

The programs are hand-written Paddle text at PIR version 4, `DIR/NAME.pir.txt`: in-place
writes (`assign_value_`, `relu_`, `scale_`, `add_`, `floor_`, training `batch_norm_`) read back
through every name of the written buffer, real views (`share_data`, `view_slice`) and the
`view:` ops Paddle's static executor copies (reshape, squeeze, unsqueeze, flatten) written
through either name, parameters (one 0-D) written in place, a written constant used as an
attribute operand, and `if` / `while` regions writing a value of the enclosing block (a tensor array too).  Written as text so that an aliasing no Paddle front end would build
(two `assign_value_` writing ONE `full`, the LLaMA mask after cse merged its two `to_tensor`
constants) really exists; Paddle then runs it itself.  Per program:

1. pirc (a child process in `--pirc-python`) writes the program as Paddle JSON, makes the
   inputs (default_rng(crc32("NAME/feed")): normal floats, coin-flip bools) and the
   parameters (default_rng(crc32("NAME/param")), normal) and writes them as `.pdiparams`;
2. Paddle (a child process of this python, one per program: PIR uniques attributes per
   process) loads the JSON with `load_inference_model` in a fresh scope and runs it twice in
   that scope, as Paddle's executor serves requests: a parameter written in place by run 1 is
   what run 2 reads.  The recorded run has FLAGS_new_executor_sequential_run=1 (ops in
   program order).  Paddle's default multi-threaded executor orders ops by a dependency graph
   that misses write-after-read through a second name of a buffer: in `chained_inplace` it
   runs `scale_(relu_result)` before an earlier `exp(original)` and its outputs change between
   runs; the log records where the default executor differs (`default_executor_differs_at`),
   which is only where the program order does not decide the value;
3. `DIR/NAME.npz` gets `in__<feed>`, `param__<name>` (the values before any run),
   `out__<i>` (run 1, in fetch `col` order), `run2_out__<i>` (run 2), and `fetch_names`.

`DIR/gen_log.json` records per program the Paddle version, the fetch names, the outputs where
run 2 differed from run 1 and where the default executor differed, and any error.  tests/unit/test_lowering_aliasing.py holds pirc's
lowering to these numbers.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

# Run in --pirc-python: text program -> Paddle JSON + inputs + parameters (.pdiparams).
PIRC_PREPARE = r"""
import json, sys, zlib
import numpy as np
import pirc
from pirc.ir.types import ELEMENT_TYPE_NAMES

src, json_out, npz_out, params_out, name = sys.argv[1:6]
program = pirc.load(src, from_version=4)
pirc.verify(program)
pirc.save(program, json_out)

def make(key, type_):
    rng = np.random.default_rng(zlib.crc32(key.encode()))
    shape = tuple(type_.shape)
    element = ELEMENT_TYPE_NAMES[type_.dtype]
    if element == "b":
        return rng.random(shape) < 0.5
    return rng.standard_normal(shape).astype({"f32": "float32", "f64": "float64"}[element])

arrays, params, fetches = {}, {}, []
for op in program.walk():
    if op.name == "pd_op.data":
        feed = op.attributes["name"].data
        arrays[f"in__{feed}"] = make(f"{name}/{feed}", op.results[0].type)
    elif op.name == "builtin.parameter":
        pname = op.attributes["parameter_name"].data
        params[pname] = make(f"{name}/{pname}", op.results[0].type)
        arrays[f"param__{pname}"] = params[pname]
    elif op.name == "pd_op.fetch":
        fetches.append((op.attributes["col"].value.data, op.attributes["name"].data))
if params:
    pirc.write_params(params_out, params, program)
arrays["fetch_names"] = np.array([n for _, n in sorted(fetches)])
np.savez(npz_out, **arrays)
"""


def run_paddle(json_path, params_path, npz_path, out_path):
    """Child process: load the JSON in Paddle, run it twice in one scope, save the outputs."""
    import shutil

    import numpy as np
    import paddle

    paddle.enable_static()
    inputs = dict(np.load(npz_path))
    with tempfile.TemporaryDirectory() as td:
        prefix = os.path.join(td, "model")
        shutil.copy(json_path, prefix + ".json")
        if os.path.exists(params_path):
            shutil.copy(params_path, prefix + ".pdiparams")
        scope = paddle.static.Scope()
        with paddle.static.scope_guard(scope):
            exe = paddle.static.Executor(paddle.CPUPlace())
            prog, feed_names, fetch_targets = paddle.static.load_inference_model(prefix, exe)
            feed = {n: inputs[f"in__{n}"] for n in feed_names}
            runs = [[np.array(o) for o in exe.run(prog, feed=feed, fetch_list=fetch_targets)]
                    for _ in range(2)]
    out = {f"out__{i}": o for i, o in enumerate(runs[0])}
    out.update({f"run2_out__{i}": o for i, o in enumerate(runs[1])})
    out["paddle_version"] = np.array(paddle.__version__)
    np.savez(out_path, **out)


def generate(name, args):
    import numpy as np

    src = os.path.join(args.dir, f"{name}.pir.txt")
    with tempfile.TemporaryDirectory() as td:
        json_path, npz_path = os.path.join(td, "p.json"), os.path.join(td, "in.npz")
        params_path, out_path = os.path.join(td, "p.pdiparams"), os.path.join(td, "out.npz")
        prep = subprocess.run([args.pirc_python, "-c", PIRC_PREPARE, src, json_path, npz_path,
                               params_path, name], capture_output=True, text=True)
        if prep.returncode:
            return {"error": "pirc: " + prep.stderr.strip()[-2000:]}
        results = []
        for sequential in ("1", "0"):
            env = dict(os.environ, FLAGS_new_executor_sequential_run=sequential, GLOG_v="0")
            child = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", json_path,
                                    params_path, npz_path, out_path], capture_output=True,
                                   text=True, env=env)
            if child.returncode:
                return {"error": "paddle: " + child.stderr.strip()[-2000:]}
            results.append(dict(np.load(out_path)))
        arrays = dict(np.load(npz_path))
        outs, default = results
    version = str(outs.pop("paddle_version"))
    arrays.update(outs)
    np.savez_compressed(os.path.join(args.dir, f"{name}.npz"), **arrays)
    n = sum(1 for k in outs if k.startswith("out__"))
    changed = [i for i in range(n) if outs[f"out__{i}"].tobytes() != outs[f"run2_out__{i}"].tobytes()]
    racy = [i for i in range(n) if any(outs[f"{k}{i}"].tobytes() != default[f"{k}{i}"].tobytes()
                                       for k in ("out__", "run2_out__"))]
    return {"paddle": version, "fetch_names": [str(s) for s in arrays["fetch_names"]],
            "run2_differs_at": changed, "default_executor_differs_at": racy}


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        run_paddle(*sys.argv[2:6])
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dir", default="tests/fixtures/aliasing")
    ap.add_argument("--pirc-python", default=".venv/bin/python")
    ap.add_argument("--only", nargs="*")
    args = ap.parse_args()
    names = sorted(f[:-len(".pir.txt")] for f in os.listdir(args.dir) if f.endswith(".pir.txt"))
    if args.only:
        names = [n for n in names if n in args.only]
    log_path = os.path.join(args.dir, "gen_log.json")
    log = json.load(open(log_path)) if os.path.exists(log_path) else {}
    for name in names:
        log[name] = generate(name, args)
        print(name, json.dumps(log[name])[:300])
    log = {k: log[k] for k in sorted(log) if os.path.exists(os.path.join(args.dir, f"{k}.pir.txt"))}
    with open(log_path, "w") as f:
        json.dump(log, f, indent=1, sort_keys=True)
        f.write("\n")
    sys.exit(1 if any("error" in v for v in log.values()) else 0)


if __name__ == "__main__":
    main()
