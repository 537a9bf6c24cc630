"""Builders of the streaming metric ops: auc, which bins each prediction's positive
probability into num_thresholds + 1 buckets, adds the batch's positive / negative counts to
the running statistics (over a window of slide_steps batches when slide_steps > 0) and
gives the ROC area of the totals."""
import numpy as np
import paddle

from . import arr, op

C = paddle._C_ops


def _stats(f, key, nt, slide, value=None):
    # slide 0: one row of nt + 1 buckets; slide > 0: slide + 1 windows of buckets (the last
    # one holds their sum) and the step counter in the final slot
    shape = [1, nt + 1] if slide == 0 else [(slide + 1) * (nt + 1) + 1]
    v = np.zeros(shape, "int64") if value is None else value
    return f(key, shape, "int64", value=v)


def _window(f, key, nt, slide, step):
    # a consistent window: slide random batches' buckets, their sum, the step counter
    b = arr(f.model, key, [slide, nt + 1], "int64", lo=0, hi=4)
    return _stats(f, key, nt, slide, np.concatenate([b.reshape(-1), b.sum(0), [step]]))


@op("auc")
def _auc(f):
    p = np.abs(arr(f.model, "p", [12, 1])) / 3.0
    p = np.clip(p, 0, 1).astype("float32")
    p[:4, 0] = [0.0, 1.0, 0.5, 0.25]
    pred1 = f("p1", [12, 1], value=p)
    pred2 = f("p2", [12, 2], value=np.concatenate([1 - p, p], 1))
    lab = f("label", [12, 1], "int64", value=np.array(
        [[1], [0], [1], [0], [1], [1], [0], [0], [2], [-1], [0], [1]], "int64"))
    one, zero = f("w1", [1], value=np.ones(1, "float32")), f("w0", [1], value=np.zeros(1, "float32"))
    z15 = _stats(f, "z15", 15, 0)
    s15 = _stats(f, "s15", 15, 0, arr(f.model, "s15", [1, 16], "int64", lo=0, hi=5))
    zd = _stats(f, "zd", 4095, 0)
    w7 = _window(f, "w7", 7, 2, 5)
    w3 = _window(f, "w3", 3, 3, 0)
    outs = []
    for args in ((pred2, lab, z15, z15, None, "ROC", 15, 0),
                 (pred1, lab, s15, s15, None, "ROC", 15, 0),
                 (pred2, lab, s15, z15, one, "ROC", 15, 0),
                 (pred2, lab, zd, zd, None, "ROC", 4095, 0),
                 (pred2, lab, w7, w7, one, "ROC", 7, 2),
                 (pred1, lab, w7, w7, zero, "ROC", 7, 2),
                 (pred2, lab, w3, w3, None, "ROC", 3, 3)):
        outs += list(C.auc(*args))
    return outs, {}
