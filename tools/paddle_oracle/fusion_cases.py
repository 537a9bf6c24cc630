"""The programs the fusion oracle (paddle_fusion_passes.py) hands to Paddle's fusion passes.

Run with pirc's python (imports pirc; Paddle is never imported here):

    .venv/bin/python tools/paddle_oracle/fusion_cases.py --work DIR [--zoo2]

Writes DIR/cases.json: one entry per program, `{"name", "group", "release", "json", "params"}`,
sorted by name, for
- **corpus**: tests/fixtures/corpus/VER/*.json (their `.pdiparams` are committed);
- **zoo**: tests/fixtures/zoo/VER/*.json, the `.pdiparams` materialised under DIR/zoo-params
  from tools/zoo_weights.py exactly as tests/unit/test_zoo.py does, and checked against the
  sha256 tools/paddle_oracle/gen_zoo.py recorded for the file Paddle wrote;
- **zoo2** (with --zoo2): tests/fixtures/zoo2/VER/*.json, likewise.

Paddle's fusion passes that fold parameters (conv + batch norm) read them from the predictor's
scope, so the weights must be the real ones, not zeros: a pass may decline on values.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "tests" / "fixtures"
RELEASES = ("3.3.1", "3.0.0")


def corpus_cases() -> list[dict]:
    cases = []
    for release in RELEASES:
        for program in sorted((FIX / "corpus" / release).glob(f"*.{release}.json")):
            if program.name.startswith("gen_log."):
                continue
            model = program.name[: -len(f".{release}.json")]
            params = program.with_name(f"{model}.{release}.pdiparams")
            cases.append({"name": f"corpus/{model}.{release}", "group": "corpus",
                          "release": release, "model": model,
                          "json": str(program.relative_to(ROOT)),
                          "params": str(params.relative_to(ROOT)) if params.exists() else None})
    return cases


def zoo_cases(work: Path, zoo_dir: Path, group: str) -> list[dict]:
    sys.path.insert(0, str(ROOT / "tests" / "unit"))
    sys.path.insert(0, str(ROOT))
    import zoo_cases as zoo  # tests/unit/zoo_cases.py: the tests' own view of the zoo

    import pirc

    dest = work / f"{group}-params"
    dest.mkdir(parents=True, exist_ok=True)
    cases = []
    for zc in zoo.saved_cases(zoo_dir):
        params = dest / f"{zc.model}.{zc.release}.pdiparams"
        want = zoo.gen_log(zc.release, zoo_dir)[zc.model].get("pdiparams_sha256")
        have = hashlib.sha256(params.read_bytes()).hexdigest() if params.exists() else None
        program = pirc.load(str(zc.program))
        values = zoo.params(program, zc)
        if not values:
            cases.append({"name": f"{group}/{zc.model}.{zc.release}", "group": group,
                          "release": zc.release, "model": zc.model,
                          "json": str(zc.program.relative_to(ROOT)), "params": None})
            continue
        if want is None or have != want:
            pirc.write_params(str(params), values, program)
            have = hashlib.sha256(params.read_bytes()).hexdigest()
        if want is not None and have != want:
            raise SystemExit(f"{params}: sha256 {have} is not the {want} gen_zoo.py recorded for "
                             "Paddle's file: tools/zoo_weights.py and the zoo disagree")
        cases.append({"name": f"{group}/{zc.model}.{zc.release}", "group": group,
                      "release": zc.release, "model": zc.model,
                      "json": str(zc.program.relative_to(ROOT)), "params": str(params)})
    return cases


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--work", required=True, type=Path)
    ap.add_argument("--zoo2", action="store_true", help="the second zoo too")
    args = ap.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    cases = corpus_cases() + zoo_cases(args.work, FIX / "zoo", "zoo")
    if args.zoo2:
        cases += zoo_cases(args.work, FIX / "zoo2", "zoo2")
    cases.sort(key=lambda c: c["name"])
    (args.work / "cases.json").write_text(json.dumps(cases, indent=1, sort_keys=True) + "\n")
    print(f"{len(cases)} programs -> {args.work / 'cases.json'}")


if __name__ == "__main__":
    main()
