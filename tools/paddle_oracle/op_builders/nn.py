"""Builders of the neural-network layer ops beyond section 7: transposed and 3-D convolution,
channel rearrangements (pixel/channel shuffle), max pooling with indices and unpooling,
prelu / maxout / lrn, batch_norm (non-inplace), affine_channel, unfold / fold, temporal_shift,
affine_grid / grid_sample, roi pooling, deformable conv and the detection ops; plus attribute
variants (`OP__variant`) of the already-lowered conv2d, pool2d and *_interp ops."""
import numpy as np
import paddle

from old_ir_op import old_ir_op, results
import paddle.nn.functional as F
from paddle import _C_ops

from . import Feeds, arr, boundary, op  # noqa: F401


# -- transposed and 3-D convolution -------------------------------------------------------------

@op("conv2d_transpose")
def _conv2d_transpose(f):
    x = f("x", [2, 4, 5, 5])
    w = f("w", [4, 3, 3, 3])
    wg = f("wg", [4, 2, 3, 2])
    xh = f("xh", [2, 5, 5, 4])
    xd = f("xd", [1, 2, 4, 4], "float64")
    wd = f("wd", [2, 3, 2, 2], "float64")
    return [F.conv2d_transpose(x, w),
            F.conv2d_transpose(x, w, stride=2, padding=1),
            F.conv2d_transpose(x, w, stride=2, padding=1, output_padding=1),
            F.conv2d_transpose(x, wg, stride=[2, 1], padding=[1, 0], groups=2, dilation=[1, 2]),
            F.conv2d_transpose(x, w, stride=2, output_size=[12, 11]),
            F.conv2d_transpose(x, w, stride=2, padding="SAME"),
            F.conv2d_transpose(x, w, stride=2, padding="VALID"),
            F.conv2d_transpose(x, w, padding=[0, 1, 2, 1]),
            F.conv2d_transpose(xh, w, stride=2, data_format="NHWC"),
            F.conv2d_transpose(xd, wd, stride=3, padding=1)], {}


@op("conv2d_transpose_bias", expect="oneDNN fusion target: the CPU (non-oneDNN) kernel's output "
                                    "args do not match the op (pd_op_to_kernel_pass rejects it)")
def _conv2d_transpose_bias(f):
    x, w, b = f("x", [2, 4, 5, 5]), f("w", [4, 3, 3, 3]), f("b", [3])
    return [_C_ops.conv2d_transpose_bias(x, w, b, [1, 1], [0, 0], [], [], "EXPLICIT", 1,
                                         [1, 1], "NCHW"),
            _C_ops.conv2d_transpose_bias(x, w, b, [2, 2], [1, 1], [1, 1], [], "EXPLICIT", 1,
                                         [1, 1], "NCHW")], {}


@op("depthwise_conv2d_transpose")
def _depthwise_conv2d_transpose(f):
    x, w = f("x", [2, 4, 5, 5]), f("w", [4, 1, 3, 3])
    return [F.conv2d_transpose(x, w, groups=4),
            F.conv2d_transpose(x, w, stride=2, padding=1, groups=4),
            F.conv2d_transpose(x, w, stride=2, padding=1, output_padding=1, groups=4,
                               dilation=2)], {}


@op("conv3d")
def _conv3d(f):
    x = f("x", [1, 4, 5, 6, 5])
    w = f("w", [3, 4, 3, 3, 3])
    wg = f("wg", [4, 2, 2, 3, 2])
    xh = f("xh", [1, 5, 6, 5, 4])
    return [F.conv3d(x, w), F.conv3d(x, w, stride=2, padding=1),
            F.conv3d(x, wg, stride=[1, 2, 1], padding=[1, 0, 1], groups=2, dilation=[2, 1, 1]),
            F.conv3d(x, w, stride=2, padding="SAME"), F.conv3d(x, w, padding="VALID"),
            F.conv3d(x, w, padding=[0, 1, 1, 0, 2, 1]),
            F.conv3d(xh, w, padding=1, data_format="NDHWC")], {}


@op("conv3d_transpose")
def _conv3d_transpose(f):
    x = f("x", [1, 4, 3, 4, 3])
    w = f("w", [4, 3, 3, 3, 3])
    wg = f("wg", [4, 2, 2, 2, 2])
    xh = f("xh", [1, 3, 4, 3, 4])
    return [F.conv3d_transpose(x, w), F.conv3d_transpose(x, w, stride=2, padding=1),
            F.conv3d_transpose(x, w, stride=2, padding=1, output_padding=1),
            F.conv3d_transpose(x, wg, stride=[2, 1, 1], groups=2, dilation=[1, 2, 1]),
            F.conv3d_transpose(x, w, stride=2, output_size=[8, 10, 7]),
            F.conv3d_transpose(x, w, stride=2, padding="SAME"),
            F.conv3d_transpose(xh, w, stride=2, data_format="NDHWC")], {}


