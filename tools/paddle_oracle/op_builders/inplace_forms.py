"""Builders of the in-place ops whose signature differs from their out-of-place twin's (so no
alias is derived for them): full_ fills an existing tensor; add_n_ sums into its first input."""
import numpy as np
import paddle

from . import Feeds, arr, op  # noqa: F401


@op("full_")
def _full_(f):
    x = f("x", [2, 3])
    i = f("i", [4], "int64", 0, 9)
    a = paddle._C_ops.full_(x, [2, 3], 1.5, paddle.float32, paddle.CPUPlace())
    b = paddle._C_ops.full_(i, [4], -7, paddle.int64, paddle.CPUPlace())
    return [a, b], {}


@op("add_n_", expect="no Python entry builds it: Paddle's passes create it from add_n")
def _add_n_(f):
    x, y, z = f("x", [2, 3]), f("y", [2, 3]), f("z", [2, 3])
    return [paddle._C_ops.add_n_([x, y, z])], {}
