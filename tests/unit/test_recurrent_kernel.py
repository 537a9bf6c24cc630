"""pd_op.rnn's two ways (pirc/lower/kernels/recurrent.py): eagerly one call of torch's own
recurrent kernel (packed where sequence_length pads), traced a step at a time.  Both must be
Paddle's op: the zoo2 models check the eager way against Paddle (tests/unit/test_zoo2.py:
lstm_bidir, lstm_states, gru_bidir, gru_time_major, simple_rnn, simple_rnn_relu, bigru_crf,
crnn_ocr), here the step loop is checked against it on every mode, direction count, layer count
and padding, and the op under torch.export takes the step loop."""

from __future__ import annotations

import pytest
import torch

from pirc.lower.kernels.recurrent import _fused, _stepped, rnn

GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _op_inputs(mode, layers, dirs, batch=5, steps=7, features=3, hidden=4, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(steps, batch, features, generator=g)
    n = layers * dirs
    weights, biases = [], []
    for layer in range(layers):
        for _ in range(dirs):
            width = features if layer == 0 else hidden * dirs
            weights += [0.5 * torch.randn(GATES[mode] * hidden, width, generator=g),
                        0.5 * torch.randn(GATES[mode] * hidden, hidden, generator=g)]
            biases += [0.1 * torch.randn(GATES[mode] * hidden, generator=g) for _ in range(2)]
    states = [torch.randn(n, batch, hidden, generator=g) for _ in range(2 if mode == "LSTM" else 1)]
    return x, states, weights + biases


@pytest.mark.parametrize("mode", sorted(GATES))
@pytest.mark.parametrize("layers,dirs", [(1, 1), (2, 2), (1, 2)])
@pytest.mark.parametrize("lengths", [None, [7, 7, 7, 7, 7], [7, 3, 1, 0, 5], [9, 2, 0, 0, 7]],
                         ids=["none", "full", "padded_and_empty", "past_the_end"])
def test_the_fused_call_is_the_step_loop(mode, layers, dirs, lengths):
    x, states, weight_list = _op_inputs(mode, layers, dirs)
    n = layers * dirs
    args = (x, states[0], states[1] if mode == "LSTM" else None, weight_list[:2 * n],
            weight_list[2 * n:], None if lengths is None else torch.tensor(lengths), mode, layers,
            dirs == 2)
    out, state = _fused(*args)
    ref_out, ref_state = _stepped(*args)
    torch.testing.assert_close(out, ref_out, atol=2e-6, rtol=1e-5)
    for got, want in zip(state, ref_state, strict=True):
        torch.testing.assert_close(got, want, atol=2e-6, rtol=1e-5)
    if lengths is not None:  # padding outputs 0; a row of length 0 keeps its initial states
        for row, length in enumerate(lengths):
            assert not out[min(length, x.shape[0]):, row].any()
            if length == 0:
                for got, initial in zip(state, states):
                    assert torch.equal(got[:, row], initial[:, row])


def test_traced_the_op_is_the_step_loop():
    """torch.export traces the step loop (the packed call reads the lengths' values)."""
    x, states, weight_list = _op_inputs("GRU", 2, 2)
    lengths = torch.tensor([7, 3, 1, 0, 5])

    class Op(torch.nn.Module):
        def forward(self, x, h0, lengths):
            out, _, state, _ = rnn(x, [h0], weight_list, lengths, None, is_bidirec=True,
                                   input_size=3, hidden_size=4, num_layers=2, mode="GRU")
            return out, state[0]

    exported = torch.export.export(Op(), (x, states[0], lengths))
    names = {str(node.target) for node in exported.graph.nodes if node.op == "call_function"}
    assert not any("gru" in name for name in names), names
    for got, want in zip(exported.module()(x, states[0], lengths), Op()(x, states[0], lengths)):
        torch.testing.assert_close(got, want, atol=2e-6, rtol=1e-5)
