"""Builders of Paddle's CPU fusion ops, the ops its inference passes put in place of op
chains (fc + relu repeats, squared-matmul differences, GRU / LSTM over a whole sequence,
elementwise + activation pairs, masked softmax, bias + residual + layer norm, ...).
Most have no PIR Python builder and are built through the old-IR translator
(old_ir_op.py), which is how a translated inference program gets them."""
import numpy as np
import paddle

from old_ir_op import old_ir_op, results

from . import arr, boundary, op  # noqa: F401

C = paddle._C_ops

_LOD = ("needs a LoD input: the CPU kernel reads x.lod()[0] (one sequence level), which a "
        "fed PIR DenseTensor never has, and segfaults (exit -11) or refuses it")


_EW = ("fused_elementwise_add", "fused_elementwise_sub", "fused_elementwise_mul",
       "fused_elementwise_div")


def _fused_ew(name):
    def build(f):
        x, y = f("x", [2, 3, 4]), f("y", [3, 4])
        yb = f("yb", [4], value=np.array([0.5, -2.0, 3.0, 0.0], "float32"))
        d, e = f("d", [2, 3], "float64"), f("e", [2, 3], "float64")
        outs = []
        for a, b, attrs in ((x, y, {}), (x, yb, {}),
                            (x, y, {"fuse_activation": "relu"}),
                            (x, y, {"scale_x": 2.0, "scale_y": 0.5, "scale_out": 1.5}),
                            (d, e, {})):
            outs += results(old_ir_op(name, {"X": [a], "Y": [b]}, {"Out": 1},
                                      {"axis": -1, **attrs}), 0)
        return outs, {}
    return build


for _n in _EW:
    op(_n, expect="oneDNN-only: the translator turns the fluid op into onednn_op." + _n
       + ", which a saved program cannot load back ('Unknown id onednn_op for decompress "
       "dialect'); paddle._C_ops." + _n + " is eager-only")(_fused_ew(_n))


def _elemwise_act(op_type, functors_list):
    def build(f):
        x, y = f("x", [2, 3]), f("y", [2, 3])
        yb = f("yb", [3])
        bx = f("bx", [21], value=boundary())
        by = f("by", [21], value=boundary()[::-1].copy())
        outs = []
        for functors in functors_list:
            for a, b, axis in ((x, y, -1), (x, yb, 1), (bx, by, -1)):
                o = old_ir_op(op_type, {"X": [a], "Y": [b]}, {"Out": 1, "IntermediateOut": 1},
                              {"functor_list": list(functors), "axis": axis, "scale": 0.5,
                               "save_intermediate_out": True})
                outs += results(o)
        return outs, {}
    return build


op("fused_elemwise_activation")(_elemwise_act("fused_elemwise_activation", (
    ("elementwise_add", "relu"), ("relu", "elementwise_add"), ("elementwise_mul", "scale"),
    ("scale", "elementwise_add"), ("tanh", "elementwise_add"), ("elementwise_mul", "tanh"),
    ("elementwise_mul", "sigmoid"), ("elementwise_add", "scale"))))
op("fused_elemwise_add_activation")(_elemwise_act("fused_elemwise_add_activation", (
    ("elementwise_add", "relu"), ("relu", "elementwise_add"), ("elementwise_add", "scale"),
    ("scale", "elementwise_add"))))


@op("fused_softmax_mask")
def _fused_softmax_mask(f):
    x = f("x", [2, 2, 3, 4])
    m = f("mask", [2, 1, 3, 4], value=np.where(arr(f.model, "m", [2, 1, 3, 4]) > 0, 0.0,
                                                -10000.0).astype("float32"))
    d = f("d", [1, 2, 2, 3], "float64")
    md = f("md", [1, 1, 2, 3], "float64")
    return [C.fused_softmax_mask(x, m), C.fused_softmax_mask(d, md)], {}


@op("fused_softmax_mask_upper_triangle", expect="GPU-only: the CPU kernel raises 'Softmax mask "
                                                "fuse op only supports GPU now'")
def _fused_softmax_mask_upper_triangle(f):
    return [C.fused_softmax_mask_upper_triangle(f("x", [1, 2, 4, 4]))], {}


@op("fused_bias_residual_layernorm")
def _fused_bias_residual_layernorm(f):
    x, b, r = f("x", [2, 3, 8]), f("bias", [8]), f("residual", [2, 3, 8])
    w, nb = f("w", [8]), f("nb", [8])
    outs = []
    for args in ((x, b, r, w, nb, 1e-5, 1.0, 2), (x, None, r, w, nb, 1e-6, 0.5, 2),
                 (x, b, None, w, nb, 1e-5, 1.0, 2), (x, b, r, None, None, 1e-5, 2.0, 2)):
        o = C.fused_bias_residual_layernorm(*args, -1.0, 0, 0.0, 0.0)
        # residual_out exists only with a residual (else the fetch is an empty object);
        # without norm weight and bias the kernel only sums (mean / variance unwritten)
        if args[3] is None and args[4] is None:
            outs.append(o[0])
        else:
            outs += [o[0], o[2], o[3]] + ([o[1]] if args[2] is not None else [])
    return outs, {}


@op("fusion_repeated_fc_relu")
def _fusion_repeated_fc_relu(f):
    x = f("x", [3, 4])
    ws = [f("w0", [4, 5]), f("w1", [5, 2]), f("w2", [2, 3])]
    bs = [f("b0", [1, 5]), f("b1", [1, 2]), f("b2", [1, 3])]
    a = C.fusion_repeated_fc_relu(x, ws[:2], bs[:2])
    b = C.fusion_repeated_fc_relu(x, ws, bs)
    return [a[1], b[1]], {}


