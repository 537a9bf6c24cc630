"""Numerical parity with Paddle: every fixture program with recorded outputs, run by pirc.

Reference outputs were recorded by real Paddle (tests/fixtures/*/NAME.VER.io.npz): the
corpus's `reload_out__<i>` are the outputs of the saved program the JSON describes, the
generated and patch-op fixtures' `out__<i>` those of the loaded program.  An output is
bit-exact, or its program is listed in docs/PARITY.md with the reason and a bound (max abs and
relative error) that every output must stay within.  What a CPU computes differs (torch picks
kernels by the CPU's vector unit and MKL's code paths): a listed program that is exact here, or
an unlisted one within float32 tolerance (max abs error < 1e-5, max abs error / max |ref| <
1e-4), is reported as a ParityReport warning, never failed -- a better result on another
machine must not fail a test.
Outputs that depend on a random op (gaussian, uniform, dropout in training) are compared by
shape and dtype only.  A program saved at an older PIR version must give the same numbers
run as read and after `pirc.upgrade`.
"""

from pathlib import Path

import warnings
from dataclasses import dataclass

import numpy as np
import pytest

import pirc
from pirc.testing.random_ops import random_fetches

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
ATOL, RTOL = 1e-5, 1e-4


def _cases():
    cases = []
    for folder, prefix in (("corpus", "reload_out__"), ("generated", "out__"), ("patchops", "out__")):
        for npz in sorted((FIXTURES / folder).glob("*/*.io.npz")):
            program = npz.with_name(npz.name.replace(".io.npz", ".json"))
            with np.load(npz) as data:
                has_outputs = any(k.startswith(prefix) for k in data.files)
            if program.exists() and has_outputs:  # nan_* and selected_rows: Paddle recorded none
                cases.append((npz, program, prefix))
    return cases


CASES = _cases()


def case_id(case) -> str:
    return str(case[0].relative_to(FIXTURES)).replace(".io.npz", "")


def run_case(program, npz: Path) -> dict:
    params = npz.with_name(npz.name.replace(".io.npz", ".pdiparams"))
    with np.load(npz) as data:
        inputs = {k: data[k] for k in data.files if k.startswith("in__")}
    return pirc.run(program, inputs, str(params) if params.exists() else None)


def compare(got: np.ndarray, ref: np.ndarray) -> tuple[bool, float, float]:
    """(bit-exact, max abs error, max abs error / max |ref|); NaN where the reference has NaN."""
    assert got.shape == ref.shape and got.dtype == ref.dtype, (got.shape, got.dtype, ref.shape, ref.dtype)
    if np.array_equal(got, ref, equal_nan=got.dtype.kind in "fc"):
        return True, 0.0, 0.0
    if got.dtype.kind not in "fc":
        return False, float("inf"), float("inf")
    assert np.array_equal(np.isnan(got), np.isnan(ref)), "NaN positions differ"
    finite = ~np.isnan(ref)
    g, r = got[finite].astype(np.complex128), ref[finite].astype(np.complex128)
    assert np.array_equal(np.isinf(g), np.isinf(r)) and np.array_equal(g[np.isinf(r)], r[np.isinf(r)])
    fin = np.isfinite(r)
    err = float(np.max(np.abs(g[fin] - r[fin]), initial=0.0))
    scale = float(np.max(np.abs(r[fin]), initial=0.0))
    return False, err, err / scale if scale else err


class ParityReport(UserWarning):
    """A parity result to record in docs/PARITY.md, not a failure (exact where a bound is
    listed, or inexact within float32 tolerance where none is)."""


@dataclass(frozen=True)
class Bound:
    abs: float
    rel: float

    def admits(self, err: float, rel: float) -> bool:
        return err <= self.abs and rel <= self.rel


def documented_bounds() -> dict[str, Bound]:
    """docs/PARITY.md's table: program -> its bound (the two `bound:` columns)."""
    lines = (ROOT / "docs" / "PARITY.md").read_text().splitlines()
    header = next(ln for ln in lines if ln.startswith("| program |"))
    names = [c.strip() for c in header.split("|")[1:-1]]
    col_abs, col_rel = names.index("bound: max abs"), names.index("bound: relative")
    bounds = {}
    # the rows right under that header (other tables of the file, such as the generated
    # per-op block, are not bounds)
    for line in lines[lines.index(header) + 2:]:
        if not line.startswith("| `"):
            break
        cells = [c.strip() for c in line.split("|")[1:-1]]
        bounds[cells[0].strip("`")] = Bound(float(cells[col_abs]), float(cells[col_rel]))
    return bounds



def test_every_bound_is_a_number_within_float32_tolerance():
    bounds = documented_bounds()
    assert bounds and all(0 < b.abs <= ATOL and 0 < b.rel <= RTOL for b in bounds.values())
    # every listed program is a fixture the parity test runs
    assert set(bounds) <= {case_id(c) for c in CASES}


