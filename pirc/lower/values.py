"""PIR attributes and types as the Python and torch values kernels take.

The kernel calling convention: each attribute an op's spec
names is passed as a keyword argument converted by `python_value`; element types of PIR
tensor types map to torch dtypes by `torch_dtype_of_type`.
"""

from __future__ import annotations

import math

import torch
from xdsl.dialects.builtin import ArrayAttr, FloatAttr, IntegerAttr, StringAttr

from ..ir import attrs as A
from ..ir.types import ELEMENT_TYPE_NAMES, DenseTensorType, SelectedRowsType

# Paddle's data-type names (pd_op DataType as printed) -> torch dtype.
TORCH_DTYPES: dict[str, torch.dtype | None] = {
    "Undefined": None,
    "bool": torch.bool,
    "int8": torch.int8,
    "uint8": torch.uint8,
    "int16": torch.int16,
    "uint16": torch.uint16,
    "int32": torch.int32,
    "uint32": torch.uint32,
    "int64": torch.int64,
    "uint64": torch.uint64,
    "float8_e4m3fn": torch.float8_e4m3fn,
    "float8_e5m2": torch.float8_e5m2,
    "bfloat16": torch.bfloat16,
    "float16": torch.float16,
    "float32": torch.float32,
    "float64": torch.float64,
    "complex64": torch.complex64,
    "complex128": torch.complex128,
}

# PIR element-type spellings (tensor<...xf32>) -> torch dtype.
ELEMENT_DTYPES: dict[str, torch.dtype] = {
    "b": torch.bool, "i8": torch.int8, "u8": torch.uint8, "i16": torch.int16, "i32": torch.int32,
    "i64": torch.int64, "index": torch.int64, "f16": torch.float16, "bf16": torch.bfloat16,
    "f32": torch.float32, "f64": torch.float64, "c64": torch.complex64, "c128": torch.complex128,
    "f8e4m3fn": torch.float8_e4m3fn, "f8e5m2": torch.float8_e5m2,
}

# Scalar attributes (`1.a_scalar`) spell non-finite values as words.
_SCALAR_WORDS = {"INF": math.inf, "-INF": -math.inf, "NAN": math.nan, "NaN": math.nan, "nan": math.nan}


def torch_dtype(name: str) -> torch.dtype | None:
    """The torch dtype of a Paddle data-type name; None for Undefined."""
    if name.startswith("Undefined"):
        return None
    try:
        return TORCH_DTYPES[name]
    except KeyError:
        raise ValueError(f"data type {name} has no torch equivalent") from None


def torch_dtype_of_type(type_) -> torch.dtype | None:
    """The torch dtype of a PIR tensor type's elements (None: not a tensor / undefined)."""
    if isinstance(type_, (DenseTensorType, SelectedRowsType)) or hasattr(type_, "dtype"):
        name = ELEMENT_TYPE_NAMES.get(type_.dtype)
        return ELEMENT_DTYPES.get(name)
    return None


def _scalar_number(kind: str, value):
    if isinstance(value, str):
        value = _SCALAR_WORDS.get(value, value)
    if kind == "bool":
        return bool(value)
    if kind.startswith(("int", "uint")):
        return int(value)
    return float(value)


def python_value(attr):
    """An attribute as the Python value a kernel takes (see the module docstring)."""
    cls = type(attr)
    if cls is IntegerAttr or cls is FloatAttr:
        return A.scalar_value(attr)
    if cls is StringAttr:
        return attr.data
    if cls is ArrayAttr:
        return [python_value(a) for a in attr.data]
    if cls is A.IntArrayAttr:
        return list(attr.data)
    if cls is A.DataTypeAttr:
        return torch_dtype(attr.data)
    if cls is A.PlaceAttr:
        return _place_name(attr)
    if cls is A.DataLayoutAttr:
        return attr.data
    if cls is A.ScalarAttr:
        kind, *values = attr.data
        if kind.startswith("complex"):
            return complex(_scalar_number("float", values[0]), _scalar_number("float", values[1]))
        return _scalar_number(kind, values[0])
    if cls is A.ComplexAttr:
        return complex(attr.real.value.data, attr.imag.value.data)
    if cls is A.TensorNameAttr:
        return attr.data
    if cls is A.NullAttr:
        return None
    if cls is A.TypeAttr:
        return torch_dtype_of_type(attr.type)
    raise TypeError(f"attribute {attr} has no Python value for kernels")


# Place allocation types (phi::AllocationType) -> torch device names.
_PLACE_NAMES = {0: "undefined", 1: "cpu", 2: "gpu", 3: "gpu_pinned", 4: "xpu", 7: "ipu", 9: "custom"}


def _place_name(attr) -> str:
    if attr.alloc_type == 9 and attr.device_type:
        return attr.device_type
    return _PLACE_NAMES.get(attr.alloc_type, str(attr.alloc_type))
