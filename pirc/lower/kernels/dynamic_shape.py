"""Ops that read or make shapes at run time: shape, shape64, shape_broadcast, expand,
full_with_tensor, full_batch_size_like, uniform_random_batch_size_like, and arange's form for
a runtime bound (tril / triu, which build a causal mask of a runtime length, are in
manipulation.py and shape-agnostic).

Their shape operands arrive as Python ints (symbolic ints under torch.export /
torch.compile) when the lowering could follow the shape arithmetic that made them
(pirc/lower/shape_values.py), else as int tensors (operands.int_list reads them).  Kernels
compare a dim only when it is a plain int, so a symbolic one is never specialised.
"""

from __future__ import annotations

import torch

from ...runtime.registry import REGISTRY
from ..shape_values import is_int_node
from ..specialize import specializer
from . import creation
from .creation import check_fill_range, fill_value
from .operands import int_list


def _shape_tensor(dims, dtype):
    """The dims as a 1-D tensor.  A symbolic dim (under torch.export / torch.compile: a feed's
    dynamic dim, or a size computed from the data such as nonzero's row count inside a
    while body) is a 0-d `full` each: torch.tensor would have to read it as a number."""
    if all(type(d) is int for d in dims):
        return torch.tensor(dims, dtype=dtype)
    return torch.stack([torch.full((), d, dtype=dtype) for d in dims])


@REGISTRY.register("pd_op.shape", since=1)
def shape(input):  # noqa: A002 - Paddle's operand name
    # int32, as phi's ShapeKernel writes it; a 0-d input gives an empty 1-D tensor
    return _shape_tensor(tuple(input.shape), torch.int32)


@REGISTRY.register("pd_op.shape64", since=1)
def shape64(input):  # noqa: A002
    return _shape_tensor(tuple(input.shape), torch.int64)


@REGISTRY.register("pd_op.shape_broadcast", since=1)
def shape_broadcast(x, y):
    """The broadcast of two shapes (ElementwiseInferMeta), in x's dtype."""
    dims = torch.broadcast_shapes(tuple(int_list(x)), tuple(int_list(y)))
    return torch.tensor(dims, dtype=x.dtype)


@REGISTRY.register("pd_op.expand", since=1)
def expand(x, shape=()):
    # -1 keeps the input's dim, as torch's expand; Paddle's result is a new tensor, not a view.
    return x.expand(int_list(shape)).clone()


@REGISTRY.register("pd_op.full_with_tensor", since=1)
def full_with_tensor(value, shape=(), *, dtype=torch.float32):
    """phi's FullWithTensorKernel: the one element of `value` converted to `dtype`
    (static_cast: truncation for ints, nonzero for bool), filled to `shape`."""
    dtype = dtype or value.dtype
    return value.reshape(()).to(dtype).expand(int_list(shape)).clone()


def _batch_shape(input, shape, input_dim_idx, output_dim_idx):
    dims = list(shape)
    dims[output_dim_idx] = input.shape[input_dim_idx]
    return dims


def _fill_value(value, dtype):
    # FullBatchSizeLikeKernel is FullLikeKernel: its range check, then static_cast<T>
    check_fill_range("full_batch_size_like", value, dtype)
    return fill_value(value, dtype)


@REGISTRY.register("pd_op.full_batch_size_like", since=1)
def full_batch_size_like(input, *, shape=(), dtype=torch.float32, value=0.0,  # noqa: A002
                         input_dim_idx=0, output_dim_idx=0, place="cpu"):
    """`shape` with dim output_dim_idx taken from input's dim input_dim_idx, filled."""
    dtype = dtype or torch.float32
    return torch.full(_batch_shape(input, shape, input_dim_idx, output_dim_idx),
                      _fill_value(value, dtype), dtype=dtype)


@REGISTRY.register("pd_op.uniform_random_batch_size_like", since=1)
def uniform_random_batch_size_like(input, *, shape=(), input_dim_idx=0,  # noqa: A002
                                   output_dim_idx=0, min=-1.0, max=1.0,  # noqa: A002
                                   seed=0, diag_num=0, diag_step=0, diag_val=1.0,
                                   dtype=torch.float32):
    """Uniform in [min, max) of the batch-sized shape; then, as Paddle's kernel, the flat
    elements i * diag_step + i for i < diag_num set to diag_val.  The seed is not Paddle's
    generator: compared by distribution."""
    dtype = dtype or torch.float32
    out = torch.empty(_batch_shape(input, shape, input_dim_idx, output_dim_idx), dtype=dtype)
    out.uniform_(min, max)
    if diag_num > 0:
        flat = out.view(-1)
        for i in range(diag_num):
            flat[i * diag_step + i] = diag_val
    return out




# -- arange as one torch call ----------------------------------------------------------

_arange_before = getattr(creation.arange, "specialize", None)

# Integers up to these magnitudes are exact in the dtype (float: the significand's width).
_EXACT_UP_TO = {torch.float32: 2 ** 24, torch.float64: 2 ** 53, torch.float16: 2 ** 11,
                torch.bfloat16: 2 ** 8, torch.int32: 2 ** 31 - 1, torch.int64: 2 ** 53}


def _one(value):
    return value[0] if isinstance(value, (list, tuple)) and len(value) == 1 else value


def _integral(value) -> bool:
    return type(value) is int or (type(value) is float and value.is_integer())


@specializer(creation.arange)
def _arange_call(site):
    """arange(start, end, step) of integral values: torch.arange.

    The kernel builds the values with numpy from Python numbers, which torch.export and
    torch.compile cannot trace when a bound is a runtime dim (a symbolic int).  torch.arange
    computes start + i * step where Paddle adds step to a running value; the two agree
    exactly when every value is an integer the dtype holds exactly: integral constants
    within the dtype's exact range, and runtime bounds that are dims (shape_values), taken
    to be so.  Any other arange stays the kernel's (or the creation module's specialiser's)."""
    start, end, step = (_one(site.p[k]) for k in ("start", "end", "step"))
    dtype = site.p["dtype"] or torch.float64
    limit = _EXACT_UP_TO.get(dtype)
    constants = [v for v in (start, end, step) if not is_int_node(v)]
    if limit is None or is_int_node(step) or step == 0 \
            or not all(_integral(v) and abs(v) <= limit for v in constants):
        return _arange_before(site) if _arange_before is not None else None
    start, end, step = (v if is_int_node(v) else int(v) for v in (start, end, step))
    return site.call(torch.arange, start, end, step, dtype=dtype)
