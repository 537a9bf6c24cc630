"""Builders of programs with dynamic (-1) feed dims: what `paddle.jit.save` and
`save_inference_model` emit when a batch or sequence size is only known at run time
(shape / shape64 read it, slice / stack / scale compute with it, and reshape, expand, full,
arange, slice, tile, split take it as a tensor operand).

Each builder names `alt`: the feeds at a second size; gen_op_fixtures runs the loaded program
on them too and stores `in2__<feed>` / `out2__<i>` beside the first size's, so that
tests/unit/test_dynamic_shapes.py checks one lowered module at both sizes.
"""
import paddle
import paddle.nn.functional as F  # noqa: F401

from . import op


def _b(x):
    return paddle.shape(x)[0]


def _t(x):
    return paddle.shape(x)[1]


@op("shape__dyn", alt={"x": [5, 3, 4], "y": [3, 7, 8]})
def _shape(f):
    x = f("x", [2, 3, 4], dyn=[-1, 3, 4])
    y = f("y", [2, 5, 8], dyn=[-1, -1, 8])
    z = f("z", [0, 3])
    s = f("s", [])
    sx = paddle._C_ops.shape(x)
    return [sx, paddle._C_ops.shape(y), paddle._C_ops.shape(z), paddle._C_ops.shape(s),
            sx[0], sx[1:], sx * 2 + 1], {}


@op("shape64__dyn", alt={"x": [5, 3, 4], "y": [3, 7, 8]})
def _shape64(f):
    x = f("x", [2, 3, 4], dyn=[-1, 3, 4])
    y = f("y", [2, 5, 8], dyn=[-1, -1, 8])
    z = f("z", [0, 3])
    sy = paddle._C_ops.shape64(y)
    return [paddle._C_ops.shape64(x), sy, paddle._C_ops.shape64(z), sy[0] * sy[1],
            sy[1] - 1, sy[-1], paddle.cast(sy, "int32")], {}


@op("reshape__dyn", alt={"x": [5, 3, 4], "y": [3, 7, 8]})
def _reshape(f):
    x = f("x", [2, 3, 4], dyn=[-1, 3, 4])
    y = f("y", [2, 5, 8], dyn=[-1, -1, 8])
    b, t = _b(y), _t(y)
    shape_t = paddle.concat([paddle.shape(x)[0:1], paddle.to_tensor([12], "int64")])
    return [paddle.reshape(x, [0, -1]), paddle.reshape(x, [-1, 4]),
            paddle.reshape(x, [_b(x), 12]), paddle.reshape(x, shape_t),
            paddle.reshape(y, [0, 0, 2, 4]), paddle.reshape(y, [b * t, 8]),
            paddle.reshape(y, [b, t, 2, -1]), paddle.reshape(y, [-1, 8])], {}


@op("expand__dyn", alt={"x": [5, 3, 4], "y": [5, 1, 4]})
def _expand(f):
    x = f("x", [2, 3, 4], dyn=[-1, 3, 4])
    y = f("y", [2, 1, 4], dyn=[-1, 1, 4])
    one = paddle.full([1, 4], 0.5, "float32")
    return [paddle.expand(one, [_b(x), 4]), paddle.expand(y, [-1, 3, 4]),
            paddle.expand(y, [_b(x), 3, 4]), paddle.expand_as(y, x),
            paddle.broadcast_to(y, paddle.shape(x)),
            paddle.expand(paddle.cast(y, "int32"), paddle.shape(x))], {}


@op("slice__dyn", alt={"x": [3, 7, 8]})
def _slice(f):
    x = f("x", [2, 5, 8], dyn=[-1, -1, 8])
    t = _t(x)
    return [x[:, : t - 1], x[:, 1:], x[-1], x[:, -2:], x[:, :, 2:5],
            paddle.slice(x, [1], [0], [t - 2]),
            paddle.slice(x, [0, 1], [_b(x) - 1, 1], [_b(x), t])], {}


@op("strided_slice__dyn", alt={"x": [3, 7, 8]})
def _strided_slice(f):
    x = f("x", [2, 5, 8], dyn=[-1, -1, 8])
    t = _t(x)
    return [paddle.strided_slice(x, axes=[1], starts=[0], ends=[t], strides=[2]),
            paddle.strided_slice(x, axes=[1, 2], starts=[1, 0], ends=[t - 1, 8], strides=[2, 3]),
            paddle.strided_slice(x, axes=[1], starts=[-1], ends=[-t - 1], strides=[-1])], {}


@op("full_with_tensor__dyn", alt={"x": [3, 7, 8]})
def _full_with_tensor(f):
    x = f("x", [2, 5, 8], dyn=[-1, -1, 8])
    b, t = _b(x), _t(x)
    return [paddle.zeros([b, 3]), paddle.full([b, t], 1.5), paddle.ones(paddle.shape(x), "int64"),
            paddle.full([t], -0.0, "float64"), paddle.full([b, 2], True, "bool")], {}


