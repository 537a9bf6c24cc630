"""Expected values for tests/unit/test_kernels.py, computed by real Paddle.

Each case calls one Paddle op directly (paddle._C_ops, so the op's own attributes are set,
not what a Python API would choose) on small deterministic inputs and records the inputs,
the attributes pirc's kernel takes and Paddle's outputs.  Run with a Paddle venv, once per
release, e.g.

    /tmp/pd331/bin/python tools/paddle_oracle/gen_kernel_cases.py tests/fixtures/kernel_cases/3.3.1.json
    /tmp/pd300/bin/python tools/paddle_oracle/gen_kernel_cases.py tests/fixtures/kernel_cases/3.0.0.json

Operands are written as {"array", "dtype"} (a tensor), {"vec": [...]} (a builtin.combine
list), or null (a null operand); attributes as JSON values, dtypes as {"dtype": name}.
"""

from __future__ import annotations

import json
import sys

import numpy as np
import paddle

C = paddle._C_ops
paddle.disable_static()
paddle.set_device("cpu")


def arr(shape, dtype="float32", start=-2.0, step=0.37, mod=None):
    """Deterministic values: a ramp, optionally wrapped, so ties and signs appear."""
    n = int(np.prod(shape))
    v = start + step * np.arange(n)
    if mod:
        v = np.mod(v, mod) - mod / 2
    return v.reshape(shape).astype(dtype)


def T(a):
    return paddle.to_tensor(a)


def ia(values):
    """An int_array operand (what full_int_array feeds)."""
    return np.array(values, dtype="int64")


def sc(value, dtype="float32"):
    """A scalar operand (what full feeds): shape [1]."""
    return np.array([value], dtype=dtype)


CASES = []


def case(name, op, operands, attrs, paddle_fn):
    CASES.append((name, op, operands, attrs, paddle_fn))


X4 = arr([2, 3, 5, 6], mod=7.0)
X2 = arr([3, 4], mod=5.0)
XI = np.array([[7, -7, 3], [-4, 5, 0]], dtype="int64")
XNAN = np.array([1.0, np.nan, 3.0, -0.0], dtype="float32")
YNAN = np.array([np.nan, 2.0, 2.0, 0.0], dtype="float32")

# -- elementwise ---------------------------------------------------------------------------
case("divide_int", "pd_op.divide", [XI, np.array([2, 2, -2], "int64")], {},
     lambda a, b: C.divide(T(a), T(b)))
case("maximum_nan", "pd_op.maximum", [XNAN, YNAN], {}, lambda a, b: C.maximum(T(a), T(b)))
case("minimum_nan", "pd_op.minimum", [XNAN, YNAN], {}, lambda a, b: C.minimum(T(a), T(b)))
case("scale_after", "pd_op.scale", [X2, sc(1.5)], {"bias": 0.25, "bias_after_scale": True},
     lambda x, s: C.scale(T(x), 1.5, 0.25, True))
case("scale_before", "pd_op.scale", [X2, sc(1.5)], {"bias": 0.25, "bias_after_scale": False},
     lambda x, s: C.scale(T(x), 1.5, 0.25, False))
case("scale_int", "pd_op.scale", [XI, sc(1.5)], {"bias": 0.7, "bias_after_scale": True},
     lambda x, s: C.scale(T(x), 1.5, 0.7, True))
case("pow_3", "pd_op.pow", [X2], {"y": 3.0}, lambda x: C.pow(T(x), 3.0))
case("clip", "pd_op.clip", [X2, sc(-0.5), sc(1.25)], {}, lambda x, a, b: C.clip(T(x), -0.5, 1.25))
case("where", "pd_op.where", [X2 > 0, X2, -X2], {}, lambda c, x, y: C.where(T(c), T(x), T(y)))
case("cast_f2i", "pd_op.cast", [X2 * 3], {"dtype": {"dtype": "int32"}},
     lambda x: C.cast(T(x), paddle.int32))

