"""Builders of the quantisation ops (fake quantise / dequantise, quantize_linear, the int8/int16
dequantisers, the weight-only ops), built directly with `paddle._C_ops.NAME` on fed tensors.

Each program fetches both rounding modes where the op has `round_type` (0: round half to even
then clamp to [-bin_cnt - 1, bin_cnt]; 1: clip to [-s, s] then round half away from zero),
several bit lengths, and the special floats: a NaN first in the tensor makes the abs-max NaN
(std::max_element with |a| < |b| never leaves a NaN it starts on), an Inf makes it Inf."""
import numpy as np
import paddle

from . import Feeds, arr, boundary, op  # noqa: F401

C = paddle._C_ops


def _special(f, name="b"):
    """Finite extremes, +-0 and denormals (no NaN/Inf): the abs max is float32's largest."""
    v = boundary("float32")[3:]
    return f(name, [v.size], value=v)


def _with_inf(f, name="i"):
    """An Inf that is not first: the scale is Inf, 1/s is 0 and 0 * x gives NaN for the Inf."""
    v = np.array([0.5, -2.0, np.inf, 3.0, -0.0, np.nan], "float32")
    return f(name, [v.size], value=v)


def _halves(f, name="h"):
    """Values on the .5 boundaries of bin_cnt / s * x (s = 127 here, bin_cnt 127): the two
    rounding modes differ exactly there."""
    v = np.array([127.0, 0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.5, -126.5, 0.49999997, -0.0, 0.0],
                 "float32")
    return f(name, [v.size], value=v)


def _values(*outs):
    """The created outputs: an optional output the Python API does not create is a bool."""
    return [o for o in outs if isinstance(o, paddle.pir.Value)]


def _nan_first(f, name="n"):
    return f(name, [4], value=np.array([np.nan, 1.0, -2.0, 0.5], "float32"))


@op("fake_quantize_abs_max")
def _fq_abs_max(f):
    x, h, b, i, n = f("x", [2, 3, 4]), _halves(f), _special(f), _with_inf(f), _nan_first(f)
    outs = []
    for t, bits, rt in ((x, 8, 1), (x, 8, 0), (x, 4, 1), (h, 8, 1), (h, 8, 0), (b, 8, 1),
                        (b, 8, 0), (i, 8, 1), (i, 8, 0), (n, 8, 1), (n, 16, 0)):
        outs += list(C.fake_quantize_abs_max(t, bits, rt))
    return outs, {}


@op("fake_quantize_dequantize_abs_max")
def _fqdq_abs_max(f):
    x, h, b, i = f("x", [2, 3, 4]), _halves(f), _special(f), _with_inf(f)
    outs = []
    for t, bits, rt in ((x, 8, 1), (x, 8, 0), (x, 2, 1), (h, 8, 1), (h, 8, 0), (b, 8, 1),
                        (b, 8, 0), (i, 8, 1)):
        outs += list(C.fake_quantize_dequantize_abs_max(t, bits, rt))
    return outs, {}


@op("fake_channel_wise_quantize_abs_max", train=[".fake_channel_wise_quantize_abs_max"])
def _fcw_quant(f):
    x, y = f("x", [3, 2, 4]), f("y", [2, 3, 2])
    z = f("z", [3, 4], value=np.array([[0, 0, 0, 0], [1, -1, 0.5, -0.0], [1e-31, 2e-31, 0, 1e-32]],
                                      "float32"))
    outs = []
    for t, bits, rt, axis in ((x, 8, 1, 0), (x, 8, 0, 0), (y, 8, 1, 1), (y, 4, 0, 1),
                              (z, 8, 1, 0), (z, 8, 0, 0)):
        outs += list(C.fake_channel_wise_quantize_abs_max(t, bits, rt, axis, False))
    return outs, {}


@op("fake_channel_wise_quantize_dequantize_abs_max")
def _fcw_quant_dequant(f):
    x, y = f("x", [3, 2, 4]), f("y", [2, 3, 2])
    z = f("z", [3, 4], value=np.array([[0, 0, 0, 0], [1, -1, 0.5, -0.0], [1e-31, 2e-31, 0, 1e-32]],
                                      "float32"))
    outs = []
    for t, bits, rt, axis in ((x, 8, 1, 0), (x, 8, 0, 0), (y, 8, 1, 1), (y, 4, 0, 1),
                              (z, 8, 1, 0), (z, 8, 0, 0)):
        outs += list(C.fake_channel_wise_quantize_dequantize_abs_max(t, bits, rt, axis))
    return outs, {}


