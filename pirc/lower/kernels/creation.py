"""Tensors made from attributes: full, full_int_array, full_like, fill, arange, linspace,
logspace, eye, tril_indices, triu_indices, empty, empty_like, assign_value(_), assign_out_.

The `place` attribute names where Paddle ran; it is ignored: created tensors are CPU tensors
and the lowered module as a whole moves to its device.
"""

from __future__ import annotations

import math

import numpy as np
import torch

from ...runtime.registry import REGISTRY
from ..specialize import specializer
from .operands import c_int_cast, int_list, number


@REGISTRY.register("pd_op.full", since=1)
def full(*, shape=(), value=0.0, dtype=torch.float32, place="cpu"):
    dtype = dtype or torch.float32
    return torch.full(int_list(shape), fill_value(value, dtype), dtype=dtype)


def fill_value(value, dtype: torch.dtype):
    """The attribute's number as the Python number of `dtype`'s kind, as Paddle's full and
    full_like kernels static_cast it to T: an integer toward zero, a bool nonzero, and on
    x86-64 NaN, +-inf and values outside the type INT_MIN (narrower types keep the low bits:
    full(uint8, 300) is 44; operands.c_int_cast; checked on 3.0.0 and 3.3.1).  Not only
    exactness: torch.compile's inductor types a full_like by its fill, so a float fill of an
    int64 tensor (bert's token_type_ids, 0.0) reached embedding as float32 indices."""
    if isinstance(value, torch.Tensor) or dtype.is_floating_point or dtype.is_complex:
        return value
    return c_int_cast(value, dtype)


def check_fill_range(op: str, value, dtype: torch.dtype):
    """FullLikeKernel's range check: a finite value outside [lowest, max] of an integer or
    bool T, both sides as float (std::common_type<float, T>), is refused; NaN and +-inf
    pass, and the cast makes them INT_MIN."""
    if isinstance(value, torch.Tensor) or dtype.is_floating_point or dtype.is_complex:
        return
    v = float(value)
    info = (0, 1) if dtype == torch.bool else (torch.iinfo(dtype).min, torch.iinfo(dtype).max)
    lo, hi = (float(np.float32(b)) for b in info)
    if math.isfinite(v) and not lo <= float(np.float32(v)) <= hi:
        raise ValueError(f"{op}: the filled value {value} is out of range for "
                         f"{str(dtype).removeprefix('torch.')}, whose range is {info[0]} to "
                         f"{info[1]} (Paddle's InvalidArgument)")


@REGISTRY.register("pd_op.full_", since=1)
def full_(output, *, shape=(), value=0.0, dtype=torch.float32, place="cpu"):
    # fills `output` in place: the result is a fresh full tensor of the attributes' shape and
    # dtype (the buffer it reuses holds nothing the result keeps)
    return full(shape=shape, value=value, dtype=dtype, place=place)


@REGISTRY.register("pd_op.full_int_array", since=1)
def full_int_array(*, value=(), dtype=torch.float32, place="cpu"):
    return torch.tensor(list(value), dtype=dtype or torch.int64)


@REGISTRY.register("pd_op.full_like", since=1)
def full_like(x, value=0.0, *, dtype=None, place="undefined"):
    dtype = dtype or x.dtype
    check_fill_range("full_like", value, dtype)
    if isinstance(value, torch.Tensor):
        # Keep the value in the graph (nan_to_num feeds it from another op); expand keeps -0.0.
        return value.reshape(()).to(dtype).expand(x.shape).clone()
    return torch.full_like(x, fill_value(value, dtype), dtype=dtype)


@specializer(full_like)
def _full_like_call(site):
    """A number fill: the kernel's range check and cast taken once, here; torch.full_like
    with the cast number remains (BERT's position and token-type ids, two calls on every
    run that spent most of their time in Python).  A value out of range keeps the kernel,
    which refuses it when it runs, as before.  A bool fill stays the kernel call: that is the
    form npu_scaled_masked_softmax's specialiser reads as a mask fixed when the module is
    lowered (npu/ops.py, `_nothing_masked`)."""
    value, dtype = site.p["value"], site.p["dtype"] or site.dtype(site.p["x"])
    if type(value) not in (bool, int, float) or dtype in (None, torch.bool):
        return None
    try:
        check_fill_range("full_like", value, dtype)
    except ValueError:
        return None
    return site.call(torch.full_like, site.p["x"], fill_value(value, dtype), dtype=dtype)


