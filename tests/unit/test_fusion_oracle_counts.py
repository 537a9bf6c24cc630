"""pirc's `npu` pipeline fuses at least wherever Paddle's own fusion passes do.

tools/paddle_oracle/paddle_fusion_passes.py ran every PIR pass of the Paddle 3.0.0 and 3.3.1
CPU wheels on the corpus and the dev zoo (results/fusion_passes.VER.json: per program and
pass, Paddle's match count and the ops it produced); tools/paddle_oracle/fusion_pass_map.yaml
maps each Paddle fusion pass to the pirc pass that covers it, or says why none does
(docs/FUSION.md). For each program and each pirc pass some Paddle pass maps to, the `npu`
pipeline (after `--upgrade`, with the program's parameters) must rewrite at least as many
sites as the largest Paddle count for it. No Paddle here: the counts are the committed files.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest
import yaml

import pirc

ROOT = Path(__file__).resolve().parents[2]
ORACLE = ROOT / "tools" / "paddle_oracle"
RESULTS = sorted((ORACLE / "results").glob("fusion_passes.*.json"))
MAP = yaml.safe_load((ORACLE / "fusion_pass_map.yaml").read_text())
ROUTES = ("pass_manager", "inference")  # one pass at a time, without and with the scope


def _count(entry: dict, record: dict) -> int:
    if entry.get("count") == "matches":
        return int(record.get("match_count", 0))
    return sum(record.get("produced", {}).get(op, 0) for op in entry["produces"])


@functools.lru_cache(maxsize=None)
def paddle_counts() -> dict[tuple[str, str], dict[str, tuple[int, str]]]:
    """(release, program json) -> {pirc pass: (Paddle's largest count, which Paddle pass)}."""
    out: dict = {}
    for path in RESULTS:
        doc = json.loads(path.read_text())
        for prog in doc["programs"].values():
            best = out.setdefault((doc["paddle"], prog["json"]), {})
            for paddle_pass, entries in MAP.items():
                for entry in entries:
                    if "pirc" not in entry:
                        continue
                    n = max(_count(entry, prog["routes"][r].get(paddle_pass, {})) for r in ROUTES)
                    if n > best.get(entry["pirc"], (0, ""))[0]:
                        best[entry["pirc"]] = (n, paddle_pass)
    return out


CASES = sorted((release, program, pirc_pass)
               for (release, program), per in paddle_counts().items()
               for pirc_pass, (n, _) in per.items() if n > 0)


def _params(program_path: Path, program):
    """The program's parameters: the corpus's committed .pdiparams, the zoo's rebuilt from
    tools/zoo_weights.py (tests/unit/zoo_cases.py)."""
    pdiparams = program_path.with_suffix(".pdiparams")
    if pdiparams.exists():
        return pirc.read_params(str(pdiparams), program)
    from zoo_cases import ZOO, ZOO2, params, saved_cases

    for zoo in (ZOO, ZOO2):
        for case in saved_cases(zoo):
            if case.program == program_path:
                return params(program, case)
    return None


@functools.lru_cache(maxsize=4)
def npu_rewrites(program: str) -> dict[str, int]:
    """pirc pass -> rewrites, from one `npu` pipeline run on the upgraded program."""
    path = ROOT / program
    prog = pirc.load(str(path))
    params = _params(path, prog)
    pirc.upgrade(prog)
    result = pirc.run_pipeline(prog, "npu", params=params, device="npu")
    rewrites: dict[str, int] = {}
    for record in result.passes:
        rewrites[record.name] = rewrites.get(record.name, 0) + record.rewrites
    return rewrites


def test_the_oracle_ran_both_releases():
    assert {json.loads(p.read_text())["paddle"] for p in RESULTS} == {"3.0.0", "3.3.1"}
    assert CASES, "no Paddle fusion fired on any program: the results files are empty"


def test_every_paddle_fusion_that_fired_is_in_the_map():
    """A Paddle fusion pass that fired on some program is mapped to a pirc pass or says why
    none covers it; so is every fusion pass of both registries."""
    unmapped = set()
    for path in RESULTS:
        doc = json.loads(path.read_text())
        fusions = set(doc["registry"]) - set(doc["not_fusions"])
        unmapped |= fusions - set(MAP)
        for prog in doc["programs"].values():
            for route in ROUTES:
                unmapped |= {p for p in prog["routes"][route] if p in fusions and p not in MAP}
    assert not unmapped, sorted(unmapped)
    for paddle_pass, entries in MAP.items():
        for entry in entries:
            assert ("pirc" in entry) != ("none" in entry), (paddle_pass, entry)
            assert "produces" in entry or entry.get("count") == "matches", (paddle_pass, entry)


@pytest.mark.parametrize("release,program,pirc_pass", CASES,
                         ids=[f"{Path(p).stem}-{q}" for _, p, q in CASES])
def test_npu_fuses_at_least_where_paddle_does(release, program, pirc_pass):
    n, paddle_pass = paddle_counts()[(release, program)][pirc_pass]
    got = npu_rewrites(program).get(pirc_pass)
    assert got is not None, (f"{program}: Paddle {release}'s {paddle_pass} fused {n} site(s); "
                             f"the npu pipeline has no pass {pirc_pass}")
    assert got >= n, (f"{program}: Paddle {release}'s {paddle_pass} fused {n} site(s), "
                      f"pirc's {pirc_pass} rewrote {got}")
