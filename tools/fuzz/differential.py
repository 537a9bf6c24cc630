"""The `passes` front end: differential testing of the pass layer, in process.

Input k is a generated program (pirc.testing.strategies.aliasing_programs: in-place ops,
0-D tensors, to_tensor constants, views, parameters written in place, conv + bn) and a few
targets: one named pipeline, two single passes, sometimes a pass list.  The check runs the
program once (pirc.run), then each target on a copy, and compares outputs bit for bit
(pirc.testing.pass_differential; conv-bn-fold within reassociation).  Parameters go to the
passes as `--params` would give them, except in a fifth of the inputs (a pipeline without
parameters must keep the numbers too).

Feeds and parameters are made from the program's own types (a seeded normal draw per name;
a batch_norm variance is made positive), not kept from the generator: a minimized program
still runs, and `replay` needs nothing but the saved text and its case.json.

Findings are PropertyFailures: `miscompile [TARGET]`, `refused-valid-program [TARGET]`,
`rewritten-program-does-not-run [TARGET]`; an exception a pass raises is a crash class by
its signature, as everywhere in the fuzzer.
"""

from __future__ import annotations

import hashlib
import random

import numpy as np

from pirc.errors import PircError

from .checks import Outcome, PropertyFailure

SPECS = ("canonicalize,cse", "const-fold,cse,dce", "param-fold,cse,dce", "cse,dce",
         "canonicalize,const-fold,param-fold", "const-fold,param-fold,cse",
         "canonicalize,const-fold{max-iterations=1},cse,dce", "conv-bn-fold,param-fold,dce")
_STATUS_PROPERTY = {"miscompile": "miscompile", "refused": "refused-valid-program",
                    "broken": "rewritten-program-does-not-run"}


def make_passes_case(rng: random.Random, origin: dict):
    from .cases import Case
    from .generate import generated_aliasing_program
    from pirc.testing.pass_differential import PASSES, PIPELINES

    n = rng.randrange(2**32)
    origin["seed_file"] = f"<pirc.testing.strategies.aliasing_programs #{n}>"
    targets = [rng.choice(PIPELINES)] + rng.sample(PASSES, 2)
    if rng.random() < 0.3:
        targets.append(rng.choice(SPECS))
    origin["mutators"] = []
    return Case("passes", generated_aliasing_program(n), from_version=4,
                targets=targets, with_params=rng.random() >= 0.2, origin=origin)


def synth_arrays(program, seed_text: str) -> tuple[dict, dict]:
    """Feeds and parameters for `program`, from its types: name -> array."""
    inputs, params = {}, {}
    positive = set()
    values_named = {}
    for op in program.block.ops:
        if op.name == "builtin.parameter":
            values_named[op.results[0]] = op.attributes["parameter_name"].data
        if op.name in ("pd_op.batch_norm", "pd_op.batch_norm_") and len(op.operands) > 2:
            positive.add(op.operands[2])  # the running variance: sqrt(var + eps)
    for op in program.block.ops:
        if op.name == "pd_op.data":
            inputs[op.attributes["name"].data] = _array(op.results[0].type, seed_text, "in", False)
        elif op.name == "builtin.parameter":
            name = op.attributes["parameter_name"].data
            params[name] = _array(op.results[0].type, seed_text, name, op.results[0] in positive)
    return inputs, params


def _array(ttype, seed_text: str, name: str, positive: bool) -> np.ndarray:
    shape = tuple(max(int(d.data), 1) for d in ttype.dims.data)
    dtype = _dtype(ttype)
    digest = hashlib.sha256(f"{seed_text}/{name}/{shape}".encode()).digest()
    rng = np.random.default_rng(int.from_bytes(digest[:8], "little"))
    arr = rng.standard_normal(shape)
    if positive:
        arr = np.abs(arr) + 0.5
    return np.asarray(arr).astype(dtype)


_DTYPES = {"Float64Type": np.float64, "Float32Type": np.float32, "Float16Type": np.float16}


def _dtype(ttype) -> np.dtype:
    """The generated programs hold float tensors; anything else is fed as float32 (a
    minimized program whose feed type changed is refused by the lowering, not a finding)."""
    return np.dtype(_DTYPES.get(type(ttype.dtype).__name__, np.float32))


def check_passes_case(case) -> Outcome:
    from pirc.testing.pass_differential import check_target, run_outputs
    from pirc.text.parser import parse_text
    from pirc.ir.verifier import verify_program

    try:
        program = parse_text(case.data, "<fuzz>", case.from_version)
        verify_program(program)
    except PircError as e:
        return Outcome(note=e.render())
    inputs, params = synth_arrays(program, str(case.origin.get("seed_file", "")))
    try:
        before = run_outputs(program, inputs, params)
    except PircError as e:  # a program the lowering refuses has nothing to compare
        return Outcome(True, True, note="not runnable: " + e.render())
    for target in case.targets or ():
        outcome = check_target(program, target, inputs, params, before,
                               give_params=case.with_params)
        if not outcome.ok:
            raise PropertyFailure(_STATUS_PROPERTY[outcome.status], target,
                                  outcome.detail + "\n--- after:\n" + outcome.rewritten[:4000])
    return Outcome(True, True)
