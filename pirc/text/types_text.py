"""Type spellings: `tensor<-1x784xf32>` and friends, both directions.

Paddle prints a dense tensor as `tensor<DIMSxELT>` and hides its layout, lod
and offset.  pirc's canonical text adds them, only when they differ from
what Paddle's JSON writer stores by default (NCHW, no lod, offset 0):
`tensor<2x3xf32,layout:NHWC,lod:[[0,2]],offset:1>`.  The same goes for
selected rows and tensor arrays.
"""

from __future__ import annotations

import json
import re

from ..ir.types import (
    DEFAULT_LAYOUT,
    ELEMENT_TYPE_NAMES,
    ELEMENT_TYPES,
    NULL_TYPE,
    DenseTensorArrayType,
    DenseTensorType,
    NullType,
    SelectedRowsType,
    SparseCooTensorType,
    VectorType,
)

# Printed names of the tensor-like types (Paddle 3.3 prints `tensor<...>` with no
# dialect prefix; 2.6 prints `pd_op.tensor<...>`, older docs `builtin.tensor<...>`).
TENSOR_PREFIXES = ("tensor<", "builtin.tensor<", "pd_op.tensor<")
# Paddle 3.x prints these with their dialect prefix (tools/paddle_oracle/FINDINGS.md):
# `pd_op.selectedrows<4x3xf32>`, and `pd_op.tensor_array<f32>` without the dims
# its JSON stores (pirc's canonical text adds them: `pd_op.tensor_array<2x3xf32>`).
SELECTED_ROWS_NAME = "pd_op.selectedrows"
TENSOR_ARRAY_NAME = "pd_op.tensor_array"
# Paddle prints a COO tensor as `pd_op.sparsecootensor<4x3xf32>`; pirc's canonical text adds
# the fields Paddle's JSON holds when they are not the defaults: `nnz_dims:[2]`, `layout:X`,
# `indices:[ELT,[DIMS],LAYOUT,[[LOD]],OFFSET]` and `values:[...]` (no `<>`, so the lexer's
# one-token type stays flat).
SPARSE_COO_NAME = "pd_op.sparsecootensor"
_OTHER_NAMES = {
    "sparsecootensor": SPARSE_COO_NAME, "sparse_coo_tensor": SPARSE_COO_NAME,
    "selected_rows": SELECTED_ROWS_NAME, "selectedrows": SELECTED_ROWS_NAME,
    "tensor_array": TENSOR_ARRAY_NAME,
}

_decode_cache: dict[str, object] = {}
_DIMS = re.compile(r"(?:-?\d+x)*")


class TypeSyntaxError(ValueError):
    """A malformed type; `offset` is the position of the problem in the type text."""

    def __init__(self, message: str, offset: int = 0):
        super().__init__(message)
        self.offset = offset


def decode_tensor_like(text: str):
    """Decode a TENSOR or OTHER_TYPE token into a type (memoised)."""
    t = _decode_cache.get(text)
    if t is None:
        t = _decode(text)
        _decode_cache[text] = t
    return t


_INT = re.compile(r"-?[0-9]+")
_INT64 = range(-(2**63), 2**63)


def _int64(text: str, what: str, offset: int) -> int:
    """A dimension, offset or lod entry: an int64_t in Paddle."""
    text = text.strip()
    if not _INT.fullmatch(text) or len(text) > 20 or int(text) not in _INT64:
        raise TypeSyntaxError(f"bad {what}: expected an int64", offset)
    return int(text)


def _lod(value: str, text: str, offset: int) -> tuple:
    """`lod:[[0,2,3]]`: a list of levels, each a list of int64 offsets."""
    try:
        levels = json.loads(value)
    except ValueError:
        levels = None
    if type(levels) is not list or any(type(level) is not list for level in levels) or any(
            type(v) is not int or v not in _INT64 for level in levels for v in level):
        raise TypeSyntaxError(f"bad lod '{value}' in {text} (expected [[int, ...], ...])", offset)
    return tuple(tuple(level) for level in levels)


def _decode(text: str):
    open_at = text.index("<")
    kind = text[:open_at].rsplit(".", 1)[-1]
    body = text[open_at + 1:-1]
    main, *extras = _split_top(body)
    m = _DIMS.match(main)
    parts = m.group(0).split("x")[:-1] + [main[m.end():]]  # `2x-1x` + `f32`; `index` has an x
    elt_name = parts[-1]
    element = ELEMENT_TYPES.get(elt_name)
    if element is None:
        raise TypeSyntaxError(
            f"unknown element type '{elt_name}' (expected one of {', '.join(ELEMENT_TYPES)})",
            open_at + 1 + len(main) - len(elt_name))
    dims = [_int64(d, f"dimension '{d}' in {text} (an integer, -1 for dynamic)", open_at + 1)
            for d in parts[:-1]]
    layout, lod, offset = DEFAULT_LAYOUT, (), 0
    sparse = {}
    for extra in extras:
        key, _, value = extra.partition(":")
        if key in ("nnz_dims", "indices", "values") and _OTHER_NAMES.get(kind) == SPARSE_COO_NAME:
            sparse[key] = _sparse_field(key, value, text, open_at + 1)
        elif key == "layout":
            layout = value
        elif key == "lod":
            lod = _lod(value, text, open_at + 1)
        elif key == "offset":
            offset = _int64(value, f"offset '{value}' in {text} (an integer)", open_at + 1)
        else:
            raise TypeSyntaxError(f"unknown type parameter '{key}' in {text} (expected layout, lod or offset)",
                                  open_at + 1)
    if kind == "tensor":
        return DenseTensorType.make(element, dims, layout, lod, offset)
    kind = _OTHER_NAMES.get(kind)
    if kind == SELECTED_ROWS_NAME:
        return SelectedRowsType.make(element, dims, layout, lod, offset)
    if kind == TENSOR_ARRAY_NAME:
        return DenseTensorArrayType.make(element, dims, layout)
    if kind == SPARSE_COO_NAME:
        return SparseCooTensorType.make(element, dims, sparse.get("nnz_dims", ()), layout,
                                        sparse.get("indices"), sparse.get("values"))
    raise TypeSyntaxError(f"unsupported type {text}")


