"""Builders of the ops of FORMAT-NOTES section 7 (the first per-op fixtures), plus the two ops
common API calls emit beside them (depthwise_conv2d, split_with_num)."""
import numpy as np
import paddle
import paddle.nn.functional as F

from . import INF, Feeds, arr, op  # noqa: F401

@op("add")
def _add(f):
    x, y, b = f("x", [2, 3, 4]), f("y", [4]), f("b", [2, 1, 4])
    i, j = f("i", [2, 3], "int32", -50, 50), f("j", [3], "int32", -50, 50)
    k = f("k", [2, 3], "int64", -9, 9)
    s = f("s", [])
    z = f("z", [0, 4])
    return [x + y, b + paddle.reshape(y, [1, 4]) + x, i + j, k + k, x + s, z + y], {}


@op("multiply")
def _multiply(f):
    x, y = f("x", [2, 3, 4]), f("y", [3, 1])
    i, j = f("i", [2, 3], "int32", -50, 50), f("j", [2, 3], "int64", -9, 9)
    s = f("s", [])
    return [x * y, i * i, j * j, x * s, paddle.multiply(s, s)], {}


@op("divide")
def _divide(f):
    x, y = f("x", [2, 3, 4]), f("y", [4])
    i = f("i", [2, 6], "int32", -50, 50)
    d = f("d", [2, 6], "int32", 1, 7)
    e = f("e", [2, 6], "int64", -7, -1)
    return [x / y, paddle.divide(i, d), paddle.divide(i.astype("int64"), e),
            x / paddle.full([], 0.0, "float32")], {}


@op("addmm")
def _addmm(f):
    inp, x, y, b = f("inp", [2, 3]), f("x", [2, 4]), f("y", [4, 3]), f("b", [3])
    return [paddle.addmm(inp, x, y), paddle.addmm(inp, x, y, beta=0.5, alpha=2.0),
            paddle.addmm(b, x, y, beta=-1.0, alpha=0.3)], {}


@op("baddbmm")
def _baddbmm(f):
    inp, x, y = f("inp", [2, 3, 5]), f("x", [2, 3, 4]), f("y", [2, 4, 5])
    return [paddle.baddbmm(inp, x, y), paddle.baddbmm(inp, x, y, beta=0.5, alpha=2.0)], {}


@op("arange")
def _arange(f):
    x = f("x", [5])
    return [paddle.arange(5, dtype="float32") + x, paddle.arange(0, 10, 3, "int64"),
            paddle.arange(1.0, 2.0, 0.25, "float32"), paddle.arange(5, 0, -2, "int32"),
            paddle.arange(0.0, 1.0, 0.1, "float64"), paddle.arange(3, 3, 1, "int64")], {}


@op("argmax")
def _argmax(f):
    x = f("x", [3, 4, 5])
    i = f("i", [3, 6], "int32", 0, 3)          # ties: the first index wins
    return [paddle.argmax(x), paddle.argmax(x, axis=1), paddle.argmax(x, axis=-1, keepdim=True),
            paddle.argmax(x, axis=0, dtype="int32"), paddle.argmax(i, axis=1)], {}


@op("assign_value_")
def _assign_value(f):
    x = f("x", [2, 3])
    a = paddle.assign(np.array([[1.5, -2.0, 3.25], [0.1, 0.2, 0.3]], "float32"))
    return [x + a, paddle.assign(np.array([1, -2, 3], "int32")),
            paddle.assign(np.array([7, 2**40], "int64")),
            paddle.assign(np.array([True, False, True])),
            paddle.assign(np.array([0.1, 1e-300], "float64"))], {}


@op("batch_norm_")
def _batch_norm(f):
    x = f("x", [2, 3, 4, 5])
    xh = f("xh", [2, 4, 5, 3])
    m = f("m", [3])
    v = f("v", [3], value=(np.abs(arr("batch_norm_", "v", [3])) + 0.5).astype("float32"))
    w, b = f("w", [3]), f("b", [3])
    return [F.batch_norm(x, m, v, w, b, training=False, epsilon=1e-5),
            F.batch_norm(x, m, v, None, None, training=False, epsilon=1e-3),
            F.batch_norm(xh, m, v, w, b, training=False, data_format="NHWC")], {}


