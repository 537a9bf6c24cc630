"""Reading and writing Paddle `.pdiparams` files (corpus/paddle/FORMAT-NOTES.md section 4.6).

The file is a concatenation of DenseTensor streams, one per parameter, in sorted
parameter-name order; the file itself stores no names.  Each stream is

    u32 version (0) | u64 lod_level | per level: u64 byte size, that many bytes of u64 offsets
    | u32 tensor version (0) | i32 desc_size | TensorDesc protobuf (1: dtype enum, 2: dims)
    | raw little-endian data

Names therefore come from the program: the names of its persisted `builtin.parameter` ops,
sorted (`names_from_program`).  A parameter whose `persistable` attribute is false (rnn's
`dropout_state`) is not in the file: Paddle creates it at load, and so does `read_params`
given the program (pirc/runtime/persistence.py has the rule and its Paddle source).
bfloat16, which numpy lacks, is widened exactly to float32; the lowering casts every
parameter to the dtype its `builtin.parameter` result declares.

`write_params` writes the same layout back (LoD level 0, unpacked dims, as Paddle writes
them), the persisted parameters only, each tensor in the dtype its `builtin.parameter`
declares, so an unchanged file is rewritten byte for byte, bfloat16 included.
"""

from __future__ import annotations

import math
import struct

import numpy as np

from .. import limits
from ..atomic import write_atomically
from ..errors import ParamsError
from .persistence import created_values, persisted_names

# Paddle's VarType.Type enum values that a TensorDesc holds, and the numpy dtype of each.
DTYPES: dict[int, tuple[str, np.dtype]] = {
    0: ("bool", np.dtype(np.bool_)),
    1: ("int16", np.dtype("<i2")),
    2: ("int32", np.dtype("<i4")),
    3: ("int64", np.dtype("<i8")),
    4: ("float16", np.dtype("<f2")),
    5: ("float32", np.dtype("<f4")),
    6: ("float64", np.dtype("<f8")),
    20: ("uint8", np.dtype(np.uint8)),
    21: ("int8", np.dtype(np.int8)),
    22: ("bfloat16", np.dtype("<u2")),  # read as raw bits, widened to float32 below
    23: ("complex64", np.dtype("<c8")),
    24: ("complex128", np.dtype("<c16")),
}


# numpy's NPY_MAXDIMS: reshape refuses more dimensions than this
_NPY_MAXDIMS = 64


class _Reader:
    def __init__(self, data: bytes, filename: str):
        self.data = data
        self.pos = 0
        self.filename = filename
        self.tensor = 0  # index of the tensor being read, for messages

    def fail(self, what: str) -> ParamsError:
        return ParamsError(f"tensor #{self.tensor} at byte {self.pos}: {what}").in_file(self.filename)

    def take(self, n: int, what: str) -> bytes:
        if n < 0 or self.pos + n > len(self.data):
            raise self.fail(f"file ends inside {what} (needs {n} bytes, {len(self.data) - self.pos} left); "
                            "the file is truncated or not a .pdiparams file")
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return out

    def unpack(self, fmt: str, what: str):
        return struct.unpack(fmt, self.take(struct.calcsize(fmt), what))[0]


