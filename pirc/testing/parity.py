"""Parity with real Paddle: run a saved Paddle program through pirc.run on the inputs of its
`*.io.npz` and compare every output with what Paddle computed.

Verdict per output: "bitexact" (same dtype, shape and bytes), "close" (allclose with the
tolerance given, by default the float32 bar atol 1e-5 / rtol 1e-4), "unrecorded" (no tolerance
given, so bit-exactness was expected, but the result is only within the float32 bar), "random-ok" (random ops: same shape and dtype and a
two-sample Kolmogorov-Smirnov distance under `ks_limit(n, m)`), or "MISMATCH".
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from .numerical_diff import ArrayDiff, compare_arrays

ATOL, RTOL = 1e-5, 1e-4


def ks_limit(n: int, m: int) -> float:
    """KS distance two samples of sizes n, m from one distribution exceed with p ~ 1e-4
    (c(alpha) = sqrt(-ln(alpha / 2) / 2) = 2.23): ~0.099 for 1024 against 1024."""
    return 2.23 * ((n + m) / (n * m)) ** 0.5


@dataclass
class OutputParity:
    index: int
    name: str
    verdict: str
    diff: ArrayDiff | None
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.verdict != "MISMATCH"

    def __str__(self) -> str:
        return f"out {self.index} ({self.name}): {self.verdict} {self.detail}".rstrip()


def ks_distance(a, b) -> float:
    """Two-sample Kolmogorov-Smirnov statistic of the flattened arrays."""
    a = np.sort(np.asarray(a, np.float64).ravel())
    b = np.sort(np.asarray(b, np.float64).ravel())
    grid = np.concatenate([a, b])
    fa = np.searchsorted(a, grid, side="right") / a.size
    fb = np.searchsorted(b, grid, side="right") / b.size
    return float(np.abs(fa - fb).max())


def compare_output(i, name, got, want, random=False, tol=(ATOL, RTOL)) -> OutputParity:
    """`tol` = (atol, rtol) of a "close" verdict, or None: only bit-exact passes."""
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape or got.dtype != want.dtype:
        return OutputParity(i, name, "MISMATCH", None,
                            f"{got.dtype}{list(got.shape)} vs Paddle "
                            f"{want.dtype}{list(want.shape)}")
    if random:
        ks = ks_distance(got, want) if got.size else 0.0
        limit = ks_limit(got.size, want.size) if got.size else 1.0
        return OutputParity(i, name, "random-ok" if ks < limit else "MISMATCH", None,
                            f"KS distance {ks:.4f} (limit {limit:.4f})")
    if got.tobytes() == want.tobytes():
        return OutputParity(i, name, "bitexact", None)
    if tol is None:
        # No tolerance recorded: the op must be bit-exact. An inexact result within the
        # float32 bar is "unrecorded" (not a failure: another CPU's vector unit may round an
        # op differently; the test reports it so that the op gets a recorded tolerance).
        d = compare_arrays(got, want, 0.0, 0.0)
        if d.ok and np.issubdtype(got.dtype, np.floating):
            zeros = (got == 0) & (want == 0)
            if (np.signbit(got) != np.signbit(want))[zeros].any():
                return OutputParity(i, name, "MISMATCH", d, "a zero has the other sign")
        if d.ok:
            return OutputParity(i, name, "bitexact", d)
        d = compare_arrays(got, want, ATOL, RTOL)
        return OutputParity(i, name, "unrecorded" if d.ok else "MISMATCH", d,
                            f"not bit-exact and no tolerance recorded: {d}")
    d = compare_arrays(got, want, *tol)
    return OutputParity(i, name, "close" if d.ok else "MISMATCH", d, str(d))


@dataclass(frozen=True)
class Tolerance:
    """The bar an op's lowering meets against Paddle when it is not bit-exact, and why."""

    op: str
    atol: float
    rtol: float
    why: str
    source: str

    @property
    def pair(self) -> tuple[float, float]:
        return (self.atol, self.rtol)


def load_tolerances(directory) -> dict[str, Tolerance]:
    """The per-op tolerances of `directory`/*.yaml (tests/fixtures/ops/parity/, one file per
    op family): `pd_op.NAME: {atol: A, rtol: R, why: TEXT}`. An op with none must be bit-exact."""
    import glob

    import yaml

    out: dict[str, Tolerance] = {}
    for path in sorted(glob.glob(os.path.join(directory, "*.yaml"))):
        with open(path) as f:
            doc = yaml.safe_load(f) or {}
        src = os.path.basename(path)
        for op, e in doc.items():
            if not isinstance(e, dict) or set(e) != {"atol", "rtol", "why"} or not e["why"]:
                raise ValueError(f"{src}: {op}: expected {{atol, rtol, why}}, got {e!r}")
            if op in out:
                raise ValueError(f"{src}: {op} already has a tolerance in {out[op].source}")
            out[op] = Tolerance(op, float(e["atol"]), float(e["rtol"]), str(e["why"]).strip(), src)
    return out


def _compare_lod(i, name, lods, io) -> OutputParity:
    """Output i's LoD levels against Paddle's (pirc may know a LoD where Paddle's fetch
    dropped it: only the levels Paddle gave are compared, and each must be there)."""
    for level, prefix in enumerate(("outlod__", "outlod1__")):
        want = io[f"{prefix}{i}"] if f"{prefix}{i}" in io.files else None
        key = ("lod__" if level == 0 else "lod1__") + name
        if want is None:
            continue
        got = lods.get(key)
        if got is None or got.tolist() != want.tolist():
            return OutputParity(i, key, "MISMATCH", None,
                                f"LoD level {level}: {None if got is None else got.tolist()} "
                                f"vs Paddle {want.tolist()}")
    return OutputParity(i, f"lod of {name}", "bitexact", None)


def fixture_parity(json_path, key="out__", random=False, device="cpu",
                   tol=(ATOL, RTOL)) -> list[OutputParity]:
    """Run `NAME.VER.json` (+ `.pdiparams` beside it) on `NAME.VER.io.npz`'s `in__*` inputs and
    compare with its `<key><i>` outputs (`tol` as compare_output's).

    A fixture fed LoDs (tools/paddle_oracle/gen_lod_fixtures.py) also holds the feeds' LoDs
    (`lod__<feed>`, `lod1__<feed>`, given to pirc.run as they are) and the LoDs Paddle's
    fetch gave (`outlod__<i>`, `outlod1__<i>`), which pirc's `lod__<fetch>` outputs must equal."""
    import pirc

    stem = json_path[:-len(".json")]
    io = np.load(stem + ".io.npz")
    inputs = {k[len("in__"):]: io[k] for k in io.files if k.startswith("in__")}
    inputs.update({k: io[k] for k in io.files if k.startswith(("lod__", "lod1__"))})
    params = stem + ".pdiparams" if os.path.exists(stem + ".pdiparams") else None
    program = pirc.load(json_path)
    got = pirc.run(program, inputs, params=params, device=device)
    lods = {k: v for k, v in got.items() if k.startswith(("lod__", "lod1__"))}
    got = {k: v for k, v in got.items() if k not in lods}
    want = [io[f"{key}{i}"] for i in range(len([k for k in io.files if k.startswith(key)]))]
    res = [compare_output(i, n, g, w, random, tol) for i, ((n, g), w) in
           enumerate(zip(got.items(), want))]
    if key == "out__":
        res += [_compare_lod(i, n, lods, io) for i, n in enumerate(got) if i < len(want)]
    if len(got) != len(want):
        res.append(OutputParity(len(want), "-", "MISMATCH", None,
                                f"pirc gave {len(got)} outputs, Paddle {len(want)}"))
    return res