@op("fake_dequantize_max_abs")
def _fdq_max_abs(f):
    x = f("x", [2, 3], value=np.array([[13, -51, 106], [30, -127, 0]], "float32"))
    d = f("d", [2, 3], "float64", value=np.array([[13, -51, 106], [30, -127, -0.0]], "float64"))
    b = _special(f)
    s = f("s", [1], value=np.array([3.0], "float32"))
    s64 = f("s64", [1], "float64", value=np.array([0.7], "float64"))
    return [C.fake_dequantize_max_abs(x, s, 127.0), C.fake_dequantize_max_abs(x, s, 7.0),
            C.fake_dequantize_max_abs(d, s64, 127.0), C.fake_dequantize_max_abs(b, s, 255.0)], {}


@op("fake_channel_wise_dequantize_max_abs")
def _fcw_dequant(f):
    x = f("x", [3, 2, 4], value=arr("fcwdq", "x", [3, 2, 4], "int32", -127, 128).astype("float32"))
    s0 = f("s0", [3], value=np.array([0.5, 2.0, 3.0], "float32"))
    s1 = f("s1", [2], value=np.array([1.5, 0.25], "float32"))
    s2 = f("s2", [1], value=np.array([0.9], "float32"))
    d = f("d", [2, 3, 2], "float64")
    d0 = f("d0", [2], "float64", value=np.array([0.3, 7.0]))
    return [C.fake_channel_wise_dequantize_max_abs(x, [s0], [8], 0, 1),
            C.fake_channel_wise_dequantize_max_abs(x, [s1], [4], 1, 1),
            C.fake_channel_wise_dequantize_max_abs(x, [s1, s2], [8, 8], 0, 1),
            C.fake_channel_wise_dequantize_max_abs(x, [s0[:2]], [8], 1, 1),
            C.fake_channel_wise_dequantize_max_abs(d, [d0], [8], 0, 1)], {}


def _moving_state(f, tag=""):
    sc = f("scale" + tag, [1], value=np.array([2.0], "float32"))
    acc = f("accum" + tag, [1], value=np.array([5.0], "float32"))
    st = f("state" + tag, [1], value=np.array([3.0], "float32"))
    return sc, acc, st


@op("fake_quantize_moving_average_abs_max", train=[".fake_quantize_moving_average_abs_max"])
def _fq_moving(f):
    x, h = f("x", [2, 3, 4]), _halves(f)
    sc, acc, st = _moving_state(f)
    outs = []
    for t, rate, bits, rt in ((x, 0.9, 8, 1), (x, 0.5, 8, 0), (h, 0.9, 8, 1)):
        o, s, st2, ac2 = C.fake_quantize_moving_average_abs_max(t, sc, acc, st, rate, bits,
                                                                False, rt)
        outs += _values(o, s, st2, ac2)
    return outs, {}


@op("fake_quantize_moving_average_abs_max__test")
def _fq_moving_test(f):
    x, h = f("x", [2, 3, 4]), _halves(f)
    sc, acc, st = _moving_state(f)
    return [C.fake_quantize_moving_average_abs_max(t, sc, acc, st, 0.9, 8, True, rt)[0]
            for t, rt in ((x, 1), (x, 0), (h, 0))], {}


@op("fake_quantize_dequantize_moving_average_abs_max", train=[".fake_quantize_dequantize_moving_average_abs_max"])
def _fqdq_moving(f):
    x, h = f("x", [2, 3, 4]), _halves(f)
    sc, acc, st = _moving_state(f)
    outs = []
    for t, rate, bits, rt in ((x, 0.9, 8, 1), (x, 0.5, 8, 0), (h, 0.9, 8, 1)):
        o, s, st2, ac2 = C.fake_quantize_dequantize_moving_average_abs_max(
            t, sc, acc, st, rate, bits, False, rt)
        outs += _values(o, s, st2, ac2)
    return outs, {}


@op("fake_quantize_dequantize_moving_average_abs_max__test")
def _fqdq_moving_test(f):
    x, h = f("x", [2, 3, 4]), _halves(f)
    sc, acc, st = _moving_state(f)
    return [C.fake_quantize_dequantize_moving_average_abs_max(t, sc, acc, st, 0.9, 8, True,
                                                              rt)[0]
            for t, rt in ((x, 1), (x, 0), (h, 1))], {}


