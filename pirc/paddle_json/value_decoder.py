"""Decoding attribute and type JSON into pirc attributes and types, memoised.

Types and attributes repeat heavily (a 100k-op program has a few hundred
distinct ones), so each decoded value is memoised on a key built from its
JSON object (`attr_key`, `type_key`): tuples of the JSON's scalars, cheaper
than `repr` (which runs at ~20 MB/s and cost more than json.loads itself)
while still telling apart what must differ (`true` from `1`, `-0.0` from
`0.0`).  Anything unusual falls back to `repr`.
"""

from __future__ import annotations

import math
import re

from ..ir import attrs as A
from ..ir.types import (
    ELEMENT_TYPES,
    NULL_TYPE,
    DenseTensorArrayType,
    DenseTensorType,
    SPARSE_PART_LAYOUT,
    SelectedRowsType,
    SparseCooTensorType,
    VectorType,
)
from . import codes as C
from .bounds import TooDeep, check_value, current_limits
from .schema_checks import SchemaLimit, SchemaViolation, is_int, is_number, show

_INT32_RANGE = (-(2**31), 2**31 - 1)
_INT64_RANGE = (-(2**63), 2**63 - 1)


def _memoised(memo: dict, key, decode, obj, where: str, depth: int, bounds):
    """`decode(obj)`, once per distinct JSON value (`key` makes it hashable); an error is
    located under `where`, the JSON path of the value.  The value is first checked against
    pirc's limits as if its outermost bracket were at JSON depth `depth` (each memo serves
    one depth: see the reader)."""
    k = safe_key(key, obj)
    got = memo.get(k)
    if got is None:
        try:
            check_value(obj, depth, bounds)
        except TooDeep as e:
            raise SchemaLimit(e.message, where + e.path) from None
        try:
            got = decode(obj)
        except SchemaViolation as e:
            raise e.under(where) from None
        memo[k] = got
    return got


# A tensor type's layout (NCHW, NHWC, ANY, ...; empty seen in fuzzed files that round-trip):
# the text forms spell it bare inside `tensor<...>`, so no character that ends that spelling.
_LAYOUT_NAME = re.compile(r'[^\s{}()<>,\[\]:"]*')
# The one layout name with brackets: phi's UNDEFINED, which Paddle writes for the unset
# indices / values types of a sparse tensor.
# A DataLayout attribute: the text forms spell it as a bare identifier (pir.lark's IDENT).
_LAYOUT_ATTR = re.compile(r"(?!(?:true|false|inf|nan)$)[A-Za-z_][A-Za-z0-9_()]*")  # not a keyword
_INT64 = range(_INT64_RANGE[0], _INT64_RANGE[1] + 1)  # dims, lod, offset: int64_t

