"""Builders of ops the first attempt recorded "not buildable on CPU" and the second attempt
(reexamine_unbuildable.py) built and ran through Paddle's public API: graph message passing
(paddle.geometric.send_u_recv / send_ue_recv / send_uv), hierarchical sigmoid
(paddle.nn.functional.hsigmoid_loss), YOLOv3's training loss (paddle.vision.ops.yolo_loss), and
the merge / split of an old model's conditional block (fluid select_input / select_output,
which the old-IR translator keeps; PIR's own cond is pd_op.if).
The others the second attempt built have their builders in their family's module:
im2sequence (legacy.py) reshapes its LoD result to fetch it, lrn (nn.py) and soft_relu
(unary.py) go through the old-IR translator as an old model holds them."""
import numpy as np
import paddle

from old_ir_op import old_ir_op, results

from . import op

G = paddle.geometric


def _edges(f, n_edges, n_nodes, dtype="int32"):
    """Edge lists with repeated destinations and a node that receives nothing."""
    s = f("src", [n_edges], dtype, lo=0, hi=n_nodes)
    t = f("dst", [n_edges], dtype, value=np.array([1, 2, 2, 0, 1, 2, 0, 2][:n_edges], dtype))
    return s, t


@op("send_u_recv")
def _send_u_recv(f):
    x = f("x", [4, 3])
    s, t = _edges(f, 6, 4)
    s64, t64 = f("src64", [5], "int64", lo=0, hi=4), f("dst64", [5], "int64", lo=0, hi=3)
    outs = [G.send_u_recv(x, s, t, op) for op in ("sum", "mean", "max", "min")]
    outs.append(G.send_u_recv(x, s64, t64, "sum", out_size=5))
    outs.append(G.send_u_recv(x, s64, t64, "max", out_size=3))
    return outs, {}


@op("send_ue_recv")
def _send_ue_recv(f):
    x, e = f("x", [4, 3]), f("e", [6, 3])
    e1 = f("e1", [6, 1])
    s, t = _edges(f, 6, 4)
    outs = [G.send_ue_recv(x, y, s, t, m, r)
            for y in (e, e1) for m in ("add", "mul") for r in ("sum", "mean", "max", "min")]
    outs.append(G.send_ue_recv(x, e, s, t, "add", "sum", out_size=5))
    return outs, {}


@op("send_uv")
def _send_uv(f):
    x, y = f("x", [4, 3]), f("y", [4, 3])
    y1 = f("y1", [4, 1])
    s, t = _edges(f, 6, 4)
    return [G.send_uv(x, y, s, t, "add"), G.send_uv(x, y, s, t, "mul"),
            G.send_uv(x, y1, s, t, "mul"), G.send_uv(y1, x, s, t, "add")], {}


@op("hsigmoid_loss")
def _hsigmoid_loss(f):
    F = paddle.nn.functional
    x = f("x", [4, 3])
    lbl = f("l", [4, 1], "int64", value=np.array([[0], [1], [4], [5]], "int64"))
    w, b = f("w", [5, 3]), f("b", [5, 1])
    return [F.hsigmoid_loss(x, lbl, 6, w, b), F.hsigmoid_loss(x, lbl, 6, w)], {}


@op("yolo_loss")
def _yolo_loss(f):
    V = paddle.vision.ops
    x = f("x", [2, 14, 4, 4])
    gb = f("gb", [2, 3, 4], value=np.array(
        [[[0.3, 0.4, 0.2, 0.3], [0.7, 0.2, 0.1, 0.15], [0.0, 0.0, 0.0, 0.0]],
         [[0.5, 0.5, 0.6, 0.5], [0.1, 0.9, 0.05, 0.1], [0.8, 0.8, 0.3, 0.2]]], "float32"))
    gl = f("gl", [2, 3], "int32", value=np.array([[0, 1, 0], [1, 0, 1]], "int32"))
    gs = f("gs", [2, 3], value=np.array([[0.9, 0.5, 1.0], [1.0, 0.7, 0.2]], "float32"))
    kw = dict(anchors=[10, 13, 16, 30, 33, 23], anchor_mask=[0, 1], class_num=2,
              ignore_thresh=0.5, downsample_ratio=32)
    return [V.yolo_loss(x, gb, gl, **kw),
            V.yolo_loss(x, gb, gl, gt_score=gs, use_label_smooth=False, scale_x_y=1.2, **kw)], {}


@op("select_input")
def _select_input(f):
    # the translator takes two branches (PIR's select_input: two inputs and the mask)
    a, b = f("a", [2, 3]), f("b", [2, 3])
    m0 = f("m0", [1], "int32", value=np.array([0], "int32"))
    m1 = f("m1", [1], "int32", value=np.array([1], "int32"))
    return [results(old_ir_op("select_input", {"X": [a, b], "Mask": [m]}, {"Out": 1}))[0]
            for m in (m0, m1)], {}


@op("select_output")
def _select_output(f):
    # only the selected output is written (the others stay unset and cannot be fetched)
    a = f("a", [2, 3])
    m1 = f("m1", [1], "int32", value=np.array([1], "int32"))
    m0 = f("m0", [1], "int32", value=np.array([0], "int32"))
    o1 = results(old_ir_op("select_output", {"X": [a], "Mask": [m1]}, {"Out": 2}))
    o0 = results(old_ir_op("select_output", {"X": [a], "Mask": [m0]}, {"Out": 2}))
    return [paddle.scale(o1[1], 2.0), paddle.scale(o0[0], 3.0)], {}
