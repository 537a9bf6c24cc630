"""Boundary inputs: the values where two implementations of one formula part ways.

`boundary_inputs(dtype, shape)` gives, for one dtype and shape, a fixed set of arrays labelled
by what they hold: NaN, +-Inf, +-0, the dtype's denormals, its extremes (max, lowest, smallest
normal), halves (where rounding modes differ), values around each norm's epsilon and an
ordinary random array.  Two kernels of one op (the old and the new semantics of a version
split), or a subgraph before and after a fusion, are run on every label and compared
(docs/PARITY.md).  The set is deterministic: same arguments, same bytes, on any machine.

bfloat16 arrays are what Paddle hands to numpy for bf16, and what `pirc-run` and `pirc.run`
take as a bf16 feed: uint16 bit patterns (numpy has no bfloat16), rounded to nearest even
from the float32 value the label names.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["boundary_inputs", "EPSILONS", "FLOAT_LABELS", "as_float", "numpy_dtype"]

# The epsilons of the norms pirc fuses or lowers (rms_norm / layer_norm defaults 1e-5 and 1e-6,
# LLaMA-family configs 1e-6 and 1e-12 in some BERT exports).
EPSILONS = (1e-5, 1e-6, 1e-12)

# dtype spellings accepted: PIR element names and Paddle's names.
_ALIASES = {
    "float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64",
    "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64", "uint8": "u8", "bool": "b",
}
_NUMPY = {"f16": np.float16, "bf16": np.uint16, "f32": np.float32, "f64": np.float64,
          "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64, "u8": np.uint8,
          "b": np.bool_}

# bfloat16 is float32's upper half: float32's exponent range with 8 bits of significand.
_BF16 = {"max": float.fromhex("0x1.fep127"), "tiny": 2.0 ** -126,
         "denorm_min": 2.0 ** -133, "denorm_max": 127 * 2.0 ** -133}


def _canonical(dtype) -> str:
    name = str(np.dtype(dtype)) if not isinstance(dtype, str) else dtype
    name = _ALIASES.get(name, name)
    if name not in _NUMPY:
        raise ValueError(f"boundary_inputs: unknown dtype {dtype!r}; expected one of "
                         f"{', '.join(sorted(_NUMPY))} (or Paddle's names: float32, bfloat16, ...)")
    return name


def numpy_dtype(dtype) -> np.dtype:
    """The numpy dtype an array of `dtype` has here (uint16 for bf16)."""
    return np.dtype(_NUMPY[_canonical(dtype)])


def _bf16_bits(values: np.ndarray) -> np.ndarray:
    """float32 -> bfloat16 bit patterns, round to nearest even; NaN stays a quiet NaN."""
    bits = np.asarray(values, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    out = rounded.astype(np.uint16)
    nan = np.isnan(np.asarray(values, dtype=np.float32))
    out[nan] = ((bits[nan] >> 16) | 0x40).astype(np.uint16)
    return out


def as_float(array: np.ndarray, dtype) -> np.ndarray:
    """The values of a boundary array as float64 (bf16 bits widened exactly)."""
    if _canonical(dtype) == "bf16":
        return (np.asarray(array, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    return np.asarray(array).astype(np.float64)


def _float_limits(name: str) -> dict[str, float]:
    if name == "bf16":
        return dict(_BF16)
    info = np.finfo(_NUMPY[name])
    tiny = float(info.smallest_normal)
    return {"max": float(info.max), "tiny": tiny,
            "denorm_min": float(info.smallest_subnormal), "denorm_max": tiny - float(info.smallest_subnormal)}


def _alternating(value: float, count: int) -> np.ndarray:
    """value, -value, value, ... (both signs of a magnitude in one array)."""
    signs = np.where(np.arange(count) % 2 == 0, 1.0, -1.0)
    return signs * value


FLOAT_LABELS = (
    "ordinary", "nan", "+inf", "-inf", "+0", "-0", "denorm_min", "denorm_max", "smallest_normal",
    "max", "lowest", "halves",
    *(label for eps in EPSILONS for label in (f"sqrt_eps{eps:g}", f"eps{eps:g}")),
    "mixed",
)


def _float_inputs(name: str, shape: tuple[int, ...], rng: np.random.Generator) -> dict[str, np.ndarray]:
    n = math.prod(shape)
    lim = _float_limits(name)
    ordinary = rng.standard_normal(n)
    values: dict[str, np.ndarray] = {"ordinary": ordinary}
    # A non-finite value at the first and last element: propagation through a reduction (a norm's
    # row) and through an elementwise op, with ordinary neighbours left to compare.
    for label, special in (("nan", math.nan), ("+inf", math.inf), ("-inf", -math.inf)):
        v = ordinary.copy()
        if n:
            v[0] = v[-1] = special
        values[label] = v
    values["+0"] = np.zeros(n)
    values["-0"] = np.full(n, -0.0)
    values["denorm_min"] = _alternating(lim["denorm_min"], n)
    values["denorm_max"] = _alternating(lim["denorm_max"], n)
    values["smallest_normal"] = _alternating(lim["tiny"], n)
    values["max"] = np.full(n, lim["max"])
    values["lowest"] = np.full(n, -lim["max"])
    # k + 1/2 of both signs: round-half-away vs round-half-even, truncation vs nearest
    values["halves"] = _alternating(1.0, n) * (np.arange(n) % 4 + 0.5)
    for eps in EPSILONS:
        # every |x| = sqrt(eps): mean(x^2) == eps, where an epsilon inside vs outside the root,
        # or one dropped, changes the result by ~30%; and |x| = eps: x^2 far below eps
        values[f"sqrt_eps{eps:g}"] = _alternating(math.sqrt(eps), n)
        values[f"eps{eps:g}"] = _alternating(eps, n)
    cycle = [math.nan, math.inf, -math.inf, 0.0, -0.0, lim["denorm_min"], -lim["denorm_max"],
             lim["tiny"], lim["max"], -lim["max"], 1.0, -1.0, 0.5, -2.5]
    values["mixed"] = np.array([cycle[i % len(cycle)] for i in range(n)], dtype=np.float64)
    out = {}
    for label in FLOAT_LABELS:
        v = values[label].reshape(shape)
        if name == "bf16":
            out[label] = _bf16_bits(v.astype(np.float32))
        else:
            with np.errstate(over="ignore", under="ignore"):
                out[label] = v.astype(_NUMPY[name])
    return out


def _int_inputs(name: str, shape: tuple[int, ...], rng: np.random.Generator) -> dict[str, np.ndarray]:
    n = math.prod(shape)
    dt = np.dtype(_NUMPY[name])
    if name == "b":
        cases = {"false": np.zeros(n, bool), "true": np.ones(n, bool),
                 "mixed": np.arange(n) % 2 == 0}
        return {k: v.reshape(shape) for k, v in cases.items()}
    info = np.iinfo(dt)
    lo = max(int(info.min), -100)
    cases = {
        "ordinary": rng.integers(lo, 101, n),
        "zero": np.zeros(n, np.int64),
        "max": np.full(n, info.max, dtype=object),
        "min": np.full(n, info.min, dtype=object),
    }
    if info.min < 0:
        cases["-1"] = np.full(n, -1)
    cycle = [info.min, info.max, 0, 1] + ([-1] if info.min < 0 else [])
    cases["mixed"] = np.array([cycle[i % len(cycle)] for i in range(n)], dtype=object)
    return {k: np.asarray(v).astype(dt).reshape(shape) for k, v in cases.items()}


def boundary_inputs(dtype, shape) -> dict[str, np.ndarray]:
    """Labelled boundary arrays of `dtype` and `shape`, in a fixed order.

    `dtype`: a PIR element name (`f16`, `bf16`, `f32`, `f64`, `i8`, `i16`, `i32`, `i64`, `u8`,
    `b`) or Paddle's name (`float32`, `bfloat16`, ...); `shape`: a tuple of ints (0-D: `()`).

    Floating labels (every array has `shape`):
      `ordinary` (standard normal, seeded), `nan` / `+inf` / `-inf` (ordinary, with that value
      at the first and last element), `+0`, `-0`, `denorm_min` / `denorm_max` (the smallest
      and largest denormal of the dtype, alternating sign), `smallest_normal` (alternating
      sign), `max`, `lowest` (-max), `halves` (+-0.5, 1.5, 2.5, 3.5), `sqrt_eps1e-05` ... (all
      |x| = sqrt(eps), so mean(x^2) is eps, for eps 1e-5, 1e-6, 1e-12), `eps1e-05` ... (all
      |x| = eps, x^2 = eps^2), `mixed` (NaN, +-Inf, +-0, denormals, extremes, +-1 cycling).
      Values are rounded to the dtype: in f16, sqrt(1e-12) = 1e-6 is a denormal and 1e-12 is 0.
    Integer labels: `ordinary` (in [-100, 100], or [0, 100] unsigned), `zero`, `max`, `min`,
      `-1` (signed types), `mixed`; bool: `false`, `true`, `mixed`.

    bf16 arrays are uint16 bit patterns, as Paddle hands bf16 to numpy and as a bf16 feed is
    given to `pirc.run` / `pirc-run`; `as_float(array, "bf16")` widens them to float.

    >>> from pirc.testing import boundary_inputs
    >>> inputs = boundary_inputs("f16", (2, 3))
    >>> inputs["nan"].dtype, inputs["nan"].shape
    (dtype('float16'), (2, 3))
    >>> float(inputs["denorm_min"][0, 0]) == 2.0 ** -24     # float16's smallest denormal
    True
    >>> hex(int(boundary_inputs("bf16", (4,))["max"][0]))   # bf16 bits of 3.39e38
    '0x7f7f'
    >>> sorted(boundary_inputs("i32", (3,)))
    ['-1', 'max', 'min', 'mixed', 'ordinary', 'zero']
    """
    name = _canonical(dtype)
    shape = tuple(int(d) for d in shape)
    if any(d < 0 for d in shape):
        raise ValueError(f"boundary_inputs: shape {shape} has a negative dim; give static sizes")
    # One seed per (dtype, shape): the ordinary values do not depend on the call order.
    seed = int.from_bytes(f"{name}{shape}".encode(), "little") % (2 ** 32)
    rng = np.random.default_rng(seed)
    if name in ("f16", "bf16", "f32", "f64"):
        return _float_inputs(name, shape, rng)
    return _int_inputs(name, shape, rng)
