"""Per-fusion tolerances: how far a fusion pass may move an output, read from
`pirc/passes/fusion/tolerances.yaml` (the one source the docs, the boundary tests and the
fuzzer's `fusion` front share).

    >>> from pirc.testing.fusion_tolerance import tolerance, within
    >>> import numpy as np
    >>> tolerance("fuse-silu", "f32").ulp
    2
    >>> within("fuse-silu", "f32", np.float32([1.0, np.nan]), np.float32([1.0000001, np.nan])).ok
    True

`within(pass, dtype, before, after, label=None)` answers ok / not with the worst element;
bfloat16 arrays are uint16 bit patterns (as Paddle and pirc.run hand them to numpy).  A
tolerance's `boundary` names where the fused op computes another number by design, each with
its reason: element rules (BOUNDARY_RULES: those elements are accepted and reported), or
`label:NAME` for a whole boundary input of pirc.testing.boundary_inputs (when the difference
shows only downstream, e.g. through a relu, and no element rule can see it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources

import numpy as np
import yaml

from .boundary import as_float

DTYPES = ("f32", "f64", "f16", "bf16")
BEGIN = "<!-- BEGIN fusion tolerances: generated from pirc/passes/fusion/tolerances.yaml; do not edit -->"
END = "<!-- END fusion tolerances -->"


@dataclass(frozen=True)
class Tolerance:
    pass_name: str
    dtype: str
    fused: bool = True
    ulp: int | None = None
    atol: float | None = None
    rtol: float | None = None
    paddle: dict | None = None
    boundary: dict = field(default_factory=dict)
    why: str = ""

    def text(self) -> str:
        if not self.fused:
            return "not fused (unchanged)"
        if self.ulp is not None:
            return "bit-exact" if self.ulp == 0 else f"{self.ulp} ulp"
        return f"atol {self.atol:g}, rtol {self.rtol:g}"


@lru_cache(maxsize=1)
def _data() -> dict:
    text = resources.files("pirc").joinpath("passes/fusion/tolerances.yaml").read_text(encoding="utf-8")
    return yaml.safe_load(text)["passes"]


def passes() -> list[str]:
    return list(_data())


def tolerance(pass_name: str, dtype: str) -> Tolerance:
    entry = _data().get(pass_name)
    if entry is None:
        raise KeyError(f"no tolerance recorded for fusion pass {pass_name!r} "
                       f"(pirc/passes/fusion/tolerances.yaml has {', '.join(passes())})")
    spec = dict(entry.get(dtype) or {})
    if not spec:
        raise KeyError(f"{pass_name}: no tolerance recorded for dtype {dtype}")
    return Tolerance(pass_name, dtype, fused=spec.get("fused", True), ulp=spec.get("ulp"),
                     atol=spec.get("atol"), rtol=spec.get("rtol"), paddle=spec.get("paddle"),
                     boundary=dict(spec.get("boundary") or {}), why=spec.get("why", ""))


# Elements where a fused op differs from the composition by design, accepted when the
# tolerance names the rule: (before, after, dtype max) -> bool mask.
BOUNDARY_RULES = {
    # relu's phi functor (v > 0 ? v : 0) gives 0 for NaN; the fused op keeps the NaN
    "nan-for-zero": lambda b, a, top: (b == 0) & np.isnan(a),
    # near the dtype's max, the grouping of a product decides whether it overflows: one side
    # +-inf, the other finite of the same sign and at least a quarter of max
    "overflow": lambda b, a, top: (np.isinf(b) & np.isfinite(a) & (np.abs(a) >= top / 4) & (np.sign(a) == np.sign(b)))
    | (np.isinf(a) & np.isfinite(b) & (np.abs(b) >= top / 4) & (np.sign(a) == np.sign(b))),
}
_MAX = {"f32": float(np.finfo(np.float32).max), "f64": float(np.finfo(np.float64).max),
        "f16": 65504.0, "bf16": float.fromhex("0x1.fep127")}


def _ordered(a: np.ndarray) -> np.ndarray:
    """Float bit patterns as integers in the floats' order (-0 and +0 both 0)."""
    width = a.dtype.itemsize * 8
    bits = a.view(f"u{a.dtype.itemsize}").astype(np.uint64)
    sign = bits >> np.uint64(width - 1)
    mag = (bits & np.uint64((1 << (width - 1)) - 1)).astype(np.int64)
    return np.where(sign == 1, -mag, mag)


def ulp_distance(before: np.ndarray, after: np.ndarray, dtype: str) -> np.ndarray:
    """Elementwise distance in units in the last place of `dtype` (float64 array; inf where the
    signs differ beyond zero).  NaN and infinity are the caller's business."""
    if dtype == "bf16":
        a, b = np.asarray(before, np.uint16).view(np.float16), np.asarray(after, np.uint16).view(np.float16)
        # bf16 bits ordered as 16-bit patterns: reuse the float16 view only for its bits
        ia, ib = _ordered(a), _ordered(b)
    else:
        ia, ib = _ordered(np.asarray(before)), _ordered(np.asarray(after))
    same_side = (ia >= 0) == (ib >= 0)
    d = np.where(same_side, np.abs(np.where(same_side, ia - ib, 0)), 0).astype(np.float64)
    # opposite signs: the distance through zero (exact enough: only "small or not" matters)
    through_zero = np.abs(ia.astype(np.float64)) + np.abs(ib.astype(np.float64))
    return np.where(same_side, d, through_zero)