class ValueDecoder:
    """Attribute and type decoding with per-program memos."""

    def __init__(self):
        self.types: dict[str, object] = {}
        self.attrs: dict[str, object] = {}
        self.leaf_depth = 1  # the JSON depth a value's outermost bracket is counted at
        self.bounds = current_limits()

    def attr(self, obj, where: str):
        return _memoised(self.attrs, attr_key, self.decode_attr, obj, where, self.leaf_depth,
                         self.bounds)

    def decode_attr(self, obj):
        if type(obj) is not dict:
            raise SchemaViolation(f"an attribute is {{\"#\": kind, \"D\": data}}, got {show(obj)}")
        code = obj.get(C.ID)
        kind = C.ATTR_KIND_BY_CODE.get(code)
        if kind is None:
            raise SchemaViolation(self.unknown_kind(code, "attribute", C.ATTR_KIND_BY_CODE,
                                         C.UNSUPPORTED_ATTR_CODES))
        if kind == "null":
            return A.NULL_ATTR
        if kind in ("float", "double"):
            return A.float_attr(self.float_data(obj), double=kind == "double")
        if C.DATA not in obj:
            raise SchemaViolation(f"missing \"D\" (the {code} value)")
        d = obj[C.DATA]
        here = "." + C.DATA
        if kind == "bool":
            if type(d) is not bool:
                raise SchemaViolation(f"expected true or false, got {show(d)}", here)
            return A.bool_attr(d)
        if kind in ("int32", "int64", "index"):
            lo, hi = _INT32_RANGE if kind == "int32" else _INT64_RANGE
            if not is_int(d) or not lo <= d <= hi:
                raise SchemaViolation(f"expected a {kind} integer, got {show(d)}", here)
            return A.make_scalar(kind, d)
        if kind in ("str", "tensor_name", "layout"):
            if type(d) is not str:
                raise SchemaViolation(f"expected a string, got {show(d)}", here)
            if kind == "str":
                return A.str_attr(d)
            if kind == "layout" and not _LAYOUT_ATTR.fullmatch(d):
                raise SchemaViolation(f"a data layout attribute is a name (NCHW, NHWC, ...), got {show(d)}", here)
            return A.TensorNameAttr(d) if kind == "tensor_name" else A.layout_attr(d)
        if kind in ("complex64", "complex128"):
            if type(d) is not list or len(d) != 2 or not all(is_number(x) for x in d):
                raise SchemaViolation(f"expected [real, imag], got {show(d)}", here)
            return A.ComplexAttr.make(A.f32 if kind == "complex64" else A.f64,
                                      float(d[0]), float(d[1]))
        if kind == "array":
            if type(d) is not list:
                raise SchemaViolation(f"expected a list of attributes, got {show(d)}", here)
            return A.array_attr(self.attr(x, f"{here}[{i}]") for i, x in enumerate(d))
        if kind == "type":
            return A.TypeAttr(self.type(d, here))
        if kind == "int_array":
            if type(d) is not list or not all(is_int(x) for x in d):
                raise SchemaViolation(f"expected a list of integers, got {show(d)}", here)
            for i, x in enumerate(d):
                if x not in _INT64:  # an IntArray holds int64_t
                    raise SchemaViolation(f"an IntArray element is an int64, got {show(x)}", f"{here}[{i}]")
            return A.int_array_attr(tuple(d))
        if kind == "dtype":
            printed = C.DTYPE_PRINTED_BY_JSON.get(d)
            if printed is None:
                raise SchemaViolation(f"unknown data type {show(d)}; expected one of "
                           + ", ".join(C.DTYPE_NAMES_JSON), here)
            return A.dtype_attr(printed)
        if kind == "place":
            if (type(d) is not list or len(d) != 3 or not is_int(d[0]) or not is_int(d[1])
                    or type(d[2]) is not str):
                raise SchemaViolation(f"expected [allocation type, device id, device type], got {show(d)}",
                           here)
            return A.place_attr(d[0], d[1], d[2])
        if kind == "scalar":
            if type(d) is not list or not d or type(d[0]) is not str:
                raise SchemaViolation(f"expected [dtype, value...], got {show(d)}", here)
            return A.ScalarAttr(tuple(d))
        raise AssertionError(kind)  # pragma: no cover - codes.py and this switch agree

    def float_data(self, obj) -> float:
        if C.DATA in obj:
            d = obj[C.DATA]
            if not is_number(d):
                raise SchemaViolation(f"expected a number, got {show(d)}", "." + C.DATA)
            try:
                return float(d)
            except OverflowError:  # an integer literal past the double range
                raise SchemaViolation(f"a floating-point value must fit a double, got an integer of "
                                      f"{len(str(abs(d)))} digits", "." + C.DATA) from None
        vd = obj.get(C.VOID_DATA)
        if vd == C.INF_SPELLING:
            return math.inf
        if vd == C.NEG_INF_SPELLING:
            return -math.inf
        if vd in C.NAN_SPELLINGS_READ:
            return math.nan
        if vd is None:
            raise SchemaViolation(f"missing \"D\" (the {obj.get(C.ID)} value)")
        spellings = ", ".join(show(s) for s in
                              (C.INF_SPELLING, C.NEG_INF_SPELLING) + C.NAN_SPELLINGS_READ)
        raise SchemaViolation(f"unknown non-finite value {show(vd)}; expected one of {spellings}",
                   "." + C.VOID_DATA)

    # -- types -------------------------------------------------------------------

    def type(self, obj, where: str):
        return _memoised(self.types, type_key, self.decode_type, obj, where, self.leaf_depth,
                         self.bounds)

    def decode_type(self, obj):
        if type(obj) is not dict:
            raise SchemaViolation(f"a type is {{\"#\": kind, \"D\": data}}, got {show(obj)}")
        code = obj.get(C.ID)
        elem = C.ELEMENT_TYPE_CODES.get(code)
        if elem is not None:
            return ELEMENT_TYPES[elem]
        if code == C.NULL:
            return NULL_TYPE
        if code not in C.CONTAINER_TYPE_CODES:
            kinds = dict.fromkeys(C.TYPE_CODES)
            raise SchemaViolation(self.unknown_kind(code, "type", kinds, C.UNSUPPORTED_TYPE_CODES))
        d = obj.get(C.DATA)
        here = "." + C.DATA
        if code == C.T_VECTOR:
            if type(d) is not list:
                raise SchemaViolation(f"expected a list of types, got {show(d)}", here)
            return VectorType.make(self.type(x, f"{here}[{i}]") for i, x in enumerate(d))
        if code == C.T_SPARSE_COO:
            return self.sparse_coo(d, here)
        n = 3 if code == C.T_DENSE_TENSOR_ARRAY else 5
        if type(d) is not list or len(d) != n:
            shape = ("[element type, dims, layout]" if n == 3
                     else "[element type, dims, layout, lod, offset]")
            raise SchemaViolation(f"{code} data is {shape}, got {show(d)}", here)
        elt = self.type(d[0], f"{here}[0]")
        dims, layout = d[1], d[2]
        if type(dims) is not list or not all(is_int(x) for x in dims):
            raise SchemaViolation(f"dims are a list of integers, got {show(dims)}", f"{here}[1]")
        for i, x in enumerate(dims):
            if x not in _INT64:  # Paddle's dims are int64_t (and the text reader says so too)
                raise SchemaViolation(f"a dimension is an int64, got {x}", f"{here}[1][{i}]")
        if type(layout) is not str or not (_LAYOUT_NAME.fullmatch(layout) or layout == SPARSE_PART_LAYOUT):
            raise SchemaViolation(f"a tensor layout is a name (NCHW, NHWC, ...) without brackets, "
                                  f"commas, quotes or blanks, got {show(layout)}", f"{here}[2]")
        if n == 3:
            return DenseTensorArrayType.make(elt, dims, layout)
        lod, offset = d[3], d[4]
        if type(lod) is not list or not all(
                type(lv) is list and all(is_int(x) for x in lv) for lv in lod):
            raise SchemaViolation(f"a LoD is a list of lists of integers, got {show(lod)}", f"{here}[3]")
        if any(x not in _INT64 for lv in lod for x in lv):
            raise SchemaViolation(f"a LoD's offsets are int64s, got {show(lod)}", f"{here}[3]")
        if not is_int(offset) or offset not in _INT64:
            raise SchemaViolation(f"an offset is an int64 integer, got {show(offset)}", f"{here}[4]")
        cls = DenseTensorType if code == C.T_DENSE_TENSOR else SelectedRowsType
        return cls.make(elt, dims, layout, lod, offset)

    def sparse_coo(self, d, here: str):
        """[element, dims, non-zero dims, layout, indices type, values type]."""
        if type(d) is not list or len(d) != 6:
            raise SchemaViolation(f"{C.T_SPARSE_COO} data is [element type, dims, non-zero dims, "
                                  f"layout, indices type, values type], got {show(d)}", here)
        elt = self.type(d[0], f"{here}[0]")
        for i in (1, 2):
            if type(d[i]) is not list or not all(is_int(x) and x in _INT64 for x in d[i]):
                raise SchemaViolation(f"dims are a list of int64s, got {show(d[i])}", f"{here}[{i}]")
        if type(d[3]) is not str or not (_LAYOUT_NAME.fullmatch(d[3]) or d[3] == SPARSE_PART_LAYOUT):
            raise SchemaViolation(f"a tensor layout is a name, got {show(d[3])}", f"{here}[3]")
        parts = [self.type(d[i], f"{here}[{i}]") for i in (4, 5)]
        for i, t in zip((4, 5), parts):
            if type(t) is not DenseTensorType:
                raise SchemaViolation(f"a sparse tensor's part is a {C.T_DENSE_TENSOR}", f"{here}[{i}]")
        return SparseCooTensorType.make(elt, d[1], d[2], d[3], *parts)

    @staticmethod
    def unknown_kind(code, what: str, known, unsupported: dict) -> str:
        if type(code) is str and code in unsupported:
            return (f"{what} kind \"{code}\" ({unsupported[code]}) is not supported by pirc")
        if type(code) is str and code.startswith(C.DIST_PREFIX):
            return (f"{what} kind \"{code}\" belongs to the dist dialect (distributed "
                    "programs), which pirc does not support")
        if code is None:
            return f"missing \"#\" (the {what} kind)"
        return (f"unknown {what} kind {show(code)}; expected one of {', '.join(known)} "
                "(a file from a newer Paddle may use kinds this pirc does not know: "
                "upgrade pirc, or report the kind)")


