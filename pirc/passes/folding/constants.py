"""Constant tensors: the value a constant op holds, and the ops that hold a value again.

Read (`constant_value`), each as its kernel computes it (pirc/lower/kernels/creation.py,
which follows phi's):

* `pd_op.full`: `value` (a Double) converted to `dtype`: rounded to nearest for a float
  dtype, truncated toward zero for an integer one;
* `pd_op.full_int_array`: `value` (Int64s) as `dtype` (an integer dtype);
* `pd_op.assign_value_` (on a buffer nothing else uses; what `paddle.to_tensor` makes) and
  `pd_op.assign_value`: `values` converted to `dtype`, in `shape`.

A value that cannot be converted exactly the way the kernel would (NaN or an infinity or an
out-of-range number for an integer dtype, a float16 that a Double would round twice on the
way) is not a constant to fold with: folding never guesses.

Written back (`constant_ops`) in the op Paddle itself uses, so an optimised program is still
one real Paddle loads: a 1-D integer array as `pd_op.full_int_array` (on the CPU, as Paddle's
builder places them), a tensor whose elements are all equal as `pd_op.full`, anything else
as `pd_op.full` + `pd_op.assign_value_` into it (pirc has no kernel for the out-of-place
`pd_op.assign_value`, so a program using it could not run here).  Values travel as Doubles,
as Paddle stores them: an integer past 2**53 has no exact Double and is not written.
"""

from __future__ import annotations

from ...ir import attrs as A
from ...ir.builder import append_op
from ...ir.registry import op_class
from ...ir.types import ELEMENT_TYPE_NAMES, DenseTensorType
from ..infra.forwarding import unwritten

# Element types folding handles, by the dtype name Paddle and numpy share.
DTYPES = {"f16": "float16", "f32": "float32", "f64": "float64", "i32": "int32", "i64": "int64"}
FLOATS = ("float16", "float32", "float64")
INTEGERS = ("int32", "int64")
EXACT_INT = 2 ** 53      # every integer up to this has an exact Double
CPU = A.place_attr(1)    # Place(cpu)

# The constant ops, and the attributes that hold their value (a program read without the
# verifier may lack one: then it is no constant).
_HOLDS = {"pd_op.full": {"shape", "value"}, "pd_op.full_int_array": {"value"},
          "pd_op.assign_value_": {"shape", "values"}, "pd_op.assign_value": {"shape", "values"}}
SOURCES = tuple(_HOLDS)


def tensor_info(t) -> tuple[tuple[int, ...], str] | None:
    """(static shape, dtype) of a plain dense tensor type of a handled dtype, else None."""
    if type(t) is not DenseTensorType or not t.is_plain():
        return None
    dtype = DTYPES.get(ELEMENT_TYPE_NAMES.get(t.dtype))
    shape = t.shape
    if dtype is None or any(d < 0 for d in shape):
        return None
    return shape, dtype


def constant_value(value, numpy, aliases=None):
    """The numpy array a constant op's result holds, or None (not a constant, or one whose
    buffer an op changes in place: the alias model `aliases`, pirc.ir.aliasing).  `numpy()`
    gives the numpy module, asked only once the value is known to be a constant."""
    op = getattr(value, "op", None)
    if op is None or op.name not in SOURCES:
        return None
    # an assign_value_ defines its value by writing: that write is the constant's own
    if not unwritten(aliases, value, op if op.name == "pd_op.assign_value_" else None):
        return None
    info = tensor_info(value.type)
    if info is None:
        return None
    shape, dtype = info
    attrs = op.attributes
    if getattr(attrs.get("dtype"), "data", None) != dtype or not _HOLDS[op.name] <= attrs.keys():
        return None
    np = numpy()
    if op.name == "pd_op.full":
        if tuple(attrs["shape"].data) != shape:
            return None
        v = _element(A.scalar_value(attrs["value"]), dtype, np)
        return None if v is None else np.full(shape, v, dtype=dtype)
    if op.name == "pd_op.full_int_array":
        values = [A.scalar_value(a) for a in attrs["value"].data]
        if dtype not in INTEGERS or (len(values),) != shape:
            return None
        return _array(values, dtype, shape, np)
    if op.name == "pd_op.assign_value_":
        buffer = op.operands[0]
        if buffer.type != value.type or sum(1 for _ in buffer.uses) != 1:
            return None
    if tuple(A.scalar_value(d) for d in attrs["shape"].data) != shape:
        return None
    return _array([A.scalar_value(a) for a in attrs["values"].data], dtype, shape, np)


