"""Shape and layout ops: assign, reshape, flatten, (un)squeeze, transpose, concat, stack, split,
split_with_num, unbind, tile, expand_as, slice, strided_slice, repeat_interleave.

Paddle's conventions that torch lacks are written out here: reshape's 0 (copy the input's
dim), slice's clamping and decrease_axis, negative strides in strided_slice, squeeze that
ignores listed axes whose size is not 1.
"""

from __future__ import annotations

import math
import operator

import torch

from ...runtime.registry import REGISTRY
from ..shape_values import is_int_node
from ..specialize import specializer
from .operands import axis_of, int_list


@REGISTRY.register("pd_op.assign", since=1)
def assign(x):
    # A copy, as Paddle's assign kernel makes: the result never aliases its input, so an
    # in-place op on one cannot change the other.
    return x.clone()


@REGISTRY.register("pd_op.reshape", since=1)
def reshape(x, shape=()):
    dims = int_list(shape)
    # 0 copies the input's dim at the same index; -1 is inferred.  Only a plain int is
    # compared: a symbolic dim (torch.export, torch.compile) is a size, never Paddle's 0.
    dims = [x.shape[i] if type(d) is int and d == 0 else d for i, d in enumerate(dims)]
    return torch.reshape(x, dims)


@REGISTRY.register("pd_op.flatten", since=1)
def flatten(x, *, start_axis=1, stop_axis=1):
    if x.dim() == 0:
        return x.reshape(1)
    return torch.flatten(x, start_axis, stop_axis)


@REGISTRY.register("pd_op.squeeze", since=1)
def squeeze(x, axis=()):
    axes = int_list(axis)
    if not axes:
        return torch.squeeze(x)
    rank = x.dim()
    # Paddle drops only the listed axes of size 1 and ignores the others.
    drop = {a + rank if a < 0 else a for a in axes}
    keep = [s for i, s in enumerate(x.shape) if not (i in drop and s == 1)]
    return x.reshape(keep)


@REGISTRY.register("pd_op.unsqueeze", since=1)
def unsqueeze(x, axis=()):
    out = x
    for a in int_list(axis):  # inserted one after another, each against the current rank
        out = torch.unsqueeze(out, a + out.dim() + 1 if a < 0 else a)
    return out


@REGISTRY.register("pd_op.transpose", since=1)
def transpose(x, *, perm=()):
    # Paddle's transpose writes a new dense tensor.  A permuted view would reach a matmul
    # (or conv) as a strided operand, and torch then sums in another order than on the
    # same values laid out densely (a folded constant): results differ in the last bit.
    return x.permute(list(perm)).contiguous() if x.dim() else x


@REGISTRY.register("pd_op.concat", since=1)
def concat(x, axis=0):
    return torch.cat(list(x), axis_of(axis, x[0].dim()))


@REGISTRY.register("pd_op.stack", since=1)
def stack(x, *, axis=0):
    return torch.stack(list(x), axis)


@REGISTRY.register("pd_op.split", since=1)
def split(x, sections=(), axis=0):
    dim = axis_of(axis, x.dim())
    sizes = int_list(sections)
    inferred = [type(s) is int and s == -1 for s in sizes]  # a symbolic size is never -1
    if any(inferred):  # one section may be inferred from the rest
        known = sum(s for s, i in zip(sizes, inferred) if not i)
        sizes = [x.shape[dim] - known if i else s for s, i in zip(sizes, inferred)]
    return list(torch.split(x, sizes, dim))