# -- channel rearrangements --------------------------------------------------------------------

@op("pixel_shuffle")
def _pixel_shuffle(f):
    x, xh = f("x", [2, 8, 3, 2]), f("xh", [2, 3, 2, 8])
    d = f("d", [1, 4, 2, 2], "float64")  # float32 / float64 only (Paddle's dtype check)
    return [F.pixel_shuffle(x, 2), F.pixel_shuffle(xh, 2, data_format="NHWC"),
            F.pixel_shuffle(d, 2), F.pixel_shuffle(x, 1)], {}


@op("pixel_unshuffle")
def _pixel_unshuffle(f):
    x, xh = f("x", [2, 2, 4, 6]), f("xh", [2, 4, 6, 2])
    d = f("d", [1, 1, 4, 4], "float64")
    return [F.pixel_unshuffle(x, 2), F.pixel_unshuffle(xh, 2, data_format="NHWC"),
            F.pixel_unshuffle(d, 2), F.pixel_unshuffle(x, 1)], {}


@op("channel_shuffle")
def _channel_shuffle(f):
    x, xh = f("x", [2, 6, 2, 3]), f("xh", [2, 2, 3, 6])
    d = f("d", [1, 4, 1, 2], "float64")
    return [F.channel_shuffle(x, 3), F.channel_shuffle(x, 2),
            F.channel_shuffle(xh, 3, data_format="NHWC"), F.channel_shuffle(d, 2)], {}


@op("shuffle_channel")
def _shuffle_channel(f):
    x = f("x", [2, 6, 2, 3])
    d = f("d", [1, 4, 1, 2], "float64")
    return [_C_ops.shuffle_channel(x, 3), _C_ops.shuffle_channel(x, 2),
            _C_ops.shuffle_channel(d, 4)], {}


# -- max pooling with indices, unpooling -------------------------------------------------------

@op("max_pool2d_with_index")
def _max_pool2d_with_index(f):
    x = f("x", [2, 3, 7, 6])
    t = f("t", [1, 1, 4, 4], value=np.array([[[[1, 1, 0, 2], [1, 1, 2, 0], [3, 0, 0, 3],
                                               [0, 3, 3, 0]]]], "float32"))  # ties
    b = f("b", [1, 1, 3, 7], value=boundary()[:21].reshape(1, 1, 3, 7))
    d = f("d", [1, 2, 5, 5], "float64")
    outs = []
    for r in (F.max_pool2d(x, 2, return_mask=True),
              F.max_pool2d(x, 3, stride=2, padding=1, return_mask=True),
              F.max_pool2d(x, 3, stride=2, ceil_mode=True, return_mask=True),
              F.max_pool2d(x, [3, 2], stride=[1, 2], padding=[1, 0], return_mask=True),
              F.adaptive_max_pool2d(x, [3, 4], return_mask=True),
              F.adaptive_max_pool2d(x, 1, return_mask=True),
              F.max_pool2d(t, 2, stride=1, return_mask=True),
              F.max_pool2d(b, 2, stride=1, return_mask=True),
              F.max_pool2d(d, 2, stride=2, padding=1, return_mask=True)):
        outs += list(r)
    return outs, {}


@op("max_pool3d_with_index")
def _max_pool3d_with_index(f):
    x = f("x", [1, 2, 5, 4, 6])
    outs = []
    for r in (F.max_pool3d(x, 2, return_mask=True),
              F.max_pool3d(x, 3, stride=2, padding=1, return_mask=True),
              F.max_pool3d(x, [2, 2, 3], stride=[1, 2, 2], ceil_mode=True, return_mask=True),
              F.adaptive_max_pool3d(x, [2, 3, 4], return_mask=True)):
        outs += list(r)
    return outs, {}


@op("unpool")
def _unpool(f):
    x = f("x", [2, 3, 6, 6])
    p, m = F.max_pool2d(x, 2, return_mask=True)
    p3, m3 = F.max_pool2d(x, 2, stride=2, padding=1, return_mask=True)
    return [F.max_unpool2d(p, m, 2), F.max_unpool2d(p3, m3, 2, stride=2, padding=1,
                                                   output_size=[6, 6]),
            F.max_unpool2d(p, m, 2, output_size=[7, 7])], {}


@op("unpool3d")
def _unpool3d(f):
    x = f("x", [1, 2, 4, 4, 6])
    p, m = F.max_pool3d(x, 2, return_mask=True)
    return [F.max_unpool3d(p, m, 2), F.max_unpool3d(p, m, 2, output_size=[5, 5, 7])], {}


# -- activations and normalisations ------------------------------------------------------------