# -- activations ---------------------------------------------------------------------------
case("elu", "pd_op.elu", [X2], {"alpha": 0.7}, lambda x: C.elu(T(x), 0.7))
case("gelu_tanh", "pd_op.gelu", [X2], {"approximate": True}, lambda x: C.gelu(T(x), True))
case("gelu_erf", "pd_op.gelu", [X2], {"approximate": False}, lambda x: C.gelu(T(x), False))
case("hardtanh", "pd_op.hardtanh", [X2], {"t_min": -0.5, "t_max": 0.75},
     lambda x: C.hardtanh(T(x), -0.5, 0.75))
case("leaky_relu", "pd_op.leaky_relu", [X2], {"negative_slope": 0.1},
     lambda x: C.leaky_relu(T(x), 0.1))
case("logit_eps0", "pd_op.logit", [np.array([-0.5, 0.0, 0.25, 0.5, 1.0, 1.5], "float32")],
     {"eps": 0.0}, lambda x: C.logit(T(x), 0.0))
case("logit_eps", "pd_op.logit", [np.array([-0.5, 0.0, 0.25, 0.5, 1.0, 1.5], "float32")],
     {"eps": 0.1}, lambda x: C.logit(T(x), 0.1))
case("softplus", "pd_op.softplus", [X2 * 10], {"beta": 2.0, "threshold": 5.0},
     lambda x: C.softplus(T(x), 2.0, 5.0))
case("softmax_axis0", "pd_op.softmax", [X2], {"axis": 0}, lambda x: C.softmax(T(x), 0))

# -- comparison ------------------------------------------------------------------------------
case("logical_and_float", "pd_op.logical_and", [X2, np.round(X2)], {},
     lambda a, b: C.logical_and(T(a), T(b)))

# -- creation ------------------------------------------------------------------------------
case("full_int", "pd_op.full", [], {"shape": [2, 3], "value": 3.0, "dtype": {"dtype": "int64"}},
     lambda: C.full([2, 3], 3.0, paddle.int64, paddle.CPUPlace()))
case("full_like_value", "pd_op.full_like", [X2, sc(-0.0)], {"dtype": {"dtype": "float32"}},
     lambda x, v: C.full_like(T(x), -0.0, paddle.float32, paddle.CPUPlace()))
case("arange", "pd_op.arange", [sc(1.0), sc(4.0), sc(0.7)], {"dtype": {"dtype": "float32"}},
     lambda a, b, c: C.arange(T(a), T(b), T(c), paddle.float32, paddle.CPUPlace()))
case("arange_int", "pd_op.arange", [sc(10, "int64"), sc(-3, "int64"), sc(-4, "int64")],
     {"dtype": {"dtype": "int64"}},
     lambda a, b, c: C.arange(T(a), T(b), T(c), paddle.int64, paddle.CPUPlace()))

# -- shape -----------------------------------------------------------------------------------
case("reshape_0_m1", "pd_op.reshape", [X4, ia([0, -1, 5])], {}, lambda x, s: C.reshape(T(x), [0, -1, 5]))
case("flatten_1_2", "pd_op.flatten", [X4], {"start_axis": 1, "stop_axis": 2},
     lambda x: C.flatten(T(x), 1, 2))
case("squeeze_ignore", "pd_op.squeeze", [arr([1, 3, 1, 2]), ia([0, 1, -2])], {},
     lambda x, a: C.squeeze(T(x), [0, 1, -2]))
case("unsqueeze_multi", "pd_op.unsqueeze", [X2, ia([0, -1, 2])], {},
     lambda x, a: C.unsqueeze(T(x), [0, -1, 2]))
# A positive axis as paddle.split writes it: _C_ops.split(axis=-1) with a -1 section gives
# wrong values in dygraph (3.3.1), while the static op with axis 3 is right.
case("split_infer", "pd_op.split", [X4, ia([1, -1, 2]), sc(3, "int32")], {},
     lambda x, s, a: C.split(T(x), [1, -1, 2], 3))
case("slice_decrease", "pd_op.slice", [X4, ia([-1, 1]), ia([10000, 4])],
     {"axes": [1, 3], "infer_flags": [1, 1], "decrease_axis": [1]},
     lambda x, s, e: C.slice(T(x), [1, 3], [-1, 1], [10000, 4], [1, 1], [1]))
