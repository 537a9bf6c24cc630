"""Builders of the RNN-transducer loss, warprnnt: input [batch, T, U + 1, classes] logits,
int32 labels [batch, U] and the per-sample input / label lengths; the loss per sample (the
gradient it also returns is for the backward pass)."""
import numpy as np
import paddle

from . import op

C = paddle._C_ops


@op("warprnnt")
def _warprnnt(f):
    acts = f("acts", [2, 4, 3, 5])
    lab = f("label", [2, 2], "int32", value=np.array([[1, 2], [3, 0]], "int32"))
    il = f("il", [2], "int32", value=np.array([4, 3], "int32"))
    ll = f("ll", [2], "int32", value=np.array([2, 1], "int32"))
    lab4 = f("label4", [2, 2], "int32", value=np.array([[0, 2], [3, 1]], "int32"))
    outs = []
    for args in ((acts, lab, il, ll, 0, 0.0), (acts, lab4, il, ll, 4, 0.0),
                 (acts, lab, il, ll, 0, 0.1)):
        o = C.warprnnt(*args)
        outs.append(o[0] if isinstance(o, (list, tuple)) else o)
    return outs, {}