def check_outputs(cid: str, results: list[tuple[int, bool, float, float]],
                  bounds: dict[str, Bound]) -> str | None:
    """Judge one program's (output, exact, max abs error, relative error) results: raise
    AssertionError for a failure, return the report to give for a non-failing surprise."""
    inexact = [(i, err, rel) for i, exact, err, rel in results if not exact]
    bound = bounds.get(cid)
    if bound is not None:
        for i, err, rel in inexact:
            assert bound.admits(err, rel), (
                f"output {i}: max abs {err:.3g}, relative {rel:.3g} is beyond the bound in "
                f"docs/PARITY.md ({bound.abs:g}, {bound.rel:g})")
        if not inexact:
            return f"{cid}: every output is bit-exact on this machine (docs/PARITY.md bounds it)"
        return None
    for i, err, rel in inexact:
        assert err < ATOL and rel < RTOL, f"output {i}: max abs {err:.3g}, relative {rel:.3g}"
    if inexact:
        worst = max(err for _, err, _ in inexact)
        return (f"{cid}: outputs {[i for i, _, _ in inexact]} are not bit-exact on this machine "
                f"(max abs {worst:.3g}, within float32 tolerance): give docs/PARITY.md a row "
                "with the reason and a bound")
    return None


def test_a_result_better_than_recorded_is_reported_not_failed():
    bounds = {"p": Bound(1e-6, 1e-6)}
    assert "bit-exact on this machine" in check_outputs("p", [(0, True, 0.0, 0.0)], bounds)
    assert check_outputs("p", [(0, False, 5e-7, 1e-7)], bounds) is None
    with pytest.raises(AssertionError, match="beyond the bound"):
        check_outputs("p", [(0, False, 2e-6, 1e-7)], bounds)
    # an unlisted program: exact passes silently, inexact within float32 tolerance is reported
    assert check_outputs("q", [(0, True, 0.0, 0.0)], bounds) is None
    assert "give docs/PARITY.md a row" in check_outputs("q", [(0, False, 1e-7, 1e-8)], bounds)
    with pytest.raises(AssertionError):
        check_outputs("q", [(0, False, 1e-3, 1e-3)], bounds)


def test_cases_cover_every_version():
    ids = {case_id(c) for c in CASES}
    for model in ("mlp", "cnn", "transformer", "control_flow"):
        assert f"corpus/3.0.0/{model}.3.0.0" in ids and f"corpus/3.3.1/{model}.3.3.1" in ids
    assert len(CASES) >= 80


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_parity_with_paddle(case):
    npz, path, prefix = case
    program = pirc.load(str(path))
    out = run_case(program, npz)
    random = random_fetches(program)
    with np.load(npz) as data:
        refs = [data[f"{prefix}{i}"] for i in range(sum(k.startswith(prefix) for k in data.files))]
    assert len(out) == len(refs)
    results = []
    for i, (got, ref) in enumerate(zip(out.values(), refs)):
        if i in random:
            assert got.shape == ref.shape and got.dtype == ref.dtype
            continue
        results.append((i, *compare(got, ref)))
    report = check_outputs(case_id(case), results, documented_bounds())
    if report:
        warnings.warn(report, ParityReport)


OLD = [c for c in CASES if not c[1].name.endswith(".3.3.1.json")]


def crossload_oracle(npz: Path) -> Path | None:
    """What Paddle 3.3.1 computed loading this old file (patchops/crossload), if recorded."""
    stem = npz.name.replace(".io.npz", "")
    path = FIXTURES / "patchops" / "crossload" / f"{stem}-loaded-in-3.3.1.out.npz"
    return path if path.exists() else None


@pytest.mark.parametrize("case", OLD, ids=case_id)
def test_upgrade_keeps_the_numbers(case):
    """Upgraded, an old program computes what it computed as read -- except where Paddle's
    own numerics changed between releases (interp ops): there it must compute what Paddle
    3.3.1 computes for the old file, the crossload oracle (docs/PARITY.md)."""
    npz, path, _ = case
    before = run_case(pirc.load(str(path)), npz)
    program = pirc.load(str(path))
    old_version = program.version
    pirc.upgrade(program)
    assert program.version > old_version
    after = run_case(program, npz)
    random = random_fetches(program)
    assert list(before) == list(after)
    oracle = crossload_oracle(npz)
    refs = dict(np.load(oracle)) if oracle else None
    for i, (name, got) in enumerate(after.items()):
        if i in random:
            continue
        if refs is None:
            np.testing.assert_array_equal(got, before[name], err_msg=f"{name} changed by the upgrade")
        else:
            exact, err, rel = compare(got, refs[f"out__{i}"])
            assert exact or (err < ATOL and rel < RTOL), f"{name}: Paddle 3.3.1 differs by {err:.3g}"
