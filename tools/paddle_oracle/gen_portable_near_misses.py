#!/usr/bin/env python3
"""The near-miss corpus of the portable fusions (tests/fixtures/near_misses/{fuse-fc,fuse-gelu,
fuse-swiglu}/CASE.{miss,fuse}.pir), built by real Paddle: each program is written in Python
with paddle's static API, saved by `paddle.static.save_inference_model` (Paddle's own op
spelling, fetches included), read by pirc and printed as PIR text with the corpus header
(tests/fixtures/near_misses/README.md).  A near miss and its twin differ in one thing.

Run from the repo root with pirc's python; Paddle runs in a child process of a scratch venv:

    python tools/paddle_oracle/gen_portable_near_misses.py --pd331 /tmp/pd331/bin/python
"""

from __future__ import annotations

import argparse
import json
import math
import re
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "fixtures" / "near_misses"

# (pass, case, target, failed: a substring of the miss's near-miss reason, tolerance or None)
CASES = [
    ("fuse-fc", "bias_2d", "pd_op.fc", "bias is 1-D", None),
    ("fuse-fc", "weight_3d", "pd_op.fc", "weight is 2-D", None),
    ("fuse-fc", "transpose_y", "pd_op.fc", "attribute transpose_y of pd_op.matmul", None),
    ("fuse-fc", "float16", "pd_op.fc", "float32 or float64", "1e-2 1e-2"),
    ("fuse-fc", "relu6_after", "pd_op.fc[activation_type=relu]", "activation is relu", None),
    ("fuse-fc", "matmul_fetched", "pd_op.fc", "one use: the pd_op.matmul result", None),
    ("fuse-gelu", "tanh_with_erf_constant", "pd_op.gelu", "is pd_op.data, not pd_op.add", None),
    ("fuse-gelu", "erf_with_tanh_argument", "pd_op.gelu", "operand 0 of pd_op.scale is not x", "1e-5 1e-5"),
    ("fuse-gelu", "half_is_0_6", "pd_op.gelu", "not 0.5", None),
    ("fuse-gelu", "times_sqrt2", "pd_op.gelu", "not 0.707106", None),
    ("fuse-gelu", "x_squared", "pd_op.gelu", "pow exponent is 3", "1e-5 1e-5"),
    ("fuse-gelu", "erf_fetched", "pd_op.gelu", "one use: the pd_op.erf result", None),
    ("fuse-gelu", "float16", "pd_op.gelu", "float32 or float64", "1e-2 1e-2"),
    ("fuse-swiglu", "broadcast_b", "pd_op.swiglu", "one static shape", None),
    ("fuse-swiglu", "silu_fetched", "pd_op.swiglu", "one use: the pd_op.silu result", None),
    ("fuse-swiglu", "float16", "pd_op.swiglu", "float32 or float64", "1e-2 1e-2"),
    ("fuse-swiglu", "dynamic_dim", "pd_op.swiglu", "one static shape", None),
    ("fuse-swiglu", "gate_written", "pd_op.swiglu", "aliasing: a is written", None),
    ("fuse-fc", "input_written", "pd_op.fc", "aliasing: x is written", None),
]


# -- the Paddle side (runs in the scratch venv) ---------------------------------------------

def build(pass_name: str, case: str, variant: str):
    """(feeds, fetches) of PASS/CASE's program; variant "miss" or "fuse"."""
    import paddle
    import paddle.nn.functional as F

    miss = variant == "miss"
    data = paddle.static.data

    def linear_parts(dtype="float32"):
        return data("x", [4, 16], dtype), data("w", [16, 8], dtype), data("b", [8], dtype)

    if case == "bias_2d":
        x, w, _ = linear_parts()
        b = data("b", [4, 8] if miss else [8], "float32")
        return [x, w, b], [paddle.matmul(x, w) + b]
    if case == "weight_3d":
        x = data("x", [2, 4, 16], "float32")
        w = data("w", [2, 16, 8] if miss else [16, 8], "float32")
        b = data("b", [8], "float32")
        return [x, w, b], [paddle.matmul(x, w) + b]
    if case == "transpose_y":
        x, b = data("x", [4, 16], "float32"), data("b", [8], "float32")
        w = data("w", [8, 16] if miss else [16, 8], "float32")
        return [x, w, b], [paddle.matmul(x, w, transpose_y=miss) + b]
    if case == "float16":   # the twin; the miss is its text with float16 types (see main)
        dtype = "float32"
        if pass_name == "fuse-gelu":
            x = data("x", [4, 16], dtype)
            return [x], [0.5 * x * (1.0 + paddle.erf(x / math.sqrt(2.0)))]
        if pass_name == "fuse-swiglu":
            a, b = data("a", [4, 16], dtype), data("b", [4, 16], dtype)
            return [a, b], [F.silu(a) * b]
        x, w, b = linear_parts(dtype)
        return [x, w, b], [paddle.matmul(x, w) + b]
    if case == "relu6_after":
        x, w, b = linear_parts()
        return [x, w, b], [(F.relu6 if miss else F.relu)(paddle.matmul(x, w) + b)]
    if case == "matmul_fetched":
        x, w, b = linear_parts()
        mm = paddle.matmul(x, w)
        return [x, w, b], [mm + b] + ([mm] if miss else [])
    if case in ("tanh_with_erf_constant",):
        x = data("x", [4, 16], "float32")
        inner = x / math.sqrt(2.0) if miss else math.sqrt(2.0 / math.pi) * (x + 0.044715 * paddle.pow(x, 3.0))
        return [x], [0.5 * x * (1.0 + paddle.tanh(inner))]
    if case == "erf_with_tanh_argument":
        x = data("x", [4, 16], "float32")
        inner = math.sqrt(2.0 / math.pi) * (x + 0.044715 * paddle.pow(x, 3.0))
        return [x], [0.5 * x * (1.0 + (paddle.erf if miss else paddle.tanh)(inner))]
    if case == "half_is_0_6":
        x = data("x", [4, 16], "float32")
        return [x], [(0.6 if miss else 0.5) * x * (1.0 + paddle.erf(x / math.sqrt(2.0)))]
    if case == "times_sqrt2":
        x = data("x", [4, 16], "float32")
        inner = x * math.sqrt(2.0) if miss else x / math.sqrt(2.0)
        return [x], [0.5 * x * (1.0 + paddle.erf(inner))]
    if case == "x_squared":
        x = data("x", [4, 16], "float32")
        inner = math.sqrt(2.0 / math.pi) * (x + 0.044715 * paddle.pow(x, 2.0 if miss else 3.0))
        return [x], [0.5 * x * (1.0 + paddle.tanh(inner))]
    if case == "erf_fetched":
        x = data("x", [4, 16], "float32")
        e = paddle.erf(x / math.sqrt(2.0))
        return [x], [0.5 * x * (1.0 + e)] + ([e] if miss else [])
    if case == "broadcast_b":
        a = data("a", [4, 16], "float32")
        b = data("b", [16] if miss else [4, 16], "float32")
        return [a, b], [F.silu(a) * b]
    if case == "silu_fetched":
        a, b = data("a", [4, 16], "float32"), data("b", [4, 16], "float32")
        s = F.silu(a)
        return [a, b], [s * b] + ([s] if miss else [])
    if case == "dynamic_dim":
        shape = [-1, 16] if miss else [4, 16]
        a, b = data("a", shape, "float32"), data("b", shape, "float32")
        return [a, b], [F.silu(a) * b]
    if case == "gate_written":   # the miss: see WRITTEN
        a, b = data("a", [4, 16], "float32"), data("b", [4, 16], "float32")
        return [a, b], [F.silu(a) * b]
    if case == "input_written":
        x, w, b = linear_parts()
        return [x, w, b], [paddle.matmul(x, w) + b]
    raise KeyError(case)


