#!/usr/bin/env python3
"""A long-lived real-Paddle process that loads and runs many programs, one per request.

Run with a Paddle 3.x scratch venv's python (paddlepaddle is never a pirc dependency); the
driver (check_optimised_loads.py) starts one per job slot, so Paddle's ~1 s import is paid once
per slot instead of once per program.  Protocol: one JSON object per stdin line,

    {"json": "X.json", "params": "X.pdiparams" | null, "inputs": "X.npz", "save": "OUT.npz"}

and one stdout line per request, `@@RESULT {...}`: verdict RAN (outputs written to `save` as
out__<i>), LOAD_FAIL, RUN_FAIL or INPUT_MISSING, with `error`, `feed_names`, `num_fetch`,
`secs`.  Any other stdout line is Paddle's own chatter and is ignored by the driver.  A request
that kills the process (a segfault in a kernel) is seen by the driver as end of file: it records
CRASH and starts a new worker.

After each request every global flag a program changed is set back (`pd_op.enable_check_model_nan_inf`
turns on FLAGS_check_nan_inf for the whole process).  Every request loads its program afresh into a new Scope with a new Executor, as
check_json_loads.py does: parameters a program writes in place (Paddle's executor keeps such
writes in the scope across runs) never leak from one request into the next, so two requests
for the same program are two independent first runs.
"""
import json
import os
import shutil
import sys
import tempfile
import time
import traceback


def run_one(req, paddle, np):
    place = paddle.CPUPlace()
    with tempfile.TemporaryDirectory(prefix="pirc-pdw-") as td:
        prefix = os.path.join(td, "model")
        shutil.copy(req["json"], prefix + ".json")
        if req.get("params"):
            shutil.copy(req["params"], prefix + ".pdiparams")
        scope = paddle.static.Scope()
        with paddle.static.scope_guard(scope):
            exe = paddle.static.Executor(place)
            try:
                prog, feed_names, fetch_targets = paddle.static.load_inference_model(prefix, exe)
            except Exception as e:  # noqa: BLE001 -- every failure is a verdict
                return {"verdict": "LOAD_FAIL", "error": f"{type(e).__name__}: {str(e).strip()[:2000]}"}
            rep = {"feed_names": list(feed_names), "num_fetch": len(fetch_targets)}
            with np.load(req["inputs"]) as data:
                inputs = {k: data[k] for k in data.files}
            missing = [n for n in feed_names if f"in__{n}" not in inputs]
            if missing:
                return {**rep, "verdict": "INPUT_MISSING", "error": f"missing inputs {missing}"}
            feed = {n: inputs[f"in__{n}"] for n in feed_names}
            try:
                outs = exe.run(prog, feed=feed, fetch_list=fetch_targets)
            except Exception as e:  # noqa: BLE001
                return {**rep, "verdict": "RUN_FAIL", "error": f"{type(e).__name__}: {str(e).strip()[:2000]}"}
    np.savez(req["save"], **{f"out__{i}": np.asarray(o) for i, o in enumerate(outs)})
    return {**rep, "verdict": "RAN"}


def snapshot(flags) -> dict:
    """Every global flag Paddle exposes, name -> value."""
    got = {}
    for k in flags.keys():
        try:
            got[k] = flags[k]
        except Exception:  # noqa: BLE001 -- a flag that cannot be read is not ours to restore
            pass
    return got


def main():
    import warnings

    warnings.simplefilter("ignore")
    import numpy as np
    import paddle

    paddle.enable_static()
    flags = paddle.base.core.globals()
    initial = snapshot(flags)
    # the protocol gets a private copy of fd 1; fd 1 itself (what Python and C++ code print)
    # becomes stderr, so nothing else can land between our lines
    out = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    out.write("@@READY " + json.dumps({"paddle_version": paddle.__version__}) + "\n")
    out.flush()
    for line in sys.stdin:
        if not line.strip():
            continue
        t0 = time.time()
        try:
            req = json.loads(line)
            rep = run_one(req, paddle, np)
        except Exception:  # noqa: BLE001 -- a bug here is a verdict too, not a dead worker
            rep = {"verdict": "WORKER_ERROR", "error": traceback.format_exc()[-2000:]}
        # a program can set process-wide flags (pd_op.enable_check_model_nan_inf turns on
        # FLAGS_check_nan_inf): put every flag back so the next request runs as in a new process
        changed = [k for k, v in snapshot(flags).items() if initial.get(k, v) != v]
        for k in changed:
            try:
                paddle.set_flags({k: initial[k]})
            except Exception:  # noqa: BLE001 -- a read-only flag: say so, the driver restarts
                rep["flags_left_changed"] = rep.get("flags_left_changed", []) + [k]
        if changed:
            rep["flags_restored"] = changed
        rep["secs"] = round(time.time() - t0, 3)
        out.write("@@RESULT " + json.dumps(rep) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