def _interp_inputs(f, nd):
    shape = {3: [2, 3, 5], 4: [2, 3, 4, 5], 5: [1, 2, 3, 4, 5]}[nd]
    return f("x", shape)


@op("bilinear_interp")
def _bilinear(f):
    x = _interp_inputs(f, 4)
    xh = f("xh", [2, 4, 5, 3])
    return [F.interpolate(x, size=[7, 9], mode="bilinear", align_corners=False),
            F.interpolate(x, size=[7, 9], mode="bilinear", align_corners=True),
            F.interpolate(x, size=[3, 8], mode="bilinear", align_corners=False, align_mode=1),
            F.interpolate(x, scale_factor=1.5, mode="bilinear"),
            F.interpolate(x, scale_factor=[2.0, 0.5], mode="bilinear"),
            F.interpolate(xh, size=[6, 7], mode="bilinear", data_format="NHWC")], {}


@op("bicubic_interp")
def _bicubic(f):
    x = _interp_inputs(f, 4)
    return [F.interpolate(x, size=[7, 9], mode="bicubic", align_corners=False),
            F.interpolate(x, size=[3, 8], mode="bicubic", align_corners=True),
            F.interpolate(x, scale_factor=2.0, mode="bicubic")], {}


@op("nearest_interp")
def _nearest(f):
    x = _interp_inputs(f, 4)
    xh = f("xh", [2, 4, 5, 3])
    return [F.interpolate(x, size=[7, 9], mode="nearest"),
            F.interpolate(x, size=[3, 3], mode="nearest"),
            F.interpolate(x, scale_factor=2.0, mode="nearest"),
            F.interpolate(x, scale_factor=[1.5, 0.6], mode="nearest"),
            F.interpolate(xh, size=[8, 10], mode="nearest", data_format="NHWC")], {}


@op("linear_interp")
def _linear(f):
    x = _interp_inputs(f, 3)
    return [F.interpolate(x, size=[9], mode="linear", data_format="NCW"),
            F.interpolate(x, size=[9], mode="linear", align_corners=True, data_format="NCW"),
            F.interpolate(x, size=[4], mode="linear", align_mode=1, data_format="NCW"),
            F.interpolate(x, scale_factor=1.7, mode="linear", data_format="NCW")], {}


@op("trilinear_interp")
def _trilinear(f):
    x = _interp_inputs(f, 5)
    return [F.interpolate(x, size=[4, 6, 7], mode="trilinear"),
            F.interpolate(x, size=[4, 6, 7], mode="trilinear", align_corners=True),
            F.interpolate(x, size=[2, 3, 9], mode="trilinear", align_mode=1),
            F.interpolate(x, scale_factor=2.0, mode="trilinear")], {}


@op("cast")
def _cast(f):
    x = f("x", [3, 4]) * 3
    i = f("i", [3, 4], "int32", -300, 300)
    b = f("b", [3, 4], "bool")
    return [paddle.cast(x, "int32"), paddle.cast(x, "bool"), paddle.cast(x, "float64"),
            paddle.cast(x, "float16"), paddle.cast(i, "float32"), paddle.cast(i, "int8"),
            paddle.cast(i, "uint8"), paddle.cast(b, "int64"), paddle.cast(b, "float32"),
            paddle.cast(i, "bool")], {}


@op("clip")
def _clip(f):
    x = f("x", [3, 4])
    i = f("i", [3, 4], "int32", -10, 10)
    return [paddle.clip(x, -0.5, 0.7), paddle.clip(x, min=0.1), paddle.clip(x, max=-0.2),
            paddle.clip(i, -3, 4)], {}


@op("concat")
def _concat(f):
    x, y = f("x", [2, 3]), f("y", [2, 4])
    i = f("i", [2, 3], "int64", -5, 5)
    outs = [paddle.concat([x, y], axis=1), paddle.concat([x, x, x], axis=0),
            paddle.concat([x, y], axis=-1), paddle.concat([i, i], axis=0)]
    if not gf.PADDLE_VERSION.startswith("3.0."):
        # 3.0.0's save_inference_model drops a zero-size operand of concat and then refuses
        # the feed that made it ("not involved in the target_vars calculation")
        outs.append(paddle.concat([x, f("z", [0, 3])], axis=0))
    return outs, {}


