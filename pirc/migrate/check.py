"""The differential check of one model's upgrade (`--check self|outputs|none|auto`).

"self": the ORIGINAL program, as read, run by pirc with the semantics of its own PIR version
(the lowering picks each op's kernel by the program's version), against the upgraded (and
optimised) program run with the target's, on the same inputs (pirc.migrate.inputs: the sample
inputs of NAME.io.npz, else deterministic ones), each bound to its own parameters (the
original's, and those the pipeline left).  An output that depends on a random op
(pirc.testing.random_ops: tainted from gaussian / uniform / dropout in training, in either
program) and an output that differs between two runs of the original (under two seeds: this
catches randomness the taint cannot see, such as a draw inside a loop's body, and any other
nondeterminism) is compared by shape and dtype only and listed in `random_outputs`; the
others within numerical_diff's default tolerances taken over each whole output (atol 1e-5 and
rtol 1e-4 of the output's largest finite |value|: |upgraded - original| <= atol + rtol *
max|original|, NaN matching NaN, infinities exactly, integers and bools exact).  Relative to
the output, not to each element: a pipeline may reassociate float32 arithmetic (conv-bn-fold,
"within float32 rounding", docs/PASSES.md), and an element near zero then carries the
rounding of the large values it was computed from.  Per element, the dev zoo's TPS text
recogniser drifted by 1.4e-5-3.1e-5 under `default` on 11 of 44 weight-perturbed replicas
(tools/bench_migrate.py, 2026-12-04): its grid_sample amplifies conv-bn-fold's last bits.  pirc's per-op tolerances in docs/PARITY.md hold pirc against
Paddle op by op, and the fusion tolerances (pirc/passes/fusion/tolerances.yaml) one fused
subgraph against its composition; neither bounds a whole program against itself, so the
float32 default holds here (a float16 model run through fusion passes may exceed it, and is
then reported, not hidden).  When an output differs, numerical_diff bisects the two programs
to the first paired op whose result diverges: `first_bad_op` ("pd_op.scale #12": its name
and position in the original's top block).

Runs are seeded (torch's and numpy's global generators, restored afterwards): the original's
first run and the upgraded program's run use one seed, so the same random ops draw the same
numbers, bisection's probes do not blame a random op, and the record is the same in every run;
the original's second run uses another.

"outputs": the upgraded program's outputs against NAME.io.npz's reference outputs
(`reload_out__<i>`, else `out__<i>`: what Paddle computed), the random ones by shape and dtype;
nothing to bisect against (`first_bad_op` None).  A model without an .io.npz, or one without
reference outputs, cannot be checked this way: the job records it as failed, saying so, since
the run asked for a check it cannot give.

"auto" is "self" for a model whose parameters are present (NAME.pdiparams) or that has no
persisted parameters (it runs without a file), else "none": a model whose weights are not
there cannot run, and its upgrade is reported unchecked (`ok` None) rather than failed.

A check's record: {"mode", "ok", "max_abs", "max_rel", "first_bad_op", "random_outputs"};
`max_abs` / `max_rel` are the largest errors over the outputs compared by value, None when
nothing was compared by value or an error is not finite (a shape mismatch, inf against a
number); `ok` None means not checked.
"""

from __future__ import annotations

import inspect
from contextlib import contextmanager

import numpy as np

from ..errors import PircError, first_line
from ..testing.numerical_diff import compare_arrays, numerical_diff
from ..testing.random_ops import random_fetches

# numerical_diff's own defaults, read from it so the two never disagree.
_DEFAULTS = inspect.signature(numerical_diff).parameters
ATOL: float = _DEFAULTS["atol"].default
RTOL: float = _DEFAULTS["rtol"].default
SCALE = "max"   # rtol is relative to each output's largest |value| (module docstring)

# The seeds of the original's two runs (the upgraded program's run uses the first).
SEEDS = (20261204, 7)


class CheckUnavailable(PircError):
    """The check asked for cannot be made for this model (no sample data for "outputs")."""


def resolve_mode(mode: str, has_params_file: bool, needs_params: bool) -> str:
    """The check a model gets: `mode`, or for "auto" what the module docstring says."""
    if mode != "auto":
        return mode
    return "self" if has_params_file or not needs_params else "none"


def record(mode: str, ok=None, max_abs=None, max_rel=None, first_bad_op=None,
           random_outputs=()) -> dict:
    return {"mode": mode, "ok": ok, "max_abs": _finite(max_abs), "max_rel": _finite(max_rel),
            "first_bad_op": first_bad_op, "random_outputs": sorted(random_outputs)}