@REGISTRY.register("pd_op.arange", since=1)
def arange(start=0, end=None, step=1, *, dtype=torch.float64, place="cpu"):
    start, end, step = number(start), number(end), number(step)
    return running_sum(start, step, range_size("arange", start, end, step), dtype)


def range_size(op: str, start, end, step) -> int:
    """funcs::GetSize: step 0 is refused; a step away from end gives 0 elements; else
    ceil(|(end - start) / step|) (integers: (|end - start| + |step| - 1) / |step|).  A
    non-finite count (a NaN or infinite bound) is refused too: the C++ casts it to int64's
    minimum and the output's allocation fails."""
    if step == 0:
        raise ValueError(f"{op}: the step of range op should not be 0 (Paddle's "
                         f"InvalidArgument)")
    if (start < end and step < 0) or (start > end and step > 0):
        return 0
    if all(isinstance(v, int) for v in (start, end, step)):
        return (abs(end - start) + abs(step) - 1) // abs(step)
    count = abs((end - start) / step)
    if not math.isfinite(count):
        raise ValueError(f"{op}: start {start}, end {end} and step {step} give no finite "
                         f"number of elements (Paddle's kernel cannot allocate the output)")
    return math.ceil(count)


def running_sum(start, step, count: int, dtype) -> torch.Tensor:
    """start, start + step, ... (count values) as phi's ArangeKernel makes them: step added
    to a running value of the output type, so element i is not start + i*step (numpy's
    cumsum is sequential)."""
    np_dtype = torch.empty(0, dtype=dtype).numpy().dtype
    steps = np.full(count, step, dtype=np_dtype)
    if count:
        steps[0] = start
    return torch.from_numpy(np.cumsum(steps, dtype=np_dtype))


@REGISTRY.register("pd_op.assign_value_", since=1)
def assign_value_(output=None, *, shape=(), dtype=torch.float32, values=(), place="undefined"):
    # The `output` operand only names the buffer Paddle writes into; the value comes from
    # the attributes.
    dtype = dtype or (output.dtype if output is not None else torch.float32)
    return torch.tensor(list(values), dtype=dtype).reshape(list(shape))


@REGISTRY.register("pd_op.assign_value", since=1)
def assign_value(*, shape=(), dtype=torch.float32, values=(), place="undefined"):
    return assign_value_(None, shape=shape, dtype=dtype, values=values, place=place)


@REGISTRY.register("pd_op.assign_out_", since=1)
def assign_out_(x, output):
    # Writes x into `output`'s buffer: the value is a copy of x.
    return x.clone()


@REGISTRY.register("pd_op.fill", since=1)
def fill(x, value=0.0):
    # FillKernel: a NaN value is refused (any dtype); then static_cast<T>, with no range
    # check (Paddle 3.3.1: fill(int32, 3e9) is INT_MIN, fill(uint8, 300) is 44)
    v = number(value)
    if isinstance(v, float) and v != v:
        raise ValueError("fill: fill value should not be NaN, but received NaN (Paddle's "
                         "InvalidArgument)")
    return torch.full_like(x, fill_value(v, x.dtype))


@REGISTRY.register("pd_op.empty", since=1)
def empty(shape=(), *, dtype=torch.float32, place="cpu"):
    # Paddle leaves the values undefined too.
    return torch.empty(int_list(shape), dtype=dtype or torch.float32)


@REGISTRY.register("pd_op.empty_like", since=1)
def empty_like(x, *, dtype=None, place="undefined"):
    return torch.empty_like(x, dtype=dtype or x.dtype)