@op("fake_quantize_range_abs_max", train=[".fake_quantize_range_abs_max"])
def _fq_range(f):
    x = f("x", [2, 3, 4])
    sc = f("scale", [1], value=np.array([1.5], "float32"))
    it = f("iter", [1], "int64", value=np.array([3], "int64"))
    it0 = f("iter0", [1], "int64", value=np.array([0], "int64"))
    big = f("big", [1], value=np.array([9.0], "float32"))
    outs = []
    for s_in, i_in, window, rt in ((sc, it, 4, 1), (sc, it, 4, 0), (big, it0, 3, 1),
                                   (big, it, 2, 0)):
        # out_scales (the window) is a fresh, uninitialised buffer: not fetched
        outs += _values(*C.fake_quantize_range_abs_max(x, s_in, i_in, window, 8, False, rt))[:2]
    return outs, {}


@op("fake_quantize_range_abs_max__test")
def _fq_range_test(f):
    x = f("x", [2, 3, 4])
    sc = f("scale", [1], value=np.array([1.5], "float32"))
    it = f("iter", [1], "int64", value=np.array([3], "int64"))
    return [C.fake_quantize_range_abs_max(x, sc, it, 4, 8, True, rt)[0] for rt in (1, 0)], {}


@op("moving_average_abs_max_scale", train=[".moving_average_abs_max_scale"])
def _ma_scale(f):
    x = f("x", [2, 3, 4])
    acc = f("accum", [1], value=np.array([5.0], "float32"))
    st = f("state", [1], value=np.array([3.0], "float32"))
    b = _special(f)
    outs = []
    for t, rate in ((x, 0.9), (x, 0.5), (b, 0.9)):
        outs += _values(*C.moving_average_abs_max_scale(t, acc, st, rate, False))
    return outs, {}


def _linear_scales(f):
    """The scales, zero point and the observer state (infermeta needs in_accum / in_state
    even in test mode: without them it raises 'MetaTensor is not initialized')."""
    s = f("s", [1], value=np.array([3.0], "float32"))
    s0 = f("s0", [3], value=np.array([0.5, 2.0, 3.0], "float32"))
    s1 = f("s1", [2], value=np.array([1.5, 0.25], "float32"))
    zp = f("zp", [1], value=np.zeros(1, "float32"))
    acc = f("accum", [1], value=np.array([5.0], "float32"))
    st = f("state", [1], value=np.array([3.0], "float32"))
    return s, s0, s1, zp, acc, st


@op("quantize_linear")
def _quantize_linear(f):
    x, h = f("x", [3, 2, 4]), _halves(f)
    s, s0, s1, zp, acc, st = _linear_scales(f)
    hs = f("hs", [1], value=np.array([127.0], "float32"))
    outs = []
    for t, sc, axis, bits, rt in ((x, s, -1, 8, 0), (x, s, -1, 8, 1), (x, s0, 0, 8, 0),
                                  (x, s1, 1, 4, 1), (h, hs, -1, 8, 0), (h, hs, -1, 8, 1)):
        qmax = 2 ** (bits - 1) - 1
        outs.append(C.quantize_linear(t, sc, zp, acc, st, axis, bits, -qmax - 1, qmax, rt,
                                      True, False)[0])
    return outs, {}


@op("dequantize_linear")
def _dequantize_linear(f):
    x = f("x", [3, 2, 4], value=arr("dql", "x", [3, 2, 4], "int32", -127, 128).astype("float32"))
    s, s0, s1, zp, acc, st = _linear_scales(f)
    outs = []
    for sc, axis, bits in ((s, -1, 8), (s0, 0, 8), (s1, 1, 4)):
        qmax = 2 ** (bits - 1) - 1
        outs.append(C.dequantize_linear(x, sc, zp, acc, st, axis, bits, -qmax - 1, qmax, 0,
                                        True, False)[0])
    return outs, {}


@op("dequantize_abs_max")
def _dequantize_abs_max(f):
    x8 = f("x8", [2, 5], "int8", value=np.array([[-128, -1, 0, 1, 127], [5, -7, 64, -64, 3]],
                                                 "int8"))
    x16 = f("x16", [4], "int16", value=np.array([-32768, -3, 0, 32767], "int16"))
    s = f("s", [1], value=np.array([3.0], "float32"))
    return [C.dequantize_abs_max(x8, s, 127.0), C.dequantize_abs_max(x16, s, 32767.0)], {}


