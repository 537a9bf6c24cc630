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
import re

from .. import limits
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


_SURROGATE = re.compile("[\ud800-\udfff]")


class LiteralError(ValueError):
    """A literal that does not fit the kind the spec or its tag asks for."""


def decode_string(raw: str, canonical: bool) -> str:
    """The value of a STRING token.

    Paddle's printer escapes only `"`; pirc's canonical text uses JSON escapes
    so that any string survives (backslashes, newlines).
    """
    if canonical:
        try:
            value = json.loads(raw)
        except json.JSONDecodeError as e:
            # The lexer lets any backslash pair and control character through
            # (Paddle's printer writes them raw); canonical text is JSON's.
            raise LiteralError(f"{raw[:40]} is not a JSON string ({e.msg.lower().removesuffix(' at')} at character "
                               f"{e.pos}); escape it as JSON does: \\\\, \\n, \\t, \\uXXXX") from None
        if not value.isascii():
            lone = _SURROGATE.search(value)
            if lone is not None:
                # json.loads pairs \ud83d\ude00 into one character and keeps an unpaired
                # escape as a lone surrogate, which no UTF-8 output can hold (Paddle's JSON
                # reader refuses it too)
                raise LiteralError(f"a lone UTF-16 surrogate escape (\\u{ord(lone.group()):04x}, "
                                   f"character {lone.start()} of the string) is no Unicode "
                                   "character; escape a character outside the BMP as a pair")
        return value
    return raw[1:-1].replace('\\"', '"')


def is_float_text(text: str) -> bool:
    return text in _SPECIAL_FLOATS or any(c in text for c in ".eE")


def number_value(text: str):
    special = _SPECIAL_FLOATS.get(text)
    if special is not None:
        return special
    if is_float_text(text):
        return float(text)
    return _int(text)


def _int(text: str) -> int:
    # Python's int() refuses past 4,300 digits with a ValueError; pirc's limit is lower.
    digits = len(text) - text.startswith("-")
    if digits > limits.MAX_INT_DIGITS.value():
        raise LiteralError(limits.MAX_INT_DIGITS.message(digits))
    return int(text)


def to_attr(node, kind: str | None, canonical: bool):
    """Type literal `node` as PIR attribute kind `kind` (None: infer).

    A literal whose form no value of `kind` has (a string where the spec wants an array) is
    typed by its form instead, and the verifier reports the mismatch: whatever a printer
    writes for an attribute that contradicts its spec reads back as that attribute.
    In canonical text every literal spells its own kind (a tag, or a form that only one kind
    has: a string is a Str, `true` a Bool, `[...]` an array), so the spec's kind is only a hint
    for what carries no tag: a program whose attribute contradicts its spec reads back as what
    it holds, and the verifier says what is wrong, as for JSON.
    """
    tag = node[0]
    if tag == "t":
        tagged_kind = TAG_KINDS.get(node[1])
        if tagged_kind is None:
            raise LiteralError(f"unknown attribute tag {node[1]}; the tags are "
                               + " ".join(TAG_KINDS))
        if node[2][0] == "t":
            raise LiteralError(f"a value carries one tag, got {node[1]}{node[2][1]}...")
        return _as_kind(node[2], tagged_kind, canonical)
    if kind is not None:
        kind = _canonical_hint(tag, kind) if canonical else _paddle_hint(node, kind)
        if tag == "n" and kind in ("int32", "int64", "index") and (
                is_float_text(node[1]) or A.out_of_range(kind, _int(node[1]))
                or _is_negative_zero(node[1])):
            # A float, or an integer too wide for the spec's kind (an Int64 in a program
            # that a newer Paddle wrote): typed by its form, and the verifier reports it.
            kind = None
    return _as_kind(node, kind, canonical)


def _as_kind(node, kind: str | None, canonical: bool):
    tag = node[0]
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
        if kind == "scalar":  # canonical text's spelling of a JSON `1.a_scalar`
            return _json_scalar(value)
        if kind not in (None, "str"):
            raise LiteralError(f"expected {kind}, got a string")
        return A.str_attr(value)
    if tag == "a":
        items = node[1]
        if kind == "int_array":
            return A.int_array_attr(tuple(_int_item(n) for n in items))
        if kind in ("complex64", "complex128"):
            if len(items) != 2 or any(n[0] != "n" for n in items):
                raise LiteralError(f"expected {kind} as [REAL,IMAG] (two numbers), got "
                                   + "[" + ", ".join(describe(n) for n in items) + "]")
            element_kind = "float" if kind == "complex64" else "double"
            re, im = (_float_value(n[1], element_kind) for n in items)
            return A.ComplexAttr.make(A.f32 if kind == "complex64" else A.f64, re, im)
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
    if tag == "c":  # Paddle's `(re,im)`
        if kind not in (None, "complex64", "complex128"):
            raise LiteralError(f"expected {kind}, got a complex value")
        element_kind = "float" if kind == "complex64" else "double"
        re, im = (_float_value(n[1], element_kind) for n in node[1])
        return A.ComplexAttr.make(A.f32 if kind == "complex64" else A.f64, re, im)
    if tag == "p":
        if kind not in (None, "place"):
            raise LiteralError(f"expected {kind}, got a place")
        return A.place_attr(*parse_place_text(node[1]))
    if tag == "ty":
        return A.TypeAttr(node[1])
    if tag == "null":
        return A.NULL_ATTR
    raise LiteralError(f"unsupported literal {node!r}")


