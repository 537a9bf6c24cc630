"""How each op const-fold folds computes, in numpy, with the numbers pirc's kernel (and
phi's) gives; a rule returns None where it is not sure, and the op stays.

A rule names what each operand must be: `const` (a constant op's value: the rule gets the
array), `vec` (a `builtin.combine` of constants: a list of arrays), `type` (any value of a
fully static type: the rule gets (shape, dtype)) or `any` (not read).  The pass checks the
result against the op's static result type, so a rule may trust numpy's broadcasting.

Numerics, each as the kernel does it:

* add, subtract, multiply: both operands and the result of one dtype (no promotion: Paddle
  3.x's promotion rules differ by op and version), float32 / float64 / int32 / int64,
  rounded once in that dtype as IEEE does (numpy and torch agree bit for bit); integers wrap;
* divide: floats only (an integer divide runs in float32 in Paddle and pirc, and by zero it
  is no number to fold);
* scale: `x * s + b` (or `(x + b) * s`), s and b rounded to x's float dtype first, two
  roundings, as pirc's kernel and phi's EigenScale;
* cast: to a float from any handled dtype, rounded to nearest (the semantics since PIR
  version 3; version 1's float32 -> float16 truncates, so the pass declares version 3 only);
  to an integer from a float only when every value is finite and in range (else C's cast is
  undefined); float16 only from float32 (torch rounds a Double through float);
* reshape, transpose, concat, stack, slice: data movement, exact;
* full_like: the fill value converted as the kernel converts it (through a 0-D tensor);
* shape / shape64: the static dims as int32 / int64.
"""

from __future__ import annotations

from typing import Callable, NamedTuple

from ...ir.attrs import scalar_value
from .constants import FLOATS, INTEGERS, tensor_info

ARITHMETIC = ("float32", "float64", "int32", "int64")


class Rule(NamedTuple):  # not a frozen dataclass: several times cheaper to create at import
    operands: tuple[str, ...]   # const | vec | type | any, per operand
    fold: Callable              # (op, args, np) -> array | None


def _same_dtype(*arrays, allowed=ARITHMETIC) -> bool:
    dtype = arrays[0].dtype
    return dtype.name in allowed and all(a.dtype == dtype for a in arrays)


def _binary(fn: str, allowed=ARITHMETIC) -> Rule:
    def fold(op, args, np):
        x, y = args
        if not _same_dtype(x, y, allowed=allowed):
            return None
        return np.asarray(getattr(np, fn)(x, y))
    return Rule(("const", "const"), fold)


def _scale(op, args, np):
    x, s = args
    if x.dtype.name not in ("float32", "float64") or s.size != 1:
        return None
    scale = s.reshape(()).astype(x.dtype)
    bias = np.asarray(float(scalar_value(op.attributes["bias"]))).astype(x.dtype)
    if scalar_value(op.attributes["bias_after_scale"]):
        return np.asarray(x * scale + bias)
    return np.asarray((x + bias) * scale)


def _cast(op, args, np):
    (x,) = args
    target = op.attributes["dtype"].data
    source = x.dtype.name
    if target == "float16":
        return x.astype(target) if source == "float32" else None
    if target in FLOATS:
        return x.astype(target)
    if target not in INTEGERS:
        return None
    if source in FLOATS:
        info = np.iinfo(target)
        if not np.isfinite(x).all() or (x.size and (np.trunc(x).min() < info.min
                                                     or np.trunc(x).max() > info.max)):
            return None
    return x.astype(target)


def _reshape(op, args, np):
    info = tensor_info(op.results[0].type)
    x = args[0]
    return None if info is None or x.size != _count(info[0]) else x.reshape(info[0])


def _transpose(op, args, np):
    (x,) = args
    perm = [scalar_value(p) for p in op.attributes["perm"].data]
    if x.ndim == 0:
        return x
    if sorted(p % x.ndim for p in perm) != list(range(x.ndim)):
        return None
    return np.ascontiguousarray(np.transpose(x, [p % x.ndim for p in perm]))


def _axis(a, rank: int):
    if a.size != 1 or a.dtype.name not in INTEGERS:
        return None
    axis = int(a.reshape(()))
    return axis + rank if -rank <= axis < 0 else axis if 0 <= axis < rank else None


def _concat(op, args, np):
    xs, axis = args
    if not xs or not _same_dtype(*xs, allowed=ARITHMETIC) or xs[0].ndim == 0:
        return None
    axis = _axis(axis, xs[0].ndim)
    if axis is None or any(x.ndim != xs[0].ndim for x in xs):
        return None
    return np.concatenate(xs, axis=axis)


def _stack(op, args, np):
    (xs,) = args
    if not xs or not _same_dtype(*xs, allowed=ARITHMETIC) or any(x.shape != xs[0].shape for x in xs):
        return None
    axis = scalar_value(op.attributes["axis"])
    rank = xs[0].ndim + 1
    if not -rank <= axis < rank:
        return None
    return np.stack(xs, axis=axis % rank)


def _slice(op, args, np):
    x, starts, ends = args
    axes = [scalar_value(a) for a in op.attributes["axes"].data]
    if starts.dtype.name not in INTEGERS or ends.dtype.name not in INTEGERS \
            or starts.size != len(axes) or ends.size != len(axes) or x.ndim == 0:
        return None
    index = [slice(None)] * x.ndim
    for axis, start, end in zip(axes, starts.reshape(-1).tolist(), ends.reshape(-1).tolist()):
        if not -x.ndim <= axis < x.ndim:
            return None
        index[axis % x.ndim] = slice(start, end)  # Python clamps as Paddle does
    out = x[tuple(index)]
    drop = {a % x.ndim for a in (scalar_value(d) for d in op.attributes["decrease_axis"].data)}
    if drop:
        out = out.reshape([s for i, s in enumerate(out.shape) if i not in drop])
    return np.array(out, order="C")  # a copy; np.ascontiguousarray would make 0-D 1-D


def _full_like(op, args, np):
    (shape, _), value = args
    info = tensor_info(op.results[0].type)
    if info is None or value.size != 1:
        return None
    target = info[1]
    v = value.reshape(())
    if target in INTEGERS and value.dtype.name in FLOATS:
        limits = np.iinfo(target)
        if not np.isfinite(v) or not limits.min <= np.trunc(v) <= limits.max:
            return None
    if target == "float16" and value.dtype.name != "float32":
        return None
    return np.full(shape, v.astype(target), dtype=target)


def _shape(dtype: str) -> Rule:
    def fold(op, args, np):
        ((shape, _),) = args
        return np.array(shape, dtype=dtype) if shape else None
    return Rule(("type",), fold)


def _count(shape) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


RULES: dict[str, Rule] = {
    "pd_op.add": _binary("add"),
    "pd_op.subtract": _binary("subtract"),
    "pd_op.multiply": _binary("multiply"),
    "pd_op.divide": _binary("divide", allowed=("float32", "float64")),
    "pd_op.scale": Rule(("const", "const"), _scale),
    "pd_op.cast": Rule(("const",), _cast),
    "pd_op.reshape": Rule(("const", "any"), _reshape),
    "pd_op.transpose": Rule(("const",), _transpose),
    "pd_op.concat": Rule(("vec", "const"), _concat),
    "pd_op.stack": Rule(("vec",), _stack),
    "pd_op.slice": Rule(("const", "const", "const"), _slice),
    "pd_op.full_like": Rule(("type", "const"), _full_like),
    "pd_op.shape": _shape("int32"),
    "pd_op.shape64": _shape("int64"),
}
