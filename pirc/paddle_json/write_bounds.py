"""What the JSON of an IR attribute or type will look like to the reader's limits.

The writer refuses to write what the reader would refuse to read (pirc's rule: whatever pirc
writes, pirc reads back), so it measures each distinct attribute and type once, before
encoding it, the way bounds.py counts JSON: bracket depth, integer digits, string bytes.
Iterative, so that an IR nested past Python's recursion limit (a 600-deep array built by
hand or by another front end) gets the same clean refusal.
"""

from __future__ import annotations

from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, StringAttr

from .. import limits
from ..ir import attrs as A
from ..ir.types import (DenseTensorArrayType, DenseTensorType, SelectedRowsType, SparseCooTensorType,
                        VectorType)
from .bounds import TooDeep, check_value, json_depth, string_over

_TENSORS = (DenseTensorType, SelectedRowsType)
_INT32 = (-(2**31), 2**31 - 1)
_INT64 = (-(2**63), 2**63 - 1)


def leaf_depth(root, memo: dict, max_depth: int, max_string: int) -> int:
    """The JSON bracket depth of an attribute or type (`{"#":..}` is 1), memoised by id.

    Raises TooDeep when a string or integer it holds is past the reader's limits, or when
    it nests past the nesting limit on its own.
    """
    got = memo.get(id(root))
    if got is not None:
        return got
    # Post-order walk with an explicit stack: (node, children pushed?)
    stack = [(root, False)]
    while stack:
        node, expanded = stack.pop()
        if id(node) in memo:
            continue
        children, extra = _children(node, max_string)
        if not expanded and any(id(c) not in memo for c in children):
            stack.append((node, True))
            stack.extend((c, False) for c in children if id(c) not in memo)
            continue
        d = _own_depth(node, children, memo, extra)
        if d > max_depth:
            raise TooDeep(limits.MAX_NESTING.message())
        memo[id(node)] = d
    return memo[id(root)]


def _own_depth(node, children, memo: dict, extra: int) -> int:
    """Depth of `{"#":kind,"D":...}` given its children's depths (`extra`: a fixed payload's)."""
    if type(node) is ArrayAttr or type(node) is VectorType:
        # {"D":[child, ...]}
        return 2 + max([memo[id(c)] for c in children], default=0)
    if type(node) is A.TypeAttr:
        return 1 + memo[id(children[0])]
    if type(node) in _TENSORS or type(node) is DenseTensorArrayType:
        # {"D":[dtype, [dims], "layout", [[lod]], offset]}
        return 2 + max(memo[id(children[0])], extra)
    if type(node) is SparseCooTensorType:
        # {"D":[dtype, [dims], [nz dims], "layout", indices, values]}
        return 2 + max([memo[id(c)] for c in children] + [extra])
    return extra


def _children(node, max_string: int) -> tuple[tuple, int]:
    """(attributes or types nested in `node`, the depth of its fixed JSON payload), after
    checking the strings and integers it holds."""
    cls = type(node)
    if cls is ArrayAttr:
        return tuple(node.data), 0
    if cls is VectorType:
        return tuple(node.types), 0
    if cls is A.TypeAttr:
        return (node.type,), 0
    if cls in _TENSORS:
        _check_json([list(node.shape), node.layout.data, [list(lv) for lv in node.lod_levels],
                     node.offset.data])
        return (node.dtype,), 2 if node.lod.data else 1
    if cls is DenseTensorArrayType:
        _check_json([list(node.shape), node.layout.data])
        return (node.dtype,), 1
    if cls is SparseCooTensorType:
        _check_json([list(node.shape), list(node.non_zero_shape), node.layout.data])
        return (node.dtype, node.indices, node.values), 1
    if cls is StringAttr:
        if string_over(node.data, max_string):
            raise TooDeep(limits.MAX_STRING_ATTR.message(len(node.data)))
        return (), 1
    if cls is A.IntArrayAttr or cls is A.PlaceAttr or cls is A.ScalarAttr:
        data = list(node.data)
        _check_json(data)
        return (), 1 + json_depth(data)
    if cls is A.ComplexAttr:
        return (), 2
    if cls is IntegerAttr:
        v = node.value.data
        lo, hi = _INT32 if node.type is A.i32 else _INT64
        if type(v) is int and not lo <= v <= hi and node.type is not A.i1:
            # the reader checks each integer against its kind's range
            raise TooDeep(f"integer {v if abs(v) < 10**30 else 'of ' + str(v.bit_length()) + ' bits'} "
                          f"is outside the range of its kind ({lo} to {hi})")
        return (), 1
    if cls in (A.DataTypeAttr, A.DataLayoutAttr, A.TensorNameAttr):
        _check_json(node.data)
    return (), 1


def _check_json(value) -> None:
    check_value(value, 1)
