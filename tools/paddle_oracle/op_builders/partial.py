"""Builders of the partial ops over a list of 2-D [batch, D] tensors: partial_concat joins
each input's columns [start_index, start_index + length) side by side, partial_sum adds
them. Neither has a PIR Python builder (paddle._C_ops' are eager-only): both go through the
old-IR translator."""
import numpy as np
import paddle

from old_ir_op import old_ir_op, results

from . import boundary, op


def _partial(kind, xs, start, length):
    return results(old_ir_op(kind, {"X": xs}, {"Out": 1},
                             {"start_index": start, "length": length}))


def _inputs(f):
    a, b, c = f("a", [3, 5]), f("b", [3, 5]), f("c", [3, 5])
    bd = boundary()[:20].reshape(4, 5)
    p, q = f("p", [4, 5], value=bd), f("q", [4, 5], value=bd[::-1].copy())
    d1, d2 = f("d1", [2, 4], "float64"), f("d2", [2, 4], "float64")
    i1, i2 = f("i1", [2, 3], "int64", lo=-9, hi=9), f("i2", [2, 3], "int64", lo=-9, hi=9)
    return a, b, c, p, q, d1, d2, i1, i2


@op("partial_concat")
def _partial_concat(f):
    a, b, c, p, q, d1, d2, i1, i2 = _inputs(f)
    outs = []
    for xs, start, length in (([a, b], 0, -1), ([a, b, c], 1, 2), ([a], 4, 1), ([a, c], -2, -1),
                              ([a, b], -5, 3), ([p, q], 0, -1), ([d1, d2], 1, 3), ([i1, i2], 2, 1)):
        outs += _partial("partial_concat", xs, start, length)
    return outs, {}


@op("partial_sum")
def _partial_sum(f):
    a, b, c, p, q, d1, d2, i1, i2 = _inputs(f)
    z = f("z", [4, 5], value=np.full([4, 5], -0.0, "float32"))
    outs = []
    # the kernel adds into zeros: -0 alone gives +0; NaN, Inf and overflow as float adds them
    for xs, start, length in (([a, b], 0, -1), ([a, b, c], 1, 2), ([a], 4, 1), ([z], 0, -1),
                              ([p, q], 0, -1), ([p, p, q], 2, -1), ([d1, d2], 1, 3),
                              ([i1, i2], 0, 3)):
        outs += _partial("partial_sum", xs, start, length)
    return outs, {}
