#!/usr/bin/env python3
"""Does real Paddle 3.3.1 still load, run and agree with a program pirc has optimised?

Run from the repo root with pirc's python (pirc runs as `python -m pirc` from this checkout;
Paddle only in child processes of a scratch venv's python, never a pirc dependency):

    python tools/paddle_oracle/check_optimised_loads.py --pd331 /work/venv-paddle/bin/python \
        [--jobs 2] [--out tools/paddle_oracle/results]                    # ~10 min on 2 cores

Every saved program of the corpus with recorded inputs and outputs (tests/fixtures/*/VER/,
the crossload and migration fixtures, and /work/shared/corpus/paddle; one case per distinct
program + parameters + npz) goes through

    pirc-opt PROGRAM.json --upgrade --pipeline=default --pass-report R.json -o OUT.json

(3.0.0 - 3.2.2 files are upgraded to PIR version 4 first), and check_json_loads.py loads
OUT.json, which carries pirc's graph tags and manifest under `base_code.pirc`, with the
program's .pdiparams in Paddle 3.3.1, feeds the recorded inputs and compares the outputs with
the recorded ones (`reload_out__`, else `out__`, else `built_out__` for the NaN models Paddle
cannot load back).  Tolerances are the existing scripts': check_pirc_json.py's for a 3.3.1
source (rtol 1e-5, atol 1e-6), check_migrations.py's for an older source whose outputs an
older Paddle computed (rtol 1e-4, atol 1e-5: 3.3.1's kernels differ from 3.0.0's by an ulp or
two, FINDINGS.md).  A case that fails is run again without the pipeline (`--upgrade` alone)
and the original file is loaded by Paddle 3.3.1 itself (and the optimised program's
outputs compared with the original's, both computed on this machine), so the log tells a
pass's fault from one that was already there (this machine's kernels against the recording
machine's, a random op).

Writes --out/optimised_loads.json (per case: verdicts, the passes' rewrites, whether
base_code.pirc was present, the sha256 of the JSON pirc wrote) and optimised_loads.md.
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
FIX = ROOT / "tests" / "fixtures"
SHARED = Path("/work/shared/corpus/paddle")
CHECK = Path(__file__).with_name("check_json_loads.py")
PASS = {"BITEXACT", "ALLCLOSE"}
# (rtol, atol): check_pirc_json.py's (check_json_loads.py's defaults) for a program whose
# outputs Paddle 3.3.1 recorded; check_migrations.py's for outputs an older Paddle computed.
SAME_RELEASE, OLDER_RELEASE = (1e-5, 1e-6), (1e-4, 1e-5)
EXPECT_KEYS = ("reload_out__", "out__", "built_out__")
_RELEASE = re.compile(r"\.(\d+\.\d+\.\d+)(?:-loaded-in-(\d+\.\d+\.\d+))?$")


@dataclass(frozen=True)
class Case:
    name: str          # the program's path (from the repo root, if under it), for the log
    program: Path
    params: Path | None
    inputs: Path
    expected: Path
    key: str
    outputs_from: str  # the Paddle release that computed the expected outputs


def _roots():
    yield FIX
    if SHARED.is_dir():
        yield SHARED


def _release(stem: str) -> tuple[str, str] | None:
    """(release that wrote the file, release that computed its outputs) from its name."""
    m = _RELEASE.search(stem)
    if m is None:
        return None
    return m.group(1), m.group(2) or m.group(1)


def _case(program: Path) -> Case | None:
    stem = program.name[: -len(".json")]
    release = _release(stem)
    if release is None:
        return None
    written_by, outputs_from = release
    if "-loaded-in-" in stem:  # crossload: the source's inputs, 3.3.1's recorded outputs
        model = stem.split(".")[0]
        source = program.parent.parent / written_by
        inputs, expected = source / f"{model}.{written_by}.io.npz", program.with_name(stem + ".out.npz")
        params = source / f"{model}.{written_by}.pdiparams"
    else:
        inputs = expected = program.with_name(stem + ".io.npz")
        params = program.with_name(stem + ".pdiparams")
    if not (inputs.exists() and expected.exists()):
        return None
    keys = list(np.load(expected).keys())
    key = next((k for k in EXPECT_KEYS if any(x.startswith(k) for x in keys)), None)
    if key is None:
        return None
    name = str(program.relative_to(ROOT)) if program.is_relative_to(ROOT) else str(program)
    return Case(name, program, params if params.exists() else None, inputs, expected, key, outputs_from)


def cases() -> tuple[list[Case], int]:
    """The distinct cases, in path order, and how many duplicates were left out."""
    found, seen, duplicates = [], set(), 0
    for root in _roots():
        for program in sorted(root.rglob("*.json")):
            if "fuzz_crashes" in program.parts or program.name.startswith("gen_log"):
                continue
            case = _case(program)
            if case is None:
                continue
            digest = hashlib.sha256()
            for f in (case.program, case.params, case.inputs, case.expected):
                digest.update(f.read_bytes() if f is not None else b"-")
            if digest.digest() in seen:
                duplicates += 1
                continue
            seen.add(digest.digest())
            found.append(case)
    return found, duplicates


def _pirc_opt(args, env) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pirc", *map(str, args)], capture_output=True,
                          text=True, env=env, cwd=ROOT)


def _paddle(pd331: str, case: Case, program: Path, report: Path, *, save: Path | None = None,
            expected: Path | None = None) -> dict:
    """check_json_loads.py on `program`: against the case's recorded outputs, or against
    `expected` (outputs this machine's Paddle computed: out__<i>, check_pirc_json's bar)."""
    same = expected is not None or case.outputs_from == "3.3.1"
    rtol, atol = SAME_RELEASE if same else OLDER_RELEASE
    cmd = [pd331, str(CHECK), "--json", str(program), "--inputs", str(case.inputs),
           "--expect-outputs", str(expected or case.expected), "--expect-key",
           "out__" if expected is not None else case.key,
           "--rtol", str(rtol), "--atol", str(atol), "--report", str(report)]
    if save is not None:
        cmd += ["--save-outputs", str(save)]
    if case.params is not None:
        cmd += ["--params", str(case.params)]
    run = subprocess.run(cmd, capture_output=True, text=True)
    if not report.exists():
        return {"verdict": "NO_REPORT", "detail": (run.stderr or run.stdout)[-300:]}
    got = json.loads(report.read_text())
    return {"verdict": got.get("verdict"), "detail": got.get("detail")}


def random_ops(text: str) -> list[str]:
    """The ops of a program whose effect (dialects/effects.yaml) is a new random value on
    every run: with no fixed seed their outputs differ between any two runs."""
    from pirc.ir.effects import effect_of
    from pirc.paddle_json.reader import read_program

    names = set()
    for op in read_program(text, "<optimised>").module.walk():
        spec = getattr(type(op), "spec", None)
        if spec is not None and "random" in effect_of(spec).why:
            names.add(op.name)
    return sorted(names)


def check(case: Case, pd331: str, tmp: Path, env: dict) -> dict:
    work = tmp / hashlib.sha256(case.name.encode()).hexdigest()[:16]
    work.mkdir()
    out, report = work / "model.json", work / "passes.json"
    entry = {"case": case.name, "key": case.key, "outputs_from": case.outputs_from,
             "params": case.params is not None}
    opt = _pirc_opt([case.program, "--upgrade", "--pipeline=default", "--pass-report", report,
                     "-o", out], env)
    if opt.returncode != 0:
        entry.update(verdict="PIRC_FAIL", detail=opt.stderr.strip()[-300:])
        return entry
    text = out.read_bytes()
    written = json.loads(text)
    entry["pirc_metadata"] = "pirc" in written.get("base_code", {})
    entry["graph_tags"] = [t[0] for t in written.get("base_code", {}).get("pirc", {}).get("graph_tags", [])]
    passes = json.loads(report.read_text())["passes"]
    entry["rewrites"] = {p["name"]: p["rewrites"] for p in passes}
    entry["ops"] = [passes[0]["ops_before"], passes[-1]["ops_after"]]
    entry["sha256"] = hashlib.sha256(text).hexdigest()
    entry["random_ops"] = random_ops(text.decode())
    entry.update(_paddle(pd331, case, out, work / "paddle.json"))
    if entry["verdict"] not in PASS:  # was it the pipeline?  The same without it, and the
        plain = work / "upgraded.json"  # original file as Paddle 3.3.1 loads it (its patches)
        ctrl = _pirc_opt([case.program, "--upgrade", "-o", plain], env)
        entry["without_pipeline"] = (_paddle(pd331, case, plain, work / "plain.json")["verdict"]
                                     if ctrl.returncode == 0 else "PIRC_FAIL")
        here = work / "original.out.npz"
        entry["original_in_paddle"] = _paddle(pd331, case, case.program, work / "original.json",
                                              save=here)["verdict"]
        if here.exists():  # the optimised program against the original, both run here
            entry["vs_original_here"] = _paddle(pd331, case, out, work / "vs.json", expected=here)["verdict"]
    return entry


def summary(results: list[dict], duplicates: int, pd331: str, commit: str, date: str) -> str:
    passed = [r for r in results if r["verdict"] in PASS]
    changed = [r for r in results if r.get("rewrites", {}).get("cse") or r.get("rewrites", {}).get("dce")]
    lines = ["# Optimised programs in real Paddle 3.3.1",
             "",
             "`python tools/paddle_oracle/check_optimised_loads.py --pd331 PY` "
             "(docstring of the script for what each case does).",
             "",
             f"- cases: {len(results)} distinct programs with recorded inputs and outputs "
             f"({duplicates} duplicates left out), {sum(r['params'] for r in results)} with parameters",
             f"- pass (load, run, outputs as recorded): **{len(passed)}/{len(results)}** "
             f"({sum(r['verdict'] == 'BITEXACT' for r in passed)} bit-exact, "
             f"{sum(r['verdict'] == 'ALLCLOSE' for r in passed)} within tolerance)",
             f"- changed by the default pipeline (cse or dce rewrote): {len(changed)}, "
             f"of which pass: {sum(r['verdict'] in PASS for r in changed)}",
             f"- carrying `base_code.pirc` (graph tags, manifest): "
             f"{sum(bool(r.get('pirc_metadata')) for r in results)}",
             f"- run {date}, pirc commit {commit}, Paddle 3.3.1 from {pd331}"]
    failed = [r for r in results if r["verdict"] not in PASS]
    if failed:
        same = [r for r in failed if r.get("original_in_paddle") == r["verdict"]]
        lines.append(
            f"- not passing: {len(failed)}; of them {len(same)} fail the same way when Paddle 3.3.1 "
            f"loads the original file, {sum(bool(r.get('random_ops')) for r in failed)} hold random ops, "
            f"{sum(r.get('vs_original_here') in PASS for r in failed)} give the original's outputs "
            "as Paddle computes them on this machine")
    lines += ["",
              "| verdict | cases |", "|---|---|"]
    verdicts: dict = {}
    for r in results:
        verdicts[r["verdict"]] = verdicts.get(r["verdict"], 0) + 1
    lines += [f"| {v} | {n} |" for v, n in sorted(verdicts.items())]
    if failed:
        lines += ["", "Not passing (`without pipeline`: the same program after `--upgrade` alone; "
                  "`original`: the file as it was, loaded by Paddle 3.3.1 itself; `vs original here`: "
                  "the optimised program's outputs against the original's, both run on this machine; "
                  "random ops: ops whose outputs differ on every run, dialects/effects.yaml):", "",
                  "| case | verdict | without pipeline | original | vs original here | random ops "
                  "| rewrites | detail |",
                  "|---|---|---|---|---|---|---|---|"]
        for r in failed:
            detail = (r.get("detail") or "").replace("|", "\\|").replace("\n", " ")[:160]
            rewrites = ", ".join(f"{k} {v}" for k, v in r.get("rewrites", {}).items())
            lines.append(f"| {r['case']} | {r['verdict']} | {r.get('without_pipeline', '')} | "
                         f"{r.get('original_in_paddle', '')} | {r.get('vs_original_here', '')} | "
                         f"{', '.join(r.get('random_ops', []))} | {rewrites} | {detail} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pd331", required=True, help="python of a venv with paddlepaddle==3.3.1")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", default=str(Path(__file__).with_name("results")))
    ap.add_argument("--only", help="only cases whose path contains this")
    args = ap.parse_args()
    found, duplicates = cases()
    if args.only:
        found = [c for c in found if args.only in c.name]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    with tempfile.TemporaryDirectory(prefix="pirc-optload-") as tmp, ThreadPoolExecutor(args.jobs) as pool:
        results = []
        for entry in pool.map(lambda c: check(c, args.pd331, Path(tmp), env), found):
            print(f"{entry['verdict']:10s} {entry['case']}", flush=True)
            results.append(entry)
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    dest = Path(args.out)
    dest.mkdir(parents=True, exist_ok=True)
    (dest / "optimised_loads.json").write_text(json.dumps(
        {"checked_with": "tools/paddle_oracle/check_optimised_loads.py", "pirc_commit": commit, "date": date,
         "duplicates_left_out": duplicates, "results": results}, indent=1) + "\n")
    (dest / "optimised_loads.md").write_text(summary(results, duplicates, args.pd331, commit, date))
    print(f"{sum(r['verdict'] in PASS for r in results)}/{len(results)} pass; wrote {dest}")


if __name__ == "__main__":
    main()
