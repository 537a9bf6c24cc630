"""Passes benchmark: what `pirc-opt --pipeline=default` adds to a run, beside mlir-opt-19, and
what the rewrite cache saves on a model's repeated layers.

Programs, each as saved JSON: tools/bench_frontend.py's generated programs at --sizes
(copies of the top-level ops of Paddle 3.3.1's transformer, cnn and mlp, through Paddle
text), the real transformer program (tests/fixtures/corpus/3.3.1/transformer.3.3.1.json)
copied to --transformer-sizes ops by tools/bench_json.py (its JSON ops repeated, value ids
shifted), and the --corpus largest corpus programs by op count (tests/fixtures and the
shared corpus, one per model).  A program of a million ops or more runs without the
warm-up and the --no-verify-each job (the smaller ones warmed the caches; a run takes
minutes): the scaling table sets its seconds and peak memory per op beside the 100k figures
of the same program (issue 24's target: within 15%).

Whole process, the median of --runs interleaved runs of each command after a warm-up (as
bench_frontend.py times them: the wall time of the real `pirc-opt` of this Python's
environment, run on this checkout):

* `pirc-opt P.json -o OUT.json` (read, verify, write: no pipeline);
* the same with `--pipeline=default --no-verify-each`, and with `--pipeline=default`; what
  the pipeline adds is the difference of the medians, and each pass's own seconds come
  from `--pass-report` (the pass alone: its invariants and the verifier are not in them);
* beside it, `mlir-opt-19 --allow-unregistered-dialect` on the same program as generic MLIR
  (bench_frontend.to_generic_mlir), without and with `--canonicalize --cse`.  MLIR knows
  nothing of unregistered ops (no folders, no purity), so its passes rewrite nothing there:
  its figure is what a C++ pass manager takes to walk a program of that size, not the
  same work.

Rewrite cache: a program of --layers identical layers, each with a constant subgraph
(`full` * `full`, scaled: const-fold's) and parameter subgraphs (a weight transposed, a bias
reshaped: param-fold's, the parameters given, the same values in every layer), against one
layer and --layers - 1 layers, the default pipeline timed in process (fresh process each
run, `gc` off as pirc-opt runs), with the process's rewrite cache on and off
(`PIRC_REWRITE_CACHE=0`, a benchmark knob of pirc.passes.infra.rewrites): the cache's hits
and misses per pass, and the cost of the last layer (the --layers program less the one
with a layer fewer) against the first (the one-layer program).  Real models' layers hold
different weights: param-fold's key holds their bytes, so there it misses in every layer.

    python tools/bench_passes.py [--sizes 10000,100000] [--transformer-sizes 100000,1000000]
                                 [--corpus 3] [--runs 3] [--layers 100] [--fuse] [--record]
                                 [--json OUT]

The environment's PIRC_VERIFY_EACH is dropped: `--pipeline=default` verifies at its default
level (incremental), as a user's run does.

`--fuse` (issue 22) also runs `--pipeline=fuse` with and without verify-each and reports what
it adds to `--pipeline=default` (the difference of the two medians) beside the fusion passes'
own seconds from the pass report; the target is at most 0.3 s at 10k ops.
`python tools/bench_passes.py --sizes 10000 --corpus 0 --layers 0 --fuse --runs 5` is that
measurement alone.

`--record` appends the tables, with the date, commit, machine and CPU, to the "Passes"
section of docs/PERFORMANCE.md, after the rows already there (history is never rewritten).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

from bench_frontend import generate, pirc_opt_command, process_env, to_generic_mlir  # noqa: E402
from bench_frontend import whole_process  # noqa: E402
from bench_json import make_program  # noqa: E402

CORPUS_ROOTS = (ROOT / "tests" / "fixtures", Path("/work/shared/corpus/paddle"))
PERFORMANCE = ROOT / "docs" / "PERFORMANCE.md"
SECTION = re.compile(r"^## Passes\b")
# Issue 24's targets, on the 2-core VM: seconds `-p default` (incremental verification) adds
# at 100k and at 10k ops, and how far 1M ops may stray from the 100k figures per op.
TARGETS = {100_000: 1.0, 10_000: 0.1}
SCALING_TARGET = 0.15
BIG = 1_000_000   # from here on: no warm-up, no --no-verify-each job
FUSE_TARGET = 0.3   # issue 22: seconds `-p fuse` may add to `-p default` at 10k ops


def machine() -> dict:
    """Where the figures were taken: CPU model (/proc/cpuinfo), cores, memory, versions, load."""
    model = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
        mem_kb = next(int(line.split()[1]) for line in Path("/proc/meminfo").read_text().splitlines()
                      if line.startswith("MemTotal"))
    except (OSError, StopIteration):
        mem_kb = 0
    mlir = shutil.which("mlir-opt-19")
    mlir_version = None
    if mlir:
        out = subprocess.run([mlir, "--version"], capture_output=True, text=True).stdout
        mlir_version = next((line.strip() for line in out.splitlines() if "version" in line.lower()), None)
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True).stdout.strip()
    return {"cpu": model, "cores": os.cpu_count(), "memory_gib": round(mem_kb / 2**20, 1),
            "python": platform.python_version(), "xdsl": metadata.version("xdsl"),
            "mlir_opt": mlir_version, "commit": commit + ("+changes" if dirty else ""),
            "load_start": round(os.getloadavg()[0], 2)}


def largest_corpus(count: int) -> list[tuple[str, Path, int]]:
    """The `count` largest corpus programs by op count, one per model (the newest release's
    file where two tie), as (name, path, ops)."""
    from pirc.errors import PircError
    from pirc.paddle_json.reader import read_program

    found = []
    for root in CORPUS_ROOTS:
        if not root.is_dir():
            continue
        for path in sorted(root.rglob("*.json")):
            if "fuzz_crashes" in path.parts or path.name.startswith("gen_log"):
                continue
            try:
                program = read_program(path.read_text(), str(path))
            except (PircError, ValueError, KeyError, TypeError):
                continue  # not a program (a log, a manifest) or one the reader refuses
            found.append((program.op_count(), path.name[: -len(".json")], path))
    picked, models = [], set()
    for ops, stem, path in sorted(found, key=lambda f: (-f[0], f[1].split(".")[0], -_release_key(f[1]))):
        model = stem.split(".")[0]
        if model not in models:
            models.add(model)
            picked.append((stem, path, ops))
        if len(picked) == count:
            break
    return picked


def _release_key(stem: str) -> int:
    m = re.search(r"\.(\d+)\.(\d+)\.(\d+)", stem)
    return int("".join(f"{int(g):03d}" for g in m.groups())) if m else 0


def _median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def program_row(name: str, src: Path, tmp: Path, runs: int, env: dict, fuse: bool = False) -> dict:
    """pirc-opt without and with the default pipeline, and mlir-opt-19 beside it, on `src`;
    with `fuse`, also `--pipeline=fuse` (issue 22: what the portable fusions add to default)."""
    from pirc.paddle_json.reader import read_program

    program = read_program(src.read_text(), str(src))
    mlir_file = tmp / f"{name}.mlir"
    mlir_file.write_text(to_generic_mlir(program))
    ops = program.op_count()
    del program
    opt = pirc_opt_command()
    out = tmp / "out.json"
    reports = {"no_verify_each": tmp / "report-nv.json", "verify_each": tmp / "report-v.json"}
    big = ops >= BIG
    jobs = {
        "plain": [*opt, src, "-o", out],
        "no_verify_each": [*opt, src, "--pipeline=default", "--no-verify-each",
                           "--pass-report", reports["no_verify_each"], "-o", out],
        "verify_each": [*opt, src, "--pipeline=default", "--pass-report", reports["verify_each"], "-o", out],
    }
    if fuse:
        reports.update({"fuse_no_verify_each": tmp / "report-fnv.json",
                        "fuse_verify_each": tmp / "report-fv.json"})
        jobs["fuse_no_verify_each"] = [*opt, src, "--pipeline=fuse", "--no-verify-each",
                                       "--pass-report", reports["fuse_no_verify_each"], "-o", out]
        jobs["fuse_verify_each"] = [*opt, src, "--pipeline=fuse", "--pass-report",
                                    reports["fuse_verify_each"], "-o", out]
    if big:   # each pipeline's --no-verify-each job, --fuse's too (its "added" is over it)
        for job in ("no_verify_each", "fuse_no_verify_each"):
            jobs.pop(job, None)
            reports.pop(job, None)
    mlir_opt = shutil.which("mlir-opt-19")
    if mlir_opt:
        base = [mlir_opt, "--allow-unregistered-dialect", mlir_file, "-o", os.devnull]
        jobs["mlir_plain"] = base
        jobs["mlir_passes"] = [*base[:2], "--canonicalize", "--cse", *base[2:]]
    for cmd in jobs.values() if not big else ():  # warm-up: bytecode, spec and grammar caches
        whole_process(cmd, env)
    wall: dict = {job: [] for job in jobs}
    cpu: dict = {job: [] for job in jobs}
    rss: dict = {job: [] for job in jobs}
    pass_s: dict = {}
    ops_after, fused_ops_after, fusions = None, None, {}
    for _ in range(runs):
        for job, cmd in jobs.items():
            got = whole_process(cmd, env)
            if got is None:
                continue
            wall[job].append(got[0])
            cpu[job].append(got[1])
            rss[job].append(got[2])
            if job in reports:
                report = json.loads(reports[job].read_text())
                for p in report["passes"]:
                    pass_s.setdefault((job, p["name"]), []).append(p["seconds"])
                if job.startswith("fuse"):
                    fused_ops_after = report["passes"][-1]["ops_after"]
                    fusions = {p["name"]: p.get("rewrites", 0) for p in report["passes"]
                               if p["name"].startswith("fuse-")}
                else:
                    ops_after = report["passes"][-1]["ops_after"]
    row = {"program": name, "ops": ops, "ops_after": ops_after, "fused_ops_after": fused_ops_after,
           "fusions": fusions}
    for job in jobs:
        row[f"{job}_s"] = _median(wall[job])
        row[f"{job}_cpu_s"] = _median(cpu[job])
        row[f"{job}_rss_mb"] = _median(rss[job])
    for job in reports:
        base = job[len("fuse_"):] if job.startswith("fuse_") else "plain"   # fuse over default
        if row[f"{job}_s"] is not None and row[f"{base}_s"] is not None:
            row[f"{job}_added_s"] = row[f"{job}_s"] - row[f"{base}_s"]
            row[f"{job}_added_cpu_s"] = row[f"{job}_cpu_s"] - row[f"{base}_cpu_s"]
        row[f"{job}_passes_s"] = {p: _median(t) for (j, p), t in sorted(pass_s.items()) if j == job}
    if mlir_opt and row["mlir_plain_s"] is not None and row["mlir_passes_s"] is not None:
        row["mlir_added_s"] = row["mlir_passes_s"] - row["mlir_plain_s"]
    return row


# One in-process pipeline run per child: the cache is process-wide, and a fresh process is
# what a pirc-opt run (or a model of a zoo migration) starts from.  torch (which param-fold's
# evaluation imports) is imported before the clock starts: the first layer's figure is the
# work of planning it, not an import.  The cache's lookups are counted per pass.
_CACHE_CHILD = """
import gc, json, sys, time
sys.path.insert(0, {root!r})
gc.disable()
import numpy as np
import torch  # noqa: F401
import pirc
import pirc.lower  # noqa: F401
from pirc.passes.infra.rewrites import CACHE
program = pirc.load({path!r})
params = {{}}
for op in program.walk():
    if op.name == "builtin.parameter":
        shape = tuple(op.results[0].type.shape)
        size = int(np.prod(shape))
        params[op.attributes["parameter_name"].data] = (np.arange(size, dtype=np.float32) / size).reshape(shape)
