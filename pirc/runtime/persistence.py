"""Which parameters a `.pdiparams` file holds, and which Paddle creates when it loads a program.

A `builtin.parameter` whose `persistable` attribute is false is never written by
`paddle.jit.save` / `save_inference_model` and is created by Paddle at load: `pd_op.rnn`'s
`dropout_state` input (paddle.nn.LSTM / GRU / SimpleRNN, named `*.dropout_state__non_persistable`,
a 0-D uint8) is the one Paddle's layers make; the rule is the format's, for any op.

Paddle's rule (3.0.0 and 3.3.1, python/paddle/static/pir_io.py):
  * save (`save_vars_pir`, vars=None): the values `get_pir_parameters` lists (every
    builtin.parameter result, and persistable pd_op.data results), filtered by
    `var.persistable`, written in sorted-name order;
  * load (`load_vars_pir`, vars=None, which `load_inference_model` calls):
    `create_loaded_parameter(all of them)` first — paddle/fluid/pybind/pir.cc
    `CreateVariableIfNotExist`: a DenseTensor of the value's declared dims and dtype, allocated
    and not initialised — then `load_combine` of the persistable ones only, sorted by name.
    `paddle.jit.load` (jit/pir_translated_layer.py `_load_pir_parameter_vars`) likewise reads
    only the persistable ones and makes an empty tensor of the declared dtype and dims for each
    of the others.

In the saved JSON the flag is the compact parameter op's `"OA"[0]` (`[persistable,
stop_gradient, trainable]`); in text `persistable:[false]` (Paddle 2.6: `is_persisable`).  Paddle's
writer writes 1 for a parameter op without the attribute, so an absent flag means persisted.

What pirc creates: zeros of the declared shape and dtype.  Paddle's tensor is uninitialised, so
no program whose outputs Paddle defines reads it: the rnn CPU kernel
(paddle/phi/kernels/cpu/rnn_kernel.cc) does not even take `dropout_state_in` and writes
`dropout_state_out` only when not `is_test`.  Zeros make pirc's run deterministic.  A declared
dimension of -1 cannot be created (Paddle's `Resize` + `Alloc` of a negative size fails too).
"""

from __future__ import annotations

import numpy as np

from ..errors import ParamsError

PARAMETER = "builtin.parameter"
# the attribute's spellings: PIR's, and Paddle 2.6's typed text
_PERSISTABLE_KEYS = ("persistable", "is_persisable")


def parameter_name(op) -> str:
    return op.attributes["parameter_name"].data


def is_persisted(op) -> bool:
    """Whether Paddle writes this builtin.parameter's tensor to the .pdiparams file."""
    for key in _PERSISTABLE_KEYS:
        attr = op.attributes.get(key)
        flags = getattr(attr, "data", None)
        if flags:  # array<bool> of one element
            value = getattr(flags[0], "value", None)
            return bool(getattr(value, "data", True))
    return True


def parameter_ops(program) -> list:
    return [op for op in program.walk() if op.name == PARAMETER]


def persisted_names(program) -> list[str]:
    """The names a .pdiparams of this program holds, in file order (sorted, as Paddle writes
    them).  A name one of whose ops is persisted is in the file (Paddle's scope has one
    variable per name)."""
    return sorted({parameter_name(op) for op in parameter_ops(program) if is_persisted(op)})


def created_parameters(program) -> dict:
    """Name -> declared type of each parameter Paddle creates at load instead of reading it,
    sorted by name."""
    persisted = set(persisted_names(program))
    out = {}
    for op in parameter_ops(program):
        name = parameter_name(op)
        if name not in persisted:
            out.setdefault(name, op.results[0].type)
    return dict(sorted(out.items()))


def created_value(name: str, type_) -> np.ndarray:
    """The array pirc gives a parameter Paddle creates at load: zeros of its declared shape and
    dtype (Paddle's are uninitialised memory; module docstring)."""
    from ..ir.types import ELEMENT_TYPE_NAMES
    from .params import DTYPES, ELEMENT_CODES

    shape = tuple(getattr(type_, "shape", ()))
    element = ELEMENT_TYPE_NAMES.get(getattr(type_, "dtype", None))
    if element not in ELEMENT_CODES:
        raise ParamsError(f"parameter {name} is not persisted (Paddle creates it at load) but its "
                          f"element type {element} has no tensor dtype")
    if any(d < 0 for d in shape):
        raise ParamsError(f"parameter {name} is not persisted (Paddle creates it at load) but its "
                          f"declared shape {list(shape)} is not static: neither Paddle nor pirc can "
                          "create it; give it a static shape or make it persistable")
    dtype = np.dtype(np.float32) if element == "bf16" else DTYPES[ELEMENT_CODES[element]][1]
    return np.zeros(shape, dtype=dtype)


def created_values(program) -> dict[str, np.ndarray]:
    """Name -> created array for every parameter of `program` Paddle creates at load."""
    return {name: created_value(name, t) for name, t in created_parameters(program).items()}
