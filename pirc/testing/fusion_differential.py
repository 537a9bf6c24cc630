"""Fusions proven on numbers: a program run before and after a fusion pipeline (or one fusion
pass), outputs compared within the tolerance of the fusions that fired
(pirc/passes/fusion/tolerances.yaml, docs/PARITY.md "Fusion tolerances").

    from pirc.testing.fusion_programs import fusion_program
    from pirc.testing.fusion_differential import check_fusion

    outcome = check_fusion(fusion_program(7), "npu")          # or "fuse", or "fuse-rms-norm"
    assert outcome.ok, outcome

What counts:
* no fusion fired: the outputs must be the same bits (`default`'s contract);
* fusions fired: every output within the bound of the fired passes for its dtype (their ulps
  added, or the widest atol / rtol plus those ulps), NaN and infinities where they were; the
  elements a pass's `boundary` rules accept by design (fusion_tolerance.BOUNDARY_RULES) aside;
* `refused`: pirc's own error from a pass on a valid, runnable program; `broken`: the fused
  program no longer runs.  Anything else a pass raises propagates (the fuzzer's crash class).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import PircError
from . import fusion_tolerance as ft
from .pass_differential import compare_outputs

__all__ = ["FusionOutcome", "check_fusion", "fused_passes", "output_dtype"]

_EPS = {"f32": 2.0 ** -23, "f64": 2.0 ** -52, "f16": 2.0 ** -10, "bf16": 2.0 ** -7}


@dataclass
class FusionOutcome:
    target: str
    status: str                     # "same" | "within" | "unchanged" | "miscompile" | "refused" | "broken"
    fired: list[str] = field(default_factory=list)   # fusion passes that rewrote something
    detail: str = ""
    rewritten: str = ""

    @property
    def ok(self) -> bool:
        return self.status in ("same", "within", "unchanged")

    def __str__(self) -> str:
        fired = f" (fired: {', '.join(self.fired)})" if self.fired else ""
        return f"{self.target}: {self.status}{fired}" + (f"\n{self.detail}" if self.detail else "")


def output_dtype(array: np.ndarray, program_dtype: str) -> str | None:
    """The tolerance table's dtype for an output array (bf16 outputs are uint16 bits)."""
    if array.dtype == np.uint16 and program_dtype == "bf16":
        return "bf16"
    return {np.dtype(np.float32): "f32", np.dtype(np.float64): "f64",
            np.dtype(np.float16): "f16"}.get(array.dtype)


def fused_passes(result) -> list[str]:
    """The fusion passes (those with a tolerance entry) that rewrote something, in order."""
    known = set(ft.passes())
    out: list[str] = []
    for record in result.passes:
        if record.rewrites and record.name in known and record.name not in out:
            out.append(record.name)
    return out


def _fresh(params):
    return {k: np.array(v, copy=True) for k, v in params.items()} if params else None


def _combined(fired: list[str], dtype: str) -> ft.Tolerance:
    """One bound for several fusions in one program: their ulps add up; a reduction's atol /
    rtol (the widest) gets those ulps as relative error on top."""
    tols = [ft.tolerance(p, dtype) for p in fired]
    tols = [t for t in tols if t.fused] or tols
    ulp = sum(t.ulp or 0 for t in tols)
    reductions = [t for t in tols if t.ulp is None and t.fused]
    boundary = {k: v for t in tols for k, v in t.boundary.items()}
    name = "+".join(fired)
    if not reductions:
        return ft.Tolerance(name, dtype, ulp=ulp, boundary=boundary)
    return ft.Tolerance(name, dtype, atol=max(t.atol for t in reductions),
                        rtol=max(t.rtol for t in reductions) + ulp * _EPS[dtype], boundary=boundary)


