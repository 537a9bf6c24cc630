#!/usr/bin/env python3
"""Real Paddle 3.3.1 is the oracle for `pirc-migrate`: does every program it writes load in
Paddle and compute what the original computes?

Run by hand from the repo root with pirc's python (Paddle runs only in child processes of a
scratch venv's python, never a pirc dependency):

    .venv/bin/python tools/paddle_oracle/check_migrated_loads.py --pd331 /tmp/pd331/bin/python
        [--pipeline default] [--jobs 2] [--work /tmp/pirc-migrated-loads] [--only SUBSTR]
        [--log tools/paddle_oracle/check_migrated_loads.log]

1. The dev zoo (both zoos, both releases) is materialised under WORK/src
   (tools/zoo_weights.materialise: programs as Paddle saved them, parameters rebuilt and
   checked against the sha256 of Paddle's files, the recorded `.io.npz`).
2. `pirc-migrate WORK/src -o WORK/out --pipeline PIPE --jobs N` (this checkout's pirc) upgrades
   every model to the newest PIR version, optimises it, checks it itself (`--check self`), and
   writes it with its parameters.
3. Per model, Paddle 3.3.1 runs the ORIGINAL (WORK/src: as Paddle 3.0.0 or 3.3.1 saved it) and
   the MIGRATED program (WORK/out, with the parameters pirc-migrate wrote) on the recorded
   inputs (`in__*`), each in a fresh process (check_json_loads.py), and the outputs are
   compared within the zoo's float32-network bound (tests/fixtures/zoo/parity.yaml: conv-bn-fold
   and param-fold reassociate float32 arithmetic; bit-exact counts are given too).  The migrated
   program is also compared with the outputs the saving release recorded (`reload_out__<i>`,
   else `out__<i>`), which for a 3.0.0 model is what Paddle 3.0.0 computed: the meaning the
   upgrade must keep.
A model Paddle 3.3.1 cannot run as saved either, failing the same way on both (a detection head
whose fetched tensors hold LoD, which Paddle will not hand over as numpy), is SAME: nothing to
compare, not a failure of the migration.  The log states the date, the machine, pirc's commit
and each model's verdict; the exit status is 1 when any model fails.
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
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools" / "paddle_oracle"))

from check_fused_loads import EXACT, compare, paddle_run  # noqa: E402


def zoo_bound() -> tuple[float, float]:
    import yaml

    default = yaml.safe_load((ROOT / "tests/fixtures/zoo/parity.yaml").read_text())["default"]
    return float(default["atol"]), float(default["rtol"])


def recorded(io: Path, save: Path) -> bool:
    """The saving release's outputs (pirc.migrate.inputs.reference_outputs: reload_out__<i>,
    else out__<i>) as out__<i> in `save`, check_json_loads' keys."""
    from pirc.migrate.inputs import reference_outputs

    outputs = reference_outputs(str(io))
    if not outputs:
        return False
    np.savez(save, **{f"out__{i}": v for i, v in enumerate(outputs)})
    return True


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pd331", required=True, help="python of a venv with paddlepaddle==3.3.1")
    ap.add_argument("--pipeline", default="default")
    ap.add_argument("--jobs", default="2")
    ap.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "pirc-migrated-loads")
    ap.add_argument("--only")
    ap.add_argument("--log", type=Path, default=ROOT / "tools/paddle_oracle/check_migrated_loads.log")
    args = ap.parse_args()
    from tools.zoo_weights import materialise

    src, out = args.work / "src", args.work / "out"
    if not src.is_dir():
        materialise(str(src))
    migrate = subprocess.run([str(Path(sys.executable).with_name("pirc-migrate")), str(src), "-o",
                              str(out), "--pipeline", args.pipeline, "--jobs", args.jobs,
                              "--progress", "none"], capture_output=True, text=True)
    if migrate.returncode not in (0, 1):
        print(migrate.stderr, file=sys.stderr)
        return 1
    report = json.loads((out / "report.json").read_text())
    bound = zoo_bound()
    pd_version = subprocess.run([args.pd331, "-c", "import paddle; print(paddle.__version__)"],
                                capture_output=True, text=True).stdout.strip().splitlines()[-1]
    git = lambda *a: subprocess.run(["git", *a], capture_output=True, text=True,  # noqa: E731
                                    cwd=ROOT).stdout.strip()
    dirty = "+changes" if git("status", "--porcelain", "--", "pirc", "patches", "pipelines",
                              "dialects") else ""
    cpu = next((ln.split(":", 1)[1].strip() for ln in Path("/proc/cpuinfo").read_text().splitlines()
                if ln.startswith("model name")), platform.processor())
    lines = [f"# check_migrated_loads.py, {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC",
             f"# pirc {git('rev-parse', '--short', 'HEAD')}{dirty}, Paddle {pd_version} (CPU wheel), "
             f"{platform.machine()} {cpu}",
             f"# pirc-migrate SRC -o OUT --pipeline {args.pipeline} --jobs {args.jobs}: exit "
             f"{migrate.returncode}, target version {report['target_version']}",
             "# per model: verdict, pirc-migrate's status, Paddle 3.3.1 on the original against "
             "Paddle 3.3.1 on the migrated program (bit-exact or max |diff|), and the migrated "
             f"program against the saving release's recorded outputs; bound atol {bound[0]:g} "
             f"rtol {bound[1]:g} (tests/fixtures/zoo/parity.yaml)"]
    counts = {"PASS": 0, "FAIL": 0, "SAME": 0}
    work = args.work / "runs"
    work.mkdir(exist_ok=True)
    for m in report["models"]:
        if args.only and args.only not in m["path"]:
            continue
        stem = m["path"][:-len(".json")]
        name = stem.replace("/", "_")
        s_json, o_json = src / m["path"], out / m["path"]
        s_params = src / (stem + ".pdiparams")
        o_params = out / (stem + ".pdiparams")
        inputs = src / (stem + ".io.npz")
        if m["status"] not in ("upgraded", "unchanged"):
            counts["FAIL"] += 1
            lines.append(f"FAIL {m['path']}: pirc-migrate {m['status']}: {m['reason']}")
            continue
        o_npz, m_npz, r_npz = work / f"{name}.orig.npz", work / f"{name}.migrated.npz", \
            work / f"{name}.recorded.npz"
        ro = paddle_run(args.pd331, s_json, s_params if s_params.exists() else None, inputs, o_npz,
                        work / f"{name}.orig.rep.json")
        rm = paddle_run(args.pd331, o_json, o_params if o_params.exists() else None, inputs, m_npz,
                        work / f"{name}.migrated.rep.json")
        if rm.get("verdict") != "RAN" and (rm.get("verdict"), rm.get("error")) == \
                (ro.get("verdict"), ro.get("error")):
            # Paddle cannot run the original either, in the same way: nothing to compare
            counts["SAME"] += 1
            lines.append(f"SAME {m['path']}: {m['status']} {m['from_version']}->{m['to_version']}; "
                         f"Paddle 3.3.1 fails on the original and the migrated program alike: "
                         f"{rm.get('verdict')}: {' '.join((rm.get('error') or '').split())[:200]}")
            print(lines[-1], flush=True)
            continue
        if rm.get("verdict") != "RAN":
            ok, detail = False, f"migrated {rm.get('verdict')}: {(rm.get('error') or '')[:300]}"
        else:
            parts, ok = [], True
            if ro.get("verdict") == "RAN":
                exact, _ = compare(o_npz, m_npz, EXACT)
                good, diff = compare(o_npz, m_npz, bound)
                ok &= good
                parts.append("original: bit-exact" if exact else f"original: {diff}")
            else:
                parts.append(f"original {ro.get('verdict')} in Paddle 3.3.1")
            if recorded(inputs, r_npz):
                good, diff = compare(r_npz, m_npz, bound)
                ok &= good
                parts.append(f"recorded: {diff}")
            detail = "; ".join(parts)
        counts["PASS" if ok else "FAIL"] += 1
        lines.append(f"{'PASS' if ok else 'FAIL'} {m['path']}: {m['status']} "
                     f"{m['from_version']}->{m['to_version']}; {detail}")
        print(lines[-1], flush=True)
    lines.append(f"# {counts['PASS']} pass, {counts['FAIL']} fail, {counts['SAME']} that Paddle "
                 f"3.3.1 cannot run as saved either, of {sum(counts.values())} models")
    args.log.write_text("\n".join(lines) + "\n")
    print(lines[-1])
    return 1 if counts["FAIL"] else 0


if __name__ == "__main__":
    sys.exit(main())