@op("conv2d")
def _conv2d(f):
    x = f("x", [2, 4, 9, 9])
    xh = f("xh", [2, 9, 9, 4])
    return [paddle.nn.Conv2D(4, 6, 3)(x),
            paddle.nn.Conv2D(4, 6, 3, stride=2, padding=1, groups=2)(x),
            paddle.nn.Conv2D(4, 8, 3, dilation=2, padding=[1, 2], groups=2, bias_attr=False)(x),
            paddle.nn.Conv2D(4, 3, [2, 3], padding="SAME", stride=2)(x),
            paddle.nn.Conv2D(4, 3, 3, padding="VALID")(x),
            paddle.nn.Conv2D(4, 5, 3, padding=1, data_format="NHWC")(xh)], {}


@op("depthwise_conv2d", extra=True)
def _depthwise_conv2d(f):
    """Not in FORMAT-NOTES section 7, but what nn.Conv2D emits when groups == in_channels."""
    x = f("x", [2, 4, 9, 9])
    return [paddle.nn.Conv2D(4, 4, 3, groups=4)(x),
            paddle.nn.Conv2D(4, 8, 3, dilation=2, padding=[1, 2], groups=4, bias_attr=False)(x)], {}


@op("cumsum")
def _cumsum(f):
    x = f("x", [3, 4])
    i = f("i", [3, 4], "int32", -9, 9)
    return [paddle.cumsum(x, axis=1), paddle.cumsum(x), paddle.cumsum(x, axis=0, dtype="float64"),
            paddle.cumsum(i, axis=-1),
            paddle._C_ops.cumsum(x, 1, False, True, False),     # exclusive
            paddle._C_ops.cumsum(x, 1, False, False, True),     # reverse
            paddle._C_ops.cumsum(x, 0, False, True, True)], {}  # exclusive + reverse


@op("dropout")
def _dropout(f):
    x = f("x", [3, 4])
    return [F.dropout(x, 0.5, training=False),
            F.dropout(x, 0.3, training=False, mode="downscale_in_infer"),
            F.dropout(x, 0.0, training=False)], {}


@op("dropout__train", random=True, train_dropout=True)
def _dropout_train(f):
    x = f("x", [32, 32], value=np.ones((32, 32), "float32"))
    return [F.dropout(x, 0.25, training=True),
            F.dropout(x, 0.5, training=True, mode="downscale_in_infer")], {}


@op("einsum")
def _einsum(f):
    a, b = f("a", [3, 4]), f("b", [4, 5])
    p, q = f("p", [2, 3, 4]), f("q", [2, 5, 4])
    v, w = f("v", [3]), f("w", [4])
    s = f("s", [4, 4])
    return [paddle.einsum("ij,jk->ik", a, b), paddle.einsum("bij,bkj->bik", p, q),
            paddle.einsum("i,j->ij", v, w), paddle.einsum("ij->ji", a),
            paddle.einsum("ij->", a), paddle.einsum("ii->i", s),
            paddle.einsum("bij,jk->bik", p, paddle.transpose(b, [0, 1]))], {}


@op("elu")
def _elu(f):
    x = f("x", [3, 4]) * 2
    return [F.elu(x), F.elu(x, alpha=0.3), F.elu(x, alpha=2.0)], {}


def _cmp(f, fn):
    x, y = f("x", [3, 4]), f("y", [4])
    i, j = f("i", [3, 4], "int32", -2, 2), f("j", [3, 4], "int32", -2, 2)
    k = f("k", [3, 4], "int64", -2, 2)
    return [fn(x, y), fn(i, j), fn(k, k), fn(x, x), fn(x, paddle.full([], 0.0, "float32"))], {}


@op("equal")
def _equal(f):
    return _cmp(f, paddle.equal)


@op("greater_than")
def _greater(f):
    return _cmp(f, paddle.greater_than)


@op("less_than")
def _less(f):
    return _cmp(f, paddle.less_than)


@op("exp")
def _exp(f):
    x = f("x", [3, 4]) * 3
    return [paddle.exp(x), paddle.exp(x * 40.0), paddle.exp(paddle.cast(x, "float64"))], {}