case("strided_slice_neg", "pd_op.strided_slice", [X4, ia([-1, 5]), ia([-100, 0]), ia([-2, -2])],
     {"axes": [2, 3]},
     lambda x, s, e, st: C.strided_slice(T(x), [2, 3], [-1, 5], [-100, 0], [-2, -2]))
case("tile_short", "pd_op.tile", [X2, ia([2, 1, 3])], {}, lambda x, r: C.tile(T(x), [2, 1, 3]))
case("cumsum_excl_rev", "pd_op.cumsum", [X2, sc(1, "int32")],
     {"flatten": False, "exclusive": True, "reverse": True},
     lambda x, a: C.cumsum(T(x), 1, False, True, True))
case("cumsum_flatten", "pd_op.cumsum", [X2, sc(-1, "int32")],
     {"flatten": True, "exclusive": False, "reverse": False},
     lambda x, a: C.cumsum(T(x), -1, True, False, False))

# -- reductions -----------------------------------------------------------------------------
case("sum_axes_keep", "pd_op.sum", [X4, ia([1, -1])], {"dtype": {"dtype": "Undefined"}, "keepdim": True},
     lambda x, a: C.sum(T(x), [1, -1], None, True))
case("sum_all_int", "pd_op.sum", [XI, ia([])], {"dtype": {"dtype": "int64"}, "keepdim": False},
     lambda x, a: C.sum(T(x), [], paddle.int64, False))
case("max_all", "pd_op.max", [X4, ia([])], {"keepdim": False}, lambda x, a: C.max(T(x), [], False))
case("argmax_flatten_keep", "pd_op.argmax", [X4, sc(0, "int64")],
     {"keepdims": True, "flatten": True, "dtype": {"dtype": "int32"}},
     lambda x, a: paddle.argmax(T(x), axis=None, keepdim=True, dtype="int32"))  # flatten=True
case("topk_smallest", "pd_op.topk", [X2, sc(2, "int32")], {"axis": 0, "largest": False, "sorted": True},
     lambda x, k: C.topk(T(x), 2, 0, False, True))
case("p_norm_inf", "pd_op.p_norm", [X4],
     {"porder": float("inf"), "axis": 1, "epsilon": 1e-12, "keepdim": True, "asvector": False},
     lambda x: C.p_norm(T(x), float("inf"), 1, 1e-12, True, False))
case("p_norm_0_vec", "pd_op.p_norm", [np.round(X4)],
     {"porder": 0.0, "axis": 0, "epsilon": 1e-12, "keepdim": False, "asvector": True},
     lambda x: C.p_norm(T(x), 0.0, 0, 1e-12, False, True))

# -- nn ----------------------------------------------------------------------------------------
W = arr([4, 3, 3, 2], step=0.11, mod=3.0)
case("conv2d_same_stride", "pd_op.conv2d", [X4, W],
     {"strides": [2, 2], "paddings": [0, 0], "padding_algorithm": "SAME", "dilations": [2, 1],
      "groups": 1, "data_format": "NCHW"},
     lambda x, w: C.conv2d(T(x), T(w), [2, 2], [0, 0], "SAME", [2, 1], 1, "NCHW"))
case("conv2d_asym", "pd_op.conv2d", [X4, W],
     {"strides": [1, 2], "paddings": [1, 0, 2, 1], "padding_algorithm": "EXPLICIT", "dilations": [1, 1],
      "groups": 1, "data_format": "NCHW"},
     lambda x, w: C.conv2d(T(x), T(w), [1, 2], [1, 0, 2, 1], "EXPLICIT", [1, 1], 1, "NCHW"))
case("conv2d_nhwc_groups", "pd_op.conv2d", [arr([1, 5, 4, 4]), arr([4, 2, 2, 2], step=0.2, mod=3.0)],
     {"strides": [1, 1], "paddings": [1, 1], "padding_algorithm": "EXPLICIT", "dilations": [1, 1],
      "groups": 2, "data_format": "NHWC"},
     lambda x, w: C.conv2d(T(x), T(w), [1, 1], [1, 1], "EXPLICIT", [1, 1], 2, "NHWC"))
