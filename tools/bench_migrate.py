"""Throughput of `pirc-migrate` on the dev zoo replicated to many models (issue 23, item 8).

    python tools/bench_migrate.py                          # 1,000 models: 1 and 2 pool workers
    python tools/bench_migrate.py --models 200 --runs pool:1,pool:2,dask:2,loop:1
    python tools/bench_migrate.py --write docs/PERFORMANCE.md

What it does:
1. Materialises the dev zoo (tools/zoo_weights.materialise: both releases, zoo and zoo2) and
   replicates it round-robin to `--models` programs under a scratch SRC, each replica
   perturbed so that no content hash repeats and no cache can serve one replica from another:
   one float parameter scaled by 1 + k * 2^-20 (k = the replica's number), or, for a model
   without parameters, k spaces after its JSON (the same program, other bytes).
2. Runs each configuration of `--runs` as a whole process, timed from start to exit:
   `pool:J` is `pirc-migrate SRC -o OUT --jobs J --check self`, `dask:J` the same with
   `--executor dask` (a LocalCluster of J one-thread workers, its start-up included),
   `loop:1` the same children driven by a plain loop in one process (no executor, no
   journal: pirc.migrate.isolate.run_isolated over pirc.migrate.job.migrate_model) - the
   baseline the engine's overhead is measured against.
3. Prints (and with --write records in docs/PERFORMANCE.md, "Zoo migration") per run: wall
   time, models per minute, the statuses, the speed-up over one worker, the engine's share of
   the wall time (against loop:1), the peak resident memory of the children per worker, and
   Dask's local-cluster start-up measured alone.

Targets (the issue): 1,000 models in under 10 minutes; 2 workers at least 1.7x one; the engine
under 5% of the wall time.  Numbers depend on the machine and its load: the tool records
both, and no test asserts a time.
"""

from __future__ import annotations

import argparse
import collections
import datetime
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)


def replicate(zoo: str, src: str, count: int) -> list[str]:
    """`count` perturbed copies of the materialised zoo's programs under `src`, round-robin."""
    import numpy as np

    import pirc
    from pirc.migrate.sources import find_models

    models = find_models(zoo)
    cache = {}
    written = []
    for k in range(count):
        model = models[k % len(models)]
        rel = os.path.join(f"r{k // len(models):03d}", model.path)
        out = os.path.join(src, rel)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        stem_in, stem_out = model.program[:-len(".json")], out[:-len(".json")]
        if model.params:
            shutil.copyfile(model.program, out)
            if model.path not in cache:
                program = pirc.load(model.program)
                cache[model.path] = (program, pirc.read_params(model.params, program))
            program, params = cache[model.path]
            params = dict(params)
            name = next((n for n, v in sorted(params.items())
                         if np.asarray(v).dtype.kind == "f" and np.asarray(v).size), None)
            if name is not None:
                params[name] = (np.asarray(params[name]) *
                                (1 + (k + 1) * 2.0 ** -20)).astype(np.asarray(params[name]).dtype)
            pirc.write_params(stem_out + ".pdiparams", params, program)
        else:
            with open(model.program, "rb") as f:
                data = f.read()
            with open(out, "wb") as f:
                f.write(data + b" " * (k + 1))
        if model.io:
            shutil.copyfile(model.io, stem_out + ".io.npz")
        written.append(rel)
    return written


def run_cli(src: str, out: str, executor: str, jobs: int, pipeline: str | None) -> dict:
    cmd = [sys.executable, "-m", "pirc.cli.migrate", src, "-o", out, "--jobs", str(jobs),
           "--check", "self", "--progress", "none", "--executor", executor]
    if pipeline:
        cmd += ["--pipeline", pipeline]
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} exited {proc.returncode}:\n{proc.stderr[-2000:]}")
    with open(os.path.join(out, "report.json"), encoding="utf-8") as f:
        report = json.load(f)
    return {"wall": wall, "models": report["models"]}


LOOP_CHILD = r"""
import json, os, sys, time
from pirc.migrate.isolate import run_isolated
from pirc.migrate.job import migrate_model
from pirc.migrate.options import MigrateOptions
from pirc.migrate.sources import find_models
src, out, pipeline = sys.argv[1], sys.argv[2], sys.argv[3] or None
options = MigrateOptions(None, pipeline=pipeline, check="self")
models = []
for source in find_models(src):
    o = run_isolated(migrate_model, (src, out, source, options))
    record = o.value if o.status is None else {"path": source.path, "status": o.status}
    record.update(seconds=o.seconds, peak_mb=o.peak_mb, worker="loop")
    models.append(record)
print(json.dumps(models))
"""


def run_loop(src: str, out: str, pipeline: str | None) -> dict:
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", LOOP_CHILD, src, out, pipeline or ""],
                          capture_output=True, text=True)
    wall = time.perf_counter() - start
    if proc.returncode:
        raise SystemExit(f"the plain loop failed:\n{proc.stderr[-2000:]}")
    return {"wall": wall, "models": json.loads(proc.stdout.splitlines()[-1])}


DASK_STARTUP = r"""
import time
start = time.perf_counter()
from dask.distributed import Client, LocalCluster
with LocalCluster(n_workers=int(__import__("sys").argv[1]), threads_per_worker=1,
                  processes=True, dashboard_address=None) as cluster, Client(cluster) as client:
    client.wait_for_workers(int(__import__("sys").argv[1]))
    print(time.perf_counter() - start)
"""