def _finite(x):
    if x is None:
        return None
    x = float(x)
    return x if np.isfinite(x) else None


@contextmanager
def _seeded(seed: int):
    import torch

    state = np.random.get_state()
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        np.random.seed(seed % 2**32)
        try:
            yield
        finally:
            np.random.set_state(state)


def _run(program, inputs, params, seed):
    import pirc

    with _seeded(seed):
        return pirc.run(program, inputs, params=params)


class _Outcome:
    """Per output: compared by value (an ArrayDiff) or by shape and dtype (`random`)."""

    def __init__(self, got: list, want: list, random: set[int]):
        self.random = set(random)
        self.diffs, self.bad = {}, []
        for i, (g, w) in enumerate(zip(got, want)):
            g, w = np.asarray(g), np.asarray(w)
            if i in self.random:
                if g.shape != w.shape or g.dtype != w.dtype:
                    self.bad.append(f"output {i} (random): {g.dtype}{list(g.shape)} vs "
                                    f"{w.dtype}{list(w.shape)}")
                continue
            d = self.diffs[i] = compare_arrays(g, w, ATOL, RTOL, SCALE)
            if not d.ok:
                self.bad.append(f"output {i}: {d}")

    @property
    def ok(self) -> bool:
        return not self.bad

    def worst(self, field: str):
        values = [getattr(d, field) for d in self.diffs.values()]
        if not values or any(not np.isfinite(v) for v in values):
            return None
        return max(values)

    def by_value_differs(self) -> bool:
        return any(not d.ok for d in self.diffs.values())


def _count_mismatch(mode: str, n_got: int, n_want: int) -> tuple[dict, str]:
    return record(mode, ok=False), f"the upgraded program has {n_got} outputs, {n_want} expected"


def self_check(original, original_params, upgraded, upgraded_params,
               inputs: dict) -> tuple[dict, str | None]:
    """(check record, reason when it fails) for mode "self" (module docstring)."""
    first = _run(original, inputs, original_params, SEEDS[0])
    second = _run(original, inputs, original_params, SEEDS[1])
    after = _run(upgraded, inputs, upgraded_params, SEEDS[0])
    want, got = list(first.values()), list(after.values())
    if len(got) != len(want):
        return _count_mismatch("self", len(got), len(want))
    varies = {i for i, (a, b) in enumerate(zip(want, second.values()))
              if not compare_arrays(b, a, 0.0, 0.0).ok}
    random = random_fetches(original) | random_fetches(upgraded) | varies
    outcome = _Outcome(got, want, random)
    first_bad, reason = None, None
    if not outcome.ok:
        reason = "; ".join(outcome.bad)
        if outcome.by_value_differs():
            first_bad, where = _locate(original, original_params, upgraded, upgraded_params,
                                       inputs, first, after)
            reason += f"; {where}"
    return record("self", outcome.ok, outcome.worst("max_abs"), outcome.worst("max_rel"),
                  first_bad, random), reason


def _locate(original, original_params, upgraded, upgraded_params, inputs, first, after):
    """(first_bad_op or None, what to say): numerical_diff's bisection, reusing the two full
    runs already made and seeding every probe as the full runs were."""
    known = {id(original): first, id(upgraded): after}

    def runner(program, feeds, params, device):
        hit = known.pop(id(program), None)
        return hit if hit is not None else _run(program, feeds, params, SEEDS[0])

    try:
        report = numerical_diff(original, upgraded, inputs, ATOL, RTOL, params=original_params,
                                params_b=upgraded_params, runner=runner, scale=SCALE)
    except Exception as e:  # noqa: BLE001 - the verdict stands; only the location is lost
        return None, f"the first diverging op could not be located ({type(e).__name__}: " \
                     f"{first_line(e)})"
    d = report.divergence
    if d is None:
        return None, report.note or "no single op diverges first"
    name = d.op_name if not d.op_name_b or d.op_name_b == d.op_name else f"{d.op_name}/{d.op_name_b}"
    return f"{name} #{d.position_a}", str(d)


def outputs_check(upgraded, params, inputs: dict, references: list) -> tuple[dict, str | None]:
    """(check record, reason when it fails) for mode "outputs" (module docstring)."""
    after = list(_run(upgraded, inputs, params, SEEDS[0]).values())
    if len(after) != len(references):
        return _count_mismatch("outputs", len(after), len(references))
    random = random_fetches(upgraded)
    outcome = _Outcome(after, references, random)
    reason = None if outcome.ok else "; ".join(outcome.bad) + " (against the reference outputs)"
    return record("outputs", outcome.ok, outcome.worst("max_abs"), outcome.worst("max_rel"),
                  None, random), reason
