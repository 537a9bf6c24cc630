"""Builders of the recurrent ops: paddle.nn.LSTM / GRU / SimpleRNN all emit `pd_op.rnn`
(mode LSTM, GRU, RNN_TANH, RNN_RELU) with the layer's weights as parameters; variants cover
several layers, both directions, initial states and per-sequence lengths."""
import numpy as np
import paddle

from . import Feeds, arr, op  # noqa: F401


@op("rnn")
def _rnn(f):
    x = f("x", [2, 5, 4])
    lens = f("lens", [2], "int64", value=np.array([5, 3], "int64"))
    h0 = f("h0", [4, 2, 3])
    c0 = f("c0", [4, 2, 3])
    lstm = paddle.nn.LSTM(4, 3, num_layers=2, direction="bidirect")
    y, (h, c) = lstm(x, (h0, c0))
    y2, (h2, c2) = lstm(x, sequence_length=lens)
    gru = paddle.nn.GRU(4, 3)
    z, hz = gru(x)
    gz, ghz = paddle.nn.GRU(4, 3, num_layers=2, time_major=True)(paddle.transpose(x, [1, 0, 2]))
    tanh = paddle.nn.SimpleRNN(4, 3, direction="bidirect")
    t, ht = tanh(x, sequence_length=lens)
    relu = paddle.nn.SimpleRNN(4, 3, activation="relu")
    r, hr = relu(x)
    return [y, h, c, y2, h2, c2, z, hz, gz, ghz, t, ht, r, hr], {}
