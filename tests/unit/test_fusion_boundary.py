"""Every fusion pass, before vs after, on every boundary input (pirc.testing.boundary_inputs:
NaN, +-Inf, +-0, denormals, extremes, halves, values around each norm's epsilon), in each
dtype: the outputs stay within the pass's recorded tolerance (pirc/passes/fusion/
tolerances.yaml, docs/PARITY.md "Fusion tolerances"), alone and inside `npu`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pirc.passes.infra.registry import get_pass
from pirc.testing import fusion_tolerance as ft
from pirc.testing.boundary import FLOAT_LABELS
from pirc.testing.fusion_differential import check_fusion
from pirc.testing.fusion_programs import PATTERNS, fusion_program, program_of

DTYPES = ("f32", "f16", "bf16", "f64")
SEEDS = (0, 1)  # two draws of each pattern: other shapes, operand orders and spellings


def _registered(name: str) -> bool:
    return get_pass(name) is not None


def _cases():
    for name in sorted(PATTERNS):
        for dtype in DTYPES:
            marks = [] if _registered(name) else [pytest.mark.skip(reason=f"{name} is not registered in this checkout")]
            yield pytest.param(name, dtype, id=f"{name}-{dtype}", marks=marks)


@pytest.mark.parametrize("name,dtype", list(_cases()))
def test_fusion_on_boundary_inputs(name, dtype):
    failures, fired = [], 0
    for seed in SEEDS:
        fp = fusion_program(seed, name, "match", dtype)
        for target in (name, "npu"):
            for label in FLOAT_LABELS:
                outcome = check_fusion(fp, target, label)
                fired += name in outcome.fired
                if not outcome.ok:
                    failures.append(f"seed {seed}, {target}, {label}: {outcome}")
    assert not failures, "\n".join(failures[:10])
    tol = ft.tolerance(name, dtype)
    if not tol.fused:
        assert fired == 0, f"{name} fused {dtype}, which tolerances.yaml says its rule refuses"


@pytest.mark.parametrize("name", sorted(n for n in PATTERNS if _registered(n)))
def test_each_fusion_fires_on_its_pattern(name):
    # otherwise the boundary comparison above proves nothing for the pass
    fired = sum(name in check_fusion(fusion_program(seed, name, "match", "f32"), name).fired
                for seed in range(6))
    assert fired > 0, f"{name} fused none of 6 float32 programs drawn around its pattern"


@pytest.mark.parametrize("name", sorted(n for n in PATTERNS if _registered(n)))
def test_near_misses_keep_the_numbers(name):
    _, misses = PATTERNS[name]
    failures = []
    for variant in misses:
        for dtype in ("f32", "f16"):
            fp = fusion_program(3, name, variant, dtype)
            for label in (None, "nan", "max", "sqrt_eps1e-06"):
                outcome = check_fusion(fp, "npu", label)
                if not outcome.ok:
                    failures.append(f"{variant} {dtype} {label}: {outcome}")
    assert not failures, "\n".join(failures[:10])


FUZZ = Path(__file__).resolve().parents[1] / "fixtures" / "fusion_fuzz"


@pytest.mark.parametrize("path", sorted(FUZZ.glob("*.pir")), ids=lambda p: p.stem)
def test_fuzz_reproducers(path):
    meta = json.loads(path.with_suffix(".json").read_text())
    fp = program_of(path.read_text(), meta["pass"], meta["variant"], meta["dtype"], meta["program_seed"])
    for target in meta["targets"]:
        if target.startswith("fuse-") and not _registered(target):
            continue
        outcome = check_fusion(fp, target, meta["label"])
        assert outcome.ok, outcome