def _varint(buf: bytes, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if pos >= len(buf):
            raise ValueError("varint runs past the end of the TensorDesc")
        b = buf[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            break
    if value >= 1 << 63:  # int64 two's complement
        value -= 1 << 64
    return value, pos


def _tensor_desc(buf: bytes) -> tuple[int, list[int]]:
    """(dtype enum, dims) from a TensorDesc message; dims may be packed or not."""
    dtype, dims, pos = None, [], 0
    while pos < len(buf):
        key, pos = _varint(buf, pos)
        field_no, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = _varint(buf, pos)
            if field_no == 1:
                dtype = value
            elif field_no == 2:
                dims.append(value)
        elif wire == 2:
            length, pos = _varint(buf, pos)
            chunk, pos = buf[pos:pos + length], pos + length
            if field_no == 2:
                p = 0
                while p < len(chunk):
                    v, p = _varint(chunk, p)
                    dims.append(v)
        else:
            raise ValueError(f"unexpected protobuf wire type {wire} in TensorDesc")
    if dtype is None:
        raise ValueError("TensorDesc has no data type")
    return dtype, dims


def read_tensor(r: _Reader) -> np.ndarray:
    version = r.unpack("<I", "the stream version")
    if version != 0:
        raise r.fail(f"stream version {version}, expected 0")
    lod_level = r.unpack("<Q", "the LoD level count")
    if lod_level > 64:
        raise r.fail(f"LoD level count {lod_level} is implausible; not a .pdiparams file?")
    for _ in range(lod_level):  # LoD offsets do not change a parameter's values: skip them
        size = r.unpack("<Q", "a LoD level size")
        r.take(size, "LoD offsets")
    tversion = r.unpack("<I", "the tensor version")
    if tversion != 0:
        raise r.fail(f"tensor version {tversion}, expected 0")
    desc_size = r.unpack("<i", "the TensorDesc size")
    try:
        dtype_code, dims = _tensor_desc(r.take(desc_size, "the TensorDesc"))
    except ValueError as e:
        raise r.fail(str(e)) from None
    if dtype_code not in DTYPES:
        raise r.fail(f"unknown data type code {dtype_code}; known: "
                     + ", ".join(f"{c} {n}" for c, (n, _) in DTYPES.items()))
    if any(d < 0 for d in dims):
        raise r.fail(f"negative dimension in shape {dims}")
    if len(dims) > _NPY_MAXDIMS:
        # Paddle's DDim holds at most 9; numpy cannot shape an array of more than 64
        raise r.fail(f"{len(dims)} dimensions; numpy arrays have at most {_NPY_MAXDIMS} (and "
                     "Paddle's at most 9): the file is damaged or not a .pdiparams file")
    name, np_dtype = DTYPES[dtype_code]
    count = math.prod(dims)  # exact: np.prod in int64 wraps, and [2^32, 2^32] became 0
    if math.prod(d for d in dims if d) * np_dtype.itemsize >= 1 << 63:
        # Paddle counts elements in int64; numpy cannot even shape an empty array like it
        raise r.fail(f"shape {dims} of {name} overflows int64 (its element count or byte size "
                     "is 2^63 or more); the file is damaged or not a .pdiparams file")
    raw = r.take(count * np_dtype.itemsize, f"the {name} data of shape {dims}")
    array = np.frombuffer(raw, dtype=np_dtype).reshape(dims).copy()
    if name == "bfloat16":
        array = (array.astype(np.uint32) << 16).view(np.float32)
    return array


def read_tensors(path: str) -> list[np.ndarray]:
    """Every tensor of a .pdiparams file, in file order."""
    try:
        data = limits.read_bounded(path, limits.MAX_PARAMS_BYTES, "parameters file")
    except OSError as e:
        raise ParamsError(f"cannot read parameters file {path}: {e.strerror}") from None
    r = _Reader(data, path)
    out = []
    while r.pos < len(data):
        out.append(read_tensor(r))
        r.tensor += 1
    return out


def names_from_program(program) -> list[str]:
    """The names a .pdiparams file of `program` holds, in file order: its persisted
    builtin.parameter ops' names, sorted as Paddle saves them."""
    return persisted_names(program)


def _listed(names, limit: int = 8) -> str:
    names = list(names)
    more = len(names) - limit
    return ", ".join(names[:limit]) + (f", ... ({more} more)" if more > 0 else "")


def read_params(path: str, names=None) -> dict[str, np.ndarray]:
    """name -> array.  `names`: the names the file holds (sorted here), or a Program to take
    them from; with a Program, the parameters Paddle creates at load instead of reading them
    (not persistable) are created too (pirc/runtime/persistence.py).

    Without names the tensors are keyed "0", "1", ... in file order.
    """
    tensors = read_tensors(path)
    if names is None:
        return {str(i): t for i, t in enumerate(tensors)}
    created = {}
    if not isinstance(names, (list, tuple, set, frozenset)):
        program = names
        names = persisted_names(program)
        created = created_values(program)
    names = sorted(names)
    if len(names) != len(tensors):
        note = ""
        if created:
            note = (f"; {_listed(created)} {'is' if len(created) == 1 else 'are'} created at load, "
                    "not read")
        raise ParamsError(f"the file holds {len(tensors)} tensors but the program expects "
                          f"{len(names)} persisted parameters ({_listed(names)}{note}); "
                          "is it the parameters file of this program?").in_file(path)
    params = dict(zip(names, tensors))
    params.update(created)
    return params


# PIR element-type spellings (tensor<...xf32>) -> the TensorDesc dtype code Paddle writes.
ELEMENT_CODES: dict[str, int] = {
    "b": 0, "i16": 1, "i32": 2, "i64": 3, "f16": 4, "f32": 5, "f64": 6, "u8": 20, "i8": 21,
    "bf16": 22, "c64": 23, "c128": 24,
}


def _varint_bytes(value: int) -> bytes:
    value &= (1 << 64) - 1  # int64 two's complement, as protobuf writes a negative int64
    out = bytearray()
    while True:
        low = value & 0x7F
        value >>= 7
        if value:
            out.append(low | 0x80)
        else:
            out.append(low)
            return bytes(out)


def _bfloat16_bits(array: np.ndarray) -> np.ndarray:
    """float32 -> bfloat16 bit patterns, rounding to nearest even (exact for values the
    reader widened from bfloat16); NaN stays a quiet NaN."""
    bits = np.ascontiguousarray(array, dtype="<f4").view(np.uint32)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    rounded = np.where(np.isnan(array), (bits >> 16) | 0x40, rounded)
    return rounded.astype("<u2")


def tensor_stream(array: np.ndarray, code: int) -> bytes:
    """One DenseTensor stream (module docstring) holding `array` as dtype `code`."""
    name, np_dtype = DTYPES[code]
    data = _bfloat16_bits(array) if name == "bfloat16" else np.ascontiguousarray(array, dtype=np_dtype)
    desc = b"\x08" + _varint_bytes(code) + b"".join(b"\x10" + _varint_bytes(d) for d in array.shape)
    return struct.pack("<IQIi", 0, 0, 0, len(desc)) + desc + data.tobytes()


def parameter_types(program) -> dict:
    """Parameter name -> the type its (first) builtin.parameter op declares, persisted or not
    (`names_from_program` lists the persisted ones)."""
    types = {}
    for op in program.walk():
        if op.name == "builtin.parameter":
            types.setdefault(op.attributes["parameter_name"].data, op.results[0].type)
    return types


def params_streams(params_by_name: dict, program) -> list[bytes]:
    """The streams `write_params` writes, one per persisted program parameter in sorted name
    order (the parameters Paddle creates at load are not written, as Paddle writes none)."""
    from ..ir.types import ELEMENT_TYPE_NAMES

    persisted = set(persisted_names(program))
    types = {name: t for name, t in parameter_types(program).items() if name in persisted}
    missing = sorted(set(types) - set(params_by_name))
    if missing:
        raise ParamsError(f"no value for the program's parameter{'s' if len(missing) > 1 else ''} "
                          f"{', '.join(missing[:8])}{', ...' if len(missing) > 8 else ''}: "
                          "pass a value for every persisted builtin.parameter the program holds")
    out = []
    for name in sorted(types):
        type_ = types[name]
        element = ELEMENT_TYPE_NAMES.get(getattr(type_, "dtype", None))
        if element not in ELEMENT_CODES:
            raise ParamsError(f"parameter {name}: element type {element} has no .pdiparams data type")
        array = np.asarray(params_by_name[name])
        declared = tuple(getattr(type_, "shape", ()))
        if len(declared) != array.ndim or any(d != -1 and d != s for d, s in zip(declared, array.shape)):
            raise ParamsError(f"parameter {name}: the program declares shape {list(declared)}, "
                              f"the value has {list(array.shape)}")
        out.append(tensor_stream(array, ELEMENT_CODES[element]))
    return out


def write_params(path: str, params_by_name: dict, program) -> None:
    """Write the program's parameters to a `.pdiparams` file, atomically.

    Only the persisted parameters the program's `builtin.parameter` ops name are written
    (sorted, as Paddle saves them), each in the dtype its op declares; entries of
    `params_by_name` the program no longer uses, or that Paddle creates at load (not
    persistable), are left out, and a persisted parameter without a value is a ParamsError."""
    streams = params_streams(params_by_name, program)
    try:
        write_atomically(path, streams, binary=True)
    except OSError as e:
        raise ParamsError(f"cannot write the parameters file: {e.strerror}").in_file(path) from None
