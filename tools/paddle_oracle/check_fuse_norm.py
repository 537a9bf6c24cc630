#!/usr/bin/env python3
"""Prove that real Paddle loads and runs what fuse-rms-norm and fuse-residual-layer-norm write,
with the unfused program's outputs.

Run by hand, from the repo root, with pirc's Python (paddlepaddle lives in scratch venvs), on
a machine with AVX-512 (the fused CPU kernels are AVX-512 only: docs/FUSION.md):

    python tools/paddle_oracle/check_fuse_norm.py --pd331 /tmp/pd331/bin/python \
        --pd300 /tmp/pd300/bin/python [--log tools/paddle_oracle/check_fuse_norm.log]

Cases: the dev zoo's transformers (tests/fixtures/zoo/{3.3.1,3.0.0}/MODEL, parameters rebuilt
by tools/zoo_weights.py) and the llama_block fusion fixture, each

* upgraded to PIR 4 (`--upgrade`), run in Paddle 3.3.1: the targets are
  pd_op.fused_rms_norm_quant and pd_op.fused_bias_residual_layernorm;
* 3.0.0 programs also at their saved version (PIR 1, no upgrade), run in Paddle 3.0.0: the
  target is pd_op.rms_norm.

The pipeline is `default,fuse-rms-norm,fuse-residual-layer-norm,dce` (the `npu` pipeline's
norm fusions without its other device fusions, whose `npu.*` ops Paddle cannot load).
`check_json_loads.py` loads the output in Paddle (paddle.static.load_inference_model), runs
the recorded inputs and compares with the outputs Paddle recorded for the original program
(`out__`) within atol 1e-5, rtol 1e-4 (the fusions' tolerance, pirc/passes/fusion/).  One
line per case: Paddle's verdict, the fused ops, the largest difference.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "unit")]
CHECK = Path(__file__).with_name("check_json_loads.py")
PIPELINE = "default,fuse-rms-norm,fuse-residual-layer-norm,dce"
MODELS = ("llama", "llama_gqa", "qwen", "t5_encoder", "bert", "ernie", "roberta", "electra",
          "albert", "gpt", "bloom")
TARGETS = ("pd_op.rms_norm", "pd_op.fused_rms_norm_quant", "pd_op.fused_bias_residual_layernorm")
ATOL, RTOL = "1e-5", "1e-4"


def cases(tmp: Path):
    """(name, program JSON, .pdiparams, io.npz, release) for each program to check; the zoo's
    rebuilt parameters are written under `tmp`."""
    import pirc
    from zoo_cases import params, saved_cases
    for case in saved_cases():
        if case.model not in MODELS:
            continue
        program = pirc.load(str(case.program))
        weights = tmp / f"{case.model}.{case.release}.pdiparams"
        pirc.write_params(str(weights), params(program, case), program)
        yield f"{case.model}.{case.release}", case.program, weights, case.inputs, case.release
    for release in ("3.3.1", "3.0.0"):
        stem = ROOT / "tests" / "fixtures" / "fusion" / release / f"llama_block.{release}"
        yield f"llama_block.{release}", Path(f"{stem}.json"), Path(f"{stem}.pdiparams"), \
            Path(f"{stem}.io.npz"), release


def optimise(program: Path, params: Path, out: Path, params_out: Path, upgrade: bool) -> None:
    cmd = [sys.executable, "-m", "pirc", str(program), f"--pipeline={PIPELINE}", "--params",
           str(params), "--params-out", str(params_out), "-o", str(out)]
    if upgrade:
        cmd.insert(3, "--upgrade")
    subprocess.run(cmd, check=True, cwd=ROOT, capture_output=True,
                   env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})


def fused(path: Path) -> dict:
    import pirc
    out = {}
    for op in pirc.load(str(path)).walk():
        if op.name in TARGETS:
            out[op.name] = out.get(op.name, 0) + 1
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pd331", required=True, help="python of a venv with paddlepaddle==3.3.1")
    ap.add_argument("--pd300", required=True, help="python of a venv with paddlepaddle==3.0.0")
    ap.add_argument("--log", default=str(Path(__file__).with_name("check_fuse_norm.log")))
    args = ap.parse_args()
    lines, failed = [f"pipeline: {PIPELINE}; atol {ATOL}, rtol {RTOL}"], 0
    with tempfile.TemporaryDirectory(prefix="pirc-fuse-norm-") as tmp:
        for name, program, params, io, release in cases(Path(tmp)):
            runs = [(True, "3.3.1", args.pd331)]
            if release == "3.0.0":
                runs.append((False, "3.0.0", args.pd300))
            for upgrade, paddle, python in runs:
                tag = f"{name}{' --upgrade' if upgrade else ''}"
                out, p_out = Path(tmp) / f"{tag}.json".replace(" ", ""), Path(tmp) / f"{tag}.pdiparams".replace(" ", "")
                optimise(program, params, out, p_out, upgrade)
                report, got = out.with_suffix(".report.json"), out.with_suffix(".out.npz")
                subprocess.run([python, str(CHECK), "--json", str(out), "--params", str(p_out),
                                "--inputs", str(io), "--expect-key", "out__", "--rtol", RTOL,
                                "--atol", ATOL, "--report", str(report), "--save-outputs", str(got)],
                               capture_output=True, text=True)
                verdict = json.loads(report.read_text()).get("verdict") if report.exists() else "NO_REPORT"
                diff = "n/a"
                if got.exists():
                    with np.load(io) as want_npz, np.load(got) as have_npz:
                        keys = sorted(k for k in want_npz.files if k.startswith("out__"))
                        diff = f"{max(float(np.abs(want_npz[k] - have_npz[k]).max()) for k in keys):.3g}"
                counts = fused(out)
                ok = verdict in ("BITEXACT", "ALLCLOSE") and bool(counts)
                failed += not ok
                lines.append(f"{'PASS' if ok else 'FAIL'} {tag}: Paddle {paddle} {verdict}; fused "
                             f"{json.dumps(counts, sort_keys=True)}; max |paddle(fused) - "
                             f"paddle(original)| = {diff}")
                print(lines[-1], flush=True)
    Path(args.log).write_text("\n".join(lines) + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
