"""Front-end benchmark: parse, print, JSON read and write of 1k/10k/100k-op programs.

The programs repeat the top-level ops of real corpus programs (Paddle 3.3.1's
transformer, cnn and mlp) with their values renumbered, so op shapes,
attribute dictionaries and signatures repeat as they do in real models.
Each figure is the median of several runs of one phase, each in a fresh
process (as pirc-opt runs one job per process); peak memory is that
process's max RSS, input text and the phase's own input included.  Beside pirc: `xdsl-opt` and `mlir-opt-19`
round-tripping the same program as generic MLIR (if installed).

    python tools/bench_frontend.py [--sizes 1000,10000,100000] [--runs 3] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CORPUS = ROOT / "tests" / "fixtures" / "corpus" / "3.3.1"
SOURCES = ("transformer.3.3.1.loaded.pir.txt", "cnn.3.3.1.loaded.pir.txt", "mlp.3.3.1.loaded.pir.txt")
_VALUE = re.compile(r"%(\d+)")


def template_lines() -> list[str]:
    """The sources' op lines, renumbered so that their values do not collide."""
    lines, base = [], 0
    for name in SOURCES:
        body = (CORPUS / name).read_text().splitlines()[1:-1]
        lines += [_VALUE.sub(lambda m: f"%{int(m.group(1)) + base}", line) for line in body]
        base += 1 + max(int(v) for line in body for v in _VALUE.findall(line))
    return lines


def generate(n_ops: int) -> str:
    """A Paddle-text program of about n_ops ops: copies of the template, renumbered."""
    base = template_lines()
    width = 1 + max(int(v) for line in base for v in _VALUE.findall(line))
    out = ["{"]
    copy = 0
    while len(out) - 1 < n_ops:
        shift = copy * width
        for line in base:
            if len(out) - 1 >= n_ops:
                break
            out.append(_VALUE.sub(lambda m: f"%{int(m.group(1)) + shift}", line))
        copy += 1
    out.append("}")
    return "\n".join(out) + "\n"


def to_generic_mlir(program) -> str:
    """The same program as generic MLIR (unregistered ops) for xdsl-opt / mlir-opt.

    Attributes keep their kinds (`-1 : i32`, `1.0e-05 : f32`, strings, arrays);
    pd_op's DataType / Place / IntArray become strings or integer arrays.
    """
    from pirc.text.paddle_printer import paddle_attr_text

    names: dict = {}
    out = ['"builtin.module"() ({']
    for op in program.block.ops:
        for r in op.results:
            names[r] = f"%v{len(names)}"
        operands = ", ".join(names[v] for v in op.operands if v in names)
        in_types = ", ".join(_mlir_type(v.type) for v in op.operands if v in names)
        out_types = ", ".join(_mlir_type(r.type) for r in op.results)
        attrs = ", ".join(f"{k} = {_mlir_attr(v, paddle_attr_text)}" for k, v in sorted(op.attributes.items()))
        lhs = ", ".join(names[r] for r in op.results)
        lhs = f"{lhs} = " if lhs else ""
        # MLIR's builtin dialect rejects unknown ops: rename PIR's builtin.* ops.
        name = "pir_" + op.name if op.name.startswith("builtin.") else op.name
        out.append(f'  {lhs}"{name}"({operands}) {{{attrs}}} : ({in_types}) -> ({out_types})')
    out.append("}) : () -> ()")
    return "\n".join(out) + "\n"


def _mlir_type(t) -> str:
    from pirc.ir.types import DenseTensorType, VectorType
    from pirc.text.types_text import type_text

    if isinstance(t, DenseTensorType):
        elt = type_text(t.dtype, False).replace("b", "i1") if type_text(t.dtype, False) == "b" else type_text(t.dtype, False)
        elt = {"u8": "ui8", "c64": "complex<f32>", "c128": "complex<f64>"}.get(elt, elt)
        return "tensor<" + "".join(("?" if d == -1 else str(d)) + "x" for d in t.shape) + elt + ">"
    if isinstance(t, VectorType):
        return "tuple<" + ", ".join(_mlir_type(e) for e in t.types) + ">"
    return "none"


def _mlir_attr(a, paddle_text) -> str:
    import math
    from pirc.ir import attrs as A
    from xdsl.dialects.builtin import ArrayAttr, FloatAttr, IntegerAttr, StringAttr

    if isinstance(a, IntegerAttr):
        if a.type == A.i1:
            return "true" if a.value.data else "false"
        return f"{a.value.data} : {'i32' if a.type == A.i32 else 'i64'}"
    if isinstance(a, FloatAttr) and math.isfinite(a.value.data):
        return f"{a.value.data!r} : {'f64' if A.attr_kind(a) == 'double' else 'f32'}"
    if isinstance(a, ArrayAttr):
        return "[" + ", ".join(_mlir_attr(x, paddle_text) for x in a.data) + "]"
    if isinstance(a, A.IntArrayAttr):
        return "[" + ", ".join(f"{v} : i64" for v in a.data) + "]"
    text = a.data if isinstance(a, StringAttr) else paddle_text(a)
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


