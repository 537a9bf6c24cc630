"""Paddle's C++ attribute and type names, as patches write them, in pirc's terms.

A patch names kinds by their C++ class (`pir::Int64Attribute`, `pir::Float32Type`,
`paddle::dialect::IntArrayAttribute`).  This module maps those names onto pirc's attribute
kinds (`pirc.ir.attrs.attr_kind`) and types (`pirc.ir.types`), checks that a patch's `data`
fits its kind, and builds the attribute or type an action writes.

Paddle's patch parser (patch_util.cc) accepts only qualified names; its Readme's
unqualified spelling (`Int32Type`) does not load, so pirc rejects it too, suggesting the
qualified name.  Names Paddle's parser does not know but pirc accepts are in EXTENSIONS.
"""

from __future__ import annotations

import difflib
import math
import re
import struct

from ..ir import attrs as A
from ..ir import types as T
from ..ir.paddle_names import LAYOUT_NAMES, parse_place_text
from ..paddle_json.codes import DTYPE_NAMES_JSON, DTYPE_PRINTED_BY_JSON

# C++ attribute class -> pirc attribute kind.
ATTRIBUTE_KINDS: dict[str, str] = {
    "pir::BoolAttribute": "bool",
    "pir::FloatAttribute": "float",
    "pir::DoubleAttribute": "double",
    "pir::Int32Attribute": "int32",
    "pir::Int64Attribute": "int64",
    "pir::IndexAttribute": "index",
    "pir::StrAttribute": "str",
    "pir::ArrayAttribute": "array",
    "pir::TypeAttribute": "type",
    "pir::TensorNameAttribute": "tensor_name",
    "pir::Complex64Attribute": "complex64",
    "pir::Complex128Attribute": "complex128",
    "paddle::dialect::IntArrayAttribute": "int_array",
    "paddle::dialect::DataTypeAttribute": "dtype",
    "paddle::dialect::PlaceAttribute": "place",
    "paddle::dialect::DataLayoutAttribute": "layout",
    "paddle::dialect::ScalarAttribute": "scalar",
}
ATTRIBUTE_BY_KIND: dict[str, str] = {kind: name for name, kind in ATTRIBUTE_KINDS.items()}

# C++ element type class -> key of pirc.ir.types.ELEMENT_TYPES.
ELEMENT_TYPES: dict[str, str] = {
    "pir::BoolType": "b",
    "pir::BFloat16Type": "bf16",
    "pir::Float16Type": "f16",
    "pir::Float32Type": "f32",
    "pir::Float64Type": "f64",
    "pir::Int8Type": "i8",
    "pir::UInt8Type": "u8",
    "pir::Int16Type": "i16",
    "pir::Int32Type": "i32",
    "pir::Int64Type": "i64",
    "pir::IndexType": "index",
    "pir::Complex64Type": "c64",
    "pir::Complex128Type": "c128",
}
ELEMENT_TYPE_BY_SHORT: dict[str, str] = {short: name for name, short in ELEMENT_TYPES.items()}

# Container types and the fields of their `data` list (Paddle's JSON "D" order).
CONTAINER_TYPES: dict[str, tuple[str, ...]] = {
    "pir::VectorType": (),  # data: a list of element types, any length
    "pir::DenseTensorType": ("dtype", "dims", "layout", "lod", "offset"),
    "paddle::dialect::SelectedRowsType": ("dtype", "dims", "layout", "lod", "offset"),
    "paddle::dialect::DenseTensorArrayType": ("dtype", "dims", "layout"),
}
TYPE_NAMES = tuple(ELEMENT_TYPES) + tuple(CONTAINER_TYPES)

# Accepted by pirc, unknown to Paddle's patch parser (docs/PATCHES.md, "pirc's extensions").
EXTENSIONS = frozenset({"paddle::dialect::SelectedRowsType", "paddle::dialect::DenseTensorArrayType"})

ARRAY = "pir::ArrayAttribute"
_SHORTHAND = re.compile(r"^\s*pir::ArrayAttribute\s*<\s*([\w:]+)\s*>\s*$")

