"""PIR attributes on xDSL.

PIR distinguishes attribute kinds that its text printer does not (Float vs
Double, Int32 vs Int64 vs Index, IntArray vs an array of Int64).  pirc keeps
the kind in the attribute object itself:

| PIR kind            | xDSL attribute                         | kind name   |
|---------------------|----------------------------------------|-------------|
| BoolAttribute       | IntegerAttr(v, i1)  (xDSL BoolAttr)    | bool        |
| FloatAttribute      | FloatAttr(v, f32)                      | float       |
| DoubleAttribute     | FloatAttr(v, f64)                      | double      |
| Int32/Int64/Index   | IntegerAttr(v, i32 / i64 / index)      | int32 ...   |
| StrAttribute        | StringAttr                             | str         |
| ArrayAttribute      | ArrayAttr                              | array       |
| TypeAttribute       | TypeAttr (wraps a type)                | type        |
| TensorNameAttribute | TensorNameAttr                         | tensor_name |
| Complex64/128       | ComplexAttr                            | complex64.. |
| pd_op DataType      | DataTypeAttr                           | dtype       |
| pd_op Place         | PlaceAttr                              | place       |
| pd_op IntArray      | IntArrayAttr                           | int_array   |
| pd_op DataLayout    | DataLayoutAttr                         | layout      |
| pd_op Scalar        | ScalarAttr                             | scalar      |
| null attribute      | NullAttr                               | null        |

Constructors are memoised: parsers build the same few attribute values many
thousands of times, and an xDSL attribute costs ~10 us to construct.
"""

from __future__ import annotations

import math
from functools import lru_cache

from xdsl.dialects.builtin import (
    ArrayAttr,
    Float32Type,
    Float64Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    StringAttr,
)
from xdsl.ir import Attribute, Data, ParametrizedAttribute
from xdsl.irdl import irdl_attr_definition

i1 = IntegerType(1)
i32 = IntegerType(32)
i64 = IntegerType(64)
index = IndexType()
f32 = Float32Type()
f64 = Float64Type()


class _PlainData:
    """Minimal textual form for xDSL's generic printer/parser (debugging only)."""

    @classmethod
    def parse_parameter(cls, parser):  # pragma: no cover - pirc has its own parsers
        raise NotImplementedError(f"{cls.name} is read by pirc's own parsers")

    def print_parameter(self, printer) -> None:  # pragma: no cover
        printer.print_string(repr(self.data))


@irdl_attr_definition
class DataTypeAttr(_PlainData, Data[str]):
    """pd_op DataType, by the name Paddle prints (`float32`, `Undefined`, ...)."""

    name = "pd_op.dtype"


@irdl_attr_definition
class DataLayoutAttr(_PlainData, Data[str]):
    """pd_op DataLayout, by the name Paddle prints (`NCHW`, `NHWC`, `Undefined(AnyLayout)`, ...)."""

    name = "pd_op.layout"


@irdl_attr_definition
class PlaceAttr(_PlainData, Data[tuple]):
    """pd_op Place: (allocation type number, device id, custom device type)."""

    name = "pd_op.place"

    @property
    def alloc_type(self) -> int:
        return self.data[0]

    @property
    def device_id(self) -> int:
        return self.data[1]

    @property
    def device_type(self) -> str:
        return self.data[2]


@irdl_attr_definition
class IntArrayAttr(_PlainData, Data[tuple]):
    """pd_op IntArray: a tuple of Python ints (int64 in Paddle)."""

    name = "pd_op.int_array"


@irdl_attr_definition
class ScalarAttr(_PlainData, Data[tuple]):
    """pd_op Scalar as JSON `1.a_scalar` stores it: (dtype name, value...)."""

    name = "pd_op.scalar"


@irdl_attr_definition
class TensorNameAttr(_PlainData, Data[str]):
    """pir::TensorNameAttribute."""

    name = "pir.tensor_name"


@irdl_attr_definition
class ComplexAttr(ParametrizedAttribute):
    """pir::Complex64Attribute / Complex128Attribute: element type plus (real, imag)."""

    name = "pir.complex"
    element: Attribute
    real: FloatAttr
    imag: FloatAttr

    @staticmethod
    def make(element, real: float, imag: float) -> "ComplexAttr":
        return ComplexAttr(element, FloatAttr(real, element), FloatAttr(imag, element))


@irdl_attr_definition
class TypeAttr(ParametrizedAttribute):
    """pir::TypeAttribute: a type used as an attribute value."""

    name = "pir.type_attr"
    type: Attribute


@irdl_attr_definition
class NullAttr(ParametrizedAttribute):
    """A null attribute (`<#AttrNull>` in Paddle's text, `{"#":"NULL"}` in JSON)."""

    name = "pir.null_attr"


NULL_ATTR = NullAttr()

# -- memoised constructors ---------------------------------------------------


@lru_cache(maxsize=None)
def bool_attr(value: bool) -> IntegerAttr:
    return IntegerAttr(1 if value else 0, i1)


@lru_cache(maxsize=65536)
def int32_attr(value: int) -> IntegerAttr:
    return IntegerAttr(value, i32)


@lru_cache(maxsize=65536)
def int64_attr(value: int) -> IntegerAttr:
    return IntegerAttr(value, i64)


@lru_cache(maxsize=4096)
def index_attr(value: int) -> IntegerAttr:
    return IntegerAttr(value, index)