@op("expand_as")
def _expand_as(f):
    x, y = f("x", [3, 1]), f("y", [2, 3, 4])
    i = f("i", [1, 4], "int32", -5, 5)
    return [paddle.expand_as(x, y), paddle.expand_as(i, y), paddle.expand_as(y, y * 2.0)], {}


@op("flatten")
def _flatten(f):
    x = f("x", [2, 3, 4, 5])
    return [paddle.flatten(x), paddle.flatten(x, 1), paddle.flatten(x, 1, 2),
            paddle.flatten(x, -2, -1), paddle.flatten(f("s", []))], {}


@op("full")
def _full(f):
    x = f("x", [2, 3])
    return [x + paddle.full([2, 3], 1.5), paddle.full([], 3, "int64"),
            paddle.full([2, 2], -1, "int32"), paddle.full([3], True, "bool"),
            paddle.full([2], 0.1, "float64"), paddle.full([0, 3], 1.0),
            paddle.full([2], 2.5, "float16")], {}


@op("full_int_array")
def _full_int_array(f):
    x = f("x", [2, 3, 4])
    # shapes and slice bounds are full_int_array operands
    return [paddle.reshape(x, [4, 6]), paddle.slice(x, [1, 2], [1, 0], [3, 2]),
            paddle.tile(x, [1, 2, 1])], {}


@op("full_like")
def _full_like(f):
    x = f("x", [2, 3])
    i = f("i", [2, 3], "int32", 0, 5)
    return [paddle.full_like(x, 2.5), paddle.zeros_like(i), paddle.ones_like(x, "bool"),
            paddle.full_like(i, 7, "int64"), paddle.full_like(x, float("inf"))], {}


@op("gaussian", random=True)
def _gaussian(f):
    x = f("x", [32, 32])
    return [x * 0.0 + paddle.randn([32, 32]),
            paddle.normal(mean=1.0, std=2.0, shape=[32, 32]),
            paddle.tensor.random.gaussian([32, 32], mean=-3.0, std=0.5, seed=7)], {}


@op("uniform", random=True)
def _uniform(f):
    x = f("x", [32, 32])
    return [x * 0.0 + paddle.rand([32, 32]),
            paddle.uniform([32, 32], min=-2.0, max=3.0, seed=5),
            paddle.uniform([32, 32], "float64", min=0.5, max=0.75)], {}


@op("gelu")
def _gelu(f):
    x = f("x", [3, 4]) * 3
    return [F.gelu(x), F.gelu(x, approximate=True)], {}


@op("group_norm")
def _group_norm(f):
    x = f("x", [2, 6, 3, 4])
    return [paddle.nn.GroupNorm(3, 6)(x), paddle.nn.GroupNorm(2, 6, epsilon=1e-3)(x),
            F.group_norm(x, 6, epsilon=1e-5, weight=None, bias=None),
            paddle.nn.GroupNorm(1, 6, weight_attr=False, bias_attr=False)(x)], {}


@op("hardtanh")
def _hardtanh(f):
    x = f("x", [3, 4]) * 2
    return [F.hardtanh(x), F.hardtanh(x, -0.3, 0.7)], {}


@op("isnan")
def _isnan(f):
    v = arr("isnan", "x", [3, 4])
    v[0, 1], v[2, 3], v[1, 0] = np.nan, np.inf, -np.inf
    x = f("x", [3, 4], value=v)
    return [paddle.isnan(x), paddle.isnan(paddle.cast(x, "float64"))], {}


@op("kthvalue")
def _kthvalue(f):
    x = f("x", [3, 5, 4])
    i = f("i", [3, 5], "int64", 0, 3)
    return [*paddle.kthvalue(x, 2), *paddle.kthvalue(x, 1, axis=1, keepdim=True),
            *paddle.kthvalue(x, 3, axis=0), *paddle.kthvalue(i, 3, axis=-1)], {}


@op("layer_norm")
def _layer_norm(f):
    x = f("x", [2, 3, 4, 5])
    return [paddle.nn.LayerNorm(5)(x), paddle.nn.LayerNorm([4, 5], epsilon=1e-3)(x),
            F.layer_norm(x, [3, 4, 5]), F.layer_norm(x, 5, epsilon=1e-6)], {}