def dask_startup(jobs: int) -> float | None:
    proc = subprocess.run([sys.executable, "-c", DASK_STARTUP, str(jobs)], capture_output=True,
                          text=True)
    return float(proc.stdout.split()[-1]) if proc.returncode == 0 else None


def summarise(label: str, result: dict) -> dict:
    models = result["models"]
    statuses = collections.Counter(m["status"] for m in models)
    peaks = collections.defaultdict(list)
    for m in models:
        if isinstance(m.get("peak_mb"), (int, float)):
            peaks[m.get("worker") or "?"].append(m["peak_mb"])
    child = sum(m.get("seconds") or 0 for m in models)
    return {"run": label, "wall": result["wall"], "count": len(models),
            "per_minute": 60 * len(models) / result["wall"], "statuses": dict(sorted(statuses.items())),
            "child_seconds": child,
            "peak_mb": {w: (statistics.median(v), max(v)) for w, v in sorted(peaks.items())}}


def table(rows: list[dict], startup: dict) -> str:
    base = {r["run"]: r["wall"] for r in rows}
    one = base.get("pool:1")
    loop = base.get("loop:1")
    lines = ["| run | models | wall (s) | models / min | speed-up over pool:1 | engine share "
             "(1 worker, against loop:1) | statuses | child peak RSS per worker, median / max (MiB) |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        kind, jobs = r["run"].split(":")
        speed = f"{one / r['wall']:.2f}" if one and kind != "loop" else ""
        # the same children one at a time in a plain loop cost `loop`: what a one-worker run
        # spends beyond that is the engine's (with two workers the difference would also hold
        # how well two models share two cores, which is not the engine's)
        share = f"{100 * (r['wall'] - loop) / r['wall']:.1f}%" if loop and kind != "loop" and \
            jobs == "1" else ""
        peaks = ", ".join(f"{w}: {a:.0f} / {b:.0f}" for w, (a, b) in r["peak_mb"].items())
        statuses = ", ".join(f"{k} {v}" for k, v in r["statuses"].items())
        lines.append(f"| {r['run']} | {r['count']} | {r['wall']:.1f} | {r['per_minute']:.0f} | "
                     f"{speed} | {share} | {statuses} | {peaks} |")
    if startup:
        lines.append("")
        lines.append("Dask LocalCluster start-up (cluster + client, workers ready), alone: " +
                     ", ".join(f"{j} workers {s:.2f} s" for j, s in startup.items() if s is not None))
    return "\n".join(lines)


def write_section(path: str, entry: str) -> None:
    """Insert `entry` as the newest entry of docs/PERFORMANCE.md's "Zoo migration" section."""
    heading = "## Zoo migration"
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if heading not in text:
        text = text.rstrip("\n") + f"\n\n{heading}\n\nIssue 23: `tools/bench_migrate.py`; newest entry first.\n"
    head, _, rest = text.partition(heading)
    intro, sep, older = rest.partition("\n### ")
    text = head + heading + intro.rstrip("\n") + "\n\n" + entry.rstrip("\n") + "\n" + \
        (("\n### " + older) if sep else "")
    from pirc.atomic import write_atomically

    write_atomically(path, [text])


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--models", type=int, default=1000)
    p.add_argument("--runs", default="pool:1,pool:2",
                   help="comma list of pool:J, dask:J, loop:1 (default pool:1,pool:2)")
    p.add_argument("--pipeline", help="pass pipeline of every run (default: none, upgrade only)")
    p.add_argument("--workdir", help="scratch folder (default: a temporary one, removed)")
    p.add_argument("--write", metavar="PERFORMANCE.md", help="record the table there")
    return p.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    from tools.bench_run import commit, cpu_model
    from tools.zoo_weights import materialise

    work = args.workdir or tempfile.mkdtemp(prefix="bench-migrate-")
    try:
        zoo = os.path.join(work, "zoo")
        if not os.path.isdir(zoo):
            materialise(zoo)
        src = os.path.join(work, f"src{args.models}")
        if not os.path.isdir(src):
            replicate(zoo, src, args.models)
        rows, startup = [], {}
        for run in args.runs.split(","):
            kind, _, jobs = run.partition(":")
            out = os.path.join(work, "out-" + run.replace(":", "-"))
            shutil.rmtree(out, ignore_errors=True)
            if kind == "loop":
                result = run_loop(src, out, args.pipeline)
            else:
                result = run_cli(src, out, "dask" if kind == "dask" else "local", int(jobs),
                                 args.pipeline)
                if kind == "dask":
                    startup[int(jobs)] = dask_startup(int(jobs))
            rows.append(summarise(run, result))
            print(f"{run}: {rows[-1]['wall']:.1f} s, {rows[-1]['statuses']}", file=sys.stderr)
        body = table(rows, startup)
        load = os.getloadavg()[0]
        stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        entry = (f"### {stamp}, commit {commit()}: `python tools/bench_migrate.py --models "
                 f"{args.models} --runs {args.runs}"
                 f"{' --pipeline ' + args.pipeline if args.pipeline else ''}`\n\n"
                 f"Machine {cpu_model()}, {os.cpu_count()} CPUs, load average {load:.1f} at the "
                 f"end; Python {sys.version.split()[0]}; {args.models} models (the dev zoo of "
                 "both releases replicated and perturbed), `--check self`, "
                 f"pipeline {args.pipeline or 'none'}, one torch thread per model process.\n\n" + body + "\n")
        print(entry)
        if args.write:
            write_section(args.write, entry)
    finally:
        if not args.workdir:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
