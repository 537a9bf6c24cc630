#!/usr/bin/env python3
"""Which fused ops pirc's `fuse` pipeline may emit: does Paddle's CPU kernel exist, for which
dtypes, and does it run on an x86-64 without AVX-512?

Run by hand from the repo root with a Paddle 3.x scratch venv's python:

    /tmp/pd331/bin/python tools/paddle_oracle/probe_fused_kernels.py              # ~20 s
    /tmp/pd331/bin/python tools/paddle_oracle/probe_fused_kernels.py --valgrind   # ~10 min
    (the same with /tmp/pd300)

For every fusion target of issue 22 (`fc`, `silu`, `swiglu`, `gelu` erf and tanh,
`fused_bias_residual_layernorm`, paddle.incubate's `fused_rms_norm` (`pd_op.rms_norm` at PIR
1-3, `pd_op.fused_rms_norm_quant` at 4), paddle.nn.functional.rms_norm (3.3.1's new
`pd_op.rms_norm`), `self_dp_attention`, `fused_rotary_position_embedding`) and every dtype
(float32, float64, float16, bfloat16), one tiny static program is built with the op, run by
the CPU Executor, and compared with a numpy float64 reference. Widths 8, 20 and 33 exercise
the 16-lane AVX-512 kernels' full vectors and masked tails. Also recorded: the CPU kernels the
wheel registers for the op (`paddle.base.core._get_registered_phi_kernels("function")`).

`--valgrind` (after a native run): every float32 and bfloat16 case that ran natively, at width
20, again in its own process under `valgrind --tool=none` (about a minute each). Valgrind's
x86-64 emulation implements up to AVX2 and reports a CPUID without AVX-512, so MKL, oneDNN and
Paddle's jit kernels pick their AVX2 code paths, as on an AVX2-only machine; an AVX-512
instruction (EVEX prefix 0x62) stops the process with valgrind's "unhandled instruction bytes"
and SIGILL. A case that runs there is portable to AVX2 machines; one that dies there with an
EVEX instruction is not.

Output: `results/fused_kernels.VER.json` (sorted keys; `valgrind` filled by --valgrind).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "tools" / "paddle_oracle" / "results"
DTYPES = ("float32", "float64", "float16", "bfloat16")
WIDTHS = (8, 20, 33)
TARGETS = ("fc", "fc_relu", "silu", "swiglu", "gelu_erf", "gelu_tanh",
           "fused_bias_residual_layernorm", "fused_rms_norm", "fused_rms_norm_residual",
           "rms_norm_api", "self_dp_attention", "fused_rotary_position_embedding")
# the registered kernel names each target runs
KERNELS = {"fc": "fc", "fc_relu": "fc", "silu": "silu", "swiglu": "swiglu", "gelu_erf": "gelu",
           "gelu_tanh": "gelu", "fused_bias_residual_layernorm": "fused_bias_residual_layernorm",
           "fused_rms_norm": ("rms_norm", "fused_rms_norm_quant"),
           "fused_rms_norm_residual": ("rms_norm", "fused_rms_norm_quant"),
           "rms_norm_api": "rms_norm", "self_dp_attention": "self_dp_attention",
           "fused_rotary_position_embedding": "fused_rotary_position_embedding"}


# -- numpy references (float64) -----------------------------------------------------------------

def _sigmoid(x):
    import numpy as np
    return 1.0 / (1.0 + np.exp(-x))


def _layer_norm(x, w, b, eps):
    import numpy as np
    m = x.mean(-1, keepdims=True)
    v = ((x - m) ** 2).mean(-1, keepdims=True)
    return (x - m) / np.sqrt(v + eps) * w + b


def _rms(x, w, eps):
    import numpy as np
    return x / np.sqrt((x * x).mean(-1, keepdims=True) + eps) * w


def _erf(x):
    import math

    import numpy as np
    return np.vectorize(math.erf)(x)


# -- one case: build, run, compare ----------------------------------------------------------------

def run_case(target: str, dtype: str, width: int) -> dict:
    import warnings

    warnings.simplefilter("ignore")
    import numpy as np
    import paddle
    import paddle.nn.functional as F

    paddle.enable_static()
    C = paddle._C_ops
    rng = np.random.default_rng(7)
    eps = 1e-6
    rec: dict = {}
    main, startup = paddle.static.Program(), paddle.static.Program()
    feeds: dict = {}

    def data(name, shape, scale=1.0):
        arr64 = rng.standard_normal(shape) * scale
        feeds[name] = arr64
        return paddle.static.data(name, shape, dtype)

    with paddle.static.program_guard(main, startup):
        if target in ("fc", "fc_relu"):
            x, w, b = data("x", [3, width]), data("w", [width, 5]), data("b", [5])
            out = C.fc(x, w, b, 1, "relu" if target == "fc_relu" else "", False)
            r = lambda f: f["x"] @ f["w"] + f["b"]  # noqa: E731
            ref = (lambda f: np.maximum(r(f), 0)) if target == "fc_relu" else r
            outs = [out]
        elif target == "silu":
            x = data("x", [3, width], 3.0)
            outs, ref = [F.silu(x)], lambda f: f["x"] * _sigmoid(f["x"])
        elif target == "swiglu":
            x, y = data("x", [3, width], 3.0), data("y", [3, width])
            outs = [paddle.incubate.nn.functional.swiglu(x, y)]
            ref = lambda f: f["x"] * _sigmoid(f["x"]) * f["y"]  # noqa: E731
        elif target == "gelu_erf":
            x = data("x", [3, width], 3.0)
            outs = [F.gelu(x, approximate=False)]
            ref = lambda f: 0.5 * f["x"] * (1 + _erf(f["x"] / np.sqrt(2)))  # noqa: E731
        elif target == "gelu_tanh":
            x = data("x", [3, width], 3.0)
            outs = [F.gelu(x, approximate=True)]
            ref = lambda f: 0.5 * f["x"] * (1 + np.tanh(np.sqrt(2 / np.pi) * (f["x"] + 0.044715 * f["x"] ** 3)))  # noqa: E731,E501
        elif target == "fused_bias_residual_layernorm":
            x, b, res = data("x", [2, 3, width]), data("bias", [width]), data("res", [2, 3, width])
            w, nb = data("w", [width]), data("nb", [width])
            o = C.fused_bias_residual_layernorm(x, b, res, w, nb, 1e-5, 1.0, 2, -1.0, 0, 0.0, 0.0)
            outs = [o[0], o[1]]

            def ref(f):
                s = f["x"] + f["bias"] + f["res"]
                return [_layer_norm(s, f["w"], f["nb"], 1e-5), s]
        elif target in ("fused_rms_norm", "fused_rms_norm_residual"):
            from paddle.incubate.nn.functional import fused_rms_norm
            x, w = data("x", [2, 3, width]), data("w", [width])
            if target == "fused_rms_norm":
                outs = [fused_rms_norm(x, w, None, eps, 2)[0]]
                ref = lambda f: _rms(f["x"], f["w"], eps)  # noqa: E731
            else:
                res = data("res", [2, 3, width])
                o = fused_rms_norm(x, w, None, eps, 2, residual=res)
                outs = [o[0], o[1]]
                ref = lambda f: [_rms(f["x"] + f["res"], f["w"], eps), f["x"] + f["res"]]  # noqa: E731,E501
        elif target == "rms_norm_api":
            x, w = data("x", [2, 3, width]), data("w", [width])
            if not hasattr(F, "rms_norm"):
                return {"built": False, "error": "paddle.nn.functional has no rms_norm in this release"}
            outs = [F.rms_norm(x, [width], w, eps)]
            outs = [outs[0][0] if isinstance(outs[0], (list, tuple)) else outs[0]]
            ref = lambda f: _rms(f["x"], f["w"], eps)  # noqa: E731
        elif target == "self_dp_attention":
            heads, head = 2, width
            x = data("x", [2, 5, 3, heads, head])
            alpha = 1.0 / np.sqrt(head)
            outs = [C.self_dp_attention(x, float(alpha), heads)]

            def ref(f):
                q, k, v = (f["x"][:, :, i].transpose(0, 2, 1, 3) for i in range(3))
                s = q @ k.transpose(0, 1, 3, 2) * alpha
                p = np.exp(s - s.max(-1, keepdims=True))
                p /= p.sum(-1, keepdims=True)
                return (p @ v).transpose(0, 2, 1, 3)
        elif target == "fused_rotary_position_embedding":
            from paddle.incubate.nn.functional import fused_rotary_position_embedding
            d = width - width % 2
            q = data("q", [1, 4, 2, d])
            sin, cos = data("sin", [1, 4, 1, d]), data("cos", [1, 4, 1, d])
            o = fused_rotary_position_embedding(q, None, None, sin=sin, cos=cos,
                                                use_neox_rotary_style=False)
            outs = [o[0]]

            def ref(f):  # rotate-half: q * cos + concat(-q2, q1) * sin
                q1, q2 = f["q"][..., : d // 2], f["q"][..., d // 2:]
                return f["q"] * f["cos"] + np.concatenate([-q2, q1], -1) * f["sin"]
        else:
            raise SystemExit(f"unknown target {target}")
    rec["built"] = True
    names = sorted({op.name() for op in main.global_block().ops})
    rec["ops"] = [n for n in names if n not in ("pd_op.data", "pd_op.fetch", "pd_op.full",
                                                  "pd_op.full_int_array")]
    exe = paddle.static.Executor(paddle.CPUPlace())
    np_dtype = {"bfloat16": "float32"}.get(dtype, dtype)
    feed = {k: v.astype(np_dtype) for k, v in feeds.items()}
    if dtype == "bfloat16":  # feed bf16 as uint16 bit patterns, as Paddle expects
        feed = {k: (v.astype("float32").view("uint32") >> 16).astype("uint16") for k, v in feed.items()}
    got = exe.run(main, feed=feed, fetch_list=outs)
    rec["ran"] = True
    if ref is not None:
        exp = ref({k: (v.astype(np_dtype) if dtype != "bfloat16" else v).astype("float64")
                   for k, v in feeds.items()})
        exp = exp if isinstance(exp, list) else [exp]
        diffs = []
        for g, e in zip(got, exp):
            g = np.asarray(g)
            if dtype == "bfloat16":
                g = (g.astype("uint32") << 16).view("float32")
            g = g.astype("float64")
            diffs.append(float(np.max(np.abs(g - e) / (1 + np.abs(e)))))
        rec["max_rel_err"] = max(diffs)
    return rec


def case_main(specs: str) -> None:
    for spec in specs.split(","):
        target, dtype, width = spec.split(":")
        try:
            rec = run_case(target, dtype, int(width))
        except Exception as e:  # noqa: BLE001 -- every failure is a verdict
            msg = f"{type(e).__name__}: {e}".strip()
            rec = {"error": re.sub(r"\s+", " ", msg)[:600]}
        print(f"@@CASE {spec} " + json.dumps(rec, sort_keys=True), flush=True)


def run_specs(specs: list[str], valgrind: bool) -> dict:
    """Run `specs` in one child process (under valgrind: one each); a spec whose child died
    gets its exit status, signal and valgrind's unhandled-instruction report."""
    cmd = [sys.executable, __file__, "--case", ",".join(specs)]
    if valgrind:
        cmd = ["valgrind", "--tool=none", "--log-file=/dev/stderr"] + cmd
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, "OMP_NUM_THREADS": "1"}, timeout=3600)
    got = {}
    for ln in proc.stdout.splitlines():
        if ln.startswith("@@CASE "):
            spec, _, rec = ln[7:].partition(" ")
            got[spec] = json.loads(rec)
    missing = [s for s in specs if s not in got]
    if missing and len(specs) > 1:
        for s in missing:
            got.update(run_specs([s], valgrind))
        return got
    if missing:
        rec = {"exit": proc.returncode}
        unhandled = re.findall(r"unhandled instruction bytes: ((?:0x[0-9A-F]+ ?){1,6})", proc.stderr)
        if unhandled:
            rec["unhandled_instruction"] = unhandled[0].strip()
            rec["evex_avx512"] = unhandled[0].startswith("0x62")
        if "SIGILL" in proc.stderr:
            rec["signal"] = "SIGILL"
        if not unhandled:  # the last lines, without process ids, addresses and times
            tail = [ln for ln in proc.stderr.splitlines() if ln.strip()][-4:]
            rec["stderr_tail"] = [re.sub(r"0x[0-9A-Fa-f]+|\d{4,}", "N", ln)[:300] for ln in tail]
        got[missing[0]] = rec
    return got