@op("dequantize_log")
def _dequantize_log(f):
    x = f("x", [2, 4], "int8", value=np.array([[-128, -1, 0, 1], [127, 5, -7, 64]], "int8"))
    d = f("dict", [128], value=np.linspace(-3, 3, 128).astype("float32"))
    return [C.dequantize_log(x, d)], {}


@op("weight_quantize")
def _weight_quantize(f):
    w = f("w", [64, 32], "float16",
          value=arr("weight_quantize", "w", [64, 32]).astype("float16"))
    o1, s1 = C.weight_quantize(w, "weight_only_int8", 80, -1)
    o2, s2 = C.weight_quantize(w, "weight_only_int4", 80, -1)
    o3, s3 = C.weight_quantize(w, "llm.int8", 80, -1)
    # bfloat16 weights (their scale is bfloat16), and arch 70's row-major layout
    wb = f("wb", [64, 64], "float32", value=arr("weight_quantize", "wb", [64, 64]))
    wb = paddle.cast(wb, "bfloat16")
    o4, s4 = C.weight_quantize(wb, "weight_only_int8", 80, -1)
    o5, s5 = C.weight_quantize(wb, "weight_only_int4", 86, -1)
    o6, s6 = C.weight_quantize(w, "weight_only_int8", 70, -1)
    o7, s7 = C.weight_quantize(w, "weight_only_int4", 70, -1)
    return [o1, s1, o2, s2, o3, s3, o4, paddle.cast(s4, "float32"), o5,
            paddle.cast(s5, "float32"), o6, s6, o7, s7], {}


@op("weight_dequantize", expect="GPU-only: no CPU kernel is registered (the dtype check lists no "
                                "dtype for the CPU place)")
def _weight_dequantize(f):
    w = f("w", [64, 32], "int8", value=arr("wdq", "w", [64, 32], "int8", -127, 128))
    s = f("s", [32], "float16", value=np.full(32, 0.01, "float16"))
    if paddle.__version__.startswith("3.0."):  # 3.0.0 has an out_dtype attribute
        return [C.weight_dequantize(w, s, "weight_only_int8", paddle.float16, -1)], {}
    return [C.weight_dequantize(w, s, "weight_only_int8", -1)], {}


@op("weight_only_linear", expect="GPU-only (CUTLASS weight-only GEMM): no CPU kernel is "
                                 "registered")
def _weight_only_linear(f):
    x = f("x", [2, 64], "float16", value=arr("wol", "x", [2, 64]).astype("float16"))
    w = f("w", [32, 64], "int8", value=arr("wol", "w", [32, 64], "int8", -127, 128))
    s = f("s", [32], "float16", value=np.full(32, 0.01, "float16"))
    return [C.weight_only_linear(x, w, None, s, "int8", 80, -1)], {}


@op("llm_int8_linear", expect="GPU-only (cuBLASLt int8 GEMM): no CPU kernel is registered")
def _llm_int8_linear(f):
    x = f("x", [2, 64], "float16", value=arr("l8", "x", [2, 64]).astype("float16"))
    w = f("w", [32, 64], "int8", value=arr("l8", "w", [32, 64], "int8", -127, 128))
    s = f("s", [32], "float32", value=np.full(32, 0.01, "float32"))
    return [C.llm_int8_linear(x, w, None, s, 6.0)], {}


@op("apply_per_channel_scale", expect="GPU-only: no CPU kernel is registered")
def _apply_per_channel_scale(f):
    x = f("x", [2, 8], "float16", value=arr("apcs", "x", [2, 8]).astype("float16"))
    s = f("s", [8], "float16", value=np.linspace(0.5, 2, 8).astype("float16"))
    return [C.apply_per_channel_scale(x, s)], {}


@op("quantize_linear__train", train=[".quantize_linear"])
def _quantize_linear_train(f):
    """Training mode: per tensor the scale is the moving average of the abs max (rate 0.9 in
    the kernel, whatever the attributes say), per channel the channel's abs max; y only (the
    Python API creates no other output)."""
    x = f("x", [3, 2, 4])
    s, s0, s1, zp, acc, st = _linear_scales(f)
    outs = []
    for sc, axis, rt in ((s, -1, 0), (s, -1, 1), (s0, 0, 1), (s1, 1, 0)):
        outs.append(C.quantize_linear(x, sc, zp, acc, st, axis, 8, -128, 127, rt, False,
                                      False)[0])
    return outs, {}