def check_fusion(fp, target: str, label: str | None = None, salt: str = "") -> FusionOutcome:
    """Run `target` on fusion program `fp` (pirc.testing.fusion_programs.FusionProgram) and
    compare the outputs with the unfused run's, on seeded inputs or boundary label `label`."""
    import pirc

    program = pirc.parse(fp.text, from_version=4)
    inputs, params = fp.arrays(label, salt)
    before = list(pirc.run(program, inputs, params=_fresh(params)).values())
    work = program.clone()
    # `fuse` is the portable pipeline (the CPU); the device fusions run only for --device npu,
    # which `npu` implies and a single pass is given here (their CPU references run after)
    device = "cpu" if target == "fuse" else "npu"
    try:
        result = pirc.run_pipeline(work, target, params=_fresh(params), device=device, report=False)
    except PircError as e:
        return FusionOutcome(target, "refused", detail=e.render())
    fired = fused_passes(result)
    text = pirc.to_text(work)
    new_params = result.params if result.params is not None else params
    try:
        after = list(pirc.run(work, inputs, params=_fresh(new_params)).values())
    except PircError as e:
        return FusionOutcome(target, "broken", fired, e.render(), text)
    if not fired:
        problem = compare_outputs(before, after)
        status = "miscompile" if problem else ("unchanged" if text == pirc.to_text(program) else "same")
        return FusionOutcome(target, status, fired, problem, text if problem else "")
    if len(before) != len(after):
        return FusionOutcome(target, "miscompile", fired, f"{len(before)} outputs before, {len(after)} after", text)
    problems = []
    for i, (a, b) in enumerate(zip(before, after)):
        a, b = np.asarray(a), np.asarray(b)
        dtype = output_dtype(a, fp.dtype)
        if dtype is None:
            problem = compare_outputs([a], [b])
            if problem:
                problems.append(f"output {i}: {problem}")
            continue
        verdict = ft.check(_combined(fired, dtype), a, b, label)
        if not verdict.ok:
            problems.append(f"output {i} ({dtype}, bound {_combined(fired, dtype).text()}): {verdict.detail}")
    if problems:
        return FusionOutcome(target, "miscompile", fired, "\n".join(problems), text)
    return FusionOutcome(target, "within", fired)


# -- measuring the bounds ------------------------------------------------------------------------

@dataclass
class Measured:
    pass_name: str
    dtype: str
    drawn: int = 0
    fired: int = 0
    worst_ulp: float = 0.0
    worst_abs: float = 0.0
    also: set = field(default_factory=set)   # other fusions that fired in the same programs


def measure(pass_names=None, seeds: int = 8, labels=None) -> list[Measured]:
    """For each pass and dtype: how many of `seeds` programs drawn around its pattern the
    `npu` pipeline fused, and the worst distance (ulp and absolute, finite elements) between
    the outputs before and after over the boundary labels and a seeded draw: the evidence
    behind tolerances.yaml's bounds."""
    import pirc
    from .boundary import FLOAT_LABELS, as_float
    from .fusion_programs import PATTERNS, fusion_program

    labels = (None,) + FLOAT_LABELS if labels is None else labels
    out = []
    for name in pass_names or sorted(PATTERNS):
        for dtype in ft.DTYPES:
            row = Measured(name, dtype)
            for seed in range(seeds):
                fp = fusion_program(seed, name, "match", dtype)
                program = pirc.parse(fp.text, from_version=4)
                work = program.clone()
                result = pirc.run_pipeline(work, "npu", device="npu", report=False)
                row.drawn += 1
                fired = fused_passes(result)
                if name not in fired:
                    continue
                row.fired += 1
                row.also.update(p for p in fired if p != name)
                for label in labels:
                    inputs, params = fp.arrays(label)
                    before = pirc.run(program, inputs, params=_fresh(params))
                    after = pirc.run(work, inputs, params=_fresh(result.params or params))
                    for a, b in zip(before.values(), after.values()):
                        odt = output_dtype(a, dtype)
                        if odt is None or a.shape != b.shape:
                            continue
                        fa, fb = as_float(a, odt), as_float(b, odt)
                        finite = np.isfinite(fa) & np.isfinite(fb)
                        if finite.any():
                            row.worst_ulp = max(row.worst_ulp, float(ft.ulp_distance(a, b, odt)[finite].max()))
                            row.worst_abs = max(row.worst_abs, float(np.abs(fa[finite] - fb[finite]).max()))
            out.append(row)
    return out


def measure_table(rows: list[Measured]) -> str:
    lines = ["| pass | dtype | fused / drawn | also fired | worst ulp | worst abs | bound |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        bound = ft.tolerance(r.pass_name, r.dtype).text()
        if r.also:  # the programs' bound: the fired passes' together
            bound = _combined([r.pass_name, *sorted(r.also)], r.dtype).text() + " (together)"
        also = ", ".join(sorted(r.also)) or "-"
        lines.append(f"| `{r.pass_name}` | {r.dtype} | {r.fired} / {r.drawn} | {also} | {r.worst_ulp:g} | "
                     f"{r.worst_abs:.3g} | {bound} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    import argparse
    parser = argparse.ArgumentParser(prog="python -m pirc.testing.fusion_differential",
                                     description="measure each fusion pass before vs after "
                                                 "(the evidence behind tolerances.yaml)")
    parser.add_argument("--seeds", type=int, default=8, help="programs drawn per pass and dtype")
    parser.add_argument("--pass", dest="passes", action="append", help="one pass (repeatable)")
    args = parser.parse_args(argv)
    print(measure_table(measure(args.passes, args.seeds)), end="")
    return 0


if __name__ == "__main__":
    import sys
    sys.exit(main())
