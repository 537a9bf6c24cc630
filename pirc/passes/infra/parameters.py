"""What passes that read or make parameter values share: `pc.params` and builtin.parameter ops.

A pass that folds weights (conv-bn-fold, param-fold) reads the values of the
`builtin.parameter` ops it matched from `pc.params` (name -> numpy array), adds its results
to `pc.params` under new names, makes a new `builtin.parameter` op for each (the original's
attributes, the new name), and removes the parameter ops it left unused, with their values,
so the parameters written after the pipeline (`--params-out`) are exactly the program's.
Such a pass declares `reads_weights`: without parameters the manager skips it whole, with
`needs_params`' reason (pirc.passes.infra.manager).
"""

from __future__ import annotations

import hashlib
from collections import Counter

from xdsl.dialects.builtin import StringAttr

from ...ir.registry import op_class

PARAMETER = "builtin.parameter"


def needs_params(pass_name: str) -> str:
    """Why a weight-reading pass was skipped: the run has no parameters."""
    return f"params: {pass_name} needs the parameter values: --params FILE.pdiparams"


def parameter_op(value):
    """The builtin.parameter op that defines `value`, or None."""
    owner = getattr(value, "owner", None)
    return owner if getattr(owner, "name", None) == PARAMETER else None


def parameter_name(op) -> str:
    return op.attributes["parameter_name"].data


def weights_digest(arrays) -> bytes:
    """What a plan computed from these arrays depends on: their dtypes, shapes and bytes
    (the rewrite cache's `extra`: the fingerprint leaves parameter values out)."""
    import numpy as np

    h = hashlib.sha256()
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(f"{a.dtype.str}{a.shape};".encode())
        h.update(a.tobytes())
    return h.digest()


def not_persisted_reason(ops) -> str | None:
    """The skip reason when any of these builtin.parameter ops is one Paddle creates at load
    (not persistable, pirc/runtime/persistence.py): its value is uninitialised memory in
    Paddle, so no fold may compute with it (pirc's zeros are not Paddle's value)."""
    from ...runtime.persistence import is_persisted

    names = sorted({parameter_name(op) for op in ops if not is_persisted(op)})
    if not names:
        return None
    return (f"params: {', '.join(names)} {'is' if len(names) == 1 else 'are'} not persisted: "
            "Paddle creates it uninitialised at load, its value is not known")


def program_parameter_names(program) -> set[str]:
    return {parameter_name(op) for op in program.walk() if op.name == PARAMETER}


def _name_counts(pc) -> Counter:
    """How many builtin.parameter ops of `pc`'s program bear each name: one walk the first
    time a pass asks, then kept by add_parameter and erase_unused (the only places a weight
    pass makes or removes parameter ops).  A walk per erased parameter made conv-bn-fold
    quadratic: 60 folds walked DenseNet-121's 1,157 ops 60 times."""
    if pc._parameter_names is None:
        pc._parameter_names = Counter(parameter_name(op) for op in pc.program.walk()
                                      if op.name == PARAMETER)
    return pc._parameter_names


def fresh_name(base: str, taken) -> str:
    """`base`, or `base_1`, `base_2`, ... : the first not in `taken` (deterministic)."""
    name, n = base, 0
    while name in taken:
        n += 1
        name = f"{base}_{n}"
    return name


def add_parameter(pc, like, name: str, array, result_type, before):
    """A new builtin.parameter op named `name` holding `array` (added to `pc.params`), with
    `like`'s attributes, inserted before the op `before`; returns the op."""
    attributes = dict(like.attributes)
    attributes["parameter_name"] = StringAttr(name)
    op = op_class(PARAMETER, pc.program.version).create(result_types=[result_type],
                                                        attributes=attributes)
    before.parent.insert_op_before(op, before)
    pc.params[name] = array
    if pc._parameter_names is not None:
        pc._parameter_names[name] += 1
    return op


def erase_unused(pc, ops) -> None:
    """Erase each of `ops` (producers the rewrite may have orphaned) whose results nobody
    uses; a parameter op's value leaves `pc.params` once no op names it any more."""
    for op in ops:
        if op is None or op.parent is None or any(r.first_use is not None for r in op.results):
            continue
        if op.name == PARAMETER:
            counts = _name_counts(pc)
            name = parameter_name(op)
            counts[name] -= 1
            if counts[name] <= 0:
                del counts[name]
                if pc.params is not None:
                    pc.params.pop(name, None)
        op.parent.erase_op(op, safe_erase=False)
