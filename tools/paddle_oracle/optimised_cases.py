"""The programs check_optimised_loads.py sends through pirc's pipelines and real Paddle.

Three groups, each a list of `Case`:
- `corpus_cases()`: every saved program of the corpus with recorded inputs (tests/fixtures/*/VER/,
  the crossload and migration fixtures, /work/shared/corpus/paddle), one case per distinct
  program + parameters + npz; the dev zoo is its own group;
- `zoo_cases(work)`: every dev-zoo model as Paddle 3.3.1 and 3.0.0 saved it
  (tests/fixtures/zoo/VER/), its `.pdiparams` materialised under `work` from
  tools/zoo_weights.py exactly as tests/unit/test_zoo.py does (and checked against the sha256
  gen_zoo.py recorded for the file Paddle wrote);
- `generated_cases(work, n)`: `n` programs drawn from pirc.testing.strategies, written as Paddle
  JSON (+ `.pdiparams` when the draw has parameters) with their feeds, under `work/generated/`.

Run with pirc's python (imports pirc); Paddle is never imported here.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "tests" / "fixtures"
SHARED = Path("/work/shared/corpus/paddle")
EXPECT_KEYS = ("reload_out__", "out__", "built_out__")
_RELEASE = re.compile(r"\.(\d+\.\d+\.\d+)(?:-loaded-in-(\d+\.\d+\.\d+))?$")


@dataclass(frozen=True)
class Case:
    group: str             # corpus | zoo | generated
    name: str              # the program's path from the repo root (zoo, corpus) or gen/NNNN
    program: Path
    params: Path | None
    inputs: Path           # npz with in__<feed>
    recorded: Path | None  # npz with the outputs recorded when the program was made
    key: str | None        # the recorded outputs' key prefix
    outputs_from: str      # the Paddle release that recorded them ("numpy" for generated)
    tags: tuple = ()       # generated: the strategy's ingredients the program holds

    def to_json(self) -> dict:
        return {k: (str(v) if isinstance(v, Path) else v) for k, v in self.__dict__.items()}

    @staticmethod
    def from_json(d: dict) -> "Case":
        paths = {"program", "params", "inputs", "recorded"}
        d = {**d, "tags": tuple(d.get("tags", ()))}
        return Case(**{k: (Path(v) if k in paths and v is not None else v) for k, v in d.items()})


def _rel(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


# -- corpus ----------------------------------------------------------------------------------------

def _release(stem: str) -> tuple[str, str] | None:
    """(release that wrote the file, release that computed its outputs) from its name."""
    m = _RELEASE.search(stem)
    if m is None:
        return None
    return m.group(1), m.group(2) or m.group(1)


def _corpus_case(program: Path) -> Case | None:
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
    with np.load(expected) as data:
        keys = list(data.keys())
    key = next((k for k in EXPECT_KEYS if any(x.startswith(k) for x in keys)), None)
    if key is None:
        return None
    return Case("corpus", _rel(program), program, params if params.exists() else None, inputs,
                expected, key, outputs_from)


def corpus_cases() -> tuple[list[Case], int]:
    """The distinct corpus cases, in path order, and how many duplicates were left out."""
    found, seen, duplicates = [], set(), 0
    for root in (FIX, SHARED):
        if not root.is_dir():
            continue
        for program in sorted(root.rglob("*.json")):
            skip = {"fuzz_crashes", "zoo"}  # zoo: its own group, with materialised weights
            if skip & set(program.relative_to(root).parts) or program.name.startswith("gen_log"):
                continue
            case = _corpus_case(program)
            if case is None:
                continue
            digest = hashlib.sha256()
            for f in (case.program, case.params, case.inputs, case.recorded):
                digest.update(f.read_bytes() if f is not None else b"-")
            if digest.digest() in seen:
                duplicates += 1
                continue
            seen.add(digest.digest())
            found.append(case)
    return found, duplicates


# -- zoo -------------------------------------------------------------------------------------------

def zoo_cases(work: Path) -> list[Case]:
    """Every zoo model of both releases, with its weights written to work/zoo-params/."""
    sys.path.insert(0, str(ROOT / "tests" / "unit"))
    import zoo_cases as zoo  # tests/unit/zoo_cases.py: the tests' own view of the zoo

    import pirc

    dest = work / "zoo-params"
    dest.mkdir(parents=True, exist_ok=True)
    cases = []
    for zc in zoo.saved_cases():
        params = dest / f"{zc.model}.{zc.release}.pdiparams"
        want = zoo.gen_log(zc.release)[zc.model].get("pdiparams_sha256")
        if not (params.exists() and hashlib.sha256(params.read_bytes()).hexdigest() == want):
            program = pirc.load(str(zc.program))
            pirc.write_params(str(params), zoo.params(program, zc), program)
        got = hashlib.sha256(params.read_bytes()).hexdigest()
        if want is not None and got != want:
            raise SystemExit(f"{params}: sha256 {got} is not the {want} gen_zoo.py recorded for "
                             "Paddle's file: tools/zoo_weights.py and the zoo disagree")
        cases.append(Case("zoo", _rel(zc.program), zc.program, params, zc.inputs, zc.outputs,
                          "out__", zc.release))
    return cases


# -- generated -------------------------------------------------------------------------------------

def _draws(n: int) -> list:
    """`n` distinct programs from pirc.testing.strategies, the same on every run (derandomized
    hypothesis, generate phase only); the richest strategy the module offers."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import strategies as st

    from pirc.testing import strategies

    strategy = _strategy(strategies, st)
    found: dict[str, object] = {}
    budget = n * 2
    while len(found) < n and budget < n * 64:
        @settings(max_examples=budget, derandomize=True, phases=[Phase.generate], database=None,
                  suppress_health_check=list(HealthCheck), deadline=None)
        @given(strategy)
        def collect(g):
            found.setdefault(g.text, g)

        collect()
        budget *= 2
    return list(found.values())[:n]