@op("prelu")
def _prelu(f):
    x = f("x", [2, 3, 4, 2])
    xh = f("xh", [2, 4, 2, 3])
    a1, a3 = f("a1", [1], value=np.array([0.25], "float32")), f("a3", [3])
    ae = f("ae", [1, 3, 4, 2])
    b = f("b", [21], value=boundary())
    d = f("d", [2, 3], "float64")
    return [F.prelu(x, a1), F.prelu(x, a3), F.prelu(xh, a3, data_format="NHWC"),
            _C_ops.prelu(x, ae, "NCHW", "element"), F.prelu(b, a1),
            F.prelu(d, paddle.cast(a3, "float64"))], {}


@op("maxout")
def _maxout(f):
    x = f("x", [2, 6, 3, 2])
    xh = f("xh", [2, 3, 2, 6])
    b = f("b", [1, 4, 3, 2], value=np.concatenate([boundary(), boundary()[:3]]).reshape(1, 4, 3, 2))
    d = f("d", [1, 4, 2, 2], "float64")
    return [F.maxout(x, 2), F.maxout(x, 3), F.maxout(xh, 3, axis=-1), F.maxout(xh, 2, axis=3),
            F.maxout(b, 2), F.maxout(d, 4)], {}


@op("lrn")
def _lrn(f):
    # no Python API builds pd_op.lrn under PIR (F.local_response_norm decomposes): the fluid
    # op through the old-IR translator, as an old model holds it
    x = f("x", [2, 6, 3, 3])
    xb = f("xb", [1, 3, 7, 1], value=np.resize(boundary(), [1, 3, 7, 1]))
    outs = []
    for v, attrs in ((x, {"n": 5, "k": 1.0, "alpha": 1e-4, "beta": 0.75}),
                     (x, {"n": 3, "k": 2.0, "alpha": 0.5, "beta": 0.5}),
                     (xb, {"n": 1, "k": 1.0, "alpha": 1e-4, "beta": 0.75})):
        outs += results(old_ir_op("lrn", {"X": [v]}, {"Out": 1, "MidOut": 1}, attrs), 0)
    return outs, {}


@op("batch_norm")
def _batch_norm(f):
    x = f("x", [2, 3, 4, 5])
    xh = f("xh", [2, 4, 5, 3])
    m = f("m", [3])
    v = f("v", [3], value=(np.abs(arr("batch_norm", "v", [3])) + 0.5).astype("float32"))
    w, b = f("w", [3]), f("b", [3])
    x2 = f("x2", [4, 3])
    r1 = _C_ops.batch_norm(x, m, v, w, b, True, 0.9, 1e-5, "NCHW", False, False)
    r2 = _C_ops.batch_norm(xh, m, v, w, b, True, 0.9, 1e-3, "NHWC", False, False)
    r3 = _C_ops.batch_norm(x2, m, v, None, None, True, 0.9, 1e-5, "NCHW", False, False)
    r4 = _C_ops.batch_norm(x, m, v, w, b, False, 0.9, 1e-5, "NCHW", True, False)
    return [r1[0], r2[0], r3[0], r4[0]], {}


@op("affine_channel")
def _affine_channel(f):
    x, xh = f("x", [2, 3, 4, 2]), f("xh", [2, 4, 2, 3])
    s, b = f("s", [3]), f("b", [3])
    return [_C_ops.affine_channel(x, s, b, "NCHW"), _C_ops.affine_channel(xh, s, b, "NHWC")], {}


# -- patches ------------------------------------------------------------------------------------

@op("unfold")
def _unfold(f):
    x = f("x", [2, 3, 5, 6])
    d = f("d", [1, 2, 4, 4], "float64")
    return [F.unfold(x, 2), F.unfold(x, [3, 2], strides=[2, 1], paddings=1),
            F.unfold(x, 2, strides=2, paddings=[1, 0, 2, 1], dilations=[2, 1]),
            F.unfold(d, 3, paddings=1)], {}


@op("fold")
def _fold(f):
    x = f("x", [2, 12, 20])
    y = f("y", [1, 8, 6], "float64")
    # Paddle's FoldInferMeta counts the blocks with 2 * paddings[0|1], its kernel with
    # paddings[0] + paddings[2] (and [1] + [3]): an asymmetric padding must satisfy both
    x2 = f("x2", [1, 8, 24])
    return [F.fold(x, [5, 6], 2), F.fold(x2, [8, 12], 2, strides=2, paddings=[0, 0, 1, 1]),
            F.fold(y, [4, 4], 2, strides=[2, 1], paddings=[1, 0], dilations=[1, 2])], {}


@op("temporal_shift")
def _temporal_shift(f):
    x = f("x", [6, 8, 2, 2])
    xh = f("xh", [4, 2, 2, 6])
    d = f("d", [4, 5, 1, 2], "float64")
    return [F.temporal_shift(x, 3), F.temporal_shift(x, 2, shift_ratio=0.3),
            F.temporal_shift(xh, 2, data_format="NHWC"), F.temporal_shift(d, 4, 0.2)], {}