@op("full_like__dyn", alt={"x": [3, 7, 8]})
def _full_like(f):
    x = f("x", [2, 5, 8], dyn=[-1, -1, 8])
    return [paddle.full_like(x, 2.0), paddle.zeros_like(x), paddle.ones_like(x, "int32"),
            paddle.full_like(x, 0.5, "float64")], {}


@op("arange__dyn", alt={"x": [3, 7, 8]})
def _arange(f):
    x = f("x", [2, 5, 8], dyn=[-1, -1, 8])
    b, t = _b(x), _t(x)
    return [paddle.arange(t), paddle.arange(0, b * 3, 2), paddle.arange(1, t, dtype="int32"),
            paddle.arange(t, dtype="float32"), paddle.arange(t, 0, -1)], {}


@op("flatten__dyn", alt={"x": [5, 3, 4], "y": [3, 7, 8]})
def _flatten(f):
    x = f("x", [2, 3, 4], dyn=[-1, 3, 4])
    y = f("y", [2, 5, 8], dyn=[-1, -1, 8])
    return [paddle.flatten(x, 1), paddle.flatten(y, 0, 1), paddle.flatten(y, 1, 2),
            paddle.flatten(y)], {}


@op("transpose__heads", alt={"x": [3, 7, 8]})
def _heads(f):
    """An attention head split and merge with dynamic batch and sequence."""
    x = f("x", [2, 5, 8], dyn=[-1, -1, 8])
    q = paddle.reshape(x, [0, 0, 2, 4]).transpose([0, 2, 1, 3])
    b, t = _b(x), _t(x)
    k = paddle.reshape(x, [b, t, 2, 4]).transpose([0, 2, 3, 1])
    merged = q.transpose([0, 2, 1, 3]).reshape([0, 0, 8])
    merged2 = paddle.reshape(q.transpose([0, 2, 1, 3]), [b, t, -1])
    return [q, k, merged, merged2], {}


@op("tril__causal", alt={"x": [3, 7, 8]})
def _causal(f):
    """A causal mask of the runtime sequence length."""
    x = f("x", [2, 5, 8], dyn=[-1, -1, 8])
    t = _t(x)
    ones = paddle.ones([t, t])
    mask = paddle.tril(ones)
    bias = (1.0 - mask) * -1e9
    return [mask, paddle.tril(ones, -1), paddle.triu(ones, 1), bias,
            paddle.tril(paddle.ones([t, t], "bool"))], {}


@op("tile__dyn", alt={"x": [3, 7, 8]})
def _tile(f):
    x = f("x", [2, 5, 8], dyn=[-1, -1, 8])
    one = paddle.full([1, 8], 0.25, "float32")
    return [paddle.tile(one, [_b(x), 1]), paddle.tile(x, [1, 2, 1]),
            paddle.tile(one, [_b(x), _t(x)])], {}


@op("split__dyn", alt={"x": [3, 7, 8]})
def _split(f):
    x = f("x", [2, 5, 8], dyn=[-1, -1, 8])
    t = _t(x)
    a = paddle.split(x, [2, -1], axis=2)
    c = paddle.split(x, [1, -1], axis=1)
    d = paddle.split(x, [t - 1, 1], axis=1)
    e = paddle.split(x, 2, axis=2)
    return [*a, *c, *d, *e], {}


@op("full_batch_size_like__dyn", alt={"x": [5, 3, 4]})
def _full_batch_size_like(f):
    x = f("x", [2, 3, 4], dyn=[-1, 3, 4])
    place = paddle.CPUPlace()
    return [paddle._C_ops.full_batch_size_like(x, [1, 5], paddle.float32, 3.5, 0, 0, place),
            paddle._C_ops.full_batch_size_like(x, [7, 1], paddle.int64, -2, 0, 1, place),
            paddle._C_ops.full_batch_size_like(x, [2, 9], paddle.float64, 1.0, 2, 1, place)], {}


@op("uniform_random_batch_size_like__dyn", random=True, alt={"x": [300, 3, 4]})
def _uniform_random_batch_size_like(f):
    x = f("x", [200, 3, 4], dyn=[-1, 3, 4])
    return [paddle._C_ops.uniform_random_batch_size_like(x, [1, 6], 0, 0, -1.0, 1.0, 0, 0, 0,
                                                         1.0, paddle.float32),
            paddle._C_ops.uniform_random_batch_size_like(x, [8, 1], 0, 1, 2.0, 3.0, 0, 0, 0,
                                                         1.0, paddle.float64)], {}


@op("shape_broadcast__dyn", expect="Paddle's Python API has no shape_broadcast (only PIR "
                                     "decompositions emit it); _C_ops.shape_broadcast is missing")
def _shape_broadcast(f):
    x = f("x", [2, 3, 4], dyn=[-1, 3, 4])
    y = f("y", [2, 1, 4], dyn=[-1, 1, 4])
    return [paddle._C_ops.shape_broadcast(paddle.shape(x), paddle.shape(y))], {}
