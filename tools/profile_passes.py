"""Where `pirc-opt -p PIPELINE` spends its time: cProfile of one in-process run, per module.

Runs `pirc-opt PROGRAM -o OUT.json` in this process twice under cProfile (`gc` off, as
pirc-opt runs), without a pipeline and with `--pipeline=PIPELINE` (the default level of
`--verify-each`, PIRC_VERIFY_EACH dropped), after one unprofiled warm-up run.  Each
function's own time is charged to its module; a builtin's (`dict.get`, `isinstance`) to the
modules that called it, in proportion to their calls' own time there.  The table lists the
modules by what the pipeline added (the second run less the first), the top functions by
own time after them.  The clock is the process's CPU time (`time.process_time`), so other
work on a shared machine does not land in the figures; cProfile with that clock slows
pirc-opt about 5x, evenly enough that shares, not seconds, are what to read.

    python tools/profile_passes.py PROGRAM.json [--pipeline default] [--top 15]
    python tools/profile_passes.py --make generated:100000 [...]     # tools/bench_passes.py's
    python tools/profile_passes.py --make transformer:100000 [...]   # programs, made first
    python tools/profile_passes.py MODEL.json --params MODEL.pdiparams --repeat 50   # a zoo model

`--params` hands the weights to both runs (the weight passes are skipped whole without
them); `--repeat N` profiles N runs of each command, for a program small enough that one
run is a few tens of milliseconds (the seconds printed are then per run).
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import json
import os
import pstats
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))


def module_of(filename: str) -> str:
    """A dotted module name for a code object's file ('builtins' for C functions)."""
    if filename == "~" or filename.startswith("<"):
        return "builtins"
    path = Path(filename)
    parts = path.with_suffix("").parts
    for anchor in ("pirc", "xdsl", "numpy", "torch", "yaml", "lark"):
        if anchor in parts:
            i = len(parts) - 1 - parts[::-1].index(anchor)
            name = ".".join(parts[i:])
            return name[: -len(".__init__")] if name.endswith(".__init__") else name
    return "stdlib." + path.stem


def per_module(stats: pstats.Stats) -> dict[str, float]:
    """Own seconds per module, builtins charged to their callers' modules."""
    out: dict[str, float] = {}
    for (filename, _, _), (_, _, own, _, callers) in stats.stats.items():
        module = module_of(filename)
        if module != "builtins" or not callers:
            out[module] = out.get(module, 0.0) + own
            continue
        total = sum(c[2] for c in callers.values()) or 1.0
        for (cfile, _, _), c in callers.items():
            caller = module_of(cfile)
            key = caller if caller != "builtins" else "builtins"
            out[key] = out.get(key, 0.0) + own * c[2] / total
    return out


def top_functions(stats: pstats.Stats, n: int) -> list[tuple[str, int, float, float]]:
    rows = [(f"{module_of(f)}:{name}", calls, own, cum)
            for (f, _, name), (_, calls, own, cum, _) in stats.stats.items()]
    return sorted(rows, key=lambda r: -r[2])[:n]


def profiled(argv: list[str], repeat: int = 1) -> tuple[pstats.Stats, float]:
    """cProfile of `repeat` runs of pirc-opt ARGV, and the CPU seconds of one run (mean)."""
    from pirc.cli.opt import run
    from pirc.passes.infra.rewrites import CACHE

    profile = cProfile.Profile(time.process_time)
    seconds = 0.0
    for _ in range(repeat):
        CACHE._plans.clear()   # earlier runs' plans: each profiled run plans afresh, as a new process
        gc.collect()
        gc.disable()
        start = time.process_time()
        profile.enable()
        status = run(argv)
        profile.disable()
        seconds += time.process_time() - start
        gc.enable()
        if status != 0:
            raise SystemExit(f"pirc-opt {' '.join(argv)}: exit status {status}")
    return pstats.Stats(profile), seconds / repeat


