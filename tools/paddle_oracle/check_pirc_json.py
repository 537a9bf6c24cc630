#!/usr/bin/env python3
"""Prove that the JSON pirc writes loads and runs in real Paddle.

Run by hand with pirc's Python (paddlepaddle lives only in scratch venvs):

    python tools/paddle_oracle/check_pirc_json.py --pd331 /tmp/pd331/bin/python \
        --pd300 /tmp/pd300/bin/python [--out tests/fixtures/paddle_checks]

For every saved model in tests/fixtures (corpus and generated) pirc reads the file, writes
its own JSON, and `check_json_loads.py` loads that JSON with the model's .pdiparams in the
Paddle release that wrote the original (crossload files: 3.3.1), runs it on the saved
inputs and compares with the saved outputs.  Routes:

* json: Paddle's JSON -> pirc -> JSON (expected bit-exact);
* text: Paddle's printed text of the loaded program -> pirc -> JSON (the text keeps 6
  significant digits, so outputs may differ in the last bits: ALLCLOSE is a pass);
* nan:  programs with a NaN attribute, which Paddle saves but cannot load back; pirc
  rewrites them so that they load, and the outputs match the program as built.

Writes `pirc_json_loads.json` (one entry per case: verdict, Paddle version, the sha256 of
the JSON pirc wrote) to --out; tests/unit/test_paddle_checks.py holds pirc to it.
"""

from __future__ import annotations

import argparse

import numpy as np
import hashlib
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from pirc.paddle_json.reader import read_program  # noqa: E402
from pirc.paddle_json.writer import write_program  # noqa: E402
from pirc.text.parser import parse_text  # noqa: E402

FIX = ROOT / "tests" / "fixtures"
CHECK = Path(__file__).with_name("check_json_loads.py")
PASS = {"BITEXACT", "ALLCLOSE"}


def cases():
    """(name, route, source file, read() -> Program, params, inputs npz, expected npz, key, release)."""
    for release, version in (("3.0.0", 1), ("3.3.1", 4)):
        for root, key in ((FIX / "corpus" / release, "reload_out__"), (FIX / "generated" / release, "out__")):
            for src in sorted(root.glob("*.json")):
                if src.name.startswith("gen_log"):
                    continue
                stem = src.name[: -len(".json")]
                io = src.with_name(stem + ".io.npz")
                params = src.with_name(stem + ".pdiparams")
                params = params if params.exists() else None
                loaded_txt = src.with_name(stem + ".loaded.pir.txt")
                if not io.exists():
                    continue
                if loaded_txt.exists():
                    yield (stem, "json", src, lambda s=src: read_program(s.read_text(), str(s)),
                           params, io, io, key, release)
                    yield (stem, "text", loaded_txt,
                           lambda t=loaded_txt, v=version: parse_text(t.read_text(), str(t), v),
                           params, io, io, key, release)
                elif stem.startswith("nan"):
                    yield (stem, "nan", src, lambda s=src: read_program(s.read_text(), str(s)),
                           params, io, io, "built_out__", release)
    cross = FIX / "corpus" / "crossload"
    for src in sorted(cross.glob("*.json")):
        stem = src.name[: -len(".json")]
        model = stem.split(".")[0]
        params = FIX / "corpus" / "3.0.0" / f"{model}.3.0.0.pdiparams"
        params = params if params.exists() else None
        io = FIX / "corpus" / "3.0.0" / f"{model}.3.0.0.io.npz"
        yield (stem, "json", src, lambda s=src: read_program(s.read_text(), str(s)),
               params, io, src.with_name(stem + ".out.npz"), "out__", "3.3.1")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pd331", required=True, help="python of a venv with paddlepaddle==3.3.1")
    ap.add_argument("--pd300", required=True, help="python of a venv with paddlepaddle==3.0.0")
    ap.add_argument("--out", default=str(FIX / "paddle_checks"))
    args = ap.parse_args()
    pythons = {"3.3.1": args.pd331, "3.0.0": args.pd300}
    results = []
    with tempfile.TemporaryDirectory(prefix="pirc-check-") as tmp:
        for name, route, src, read, params, inputs, expected, key, release in cases():
            if not any(k.startswith(key) for k in np.load(expected).keys()):
                continue  # nothing to compare with (selected_rows needs a SelectedRows feed)
            text = write_program(read())
            out = Path(tmp) / f"{name}.{route}.json"
            out.write_text(text)
            report = Path(tmp) / f"{name}.{route}.report.json"
            cmd = [pythons[release], str(CHECK), "--json", str(out), "--inputs", str(inputs),
                   "--expect-outputs", str(expected), "--expect-key", key, "--report", str(report)]
            if params is not None:
                cmd += ["--params", str(params)]
            run = subprocess.run(cmd, capture_output=True, text=True)
            verdict = json.loads(report.read_text()).get("verdict") if report.exists() else "NO_REPORT"
            entry = {"case": name, "route": route, "source": str(src.relative_to(ROOT)),
                     "paddle": release, "verdict": verdict,
                     "sha256": hashlib.sha256(text.encode()).hexdigest()}
            results.append(entry)
            print(f"{verdict:10s} paddle {release} {route:5s} {name}", flush=True)
            if verdict not in PASS and route != "text":
                print(run.stdout[-2000:], run.stderr[-2000:], file=sys.stderr)
    Path(args.out).mkdir(parents=True, exist_ok=True)
    dest = Path(args.out) / "pirc_json_loads.json"
    dest.write_text(json.dumps({"checked_with": "tools/paddle_oracle/check_pirc_json.py",
                                "results": results}, indent=1) + "\n")
    print(f"wrote {dest}: {sum(r['verdict'] in PASS for r in results)}/{len(results)} pass")


if __name__ == "__main__":
    main()