def _strategy(strategies, st):
    """The aliasing-rich program strategy where the module has one, else `programs()`."""
    for name in ("aliasing_programs", "inplace_programs"):
        if hasattr(strategies, name):
            return getattr(strategies, name)()
    try:
        return strategies.programs(inplace=True)
    except TypeError:
        return strategies.programs()


def generated_cases(work: Path, n: int) -> list[Case]:
    """Write `n` generated programs as Paddle JSON under work/generated/ (reused when the same
    draws were written before) and return them as cases."""
    import pirc

    dest = work / "generated"
    dest.mkdir(parents=True, exist_ok=True)
    index = dest / "index.json"
    if index.exists():
        listed = json.loads(index.read_text())
        if listed.get("n") == n and listed.get("strategy_sha") == _strategy_sha():
            return [Case.from_json(c) for c in listed["cases"]]
    cases = []
    for i, g in enumerate(_draws(n)):
        stem = dest / f"gen{i:04d}"
        program = pirc.parse(g.text, from_version=getattr(g, "version", 4))
        Path(f"{stem}.pir.txt").write_text(g.text)
        pirc.save(program, f"{stem}.json")
        params = getattr(g, "params", None) or None
        if params:
            pirc.write_params(f"{stem}.pdiparams", params, program)
        np.savez(f"{stem}.inputs.npz", **{f"in__{k}": v for k, v in g.inputs.items()})
        np.savez(f"{stem}.numpy.npz", **{f"out__{j}": np.asarray(v) for j, v in enumerate(g.expected)})
        cases.append(Case("generated", f"gen/{i:04d}", Path(f"{stem}.json"),
                          Path(f"{stem}.pdiparams") if params else None, Path(f"{stem}.inputs.npz"),
                          Path(f"{stem}.numpy.npz"), "out__", "numpy",
                          tuple(sorted(getattr(g, "ingredients", ()) or ()))))
    index.write_text(json.dumps({"n": n, "strategy_sha": _strategy_sha(),
                                 "cases": [c.to_json() for c in cases]}, indent=1))
    return cases


def _strategy_sha() -> str:
    return hashlib.sha256((ROOT / "pirc" / "testing" / "strategies.py").read_bytes()).hexdigest()[:16]