def make(spec: str, folder: Path) -> Path:
    """`generated:N` or `transformer:N`: tools/bench_passes.py's program of N ops, as JSON."""
    kind, _, n = spec.partition(":")
    n = int(n)
    path = folder / f"{kind}{n}.json"
    if kind == "generated":
        from bench_frontend import generate
        from pirc.paddle_json.writer import write_program
        from pirc.text.parser import parse_text

        path.write_text(write_program(parse_text(generate(n), "bench", 4)))
    elif kind == "transformer":
        from bench_json import make_program

        path.write_text(json.dumps(make_program(n, ("transformer",)), separators=(",", ":")))
    else:
        raise SystemExit(f"--make {spec}: expected generated:N or transformer:N")
    return path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("program", nargs="?")
    ap.add_argument("--make", help="generated:N or transformer:N (instead of PROGRAM)")
    ap.add_argument("--pipeline", default="default")
    ap.add_argument("--top", type=int, default=15)
    ap.add_argument("--json", dest="json_out", help="also write the figures here")
    ap.add_argument("--params", help="the program's .pdiparams, for both runs")
    ap.add_argument("--repeat", type=int, default=1, help="profile N runs of each (per-run seconds)")
    args = ap.parse_args()
    if args.repeat < 1:
        ap.error("--repeat: at least 1")
    if (args.program is None) == (args.make is None):
        ap.error("give PROGRAM or --make")
    os.environ.pop("PIRC_VERIFY_EACH", None)
    with tempfile.TemporaryDirectory(prefix="pirc-profile-") as tmp:
        program = make(args.make, Path(tmp)) if args.make else Path(args.program)
        out = str(Path(tmp) / "out.json")
        params = ["--params", args.params] if args.params else []
        plain_argv = [str(program), *params, "-o", out]
        pipeline_argv = [str(program), *params, f"--pipeline={args.pipeline}", "-o", out]
        from pirc.cli.opt import run

        run(pipeline_argv)  # warm-up: bytecode, specs, the user cache
        plain, plain_s = profiled(plain_argv, args.repeat)
        with_pipeline, pipeline_s = profiled(pipeline_argv, args.repeat)
    a, b = per_module(plain), per_module(with_pipeline)
    if args.repeat > 1:   # per run, as the seconds above
        a = {m: v / args.repeat for m, v in a.items()}
        b = {m: v / args.repeat for m, v in b.items()}
    added = {m: b.get(m, 0.0) - a.get(m, 0.0) for m in set(a) | set(b)}
    total_a, total_b = sum(a.values()), sum(b.values())
    name = args.make or Path(args.program).name
    print(f"{name}: no pipeline {plain_s:.2f} s, --pipeline={args.pipeline} {pipeline_s:.2f} s "
          f"(CPU, under cProfile: +{pipeline_s - plain_s:.2f} s)\n")
    print("| module | no pipeline, s | with it, s | added, s | share of the added |")
    print("|---|---|---|---|---|")
    gained = sum(v for v in added.values() if v > 0) or 1.0
    for m, v in sorted(added.items(), key=lambda kv: -kv[1])[: args.top]:
        print(f"| {m} | {a.get(m, 0.0):.3f} | {b.get(m, 0.0):.3f} | {v:+.3f} | {v / gained:.0%} |")
    print(f"| (all) | {total_a:.3f} | {total_b:.3f} | {total_b - total_a:+.3f} | |\n")
    print(f"Top functions by own time, with --pipeline={args.pipeline}:\n")
    print("| function | calls | own, s | cumulative, s |")
    print("|---|---|---|---|")
    for fn, calls, own, cum in top_functions(with_pipeline, args.top):
        print(f"| {fn} | {calls} | {own:.3f} | {cum:.3f} |")
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(
            {"program": name, "plain_s": plain_s, "pipeline_s": pipeline_s, "plain": a,
             "pipeline": b, "top": top_functions(with_pipeline, args.top)}, indent=1) + "\n")


if __name__ == "__main__":
    main()
