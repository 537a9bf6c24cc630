"""Comparisons and logical ops: results are bool tensors, inputs broadcast like numpy."""

from __future__ import annotations

import torch

from ...runtime.registry import REGISTRY
from ..specialize import specializer
from .operands import number


def _float_equal(x, y):
    """phi EqualFunctor for floats: exact where either side is +-inf (tested as float),
    false where either is NaN, else |x - y| < 1e-8 (the difference taken in x's type, then
    in double): 0 equals the denormals and float64 1 equals 1 + 1e-9."""
    if not (x.is_floating_point() and y.is_floating_point()):
        return torch.eq(x, y)
    inf = torch.isinf(x.to(torch.float32)) | torch.isinf(y.to(torch.float32))
    nan = torch.isnan(x) | torch.isnan(y)
    close = (x - y).to(torch.float64).abs() < 1e-8
    return torch.where(inf, torch.eq(x, y), close & ~nan)


@REGISTRY.register("pd_op.equal", since=1)
def equal(x, y):
    return _float_equal(x, y)


@REGISTRY.register("pd_op.greater_than", since=1)
def greater_than(x, y):
    return torch.gt(x, y)


@REGISTRY.register("pd_op.less_than", since=1)
def less_than(x, y):
    return torch.lt(x, y)


@REGISTRY.register("pd_op.logical_and", since=1)
def logical_and(x, y):
    return torch.logical_and(x, y)  # non-bool inputs: nonzero is true, result bool


@REGISTRY.register("pd_op.isnan", since=1)
def isnan(x):
    return torch.isnan(x)


@REGISTRY.register("pd_op.greater_equal", since=1)
def greater_equal(x, y):
    return torch.ge(x, y)


@REGISTRY.register("pd_op.less_equal", since=1)
def less_equal(x, y):
    return torch.le(x, y)


@REGISTRY.register("pd_op.not_equal", since=1)
def not_equal(x, y):
    return ~_float_equal(x, y)  # phi NotEqualFunctor is !EqualFunctor


@REGISTRY.register("pd_op.logical_or", since=1)
def logical_or(x, y):
    return torch.logical_or(x, y)


@REGISTRY.register("pd_op.logical_xor", since=1)
def logical_xor(x, y):
    return torch.logical_xor(x, y)


@REGISTRY.register("pd_op.bitwise_and", since=1)
def bitwise_and(x, y):
    return torch.bitwise_and(x, y)


@REGISTRY.register("pd_op.bitwise_or", since=1)
def bitwise_or(x, y):
    return torch.bitwise_or(x, y)


@REGISTRY.register("pd_op.bitwise_xor", since=1)
def bitwise_xor(x, y):
    return torch.bitwise_xor(x, y)


def _bits(t):
    return torch.iinfo(t.dtype).bits


@REGISTRY.register("pd_op.bitwise_left_shift", since=1)
def bitwise_left_shift(x, y, *, is_arithmetic=True):
    # phi BitwiseLeftShift*Functor (both modes): a shift below 0 or of the width or more is 0
    bits = _bits(x)
    ok = (y >= 0) & (y < bits)
    return torch.where(ok, x << y.clamp(0, bits - 1), torch.zeros_like(x))


@REGISTRY.register("pd_op.bitwise_right_shift", since=1)
def bitwise_right_shift(x, y, *, is_arithmetic=True):
    """phi BitwiseRightShift*Functor. Arithmetic: a shift out of [0, width) gives the sign
    (-1 or 0). Logical: such a shift gives 0, and a signed x shifts in zeros (x >> y with the
    sign-extended bits masked off, logic_shift_func)."""
    bits = _bits(x)
    ok = (y >= 0) & (y < bits)
    s = y.clamp(0, bits - 1)
    shifted = x >> s
    if is_arithmetic:
        return torch.where(ok, shifted, torch.where(x < 0, -1, 0).to(x.dtype))
    if x.dtype != torch.uint8:
        top = bits - 1
        shifted = shifted ^ ((((x >> top) << top) >> s) << 1)
    return torch.where(ok, shifted, torch.zeros_like(x))


def _close(x, y, rtol, atol, equal_nan):
    """phi IscloseFunctor / AllCloseKernel, element by element: |a - b| in the input type
    against atol + rtol * |b| computed in double and rounded to it, or a difference of the
    two of at most 1e-15; NaNs are close only to NaN and only with equal_nan."""
    rtol, atol = float(number(rtol)), float(number(atol))
    left = (x - y).abs()
    right = (atol + rtol * y.to(torch.float64).abs()).to(x.dtype)
    diff = (left - right).abs()
    val = (x == y) | (left <= right) | (diff.to(torch.float64) <= 1e-15)
    nan_x, nan_y = torch.isnan(x), torch.isnan(y)
    either = nan_x | nan_y
    return torch.where(either, (nan_x == nan_y) & equal_nan, val)


@REGISTRY.register("pd_op.isclose", since=1)
def isclose(x, y, rtol, atol, *, equal_nan=False):
    return _close(x, y, rtol, atol, equal_nan)


@REGISTRY.register("pd_op.allclose", since=1)
def allclose(x, y, rtol, atol, *, equal_nan=False):
    return _close(x, y, rtol, atol, equal_nan).all()


@REGISTRY.register("pd_op.equal_all", since=1)
def equal_all(x, y):
    # a 0-d bool: false when the shapes differ, else every element equal (NaN != NaN)
    if x.shape != y.shape:
        return torch.tensor(False)
    return torch.eq(x, y).all()


# Specialisations (pirc.lower.specialize): the torch call itself.
for _kernel, _torch_fn in ((greater_than, torch.gt), (less_than, torch.lt)):
    specializer(_kernel)(lambda site, _fn=_torch_fn: site.call(_fn, site.p["x"], site.p["y"]))


@specializer(equal)
def _equal_call(site):
    dx, dy = site.dtype(site.p["x"]), site.dtype(site.p["y"])
    if dx is None or dy is None or dx.is_floating_point or dy.is_floating_point:
        return None  # floats compare with Paddle's 1e-8 tolerance (the kernel)
    return site.call(torch.eq, site.p["x"], site.p["y"])