@op("leaky_relu")
def _leaky_relu(f):
    x = f("x", [3, 4])
    return [F.leaky_relu(x), F.leaky_relu(x, 0.3), F.leaky_relu(x, -1.5)], {}


@op("logical_and")
def _logical_and(f):
    a, b = f("a", [3, 4], "bool"), f("b", [4], "bool")
    i, j = f("i", [3, 4], "int32", -1, 2), f("j", [3, 4], "float32")
    return [paddle.logical_and(a, b), paddle.logical_and(i, i.astype("int32") * 0 + 1),
            paddle.logical_and(j, a.astype("float32"))], {}


@op("logit")
def _logit(f):
    x = f("x", [3, 4], value=arr("logit", "u", [3, 4]).clip(-3, 3) / 6 + 0.5)
    e = f("e", [4], value=np.array([0.0, 1.0, 1e-8, 0.5], "float32"))
    return [paddle.logit(x), paddle.logit(x, eps=0.2), paddle.logit(e, eps=1e-6),
            paddle.logit(e)], {}


@op("lp_pool2d")
def _lp_pool2d(f):
    x = paddle.abs(f("x", [2, 3, 7, 7])) + 0.1
    return [F.lp_pool2d(x, 2, 3), F.lp_pool2d(x, 3, 2, stride=1),
            F.lp_pool2d(x, 1.5, [2, 3], stride=2, ceil_mode=True)], {}


@op("matmul")
def _matmul(f):
    a, b = f("a", [3, 4]), f("b", [4, 5])
    p, q = f("p", [2, 3, 4]), f("q", [5, 4])
    v = f("v", [4])
    i = f("i", [3, 4], "int32", -5, 5)
    return [paddle.matmul(a, b), paddle.matmul(p, q, transpose_y=True),
            paddle.matmul(b, a, True, True),
            paddle.matmul(a, v), paddle.matmul(v, v), paddle.matmul(p, b),
            paddle.matmul(i, i, transpose_y=True)], {}


def _reduce(f, fn, name):
    x = f("x", [2, 3, 4])
    i = f("i", [2, 3, 4], "int32", -9, 9)
    outs = [fn(x), fn(x, axis=1), fn(x, axis=[0, 2]), fn(x, axis=-1, keepdim=True),
            fn(x, axis=[]) if name != "mean" else fn(x, axis=[0, 1, 2], keepdim=True)]
    outs.append(fn(i, axis=1) if name != "mean" else fn(paddle.cast(i, "float32"), axis=1))
    if name == "sum":
        outs += [paddle.sum(i), paddle.sum(x, dtype="float64"),
                 paddle.sum(f("b", [2, 3], "bool"), axis=0), paddle.sum(f("z", [0, 3]), axis=0)]
    return outs, {}


@op("max")
def _max(f):
    return _reduce(f, paddle.max, "max")


@op("mean")
def _mean(f):
    return _reduce(f, paddle.mean, "mean")


@op("sum")
def _sum(f):
    return _reduce(f, paddle.sum, "sum")


@op("one_hot")
def _one_hot(f):
    i = f("i", [2, 3], "int64", 0, 5)
    j = f("j", [4], "int32", 0, 3)
    return [F.one_hot(i, 5), F.one_hot(j, 3), F.one_hot(i, 7)], {}


@op("p_norm")
def _p_norm(f):
    x = f("x", [3, 4])
    return [paddle.linalg.norm(x, p=2, axis=1), paddle.linalg.norm(x, p=1, axis=0),
            paddle.linalg.norm(x, p=INF, axis=1), paddle.linalg.norm(x, p=-INF, axis=1),
            paddle.linalg.norm(x, p=0, axis=1), paddle.linalg.norm(x, p=3, axis=-1, keepdim=True),
            paddle.linalg.vector_norm(x, p=2), paddle.linalg.vector_norm(x, p=0.5)], {}


