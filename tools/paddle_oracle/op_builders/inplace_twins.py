"""Builders of in-place ops whose out-of-place twin has a fixture of its own elsewhere:
random_ (PIR 4: the random op writing into x; its kernel is random's, by the in-place
alias) and rnn_, which no Python entry builds."""
import paddle

from . import op

C = paddle._C_ops


@op("random_", random=True)
def _random_(f):
    # uniform integers in [from, to) written into x, in x's dtype
    x, i = f("x", [400]), f("i", [300], "int64", lo=0, hi=2)
    return [C.random_(paddle.scale(x, 1.0), 0, 10), C.random_(paddle.scale(i, 1.0), -5, 5)], {}


@op("rnn_", expect="no Python entry builds it: paddle._C_ops.rnn_ has no static-graph form, "
                   "and the old-IR translator makes a fluid rnn op pd_op.rnn even when its "
                   "DropoutState output is its input (it drops that input)")
def _rnn_(f):
    x, h = f("x", [5, 2, 3]), f("h", [1, 2, 4])
    ws = [f("wih", [4, 3]), f("whh", [4, 4]), f("bih", [4]), f("bhh", [4])]
    o = C.rnn_(x, [h], ws, None, None, 0.0, False, 3, 4, 1, "RNN_TANH", 0, True)
    return [o[0]], {}
