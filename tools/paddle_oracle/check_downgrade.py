#!/usr/bin/env python3
"""Prove that what `pirc.downgrade` writes loads and runs in real Paddle 3.0.0.

Run by hand with pirc's Python (paddlepaddle lives only in scratch venvs):

    python tools/paddle_oracle/check_downgrade.py --pd300 /tmp/pd300/bin/python \
        [--out tests/fixtures/paddle_checks]

For every Paddle 3.3.1 program in tests/fixtures (the corpus models and the patchops
fixtures, PIR version 4), two routes are run through check_json_loads.py in Paddle 3.0.0,
with the 3.3.1 outputs as the expected ones:

* downgrade: pirc reads the 3.3.1 JSON, downgrades it to version 1 and writes JSON;
* as_is: the 3.3.1 JSON unchanged (what Paddle 3.0.0 does without pirc: it does not refuse
  newer files, FORMAT-NOTES section 6).

Where Paddle 3.0.0 saved the same model (patchops/3.0.0, corpus/3.0.0), the downgraded
document is also compared with 3.0.0's own JSON (pirc.paddle_json.equality.documents_equal)
and its outputs with 3.0.0's.  Writes downgrade_loads.json (verdicts, the sha256 of each JSON
pirc wrote) to --out; tests/unit/test_downgrade_checks.py holds pirc to it.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from pirc.paddle_json.equality import documents_equal  # noqa: E402
from pirc.paddle_json.reader import read_program  # noqa: E402
from pirc.paddle_json.writer import write_program  # noqa: E402
from pirc.versioning.upgrade import downgrade  # noqa: E402

FIX = ROOT / "tests" / "fixtures"
CHECK = Path(__file__).with_name("check_json_loads.py")
PASS = {"BITEXACT", "ALLCLOSE"}
TARGET = 1


def cases():
    """(name, source JSON, params or None, io npz, expected-output key, native 3.0.0 stem)."""
    for root, key in ((FIX / "corpus" / "3.3.1", "reload_out__"),
                      (FIX / "patchops" / "3.3.1", "out__")):
        for src in sorted(root.glob("*.3.3.1.json")):
            model = src.name[: -len(".3.3.1.json")]
            if model.startswith("gen_log"):
                continue
            params = src.with_name(f"{model}.3.3.1.pdiparams")
            native = root.parent / "3.0.0" / f"{model}.3.0.0"
            yield (model, src, params if params.exists() else None,
                   src.with_name(f"{model}.3.3.1.io.npz"), key,
                   native if Path(str(native) + ".json").exists() else None)


def downgraded_json(src: Path) -> str:
    """The JSON pirc writes for `src` downgraded to version TARGET."""
    program = read_program(src.read_text(), str(src))
    return write_program(downgrade(program, TARGET))


def _compare(got: Path, expected: Path, key: str, n: int) -> str:
    if not got.exists() or not expected.exists():
        return "absent"
    got_npz, want = np.load(got), np.load(expected)
    verdicts = []
    for i in range(n):
        a, b = got_npz.get(f"out__{i}"), want.get(f"{key}{i}")
        if a is None or b is None:
            verdicts.append("absent")
        elif a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes():
            verdicts.append("bitexact")
        elif a.shape == b.shape and np.allclose(a, b, rtol=1e-5, atol=1e-6, equal_nan=True):
            verdicts.append("allclose")
        else:
            verdicts.append("mismatch")
    for v in ("mismatch", "absent", "allclose"):
        if v in verdicts:
            return v
    return "bitexact"


def _load_and_run(python: str, json_path: Path, params, inputs: Path, key: str,
                  outputs: Path) -> dict:
    report = json_path.with_suffix(".report.json")
    cmd = [python, str(CHECK), "--json", str(json_path), "--inputs", str(inputs),
           "--expect-key", key, "--report", str(report), "--save-outputs", str(outputs)]
    if params is not None:
        cmd += ["--params", str(params)]
    run = subprocess.run(cmd, capture_output=True, text=True)
    if report.exists():
        rep = json.loads(report.read_text())
        out = {"verdict": rep.get("verdict")}
        if out["verdict"] not in PASS and rep.get("detail"):
            out["error"] = rep["detail"][:300]
        return out
    # No report: the process died (Paddle segfaults on some mismatched attribute kinds).
    return {"verdict": "CRASH", "error": f"exit status {run.returncode}; "
                                         f"{run.stderr.strip().splitlines()[-1][:300] if run.stderr.strip() else ''}"}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pd300", required=True, help="python of a venv with paddlepaddle==3.0.0")
    ap.add_argument("--out", default=str(FIX / "paddle_checks"))
    args = ap.parse_args()
    results = []
    with tempfile.TemporaryDirectory(prefix="pirc-downgrade-") as tmp:
        for name, src, params, io, key, native in cases():
            n_out = sum(1 for k in np.load(io).keys() if k.startswith(key))
            for route in ("downgrade", "as_is"):
                entry = {"case": name, "route": route, "source": str(src.relative_to(ROOT))}
                json_path = Path(tmp) / f"{name}.{route}.json"
                if route == "downgrade":
                    try:
                        text = downgraded_json(src)
                    except Exception as e:  # a refusal is a result too
                        entry.update(verdict="REFUSED", error=f"{type(e).__name__}: {e}"[:500])
                        results.append(entry)
                        continue
                    entry["sha256"] = hashlib.sha256(text.encode()).hexdigest()
                    json_path.write_text(text)
                    if native is not None:
                        want = Path(str(native) + ".json").read_text()
                        diffs = documents_equal(want, text)
                        entry["same_document_as_paddle_3.0.0"] = not diffs
                        if diffs:
                            entry["differences_from_paddle_3.0.0"] = [str(d) for d in diffs[:5]]
                else:
                    json_path.write_text(src.read_text())
                outputs = Path(tmp) / f"{name}.{route}.out.npz"
                entry.update(_load_and_run(args.pd300, json_path, params, io, key, outputs))
                if native is not None and entry["verdict"] in PASS:
                    entry["outputs_vs_paddle_3.0.0"] = _compare(
                        outputs, Path(str(native) + ".io.npz"), key, n_out)
                results.append(entry)
                print(f"{entry['verdict']:10s} {route:9s} {name}"
                      f"{'  ' + entry['error'] if 'error' in entry else ''}", flush=True)
    dest = Path(args.out) / "downgrade_loads.json"
    dest.parent.mkdir(parents=True, exist_ok=True)
    passed = sum(r["verdict"] in PASS for r in results if r["route"] == "downgrade")
    total = sum(r["route"] == "downgrade" for r in results)
    dest.write_text(json.dumps({
        "checked_with": "tools/paddle_oracle/check_downgrade.py",
        "date_utc": time.strftime("%Y-%m-%d", time.gmtime()),
        "paddle": "3.0.0", "target_version": TARGET,
        "summary": f"downgraded: {passed}/{total} load and run in Paddle 3.0.0 with 3.3.1's "
                   f"outputs",
        "results": results}, indent=1) + "\n")
    print(f"wrote {dest}: downgraded {passed}/{total} pass")


if __name__ == "__main__":
    main()
