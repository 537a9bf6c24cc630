#!/usr/bin/env python3
"""Prove that real Paddle 3.3.1 loads and runs what `pirc-opt --pipeline=fuse` writes, with the
unfused outputs within each fusion's tolerance.

Run by hand from the repo root with pirc's python (Paddle runs in child processes of the
scratch venv); `pirc-opt` is the one beside that python, so another checkout's venv checks that
checkout's passes (the log names its commit and branch):

    .venv/bin/python tools/paddle_oracle/check_fused_loads.py --pd331 /tmp/pd331/bin/python
        [--work /tmp/pirc-fused-loads] [--only SUBSTR] [--log tools/paddle_oracle/check_fused_loads.log]

Programs: every corpus program and dev-zoo model as Paddle 3.3.1 and 3.0.0 saved it
(fusion_cases.py: the corpus's committed `.pdiparams`, the zoo's rebuilt from
tools/zoo_weights.py and checked against the sha256 Paddle's file had). Per program:
1. `pirc-opt X.json --upgrade --pipeline=fuse [--params P --params-out P2] -o F.json
   --pass-report R.json`;
2. Paddle 3.3.1 runs the ORIGINAL program (X.json, P) on its recorded inputs (`in__*` of
   X.io.npz) and F.json (with P2) on the same inputs (check_json_loads.py, a fresh process each);
3. the outputs are compared: bit-exact where no fusion fired; else within the largest
   tolerance of the fusions that fired (`TOLERANCES`, docs/PARITY.md "Fusion tolerances"),
   and within the zoo's float32-network bound (tests/fixtures/zoo/parity.yaml) where
   conv-bn-fold / param-fold reassociated. docs/PARITY.md's table, where it has a row for a
   fusion pass, overrides `TOLERANCES`; pirc/passes/fusion/tolerances.yaml's real-Paddle
   bounds (float32 `paddle:`) override both where the pirc that runs has that file.
The log states the date, the machine and each program's verdict, the fusions that fired and
the largest difference; the exit status is 1 when any program fails.
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
ORACLE = ROOT / "tools" / "paddle_oracle"
CHECK = ORACLE / "check_json_loads.py"
# (atol, rtol) per fusion pass: docs/PARITY.md, "Fusion tolerances", says why each.
TOLERANCES = {
    "fuse-silu": (1e-6, 1e-6),
    "fuse-swiglu": (1e-6, 1e-6),
    "fuse-gelu": (1e-6, 1e-5),
    "fuse-fc": (1e-5, 1e-5),
    "fuse-rms-norm": (1e-5, 1e-5),
    "fuse-residual-layer-norm": (1e-5, 1e-5),
    "fuse-rotary": (1e-6, 1e-6),
    "fuse-attention": (1e-5, 1e-5),
    "fuse-scaled-softmax": (1e-6, 1e-5),
    # not fusions, but `default` passes that reassociate float32 when parameters are given
    "conv-bn-fold": (2e-5, 1e-4),
    "param-fold": (2e-5, 1e-4),
}
EXACT = (0.0, 0.0)


def yaml_tolerances(pirc_dir: Path) -> dict[str, tuple[float, float]]:
    """The real-Paddle bounds of pirc/passes/fusion/tolerances.yaml (per pass, float32:
    `paddle: {atol, rtol}`, else its `atol` / `rtol`, else `ulp: 0` = bit-exact), where the
    pirc that wrote the programs has that file."""
    import yaml

    path = pirc_dir / "passes" / "fusion" / "tolerances.yaml"
    if not path.exists():
        return {}
    out = {}
    for name, per in (yaml.safe_load(path.read_text()).get("passes") or {}).items():
        f32 = (per or {}).get("f32") or {}
        bound = f32.get("paddle") or ({"atol": f32["atol"], "rtol": f32.get("rtol", 0.0)}
                                      if "atol" in f32 else None)
        if bound:
            out[name] = (float(bound.get("atol", 0.0)), float(bound.get("rtol", 0.0)))
        elif f32.get("ulp") == 0:
            out[name] = EXACT
    return out


def parity_tolerances() -> dict[str, tuple[float, float]]:
    """The fusion tolerances docs/PARITY.md records (its "Fusion tolerances" table: a row per
    pass, `| \`fuse-x\` | ... |` with atol and rtol the first two numbers), over TOLERANCES."""
    import re

    out = dict(TOLERANCES)
    doc = ROOT / "docs" / "PARITY.md"
    text = doc.read_text() if doc.exists() else ""
    if "Fusion tolerances" not in text:
        return out
    section = text.split("Fusion tolerances", 1)[1].split("\n## ", 1)[0]
    for line in section.splitlines():
        m = re.match(r"\|\s*`(fuse-[a-z-]+)`\s*\|(.*)", line)
        if not m:
            continue
        nums = re.findall(r"(?<![\w.])(\d+(?:\.\d+)?(?:e-?\d+)?)(?![\w.])", m.group(2))
        if len(nums) >= 2:
            out[m.group(1)] = (float(nums[0]), float(nums[1]))
    return out


def pirc_opt(case: dict, out: Path, params_out: Path, report: Path) -> subprocess.CompletedProcess:
    cmd = [str(Path(sys.executable).with_name("pirc-opt")), str(ROOT / case["json"]), "--upgrade",
           "--pipeline=fuse", "-o", str(out), "--pass-report", str(report)]
    if case["params"]:
        cmd += ["--params", str(ROOT / case["params"]), "--params-out", str(params_out)]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)


def paddle_run(pd: str, program: Path, params, inputs: Path, save: Path, rep: Path) -> dict:
    cmd = [pd, str(CHECK), "--json", str(program), "--inputs", str(inputs), "--report", str(rep),
           "--save-outputs", str(save), "--expect-key", "none__"]
    if params:
        cmd += ["--params", str(params)]
    subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=1800)
    return json.loads(rep.read_text()) if rep.exists() else {"verdict": "NO_REPORT"}


def fired(report: Path) -> dict[str, int]:
    doc = json.loads(report.read_text())
    passes = doc.get("passes", doc if isinstance(doc, list) else [])
    out: dict[str, int] = {}
    for p in passes:
        if p.get("rewrites"):
            out[p["name"]] = out.get(p["name"], 0) + p["rewrites"]
    return out


def compare(orig: Path, fused: Path, tol: tuple[float, float]) -> tuple[bool, str]:
    a, b = np.load(orig), np.load(fused)
    worst, ok = 0.0, set(a.files) == set(b.files)
    for k in sorted(a.files):
        if k not in b.files:
            continue
        x, y = a[k], b[k]
        if x.shape != y.shape or x.dtype != y.dtype:
            return False, f"{k}: {x.dtype}{list(x.shape)} vs {y.dtype}{list(y.shape)}"
        if x.dtype.kind not in "fc":
            ok &= bool(np.array_equal(x, y))
            continue
        d = np.abs(x.astype("float64") - y.astype("float64"))
        d = np.where(np.isnan(x) & np.isnan(y), 0.0, d)
        worst = max(worst, float(np.nanmax(d)) if d.size else 0.0)
        ok &= bool(np.all(d <= tol[0] + tol[1] * np.abs(x.astype("float64")))) if tol != EXACT \
            else x.tobytes() == y.tobytes()
    return ok, f"max |diff| {worst:.3g}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pd331", required=True, help="python of a venv with paddlepaddle==3.3.1")
    ap.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "pirc-fused-loads")
    ap.add_argument("--only")
    ap.add_argument("--log", type=Path, default=ORACLE / "check_fused_loads.log")
    args = ap.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, str(ORACLE / "fusion_cases.py"), "--work", str(args.work)],
                   check=True, cwd=ROOT)
    cases = [c for c in json.loads((args.work / "cases.json").read_text())
             if not args.only or args.only in c["name"]]
    pd_version = subprocess.run([args.pd331, "-c", "import paddle; print(paddle.__version__)"],
                                capture_output=True, text=True).stdout.strip().splitlines()[-1]
    # the pirc that pirc-opt runs (this python's), which may be another checkout than ROOT
    pirc_dir = Path(subprocess.run([sys.executable, "-c", "import pirc, os; print(os.path.dirname("
                                    "pirc.__file__))"], capture_output=True, text=True,
                                   cwd="/").stdout.strip())
    git = lambda *a: subprocess.run(["git", *a], capture_output=True, text=True,  # noqa: E731
                                    cwd=pirc_dir).stdout.strip()
    head = f"{git('rev-parse', '--short', 'HEAD')} ({git('rev-parse', '--abbrev-ref', 'HEAD')})"
    cpu = next((ln.split(":", 1)[1].strip() for ln in Path("/proc/cpuinfo").read_text().splitlines()
                if ln.startswith("model name")), platform.processor())
    lines = [f"# check_fused_loads.py, {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC",
             f"# pirc {head}, Paddle {pd_version} (CPU wheel), {platform.machine()} {cpu}, "
             f"avx512f: {'avx512f' in Path('/proc/cpuinfo').read_text()}",
             "# per program: verdict, the passes that rewrote (pirc pass: rewrites), the largest "
             "difference between Paddle's outputs of the original and of the fused program, "
             "and the tolerance (the largest of the fusions that fired; 0 = bit-exact)"]
    tolerances = {**parity_tolerances(), **yaml_tolerances(pirc_dir)}
    counts = {"PASS": 0, "FAIL": 0}
    fired_total: dict[str, int] = {}
    for case in cases:
        name = case["name"].replace("/", "_")
        out, p2, rep = (args.work / f"{name}.fuse.json", args.work / f"{name}.fuse.pdiparams",
                        args.work / f"{name}.report.json")
        proc = pirc_opt(case, out, p2, rep)
        if proc.returncode != 0:
            counts["FAIL"] += 1
            lines.append(f"FAIL {case['name']}: pirc-opt exit {proc.returncode}: "
                         f"{proc.stderr.strip().splitlines()[-1][:300] if proc.stderr.strip() else ''}")
            continue
        fusions = fired(rep)
        for k, v in fusions.items():
            fired_total[k] = fired_total.get(k, 0) + v
        tol = max((tolerances[p] for p in fusions if p in tolerances), default=EXACT)
        inputs = ROOT / case["json"].replace(".json", ".io.npz")
        o_npz, f_npz = args.work / f"{name}.orig.npz", args.work / f"{name}.fused.npz"
        params = ROOT / case["params"] if case["params"] else None
        ro = paddle_run(args.pd331, ROOT / case["json"], params, inputs, o_npz,
                        args.work / f"{name}.orig.rep.json")
        rf = paddle_run(args.pd331, out, p2 if case["params"] else None, inputs, f_npz,
                        args.work / f"{name}.fused.rep.json")
        if ro.get("verdict") != "RAN" or rf.get("verdict") != "RAN":
            ok, detail = False, f"original {ro.get('verdict')}, fused {rf.get('verdict')}: " \
                                f"{(rf.get('error') or ro.get('error') or '')[:300]}"
        else:
            ok, detail = compare(o_npz, f_npz, tol)
        counts["PASS" if ok else "FAIL"] += 1
        shown = ", ".join(f"{k}: {v}" for k, v in sorted(fusions.items())) or "none"
        lines.append(f"{'PASS' if ok else 'FAIL'} {case['name']}: fired {{{shown}}}; "
                     f"{detail}; tolerance atol {tol[0]:g} rtol {tol[1]:g}")
        print(lines[-1], flush=True)
    lines.append(f"# {counts['PASS']} pass, {counts['FAIL']} fail of {len(cases)} programs; "
                 "rewrites over all programs: "
                 + ", ".join(f"{k} {v}" for k, v in sorted(fired_total.items())))
    args.log.write_text("\n".join(lines) + "\n")
    print(lines[-1])
    return 1 if counts["FAIL"] else 0


if __name__ == "__main__":
    sys.exit(main())
