"""Builders of the LoD (level-of-detail) sequence ops: sequence_conv, sequence_expand,
sequence_pool, sequence_softmax and the in-place lod_reset_. Their CPU kernels read the
sequence boundaries a fluid LoDTensor carries; a tensor fed to a PIR program carries none,
so each is tried on plain inputs and records what Paddle raises. lod_reset_ has no Python
builder: the old-IR translator emits it for a fluid lod_reset whose output is its input."""
import paddle

from old_ir_op import old_ir_op, results

from . import op
from .legacy import _LOD

C = paddle._C_ops


@op("lod_reset_", expect="a LoD-only op: without a LoD input the kernel fails ('The current "
                         "MetaTensor is not initialized')")
def _lod_reset_(f):
    x = f("x", [4, 3])
    y = paddle.scale(x, 1.0)
    return results(old_ir_op("lod_reset", {"X": [y]}, {"Out": 1},
                             {"target_lod": [0, 1, 4], "append": False}, inplace={"Out": "X"})), {}


@op("sequence_conv", expect=_LOD)
def _sequence_conv(f):
    x, w = f("x", [5, 2]), f("w", [6, 3])
    return [C.sequence_conv(x, None, w, 3, False, -1, 1)], {}


@op("sequence_expand", expect=_LOD)
def _sequence_expand(f):
    x, y = f("x", [3, 2]), f("y", [5, 2])
    return [C.sequence_expand(x, y, -1)], {}


@op("sequence_pool", expect=_LOD)
def _sequence_pool(f):
    x = f("x", [5, 3])
    return [C.sequence_pool(x, True, "AVERAGE", 0.0)[0]], {}


@op("sequence_softmax", expect=_LOD)
def _sequence_softmax(f):
    x = f("x", [5, 1])
    return [C.sequence_softmax(x)], {}