INT_KINDS = ("int32", "int64", "index")
FLOAT_KINDS = ("float", "double")
_INT_RANGE = {"int32": (-(1 << 31), (1 << 31) - 1), "int64": (-(1 << 63), (1 << 63) - 1),
              "index": (-(1 << 63), (1 << 63) - 1)}
_FLT_MAX = struct.unpack("<f", b"\xff\xff\x7f\x7f")[0]
_INTEGER_TEXT = re.compile(r"^[-+]?[0-9]+$")
_TRUE, _FALSE = ("true", "yes", "on"), ("false", "no", "off")

# -- names ------------------------------------------------------------------------------------


def array_shorthand(name: str) -> str | None:
    """X of `pir::ArrayAttribute<X>` (every element becomes X, values kept), else None."""
    m = _SHORTHAND.match(name)
    return m.group(1) if m else None


def attribute_kind(name: str) -> str | None:
    """pirc's kind for a C++ attribute name (`pir::Int64Attribute` -> "int64"), or None."""
    return ATTRIBUTE_KINDS.get(name)


def is_type_name(name: str) -> bool:
    return name in ELEMENT_TYPES or name in CONTAINER_TYPES


def close_names(name: str, known) -> list[str]:
    """Names the user may have meant: the qualified form of an unqualified one first."""
    known = list(known)
    found = [k for k in known if k.rsplit("::", 1)[-1] == name.rsplit("::", 1)[-1] and k != name]
    for k in difflib.get_close_matches(name, known, n=3, cutoff=0.75):
        if k not in found:
            found.append(k)
    return found[:3]


def short_name(name: str) -> str:
    """`pir::Int64Attribute` -> "Int64", `pir::Float32Type` -> "Float32" (for messages)."""
    inner = array_shorthand(name)
    if inner:
        return f"array of {short_name(inner)}"
    base = name.rsplit("::", 1)[-1]
    for suffix in ("Attribute", "Type"):
        if base.endswith(suffix) and base != suffix:
            return base[: -len(suffix)]
    return base


# -- data: does a YAML value fit a kind? ------------------------------------------------------


def attr_data(kind: str, value, text: str | None = None):
    """The Python value of a patch's `data` for an attribute kind; ValueError saying why not.

    `value` is what YAML made of it (str, int, float, bool, list, None) and `text` the
    scalar's source text.  Like yaml-cpp, a scalar counts by its text: `"-1"` is an integer
    and `"false"` a boolean.  Result: bool, int, float, str, or a tuple for the kinds
    whose value has parts (complex, int_array, place, scalar).
    """
    shown = f"`{text if text is not None else value}`"
    if value is None:
        raise ValueError("no value given")
    if kind == "bool":
        if type(value) is bool:
            return value
        if isinstance(value, str) and value.lower() in _TRUE + _FALSE:
            return value.lower() in _TRUE
        raise ValueError(f"{shown} is not a boolean (true or false)")
    if kind in INT_KINDS:
        return _int(kind, value, shown)
    if kind in FLOAT_KINDS:
        return _float(kind, value, shown)
    if kind in ("str", "tensor_name"):
        if isinstance(value, (list, dict)):
            raise ValueError(f"expected a string, got a {'list' if isinstance(value, list) else 'mapping'}")
        return value if isinstance(value, str) else (text if text is not None else str(value))
    if kind in ("complex64", "complex128"):
        if not isinstance(value, list) or len(value) != 2:
            raise ValueError(f"expected [real, imag], got {shown}")
        part = "float" if kind == "complex64" else "double"
        return tuple(_float(part, v, f"`{v}`") for v in value)
    if kind == "int_array":
        if not isinstance(value, list):
            raise ValueError(f"expected a list of integers, got {shown}")
        return tuple(_int("int64", v, f"`{v}`") for v in value)
    if kind == "dtype":
        if isinstance(value, str):
            if value in DTYPE_PRINTED_BY_JSON:
                return DTYPE_PRINTED_BY_JSON[value]
            if value in DTYPE_PRINTED_BY_JSON.values():
                return value
        raise ValueError(f"{shown} is not a data type; expected one of {', '.join(DTYPE_NAMES_JSON)}")
    if kind == "place":
        return _place(value, shown)
    if kind == "layout":
        if isinstance(value, str) and value in LAYOUT_NAMES:
            return value
        raise ValueError(f"{shown} is not a data layout; expected one of {', '.join(LAYOUT_NAMES)}")
    if kind == "scalar":
        if (isinstance(value, list) and len(value) >= 2 and value[0] in DTYPE_NAMES_JSON
                and all(type(v) in (int, float, bool) for v in value[1:])):
            return tuple(value)
        raise ValueError(f"expected [data type, value] (as Paddle's JSON writes a Scalar), got {shown}")
    if kind == "type":
        if isinstance(value, str) and value in ELEMENT_TYPES:
            return value
        raise ValueError(f"expected an element type name (pir::Float32Type, ...), got {shown}")
    raise ValueError(f"a {kind} attribute takes no scalar data")