for name, attrs in [
    ("pool2d_avg_ceil_incl", dict(kernel_size=[3, 3], strides=[2, 2], paddings=[1, 1], ceil_mode=True,
                                  exclusive=False, pooling_type="avg")),
    ("pool2d_avg_ceil_excl", dict(kernel_size=[3, 2], strides=[2, 2], paddings=[1, 0, 0, 1], ceil_mode=True,
                                  exclusive=True, pooling_type="avg")),
    ("pool2d_max_same", dict(kernel_size=[3, 3], strides=[2, 2], paddings=[0, 0], ceil_mode=False,
                             exclusive=True, pooling_type="max", padding_algorithm="SAME")),
    ("pool2d_adaptive_avg", dict(kernel_size=[2, 4], strides=[1, 1], paddings=[0, 0], ceil_mode=False,
                                 exclusive=True, pooling_type="avg", adaptive=True)),
    ("pool2d_global_max", dict(kernel_size=[1, 1], strides=[1, 1], paddings=[0, 0], ceil_mode=False,
                               exclusive=True, pooling_type="max", global_pooling=True)),
]:
    full = dict(data_format="NCHW", global_pooling=False, adaptive=False, padding_algorithm="EXPLICIT")
    full.update(attrs)
    k = full.pop("kernel_size")
    case(name, "pd_op.pool2d", [X4, ia(k)], full,
         lambda x, kk, k=k, a=full: C.pool2d(T(x), k, a["strides"], a["paddings"], a["ceil_mode"],
                                             a["exclusive"], a["data_format"], a["pooling_type"],
                                             a["global_pooling"], a["adaptive"], a["padding_algorithm"]))
X5 = arr([1, 2, 3, 4, 5], mod=6.0)
case("pool3d_avg_pad", "pd_op.pool3d", [X5],
     dict(kernel_size=[2, 2, 3], strides=[1, 2, 2], paddings=[1, 0, 1], ceil_mode=False, exclusive=True,
          data_format="NCDHW", pooling_type="avg", global_pooling=False, adaptive=False,
          padding_algorithm="EXPLICIT"),
     lambda x: C.pool3d(T(x), [2, 2, 3], [1, 2, 2], [1, 0, 1], False, True, "NCDHW", "avg", False, False,
                        "EXPLICIT"))
case("pad3d_reflect", "pd_op.pad3d", [X5, ia([1, 2, 0, 1, 1, 0])],
     {"mode": "reflect", "pad_value": 0.0, "data_format": "NCDHW"},
     lambda x, p: C.pad3d(T(x), [1, 2, 0, 1, 1, 0], "reflect", 0.0, "NCDHW"))
case("pad3d_const_ndhwc", "pd_op.pad3d", [X5, ia([1, 0, 0, 1, 1, 1])],
     {"mode": "constant", "pad_value": 2.5, "data_format": "NDHWC"},
     lambda x, p: C.pad3d(T(x), [1, 0, 0, 1, 1, 1], "constant", 2.5, "NDHWC"))
case("pad3d_circular", "pd_op.pad3d", [X5, ia([1, 1, 1, 0, 0, 1])],
     {"mode": "circular", "pad_value": 0.0, "data_format": "NCDHW"},
     lambda x, p: C.pad3d(T(x), [1, 1, 1, 0, 0, 1], "circular", 0.0, "NCDHW"))
C3 = arr([3], step=0.5, start=0.5)
case("batch_norm_infer", "pd_op.batch_norm_", [X4, C3 - 1, C3, C3 * 2, C3 - 0.25],
     {"is_test": True, "momentum": 0.9, "epsilon": 1e-5, "data_format": "NCHW",
      "use_global_stats": False, "trainable_statistics": False},
     # batch_norm_ is not callable in dygraph; F.batch_norm(training=False) runs the same kernel
     lambda x, m, v, s, b: paddle.nn.functional.batch_norm(T(x), T(m), T(v), T(s), T(b), training=False,
                                                           momentum=0.9, epsilon=1e-5))
