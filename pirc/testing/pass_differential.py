"""Differential checking of the pass layer: one program run before and after a pass (or a
pipeline), outputs compared bit for bit.

    from pirc.testing.pass_differential import TARGETS, check_target, run_outputs

    before = run_outputs(program, inputs, params)            # pirc's own run of the original
    for target in TARGETS:
        outcome = check_target(program, target, inputs, params, before)
        assert outcome.ok, outcome                           # "same" or "unchanged"

What counts (docs/TESTING.md, "Differential testing of passes"):
* `same`: the pass rewrote the program and the rewritten one computes the same bits;
* `unchanged`: the pass left the program's text as it was (nothing to run again);
* `miscompile`: an output differs (shape, dtype or a bit: NaNs only need to be NaN at the
  same places); conv-bn-fold and the pipelines that hold it are compared within float32
  (float64) reassociation on programs with a batch_norm, since the fold multiplies the scale
  into the weights before the convolution instead of after it;
* `refused`: the pass or pipeline raised pirc's own error on a valid, runnable program
  (a rewrite conflict, a PassFailure): a bug too, reported apart from miscompiles;
* `broken`: the rewritten program no longer runs (a PircError from the lowering).
Anything else a pass or the lowering raises propagates: an internal error is the caller's
finding (the fuzzer classifies it by signature).

Parameters: each run gets fresh copies (`params` is never changed), since a program may
write a parameter in place; the run after a pipeline uses the pipeline's `result.params`
(folded parameters added, unused ones gone).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import PircError

__all__ = ["PASSES", "PIPELINES", "TARGETS", "Outcome", "check_target", "run_outputs",
           "compare_outputs"]

PASSES = ("cse", "dce", "canonicalize", "const-fold", "param-fold", "conv-bn-fold")
PIPELINES = ("default", "inference")
TARGETS = PASSES + PIPELINES
# Targets whose rewrite of a batch_norm reassociates float arithmetic (conv-bn-fold itself,
# and the pipelines that run it).
_REASSOCIATING = {"conv-bn-fold", "default", "inference"}
# |after - before| <= RTOL * |before| + ATOL * max(1, max |before|): a few hundred ulps of
# the output's scale, room for a 27-term convolution sum taken in another order.
_REASSOCIATION = {np.dtype("float32"): (1e-4, 1e-5), np.dtype("float64"): (1e-12, 1e-13)}


@dataclass
class Outcome:
    target: str
    status: str          # "same" | "unchanged" | "miscompile" | "refused" | "broken"
    detail: str = ""
    rewritten: str = ""  # the program's canonical text after the pass (miscompile / broken)

    @property
    def ok(self) -> bool:
        return self.status in ("same", "unchanged")

    def __str__(self) -> str:
        return f"{self.target}: {self.status}" + (f"\n{self.detail}" if self.detail else "")


def _fresh(params):
    return {k: np.array(v, copy=True) for k, v in params.items()} if params else None


def run_outputs(program, inputs: dict, params: dict | None = None) -> list[np.ndarray]:
    """pirc's run of `program` (not changed), outputs in fetch order."""
    import pirc

    return list(pirc.run(program, inputs, params=_fresh(params)).values())


def _pass_names(target: str) -> list[str]:
    """The names in a pipeline spec ("default", "cse,dce", "const-fold{max-iterations=1},cse")."""
    import re

    return re.findall(r"([A-Za-z][\w-]*)(?:\{[^}]*\})?(?:,|$)", target)


def _holds_batch_norm(program) -> bool:
    return any(op.name in ("pd_op.batch_norm", "pd_op.batch_norm_") for op in program.walk())


def check_target(program, target: str, inputs: dict, params: dict | None,
                 before: list[np.ndarray], give_params: bool = True) -> Outcome:
    """Run `target` (a pass, a pipeline name or a spec) on a copy of `program` and compare
    the copy's outputs with `before` (run_outputs of the original).  `give_params=False`
    runs the passes without the parameters (pirc-opt without --params); the runs still
    get them."""
    import pirc

    original = pirc.to_text(program)
    work = program.clone()
    try:
        result = pirc.run_pipeline(work, target, params=_fresh(params) if give_params else None,
                                   report=False)
    except PircError as e:
        return Outcome(target, "refused", e.render())
    text = pirc.to_text(work)
    if text == original:
        return Outcome(target, "unchanged")
    new_params = result.params if give_params and result.params is not None else params
    try:
        after = run_outputs(work, inputs, new_params)
    except PircError as e:
        return Outcome(target, "broken", e.render(), text)
    tolerance = None
    if _REASSOCIATING & set(_pass_names(target)) and _holds_batch_norm(program):
        tolerance = _REASSOCIATION
    problem = compare_outputs(before, after, tolerance)
    if problem:
        return Outcome(target, "miscompile", problem, text)
    return Outcome(target, "same")


def compare_outputs(before, after, tolerance=None) -> str:
    """'' when `after` is `before` bit for bit (or within `tolerance`: dtype -> (rtol, atol)
    for float outputs); else what differs, output by output."""
    if len(before) != len(after):
        return f"{len(before)} outputs before, {len(after)} after"
    problems = []
    for i, (a, b) in enumerate(zip(before, after)):
        a, b = np.asarray(a), np.asarray(b)
        if a.shape != b.shape or a.dtype != b.dtype:
            problems.append(f"output {i}: {a.dtype}{list(a.shape)} before, {b.dtype}{list(b.shape)} after")
            continue
        if _same_bits(a, b):
            continue
        if tolerance and a.dtype in tolerance:
            rtol, atol = tolerance[a.dtype]
            scale = max(1.0, float(np.nanmax(np.abs(a), initial=0.0)))
            with np.errstate(all="ignore"):
                if np.allclose(b, a, rtol=rtol, atol=atol * scale, equal_nan=True):
                    continue
        with np.errstate(all="ignore"):
            diff = np.abs(a.astype(np.float64) - b.astype(np.float64)) if a.dtype.kind == "f" else a != b
        where = np.unravel_index(int(np.nanargmax(diff)), a.shape) if a.size else ()
        problems.append(f"output {i}: max difference {float(np.nanmax(diff)):.6g} at {list(where)} "
                        f"({a[where]!r} before, {b[where]!r} after)")
    return "\n".join(problems)


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    if a.dtype.kind in "fc":
        nan_a, nan_b = np.isnan(a), np.isnan(b)
        if not np.array_equal(nan_a, nan_b):
            return False
        a, b = np.where(nan_a, 0, a), np.where(nan_b, 0, b)
    return a.tobytes() == b.tobytes()
