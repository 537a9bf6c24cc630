"""Numerical parity with Paddle: every fixture program with recorded outputs, run by pirc.

Reference outputs were recorded by real Paddle (tests/fixtures/*/NAME.VER.io.npz): the
corpus's `reload_out__<i>` are the outputs of the saved program the JSON describes, the
generated and patch-op fixtures' `out__<i>` those of the loaded program.  An output is
bit-exact or within float32 tolerance (max abs error < 1e-5 and max abs error / max |ref|
< 1e-4); every program not bit-exact is listed, with the reason, in docs/PARITY.md.
Outputs that depend on a random op (gaussian, uniform, dropout in training) are compared by
shape and dtype only.  A program saved at an older PIR version must give the same numbers
run as read and after `pirc.upgrade`.
"""

from pathlib import Path

import numpy as np
import pytest

import pirc

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
ATOL, RTOL = 1e-5, 1e-4
RANDOM_OPS = {"pd_op.gaussian", "pd_op.uniform"}


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


def random_fetches(program) -> set[int]:
    """Positions of fetched values that depend on a random op."""
    def is_random(op):
        return op.name in RANDOM_OPS or (op.name == "pd_op.dropout" and not
                                         bool(op.attributes["is_test"].value.data))
    tainted = set()
    for op in program.walk():
        if is_random(op) or any(getattr(v, "owner", None) in tainted for v in op.operands):
            tainted.add(op)
    fetches = [op for op in program.block.ops if op.name == "pd_op.fetch"]
    return {i for i, op in enumerate(fetches) if op in tainted}


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


def documented_inexact() -> set[str]:
    text = (ROOT / "docs" / "PARITY.md").read_text()
    return {line.split("|")[1].strip().strip("`") for line in text.splitlines()
            if line.startswith("| `")}


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
    inexact = []
    for i, (got, ref) in enumerate(zip(out.values(), refs)):
        if i in random:
            assert got.shape == ref.shape and got.dtype == ref.dtype
            continue
        exact, err, rel = compare(got, ref)
        if not exact:
            assert err < ATOL and rel < RTOL, f"output {i}: max abs {err:.3g}, relative {rel:.3g}"
            inexact.append(i)
    if inexact:
        assert case_id(case) in documented_inexact(), \
            f"outputs {inexact} are not bit-exact: give the reason in docs/PARITY.md"
    else:
        assert case_id(case) not in documented_inexact(), \
            "every output is bit-exact now: remove the program's row from docs/PARITY.md"


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
