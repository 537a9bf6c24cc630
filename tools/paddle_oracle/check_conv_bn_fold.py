#!/usr/bin/env python3
"""Prove that real Paddle 3.3.1 loads and runs what conv-bn-fold writes, with the same outputs.

Run by hand, from the repo root, with pirc's Python (paddlepaddle lives in a scratch venv):

    python tools/paddle_oracle/check_conv_bn_fold.py --pd331 /tmp/pd331/bin/python \
        [--pipeline SPEC ...] [--log tools/paddle_oracle/check_conv_bn_fold.log]

For each corpus CNN with a batch_norm (tests/fixtures/corpus/{3.3.1,3.0.0}/cnn.*: conv2d,
bias add, batch_norm_ in inference, with .pdiparams and the outputs Paddle recorded) and
each pipeline (default: `conv-bn-fold,dce` and the `inference` pipeline's passes,
`conv-bn-fold,param-fold,cse,dce`),
`pirc-opt --upgrade --pipeline=SPEC --params P --params-out P'` writes the optimised JSON
and parameters; `check_json_loads.py` loads them in Paddle 3.3.1
(paddle.static.load_inference_model), runs the recorded inputs and compares with the
outputs Paddle recorded for the original program (`reload_out__`), within rtol = atol =
1e-5 (folding reassociates float32 arithmetic: tests/unit/test_conv_bn_fold.py says why that
tolerance).  It also checks the optimised program has no batch_norm left, and logs one
line per case plus Paddle's verdict, the ops before and after and the largest difference.
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
FIX = ROOT / "tests" / "fixtures" / "corpus"
CHECK = Path(__file__).with_name("check_json_loads.py")
CASES = [FIX / "3.3.1" / "cnn.3.3.1", FIX / "3.0.0" / "cnn.3.0.0"]
TOL = "1e-5"


def pirc_opt(stem: Path, pipeline: str, out: Path, params_out: Path) -> None:
    cmd = [sys.executable, "-m", "pirc", f"{stem}.json", "--upgrade", f"--pipeline={pipeline}",
           "--params", f"{stem}.pdiparams", "--params-out", str(params_out), "-o", str(out)]
    subprocess.run(cmd, check=True, cwd=ROOT, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})


def op_names(path: Path) -> list[str]:
    sys.path.insert(0, str(ROOT))
    import pirc
    return [op.name for op in pirc.load(str(path)).walk()]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pd331", required=True, help="python of a venv with paddlepaddle==3.3.1")
    ap.add_argument("--pipeline", action="append",
                    help="a pipeline to check (repeatable; default: the two of the docstring)")
    ap.add_argument("--log", default=str(Path(__file__).with_name("check_conv_bn_fold.log")))
    args = ap.parse_args()
    pipelines = args.pipeline or ["conv-bn-fold,dce", "conv-bn-fold,param-fold,cse,dce"]
    lines, failed = [f"Paddle: {args.pd331}"], 0
    with tempfile.TemporaryDirectory(prefix="pirc-cbf-") as tmp:
        for spec, stem in [(p, s) for p in pipelines for s in CASES]:
            out, params = Path(tmp) / f"{stem.name}.json", Path(tmp) / f"{stem.name}.pdiparams"
            pirc_opt(stem, spec, out, params)
            before, after = op_names(Path(f"{stem}.json")), op_names(out)
            report, got = Path(tmp) / f"{stem.name}.report.json", Path(tmp) / f"{stem.name}.out.npz"
            io = f"{stem}.io.npz"
            subprocess.run([args.pd331, str(CHECK), "--json", str(out), "--params", str(params),
                            "--inputs", io, "--expect-key", "reload_out__", "--rtol", TOL,
                            "--atol", TOL, "--report", str(report), "--save-outputs", str(got)],
                           capture_output=True, text=True)
            verdict = json.loads(report.read_text()).get("verdict") if report.exists() else "NO_REPORT"
            diff = "n/a"
            if got.exists():
                want, have = np.load(io)["reload_out__0"], np.load(got)["out__0"]
                diff = f"{float(np.abs(want - have).max()):.3g} (outputs up to {float(np.abs(want).max()):.3g})"
            norms = sum(n.startswith("pd_op.batch_norm") for n in after)
            ok = verdict in ("BITEXACT", "ALLCLOSE") and norms == 0
            failed += not ok
            lines.append(f"{'PASS' if ok else 'FAIL'} {stem.name} --upgrade --pipeline={spec}: Paddle 3.3.1 {verdict}; ops "
                         f"{len(before)} -> {len(after)} (batch_norm left: {norms}); "
                         f"max |paddle(folded) - paddle(original)| = {diff}")
    text = "\n".join(lines) + "\n"
    print(text, end="")
    Path(args.log).write_text(text)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