@op("fusion_squared_mat_sub")
def _fusion_squared_mat_sub(f):
    x, y = f("x", [3, 4]), f("y", [4, 2])
    d, e = f("d", [2, 3], "float64"), f("e", [3, 5], "float64")
    return [C.fusion_squared_mat_sub(x, y, 1.0)[-1], C.fusion_squared_mat_sub(x, y, 0.5)[-1],
            C.fusion_squared_mat_sub(d, e, 2.0)[-1]], {}


@op("fusion_gru", expect=_LOD)
def _fusion_gru(f):
    x = f("x", [5, 3])
    wx, wh, b = f("wx", [3, 6]), f("wh", [2, 6]), f("b", [1, 6])
    h0 = f("h0", [1, 2])
    outs = []
    for args in ((x, None, wx, wh, b, "tanh", "sigmoid", False, False, False, False),
                 (x, h0, wx, wh, b, "tanh", "sigmoid", False, False, True, False),
                 (x, None, wx, wh, None, "relu", "sigmoid", True, False, False, False)):
        outs.append(C.fusion_gru(*args)[-1])
    return outs, {}


@op("fusion_lstm", expect=_LOD)
def _fusion_lstm(f):
    x = f("x", [5, 3])
    wx, wh = f("wx", [3, 8]), f("wh", [2, 8])
    b, bp = f("b", [1, 8]), f("bp", [1, 14])
    outs = []
    for bias, peep, rev in ((b, False, False), (bp, True, False), (b, False, True)):
        o = old_ir_op("fusion_lstm", {"X": [x], "WeightX": [wx], "WeightH": [wh], "Bias": [bias]},
                      {"Hidden": 1, "Cell": 1, "XX": 1, "BatchedInput": 1, "BatchedHidden": 1,
                       "BatchedCell": 1, "ReorderedH0": 1, "ReorderedC0": 1, "CheckedCell": 1},
                      {"use_peepholes": peep, "is_reverse": rev, "use_seq": False})
        outs += results(o, 0, 1)
    return outs, {}


@op("fusion_seqconv_eltadd_relu", expect=_LOD)
def _fusion_seqconv_eltadd_relu(f):
    x = f("x", [5, 3])
    w, b = f("w", [9, 4]), f("b", [1, 4])
    return [C.fusion_seqconv_eltadd_relu(x, w, b, 3, -1, 1)[0]], {}


@op("fused_embedding_fc_lstm", expect=_LOD)
def _fused_embedding_fc_lstm(f):
    ids = f("ids", [5, 1], "int64", lo=0, hi=6)
    emb, wh, b = f("emb", [6, 8]), f("wh", [2, 8]), f("b", [1, 8])
    o = old_ir_op("fused_embedding_fc_lstm", {"Ids": [ids], "Embeddings": [emb],
                                              "WeightH": [wh], "Bias": [b]},
                  {"Hidden": 1, "Cell": 1, "XX": 1, "BatchedInput": 1, "BatchedHidden": 1,
                   "BatchedCell": 1, "ReorderedH0": 1, "ReorderedC0": 1},
                  {"use_peepholes": False, "use_seq": True})
    return results(o, 0, 1), {}


@op("self_dp_attention")
def _self_dp_attention(f):
    x = f("x", [2, 3, 3, 2, 4])
    return [C.self_dp_attention(x, 0.5, 2), C.self_dp_attention(x, 1.0, 2)], {}


@op("add_position_encoding")
def _add_position_encoding(f):
    x = f("x", [2, 3, 4])
    xo = f("xo", [1, 5, 6])
    d = f("d", [2, 2, 4], "float64")
    return [C.add_position_encoding(x, 1.0, 1.0), C.add_position_encoding(x, 0.5, 2.0),
            C.add_position_encoding(xo, 1.0, 0.1), C.add_position_encoding(d, 1.0, 1.0)], {}


@op("batch_fc", expect="GPU-only: the CPU kernel raises 'BatchFC only supports GPU now'")
def _batch_fc(f):
    x, w, b = f("x", [2, 3, 4]), f("w", [2, 4, 5]), f("b", [2, 5])
    o = old_ir_op("batch_fc", {"Input": [x], "W": [w], "Bias": [b]}, {"Out": 1})
    return results(o), {}


@op("rank_attention", expect="GPU-only: the CPU kernel raises 'Rank Attention only supports GPU now'")
def _rank_attention(f):
    x = f("x", [3, 2])
    ro = f("ro", [3, 7], "int32", value=np.array([[1, 1, 0, 2, 1, 3, 2], [2, 1, 0, 2, 1, -1, -1],
                                                  [3, 1, 2, 2, 1, 3, 2]], "int32"))
    rp = f("rp", [3 * 3 * 2, 4])
    return [C.rank_attention(x, ro, rp, 3, 0)[1]], {}


@op("fused_seqpool_cvm", expect="GPU-only: 'Unimplemented CPU kernel for FusedSeqpoolCVMOp, only support GPU now'")
def _fused_seqpool_cvm(f):
    xs = [f("x0", [4, 3]), f("x1", [4, 3])]
    cvm = f("cvm", [4, 2])
    o = old_ir_op("fused_seqpool_cvm", {"X": xs, "CVM": [cvm]}, {"Out": 2},
                  {"pooltype": "SUM", "use_cvm": True, "cvm_offset": 2}, assign=True)
    return o, {}


@op("fusion_seqpool_cvm_concat", expect=_LOD)
def _fusion_seqpool_cvm_concat(f):
    xs = [f("x0", [4, 3]), f("x1", [4, 3])]
    cvm = f("cvm", [4, 2])
    o = old_ir_op("fusion_seqpool_cvm_concat", {"X": xs, "CVM": [cvm]}, {"Out": 1},
                  {"pooltype": "SUM", "use_cvm": True, "axis": 1})
    return results(o), {}
