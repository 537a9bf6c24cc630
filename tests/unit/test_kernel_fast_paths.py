"""Fast paths of the sequence / OCR kernels against the general computation they replace.

viterbi_decode runs its step loop in numpy on the CPU (float32 / float64): it must give the
torch step loop's bits, ties, NaNs, lengths 0 and full included.  conv2d_transpose computes a
stride == kernel transposed convolution with few channels as one GEMM: torch's own
conv_transpose2d within rounding.  The packed rnn path (lengths packed by hand) must be the
step loop within rounding.  warpctc in an evaluation program (nothing reads its gradient) is
the loss alone, without a backward pass, with the kernel's loss bits.
"""

from __future__ import annotations

import operator

import numpy as np
import pytest
import torch
import torch.fx as fx
import torch.nn.functional as F

from pirc.lower.kernels.conv_transpose import conv2d_transpose
from pirc.lower.kernels.decoding import _viterbi_torch, viterbi_decode
from pirc.lower.kernels.loss_forward import warpctc, warpctc_loss
from pirc.lower.kernels.recurrent import _fused, _stepped
from pirc.lower.specialize import specialize_calls


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("include_bos_eos_tag", [True, False])
def test_numpy_viterbi_is_the_torch_step_loop(dtype, include_bos_eos_tag):
    rng = np.random.default_rng(7)
    for trial in range(150):
        b, steps, tags = int(rng.integers(0, 5)), int(rng.integers(1, 9)), int(rng.integers(3, 7))
        if trial % 3 == 0:   # small integers: many tied scores
            x = rng.integers(-2, 3, (b, steps, tags)).astype(dtype)
            w = rng.integers(-2, 3, (tags, tags)).astype(dtype)
        else:
            x = rng.standard_normal((b, steps, tags)).astype(dtype)
            w = rng.standard_normal((tags, tags)).astype(dtype)
        if trial % 7 == 0 and b:
            x[0, 0, 1] = np.nan
        if trial % 11 == 0:
            w[0, 0], w[tags - 2, 1] = np.inf, -np.inf
        lengths = torch.from_numpy(rng.integers(0, steps + 1, (b,)))
        args = (torch.from_numpy(x), torch.from_numpy(w), lengths)
        scores, path = viterbi_decode(*args, include_bos_eos_tag=include_bos_eos_tag)
        want_scores, want_path = _viterbi_torch(*args, include_bos_eos_tag)
        assert scores.dtype == want_scores.dtype and path.dtype == want_path.dtype
        got, want = scores.numpy(), want_scores.numpy()
        assert np.array_equal(got, want, equal_nan=True)
        real = ~np.isnan(want)
        assert np.array_equal(np.signbit(got[real]), np.signbit(want[real]))
        assert torch.equal(path, want_path)


def test_tiled_conv_transpose_is_torchs():
    gen = torch.Generator().manual_seed(3)
    for trial in range(60):
        k = (1 + trial % 3, 1 + (trial // 3) % 3)
        x = torch.randn(1 + trial % 3, 1 + trial % 5, 1 + trial % 6, 1 + trial % 7, generator=gen)
        w = torch.randn(x.shape[1], 1 + trial % 4, *k, generator=gen)
        pad = trial % 2
        got = conv2d_transpose(x, w, None, strides=k, paddings=(pad, 0))
        full = F.conv_transpose2d(x, w, None, k)
        torch.testing.assert_close(got, full[:, :, pad:full.shape[2] - pad], atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("mode", ["LSTM", "GRU", "RNN_TANH"])
@pytest.mark.parametrize("lengths", [[0, 0, 0], [3, 0, 5], [5, 5, 2], [9, 1, 1], [0, 4, 4, 1]])
def test_hand_packed_rnn_is_the_step_loop(mode, lengths):
    gen = torch.Generator().manual_seed(5)
    gates = {"LSTM": 4, "GRU": 3}.get(mode, 1)
    batch, steps, hidden, inputs, layers, dirs = len(lengths), 5, 4, 3, 2, 2
    x = torch.randn(steps, batch, inputs, generator=gen)
    h0 = torch.randn(layers * dirs, batch, hidden, generator=gen)
    c0 = torch.randn(layers * dirs, batch, hidden, generator=gen) if mode == "LSTM" else None
    weights, biases = [], []
    for layer in range(layers):
        for _ in range(dirs):
            size = inputs if layer == 0 else hidden * dirs
            weights += [torch.randn(gates * hidden, size, generator=gen),
                        torch.randn(gates * hidden, hidden, generator=gen)]
            biases += [torch.randn(gates * hidden, generator=gen),
                       torch.randn(gates * hidden, generator=gen)]
    args = (x, h0, c0, weights, biases, torch.tensor(lengths), mode, layers, True)
    out, state = _fused(*args)
    want_out, want_state = _stepped(*args)
    torch.testing.assert_close(out, want_out, atol=2e-6, rtol=1e-5)
    for got, want in zip(state, want_state):
        torch.testing.assert_close(got, want, atol=2e-6, rtol=1e-5)


def _ctc_graph(read_gradient):
    graph = fx.Graph()
    feeds = [graph.placeholder(n) for n in ("logits", "label", "steps", "lengths")]
    call = graph.call_function(warpctc, tuple(feeds))
    outs = [graph.call_function(operator.getitem, (call, i))
            for i in ((0, 1) if read_gradient else (0,))]
    graph.output(tuple(outs))
    return fx.GraphModule(torch.nn.Module(), graph)


def test_warpctc_without_gradient_reader_is_the_loss_alone():
    gen = torch.Generator().manual_seed(2)
    logits = torch.randn(6, 3, 5, generator=gen)
    label = torch.tensor([[1, 2, 2], [3, 0, 0], [4, 4, 4]], dtype=torch.int32)
    steps, lengths = torch.tensor([6, 6, 4]), torch.tensor([3, 1, 3])   # the last: infeasible
    eval_gm, train_gm = _ctc_graph(False), _ctc_graph(True)
    specialize_calls(eval_gm)
    specialize_calls(train_gm)
    eval_targets = [n.target for n in eval_gm.graph.nodes if n.op == "call_function"]
    train_targets = [n.target for n in train_gm.graph.nodes if n.op == "call_function"]
    assert warpctc_loss in eval_targets and warpctc not in eval_targets
    assert warpctc in train_targets   # the gradient is read: the kernel stays
    want_loss, _ = warpctc(logits, label, steps, lengths)
    (loss,) = eval_gm(logits, label, steps, lengths)
    assert torch.equal(loss, want_loss) and float(loss[2]) == 0.0
