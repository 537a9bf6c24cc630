#!/usr/bin/env python3
"""Real Paddle's outputs for programs that write values of an enclosing block inside `while`
bodies and `if` branches: tensor arrays (create_array before the loop, array_write_ in the
body, array_to_tensor / array_length / array_read after) and dense tensors written in place.

Run by hand from the repo root with a Paddle venv's python (paddlepaddle is never a pirc
dependency), once per release:

    /tmp/pd331/bin/python tools/paddle_oracle/gen_array_region_fixtures.py \
        [--out tests/fixtures/array_regions] [--models NAME ...]
    /tmp/pd300/bin/python tools/paddle_oracle/gen_array_region_fixtures.py

The programs are array_region_models.py: layers converted with `paddle.jit.to_static` and
saved with `paddle.jit.save` (what a user's decoding loop gives: Python lists appended to in
a tensor-bounded loop, nested loops included, become tensor arrays), and two programs built
with paddle.static and saved with `save_inference_model`.  Each model is built, saved, loaded back with
`load_inference_model` and run in a child process of its own (PIR uniques attributes per
process), with FLAGS_new_executor_sequential_run=1 (ops in program order:
tools/paddle_oracle/FINDINGS.md, e).  Every parameter is tools/zoo_weights.value(name, ...).

OUT/VER/ gets NAME.VER.json (the saved program), NAME.VER.pdiparams (where the model has
parameters; a few hundred bytes), NAME.VER.io.npz (`case<k>__in__<feed>`, `case<k>__out__<i>`
for each input case, in fetch order; `fetch_names`) and gen_log.VER.json (per model: Paddle's
version, the ops of the program and its regions, the cases, and any error).
tests/unit/test_array_regions.py holds pirc to these numbers.
"""
import argparse
import collections
import importlib.metadata
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
VERSION = importlib.metadata.version("paddlepaddle")


def _ops(program) -> dict:
    """Op name -> count over the whole program, regions included."""
    counts = collections.Counter()

    def walk(block):
        for op in block.ops:
            counts[op.name()] += 1
            for inner in op.blocks():  # an if's two blocks, a while's body
                walk(inner)

    walk(program.global_block())
    return dict(sorted(counts.items()))


def child(name: str, out_dir: str) -> None:
    """Build, save, load and run one model; writes its files and prints its log entry."""
    sys.path.insert(0, HERE)
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    import numpy as np
    import paddle
    import zoo_weights
    from array_region_models import MODELS

    build, specs, cases = MODELS[name]
    prefix = os.path.join(out_dir, f"{name}.{VERSION}")
    if specs is not None:
        layer = build()
        for pname, p in layer.named_parameters():
            p.set_value(zoo_weights.value(p.name, p.shape, str(p.dtype).split(".")[-1]))
        layer.eval()
        paddle.jit.save(paddle.jit.to_static(layer, input_spec=specs, full_graph=True), prefix)
    else:
        paddle.enable_static()
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            feeds, fetches = build()
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(startup)
        paddle.static.save_inference_model(prefix, feeds, fetches, exe, program=main)
        paddle.disable_static()

    paddle.enable_static()
    scope = paddle.static.Scope()
    arrays, log = {}, {"paddle": VERSION, "cases": len(cases), "errors": {}}
    with paddle.static.scope_guard(scope):
        exe = paddle.static.Executor(paddle.CPUPlace())
        prog, feed_names, fetch_targets = paddle.static.load_inference_model(prefix, exe)
        log["ops"] = _ops(prog)
        log["feeds"] = list(feed_names)
        for k, case in enumerate(cases):
            for feed in feed_names:
                arrays[f"case{k}__in__{feed}"] = case[feed]
            try:
                outs = exe.run(prog, feed={f: case[f] for f in feed_names}, fetch_list=fetch_targets)
            except Exception as e:  # recorded: the test skips nothing silently, it reads the log
                log["errors"][str(k)] = f"{type(e).__name__}: {str(e).strip()[-500:]}"
                continue
            for i, o in enumerate(outs):
                arrays[f"case{k}__out__{i}"] = np.asarray(o)
            log.setdefault("out_shapes", {})[str(k)] = [list(np.asarray(o).shape) for o in outs]
    arrays["fetch_names"] = np.array([f"out{i}" for i in range(len(fetch_targets))])
    np.savez_compressed(prefix + ".io.npz", **arrays)
    print("LOG " + json.dumps(log, sort_keys=True))


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3])
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.path.join(ROOT, "tests/fixtures/array_regions"))
    ap.add_argument("--models", nargs="*")
    args = ap.parse_args()
    sys.path.insert(0, HERE)
    out_dir = os.path.join(args.out, VERSION)
    os.makedirs(out_dir, exist_ok=True)
    log_path = os.path.join(out_dir, f"gen_log.{VERSION}.json")
    log = json.load(open(log_path)) if os.path.exists(log_path) else {}
    import ast
    with open(os.path.join(HERE, "array_region_models.py")) as f:  # names without importing paddle
        tree = ast.parse(f.read())
    names = [k.value for node in tree.body if isinstance(node, ast.Assign)
             and getattr(node.targets[0], "id", "") == "MODELS" for k in node.value.keys]
    failed = False
    for name in names:
        if args.models and name not in args.models:
            continue
        env = dict(os.environ, FLAGS_new_executor_sequential_run="1", GLOG_v="0")
        with tempfile.TemporaryDirectory() as td:
            run = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", name, out_dir],
                                 capture_output=True, text=True, env=env, cwd=td, timeout=600)
        lines = [ln for ln in run.stdout.splitlines() if ln.startswith("LOG ")]
        if run.returncode or not lines:
            log[name] = {"paddle": VERSION, "error": run.stderr.strip()[-2000:]}
            failed = True
        else:
            log[name] = json.loads(lines[-1][4:])
            failed |= bool(log[name]["errors"])
        print(name, json.dumps(log[name])[:300])
    with open(log_path, "w") as f:
        json.dump(dict(sorted(log.items())), f, indent=1, sort_keys=True)
        f.write("\n")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