def _int(kind: str, value, shown: str) -> int:
    if type(value) is str and _INTEGER_TEXT.match(value.strip()):
        value = int(value)
    if type(value) is not int:
        raise ValueError(f"{shown} is not an integer")
    lo, hi = _INT_RANGE[kind]
    if not lo <= value <= hi:
        raise ValueError(f"{shown} does not fit {kind} ({lo} .. {hi})")
    return value


def _float(kind: str, value, shown: str) -> float:
    if type(value) is str:
        try:
            value = float(value)
        except ValueError:
            raise ValueError(f"{shown} is not a number") from None
    if type(value) not in (int, float):
        raise ValueError(f"{shown} is not a number")
    try:
        value = float(value)
    except OverflowError:
        raise ValueError(f"{shown} is outside the {'Double' if kind == 'double' else 'Float'} "
                         "range") from None
    if kind == "float" and math.isfinite(value) and abs(value) > _FLT_MAX:
        raise ValueError(f"{shown} overflows a float (f32) attribute; use pir::DoubleAttribute")
    return value


def _place(value, shown: str) -> tuple[int, int, str]:
    if isinstance(value, list) and len(value) == 3 and type(value[0]) is int \
            and type(value[1]) is int and isinstance(value[2], str):
        return tuple(value)
    if isinstance(value, str):
        text = value if value.startswith("Place(") else f"Place({value})"
        try:
            return parse_place_text(text)
        except ValueError:
            pass
    raise ValueError(f"{shown} is not a place; write `cpu`, `gpu:0`, `Place(gpu:0)` or "
                     f"[allocation type, device id, device type]")


def type_data(name: str, value) -> tuple | str | None:
    """A container type's `data`, checked and frozen into tuples; ValueError saying why not.

    DenseTensorType / SelectedRowsType: [dtype, dims, layout, lod, offset];
    DenseTensorArrayType: [dtype, dims, layout]; VectorType: a list of types, each a
    type name or a `{type: X, data: ...}` mapping.  Element types take no data; a type
    name there is accepted as a note (Paddle's test patch writes the replaced type).
    """
    if name in ELEMENT_TYPES:
        if value is None or (isinstance(value, str) and is_type_name(value)):
            return value
        raise ValueError(f"an element type takes no data (got `{value}`)")
    fields = CONTAINER_TYPES[name]
    if name == "pir::VectorType":
        if not isinstance(value, list):
            raise ValueError("pir::VectorType needs `data`: a list of its element types")
        return tuple(_vector_element(v, i) for i, v in enumerate(value))
    if not isinstance(value, list) or len(value) != len(fields):
        raise ValueError(f"{name} needs `data: [{', '.join(fields)}]`, e.g. "
                         f"{_EXAMPLES[len(fields)]}")
    dtype, dims, layout = value[0], value[1], value[2]
    if not isinstance(dtype, str) or dtype not in ELEMENT_TYPES:
        raise ValueError(f"dtype `{dtype}` is not an element type "
                         f"(did you mean {', '.join(close_names(str(dtype), ELEMENT_TYPES)) or 'pir::Float32Type'}?)")
    # Dims, LoD offsets and the offset are int64_t in Paddle, as the readers check.
    int64 = A.INT_RANGES["int64"]
    if not isinstance(dims, list) or not all(type(d) is int and d >= -1 and d in int64 for d in dims):
        raise ValueError(f"dims must be a list of sizes (-1 = dynamic, each an int64), got `{dims}`")
    if not isinstance(layout, str) or layout not in LAYOUT_NAMES:
        raise ValueError(f"layout `{layout}` is not one of {', '.join(LAYOUT_NAMES)}")
    out = [dtype, tuple(dims), layout]
    if len(fields) == 5:
        lod, offset = value[3], value[4]
        if not isinstance(lod, list) or not all(
                isinstance(level, list) and all(type(i) is int and i in int64 for i in level)
                for level in lod):
            raise ValueError(f"lod must be a list of lists of int64 integers, got `{lod}`")
        if type(offset) is not int or offset < 0 or offset not in int64:
            raise ValueError(f"offset must be an int64 integer >= 0, got `{offset}`")
        out += [tuple(tuple(level) for level in lod), offset]
    return tuple(out)