# -- sampling grids -----------------------------------------------------------------------------

@op("affine_grid")
def _affine_grid(f):
    t = f("t", [2, 2, 3])
    t3 = f("t3", [1, 3, 4])
    return [F.affine_grid(t, [2, 3, 4, 5]), F.affine_grid(t, [2, 1, 3, 1], align_corners=False),
            F.affine_grid(t3, [1, 1, 2, 3, 4]),
            F.affine_grid(t3, [1, 1, 2, 3, 2], align_corners=False)], {}


@op("grid_sample")
def _grid_sample(f):
    x = f("x", [2, 3, 4, 5])
    g = f("g", [2, 3, 4, 2], value=(arr("grid_sample", "g", [2, 3, 4, 2]) * 0.8).astype("float32"))
    x5 = f("x5", [1, 2, 3, 4, 3])
    g5 = f("g5", [1, 2, 2, 3, 3], value=(arr("grid_sample", "g5", [1, 2, 2, 3, 3]) * 0.7).astype("float32"))
    outs = []
    for mode in ("bilinear", "nearest"):
        for pad in ("zeros", "border", "reflection"):
            for ac in (True, False):
                outs.append(F.grid_sample(x, g, mode, pad, ac))
    outs += [F.grid_sample(x5, g5), F.grid_sample(x5, g5, "nearest", "border", False)]
    return outs, {}


# -- variants of already-lowered ops ------------------------------------------------------------

@op("conv2d__variants")
def _conv2d_variants(f):
    x = f("x", [1, 2, 6, 7], dyn=[-1, 2, 6, 7])
    w = f("w", [3, 2, 3, 3])
    d = f("d", [1, 2, 5, 5], "float64")
    wd = f("wd", [2, 2, 2, 2], "float64")
    return [F.conv2d(x, w, stride=3, padding="SAME", dilation=2),
            F.conv2d(x, w, padding=[2, 0, 1, 3]), F.conv2d(x, w, stride=[2, 3], dilation=[1, 2]),
            F.conv2d(d, wd, padding=1, stride=2)], {}


@op("conv2d__empty")
def _conv2d_empty(f):
    """A zero-size batch: Paddle 3.0.0's conv rejects it at build time, 3.3.1 runs it."""
    z, w = f("z", [0, 2, 6, 7]), f("w", [3, 2, 3, 3])
    return [F.conv2d(z, w), F.conv2d(z, w, padding=1)], {}


@op("pool2d__variants")
def _pool2d_variants(f):
    x = f("x", [2, 3, 7, 6])
    xh = f("xh", [2, 7, 6, 3])
    d = f("d", [1, 2, 5, 5], "float64")
    return [F.avg_pool2d(x, 3, stride=2, ceil_mode=True),
            F.avg_pool2d(x, 3, stride=2, padding=1, ceil_mode=True, exclusive=False),
            F.avg_pool2d(x, 2, padding=1, exclusive=True),
            F.max_pool2d(x, 3, stride=2, ceil_mode=True),
            F.avg_pool2d(x, 3, stride=2, padding="SAME"), F.max_pool2d(x, 3, padding="VALID"),
            F.max_pool2d(x, 2, stride=2, padding="SAME"),
            F.avg_pool2d(xh, 2, stride=2, data_format="NHWC"),
            F.max_pool2d(xh, 3, stride=1, padding=1, data_format="NHWC"),
            F.avg_pool2d(d, 2, padding=[1, 0, 0, 1]), F.avg_pool2d(x, [2, 3], padding=[1, 0, 0, 1], exclusive=False)], {}


@op("pool2d__adaptive")
def _pool2d_adaptive(f):
    x = f("x", [2, 3, 7, 6])
    xh = f("xh", [2, 7, 5, 3])
    return [F.adaptive_avg_pool2d(x, [3, 4]), F.adaptive_avg_pool2d(x, [5, 5]),
            F.adaptive_max_pool2d(x, [3, 4]), F.adaptive_avg_pool2d(x, 1),
            F.adaptive_avg_pool2d(xh, [3, 2], data_format="NHWC"),
            F.adaptive_avg_pool2d(x, [7, 6]), F.adaptive_max_pool2d(x, [4, 5])], {}


@op("pool2d__global")
def _pool2d_global(f):
    x = f("x", [2, 3, 7, 6])
    b = f("b", [1, 1, 3, 7], value=boundary()[:21].reshape(1, 1, 3, 7))
    return [_C_ops.pool2d(x, [1, 1], [1, 1], [0, 0], False, True, "NCHW", "avg", True, False,
                          "EXPLICIT"),
            _C_ops.pool2d(x, [3, 3], [1, 1], [0, 0], False, True, "NCHW", "max", True, False,
                          "EXPLICIT"),
            F.max_pool2d(b, 2, stride=1), F.avg_pool2d(b, [1, 2], stride=1)], {}