@REGISTRY.register("pd_op.eye", since=1)
def eye(num_rows=0, num_columns=-1, *, dtype=torch.float32, place="cpu"):
    rows, cols = int(number(num_rows)), int(number(num_columns))
    return torch.eye(rows, rows if cols == -1 else cols, dtype=dtype or torch.float32)


@REGISTRY.register("pd_op.tril_indices", since=1)
def tril_indices(*, rows=0, cols=0, offset=0, dtype=torch.int64, place="cpu"):
    return torch.tril_indices(rows, cols, offset, dtype=dtype or torch.int64)


@REGISTRY.register("pd_op.triu_indices", since=1)
def triu_indices(*, row=0, col=0, offset=0, dtype=torch.int64, place="cpu"):
    return torch.triu_indices(row, col, offset, dtype=dtype or torch.int64)


def _np_dtype(dtype):
    return torch.empty(0, dtype=dtype).numpy().dtype


def _symmetric_steps(start, stop, num):
    """phi's linspace / logspace exponents, in double: start + step*i for the first half,
    stop - step*(num-1-i) for the rest, with start and stop already in the output dtype."""
    if num == 1:
        return np.array([start], dtype=np.float64)
    step = float(np.float64(stop - start)) / (num - 1)
    i = np.arange(num, dtype=np.float64)
    half = num // 2
    return np.where(np.arange(num) < half, start + step * i, stop - step * (num - i - 1))


def _in_dtype(value, np_dtype):
    return np.array(number(value)).astype(np_dtype)[()]


@REGISTRY.register("pd_op.linspace", since=1)
def linspace(start, stop, number_, *, dtype=torch.float32, place="cpu"):
    num = int(number(number_))
    np_dtype = _np_dtype(dtype)
    if num == 0:
        return torch.empty(0, dtype=dtype)
    values = _symmetric_steps(_in_dtype(start, np_dtype), _in_dtype(stop, np_dtype), num)
    return torch.from_numpy(values.astype(np_dtype))


@REGISTRY.register("pd_op.logspace", since=1)
def logspace(start, stop, num, base, *, dtype=torch.float32, place="cpu"):
    # std::pow(base, exponent) in double (the exponent is double), then cast to the dtype.
    np_dtype = _np_dtype(dtype)
    base = np.float64(_in_dtype(base, np_dtype))
    exps = _symmetric_steps(_in_dtype(start, np_dtype), _in_dtype(stop, np_dtype),
                            int(number(num)))
    return torch.from_numpy(np.power(base, exps).astype(np_dtype))


_ARITHMETIC = {
    "pirc.lower.kernels.compare": ("equal", "greater_than", "less_than", "logical_and"),
    "pirc.lower.kernels.elementwise": ("add", "multiply", "divide", "maximum", "maximum_v1",
                                       "minimum", "minimum_v1", "scale", "clip", "where"),
}


@specializer(full)
def _full_constant(site):
    """A small full read only by arithmetic and comparisons becomes a buffer, made once by the
    kernel.  Those users always return a new tensor; any other (an output, a view, a cast that
    may return its input, a control-flow operand) could hand the module's own tensor to a
    caller or a loop, so there it stays a torch.full call on every run."""
    shape = site.p["shape"]
    if not (isinstance(shape, (list, tuple)) and all(type(d) is int for d in shape)):
        return None
    shape = list(shape)
    # one element made by the kernel: its dtype and its value converted to it
    one = full(shape=[1], value=site.p["value"], dtype=site.p["dtype"], place=site.p["place"])
    users = list(site.node.users)
    shared = users and math.prod(shape) <= 4096 and all(
        u.op == "call_function" and getattr(u.target, "__name__", None)
        in _ARITHMETIC.get(getattr(u.target, "__module__", None), ()) for u in users)
    node = None
    if shared:
        node = site.buffer(full(shape=shape, value=site.p["value"], dtype=site.p["dtype"],
                                place=site.p["place"]), "const_" + site.node.name)
    if node is None:  # a fresh tensor on every call, as the kernel makes it
        node = site.call(torch.full, shape, one.item(), dtype=one.dtype)
    return node
