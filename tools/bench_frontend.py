"""Front-end benchmark: parse, print, JSON read and write of 1k/10k/100k-op programs,
and the whole `pirc-opt` process beside them (and beside Paddle's own C++).

The programs repeat the top-level ops of real corpus programs (Paddle 3.3.1's
transformer, cnn and mlp) with their values renumbered, so op shapes,
attribute dictionaries and signatures repeat as they do in real models.
Each figure is the median of several runs of one phase, each in a fresh
process (as pirc-opt runs one job per process); peak memory is that
process's max RSS, input text and the phase's own input included.  Beside pirc: `xdsl-opt` and `mlir-opt-19`
round-tripping the same program as generic MLIR (if installed).

Whole process: the wall time of the real `pirc-opt` command (the console script of this
Python's environment), median of --runs runs: start-up on a 10-op file (JSON and canonical
text), and at each size the JSON round trip (`pirc-opt big.json --emit=json -o out.json`),
the canonical text round trip (`pirc-opt big.pir -o out.pir`) and Paddle text -> Paddle
text.  With `--paddle-python PY` (a Python with paddlepaddle, never pirc's venv), Paddle's
own C++ load + save of the same JSON (tools/paddle_json_roundtrip.py) runs interleaved with
pirc's runs, and each pirc figure is also given as a ratio to it: the machine's load changes
between minutes, a ratio within one run much less.  The runs use bytecode caches and pirc's
user cache (a warm-up run fills them), as an installed pirc does after its first run.

    python tools/bench_frontend.py [--sizes 1000,10000,100000] [--runs 3] [--phases/--no-phases]
                                   [--paddle-python /work/venv-paddle/bin/python] [--json OUT]
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


# Runs the command and reports its wall time, CPU time and peak RSS.  A small process of its
# own: a child's peak RSS starts at its parent's size when forked (Linux keeps the high-water
# mark across exec), and this benchmark's own process holds the 100k-op program.
_MEASURE = """
import resource, subprocess, sys, time
t0 = time.perf_counter()
r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)
wall = time.perf_counter() - t0
u = resource.getrusage(resource.RUSAGE_CHILDREN)
print(wall, u.ru_utime + u.ru_stime, u.ru_maxrss / 1024, r.returncode)
"""


def whole_process(cmd, env=None) -> tuple[float, float, float] | None:
    """Wall time (s), CPU time (user + system, s) and peak RSS (MB) of one run of `cmd`;
    None if it failed.  On a shared machine the CPU time is the steadier of the two."""
    r = subprocess.run([sys.executable, "-c", _MEASURE, *map(str, cmd)], capture_output=True,
                       text=True, env=env)
    wall, cpu, rss, status = r.stdout.split()
    if status != "0":
        print(f"failed: {' '.join(map(str, cmd))}: {r.stderr[-500:]}", file=sys.stderr)
        return None
    return float(wall), float(cpu), float(rss)


def pirc_opt_command() -> list[str]:
    """The `pirc-opt` a user runs: this environment's console script, else `python -m pirc`."""
    script = Path(sys.executable).with_name("pirc-opt")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "pirc"]


def process_env() -> dict:
    # As on a user's machine: Python writes and reads bytecode caches (some shells here set
    # PYTHONDONTWRITEBYTECODE, which recompiles every pirc module at each start).
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def paddle_roundtrip(paddle_python: str, src: Path, out: Path) -> tuple[float, float] | None:
    """Paddle's C++ load + save of `src`: (wall, CPU) seconds, as
    tools/paddle_json_roundtrip.py times it."""
    r = subprocess.run([paddle_python, str(ROOT / "tools" / "paddle_json_roundtrip.py"), str(src), str(out)],
                       capture_output=True, text=True)
    if r.returncode != 0:
        print(f"paddle failed: {r.stderr[-500:]}", file=sys.stderr)
        return None
    line = [x for x in r.stdout.splitlines() if x.startswith("{")][-1]
    got = json.loads(line)
    return got["load_s"] + got["save_s"], got["load_cpu_s"] + got["save_cpu_s"]


def _median(values):
    values = [v for v in values if v is not None]
    return round(statistics.median(values), 3) if values else None


