#!/usr/bin/env python3
"""Real Paddle 3.3.1 runs pirc's `fuse` output (the portable fusions: fc, gelu, silu, swiglu)
and must get the outputs it gets for the original program.

Run by hand from the repo root with pirc's python (Paddle only in a child process of a
scratch venv's python, never a pirc dependency):

    python tools/paddle_oracle/check_portable_fusion.py --pd331 /tmp/pd331/bin/python \
        [--work /tmp/pirc-fuse-work] [--log tools/paddle_oracle/check_portable_fusion.log]

Cases: tests/fixtures/fusion_portable (gen_portable_fusion_fixtures.py), the fusion and
corpus programs with parameters, and the dev zoo's transformer models (weights written by
tools/zoo_weights.py, as check_optimised_loads.py does), both releases.  Per case:

    pirc-opt P.json --upgrade -p fuse --params P.pdiparams --params-out O.pdiparams \
        --pass-report R.json -o O.json

then Paddle 3.3.1 (paddle_worker.py) loads and runs P.json and O.json on the case's inputs;
each output of O must be within atol 2e-5 + rtol 1e-4 of P's (the zoo's float32-network bound,
tests/fixtures/zoo/parity.yaml; every fusion's own tolerance is tighter, docs/PARITY.md).
The log has one line per case: the fused ops pirc wrote, the largest difference, the verdict.
"""

from __future__ import annotations

import argparse
import datetime
import json
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from optimised_cases import zoo_cases  # noqa: E402

WORKER = Path(__file__).with_name("paddle_worker.py")
ATOL, RTOL = 2e-5, 1e-4
ZOO_MODELS = ("llama", "llama_gqa", "qwen", "gpt", "bloom", "bert", "ernie", "roberta", "electra",
              "albert", "t5_encoder")
FUSION_PASSES = ("fuse-fc", "fuse-gelu", "fuse-silu", "fuse-swiglu")


def fixture_cases() -> list[tuple[str, Path, Path | None, Path]]:
    out = []
    for d in ("fusion_portable", "fusion", "corpus"):
        for release in ("3.3.1", "3.0.0"):
            for p in sorted((ROOT / "tests" / "fixtures" / d / release).glob("*.json")):
                if p.name.startswith("gen_log"):
                    continue
                params = p.with_name(p.name.replace(".json", ".pdiparams"))
                io = p.with_name(p.name.replace(".json", ".io.npz"))
                if io.exists():
                    out.append((f"{d}/{p.name}", p, params if params.exists() else None, io))
    return out


class Paddle:
    """One paddle_worker.py process: load + run a JSON (+ params) on an npz of inputs."""

    def __init__(self, python: str):
        self.proc = subprocess.Popen([python, str(WORKER)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, cwd=ROOT)
        self.version = json.loads(self._line("@@READY "))["paddle_version"]

    def _line(self, prefix: str) -> str:
        for line in self.proc.stdout:
            if line.startswith(prefix):
                return line[len(prefix):]
        raise SystemExit("paddle_worker.py ended")

    def run(self, program: Path, params: Path | None, inputs: Path, save: Path) -> dict:
        req = {"json": str(program), "params": str(params) if params else None,
               "inputs": str(inputs), "save": str(save)}
        self.proc.stdin.write(json.dumps(req) + "\n")
        self.proc.stdin.flush()
        return json.loads(self._line("@@RESULT "))


def outputs(path: Path) -> list:
    with np.load(path) as d:
        keys = sorted((k for k in d.files if k.startswith("out__")), key=lambda k: int(k[5:]))
        return [d[k] for k in keys]


def compare(got: list, want: list) -> tuple[bool, float]:
    worst, ok = 0.0, len(got) == len(want)
    for g, w in zip(got, want):
        if g.shape != w.shape or g.dtype != w.dtype:
            return False, float("inf")
        if g.size == 0:
            continue
        g64, w64 = g.astype(np.float64), w.astype(np.float64)
        diff = np.abs(g64 - w64)
        worst = max(worst, float(np.nanmax(diff)) if np.isfinite(diff).any() else 0.0)
        ok &= bool(np.all((diff <= ATOL + RTOL * np.abs(w64)) | (np.isnan(g64) & np.isnan(w64))
                          | (g64 == w64)))
    return ok, worst


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pd331", required=True, help="python of a venv with paddlepaddle 3.3.1")
    ap.add_argument("--work", default="/tmp/pirc-fuse-work")
    ap.add_argument("--log", default=str(Path(__file__).with_name("check_portable_fusion.log")))
    args = ap.parse_args()
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    cases = fixture_cases()
    for c in zoo_cases(work):
        if c.name.split("/")[-1].split(".")[0] in ZOO_MODELS:
            cases.append((c.name.replace("tests/fixtures/", ""), c.program, c.params, c.inputs))
    paddle = Paddle(args.pd331)
    lines, failed, totals = [], 0, {}
    for i, (name, program, params, inputs) in enumerate(cases):
        out, report = work / f"{i}.fused.json", work / f"{i}.report.json"
        cmd = ["pirc-opt", str(program), "--upgrade", "-p", "fuse", "--pass-report", str(report),
               "-o", str(out)]
        fused_params = None
        if params is not None:
            fused_params = work / f"{i}.fused.pdiparams"
            cmd += ["--params", str(params), "--params-out", str(fused_params)]
        cp = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
        if cp.returncode != 0:
            lines.append(f"FAIL  {name}: pirc-opt exit {cp.returncode}: {cp.stderr.strip()[:300]}")
            failed += 1
            continue
        rules = {}
        for p in json.loads(report.read_text())["passes"]:
            if p["name"] in FUSION_PASSES:
                for rule, n in p.get("rule_rewrites", {}).items():
                    rules[rule] = rules.get(rule, 0) + n
                    totals[rule] = totals.get(rule, 0) + n
        a = paddle.run(program, params, inputs, work / f"{i}.orig.npz")
        b = paddle.run(out, fused_params, inputs, work / f"{i}.fused.npz")
        reference, want = "original", work / f"{i}.orig.npz"
        if a["verdict"] != "RAN" and b["verdict"] == "RAN":
            # Paddle 3.3.1 cannot run the 3.0.0 original (its pd_op.rms_norm is 3.3's other
            # op of that name) but runs pirc's upgraded output: compare with the outputs
            # Paddle recorded when it made the program
            reference, want = "recorded", inputs
        if b["verdict"] != "RAN":
            lines.append(f"FAIL  {name}: original {a['verdict']}, fused {b['verdict']}: "
                         f"{(b.get('error') or a.get('error') or '')[:300]}")
            failed += 1
            continue
        ok, worst = compare(outputs(work / f"{i}.fused.npz"), outputs(want))
        failed += not ok
        fused = ", ".join(f"{k} {v}" for k, v in sorted(rules.items())) or "nothing fused"
        lines.append(f"{'ok   ' if ok else 'FAIL '} {name}: {fused}; max |fused - {reference}| {worst:.2e}")
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    head = [f"# check_portable_fusion.py, {when}: pirc `-p fuse` output run by real Paddle "
            f"{paddle.version} (CPU) against the original program; atol {ATOL} + rtol {RTOL}",
            f"# {len(cases)} cases, {failed} failing; rewrites per rule over all cases: "
            + ", ".join(f"{k} {v}" for k, v in sorted(totals.items()))]
    Path(args.log).write_text("\n".join(head + lines) + "\n")
    print("\n".join(head + lines))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