case("layer_norm_axis2", "pd_op.layer_norm", [X4, arr([30], step=0.1), arr([30], step=0.05)],
     {"epsilon": 1e-5, "begin_norm_axis": 2},
     lambda x, s, b: C.layer_norm(T(x), T(s), T(b), 1e-5, 2))
case("group_norm_nhwc", "pd_op.group_norm", [arr([2, 3, 4, 6], mod=5.0), arr([6], step=0.3),
                                              arr([6], step=0.2)],
     {"epsilon": 1e-5, "groups": 3, "data_format": "NHWC"},
     lambda x, s, b: C.group_norm(T(x), T(s), T(b), 1e-5, 3, "NHWC"))
case("dropout_infer_downgrade", "pd_op.dropout", [X2, None, sc(0.3)],
     {"is_test": True, "mode": "downgrade_in_infer", "seed": 0, "fix_seed": False},
     lambda x, s, p: C.dropout(T(x), None, 0.3, True, "downgrade_in_infer", 0, False))
case("one_hot", "pd_op.one_hot", [np.array([[1, 0], [3, 2]], "int64"), sc(4, "int32")], {},
     lambda x, n: C.one_hot(T(x), 4))
case("einsum", "pd_op.einsum", [{"vec": [X2, arr([4, 2], step=0.3)]}], {"equation": "ij,jk->ki"},
     lambda v: C.einsum([T(X2), T(arr([4, 2], step=0.3))], "ij,jk->ki")[0])

# -- interpolation -------------------------------------------------------------------------
XI4 = arr([1, 2, 3, 4], mod=5.0)
for name, op, attrs in [
    ("bilinear_align_mode1", "bilinear_interp", dict(out_h=5, out_w=7, scale=[], align_corners=False,
                                                      align_mode=1)),
    ("bilinear_corners", "bilinear_interp", dict(out_h=5, out_w=7, scale=[], align_corners=True,
                                                  align_mode=1)),
    ("nearest_corners", "nearest_interp", dict(out_h=5, out_w=7, scale=[], align_corners=True,
                                                align_mode=1)),
    ("nearest_down", "nearest_interp", dict(out_h=2, out_w=3, scale=[], align_corners=False,
                                             align_mode=1)),
    ("bicubic_corners", "bicubic_interp", dict(out_h=5, out_w=6, scale=[], align_corners=True,
                                                align_mode=1)),
    ("bicubic_half", "bicubic_interp", dict(out_h=5, out_w=6, scale=[], align_corners=False,
                                             align_mode=0)),
]:
    a = dict(data_format="NCHW", out_d=-1, interp_method=op.split("_")[0])
    a.update(attrs)
    case(name, "pd_op." + op, [XI4, None, None, None], a,
         lambda x, o, s, t, op=op, a=a: getattr(C, op)(T(x), None, None, None, a["data_format"], a["out_d"],
                                                        a["out_h"], a["out_w"], a["scale"], a["interp_method"],
                                                        a["align_corners"], a["align_mode"]))
case("bilinear_out_size", "pd_op.bilinear_interp", [XI4, np.array([4, 6], "int32"), None, None],
     dict(data_format="NCHW", out_d=-1, out_h=-1, out_w=-1, scale=[], interp_method="bilinear",
          align_corners=False, align_mode=0),
     lambda x, o, s, t: C.bilinear_interp(T(x), T(o), None, None, "NCHW", -1, -1, -1, [], "bilinear",
                                          False, 0))


# -- detection on IEEE inputs (issue 21 class 3) ---------------------------------------------
# matrix_nms's linear decay (1 - iou) / (1 - max_iou) divides by 0 on identical boxes (inf, or
# NaN over 0), a zero-area box pair has IoU 0 / 0, and NaN / inf scores go through the same
# comparisons and partial_sort; what Paddle's C++ makes of each is recorded here.
NMS_BOX = np.array([[0.1, 0.1, 0.5, 0.5], [0.1, 0.1, 0.5, 0.5], [0.1, 0.1, 0.5, 0.5],
                    [0.3, 0.3, 0.3, 0.6], [0.3, 0.3, 0.3, 0.6], [0.6, 0.6, 0.9, 0.9],
                    [0.2, 0.2, 0.45, 0.5], [0.0, 0.0, 0.0, 0.0]], "float32")[None]