KEY_ERRORS = (KeyError, TypeError, IndexError, AttributeError)
_LIST_KEYED_ATTRS = frozenset(("1.a_intarray", "1.a_place"))


def attr_key(at):
    """A memo key for an attribute's JSON: equal keys mean the same attribute.

    Raises on shapes it does not know (the caller then falls back to repr).
    """
    code = at[C.ID]
    if C.DATA not in at:
        return (code, None, at.get(C.VOID_DATA))
    d = at[C.DATA]
    td = type(d)
    if td is list:
        if code == "0.a_array":
            parts = []
            for x in d:
                xd = x.get(C.DATA)
                tx = type(xd)
                # scalars inline (the key attr_key would give), the rest recursively
                parts.append((x[C.ID], xd, tx) if tx is bool or tx is int or tx is str
                             else attr_key(x))
            return (code, tuple(parts))
        if code in _LIST_KEYED_ATTRS:
            return (code, tuple(d), tuple(map(type, d)))
        return repr(at)
    if td is float:
        return (code, repr(d))  # -0.0 == 0.0 would share an entry
    if td is dict:
        return (code, type_key(d))
    return (code, d, td)  # td: true is not 1


def type_key(tt):
    """A memo key for a type's JSON (see `attr_key`)."""
    if C.DATA not in tt:
        return tt[C.ID]
    d = tt[C.DATA]
    code = tt[C.ID]
    if code == C.T_DENSE_TENSOR and len(d) == 5:
        lod = d[3]
        elt = d[0]
        return (code, elt[C.ID] if C.DATA not in elt else type_key(elt), tuple(d[1]), d[2],
                repr(lod) if lod else (), d[4])
    return repr(tt)


def safe_key(key, obj):
    try:
        k = key(obj)
        hash(k)
        return k
    except KEY_ERRORS:
        return repr(obj)