def _float_key(value: float):
    # NaN != NaN, and 0.0 == -0.0: key the cache on the exact bits instead.
    return value.hex() if not math.isnan(value) else ("nan", math.copysign(1.0, value))


_FLOAT_CACHE: dict = {}


def float_attr(value: float, double: bool = False) -> FloatAttr:
    """A Float (f32, rounded to f32 as Paddle stores it) or Double (f64) attribute."""
    key = (double, _float_key(value))
    attr = _FLOAT_CACHE.get(key)
    if attr is None:
        attr = FloatAttr(value, f64 if double else f32)
        if len(_FLOAT_CACHE) < 65536:
            _FLOAT_CACHE[key] = attr
    return attr


@lru_cache(maxsize=65536)
def str_attr(value: str) -> StringAttr:
    return StringAttr(value)


@lru_cache(maxsize=None)
def dtype_attr(name: str) -> DataTypeAttr:
    return DataTypeAttr(name)


@lru_cache(maxsize=None)
def layout_attr(name: str) -> DataLayoutAttr:
    return DataLayoutAttr(name)


@lru_cache(maxsize=None)
def place_attr(alloc_type: int, device_id: int = 0, device_type: str = "") -> PlaceAttr:
    return PlaceAttr((alloc_type, device_id, device_type))


@lru_cache(maxsize=16384)
def int_array_attr(values: tuple) -> IntArrayAttr:
    return IntArrayAttr(tuple(values))


def array_attr(items) -> ArrayAttr:
    return ArrayAttr(tuple(items))


# -- kinds ------------------------------------------------------------------

_INT_KINDS = {i1: "bool", i32: "int32", i64: "int64", index: "index"}


def attr_kind(attr: Attribute) -> str:
    """The PIR attribute kind of `attr` (see the module docstring)."""
    cls = type(attr)
    if cls is IntegerAttr:
        t = attr.type
        # Identity first: hashing an xDSL type is recursive and costs ~20 us, and the
        # memoised constructors above share these four type objects.
        if t is i32:
            return "int32"
        if t is i64:
            return "int64"
        kind = _INT_KINDS.get(t)
        if kind is None:
            raise TypeError(f"integer attribute of type {attr.type} has no PIR kind")
        return kind
    if cls is FloatAttr:
        return "double" if isinstance(attr.type, Float64Type) else "float"
    kind = _KIND_BY_CLASS.get(cls)
    if kind is None:
        raise TypeError(f"{attr} is not a PIR attribute")
    if kind == "complex":
        return "complex128" if isinstance(attr.element, Float64Type) else "complex64"
    return kind


_KIND_BY_CLASS = {
    StringAttr: "str",
    ArrayAttr: "array",
    TypeAttr: "type",
    TensorNameAttr: "tensor_name",
    ComplexAttr: "complex",
    DataTypeAttr: "dtype",
    PlaceAttr: "place",
    IntArrayAttr: "int_array",
    DataLayoutAttr: "layout",
    ScalarAttr: "scalar",
    NullAttr: "null",
}

SCALAR_KINDS = ("bool", "float", "double", "int32", "int64", "index")

# The values each integer kind holds, as Paddle's C++ types do (int32_t, int64_t; an Index
# is an int64_t too).  xDSL's signless i64 would also take 2^63..2^64-1; Paddle cannot.
INT_RANGES = {"int32": range(-(2**31), 2**31), "int64": range(-(2**63), 2**63),
              "index": range(-(2**63), 2**63), "int_array": range(-(2**63), 2**63)}
F32_MAX = 3.4028234663852886e38


def out_of_range(kind: str, value) -> str | None:
    """Why `value` does not fit PIR kind `kind` (None when it fits).

    Integers must lie in their C++ type's range; a Float must round to a finite f32 unless
    it is itself infinite (Paddle stores a float attribute as a C++ float, and a literal past
    FLT_MAX is an error in its parser, not an infinity).
    """
    r = INT_RANGES.get(kind)
    if r is not None:
        if value not in r:
            label = "int64 (an IntArray element)" if kind == "int_array" else kind
            return f"{value} is outside the {label} range [{r.start}, {r.stop - 1}]"
        return None
    if kind == "float" and math.isfinite(value) and abs(value) > F32_MAX:
        # Values that round to FLT_MAX (up to half an f32 ulp above it) still fit.
        if abs(value) >= 3.4028235677973366e38:
            return f"{value!r} is outside the Float (f32) range (largest finite {F32_MAX!r})"
    return None


def make_scalar(kind: str, value):
    """Build a scalar attribute of a PIR kind from a Python value."""
    if kind == "bool":
        return bool_attr(bool(value))
    if kind == "int32":
        return int32_attr(int(value))
    if kind == "int64":
        return int64_attr(int(value))
    if kind == "index":
        return index_attr(int(value))
    if kind == "float":
        return float_attr(float(value))
    if kind == "double":
        return float_attr(float(value), double=True)
    raise ValueError(f"{kind} is not a scalar attribute kind")


def scalar_value(attr):
    """The Python value of a scalar attribute (bool, int or float)."""
    cls = type(attr)
    if cls is IntegerAttr:
        v = attr.value.data
        t = attr.type
        if t is i32 or t is i64:  # identity first: comparing xDSL types is slow
            return v
        return bool(v) if t == i1 else v
    if cls is FloatAttr:
        return attr.value.data
    raise TypeError(f"{attr} is not a scalar attribute")