NMS_SCORE = np.array([[[0.1] * 8, [0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2],
                       [0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5]]], "float32")
NMS_SPECIAL = np.array([[[0.1] * 8, [np.nan, np.inf, 0.7, -np.inf, 0.5, np.nan, 0.3, 0.2],
                         [0.5, 1e-45, np.inf, np.inf, 0.0, -0.0, 3e38, 0.6]]], "float32")
NMS_BOX_SPECIAL = np.array([[[np.nan, 0.1, 0.5, 0.5], [0.1, 0.1, 0.5, 0.5],
                             [-np.inf, -np.inf, np.inf, np.inf], [0.1, 0.1, 0.5, 0.5],
                             [0.3, 0.3, 0.3, 0.6], [1e-45, 0.0, 2e-45, 1e-45],
                             [-3e38, -3e38, 3e38, 3e38], [0.2, 0.2, 0.45, np.nan]]], "float32")
NMS_ATTRS = ("score_threshold", "nms_top_k", "keep_top_k", "post_threshold", "use_gaussian",
             "gaussian_sigma", "background_label", "normalized")
for name, boxes, scores, args in [
    ("matrix_nms_identical_linear", NMS_BOX, NMS_SCORE, (0.0, -1, -1, 0.0, False, 2.0, 0, True)),
    ("matrix_nms_identical_post", NMS_BOX, NMS_SCORE, (0.0, 6, 5, 0.05, False, 2.0, 0, True)),
    ("matrix_nms_identical_gaussian", NMS_BOX, NMS_SCORE, (0.0, -1, -1, 0.0, True, 2.0, 0, True)),
    ("matrix_nms_gaussian_huge_sigma", NMS_BOX, NMS_SCORE, (0.0, -1, -1, 0.0, True, 1e30, -1,
                                                            True)),
    ("matrix_nms_pixel_identical", NMS_BOX * 100, NMS_SCORE, (0.0, -1, -1, 0.0, False, 2.0, 0,
                                                              False)),
    ("matrix_nms_special_scores", NMS_BOX, NMS_SPECIAL, (0.0, -1, -1, 0.0, False, 2.0, 0, True)),
    ("matrix_nms_special_scores_gaussian", NMS_BOX, NMS_SPECIAL, (0.0, 4, 3, 0.0, True, 2.0, -1,
                                                                  True)),
    ("matrix_nms_special_boxes", NMS_BOX_SPECIAL, NMS_SCORE, (0.0, -1, -1, 0.0, False, 2.0, -1,
                                                              True)),
    ("matrix_nms_special_boxes_pixel", NMS_BOX_SPECIAL, NMS_SCORE, (0.0, -1, -1, 0.0, False, 2.0,
                                                                    0, False)),
    ("matrix_nms_identical_f64", NMS_BOX.astype("float64"), NMS_SCORE.astype("float64"),
     (0.0, -1, -1, 0.0, False, 2.0, 0, True)),
    ("matrix_nms_special_f64", NMS_BOX_SPECIAL.astype("float64"), NMS_SPECIAL.astype("float64"),
     (0.0, -1, -1, 0.0, False, 2.0, -1, True)),
]:
    case(name, "pd_op.matrix_nms", [boxes, scores], dict(zip(NMS_ATTRS, args)),
         lambda b, s, args=args: C.matrix_nms(T(b), T(s), *args))


