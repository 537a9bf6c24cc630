"""The recurrent op `pd_op.rnn` (what paddle.nn.LSTM, GRU and SimpleRNN emit), as Paddle's CPU
kernel (phi/kernels/cpu/rnn_kernel.cc) runs it at inference.

Operands: x [time, batch, input] (time-major: the layers transpose around the op),
pre_state = [h0] or [h0, c0], each [layers * directions, batch, hidden]; weight_list = every
layer's and direction's w_ih, w_hh in order, then every b_ih, b_hh in the same order;
sequence_length (optional, int) per batch row. Gates are cuDNN's: LSTM i, f, g, o; GRU r, z, n
with the candidate's hidden part gated by r (h' = (1 - z) * n + z * h). With sequence_length,
a step at or past a row's length outputs 0 and keeps that row's state; the reverse direction
walks the padded time axis backwards, so it starts at the row's last valid step with h0.
Results: out [time, batch, hidden * directions], dropout_state_out, state (like pre_state),
reserve.

Run eagerly, the op is one call of torch's own recurrent kernel (torch.lstm / gru / rnn_tanh /
rnn_relu: the same gates and weight layout), with sequence_length as a packed sequence (rows
sorted by length, a row of length 0 left out: zeros out, its state h0): a step at a time in
Python costs some ten small ops per step, layer and direction, several times Paddle's C++
kernel on a BiGRU tagger. Traced (torch.export / torch.compile) it stays the step loop below,
whose shapes do not depend on the lengths' values.
"""

from __future__ import annotations

import torch

from ...runtime.registry import REGISTRY

# torch's recurrent kernels by Paddle's mode: (input, hx, params, has_biases, layers, dropout,
# train, bidirectional, batch_first) or, packed, (data, batch_sizes, hx, params, has_biases,
# layers, dropout, train, bidirectional); hx is [h, c] for the LSTM, h for the others.
_FUSED = {"LSTM": torch.lstm, "GRU": torch.gru, "RNN_TANH": torch.rnn_tanh, "RNN_RELU": torch.rnn_relu}


def _cell(mode: str):
    def lstm(g, h, c, w_hh, b_hh):
        g = g + h @ w_hh.t() + b_hh
        i, f, n, o = g.chunk(4, -1)
        c2 = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(n)
        return torch.sigmoid(o) * torch.tanh(c2), c2

    def gru(g, h, c, w_hh, b_hh):
        hr, hz, hn = (h @ w_hh.t() + b_hh).chunk(3, -1)
        xr, xz, xn = g.chunk(3, -1)
        r, z = torch.sigmoid(xr + hr), torch.sigmoid(xz + hz)
        n = torch.tanh(xn + r * hn)
        return (1 - z) * n + z * h, c

    def simple(act):
        def step(g, h, c, w_hh, b_hh):
            return act(g + h @ w_hh.t() + b_hh), c
        return step

    return {"LSTM": lstm, "GRU": gru, "RNN_TANH": simple(torch.tanh),
            "RNN_RELU": simple(torch.relu)}[mode]


def _direction(x, h, c, w_ih, w_hh, b_ih, b_hh, mask, reverse, cell):
    """One layer in one direction: outputs [time, batch, hidden] and the last h, c."""
    gates = x @ w_ih.t() + b_ih
    steps = range(x.shape[0] - 1, -1, -1) if reverse else range(x.shape[0])
    outs = [None] * x.shape[0]
    for t in steps:
        h2, c2 = cell(gates[t], h, c, w_hh, b_hh)
        if mask is not None:
            m = mask[t].unsqueeze(-1)
            h2 = h2 * m + h * (1 - m)
            if c is not None:
                c2 = c2 * m + c * (1 - m)
            outs[t] = h2 * m
        else:
            outs[t] = h2
        h, c = h2, c2
    return torch.stack(outs), h, c