@REGISTRY.register("pd_op.split_with_num", since=1)
def split_with_num(x, axis=0, *, num=1):
    dim = axis_of(axis, x.dim())
    size = x.shape[dim]
    # Paddle's SplitWithNumInferMeta refuses a dim that `num` does not divide (torch.chunk
    # would silently make a shorter last part).
    if num <= 0 or size % num:
        raise ValueError(f"split_with_num: dim {dim} of size {size} cannot be split into "
                         f"{num} equal parts")
    return list(torch.split(x, size // num, dim))


@REGISTRY.register("pd_op.unbind", since=1)
def unbind(input, *, axis=0):  # noqa: A002 - Paddle's operand name
    return list(torch.unbind(input, axis))


@REGISTRY.register("pd_op.tile", since=1)
def tile(x, repeat_times=()):
    return torch.tile(x, int_list(repeat_times))  # shorter lists are padded with 1s in front


@REGISTRY.register("pd_op.expand_as", since=1)
def expand_as(x, y=None, *, target_shape=()):
    shape = list(y.shape) if y is not None else list(target_shape)
    return x.expand(shape).clone()


@REGISTRY.register("pd_op.slice", since=1)
def slice_(input, starts=(), ends=(), *, axes=(), infer_flags=(), decrease_axis=()):  # noqa: A002
    index = [slice(None)] * input.dim()
    for axis, start, end in zip(axes, int_list(starts), int_list(ends)):
        # Python slicing clamps negative and out-of-range bounds exactly as Paddle does.
        index[axis] = slice(start, end)
    out = input[tuple(index)]
    if decrease_axis:
        drop = {a + input.dim() if a < 0 else a for a in decrease_axis}
        out = out.reshape([s for i, s in enumerate(out.shape) if i not in drop])
    return out


@REGISTRY.register("pd_op.strided_slice", since=1)
def strided_slice(x, starts=(), ends=(), strides=(), *, axes=()):
    out = x
    for axis, start, end, step in zip(axes, int_list(starts), int_list(ends), int_list(strides)):
        axis = axis + x.dim() if axis < 0 else axis
        if step > 0:
            index = [slice(None)] * x.dim()
            index[axis] = slice(start, end, step)
            out = out[tuple(index)]
        else:
            # torch has no negative steps: take the indices Python's slice would.
            first, stop = _negative_step_bounds(start, end, out.shape[axis])
            picked = torch.arange(first, stop, step, dtype=torch.int64, device=out.device)
            out = out.index_select(axis, picked)
    return out


def _negative_step_bounds(start, end, size):
    """slice(start, end, step < 0).indices(size)'s start and stop, written out so that a
    symbolic start, end or size (torch.export) stays symbolic: a negative bound counts from
    the end, then the start is clamped to [-1, size - 1] and the stop to [-1, size - 1]."""
    start = start + size if start < 0 else start
    end = end + size if end < 0 else end
    start = -1 if start < 0 else (size - 1 if start >= size else start)
    end = -1 if end < 0 else (size - 1 if end >= size else end)
    return start, end


# output_size (PIR version 3 on) only tells Paddle the result length in advance.
@REGISTRY.register("pd_op.repeat_interleave", since=1)
def repeat_interleave(x, *, repeats=1, axis=0, output_size=-1):
    return torch.repeat_interleave(x, int(repeats), dim=axis)


@REGISTRY.register("pd_op.repeat_interleave_with_tensor_index", since=1)
def repeat_interleave_with_tensor_index(x, repeats, *, axis=0, output_size=-1):
    return torch.repeat_interleave(x, repeats.reshape(-1).to(torch.int64), dim=axis)


# -- specialisations (pirc.lower.specialize): shapes and indices resolved from the static types --

def _int_list_or_none(value):
    if isinstance(value, (list, tuple)) and all(type(v) is int for v in value):
        return list(value)
    if type(value) is int:
        return [value]
    return None


@specializer(reshape)
def _reshape_call(site):
    x, dims = site.p["x"], _int_list_or_none(site.p["shape"])
    if dims is None:
        dims = site.p["shape"]
        if isinstance(dims, list) and dims and all(type(d) is int or is_int_node(d) for d in dims) \
                and not any(type(d) is int and d == 0 for d in dims):
            # runtime dims (shape_values): torch.reshape takes them as they are
            return site.call(torch.reshape, x, dims)
        return None
    shape = site.shape(x)
    if 0 in dims and (shape is None or any(d == 0 and i >= len(shape) for i, d in enumerate(dims))):
        return None
    if 0 in dims and all(shape[i] >= 0 for i, d in enumerate(dims) if d == 0):
        # 0 copies the input's dim, static here
        dims = [shape[i] if d == 0 else d for i, d in enumerate(dims)]
    elif 0 in dims and -1 not in dims \
            and sum(1 for i, d in enumerate(dims) if d == 0 and shape[i] < 0) == 1:
        # one copied dim is dynamic and nothing is inferred: -1 infers exactly that dim
        dims = [(-1 if shape[i] < 0 else shape[i]) if d == 0 else d for i, d in enumerate(dims)]
    elif 0 in dims:
        return _copied_prefix_reshape(site, x, dims, shape)
    return site.call(torch.reshape, x, dims)


def _copied_prefix_reshape(site, x, dims, shape):
    """[0, 0, 4, 16] on [-1, -1, 64] (heads split off a dynamic batch and sequence) or
    [0, 0, 64] on [-1, -1, 4, 16] (merged back): the copied dims a prefix, the rest static.
    Splitting the one dim after the prefix is `unflatten` (always a view, the strides reshape
    gives), merging the dims after it is `flatten` (reshape's own view-or-copy)."""
    k = next(i for i, d in enumerate(dims) if d != 0) if any(d != 0 for d in dims) else len(dims)
    rest, tail = dims[k:], shape[k:]
    if (any(d == 0 for d in rest) or any(d < 0 for d in rest) or not tail
            or any(d < 0 for d in tail) or math.prod(rest) != math.prod(tail)):
        return None
    if len(rest) == 1:
        return site.call(torch.flatten, x, k)
    if len(tail) == 1:
        return site.method("unflatten", x, k, tuple(rest))
    return None


@specializer(concat)
def _concat_call(site):
    """torch.cat on the static axis: the kernel's own call without its Python frame (the
    rotate-half of a rotary embedding, twice a LLaMA block)."""
    x, axis = site.p["x"], site.p["axis"]
    if type(axis) is not int or not isinstance(x, (list, tuple)) or not x:
        return None
    rank = site.rank(x[0])
    if not rank:
        return None
    return site.call(torch.cat, list(x), axis_of(axis, rank))


@specializer(unsqueeze)
def _unsqueeze_call(site):
    """Several axes ([1, 2]: BERT's mask to [B, 1, 1, S]) in one reshape to the final shape
    (inserting size-1 dims is always a view, as each unsqueeze is), a dynamic dim read from
    x's shape (Python, no torch call)."""
    x = site.p["x"]
    axes, shape = _int_list_or_none(site.p["axis"]), site.shape(x)
    if axes is None or shape is None or len(axes) < 2:
        return None
    size = None
    out = []
    for i, d in enumerate(shape):
        if d < 0:
            size = size or site.call(getattr, x, "shape")
            d = site.call(operator.getitem, size, i)
        out.append(d)
    for a in axes:  # the kernel's order: each axis against the current rank
        out.insert(a + len(out) + 1 if a < 0 else a, 1)
    return site.call(torch.reshape, x, out)


@specializer(flatten)
def _flatten_call(site):
    x = site.p["x"]
    if not site.rank(x):
        return None
    return site.call(torch.flatten, x, site.p["start_axis"], site.p["stop_axis"])


@specializer(transpose)
def _transpose_call(site):
    """Where the static shape says the permuted view cannot be dense (two dims of static size
    > 1 change order: a head split or merge), `permute_copy`: the same dense copy as
    permute + contiguous in one torch call (2.4 against 3.2 us on [1, 32, 4, 16]).  Elsewhere
    contiguous() may hand back the view itself, no copy, and with a dynamic dim that is 1 at
    run time that view's strides (in the size-1 dim) differ from a fresh copy's: kept."""
    x = site.p["x"]
    if not site.rank(x):
        return None
    perm = list(site.p["perm"])
    if _reorders_static_dims(site.shape(x), perm):
        return site.call(torch.permute_copy, x, perm)
    return site.method("contiguous", site.call(torch.permute, x, perm))


def _reorders_static_dims(shape, perm) -> bool:
    """True when two dims of x with static size > 1 come out of `perm` in the other order."""
    rank = len(shape)
    moved = [d + rank if d < 0 else d for d in perm if shape[d] > 1]
    return moved != sorted(moved)


@specializer(slice_)
def _slice_call(site):
    """One index expression: a dim sliced to one element and dropped (decrease_axis) is an
    integer index when its size is static; the other dims are Python slices, which clamp as
    Paddle does."""
    x = site.p["input"]
    shape = site.shape(x)
    starts, ends = _int_list_or_none(site.p["starts"]), _int_list_or_none(site.p["ends"])
    if shape is None or starts is None or ends is None:
        return None
    rank = len(shape)
    index = [slice(None)] * rank
    sliced = {}
    for axis, start, end in zip(site.p["axes"], starts, ends):
        axis = axis + rank if axis < 0 else axis
        index[axis] = slice(start, end)
        sliced[axis] = (start, end)
    drop = {a + rank if a < 0 else a for a in site.p["decrease_axis"]}
    if any(a not in sliced for a in drop):
        return None
    if any(shape[a] < 0 for a in drop):
        return _sliced_then_reshaped(site, x, shape, index, sliced, drop)
    for axis in drop:
        start, end = sliced[axis]
        picked = range(shape[axis])[slice(start, end)]
        if len(picked) != 1:
            return None  # the kernel's reshape reports what Paddle would refuse
        index[axis] = picked[0]
    return site.call(operator.getitem, x, _trimmed(index))


def _trimmed(index):
    """x[0] rather than x[0, :, :], and x[..., 0:8] rather than x[:, :, :, 0:8] (a
    rotate-half; torch parses one Ellipsis faster than the full slices, 1.5 against 2.0 us):
    the same view."""
    index = list(index)
    lead = next((i for i, s in enumerate(index) if s != slice(None)), len(index))
    if 0 < lead and index[-1] != slice(None):
        return (Ellipsis, *index[lead:])
    while index and index[-1] == slice(None):
        index.pop()
    return index[0] if len(index) == 1 else tuple(index)


def _sliced_then_reshaped(site, x, shape, index, sliced, drop):
    """A dropped dim of dynamic size (BERT's pooler: [:, 0:1] of [-1, -1, 64]): the kernel's
    own two steps, the slice and the reshape to the kept dims (so a size other than one
    fails as it does), with the kept sizes known here as numbers and the others read from
    the slice's shape in Python; no kernel frame, no index building on every run."""
    out = site.call(operator.getitem, x, _trimmed(index))
    size, dims = None, []
    for i, d in enumerate(shape):
        if i in drop:
            continue
        if d >= 0 and i in sliced:
            d = len(range(d)[slice(*sliced[i])])
        elif d < 0:
            size = size or site.call(getattr, out, "shape")
            d = site.call(operator.getitem, size, i)
        dims.append(d)
    return site.call(torch.reshape, out, dims)