@op("bilinear_interp__variants")
def _bilinear_variants(f):
    x = f("x", [1, 2, 3, 4])
    xh = f("xh", [1, 3, 4, 2])
    return [F.interpolate(x, size=[6, 8], mode="bilinear", align_corners=False, align_mode=0),
            F.interpolate(x, size=[6, 8], mode="bilinear", align_corners=False, align_mode=1),
            F.interpolate(x, size=[1, 1], mode="bilinear", align_corners=True),
            F.interpolate(x, size=[2, 3], mode="bilinear", align_corners=True),
            F.interpolate(x, scale_factor=[0.5, 0.75], mode="bilinear"),
            F.interpolate(x, scale_factor=2.5, mode="bilinear", align_corners=True),
            F.interpolate(xh, scale_factor=2, mode="bilinear", data_format="NHWC"),
            F.interpolate(xh, size=[5, 3], mode="bilinear", align_corners=True,
                          data_format="NHWC")], {}


@op("nearest_interp__variants")
def _nearest_variants(f):
    x = f("x", [1, 2, 3, 4])
    xh = f("xh", [1, 3, 4, 2])
    i = f("i", [1, 1, 2, 3], "int64", -9, 9)
    return [F.interpolate(x, size=[7, 5], mode="nearest", align_corners=False),
            F.interpolate(x, size=[5, 9], mode="nearest"),
            F.interpolate(x, scale_factor=[0.5, 1.5], mode="nearest"),
            F.interpolate(xh, scale_factor=2, mode="nearest", data_format="NHWC"),
            F.interpolate(i, size=[4, 6], mode="nearest")], {}


@op("bicubic_interp__variants")
def _bicubic_variants(f):
    x = f("x", [1, 2, 3, 4])
    xh = f("xh", [1, 3, 4, 2])
    return [F.interpolate(x, size=[1, 1], mode="bicubic", align_corners=True),
            F.interpolate(x, size=[2, 7], mode="bicubic", align_corners=False),
            F.interpolate(x, scale_factor=[0.5, 1.5], mode="bicubic"),
            F.interpolate(xh, size=[5, 6], mode="bicubic", data_format="NHWC")], {}


# -- group 2 --------------------------------------------------------------------------------

@op("rrelu", random=True)
def _rrelu(f):
    x = f("x", [32, 32], value=-np.ones((32, 32), "float32"))
    return [F.rrelu(x, 0.1, 0.3, training=True)], {}


@op("rrelu__test")
def _rrelu_test(f):
    x = f("x", [21], value=boundary())
    y = f("y", [3, 4])
    return [F.rrelu(x, 0.1, 0.3, training=False), F.rrelu(y, training=False)], {}


@op("fractional_max_pool2d")
def _fractional_max_pool2d(f):
    x = f("x", [2, 3, 7, 8])
    outs = []
    for r in (F.fractional_max_pool2d(x, [3, 4], random_u=0.3, return_mask=True),
              F.fractional_max_pool2d(x, [5, 5], kernel_size=2, random_u=0.7, return_mask=True),
              F.fractional_max_pool2d(x, 4, random_u=0.5, return_mask=True)):
        outs += list(r)
    return outs, {}


@op("fractional_max_pool3d")
def _fractional_max_pool3d(f):
    x = f("x", [1, 2, 5, 6, 7])
    outs = []
    for r in (F.fractional_max_pool3d(x, [2, 3, 4], random_u=0.3, return_mask=True),
              F.fractional_max_pool3d(x, [3, 3, 3], kernel_size=2, random_u=0.6,
                                      return_mask=True)):
        outs += list(r)
    return outs, {}


def _rois(f, name, n):
    r = np.abs(arr("roi", name, [n, 4])) * 3
    r[:, 2:] += r[:, :2] + 1.0
    return f(name, [n, 4], value=r.astype("float32"))


@op("roi_align")
def _roi_align(f):
    from paddle.vision import ops as V
    x = f("x", [2, 3, 8, 8])
    boxes = _rois(f, "boxes", 3)
    num = f("num", [2], value=np.array([2, 1], "int32"))
    return [V.roi_align(x, boxes, num, 2), V.roi_align(x, boxes, num, (3, 2), 0.5, 2),
            V.roi_align(x, boxes, num, 2, 1.0, -1, aligned=False),
            V.roi_align(x, boxes, num, (2, 3), 2.0, 1, aligned=True)], {}