@dataclass
class Verdict:
    ok: bool
    detail: str = ""
    worst: float = 0.0


def within(pass_name: str, dtype: str, before: np.ndarray, after: np.ndarray,
           label: str | None = None) -> Verdict:
    """Is `after` (the fused program's output) within the pass's tolerance of `before`, on the
    inputs of boundary label `label` (None: ordinary inputs)?"""
    return check(tolerance(pass_name, dtype), before, after, label)


def check(tol: Tolerance, before: np.ndarray, after: np.ndarray, label: str | None = None) -> Verdict:
    """`within` for a Tolerance object (one read from the table, or several combined)."""
    dtype = tol.dtype
    before, after = np.asarray(before), np.asarray(after)
    if before.dtype != after.dtype or before.shape != after.shape:
        return Verdict(False, f"dtype/shape {before.dtype}{list(before.shape)} -> "
                              f"{after.dtype}{list(after.shape)}")
    if label is not None and f"label:{label}" in tol.boundary:
        return Verdict(True, f"by design on boundary input {label}: {tol.boundary['label:' + label]}")
    if before.dtype.kind not in "fu" or (before.dtype.kind == "u" and dtype != "bf16"):
        same = np.array_equal(before, after)
        return Verdict(same, "" if same else "integer or bool output differs")
    fb, fa = as_float(before, dtype), as_float(after, dtype)
    accepted = ""
    if tol.boundary:
        with np.errstate(invalid="ignore"):
            by_design = np.zeros(fb.shape, bool)
            for rule in (r for r in tol.boundary if not r.startswith("label:")):
                hit = BOUNDARY_RULES[rule](fb, fa, _MAX[dtype])
                if hit.any():
                    accepted += f"{int(hit.sum())} elements by design ({rule}); "
                by_design |= hit
        if by_design.any():  # compare the rest: the accepted elements as equal
            fa = np.where(by_design, fb, fa)
            after = np.where(by_design, before, after)
    nan_b, nan_a = np.isnan(fb), np.isnan(fa)
    if (nan_b != nan_a).any():
        i = int(np.argmax(nan_b != nan_a))
        return Verdict(False, f"NaN in one only at flat index {i}: {fb.flat[i]} -> {fa.flat[i]}")
    inf_b, inf_a = np.isinf(fb), np.isinf(fa)
    if (inf_b != inf_a).any() or (fb[inf_b] != fa[inf_b]).any():
        i = int(np.argmax((inf_b != inf_a) | (inf_b & (fb != fa))))
        return Verdict(False, f"infinity differs at flat index {i}: {fb.flat[i]} -> {fa.flat[i]}")
    finite = ~(nan_b | inf_b)
    if not finite.any():
        return Verdict(True, accepted)
    if tol.ulp is not None or not tol.fused:   # not fused: the same bits (0 ulp)
        d = np.where(finite, ulp_distance(before, after, dtype), 0.0)
        worst = float(d.max())
        i = int(np.argmax(d))
        return Verdict(worst <= (tol.ulp or 0), accepted + (f"{worst:g} ulp at flat index {i}: {fb.flat[i]!r} -> "
                                                     f"{fa.flat[i]!r}" if worst else ""), worst)
    with np.errstate(invalid="ignore", over="ignore"):   # inf - inf where not finite: masked
        err = np.where(finite, np.abs(fa - fb), 0.0)
    bound = tol.atol + tol.rtol * np.abs(fb)   # numpy's allclose, element by element
    excess = np.where(finite, err - bound, -math.inf)
    i = int(np.argmax(excess))
    return Verdict(bool(excess.max() <= 0), accepted + f"|delta| {err.flat[i]:.3g} vs bound {bound.flat[i]:.3g} "
                                                       f"at flat index {i}", float(err.max()))


# -- docs ---------------------------------------------------------------------------------------

def _paddle_text(tol: Tolerance) -> str:
    if not tol.fused:
        return "-"
    if tol.paddle is None:
        return "as pirc"
    return f"atol {tol.paddle['atol']:g}, rtol {tol.paddle['rtol']:g}"


def table() -> str:
    lines = ["| pass | dtype | pirc CPU references: before vs after | real Paddle 3.3.1 | differs by design | why |",
             "|---|---|---|---|---|---|"]
    for name in passes():
        for dtype in DTYPES:
            tol = tolerance(name, dtype)
            boundary = "; ".join(f"{k}: {v}" for k, v in tol.boundary.items()) or "none"
            lines.append(f"| `{name}` | {dtype} | {tol.text()} | {_paddle_text(tol)} | {boundary} | {tol.why} |")
    return "\n".join(lines) + "\n"


def section() -> str:
    return f"{BEGIN}\n{table()}{END}\n"