by_pass = {{}}
get = CACHE.get
def counted(key):
    plan = get(key)
    entry = by_pass.setdefault(key[1], [0, 0])
    entry[0 if plan is not None else 1] += 1
    return plan
CACHE.get = counted
t0 = time.perf_counter()
result = pirc.run_pipeline(program, "default", params=params)
seconds = time.perf_counter() - t0
print(json.dumps({{"s": seconds, "by_pass": by_pass, "enabled": CACHE.enabled,
                  "rewrites": {{p.name: p.rewrites for p in result.passes}}, "ops": program.op_count()}}))
"""

# One layer of the rewrite-cache program: a constant subgraph for const-fold (full * full,
# scaled), a weight transposed and a bias reshaped for param-fold, then matmul, two adds and
# a relu.  {x}: the layer's input; value ids from {v}; parameters named by layer {i}.
_LAYER = """\
    (%{v0}) = "pd_op.full" () {{dtype:float32,place:Place(cpu),shape:[16],stop_gradient:[true],value:0.5}} : () -> tensor<16xf32>
    (%{v1}) = "pd_op.full" () {{dtype:float32,place:Place(cpu),shape:[16],stop_gradient:[true],value:2}} : () -> tensor<16xf32>
    (%{v2}) = "pd_op.multiply" (%{v0}, %{v1}) {{stop_gradient:[true]}} : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    (%{v3}) = "pd_op.full" () {{dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:3}} : () -> tensor<1xf32>
    (%{v4}) = "pd_op.scale" (%{v2}, %{v3}) {{bias:1,bias_after_scale:true,stop_gradient:[true]}} : (tensor<16xf32>, tensor<1xf32>) -> tensor<16xf32>
    (%{v5}) = "builtin.parameter" () {{is_distributed:[false],is_parameter:[true],need_clip:[true],parameter_name:"layer_{i}.w_0",persistable:[true],stop_gradient:[false],trainable:[true]}} : () -> tensor<16x16xf32>
    (%{v6}) = "pd_op.transpose" (%{v5}) {{perm:[1,0],stop_gradient:[false]}} : (tensor<16x16xf32>) -> tensor<16x16xf32>
    (%{v7}) = "builtin.parameter" () {{is_distributed:[false],is_parameter:[true],need_clip:[true],parameter_name:"layer_{i}.b_0",persistable:[true],stop_gradient:[false],trainable:[true]}} : () -> tensor<16xf32>
    (%{v8}) = "pd_op.full_int_array" () {{dtype:int64,place:Place(cpu),stop_gradient:[true],value:[1,16]}} : () -> tensor<2xi64>
    (%{v9}) = "pd_op.reshape" (%{v7}, %{v8}) {{stop_gradient:[false]}} : (tensor<16xf32>, tensor<2xi64>) -> tensor<1x16xf32>
    (%{v10}) = "pd_op.matmul" (%{x}, %{v6}) {{stop_gradient:[false],transpose_x:false,transpose_y:false}} : (tensor<-1x16xf32>, tensor<16x16xf32>) -> tensor<-1x16xf32>
    (%{v11}) = "pd_op.add" (%{v10}, %{v9}) {{stop_gradient:[false]}} : (tensor<-1x16xf32>, tensor<1x16xf32>) -> tensor<-1x16xf32>
    (%{v12}) = "pd_op.add" (%{v11}, %{v4}) {{stop_gradient:[false]}} : (tensor<-1x16xf32>, tensor<16xf32>) -> tensor<-1x16xf32>
    (%{v13}) = "pd_op.relu" (%{v12}) {{stop_gradient:[false]}} : (tensor<-1x16xf32>) -> tensor<-1x16xf32>