@REGISTRY.register("pd_op.rnn", since=1)
def rnn(x, pre_state, weight_list, sequence_length=None, dropout_state_in=None, *,
        dropout_prob=0.0, is_bidirec=False, input_size=10, hidden_size=100, num_layers=1,
        mode="RNN_TANH", seed=0, is_test=False):
    # dropout_prob applies between layers in training only; inference programs have is_test
    dirs = 2 if is_bidirec else 1
    lstm = mode == "LSTM"
    # Paddle's executor moves every input to the kernel's place; here x's device, which the
    # initial states may not be on (paddle.nn's zeros come from `full`, made on the CPU)
    dev = x.device
    pre_state = [s if s.device == dev else s.to(dev) for s in pre_state]
    weight_list = [w if w.device == dev else w.to(dev) for w in weight_list]
    if sequence_length is not None and sequence_length.device != dev:
        sequence_length = sequence_length.to(dev)
    h0, c0 = pre_state[0], (pre_state[1] if lstm else None)
    n = num_layers * dirs
    weights, biases = weight_list[:2 * n], weight_list[2 * n:]
    # packing reads the lengths' values: not on the meta device (shapes only) nor traced
    concrete = sequence_length is None or sequence_length.device.type != "meta"
    fused = not torch.compiler.is_compiling() and concrete and x.shape[0] > 0 and x.shape[1] > 0
    out, state = (_fused if fused else _stepped)(x, h0, c0, weights, biases, sequence_length, mode,
                                                 num_layers, dirs == 2)
    return out, dropout_state_in, state, torch.empty(0, dtype=x.dtype, device=dev)


def _stepped(x, h0, c0, weights, biases, lengths, mode, num_layers, bidirectional):
    """The op a step at a time (what traces): (out, [h] or [h, c])."""
    cell, lstm, dirs = _cell(mode), mode == "LSTM", 2 if bidirectional else 1
    mask = None
    if lengths is not None:
        steps = torch.arange(x.shape[0], device=x.device)
        mask = (steps.unsqueeze(1) < lengths.unsqueeze(0)).to(x.dtype)
    hs, cs = [], []
    inp = x
    for layer in range(num_layers):
        outs = []
        for d in range(dirs):
            k = layer * dirs + d
            o, h, c = _direction(inp, h0[k], c0[k] if lstm else None, weights[2 * k],
                                 weights[2 * k + 1], biases[2 * k], biases[2 * k + 1], mask,
                                 d == 1, cell)
            outs.append(o)
            hs.append(h)
            cs.append(c)
        inp = torch.cat(outs, -1) if dirs == 2 else outs[0]
    return inp, [torch.stack(hs)] + ([torch.stack(cs)] if lstm else [])


def _fused(x, h0, c0, weights, biases, lengths, mode, num_layers, bidirectional):
    """The op as one torch recurrent-kernel call: (out, [h] or [h, c])."""
    fn, lstm = _FUSED[mode], mode == "LSTM"
    params = []
    for k in range(len(weights) // 2):  # Paddle: every weight, then every bias; torch: by layer
        params += [weights[2 * k], weights[2 * k + 1], biases[2 * k], biases[2 * k + 1]]
    steps, batch = x.shape[0], x.shape[1]
    # a step at or past a row's length is padding (a length past the time axis is all of it)
    counts = None if lengths is None else [min(int(v), steps) for v in lengths.reshape(-1).tolist()]
    if counts is None or all(v == steps for v in counts):  # no padding: no packing either
        got = fn(x, [h0, c0] if lstm else h0, params, True, num_layers, 0.0, False, bidirectional, False)
        return got[0], list(got[1:])
    # packed by hand from the lengths as Python ints (batches are small; torch's
    # pack_padded_sequence / pad_packed_sequence cost more than the recurrence here): rows
    # longest first (ties in row order), a row of length 0 left out; one index_select packs
    # the steps, one index_copy_ unpacks them
    order = sorted((i for i in range(batch) if counts[i] > 0), key=lambda i: -counts[i])
    out = x.new_zeros(steps * batch, h0.shape[-1] * (2 if bidirectional else 1))
    state = [h0.clone()] + ([c0.clone()] if lstm else [])
    if not order:
        return out.reshape(steps, batch, -1), state
    sizes, flat = [], []
    for t in range(counts[order[0]]):
        live = [i for i in order if counts[i] > t]
        sizes.append(len(live))
        flat += [t * batch + i for i in live]
    flat = torch.tensor(flat, dtype=torch.int64, device=x.device)
    rows = torch.tensor(order, dtype=torch.int64, device=x.device)
    data = x.reshape(steps * batch, -1).index_select(0, flat)
    hx = [s.index_select(1, rows) for s in state]
    got = fn(data, torch.tensor(sizes, dtype=torch.int64), hx if lstm else hx[0], params, True,
             num_layers, 0.0, False, bidirectional)
    out.index_copy_(0, flat, got[0])
    for s, final in zip(state, got[1:]):
        s.index_copy_(1, rows, final)
    return out.reshape(steps, batch, -1), state