def _element(v, dtype: str, np):
    """`v` as the kernel converts a scalar to `dtype`, or None when that is not exact."""
    if dtype in FLOATS:
        out = np.asarray(float(v), dtype="float64").astype(dtype)
        # float16 from a Double may round twice (through float) in torch: exact values only.
        return out if dtype != "float16" or float(out) == float(v) or v != v else None
    if isinstance(v, float) and (v != v or v in (float("inf"), float("-inf"))):
        return None
    i = int(v)  # truncation toward zero, as the kernels' int(value)
    info = np.iinfo(dtype)
    return i if info.min <= i <= info.max else None


def _array(values, dtype: str, shape, np):
    out = [_element(v, dtype, np) for v in values]
    if any(v is None for v in out) or len(out) != _size(shape):
        return None
    return np.array(out, dtype=dtype).reshape(shape)


def _size(shape) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def constant_ops(array, rtype, version: int, place, stop_gradient, max_elements: int, np):
    """New ops (not yet inserted) whose last result holds `array` as type `rtype`, or None
    when it has no exact spelling or is larger than `max_elements` (and not uniform)."""
    dtype = array.dtype.name
    flat = array.reshape(-1)
    if array.ndim == 1 and dtype in INTEGERS and array.size:
        return [append_op(op_class("pd_op.full_int_array", version), [], [rtype], {
            "dtype": A.dtype_attr(dtype), "place": CPU, "stop_gradient": stop_gradient,
            "value": A.array_attr([A.int64_attr(v) for v in flat.tolist()])}, None)]
    if not array.size:
        return None
    if dtype in INTEGERS and int(np.abs(flat.astype("int64")).max()) > EXACT_INT:
        return None
    bits = flat.view(f"u{flat.itemsize}")
    if (bits == bits[0]).all():  # bit for bit: -0.0 and each NaN kept
        return [_full(version, rtype, dtype, array.shape, flat[0].item(), place, stop_gradient)]
    if array.size > max_elements:
        return None
    buffer = _full(version, rtype, dtype, array.shape, 0.0, place, stop_gradient)
    assign = append_op(op_class("pd_op.assign_value_", version), [buffer.results[0]], [rtype], {
        "dtype": A.dtype_attr(dtype), "place": place,
        "shape": A.array_attr([A.int32_attr(d) for d in array.shape]),
        "stop_gradient": stop_gradient,
        "values": A.array_attr([A.float_attr(float(v), double=True) for v in flat.tolist()])}, None)
    return [buffer, assign]


def _full(version, rtype, dtype, shape, value, place, stop_gradient):
    return append_op(op_class("pd_op.full", version), [], [rtype], {
        "dtype": A.dtype_attr(dtype), "place": place, "shape": A.int_array_attr(tuple(shape)),
        "stop_gradient": stop_gradient, "value": A.float_attr(float(value), double=True)}, None)


def full_scalar(value, aliases=None):
    """The number a one-element `pd_op.full` holds as its attribute spells it (no numpy:
    canonicalize asks on every scale and dropout), or None: another producer, more than one
    element, or a value whose buffer something writes in place (the alias model)."""
    op = getattr(value, "op", None)
    if op is None or op.name != "pd_op.full" or not unwritten(aliases, value):
        return None
    attrs = op.attributes
    shape, v = attrs.get("shape"), attrs.get("value")
    if shape is None or v is None or _size(shape.data) != 1:
        return None
    return A.scalar_value(v)


def int_array_values(value, aliases=None) -> tuple | None:
    """The integers a `pd_op.full_int_array` holds (an axis, a slice's bounds, split
    sections), or None: another producer, or a value whose buffer something writes in place
    (the alias model)."""
    op = getattr(value, "op", None)
    if op is None or op.name != "pd_op.full_int_array" or not unwritten(aliases, value):
        return None
    attr = op.attributes.get("value")
    return None if attr is None else tuple(A.scalar_value(a) for a in attr.data)