def registered(paddle) -> dict:
    kernels = paddle.base.core._get_registered_phi_kernels("function")
    out = {}
    for name in sorted({k for v in KERNELS.values() for k in ((v,) if isinstance(v, str) else v)}):
        keys = [k for k in kernels.get(name, []) if k.startswith("(CPU,")]
        out[name] = sorted(re.sub(r"^\(CPU, [^,]*, (\w+)\)$", r"\1", k) for k in keys)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--case", help=argparse.SUPPRESS)
    ap.add_argument("--valgrind", action="store_true")
    ap.add_argument("--only", help="targets, comma-separated")
    ap.add_argument("--valgrind-dtypes", default="float32,bfloat16")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    if args.case:
        return case_main(args.case)
    import warnings

    warnings.simplefilter("ignore")
    import paddle

    release = paddle.__version__
    out_path = args.out or RESULTS / f"fused_kernels.{release}.json"
    doc = json.loads(out_path.read_text()) if out_path.exists() else {}
    doc.update({"paddle": release, "registered_cpu_kernels": registered(paddle),
                "machine": {"arch": platform.machine(),
                            "cpu_avx512f": "avx512f" in Path("/proc/cpuinfo").read_text()}})
    targets = args.only.split(",") if args.only else TARGETS
    key = "valgrind" if args.valgrind else "native"
    cases = doc.setdefault(key, {})
    for target in targets:
        t0 = time.time()
        specs = [f"{target}:{dtype}:{width}" for dtype in DTYPES for width in WIDTHS]
        if args.valgrind:  # only what runs natively; float32 and bfloat16 (valgrind is ~50 s a case)
            native = doc.get("native", {})
            specs = [f"{target}:{d}:20" for d in args.valgrind_dtypes.split(",")
                     if native.get(f"{target}:{d}:20", {}).get("ran")]
        got = {}
        if args.valgrind:
            for spec in specs:
                got.update(run_specs([spec], True))
        else:
            got = run_specs(specs, False)
        for spec in specs:
            cases[spec] = got[spec]
            print(f"{key} {spec}: {json.dumps(got[spec], sort_keys=True)[:300]}", flush=True)
        print(f"  ({time.time() - t0:.1f}s)", flush=True)
    out_path.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
    print(f"wrote {out_path}")


if __name__ == "__main__":
    main()