@op("pad3d")
def _pad3d(f):
    x = f("x", [1, 2, 3, 4, 5])
    y = f("y", [2, 3, 4, 5])
    return [F.pad(x, [1, 2, 0, 1, 2, 0], value=0.5),
            F.pad(x, [1, 2, 0, 1, 2, 0], mode="reflect"),
            F.pad(x, [1, 2, 0, 1, 2, 0], mode="replicate"),
            F.pad(x, [1, 2, 0, 1, 2, 0], mode="circular"),
            F.pad(x, [1, 0, 2, 1, 0, 1], mode="constant", data_format="NDHWC"),
            F.pad(y, [1, 2, 2, 1], mode="reflect")], {}


@op("pool2d")
def _pool2d(f):
    x = f("x", [2, 3, 7, 7])
    xh = f("xh", [2, 7, 7, 3])
    return [F.max_pool2d(x, 2), F.max_pool2d(x, 3, stride=2, padding=1, ceil_mode=True),
            F.avg_pool2d(x, 3, stride=2, padding=1), F.avg_pool2d(x, 3, 2, 1, exclusive=False),
            F.avg_pool2d(x, 2, ceil_mode=True), F.max_pool2d(x, 3, padding="SAME"),
            F.avg_pool2d(x, 3, padding="VALID"), F.adaptive_avg_pool2d(x, [3, 2]),
            F.adaptive_avg_pool2d(x, 1),
            F.max_pool2d(xh, 2, data_format="NHWC"),
            F.avg_pool2d(x, [2, 3], stride=[1, 2], padding=[1, 0])], {}


@op("pool3d")
def _pool3d(f):
    x = f("x", [1, 2, 5, 6, 7])
    return [F.max_pool3d(x, 2), F.avg_pool3d(x, 3, stride=2, padding=1),
            F.avg_pool3d(x, 2, ceil_mode=True, exclusive=False),
            F.adaptive_avg_pool3d(x, [2, 3, 3])], {}


@op("pow")
def _pow(f):
    x = paddle.abs(f("x", [3, 4])) + 0.1
    i = f("i", [3, 4], "int32", -4, 4)
    return [paddle.pow(x, 2.0), paddle.pow(x, 0.5), paddle.pow(x, -1.3), paddle.pow(x, 3),
            paddle.pow(i, 2)], {}


def _unary(f, fn):
    x = f("x", [3, 4]) * 3
    return [fn(x), fn(paddle.cast(x, "float64")), fn(f("s", [])), fn(f("z", [0, 2]))], {}


@op("relu")
def _relu(f):
    return _unary(f, F.relu)


@op("sigmoid")
def _sigmoid(f):
    return _unary(f, F.sigmoid)


@op("tanh")
def _tanh(f):
    return _unary(f, paddle.tanh)


@op("repeat_interleave")
def _repeat_interleave(f):
    x = f("x", [2, 3])
    i = f("i", [4], "int64", 0, 9)
    return [paddle.repeat_interleave(x, 2, axis=1), paddle.repeat_interleave(x, 3, axis=0),
            paddle.repeat_interleave(x, 2), paddle.repeat_interleave(i, 3)], {}


@op("repeat_interleave_with_tensor_index")
def _repeat_interleave_t(f):
    x = f("x", [2, 3])
    r = f("r", [3], value=np.array([1, 0, 2], "int64"))
    r2 = f("r2", [2], value=np.array([2, 1], "int32"))
    return [paddle.repeat_interleave(x, r, axis=1), paddle.repeat_interleave(x, r2, axis=0)], {}


@op("reshape")
def _reshape(f):
    x = f("x", [2, 3, 4])
    i = f("i", [2, 6], "int32", -5, 5)
    return [paddle.reshape(x, [0, -1]), paddle.reshape(x, [-1, 4]), paddle.reshape(x, [4, 0, 2]),
            paddle.reshape(x, [24]), paddle.reshape(i, [3, -1, 2]),
            paddle.reshape(paddle.sum(x), [1, 1]), paddle.reshape(f("s", [1]), [])], {}


@op("scale")
def _scale(f):
    x = f("x", [3, 4])
    i = f("i", [3, 4], "int32", -9, 9)
    return [paddle.scale(x, 2.0, 0.5), paddle.scale(x, 2.0, 0.5, bias_after_scale=False),
            x * 3.0, paddle.scale(i, 3.0, 1.0), paddle.scale(x, 0.0, -1.5)], {}