@op("roi_pool")
def _roi_pool(f):
    from paddle.vision import ops as V
    x = f("x", [2, 3, 8, 8])
    boxes = _rois(f, "boxes", 3)
    num = f("num", [2], value=np.array([2, 1], "int32"))
    return [V.roi_pool(x, boxes, num, 2), V.roi_pool(x, boxes, num, (3, 2), 0.5)], {}


@op("psroi_pool")
def _psroi_pool(f):
    from paddle.vision import ops as V
    x = f("x", [2, 8, 6, 6])
    boxes = _rois(f, "boxes", 3)
    num = f("num", [2], value=np.array([1, 2], "int32"))
    return [V.psroi_pool(x, boxes, num, 2), V.psroi_pool(x, boxes, num, (2, 2), 0.5)], {}


@op("deformable_conv")
def _deformable_conv(f):
    from paddle.vision import ops as V
    x = f("x", [1, 2, 5, 5])
    off = f("off", [1, 18, 5, 5], value=(arr("deformable_conv", "off", [1, 18, 5, 5]) * 0.7).astype("float32"))
    w = f("w", [4, 2, 3, 3])
    m = f("m", [1, 9, 5, 5], value=np.abs(arr("deformable_conv", "m", [1, 9, 5, 5])).astype("float32"))
    off3 = f("off3", [1, 18, 3, 3])
    return [V.deform_conv2d(x, off, w, padding=1),
            V.deform_conv2d(x, off, w, padding=1, mask=m),
            V.deform_conv2d(x, off3, w, stride=2, padding=1)], {}


@op("sequence_mask")
def _sequence_mask(f):
    x = f("x", [4], value=np.array([0, 3, 1, 5], "int64"))
    y = f("y", [2, 2], value=np.array([[2, 0], [1, 4]], "int32"))
    return [F.sequence_mask(x, 6), F.sequence_mask(x), F.sequence_mask(y, 5, "int32"),
            F.sequence_mask(x, 4, "float32")], {}


@op("embedding_with_scaled_gradient")
def _embedding_with_scaled_gradient(f):
    ids = f("ids", [2, 3], "int64", 0, 5)
    w = f("w", [5, 4])
    return [_C_ops.embedding_with_scaled_gradient(ids, w, -1),
            _C_ops.embedding_with_scaled_gradient(ids, w, 2)], {}


@op("correlation", expect="GPU-only: phi's CPU correlation kernel raises 'Correlation only "
                          "supports GPU now'")
def _correlation(f):
    a, b = f("a", [1, 2, 5, 5]), f("b", [1, 2, 5, 5])
    return [_C_ops.correlation(a, b, 1, 1, 1, 1, 1, 1)], {}


@op("sync_batch_norm_", expect="GPU / distributed only: no CPU kernel is registered (Paddle's "
                               "dtype check lists no dtype for the CPU place)")
def _sync_batch_norm(f):
    x = f("x", [2, 3, 4, 5])
    m, v = f("m", [3]), f("v", [3], value=np.ones(3, "float32"))
    w, b = f("w", [3]), f("b", [3])
    return [_C_ops.sync_batch_norm_(x, m, v, w, b, True, 0.9, 1e-5, "NCHW", False, False)[0]], {}


@op("interp_antialias")
def _interp_antialias(f):
    x = f("x", [1, 2, 6, 8])
    return [_C_ops.interp_antialias(x, None, None, None, "NCHW", 0, 3, 4, [], "bilinear",
                                    False, 0)], {}


# -- group 3: detection -----------------------------------------------------------------------

@op("yolo_box")
def _yolo_box(f):
    from paddle.vision import ops as V
    x = f("x", [2, 14, 3, 4])  # 2 anchors x (5 + 2 classes)
    img = f("img", [2, 2], value=np.array([[96, 128], [60, 50]], "int32"))
    xa = f("xa", [1, 16, 2, 2])  # iou_aware: 2 anchors x (1 + 5 + 2)
    img1 = f("img1", [1, 2], value=np.array([[64, 64]], "int32"))
    b1, s1 = V.yolo_box(x, img, [10, 13, 16, 30], 2, 0.01, 32)
    b2, s2 = V.yolo_box(x, img, [10, 13, 16, 30], 2, 0.5, 16, clip_bbox=False, scale_x_y=1.2)
    b3, s3 = V.yolo_box(xa, img1, [10, 13, 16, 30], 2, 0.1, 32, iou_aware=True,
                        iou_aware_factor=0.4)
    return [b1, s1, b2, s2, b3, s3], {}