"""
_LAYER_VALUES = 14


def layers_program(layers: int) -> str:
    """Paddle text (PIR version 4) of `layers` identical layers (`_LAYER`) after one feed."""
    lines = ["{", '    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),'
                  'shape:[-1,16],stop_gradient:[true]} : () -> tensor<-1x16xf32>']
    x = 0
    for i in range(layers):
        base = 1 + i * _LAYER_VALUES
        values = {f"v{k}": base + k for k in range(_LAYER_VALUES)}
        lines.append(_LAYER.format(x=x, i=i, **values).rstrip("\n"))
        x = base + _LAYER_VALUES - 1
    lines.append(f'    (%{x + 1}) = "pd_op.fetch" (%{x}) {{col:0,name:"out",persistable:[true],'
                 f'stop_gradient:[false]}} : (tensor<-1x16xf32>) -> tensor<-1x16xf32>')
    lines.append("}")
    return "\n".join(lines) + "\n"


# The pipeline alone, in process (no read, verify or write): what `fuse` adds to `default`
# with the whole-process noise of a shared machine left out.
_PIPELINE_CHILD = """
import gc, json, sys, time
sys.path.insert(0, {root!r})
gc.disable()
import pirc
program = pirc.load({path!r})
t0 = time.perf_counter()
pirc.run_pipeline(program, {pipeline!r})
print(json.dumps({{"s": time.perf_counter() - t0}}))
"""


def in_process_fuse(path: Path, runs: int) -> dict:
    """Median seconds of run_pipeline(default) and (fuse) on `path`, each in a fresh process,
    the two interleaved."""
    env = dict(process_env(), PYTHONPATH=str(ROOT))
    got: dict = {"default": [], "fuse": []}
    for _ in range(runs):
        for pipeline in got:
            code = _PIPELINE_CHILD.format(root=str(ROOT), path=str(path), pipeline=pipeline)
            r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
            if r.returncode != 0:
                raise RuntimeError(r.stderr[-2000:])
            got[pipeline].append(json.loads(r.stdout.splitlines()[-1])["s"])
    return {k: _median(v) for k, v in got.items()}


CACHED_PASSES = ("const-fold", "param-fold")


def _memory_short(name: str, rows: list[dict]) -> str | None:
    """Why a program of a million ops or more would not fit in the memory available now (its
    100k run's peak RSS per op, times 1.5), or None."""
    m = re.search(r"(\d+)k\b", name)
    if m is None or int(m.group(1)) * 1000 < BIG:
        return None
    small = next((r for r in rows if r["program"] == name.replace(m.group(0), "100k")), None)
    if small is None or not small.get("verify_each_rss_mb"):
        return None
    need = 1.5 * small["verify_each_rss_mb"] / small["ops"] * int(m.group(1)) * 1000 / 1024
    try:
        available = next(int(line.split()[1]) for line in Path("/proc/meminfo").read_text().splitlines()
                         if line.startswith("MemAvailable")) / 2**20
    except (OSError, StopIteration):
        return None
    return f"needs about {need:.1f} GiB, {available:.1f} GiB available" if need > available else None


def cache_rows(tmp: Path, layers: int, runs: int) -> list[dict]:
    """The default pipeline, with parameters, on 1, `layers` - 1 and `layers` identical
    layers (`layers_program`), cache on and off: seconds, and the cache's hits and misses
    per pass on the `layers` program."""
    from pirc.paddle_json.writer import write_program
    from pirc.text.parser import parse_text

    files = {}
    for n in (1, layers - 1, layers):
        path = tmp / f"layers{n}.json"
        program = parse_text(layers_program(n), "bench", 4)
        path.write_text(write_program(program))
        files[n] = (path, program.op_count())
    rows = []
    for enabled in (True, False):
        env = dict(process_env(), PYTHONPATH=str(ROOT), PIRC_REWRITE_CACHE="1" if enabled else "0")
        env.pop("PIRC_VERIFY_EACH", None)
        got: dict = {n: [] for n in files}
        for _ in range(runs):   # interleaved: the machine's load moves all three alike
            for n, (path, _) in files.items():
                code = _CACHE_CHILD.format(root=str(ROOT), path=str(path))
                r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
                if r.returncode != 0:
                    raise RuntimeError(r.stderr[-2000:])
                got[n].append(json.loads(r.stdout.splitlines()[-1]))
        assert all(x["enabled"] == enabled for xs in got.values() for x in xs)
        seconds = {n: _median([x["s"] for x in xs]) for n, xs in got.items()}
        last = got[layers][-1]
        rows.append({"cache": "on" if enabled else "off", "layer_ops": files[1][1],
                     "layers_ops": files[layers][1], "one_s": seconds[1],
                     "prev_s": seconds[layers - 1], "many_s": seconds[layers],
                     "last_layer_s": seconds[layers] - seconds[layers - 1],
                     "per_layer_s": (seconds[layers] - seconds[1]) / (layers - 1),
                     "by_pass": {p: last["by_pass"].get(p, [0, 0]) for p in CACHED_PASSES},
                     "rewrites": {p: last["rewrites"].get(p, 0) for p in CACHED_PASSES}})
    return rows


def _hit_rate(hits_misses) -> str:
    hits, misses = hits_misses
    total = hits + misses
    return f"{hits} / {misses} ({hits / total:.0%})" if total else "0 / 0"


def scaling_rows(rows: list[dict]) -> list[dict]:
    """Per program base (the name without its size), the 1M-op figures per op against the
    100k-op ones: seconds and peak memory of the `--pipeline=default` run."""
    out = []
    by_name = {r["program"]: r for r in rows}
    for r in rows:
        if r["ops"] < BIG:
            continue
        base = re.sub(r"\d+k\b", "100k", r["program"])
        small = by_name.get(base)
        if small is None or small["ops"] >= BIG:
            continue
        entry = {"program": re.sub(r"\s*\d+k\b", "", r["program"]).strip(), "small": small, "big": r}
        for key in ("verify_each_s", "verify_each_cpu_s", "verify_each_rss_mb", "plain_cpu_s",
                    "plain_rss_mb"):
            a, b = small.get(key), r.get(key)
            entry[key] = (b / r["ops"]) / (a / small["ops"]) if a and b else None
        out.append(entry)
    return out


def _s(value, digits: int = 3, sign: str = "") -> str:
    return "" if value is None else f"{value:{sign}.{digits}f}"


def _added(value, digits: int = 3) -> str:
    return _s(value, digits, "+")


def _in_process(got) -> str:
    if not got or got.get("default") is None or got.get("fuse") is None:
        return ""
    got["added"] = got["fuse"] - got["default"]
    return f"{_s(got['default'])}, {_s(got['fuse'])}, {_added(got['added'])}"


def _passes(times: dict) -> str:
    return " / ".join(f"{name} {t:.3f}" for name, t in times.items())


def markdown(info: dict, rows: list[dict], cache: list[dict], layers: int, command: str) -> str:
    lines = [f"### {info['date']}, commit {info['commit']}: `{command}`", "",
             f"Machine: {info['cores']}-core, CPU \"{info['cpu']}\" (/proc/cpuinfo model name), "
             f"{info['memory_gib']} GiB, Python {info['python']}, xdsl {info['xdsl']}, "
             f"{info['mlir_opt'] or 'no mlir-opt-19'}; load average {info['load_start']} at the start, "
             f"{info['load_end']} at the end.  Whole process, wall seconds, medians of {info['runs']} "
             "interleaved runs (a program of 1M ops: no warm-up, no --no-verify-each job); `+` = "
             "what the pipeline adds to the run without one (CPU seconds in brackets); `+ default` "
             "verifies incrementally (the default level); pass seconds from `--pass-report`; peak "
             "RSS of the `-p default` run.", "",
             "| program | ops (after) | pirc-opt, no pipeline | + default --no-verify-each "
             "| + default | peak MB | passes (report, verify-each) | mlir-opt-19 round trip "
             "| + --canonicalize --cse |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(
            f"| {r['program']} | {r['ops']} ({r['ops_after']}) | {_s(r['plain_s'])} "
            f"| {_added(r.get('no_verify_each_added_s'))} ({_added(r.get('no_verify_each_added_cpu_s'))}) "
            f"| {_added(r.get('verify_each_added_s'))} ({_added(r.get('verify_each_added_cpu_s'))}) "
            f"| {_s(r.get('verify_each_rss_mb'), 0)} "
            f"| {_passes(r['verify_each_passes_s'])} | {_s(r.get('mlir_plain_s'))} "
            f"| {_added(r.get('mlir_added_s'))} |")
    verdicts = []
    for size, limit in TARGETS.items():
        for r in (r for r in rows if abs(r["ops"] - size) <= size // 100):
            added, cpu = r.get("verify_each_added_s"), r.get("verify_each_added_cpu_s")
            met = added is not None and cpu is not None and max(added, cpu) <= limit
            verdicts.append(f"{r['program']} {_added(added, 2)} s wall, {_added(cpu, 2)} s CPU "
                            f"(target <= {limit} s: {'met' if met else '**not met**'})")
    if verdicts:
        lines += ["", "What `-p default` adds (incremental verification; met when both wall and "
                      "CPU are within): " + "; ".join(verdicts) + "."]
    scaling = scaling_rows(rows)
    if scaling:
        lines += ["", f"1M ops against 100k ops, per op (JSON in, JSON out): the ratio of the "
                      f"1M run's seconds (peak RSS) per op to the 100k run's (target: within "
                      f"{SCALING_TARGET:.0%}); CPU seconds, which the machine's load moves "
                      f"less than wall seconds (the wall ratio beside them).", "",
                  "| program | -p default CPU µs/op 100k -> 1M | ratio (wall) | peak KB/op 100k -> 1M "
                  "| ratio | no pipeline: CPU ratio | RSS ratio |",
                  "|---|---|---|---|---|---|---|"]
        for e in scaling:
            small, big = e["small"], e["big"]
            us = lambda r, k: _s(1e6 * r[k] / r["ops"], 1) if r.get(k) else ""  # noqa: E731
            kb = lambda r, k: _s(1024 * r[k] / r["ops"], 2) if r.get(k) else ""  # noqa: E731
            ratio = lambda x: "" if x is None else f"{x:.2f}" + ("" if abs(x - 1) <= SCALING_TARGET else " **over**")  # noqa: E731
            lines.append(f"| {e['program']} | {us(small, 'verify_each_cpu_s')} -> "
                         f"{us(big, 'verify_each_cpu_s')} | {ratio(e['verify_each_cpu_s'])} "
                         f"({ratio(e['verify_each_s'])}) | {kb(small, 'verify_each_rss_mb')} -> "
                         f"{kb(big, 'verify_each_rss_mb')} | {ratio(e['verify_each_rss_mb'])} "
                         f"| {ratio(e['plain_cpu_s'])} | {ratio(e['plain_rss_mb'])} |")
    fused = [r for r in rows if r.get("fuse_verify_each_s") is not None]
    if fused:
        lines += ["", "`--pipeline=fuse` against `--pipeline=default` (issue 22): the same runs, "
                      "what fuse adds to default (CPU seconds in brackets), and the fusion "
                      "passes' own seconds from `--pass-report` (verify-each).", "",
                  "| program | ops (after default / fuse) | + fuse --no-verify-each | + fuse "
                  "| in process: default, fuse, + fuse | fusion passes (report) | rewrites |",
                  "|---|---|---|---|---|---|---|"]
        for r in fused:
            own = {k: v for k, v in r["fuse_verify_each_passes_s"].items() if k.startswith("fuse-")}
            lines.append(
                f"| {r['program']} | {r['ops']} ({r['ops_after']} / {r['fused_ops_after']}) "
                f"| {_added(r.get('fuse_no_verify_each_added_s'))} "
                f"({_added(r.get('fuse_no_verify_each_added_cpu_s'))}) "
                f"| {_added(r.get('fuse_verify_each_added_s'))} "
                f"({_added(r.get('fuse_verify_each_added_cpu_s'))}) "
                f"| {_in_process(r.get('in_process'))} "
                f"| {_s(sum(own.values()))}: {_passes(own)} "
                f"| {', '.join(f'{k} {v}' for k, v in r['fusions'].items() if v) or 'none'} |")
        # the target is stated at 10k ops: a run of only larger programs gets no verdict
        at10k = [r for r in fused if 10_000 <= r["ops"] < 20_000]
        if at10k:
            r = min(at10k, key=lambda r: r["ops"])
            verdicts = []
            for what, added in (("whole process, wall", r.get("fuse_verify_each_added_s")),
                                ("whole process, CPU", r.get("fuse_verify_each_added_cpu_s")),
                                ("in process", (r.get("in_process") or {}).get("added"))):
                met = added is not None and added <= FUSE_TARGET
                verdicts.append(f"{what} {_added(added, 2)} s ({'met' if met else '**not met**'})")
            lines += ["", f"At {r['ops']} ops, what fuse adds to default (target <= "
                          f"{FUSE_TARGET} s): " + "; ".join(verdicts) + "."]
    if cache:
        lines += ["", f"Rewrite cache: the default pipeline in process, with parameters, on 1, "
                      f"{layers - 1} and {layers} identical layers ({cache[0]['layer_ops']} and "
                      f"{cache[0]['layers_ops']} ops; constant and parameter subgraphs in each), "
                      f"medians of {info['runs']} fresh processes; the last layer's cost is the "
                      f"{layers}-layer run less the {layers - 1}-layer one.", "",
                  f"| cache | 1 layer, s | {layers} layers, s | last layer, s | last / first "
                  f"| per later layer (mean), s | const-fold hits / misses | param-fold hits / misses "
                  "| rewrites (const-fold, param-fold) |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for c in cache:
            lines.append(f"| {c['cache']} | {_s(c['one_s'], 4)} | {_s(c['many_s'])} "
                         f"| {_s(c['last_layer_s'], 4)} | {c['last_layer_s'] / c['one_s']:.2f} "
                         f"| {_s(c['per_layer_s'], 4)} | {_hit_rate(c['by_pass']['const-fold'])} "
                         f"| {_hit_rate(c['by_pass']['param-fold'])} "
                         f"| {c['rewrites']['const-fold']}, {c['rewrites']['param-fold']} |")
    return "\n".join(lines) + "\n"


def record(text: str, doc: Path = PERFORMANCE) -> None:
    """Append `text` at the end of the doc's "Passes" section (a new section at the end of
    the doc if it has none), after the entries already there."""
    lines = doc.read_text().splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if SECTION.match(line)), None)
    if start is None:
        lines += ["\n", "## Passes\n", "\n"]
        end = len(lines)
    else:
        end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    block = text if text.endswith("\n") else text + "\n"
    if end > 0 and lines[end - 1].strip():
        block = "\n" + block
    lines[end:end] = [block + ("\n" if end < len(lines) else "")]
    doc.write_text("".join(lines))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="10000,100000", help="generated programs' op counts")
    ap.add_argument("--transformer-sizes", default="100000,1000000",
                    help="op counts of the copies of the corpus transformer (JSON)")
    ap.add_argument("--corpus", type=int, default=3, help="how many of the largest corpus programs")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--layers", type=int, default=100, help="layers of the rewrite-cache program (0: skip)")
    ap.add_argument("--fuse", action="store_true",
                    help="also run --pipeline=fuse and say what it adds to default (issue 22)")
    ap.add_argument("--record", action="store_true", help="append the tables to docs/PERFORMANCE.md")
    ap.add_argument("--json", dest="json_out", help="write the results here as JSON")
    args = ap.parse_args()

    from pirc.paddle_json.writer import write_program
    from pirc.text.parser import parse_text

    info = machine()
    info["runs"] = args.runs
    info["date"] = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    env = dict(process_env(), PYTHONPATH=str(ROOT))  # this checkout's pirc, not an installed one
    env.pop("PIRC_VERIFY_EACH", None)   # the default level, as a user's run
    tmp = Path(tempfile.mkdtemp(prefix="pirc-bench-passes-"))
    rows, skipped = [], []
    try:
        programs = [(f"{stem} (corpus)", path)
                    for stem, path, _ in (largest_corpus(args.corpus) if args.corpus else [])]
        for n in (int(s) for s in args.sizes.split(",") if s):
            path = tmp / f"p{n}.json"
            path.write_text(write_program(parse_text(generate(n), "bench", 4)))
            programs.append((f"generated {n // 1000}k", path))
        for n in (int(s) for s in args.transformer_sizes.split(",") if s):
            path = tmp / f"t{n}.json"
            path.write_text(json.dumps(make_program(n, ("transformer",)), separators=(",", ":")))
            programs.append((f"transformer {n // 1000}k", path))
        for name, path in programs:
            too_big = _memory_short(name, rows)
            if too_big:
                print(f"{name}: skipped: {too_big}", file=sys.stderr, flush=True)
                skipped.append(f"{name}: {too_big}")
                continue
            row = program_row(re.sub(r"\W+", "_", name), path, tmp, args.runs, env, args.fuse)
            if args.fuse:
                row["in_process"] = in_process_fuse(path, args.runs)
            row["program"] = name
            rows.append(row)
            print(json.dumps(row), file=sys.stderr, flush=True)
        cache = cache_rows(tmp, args.layers, args.runs) if args.layers else []
    finally:
        shutil.rmtree(tmp)
    info["load_end"] = round(os.getloadavg()[0], 2)
    command = "python tools/bench_passes.py " + " ".join(sys.argv[1:])
    text = markdown(info, rows, cache, args.layers, command.strip())
    if skipped:
        text += "\nNot run (memory): " + "; ".join(skipped) + ".\n"
    print(text)
    if args.record:
        record(text)
    if args.json_out:
        Path(args.json_out).write_text(json.dumps({"machine": info, "programs": rows, "cache": cache},
                                                  indent=1, default=str) + "\n")


if __name__ == "__main__":
    main()