# Untagged literals whose spelling alone does not say their kind: only these take the spec's
# kind in canonical text (arrays pass their element kind on to their items).
def _canonical_hint(tag: str, kind: str) -> str | None:
    if tag == "n":
        return kind if kind in _NUMBER_KINDS else None
    if tag == "i":
        return kind if kind in ("dtype", "layout") else None
    if tag == "a":
        return kind if kind.startswith("array") else None
    return None


def _paddle_hint(node, kind: str) -> str | None:
    tag = node[0]
    if kind.startswith("array"):
        return kind if tag == "a" else None
    if kind not in _KINDS_OF_FORM.get(tag, ()):
        return None
    if kind == "int_array" and not all(_is_int_literal(n) for n in node[1]):
        return None
    if kind in ("complex64", "complex128") and (
            len(node[1]) != 2 or any(n[0] != "n" for n in node[1])):
        return None
    if kind == "dtype" and node[1] not in DTYPE_NAMES:
        return None
    return kind


def _is_negative_zero(text: str) -> bool:
    # Paddle's %g prints a Double -0.0 as `-0`; no integer prints so.
    return text.startswith("-") and text.lstrip("-0") == "" and "." not in text


def _is_int_literal(node) -> bool:
    if node[0] == "t":
        node = node[2]
    # `-0` is how Paddle prints a Double -0.0, never an integer (as in _number).
    return node[0] == "n" and not is_float_text(node[1]) and not _is_negative_zero(node[1])


# (Not "bool": every text form spells a bool true or false; a number is not one.)
_NUMBER_KINDS = frozenset({"float", "double", "int32", "int64", "index", "scalar"})
# The kinds whose values Paddle's text spells in each literal form.
_KINDS_OF_FORM = {
    "n": _NUMBER_KINDS,
    "b": frozenset({"bool", "scalar"}),
    "s": frozenset({"str", "tensor_name"}),
    "a": frozenset({"int_array", "complex64", "complex128"}),
    "c": frozenset({"complex64", "complex128"}),
    "i": frozenset({"dtype", "layout"}),
    "p": frozenset({"place"}),
}


def _json_scalar(text: str):
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if type(data) is not list or not data or type(data[0]) is not str:
        raise LiteralError(f'expected a Scalar as a JSON string "[dtype, value...]", got {text!r}')
    if any(type(v) is str and _SURROGATE.search(v) for v in data):
        raise LiteralError(f"a Scalar's JSON {text[:40]!r} holds a lone UTF-16 surrogate escape, "
                           "which is no Unicode character")
    return A.ScalarAttr(tuple(data))


def _int_item(node) -> int:
    if node[0] == "t":
        node = node[2]
    if node[0] != "n" or is_float_text(node[1]):
        raise LiteralError(f"expected an integer, got {describe(node)}")
    return _checked("int_array", _int(node[1]))


def _checked(kind: str, value):
    problem = A.out_of_range(kind, value)
    if problem is not None:
        raise LiteralError(problem)
    return value


def _float(text: str) -> float:
    # float("-0") keeps the sign that int("-0") would drop.
    special = _SPECIAL_FLOATS.get(text)
    return special if special is not None else float(text)


def _float_value(text: str, kind: str) -> float:
    """The value of a Float (f32) or Double literal, refused beyond the kind's range."""
    value = _float(text)
    if math.isinf(value) and text not in _SPECIAL_FLOATS:
        raise LiteralError(f"{text} is outside the {'Double' if kind == 'double' else 'Float'} "
                           "range (write inf or -inf for an infinity)")
    return _checked(kind, value)


def _number(text: str, kind: str | None):
    value = number_value(text)
    if kind in (None, "scalar"):
        # Paddle stores a Scalar attribute (full.value) as a Double whatever
        # the tensor dtype; an unknown attribute gets the widest exact kind.
        if isinstance(value, float) or kind == "scalar":
            return A.float_attr(_float_value(text, "double"), double=True)
        if _is_negative_zero(text):
            return A.float_attr(-0.0, double=True)  # Paddle's %g prints a Double -0.0 as -0
        if value in _INT32_RANGE:
            return A.int32_attr(value)
        return A.int64_attr(_checked("int64", value))
    if kind in ("float", "double"):
        return A.float_attr(_float_value(text, kind), double=(kind == "double"))
    if kind in ("int32", "int64", "index"):
        if isinstance(value, float):
            raise LiteralError(f"expected an integer ({kind}), got {text}")
        return A.make_scalar(kind, _checked(kind, value))
    if kind == "bool":
        return A.bool_attr(bool(value))
    raise LiteralError(f"expected {kind}, got the number {text}")


def literal_depth(node) -> int:
    """How many arrays deep literal `node` nests (0 for a scalar), found without recursion."""
    deepest = 0
    stack = [(node, 0)]
    while stack:
        n, depth = stack.pop()
        while n[0] == "t":
            n = n[2]
        if n[0] == "a":
            depth += 1
            deepest = max(deepest, depth)
            stack.extend((item, depth) for item in n[1])
    return deepest


def describe(node) -> str:
    tag = node[0]
    return {
        "b": lambda: "true" if node[1] else "false",
        "n": lambda: f"the number {node[1]}",
        "s": lambda: "a string",
        "a": lambda: "an array",
        "i": lambda: f"'{node[1]}'",
        "p": lambda: "a place",
        "c": lambda: "a complex value",
        "ty": lambda: "a type",
        "null": lambda: "a null attribute",
        "t": lambda: f"{node[1]}{describe(node[2])}",
    }[tag]()