# -- IEEE audit (issue 21 class 3): arithmetic pirc did in Python floats, where C gives inf ----
XR = np.array([1.5, 0.0, -2.25, np.inf, np.nan, 1e-45, -3e38], "float32")
for name, x, d in [("round_decimals_400", XR, 400), ("round_decimals_m400", XR, -400),
                   ("round_decimals_40", XR, 40), ("round_decimals_400_f64", XR.astype("float64"), 400)]:
    case(name, "pd_op.round", [x], {"decimals": d}, lambda x, d=d: C.round(T(x), d))
case("renorm_p0", "pd_op.renorm", [np.array([[1.0, 2.0], [0.0, -3.0]], "float32")],
     {"p": 0.0, "axis": 0, "max_norm": 1.0}, lambda x: C.renorm(T(x), 0.0, 0, 1.0))
for name, mean in [("truncated_gaussian_std0", 0.0), ("truncated_gaussian_std0_mean", 0.5)]:
    case(name, "pd_op.truncated_gaussian_random", [],
         {"shape": [5], "mean": mean, "std": 0.0, "seed": 1, "a": -2.0, "b": 2.0,
          "dtype": {"dtype": "float32"}},
         lambda mean=mean: C.truncated_gaussian_random([5], mean, 0.0, 1, -2.0, 2.0, paddle.float32,
                                                       paddle.CPUPlace()))

# roi_pool / psroi_pool on boxes with NaN, inf or huge corners: the C++ casts round / floor /
# ceil of them to int (x86: INT_MIN) and clamps; roi_align aborts the process on the same
# boxes (std::length_error), so it has no case here
ROI_FEAT = np.arange(2 * 4 * 4, dtype="float32").reshape(1, 2, 4, 4)
PSROI_FEAT = np.arange(8 * 4 * 4, dtype="float32").reshape(1, 8, 4, 4)
for tag, box in [("nan", [np.nan, 0, 2, 2]), ("inf", [0, 0, np.inf, 2]), ("minf", [-np.inf, 0, 2, 2]),
                 ("huge", [0, 0, 3e38, 2]), ("allnan", [np.nan] * 4), ("mixed", [0, np.nan, 3, -np.inf])]:
    rb, rn = np.array([box], "float32"), np.array([1], "int32")
    case(f"roi_pool_{tag}", "pd_op.roi_pool", [ROI_FEAT, rb, rn],
         {"pooled_height": 2, "pooled_width": 2, "spatial_scale": 1.0},
         lambda x, b, n: C.roi_pool(T(x), T(b), T(n), 2, 2, 1.0))
    case(f"psroi_pool_{tag}", "pd_op.psroi_pool", [PSROI_FEAT, rb, rn],
         {"pooled_height": 2, "pooled_width": 2, "output_channels": 2, "spatial_scale": 1.0},
         lambda x, b, n: C.psroi_pool(T(x), T(b), T(n), 2, 2, 2, 1.0))

# fractional_max_pool2d with one output and a kernel: alpha = (size - k) / 0 = inf, every index
# static_cast<int>(inf) = INT_MIN, and start = INT_MIN - INT_MIN = 0
FMP = np.arange(2 * 5 * 5, dtype="float32").reshape(1, 2, 5, 5)
for tag, out, k in [("one_k2", [1, 1], [2, 2]), ("one_k5", [1, 1], [5, 5]), ("one_by_two", [1, 2], [2, 2])]:
    case(f"fractional_max_pool2d_{tag}", "pd_op.fractional_max_pool2d", [FMP],
         {"output_size": out, "kernel_size": k, "random_u": 0.3, "return_mask": True},
         lambda x, out=out, k=k: C.fractional_max_pool2d(T(x), out, k, 0.3, True))

# std::round halves away from zero: roi_pool's and psroi_pool's box corners at .5
HALF_BOXES = np.array([[0.5, 1.5, 2.5, 3.5], [2.5, 0.5, 4.5, 2.5]], "float32")
case("roi_pool_half", "pd_op.roi_pool", [np.arange(72, dtype="float32").reshape(1, 2, 6, 6), HALF_BOXES,
                                         np.array([2], "int32")],
     {"pooled_height": 2, "pooled_width": 2, "spatial_scale": 1.0},
     lambda x, b, n: C.roi_pool(T(x), T(b), T(n), 2, 2, 1.0))