# Near misses that write an input in place between the first matched op and the root (the
# fused op, placed at the root, would read the new value): the twin's text with a relu_ of
# that input inserted after the op named.  (save_inference_model prunes such a write when
# the program is built with it: it fetches the input and makes the write's result a feed.)
WRITTEN = {"gate_written": ("pd_op.silu", "a"), "input_written": ("pd_op.matmul", "x")}


def write_in_place(body: list[str], after: str, name: str) -> list[str]:
    data = next(line for line in body if f'name:"{name}"' in line and '"pd_op.data"' in line)
    value = re.match(r"\s*\((%\d+)\)", data).group(1)
    tensor = data.rsplit("-> ", 1)[1]
    out = []
    for line in body:
        out.append(line)
        if f'"{after}"' in line:
            out.append(f'    (%999) = "pd_op.relu_" ({value}) {{stop_gradient:[true]}} : ({tensor}) -> {tensor}')
    return out


def paddle_stage(out: str) -> None:
    import paddle
    paddle.enable_static()
    for pass_name, case, *_ in CASES:
        for variant in ("fuse",) if case == "float16" or case in WRITTEN else ("miss", "fuse"):
            main, start = paddle.static.Program(), paddle.static.Program()
            with paddle.static.program_guard(main, start), paddle.utils.unique_name.guard():
                feeds, fetches = build(pass_name, case, variant)
                exe = paddle.static.Executor(paddle.CPUPlace())
                prefix = os.path.join(out, f"{pass_name}.{case}.{variant}")
                paddle.static.save_inference_model(prefix, feeds, fetches, exe, program=main)
    print(json.dumps({"paddle_version": paddle.__version__}))


# -- the pirc side ---------------------------------------------------------------------------

def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pd331", help="python of a venv with paddlepaddle 3.3.1")
    ap.add_argument("--paddle-stage", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.paddle_stage:
        paddle_stage(args.paddle_stage)
        return 0
    if not args.pd331:
        ap.error("--pd331 is required")
    sys.path.insert(0, str(ROOT))
    import pirc
    with tempfile.TemporaryDirectory(prefix="pirc-nm-") as td:
        cp = subprocess.run([args.pd331, __file__, "--paddle-stage", td], capture_output=True, text=True)
        if cp.returncode != 0:
            raise SystemExit(cp.stderr[-3000:])
        version = json.loads(cp.stdout.strip().splitlines()[-1])["paddle_version"]
        for pass_name, case, target, failed, tolerance in CASES:
            for variant in ("miss", "fuse"):
                # Paddle's static API refuses to build a float16 matmul for the CPU: the
                # float16 near misses are their twin with every float32 type made float16
                source = "fuse" if case == "float16" or case in WRITTEN else variant
                program = pirc.load(os.path.join(td, f"{pass_name}.{case}.{source}.json"))
                body = [line for line in pirc.to_text(program).splitlines()
                        if not line.startswith("pir.")]
                if case == "float16" and variant == "miss":
                    body = [line.replace("xf32>", "xf16>").replace("float32", "float16")
                            for line in body]
                if case in WRITTEN and variant == "miss":
                    body = write_in_place(body, *WRITTEN[case])
                head = [f"// pass: {pass_name}", f"// target: {target}", "// from-version: 4"]
                if variant == "miss":
                    head.append(f"// failed: {failed}")
                if tolerance:
                    head.append(f"// tolerance: {tolerance}")
                head.append(f"// made by tools/paddle_oracle/gen_portable_near_misses.py (Paddle {version})")
                path = OUT / pass_name / f"{case}.{variant}.pir"
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text("\n".join(head + body) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