@op("prior_box")
def _prior_box(f):
    from paddle.vision import ops as V
    x, img = f("x", [1, 2, 3, 4]), f("img", [1, 3, 24, 32])
    b1, v1 = V.prior_box(x, img, [4.0], [9.0], [2.0], [0.1, 0.1, 0.2, 0.2])
    b2, v2 = V.prior_box(x, img, [4.0, 6.0], None, [2.0, 3.0], [0.1, 0.1, 0.2, 0.2], flip=False,
                         clip=False, steps=[8.0, 8.0], offset=0.3)
    b3, v3 = V.prior_box(x, img, [4.0], [9.0], [2.0], min_max_aspect_ratios_order=True)
    return [b1, v1, b2, v2, b3, v3], {}


@op("box_coder")
def _box_coder(f):
    from paddle.vision import ops as V
    pb = _rois(f, "pb", 3)
    pv = f("pv", [3, 4], value=np.full((3, 4), 0.1, "float32") + np.array([0, 0, 0.1, 0.1], "float32"))
    tb = _rois(f, "tb", 2)
    d = f("d", [2, 3, 4], value=(arr("box_coder", "d", [2, 3, 4]) * 0.3).astype("float32"))
    return [V.box_coder(pb, pv, tb, "encode_center_size"),
            V.box_coder(pb, [0.1, 0.1, 0.2, 0.2], tb, "encode_center_size", box_normalized=False),
            V.box_coder(pb, pv, d, "decode_center_size"),
            V.box_coder(pb, [0.2, 0.2, 0.1, 0.1], d, "decode_center_size", box_normalized=False),
            V.box_coder(pb, [0.1, 0.1, 0.2, 0.2], paddle.transpose(d, [1, 0, 2]),
                        "decode_center_size", axis=1)], {}


@op("box_clip", expect="phi's CPU box_clip reads the input's LoD (one level per image); a static "
                       "feed has none and Paddle crashes (exit -11)")
def _box_clip(f):
    b = f("b", [2, 3, 4], value=(arr("box_clip", "b", [2, 3, 4]) * 20).astype("float32"))
    im = f("im", [2, 3], value=np.array([[10, 12, 1.0], [20, 16, 2.0]], "float32"))
    return [_C_ops.box_clip(b, im)], {}


@op("anchor_generator")
def _anchor_generator(f):
    x = f("x", [1, 2, 3, 4])
    a1, v1 = _C_ops.anchor_generator(x, [32.0, 64.0], [0.5, 1.0, 2.0], [0.1, 0.1, 0.2, 0.2],
                                     [16.0, 16.0], 0.5)
    a2, v2 = _C_ops.anchor_generator(x, [10.0], [1.5], [1.0, 1.0, 1.0, 1.0], [8.0, 4.0], 0.2)
    # stride 32, ratio 0.5: base_h = round(45 * 0.5) = 23, std::round's half away from zero
    a3, v3 = _C_ops.anchor_generator(x, [64.0, 128.0], [0.5, 1.0, 2.0], [0.1, 0.1, 0.2, 0.2],
                                     [32.0, 32.0], 0.5)
    return [a1, v1, a2, v2, a3, v3], {}


def _boxes(f, name, n, scale=10.0):
    r = np.abs(arr("boxes", name, [n, 4])) * scale
    r[:, 2:] += r[:, :2] + 1.0
    return r.astype("float32")


@op("nms")
def _nms(f):
    from paddle.vision import ops as V
    b = f("b", [8, 4], value=_boxes(f, "b", 8, 4.0))
    return [V.nms(b, 0.3), V.nms(b, 0.7)], {}


@op("matrix_nms")
def _matrix_nms(f):
    from paddle.vision import ops as V
    b = f("b", [2, 6, 4], value=np.stack([_boxes(f, "b0", 6, 3.0), _boxes(f, "b1", 6, 3.0)]) / 10)
    s = f("s", [2, 3, 6], value=np.abs(arr("matrix_nms", "s", [2, 3, 6])).astype("float32") / 3)
    o1, i1, n1 = V.matrix_nms(b, s, 0.1, 0.0, 10, 8, return_index=True, return_rois_num=True)
    o2, i2, n2 = V.matrix_nms(b, s, 0.2, 0.1, 4, 5, use_gaussian=True, gaussian_sigma=1.5,
                              background_label=-1, return_index=True, return_rois_num=True)
    return [o1, i1, n1, o2, i2, n2], {}


@op("multiclass_nms3")
def _multiclass_nms3(f):
    b = f("b", [2, 6, 4], value=np.stack([_boxes(f, "b0", 6, 3.0), _boxes(f, "b1", 6, 3.0)]) / 10)
    s = f("s", [2, 3, 6], value=np.abs(arr("multiclass_nms3", "s", [2, 3, 6])).astype("float32") / 3)
    o1, i1, n1 = _C_ops.multiclass_nms3(b, s, None, 0.1, 10, 8, 0.3, True, 1.0, 0)
    o2, i2, n2 = _C_ops.multiclass_nms3(b, s, None, 0.2, 4, 5, 0.5, False, 1.0, -1)
    return [o1, i1, n1, o2, i2, n2], {}