case("psroi_pool_half", "pd_op.psroi_pool", [np.arange(288, dtype="float32").reshape(1, 8, 6, 6),
                                             HALF_BOXES, np.array([2], "int32")],
     {"pooled_height": 2, "pooled_width": 2, "output_channels": 2, "spatial_scale": 1.0},
     lambda x, b, n: C.psroi_pool(T(x), T(b), T(n), 2, 2, 2, 1.0))

# static_cast<int32_t> of a float attribute on x86: NaN, inf and 3e9 are INT_MIN, -2.7 is -2
XI2 = np.array([1, 2], "int32")
for tag, v in [("nan", float("nan")), ("inf", float("inf")), ("3e9", 3e9), ("m2_7", -2.7)]:
    case(f"increment_int_{tag}", "pd_op.increment", [np.array([5], "int32")], {"value": v},
         lambda x, v=v: C.increment(T(x), v))
    case(f"diag_int_{tag}", "pd_op.diag", [XI2], {"offset": 0, "padding_value": v},
         lambda x, v=v: C.diag(T(x), 0, v))
    case(f"pad_int_{tag}", "pd_op.pad", [XI2, sc(v)], {"paddings": [1, 1]},
         lambda x, p, v=v: C.pad(T(x), [1, 1], v))

# matrix_nms on random boxes with ties (scores in fifths, boxes on a quarter grid: identical
# boxes), NaN scores, both decays, nms_top_k / keep_top_k cuts: libstdc++'s partial_sort
# order and glibc's expf, case by case
_NMS_RNG = np.random.default_rng(21)
for k in range(40):
    n, ncls = int(_NMS_RNG.integers(1, 24)), int(_NMS_RNG.integers(1, 4))
    rb = _NMS_RNG.random((2, n, 4)).astype("float32")
    rb[..., 2:] = rb[..., :2] + _NMS_RNG.random((2, n, 2)).astype("float32") * 0.5
    if k % 3 == 0:
        rb = (np.round(rb * 4) / 4).astype("float32")
    rs = (np.round(_NMS_RNG.random((2, ncls, n)) * 5) / 5).astype("float32")
    if k % 5 == 0:
        rs[0, 0, :3] = np.nan
    args = (float(_NMS_RNG.choice([0.0, 0.1])), int(_NMS_RNG.choice([-1, 5, 30])),
            int(_NMS_RNG.choice([-1, 3, 50])), float(_NMS_RNG.choice([0.0, 0.05])), bool(k % 2),
            2.0, int(_NMS_RNG.choice([0, -1])), True)
    case(f"matrix_nms_random_{k}", "pd_op.matrix_nms", [rb, rs], dict(zip(NMS_ATTRS, args)),
         lambda b, s, args=args: C.matrix_nms(T(b), T(s), *args))


def encode(v):
    if v is None:
        return None
    if isinstance(v, dict) and "vec" in v:
        return {"vec": [encode(t) for t in v["vec"]]}
    a = np.asarray(v)
    return {"array": a.tolist(), "dtype": str(a.dtype), "shape": list(a.shape)}


def main(path):
    out = {"paddle": paddle.__version__, "cases": []}
    for name, op, operands, attrs, fn in CASES:
        print(name, file=sys.stderr, flush=True)
        try:
            result = fn(*operands)
        except Exception as e:  # a case Paddle rejects is reported, not recorded
            print(f"{name}: paddle failed: {type(e).__name__}: {str(e)[:300]}", file=sys.stderr)
            continue
        results = result if isinstance(result, (list, tuple)) else [result]
        out["cases"].append({
            "name": name, "op": op, "operands": [encode(o) for o in operands], "attrs": attrs,
            "expected": [encode(r.numpy()) for r in results],
            "vec_result": isinstance(result, list),
        })
    with open(path, "w") as f:
        json.dump(out, f, indent=None, separators=(",", ":"))
        f.write("\n")
    print(f"{len(out['cases'])} of {len(CASES)} cases -> {path}")


if __name__ == "__main__":
    main(sys.argv[1])
