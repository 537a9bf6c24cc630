"""The inputs a differential check feeds a model, and the reference outputs it may compare with.

Sample inputs come first: NAME.io.npz's `in__<feed>` arrays (the corpus's convention), real
data of real sizes.  Without them, deterministic inputs are made from the program's own
`pd_op.data` ops (top block, program order): each -1 dim is 2 (the smallest size no shape
code special-cases as 1), floating feeds are standard normal draws, integer feeds are in
[0, 2) (a valid index for any embedding, a valid length or label) and bool feeds likewise.
The draws come from one numpy Generator seeded by sha256 of the model's relative path, so the
same model gets the same inputs in every process, on every machine and in every run (Python's
hash() is salted per process and is never used).  bfloat16 feeds are given as Paddle hands
bf16 to numpy, uint16 bit patterns (of float32 normals, truncated).

Reference outputs: `reload_out__<i>` (what the saved program computed when Paddle loaded it
back) where the file has them, else `out__<i>`, in fetch order.
"""

from __future__ import annotations

import hashlib
import re

import numpy as np

from ..errors import PircError

FEED_PREFIX = "in__"
OUTPUT_PREFIXES = ("reload_out__", "out__")
DYNAMIC_SIZE = 2

_INTEGER_RANGE = (0, 2)


def sample_inputs(io_path: str) -> dict[str, np.ndarray]:
    """Feed name -> array from the .io.npz's `in__<feed>` members (empty when it has none)."""
    with np.load(io_path, allow_pickle=False) as data:
        return {k[len(FEED_PREFIX):]: data[k] for k in data.files if k.startswith(FEED_PREFIX)}


def reference_outputs(io_path: str) -> list[np.ndarray]:
    """The .io.npz's reference outputs in fetch order (module docstring); empty if none."""
    with np.load(io_path, allow_pickle=False) as data:
        for prefix in OUTPUT_PREFIXES:
            found = {int(k[len(prefix):]): k for k in data.files
                     if k.startswith(prefix) and re.fullmatch(r"\d+", k[len(prefix):])}
            if found:
                return [data[found[i]] for i in sorted(found)]
    return []


def seed_of(relpath: str) -> int:
    """The seed of a model's generated inputs: the first 8 bytes of sha256(relative path)."""
    return int.from_bytes(hashlib.sha256(relpath.encode()).digest()[:8], "little")


def _element(type_) -> str | None:
    from ..ir.types import ELEMENT_TYPE_NAMES, DenseTensorType

    if not isinstance(type_, DenseTensorType):
        return None
    return ELEMENT_TYPE_NAMES.get(type_.dtype)


_FLOATS = {"f16": np.float16, "f32": np.float32, "f64": np.float64}
_COMPLEX = {"c64": np.complex64, "c128": np.complex128}
_INTEGERS = {"i8": np.int8, "u8": np.uint8, "i16": np.int16, "i32": np.int32, "i64": np.int64}


def _draw(rng: np.random.Generator, element: str, shape: tuple[int, ...]) -> np.ndarray | None:
    if element in _FLOATS:
        return rng.standard_normal(shape).astype(_FLOATS[element])
    if element == "bf16":
        bits = rng.standard_normal(shape).astype(np.float32).view(np.uint32)
        return (bits >> 16).astype(np.uint16)
    if element in _COMPLEX:
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(_COMPLEX[element])
    if element in _INTEGERS:
        return rng.integers(*_INTEGER_RANGE, size=shape).astype(_INTEGERS[element])
    if element == "b":
        return rng.integers(*_INTEGER_RANGE, size=shape).astype(np.bool_)
    return None


def generated_inputs(program, relpath: str) -> dict[str, np.ndarray]:
    """Deterministic feeds for every pd_op.data of `program` (module docstring); PircError
    naming the feed for one whose type no array can stand for (a tensor array, an unknown
    element type)."""
    rng = np.random.default_rng(seed_of(relpath))
    inputs = {}
    for op in program.block.ops:
        if op.name != "pd_op.data" or not op.results:
            continue
        name = op.attributes["name"].data
        type_ = op.results[0].type
        element = _element(type_)
        shape = tuple(DYNAMIC_SIZE if d == -1 else d for d in getattr(type_, "shape", ()))
        value = _draw(rng, element, shape) if element is not None else None
        if value is None:
            raise PircError(f"feed {name} is {type_}: no input can be made for it; put sample "
                            f"inputs beside the model (NAME.io.npz with {FEED_PREFIX}{name})")
        inputs[name] = value
    return inputs


def check_inputs(program, relpath: str, io_path: str | None) -> dict[str, np.ndarray]:
    """A model's check inputs: its sample inputs where it has them, else generated ones."""
    found = sample_inputs(io_path) if io_path is not None else {}
    return found or generated_inputs(program, relpath)
