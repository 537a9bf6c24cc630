"""Attribute literals of the text forms, typed into PIR attributes.

Paddle 3.x prints attributes without their kind (`axis:-1` may be an Int32 or
an Int64, `value:2` a Float or a Double, `[1,2]` an IntArray or an array of
Int64).  The parser therefore produces *literal nodes* and this module types
them, by the tag when the text carries one (2.6 typed text and pirc's
canonical text: `(Float)0.02`) and otherwise by the op's spec at the
program's version.  Attributes no spec names get the kinds in
`UNTYPED_DEFAULTS`, then a rule by the literal's shape (documented in
docs/TEXT-FORMATS.md).

Literal nodes are tuples: ("b", bool) ("n", text) ("s", raw) ("a", [nodes])
("i", ident) ("p", place text) ("null",) ("t", tag, node) ("ty", type).
"""

from __future__ import annotations

import json
import math

from ..ir import attrs as A
from ..ir.paddle_names import DTYPE_NAMES, parse_place_text

# Attributes that are not in any op's spec but that Paddle attaches to ops:
# result attributes, the parameter op's flags, and quant/dist bookkeeping.
UNTYPED_DEFAULTS = {
    "stop_gradient": "array<bool>",
    "persistable": "array<bool>",
    "trainable": "array<bool>",
    "is_distributed": "array<bool>",
    "is_parameter": "array<bool>",
    "need_clip": "array<bool>",
    "is_persisable": "array<bool>",  # Paddle 2.6's spelling on builtin.parameter
    "parameter_name": "str",
    "struct_name": "str",
    "op_role": "int32",
    "op_callstack": "array<str>",
}

# Tags of the typed text: `(Float)0.02`, `(pd_op.DataType)float32`.
TAG_KINDS = {
    "(Bool)": "bool",
    "(Float)": "float",
    "(Double)": "double",
    "(Int32)": "int32",
    "(Int64)": "int64",
    "(Index)": "index",
    "(Str)": "str",
    "(TensorName)": "tensor_name",
    "(Complex64)": "complex64",
    "(Complex128)": "complex128",
    "(pd_op.DataType)": "dtype",
    "(pd_op.Place)": "place",
    "(pd_op.IntArray)": "int_array",
    "(pd_op.DataLayout)": "layout",
    "(pd_op.Scalar)": "scalar",
}
KIND_TAGS = {kind: tag for tag, kind in TAG_KINDS.items()}

_INT32_RANGE = range(-(2**31), 2**31)
_SPECIAL_FLOATS = {"inf": math.inf, "-inf": -math.inf, "nan": math.nan, "-nan": -math.nan}


class LiteralError(ValueError):
    """A literal that does not fit the kind the spec or its tag asks for."""


def decode_string(raw: str, canonical: bool) -> str:
    """The value of a STRING token.

    Paddle's printer escapes only `"`; pirc's canonical text uses JSON escapes
    so that any string survives (backslashes, newlines).
    """
    if canonical:
        return json.loads(raw)
    return raw[1:-1].replace('\\"', '"')


def is_float_text(text: str) -> bool:
    return text in _SPECIAL_FLOATS or any(c in text for c in ".eE")


def number_value(text: str):
    special = _SPECIAL_FLOATS.get(text)
    if special is not None:
        return special
    if is_float_text(text):
        return float(text)
    return int(text)


def to_attr(node, kind: str | None, canonical: bool):
    """Type literal `node` as PIR attribute kind `kind` (None: infer)."""
    tag = node[0]
    if tag == "t":
        tagged_kind = TAG_KINDS[node[1]]
        return to_attr(node[2], tagged_kind, canonical)
    if kind is not None and kind.startswith("array"):
        elem_kind = kind[6:-1] if kind.startswith("array<") else None
        if tag != "a":
            raise LiteralError(f"expected an array ({kind}), got {describe(node)}")
        return A.array_attr(to_attr(n, elem_kind, canonical) for n in node[1])
    if tag == "b":
        if kind not in (None, "bool"):
            # Paddle prints a bool as true/false; a Scalar holding a bool is a bool.
            if kind != "scalar":
                raise LiteralError(f"expected {kind}, got {describe(node)}")
        return A.bool_attr(node[1])
    if tag == "n":
        return _number(node[1], kind)
    if tag == "s":
        value = decode_string(node[1], canonical)
        if kind == "tensor_name":
            return A.TensorNameAttr(value)
        if kind not in (None, "str"):
            raise LiteralError(f"expected {kind}, got a string")
        return A.str_attr(value)
    if tag == "a":
        items = node[1]
        if kind == "int_array":
            return A.int_array_attr(tuple(_int_item(n) for n in items))
        if kind in ("complex64", "complex128"):
            element = A.f32 if kind == "complex64" else A.f64
            re, im = (float(number_value(n[1])) for n in items)
            return A.ComplexAttr.make(element, re, im)
        if kind not in (None, "array"):
            raise LiteralError(f"expected {kind}, got an array")
        return A.array_attr(to_attr(n, None, canonical) for n in items)
    if tag == "i":
        name = node[1]
        if kind == "layout":
            return A.layout_attr(name)
        if kind in (None, "dtype") and name in DTYPE_NAMES:
            return A.dtype_attr(name)
        if kind is None:
            return A.layout_attr(name)
        raise LiteralError(f"expected {kind}, got '{name}'")
    if tag == "p":
        if kind not in (None, "place"):
            raise LiteralError(f"expected {kind}, got a place")
        return A.place_attr(*parse_place_text(node[1]))
    if tag == "ty":
        return A.TypeAttr(node[1])
    if tag == "null":
        return A.NULL_ATTR
    raise LiteralError(f"unsupported literal {node!r}")


def _int_item(node) -> int:
    if node[0] == "t":
        node = node[2]
    if node[0] != "n" or is_float_text(node[1]):
        raise LiteralError(f"expected an integer, got {describe(node)}")
    return int(node[1])


def _float(text: str) -> float:
    # float("-0") keeps the sign that int("-0") would drop.
    special = _SPECIAL_FLOATS.get(text)
    return special if special is not None else float(text)


def _number(text: str, kind: str | None):
    value = number_value(text)
    if kind in (None, "scalar"):
        # Paddle stores a Scalar attribute (full.value) as a Double whatever
        # the tensor dtype; an unknown attribute gets the widest exact kind.
        if isinstance(value, float) or kind == "scalar":
            return A.float_attr(_float(text), double=True)
        return A.int32_attr(value) if value in _INT32_RANGE else A.int64_attr(value)
    if kind in ("float", "double"):
        return A.float_attr(_float(text), double=(kind == "double"))
    if kind in ("int32", "int64", "index"):
        if isinstance(value, float):
            raise LiteralError(f"expected an integer ({kind}), got {text}")
        if kind == "int32" and value not in _INT32_RANGE:
            raise LiteralError(f"{text} does not fit in int32")
        return A.make_scalar(kind, value)
    if kind == "bool":
        return A.bool_attr(bool(value))
    raise LiteralError(f"expected {kind}, got the number {text}")


def describe(node) -> str:
    tag = node[0]
    return {
        "b": lambda: "true" if node[1] else "false",
        "n": lambda: f"the number {node[1]}",
        "s": lambda: "a string",
        "a": lambda: "an array",
        "i": lambda: f"'{node[1]}'",
        "p": lambda: "a place",
        "ty": lambda: "a type",
        "null": lambda: "a null attribute",
        "t": lambda: f"{node[1]}{describe(node[2])}",
    }[tag]()