@op("generate_proposals")
def _generate_proposals(f):
    from paddle.vision import ops as V
    sc = f("sc", [1, 2, 3, 3], value=np.abs(arr("generate_proposals", "sc", [1, 2, 3, 3])))
    bd = f("bd", [1, 8, 3, 3], value=(arr("generate_proposals", "bd", [1, 8, 3, 3]) * 0.2).astype("float32"))
    im = f("im", [1, 2], value=np.array([[40.0, 40.0]], "float32"))
    an = f("an", [3, 3, 2, 4], value=np.concatenate(
        [_boxes(f, "an", 18, 12.0)]).reshape(3, 3, 2, 4))
    va = f("va", [3, 3, 2, 4], value=np.full((3, 3, 2, 4), 1.0, "float32"))
    r1, p1, n1 = V.generate_proposals(sc, bd, im, an, va, 12, 6, 0.5, 0.1, return_rois_num=True)
    r2, p2, n2 = V.generate_proposals(sc, bd, im, an, va, 10, 4, 0.7, 2.0, pixel_offset=False,
                                      return_rois_num=True)
    return [r1, p1, n1, r2, p2, n2], {}


def _fpn_rois(f):
    """Rois over every level of [2, 5] at refer_scale 224, and the degenerate ones: an
    inverted box (area 0), a point, a zero-width box, boxes on a level boundary (sqrt(area)
    = 112, 224, 448), a NaN corner and an infinite one (level min_level: the C++ casts
    floor(NaN) to int as x86 does, INT_MIN)."""
    r = _boxes(f, "r", 10, 150.0)
    special = np.array([[50, 50, 10, 10], [30, 30, 30, 30], [5, 5, 5, 400],
                        [0, 0, 112, 112], [0, 0, 224, 224], [10, 10, 458, 458],
                        [np.nan, 0, 80, 80], [0, 0, np.inf, 300]], "float32")
    return np.concatenate([r, special]).astype("float32")


def _distribute(f, counts, dtype="float32"):
    from paddle.vision import ops as V
    rois = f("rois", [18, 4], value=_fpn_rois(f).astype(dtype), dyn=[-1, 4])
    num = f("num", [len(counts)], value=np.array(counts, "int32"), dyn=[-1])
    multi, restore, nums = V.distribute_fpn_proposals(rois, 2, 5, 4, 224, rois_num=num)
    multi2, restore2, nums2 = V.distribute_fpn_proposals(rois, 3, 6, 5, 112, pixel_offset=True,
                                                         rois_num=num)
    return list(multi) + [restore] + list(nums) + list(multi2) + [restore2] + list(nums2), {}


# The level outputs carry a LoD (one level per image), which exe.run will not turn into
# numpy: return_numpy=False fetches the DenseTensors (gen_fixtures.gen_one_3x).
@op("distribute_fpn_proposals", return_numpy=False)
def _distribute_fpn_proposals(f):
    return _distribute(f, [7, 11])


@op("distribute_fpn_proposals__f64", return_numpy=False)
def _distribute_fpn_proposals_f64(f):
    """float64 rois: the level is computed in double (std::log2 of a double)."""
    return _distribute(f, [7, 11], "float64")


@op("distribute_fpn_proposals__empty_image", return_numpy=False)
def _distribute_fpn_proposals_empty_image(f):
    """An image with no rois: Paddle 3.0.0's kernel slices it (begin == end) and raises
    InvalidArgument; 3.3.1 gives it zero rois at every level."""
    return _distribute(f, [7, 0, 11])


@op("collect_fpn_proposals")
def _collect_fpn_proposals(f):
    r1, r2 = f("r1", [3, 4], value=_boxes(f, "r1", 3)), f("r2", [2, 4], value=_boxes(f, "r2", 2))
    s1 = f("s1", [3, 1], value=np.array([[0.3], [0.9], [0.5]], "float32"))
    s2 = f("s2", [2, 1], value=np.array([[0.7], [0.1]], "float32"))
    n1 = f("n1", [2], value=np.array([2, 1], "int32"))
    n2 = f("n2", [2], value=np.array([1, 1], "int32"))
    rois, num = _C_ops.collect_fpn_proposals([r1, r2], [s1, s2], [n1, n2], 4)
    return [paddle.reshape(rois, [-1]), num], {}  # reshape: a fetch cannot hold a LoD


@op("bipartite_match")
def _bipartite_match(f):
    d = f("d", [3, 5], value=np.abs(arr("bipartite_match", "d", [3, 5])).astype("float32") / 3)
    i1, d1 = _C_ops.bipartite_match(d, "bipartite", 0.5)
    i2, d2 = _C_ops.bipartite_match(d, "per_prediction", 0.3)
    return [i1, d1, i2, d2], {}
