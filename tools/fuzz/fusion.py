"""The `fusion` front end: differential fuzzing of the fusion passes, in process.

Input k is a program around one fusion pattern or one of its near misses
(pirc.testing.fusion_programs: random shapes, f32 / f16 / bf16 / f64, operand orders, the
spellings Paddle programs use, ops before and after) and one input set: seeded normal draws,
or in half of the inputs one boundary array (pirc.testing.boundary_inputs: NaN, +-Inf, +-0,
denormals, extremes, values around a norm's epsilon) for the pattern's main feed.  The targets
are the pipelines `fuse` and `npu` and the pattern's own pass (where it is registered).  The
check runs the program once, then each target on a copy, and compares the outputs within the
tolerance of the fusions that fired (pirc.testing.fusion_differential, the bounds of
pirc/passes/fusion/tolerances.yaml); with none fired, bit for bit.

Findings are PropertyFailures: `fusion-out-of-tolerance [TARGET]`,
`refused-valid-program [TARGET]`, `fused-program-does-not-run [TARGET]`; an exception a pass
raises is a crash class by its signature.  Feeds and parameters are read from the program's
own data / parameter ops, so a minimized program replays from its text and case.json alone.
"""

from __future__ import annotations

import random

from pirc.errors import PircError

from .checks import Outcome, PropertyFailure

PIPELINES = ("fuse", "npu")
_STATUS_PROPERTY = {"miscompile": "fusion-out-of-tolerance", "refused": "refused-valid-program",
                    "broken": "fused-program-does-not-run"}


def make_fusion_case(rng: random.Random, origin: dict):
    from .cases import Case
    from pirc.passes.infra.registry import get_pass
    from pirc.testing.boundary import FLOAT_LABELS
    from pirc.testing.fusion_programs import fusion_program

    n = rng.randrange(2**32)
    fp = fusion_program(n)
    label = rng.choice(FLOAT_LABELS) if rng.random() < 0.5 else None
    origin.update({"seed_file": f"<pirc.testing.fusion_programs #{n}>", "program_seed": n,
                   "pass": fp.pass_name, "variant": fp.variant, "dtype": fp.dtype,
                   "label": label, "mutators": []})
    targets = list(PIPELINES) + ([fp.pass_name] if get_pass(fp.pass_name) is not None else [])
    return Case("fusion", fp.text, from_version=4, targets=targets, origin=origin)


def check_fusion_case(case) -> Outcome:
    from pirc.testing.fusion_differential import check_fusion
    from pirc.testing.fusion_programs import program_of

    o = case.origin
    try:
        fp = program_of(case.data, o.get("pass", "?"), o.get("variant", "?"), o.get("dtype", "f32"),
                        int(o.get("program_seed", 0)))
    except PircError as e:  # a minimization step that breaks the text
        return Outcome(note=e.render())
    label = o.get("label")
    try:
        fp.arrays(label)
        import pirc
        pirc.run(pirc.parse(fp.text, from_version=4), *_run_args(fp, label))
    except (PircError, KeyError) as e:  # not runnable as it stands: nothing to compare
        return Outcome(True, True, note=f"not runnable: {e}")
    for target in case.targets or PIPELINES:
        outcome = check_fusion(fp, target, label)
        if not outcome.ok:
            raise PropertyFailure(_STATUS_PROPERTY[outcome.status], target,
                                  str(outcome) + "\n--- after:\n" + outcome.rewritten[:4000])
    return Outcome(True, True)


def _run_args(fp, label):
    inputs, params = fp.arrays(label)
    return inputs, params or None