@op("slice")
def _slice(f):
    x = f("x", [3, 4, 5])
    return [x[:, -1], x[1], x[1:3, :, 2:], x[-2:, 1:-1], paddle.slice(x, [2], [1], [100]),
            x[0, 1, 2], paddle.slice(x, [0, 2], [-100, -3], [2, -1])], {}


@op("strided_slice")
def _strided_slice(f):
    x = f("x", [4, 5, 6])
    return [x[:, 1:3, ::2], x[::-1], x[:, ::-2, 1::3], x[3:0:-2, :, -1:-5:-1],
            paddle.strided_slice(x, [0, 2], [0, 1], [4, 6], [2, 2])], {}


@op("softmax")
def _softmax(f):
    x = f("x", [2, 3, 4]) * 4
    return [F.softmax(x), F.softmax(x, axis=1), F.softmax(x, axis=0),
            F.softmax(paddle.cast(x, "float64"), axis=-1)], {}


@op("softplus")
def _softplus(f):
    x = f("x", [3, 4]) * 10
    return [F.softplus(x), F.softplus(x, beta=2.0, threshold=5.0),
            F.softplus(x, beta=0.5, threshold=30.0)], {}


@op("split")
def _split(f):
    x = f("x", [4, 6])
    b = paddle.split(x, [1, -1, 2], axis=1)
    c = paddle.split(x, [3, 1], axis=0)
    d = paddle.split(x, [2, 2, 2], axis=-1)
    return [*b, *c, *d], {}


@op("split_with_num", extra=True)
def _split_with_num(f):
    """Not in FORMAT-NOTES section 7, but what paddle.split emits for an int."""
    x = f("x", [4, 6])
    return [*paddle.split(x, 2, axis=1), *paddle.split(x, 3, axis=-1)], {}


@op("squeeze")
def _squeeze(f):
    x = f("x", [1, 3, 1, 4])
    return [paddle.squeeze(x), paddle.squeeze(x, 0), paddle.squeeze(x, [0, 2]),
            paddle.squeeze(x, 1), paddle.squeeze(x, -2), paddle.squeeze(f("s", [1]))], {}


@op("unsqueeze")
def _unsqueeze(f):
    x = f("x", [3, 4])
    return [paddle.unsqueeze(x, 0), paddle.unsqueeze(x, -1), paddle.unsqueeze(x, [0, 3]),
            paddle.unsqueeze(f("s", []), 0)], {}


@op("stack")
def _stack(f):
    x, y = f("x", [2, 3]), f("y", [2, 3])
    i = f("i", [2], "int32", 0, 9)
    return [paddle.stack([x, y]), paddle.stack([x, y, x], axis=-1), paddle.stack([i, i], 1),
            paddle.stack([f("s", []), f("t", [])])], {}


@op("unbind")
def _unbind(f):
    x = f("x", [2, 3, 4])
    return [*paddle.unbind(x, 0), *paddle.unbind(x, axis=-1)], {}


@op("tile")
def _tile(f):
    x = f("x", [2, 3])
    i = f("i", [3], "int64", 0, 9)
    return [paddle.tile(x, [2, 1]), paddle.tile(x, [2, 1, 3]), paddle.tile(i, [2]),
            paddle.tile(x, [1])], {}


@op("topk")
def _topk(f):
    x = f("x", [3, 6])
    i = f("i", [3, 6], "int32", 0, 4)
    return [*paddle.topk(x, 2), *paddle.topk(x, 3, axis=0), *paddle.topk(x, 2, largest=False),
            *paddle.topk(i, 3)], {}


@op("transpose")
def _transpose(f):
    x = f("x", [2, 3, 4])
    i = f("i", [2, 3], "int64", 0, 9)
    return [paddle.transpose(x, [2, 0, 1]), paddle.transpose(x, [0, 2, 1]),
            paddle.transpose(i, [1, 0]), paddle.transpose(x, [-1, 0, 1])], {}


@op("where")
def _where(f):
    c = f("c", [3, 4], "bool")
    x, y = f("x", [3, 4]), f("y", [4])
    i, j = f("i", [3, 4], "int32", 0, 9), f("j", [3, 4], "int32", 0, 9)
    return [paddle.where(c, x, y), paddle.where(c, i, j), paddle.where(x > 0, x, 0.0 * x)], {}