def whole_process_row(files: dict, tmp: Path, runs: int, paddle_python: str | None) -> dict:
    """Median wall time and peak RSS of each pirc-opt job on `files`, interleaved with
    Paddle's load + save of the same JSON, and the ratios to it."""
    opt, env = pirc_opt_command(), process_env()
    out = tmp / "out"
    jobs = {
        "json_roundtrip": [*opt, str(files["json"]), "--emit=json", "-o", f"{out}.json"],
        "canonical_roundtrip": [*opt, str(files["canonical"]), "-o", f"{out}.pir"],
        "paddle_text_roundtrip": [*opt, str(files["text"]), "--from-version=4", "--emit=paddle",
                                  "-o", f"{out}.txt"],
    }
    for cmd in jobs.values():  # warm-up: bytecode, spec and grammar caches
        whole_process(cmd, env)
    times: dict = {name: [] for name in jobs}
    cpu: dict = {name: [] for name in jobs}
    rss: dict = {name: [] for name in jobs}
    paddle = []
    for _ in range(runs):
        for name, cmd in jobs.items():
            got = whole_process(cmd, env)
            if got is not None:
                times[name].append(got[0])
                cpu[name].append(got[1])
                rss[name].append(got[2])
        if paddle_python:
            paddle.append(paddle_roundtrip(paddle_python, files["json"], tmp / "paddle-out.json"))
    row = {}
    for name in jobs:
        row[f"pirc_opt_{name}_s"] = _median(times[name])
        row[f"pirc_opt_{name}_cpu_s"] = _median(cpu[name])
        row[f"pirc_opt_{name}_peak_mb"] = round(max(rss[name])) if rss[name] else None
    paddle = [p for p in paddle if p is not None]
    if paddle:
        ref = row["paddle_load_save_s"] = _median([p[0] for p in paddle])
        ref_cpu = row["paddle_load_save_cpu_s"] = _median([p[1] for p in paddle])
        for name in jobs:
            if row[f"pirc_opt_{name}_s"]:
                row[f"{name}_vs_paddle"] = round(row[f"pirc_opt_{name}_s"] / ref, 3)
                row[f"{name}_cpu_vs_paddle"] = round(row[f"pirc_opt_{name}_cpu_s"] / ref_cpu, 3)
    return row


def startup_row(tmp: Path, runs: int) -> dict:
    """Median wall time of pirc-opt on a 10-op program: JSON -> JSON and canonical -> canonical."""
    from pirc.paddle_json.writer import write_program
    from pirc.text.canonical_printer import print_canonical
    from pirc.text.parser import parse_text

    program = parse_text(generate(10), "bench", 4)
    small_json, small_pir = tmp / "small.json", tmp / "small.pir"
    small_json.write_text(write_program(program))
    small_pir.write_text(print_canonical(program))
    opt, env = pirc_opt_command(), process_env()
    jobs = {"json_10_ops": [*opt, str(small_json), "-o", str(tmp / "small-out.json")],
            "canonical_10_ops": [*opt, str(small_pir), "-o", str(tmp / "small-out.pir")],
            "python_c_pass": [sys.executable, "-c", "pass"]}  # the interpreter's own start
    for cmd in jobs.values():
        whole_process(cmd, env)
    times: dict = {name: [] for name in jobs}
    cpu: dict = {name: [] for name in jobs}
    for _ in range(runs):
        for name, cmd in jobs.items():
            got = whole_process(cmd, env)
            if got is not None:
                times[name].append(got[0])
                cpu[name].append(got[1])
    row = {f"startup_{name}_s": _median(t) for name, t in times.items()}
    row.update({f"startup_{name}_cpu_s": _median(t) for name, t in cpu.items()})
    return row


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
    ap.add_argument("--startup-runs", type=int, default=11, help="runs of the 10-op start-up")
    ap.add_argument("--phases", action=argparse.BooleanOptionalAction, default=True,
                    help="time each phase in a fresh process (--no-phases: whole process only)")
    ap.add_argument("--paddle-python", metavar="PY",
                    help="a Python with paddlepaddle: time Paddle's C++ load + save beside pirc-opt")
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
    start = startup_row(tmp, args.startup_runs)
    rows.append(start)
    print(json.dumps(start), flush=True)
    for n in (int(s) for s in args.sizes.split(",")):
        text = generate(n)
        program = parse_text(text, "bench", 4)
        files = {"text": tmp / f"p{n}.pir.txt", "canonical": tmp / f"p{n}.pir", "json": tmp / f"p{n}.json"}
        files["text"].write_text(text)
        files["canonical"].write_text(print_canonical(program))
        files["json"].write_text(write_program(program))
        row = {"ops": program.op_count(), "text_mb": round(len(text) / 1e6, 1),
               "json_mb": round(files["json"].stat().st_size / 1e6, 1)}
        del program
        if args.phases:
            peak = {}
            for phase, (kind, setup, timed) in PHASES.items():
                results = [child(str(files[kind]), setup, timed) for _ in range(args.runs)]
                row[phase + "_s"] = round(statistics.median(r[0] for r in results), 3)
                peak[phase] = round(max(r[1] for r in results))
            row["peak_rss_mb"] = peak
            mlir = tmp / f"p{n}.mlir"
            mlir.write_text(to_generic_mlir(parse_text(text, "bench", 4)))
            if mlir_opt:
                row["mlir_opt_roundtrip_s"] = external(
                    [mlir_opt, "--allow-unregistered-dialect", "--mlir-print-op-generic", str(mlir), "-o", os.devnull],
                    args.runs)
            if xdsl_opt and n <= args.external_max:
                row["xdsl_opt_roundtrip_s"] = external(
                    [xdsl_opt, "--allow-unregistered-dialect", "--print-op-generic", str(mlir), "-o", os.devnull], 1)
        row.update(whole_process_row(files, tmp, args.runs, args.paddle_python))
        rows.append(row)
        print(json.dumps(row), flush=True)
    shutil.rmtree(tmp)
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