def _sparse_field(key: str, value: str, text: str, offset: int):
    """`nnz_dims:[2]`, or a part's dense type `indices:["i64",[2,3],"NCHW",[],0]`."""
    try:
        v = json.loads(value)
    except ValueError:
        v = None
    if key == "nnz_dims":
        if type(v) is not list or any(type(x) is not int or x not in _INT64 for x in v):
            raise TypeSyntaxError(f"bad nnz_dims '{value}' in {text} (expected [int, ...])", offset)
        return tuple(v)
    ok = (type(v) is list and len(v) == 5 and v[0] in ELEMENT_TYPES and type(v[1]) is list
          and all(type(x) is int and x in _INT64 for x in v[1]) and type(v[2]) is str
          and "<" not in v[2] and ">" not in v[2] and type(v[4]) is int and v[4] in _INT64)
    if not ok:
        raise TypeSyntaxError(f"bad {key} '{value}' in {text} (expected "
                              "[element, [dims], layout, [[lod]], offset])", offset)
    return DenseTensorType.make(ELEMENT_TYPES[v[0]], v[1], v[2], _lod(json.dumps(v[3]), text, offset),
                                v[4])


def _sparse_part_text(t) -> str:
    return json.dumps([ELEMENT_TYPE_NAMES[t.dtype], list(t.shape), t.layout_name,
                       [list(level) for level in t.lod_levels], t.offset.data], separators=(",", ":"))


def _split_top(body: str) -> list[str]:
    """Split `2x3xf32,layout:NHWC,lod:[[0,1],[2]]` on commas outside brackets."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(body):
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append(body[start:i])
            start = i + 1
    out.append(body[start:])
    return out


# ------------------------------------------------------------------ printing
_print_cache: dict[tuple, str] = {}


def type_text(t, lossless: bool) -> str:
    """Paddle's spelling of a type; `lossless` adds non-default tensor fields."""
    key = (t, lossless)
    s = _print_cache.get(key)
    if s is None:
        s = _type_text(t, lossless)
        _print_cache[key] = s
    return s


def _shape_prefix(shape) -> str:
    return "".join(f"{d}x" for d in shape)


def _type_text(t, lossless: bool) -> str:
    name = ELEMENT_TYPE_NAMES.get(t)
    if name is not None:
        return name
    cls = type(t)
    if cls is DenseTensorType or cls is SelectedRowsType:
        prefix = "tensor" if cls is DenseTensorType else SELECTED_ROWS_NAME
        s = f"{prefix}<{_shape_prefix(t.shape)}{type_text(t.dtype, lossless)}"
        if lossless:
            if not t.has_default_layout():
                s += f",layout:{t.layout_name}"
            if t.lod.data:
                s += ",lod:" + json.dumps([list(level) for level in t.lod_levels], separators=(",", ":"))
            if t.offset.data:
                s += f",offset:{t.offset.data}"
        return s + ">"
    if cls is DenseTensorArrayType:
        dims = _shape_prefix(t.shape) if lossless else ""
        s = f"{TENSOR_ARRAY_NAME}<{dims}{type_text(t.dtype, lossless)}"
        if lossless and not t.has_default_layout():
            s += f",layout:{t.layout_name}"
        return s + ">"
    if cls is SparseCooTensorType:
        s = f"{SPARSE_COO_NAME}<{_shape_prefix(t.shape)}{type_text(t.dtype, lossless)}"
        if lossless:
            if t.non_zero_dims.data:
                s += ",nnz_dims:" + json.dumps(list(t.non_zero_shape), separators=(",", ":"))
            if not t.has_default_layout():
                s += f",layout:{t.layout_name}"
            default = SparseCooTensorType.default_part(t.dtype)
            for key, part in (("indices", t.indices), ("values", t.values)):
                if part != default:
                    s += f",{key}:" + _sparse_part_text(part)
        return s + ">"
    if cls is VectorType:
        return "vec[" + ",".join(type_text(e, lossless) for e in t.types) + "]"
    if cls is NullType:
        return "<<NULL TYPE>>"
    raise TypeError(f"no PIR spelling for type {t}")


NULL = NULL_TYPE