# One phase per child process: a pirc-opt run does one job per process, and a
# heap grown by earlier phases slows later ones (the GC has more to scan).
PHASES = {  # name: (input file, untimed setup building x, timed expression)
    "parse_paddle_text": ("text", "None", "parse_text(src, 'bench', 4)"),
    "parse_canonical": ("canonical", "None", "parse_text(src, 'bench')"),
    "print_canonical": ("text", "parse_text(src, 'bench', 4)", "print_canonical(x)"),
    "print_paddle": ("text", "parse_text(src, 'bench', 4)", "print_paddle(x)"),
    "json_read": ("json", "None", "read_program(src)"),
    "json_write": ("json", "read_program(src)", "write_program(x)"),
    "verify": ("json", "read_program(src)", "verify_program(x)"),
}
CHILD = """
import resource, sys, time
sys.path.insert(0, {root!r})
from pirc.text.parser import parse_text
from pirc.text.canonical_printer import print_canonical
from pirc.text.paddle_printer import print_paddle
from pirc.paddle_json.reader import read_program
from pirc.paddle_json.writer import write_program
from pirc.ir.verifier import verify_program
src = open({path!r}).read()
x = {setup}
t0 = time.perf_counter()
y = {timed}
t = time.perf_counter() - t0
print(t, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
"""


def child(path: str, setup: str, timed: str) -> tuple[float, float]:
    code = CHILD.format(root=str(ROOT), path=path, setup=setup, timed=timed)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(out.stderr)
    t, rss = out.stdout.split()
    return float(t), float(rss)


_RSS_WRAPPER = ("import resource, subprocess, sys; r = subprocess.run(sys.argv[1:]); "
                "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024); sys.exit(r.returncode)")


def whole_process(cmd) -> tuple[float, float] | None:
    """Wall time and peak RSS (MB) of one run of `cmd`."""
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-c", _RSS_WRAPPER, *cmd], capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if r.returncode != 0:
        return None
    return round(wall, 3), round(float(r.stdout.split()[-1]))


def external(cmd, runs: int):
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        r = subprocess.run(cmd, capture_output=True, text=True)
        times.append(time.perf_counter() - t0)
        if r.returncode != 0:
            return None
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--external-max", type=int, default=100000,
                    help="largest size to run xdsl-opt on (it takes ~90 s at 100k)")
    ap.add_argument("--json", dest="json_out", help="write the results here as JSON")
    args = ap.parse_args()

    from pirc.paddle_json.writer import write_program
    from pirc.text.canonical_printer import print_canonical
    from pirc.text.parser import parse_text

    rows = []
    tmp = Path(tempfile.mkdtemp(prefix="pirc-bench-"))
    xdsl_opt = shutil.which("xdsl-opt")
    mlir_opt = shutil.which("mlir-opt-19")
    for n in (int(s) for s in args.sizes.split(",")):
        text = generate(n)
        program = parse_text(text, "bench", 4)
        files = {"text": tmp / f"p{n}.pir.txt", "canonical": tmp / f"p{n}.pir", "json": tmp / f"p{n}.json"}
        files["text"].write_text(text)
        files["canonical"].write_text(print_canonical(program))
        files["json"].write_text(write_program(program))
        row = {"ops": program.op_count(), "text_mb": round(len(text) / 1e6, 1),
               "json_mb": round(files["json"].stat().st_size / 1e6, 1)}
        peak = {}
        for phase, (kind, setup, timed) in PHASES.items():
            results = [child(str(files[kind]), setup, timed) for _ in range(args.runs)]
            row[phase + "_s"] = round(statistics.median(r[0] for r in results), 3)
            peak[phase] = round(max(r[1] for r in results))
        row["peak_rss_mb"] = peak
        mlir = tmp / f"p{n}.mlir"
        mlir.write_text(to_generic_mlir(program))
        if mlir_opt:
            row["mlir_opt_roundtrip_s"] = external(
                [mlir_opt, "--allow-unregistered-dialect", "--mlir-print-op-generic", str(mlir), "-o", os.devnull],
                args.runs)
        if xdsl_opt and n <= args.external_max:
            row["xdsl_opt_roundtrip_s"] = external(
                [xdsl_opt, "--allow-unregistered-dialect", "--print-op-generic", str(mlir), "-o", os.devnull], 1)
        out = tmp / "out"
        # Whole pirc-opt runs (verification included): (wall s, peak RSS MB).
        row["pirc_opt_json_to_json"] = whole_process(
            [sys.executable, "-m", "pirc", str(files["json"]), "-o", str(out) + ".json"])
        row["pirc_opt_text_to_canonical"] = whole_process(
            [sys.executable, "-m", "pirc", str(files["text"]), "--from-version=4", "-o", str(out) + ".pir"])
        row["pirc_opt_canonical_to_paddle"] = whole_process(
            [sys.executable, "-m", "pirc", str(files["canonical"]), "--emit=paddle", "-o", str(out) + ".txt"])
        rows.append(row)
        print(json.dumps(row), flush=True)
    shutil.rmtree(tmp)
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