_EXAMPLES = {5: '[pir::Float32Type, [-1, 30], "NCHW", [], 0]', 3: '[pir::Float32Type, [-1], "NCHW"]'}


def _vector_element(value, i: int):
    if isinstance(value, str):
        if value not in ELEMENT_TYPES:
            raise ValueError(f"element {i}: `{value}` is not an element type name; "
                             f"containers are written {{type: X, data: [...]}}")
        return (value, None)
    if isinstance(value, dict) and set(value) <= {"type", "data"} and "type" in value:
        name = value["type"]
        if not isinstance(name, str) or not is_type_name(name):
            raise ValueError(f"element {i}: `{name}` is not a type name")
        return (name, type_data(name, value.get("data")))
    raise ValueError(f"element {i}: expected a type name or {{type: X, data: [...]}}, got `{value}`")


# -- conversions that keep the value ----------------------------------------------------------


def can_convert(src: str, dst: str) -> bool:
    """Whether an attribute of kind `src` can become `dst` keeping its value (no `data`)."""
    if src == dst:
        return True
    if src in INT_KINDS + FLOAT_KINDS and dst in INT_KINDS + FLOAT_KINDS:
        return True  # float -> int only for integral values; checked on the value
    return {src, dst} == {"str", "tensor_name"}


def convert_attr(attr, kind: str):
    """`attr` as an attribute of `kind`, same value (Paddle keeps JSON "D"); ValueError if not.

    Float -> Double keeps the f32-rounded value, as Paddle does (0.02f becomes
    0.019999999552965164).
    """
    src = A.attr_kind(attr)
    if src == kind:
        return attr
    if not can_convert(src, kind):
        raise ValueError(f"a {src} attribute cannot become {kind} keeping its value; "
                         f"give the new value in `data`")
    if kind in ("str", "tensor_name"):
        text = attr.data
        return A.str_attr(text) if kind == "str" else A.TensorNameAttr(text)
    value = A.scalar_value(attr)
    if kind in INT_KINDS:
        if isinstance(value, float):
            if not value.is_integer():
                raise ValueError(f"{src} value {value!r} is not a whole number, so it cannot "
                                 f"become {kind}")
            value = int(value)
        return A.make_scalar(kind, _int(kind, value, f"`{value}`"))
    return A.make_scalar(kind, _float(kind, value, f"`{value}`"))


# -- building what an action writes -----------------------------------------------------------


def make_attr(value, existing=None):
    """The pirc attribute an AttrValue (pirc.versioning.model) stands for.

    With data, the attribute is built from it.  Without data the existing attribute is
    converted to the new kind keeping its value, as Paddle's merge_patch keeps "D"; an
    array whose elements carry no data (or the `ArrayAttribute<X>` shorthand) retypes
    every element of the existing array, as Paddle does with its first element's type.
    Raises ValueError saying what is missing or does not fit; the caller names the op.
    """
    kind = ATTRIBUTE_KINDS[value.type]
    if kind == "array":
        return _make_array(value, existing)
    if value.has_data:
        return _from_data(kind, value.data)
    if existing is None:
        raise ValueError(f"{value.type} without `data` keeps an existing value, and there is none")
    return convert_attr(existing, kind)


