"""Command line of the fuzzer.

    python -m tools.fuzz run [--front text|json|yaml|all|passes|spec|rollout|repro|tags-text|tags-json|
                              inputs|params|pass-layer|fusion]... [--seed S] [--count N] [--jobs J]
                             [--time-budget SECONDS] [--hang-seconds 10] [--memory-mb 2048]
                             [--out fuzz-out] [--minimize-seconds 20] [--stats-json FILE]
    python -m tools.fuzz replay FILE [--front F] [--from-version N] [--patch-version N] [--program P]
    python -m tools.fuzz case --front F --seed S --index K [-o FILE]   # write input K of a run
    python -m tools.fuzz known OUT                                     # which known classes OUT holds

`run` exits 1 when it found anything (a crash or a property failure), 0 otherwise.
`replay` exits 1 when the input still crashes or fails a property.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .cases import ALL_FRONTS, BINARY, FRONTS, FUSION_FRONTS, PASS_FRONTS, make_case


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.fuzz", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)

    run = sub.add_parser("run", help="fuzz one or more front ends")
    run.add_argument("--front", action="append", choices=ALL_FRONTS + ("all", "pass-layer"),
                     help="front end (repeatable; default: all three readers, one after the other; "
                          "pass-layer: the differential mode `passes` and the pass surfaces)")
    run.add_argument("--seed", type=int, default=1)
    run.add_argument("--count", type=int, default=1000, help="inputs per front end (default 1000)")
    run.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    run.add_argument("--time-budget", type=float, default=None,
                     help="stop each front end after this many seconds (default: no limit)")
    run.add_argument("--hang-seconds", type=float, default=10.0,
                     help="an input still running after this long is a hang (default 10)")
    run.add_argument("--memory-mb", type=int, default=2048,
                     help="address-space cap per worker, MiB (default 2048; 0 = none)")
    run.add_argument("--out", default="fuzz-out", help="where crash classes are saved (default fuzz-out)")
    run.add_argument("--minimize-seconds", type=float, default=20.0,
                     help="time to minimize each new class (default 20; 0 = save as found)")
    run.add_argument("--stats-json", default=None, help="also write the statistics to this file")

    replay = sub.add_parser("replay", help="re-run the checks on one saved input and show the result")
    replay.add_argument("file")
    replay.add_argument("--front", choices=ALL_FRONTS)
    replay.add_argument("--from-version", type=int)
    replay.add_argument("--patch-version", type=int)
    replay.add_argument("--program", help="yaml: the JSON program (path in the checkout) the patch upgrades")
    replay.add_argument("--hang-seconds", type=float, default=10.0)
    replay.add_argument("--memory-mb", type=int, default=2048)

    case = sub.add_parser("case", help="write input INDEX of a run (what `run` checked)")
    case.add_argument("--front", choices=ALL_FRONTS, required=True)
    case.add_argument("--seed", type=int, default=1)
    case.add_argument("--index", type=int, required=True)
    case.add_argument("-o", "--output", help="file to write (default: stdout)")

    known = sub.add_parser("known", help="which of the 15 classes of the first campaign OUT holds")
    known.add_argument("out", nargs="+")

    args = parser.parse_args(argv)
    if args.command == "run":
        return _run(args)
    if args.command == "replay":
        return _replay(args)
    if args.command == "case":
        c = make_case(args.front, args.seed, args.index)
        if args.output:
            if c.front in BINARY:
                Path(args.output).write_bytes(c.data.encode("latin-1"))
            else:
                Path(args.output).write_text(c.data, encoding="utf-8", errors="surrogatepass")
            Path(args.output + ".case.json").write_text(json.dumps(c.options(), indent=1) + "\n")
        else:
            sys.stdout.write(c.data)
        return 0
    if args.command == "known":
        from .known import report
        print(report([Path(p) for p in args.out]))
        return 0
    return 2


def _run(args) -> int:
    from . import engine
    from .findings import class_dir, save_class
    from .seeds import json_seeds, text_seeds, yaml_seeds

    fronts = list(FRONTS) if not args.front or "all" in args.front else []
    for f in args.front or ():
        fronts += list(PASS_FRONTS) if f == "pass-layer" else [] if f == "all" else [f]
    fronts = list(dict.fromkeys(fronts))
    out = Path(args.out)
    text_seeds(), json_seeds(), yaml_seeds()  # read once, before the workers fork
    if set(fronts) & set(PASS_FRONTS + FUSION_FRONTS):
        _warm_pass_layer()
    import pirc.text.parser, pirc.paddle_json.reader, pirc.versioning.schema  # noqa: F401,E401
    all_stats = []
    found_any = False
    for front in fronts:
        print(f"fuzzing {front}: seed {args.seed}, up to {args.count} inputs, {args.jobs} jobs"
              + (f", {args.time_budget:.0f} s" if args.time_budget else ""), flush=True)
        stats = engine.run_campaign(front, args.seed, args.count, args.jobs, args.time_budget,
                                    args.hang_seconds, args.memory_mb or None,
                                    log=lambda m: print(m, flush=True))
        new = [f for f in stats.findings.values() if not class_dir(out, front, f.sig).exists()]
        saved = {}
        if new:
            cases = [make_case(front, args.seed, f.index) for f in new]
            if args.minimize_seconds > 0:
                print(f"  minimizing {len(new)} new classes ({args.minimize_seconds:.0f} s each at most)",
                      flush=True)
                small = engine.minimize_all([(c, f.sig) for c, f in zip(cases, new) if _minimizable(f.sig)],
                                            args.jobs, args.hang_seconds, args.memory_mb or None,
                                            args.minimize_seconds)
            else:
                small = []
            it = iter(small)
            for c, f in zip(cases, new):
                result = next(it) if args.minimize_seconds > 0 and _minimizable(f.sig) else None
                if result is None:
                    result, minimized = (c, f.traceback), False
                else:
                    minimized = True
                saved[f.sig] = save_class(out, f.sig, f.count, c, result[0], result[1], f.traceback, minimized)
        _print_stats(stats, out, saved)
        all_stats.append(stats)
        found_any |= bool(stats.findings)
    if args.stats_json:
        Path(args.stats_json).write_text(json.dumps([_stats_dict(s, out) for s in all_stats], indent=1) + "\n")
    return 1 if found_any else 0


def _warm_pass_layer() -> None:
    """Before the workers fork: torch on one thread (a generated program's ops are tiny;
    threads only add start-up cost, and one thread gives every machine the same bits), the
    lowering, the passes and hypothesis imported once."""
    import os
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    import torch
    torch.set_num_threads(1)
    import pirc.lower, pirc.passes, pirc.cli.opt, pirc.cli.run  # noqa: F401,E401
    from pirc.testing import pass_differential, strategies  # noqa: F401


def _minimizable(sig: str) -> bool:
    return not sig.startswith(("Hang", "WorkerDied"))  # each trial would take the whole time limit


def _print_stats(stats, out: Path, saved: dict) -> None:
    from .findings import class_dir, REPLAY
    print(f"{stats.front}: {stats.inputs} inputs in {stats.seconds:.1f} s ({stats.rate:.1f} inputs/s; "
          f"{stats.cpu_rate:.1f} per worker CPU-second); "
          f"accepted {stats.accepted}, verified {stats.verified}; "
          f"{stats.crashing_inputs} failing inputs in {len(stats.findings)} classes")
    for f in sorted(stats.findings.values(), key=lambda f: -f.count):
        folder = saved.get(f.sig) or class_dir(out, stats.front, f.sig)
        state = "saved" if f.sig in saved else "already saved"
        print(f"  {f.count:6d}  {f.sig}")
        print(f"          {state}: {folder}/")
        inputs = sorted(folder.glob("input.*")) if folder.exists() else []
        if inputs:
            print(f"          replay: {REPLAY.format(inputs[0])}")
    sys.stdout.flush()


def _stats_dict(stats, out: Path) -> dict:
    from .findings import class_dir
    return {"front": stats.front, "seed": stats.seed, "inputs": stats.inputs, "seconds": round(stats.seconds, 1),
            "inputs_per_s": round(stats.rate, 1),
            "worker_cpu_seconds": round(stats.cpu_seconds, 1), "inputs_per_cpu_s": round(stats.cpu_rate, 1),
            "accepted": stats.accepted, "verified": stats.verified,
            "classes": {f.sig: {"count": f.count, "first_index": f.index,
                                "folder": str(class_dir(out, stats.front, f.sig))}
                        for f in stats.findings.values()}}


def _replay(args) -> int:
    from .engine import limit_process, run_one
    from .findings import load_case

    case = load_case(Path(args.file), args.front, args.from_version, args.patch_version, args.program)
    limit_process(args.memory_mb or None)
    where = {"text": f"--from-version={case.from_version}",
             "yaml": f"as {case.patch_version}.yaml, upgrading {case.program}"}.get(case.front, "")
    print(f"replaying {args.file} ({case.front}{', ' + where if where else ''}; {len(case.data)} characters)")
    result = run_one(case, args.hang_seconds)
    if result.sig is None and case.front in PASS_FRONTS + FUSION_FRONTS:
        if case.front in ("passes", "fusion"):
            print("ok: " + (result.note or "every target keeps the outputs: "
                            + ", ".join(case.targets or ())))
        else:
            print("ok: " + ("the command succeeded" if result.accepted
                            else "refused with pirc's own error:\n" + result.note))
        return 0
    if result.sig is None:
        if not result.accepted:
            print("ok: refused with pirc's own error:\n" + result.note)
        else:
            print("ok: accepted" + (", verifies" if result.verified else ", does not verify")
                  + "; every write reads back" + (f"\n{result.note}" if result.note else ""))
        return 0
    print(f"FAILS: {result.sig}\n")
    print(result.traceback)
    return 1
