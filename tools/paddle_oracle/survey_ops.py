#!/usr/bin/env python3
"""Try every forward pd_op op of a release in Paddle's CPU wheel, and record what happened.

    /tmp/pd331/bin/python tools/paddle_oracle/survey_ops.py --defs tools/opdefs/opdefs-3.3.1.json
    /tmp/pd300/bin/python tools/paddle_oracle/survey_ops.py --defs tools/opdefs/opdefs-3.0.0.json

For each forward op of the op definitions (no `_grad` ops; an in-place `X_` only where `X`
does not exist), the survey records:
- `python_api`: whether `paddle._C_ops` has a function of the op's name (what a static-mode
  program calls to build it);
- `kernel_places`: the places Paddle registered the op's phi kernel for (`cpu`, `gpu`, `xpu`,
  `custom`; none: the op has no phi kernel, e.g. a legacy or an interpreter-level op);
- `attempt`: one try at building the op with
  `paddle._C_ops.NAME` on synthesised operands (float32 [2, 3] tensors, each attribute's default
  where the definition gives a plain one) and running it on the CPU: `ok`, or the exception
  Paddle raised (its type and first lines), which is the evidence COVERAGE.md quotes for an
  op that no op_builders fixture exercises (a fixture's gen_log is better evidence).

Each chunk of ops runs in a child process (a crash in Paddle's C++ kills one chunk, which is
then resumed after the op that crashed, recorded as `crashed`). Writes
tools/paddle_oracle/results/op_survey.VER.json (sorted, one entry per op).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.join(HERE, "results")
CHUNK = 40


def forward_ops(defs):
    names = sorted(k for k, v in defs.items() if v["dialect"] == "pd_op"
                   and not k.endswith("_grad") and "_grad_" not in k)
    return [n for n in names if not (n.endswith("_") and n[:-1] in defs)]


# -- synthesised operands -------------------------------------------------------------------

_PLAIN_NUMBER = re.compile(r"^-?\d+(\.\d*)?([eE][-+]?\d+)?f?$")


def attr_value(a):
    """A value for attribute `a` of an op definition: its default when plain, else a
    type-based guess (the attempt is only evidence, not a fixture)."""
    t, d = a["type"], a.get("default")
    if d is not None:
        d = d.strip()
        if d in ("true", "false"):
            return d == "true"
        if _PLAIN_NUMBER.match(d):
            v = float(d.rstrip("f"))
            return int(v) if "Int" in t and v.is_integer() else v
        if d.startswith('"') and d.endswith('"'):
            return d[1:-1]
        if d in ("{}", "std::vector<int>{}", "std::vector<int64_t>{}"):
            return []
        m = re.match(r"^\{([-\d, .]+)\}$", d)
        if m:
            vals = [float(x) for x in m.group(1).split(",") if x.strip()]
            return [int(v) if "Int" in t else v for v in vals]
    if "Bool" in t:
        return False
    if "Array" in t or "IntArray" in t:
        return []
    if "Int" in t:
        return 0
    if "Float" in t or "Double" in t or "Scalar" in t:
        return 0.0
    if "Str" in t:
        return ""
    if "DataType" in t:
        import paddle
        return paddle.float32
    if "Place" in t:
        import paddle
        return paddle.CPUPlace()
    return None


def attempt(name, d):
    """Build `name` from synthesised operands in a fresh program and run it on the CPU."""
    import numpy as np
    import paddle

    short = name[len("pd_op."):]
    fn = getattr(paddle._C_ops, short, None)
    if fn is None:
        return {"attempt": "no paddle._C_ops function of this name"}
    main, start = paddle.static.Program(), paddle.static.Program()
    feed, args = {}, []
    try:
        with paddle.static.program_guard(main, start):
            for i, inp in enumerate(d["inputs"]):
                t = inp["type"]
                if inp.get("optional"):
                    args.append(None)
                elif "Sparse" in t or "SelectedRows" in t or "TensorArray" in t:
                    return {"attempt": f"not tried: input {inp['name']} is a {t.split('::')[-1]}"}
                elif "VectorType" in t:
                    xs = []
                    for j in range(2):
                        n = f"in{i}_{j}"
                        feed[n] = np.ones([2, 3], "float32")
                        xs.append(paddle.static.data(n, [2, 3], "float32"))
                    args.append(xs)
                else:
                    n = f"in{i}"
                    feed[n] = np.ones([2, 3], "float32")
                    args.append(paddle.static.data(n, [2, 3], "float32"))
            args += [attr_value(a) for a in d["attributes"]]
            out = fn(*args)
        outs = [o for o in (out if isinstance(out, (list, tuple)) else [out])
                if isinstance(o, paddle.pir.Value)]
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(start)
        exe.run(main, feed=feed, fetch_list=outs[:1])
        return {"attempt": "ok"}
    except Exception as e:  # the exception is the evidence
        msg = str(e).strip()
        # Paddle's C++ errors carry a long stack first; keep the summary lines.
        lines = [ln.strip() for ln in msg.splitlines() if ln.strip()]
        keep = [ln for ln in lines if re.match(r"^\(?[A-Z][a-zA-Z]+(Error|Exception)", ln)
                or ln.startswith("[") or "Error" in ln[:40]]
        text = " | ".join((keep or lines)[:3])[:600]
        return {"attempt": f"{type(e).__name__}: {text}"}


def kernel_places(kernels, d):
    k = d.get("kernel") or ""
    places = set()
    for key in kernels.get(k, []):
        m = re.search(r"place\[Place\(([a-z_]*)", key)
        p = m.group(1) if m else ""
        places.add({"cpu": "cpu", "gpu": "gpu", "xpu": "xpu", "gpu_pinned": "gpu"}.get(p, "custom"))
    return sorted(places)


def child(names, defs_path, out_path):
    import paddle  # noqa: F401  (FLAGS_enable_pir_api is on by default in 3.x)
    from paddle.base import core

    paddle.enable_static()
    with open(defs_path) as f:
        defs = json.load(f)
    kernels = core._get_all_register_op_kernels("phi")
    with open(out_path, "a") as out:
        for name in names:
            d = defs[name]
            short = name[len("pd_op."):]
            r = {"op": name, "python_api": hasattr(paddle._C_ops, short),
                 "kernel_places": kernel_places(kernels, d)}
            r.update(attempt(name, d))
            out.write(json.dumps(r) + "\n")
            out.flush()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--defs", required=True, help="tools/opdefs/opdefs-VER.json")
    ap.add_argument("--child", nargs="*", help=argparse.SUPPRESS)
    ap.add_argument("--out", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child is not None:
        child(args.child, args.defs, args.out)
        return
    import paddle
    ver = paddle.__version__
    with open(args.defs) as f:
        defs = json.load(f)
    ops = forward_ops(defs)
    tmp = os.path.join(RESULTS, f".op_survey.{ver}.jsonl")
    os.makedirs(RESULTS, exist_ok=True)
    if os.path.exists(tmp):
        os.remove(tmp)
    t0 = time.time()
    todo = list(ops)
    done = {}
    while todo:
        chunk = todo[:CHUNK]
        p = subprocess.run([sys.executable, __file__, "--defs", args.defs, "--out", tmp,
                            "--child", *chunk], capture_output=True, text=True,
                           timeout=900)
        with open(tmp) as f:
            for line in f:
                r = json.loads(line)
                done[r["op"]] = r
        todo = [n for n in todo if n not in done]
        if p.returncode != 0 and todo and todo[0] in chunk:
            # the op after the last one written crashed the process
            bad = todo.pop(0)
            done[bad] = {"op": bad, "attempt": f"crashed: Paddle's process exited with "
                                               f"{p.returncode} {p.stderr.strip()[-300:]}"}
            with open(tmp, "a") as f:
                f.write(json.dumps(done[bad]) + "\n")
        print(f"{len(done)}/{len(ops)} ({time.time() - t0:.0f} s)", flush=True)
    os.remove(tmp)
    path = os.path.join(RESULTS, f"op_survey.{ver}.json")
    doc = {"paddle_version": ver, "date_utc": time.strftime("%Y-%m-%d", time.gmtime()),
           "defs": os.path.basename(args.defs), "ops": dict(sorted(done.items()))}
    with open(path + ".tmp", "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(path + ".tmp", path)
    print(path)


if __name__ == "__main__":
    main()