def _make_array(value, existing):
    elements = value.elements
    if value.element_type is not None and not elements:
        if existing is None:
            if value.has_data:
                return A.array_attr(())
            raise ValueError(f"{ARRAY}<{value.element_type}> retypes an existing array, and there is none")
        return _retype(existing, ATTRIBUTE_KINDS[value.element_type])
    if elements is None:
        if value.has_data:
            return A.array_attr(())
        if existing is None:
            raise ValueError(f"{ARRAY} without `data` keeps an existing array, and there is none")
        if A.attr_kind(existing) != "array":
            raise ValueError(f"a {A.attr_kind(existing)} attribute cannot become an array")
        return existing
    if elements and not elements[0].has_data:
        if existing is None:
            raise ValueError(f"{ARRAY} of element types only retypes an existing array, and there is none")
        return _retype(existing, ATTRIBUTE_KINDS[elements[0].type])
    return A.array_attr(make_attr(e) for e in elements)


def _retype(existing, element_kind: str):
    if A.attr_kind(existing) != "array":
        raise ValueError(f"a {A.attr_kind(existing)} attribute is not an array, so its "
                         f"elements cannot become {element_kind}")
    return A.array_attr(convert_attr(e, element_kind) for e in existing.data)


def _from_data(kind: str, data):
    if kind == "bool" or kind in INT_KINDS:
        return A.make_scalar(kind, data)
    if kind in FLOAT_KINDS:
        return A.float_attr(data, double=kind == "double")
    if kind == "str":
        return A.str_attr(data)
    if kind == "tensor_name":
        return A.TensorNameAttr(data)
    if kind in ("complex64", "complex128"):
        return A.ComplexAttr.make(A.f32 if kind == "complex64" else A.f64, data[0], data[1])
    if kind == "int_array":
        return A.int_array_attr(tuple(data))
    if kind == "dtype":
        return A.dtype_attr(data)
    if kind == "place":
        return A.place_attr(*data)
    if kind == "layout":
        return A.layout_attr(data)
    if kind == "scalar":
        return A.ScalarAttr(tuple(data))
    if kind == "type":
        return A.TypeAttr(make_type(data))
    raise ValueError(f"cannot build a {kind} attribute from data")  # pragma: no cover


def make_type(name: str, data=None):
    """The pirc type a patch's `type:` (+ `data:`, as type_data returns it) stands for."""
    if name in ELEMENT_TYPES:
        return T.ELEMENT_TYPES[ELEMENT_TYPES[name]]
    if name == "pir::VectorType":
        return T.VectorType.make(make_type(n, d) for n, d in data)
    dtype = make_type(data[0])
    if name == "pir::DenseTensorType":
        return T.DenseTensorType.make(dtype, data[1], data[2], data[3], data[4])
    if name == "paddle::dialect::SelectedRowsType":
        return T.SelectedRowsType.make(dtype, data[1], data[2], data[3], data[4])
    if name == "paddle::dialect::DenseTensorArrayType":
        return T.DenseTensorArrayType.make(dtype, data[1], data[2])
    raise ValueError(f"{name} is not a type pirc can build")


def type_text(name: str, data=None) -> str:
    """A type as pirc's text prints it (`tensor<-1x30xf32>`, `f64`), for messages."""
    if name in ELEMENT_TYPES:
        return ELEMENT_TYPES[name]
    if data is None:
        return short_name(name)
    if name == "pir::VectorType":
        return "vec[" + ",".join(type_text(n, d) for n, d in data) + "]"
    dims = "".join(f"{d}x" for d in data[1])
    prefix = {"pir::DenseTensorType": "tensor", "paddle::dialect::SelectedRowsType": "selected_rows",
              "paddle::dialect::DenseTensorArrayType": "tensor_array"}[name]
    return f"{prefix}<{dims}{ELEMENT_TYPES[data[0]]}>"
