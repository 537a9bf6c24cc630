"""Front-end benchmark: parse, print, JSON read and write of 1k/10k/100k-op programs.

The programs repeat the top-level ops of real corpus programs (Paddle 3.3.1's
transformer, cnn and mlp) with their values renumbered, so op shapes,
attribute dictionaries and signatures repeat as they do in real models.
Each figure is the median of several runs of one phase in this process;
peak memory is the whole process's max RSS for one parse+print+JSON cycle,
measured in a child process.  Beside pirc: `xdsl-opt` and `mlir-opt-19`
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


def timed(fn, runs: int):
    times = []
    result = None
    for _ in range(runs):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), result


def child_peak_rss(path: str) -> float:
    code = (
        "import sys, resource; sys.path.insert(0, %r)\n"
        "from pirc.text.parser import parse_text\n"
        "from pirc.text.canonical_printer import print_canonical\n"
        "from pirc.paddle_json.writer import write_program\n"
        "from pirc.paddle_json.reader import read_program\n"
        "p = parse_text(open(%r).read(), 'x', 4)\n"
        "c = print_canonical(p); j = write_program(p); del p\n"
        "q = read_program(j)\n"
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)\n" % (str(ROOT), path))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(out.stdout.strip())


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
                    help="largest size to run xdsl-opt on (it takes ~50 s at 100k)")
    ap.add_argument("--json", dest="json_out", help="write the results here as JSON")
    args = ap.parse_args()

    from pirc.paddle_json.reader import read_program
    from pirc.paddle_json.writer import write_program
    from pirc.text.canonical_printer import print_canonical
    from pirc.text.paddle_printer import print_paddle
    from pirc.text.parser import parse_text

    rows = []
    tmp = Path(tempfile.mkdtemp(prefix="pirc-bench-"))
    xdsl_opt = shutil.which("xdsl-opt")
    mlir_opt = shutil.which("mlir-opt-19")
    for n in (int(s) for s in args.sizes.split(",")):
        text = generate(n)
        path = tmp / f"p{n}.pir"
        path.write_text(text)
        parse_s, program = timed(lambda: parse_text(text, "bench", 4), args.runs)
        canon_s, canon = timed(lambda: print_canonical(program), args.runs)
        paddle_s, _ = timed(lambda: print_paddle(program), args.runs)
        canon_parse_s, _ = timed(lambda: parse_text(canon, "bench"), args.runs)
        jwrite_s, jtext = timed(lambda: write_program(program), args.runs)
        jread_s, _ = timed(lambda: read_program(jtext), args.runs)
        row = {
            "ops": program.op_count(), "text_mb": round(len(text) / 1e6, 1),
            "json_mb": round(len(jtext) / 1e6, 1),
            "parse_paddle_text_s": parse_s, "parse_canonical_s": canon_parse_s,
            "print_canonical_s": canon_s, "print_paddle_s": paddle_s,
            "json_read_s": jread_s, "json_write_s": jwrite_s,
            "peak_rss_mb": child_peak_rss(str(path)),
        }
        mlir = tmp / f"p{n}.mlir"
        mlir.write_text(to_generic_mlir(program))
        if mlir_opt:
            row["mlir_opt_roundtrip_s"] = external(
                [mlir_opt, "--allow-unregistered-dialect", "--mlir-print-op-generic", str(mlir), "-o", os.devnull],
                args.runs)
        if xdsl_opt and n <= args.external_max:
            row["xdsl_opt_roundtrip_s"] = external(
                [xdsl_opt, "--allow-unregistered-dialect", "--print-op-generic", str(mlir), "-o", os.devnull], 1)
        rows.append(row)
        print(json.dumps(row), flush=True)
    shutil.rmtree(tmp)
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
