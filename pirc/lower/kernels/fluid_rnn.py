"""The fluid recurrent ops over LoD sequences: `lstm` (dynamic_lstm's op), `gru` (dynamic_gru's
op), and `fusion_gru` / `fusion_lstm` / `fused_embedding_fc_lstm` / `attention_lstm` (with
their input projection, made by the CPU fuse passes; phi::jit and cpu_vec steps), as phi's
CPU kernels compute them (impl/lstm_kernel_impl.h, cpu/gru_kernel.cc, funcs/sequence2batch,
funcs/detail/lstm_cpu_kernel.h, gru_cpu_kernel.h, activation_functions.h).

The input holds every sequence's projected rows (the LoD, level 0, says where each starts).
Paddle reorders them into time-major batches (sequences sorted longest first, so the ones
still running at step t are a prefix of those at t - 1), adds the bias row by row, and per
step adds the previous hidden state times the recurrent weight with one GEMM (beta 1) before
the per-element step. The per-element step is phi's scalar one ("naive", float
activations whose exp is the C library's expf), or for float with a frame size that is a
multiple of 8 phi's AVX one, whose exp is avx_mathfun's Cephes polynomial (exp256_ps,
reproduced op by op in float32). Both are bit-exact against Paddle 3.0.0 and 3.3.1.
"""

from __future__ import annotations

import numpy as np
import torch

from ..lod import lod_kernel, need_lod
from .c_numerics import expf as _expf_scalar

NO_LOD = (None,) * 5
F32 = np.float32
_EXPF = np.vectorize(_expf_scalar, otypes=[np.float64])


def _exp(t: np.ndarray) -> np.ndarray:
    """std::exp of each element in the array's dtype (expf for float32)."""
    if t.dtype == np.float32:
        return _EXPF(t).astype(np.float32)
    return np.exp(t)


def _act(name: str, a: np.ndarray) -> np.ndarray:
    """detail::forward::activation in T: sigmoid clamps to [-40, 13] then 1 / (1 + exp(-x));
    tanh is 2 / (1 + exp(min(-2x, 40))) - 1 with the double literals (computed in double,
    rounded to T); relu; identity."""
    t = a.dtype.type
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        if name == "sigmoid":
            c = np.where(a < t(-40.0), t(-40.0), np.where(a > t(13.0), t(13.0), a))
            return (t(1.0) / (t(1.0) + _exp(-c))).astype(a.dtype)
        if name == "sigmoid_v2":
            return (t(1.0) / (t(1.0) + _exp(-a))).astype(a.dtype)
        if name in ("tanh", "tanh_v2"):
            tmp = (-2.0 * a.astype(np.float64)).astype(a.dtype)
            if name == "tanh":
                tmp = np.where(tmp > t(40.0), t(40.0), tmp)
            return (2.0 / (1.0 + _exp(tmp).astype(np.float64)) - 1.0).astype(a.dtype)
        if name == "relu":
            return np.where(a > t(0.0), a, t(0.0)).astype(a.dtype)
        if name in ("identity", ""):
            return a
    raise ValueError(f"unsupported activation {name!r} (sigmoid, sigmoid_v2, relu, tanh, "
                     "tanh_v2, identity)")


def _f(v):
    return np.float32(v)


def exp256_ps(x: np.ndarray) -> np.ndarray:
    """avx_mathfun.h's exp256_ps on float32 (Cephes: clamp to +-88.376, n = floor(x log2(e)
    + 0.5), x - n C1 - n C2, a degree-5 polynomial by Horner, times 2^n), op by op in float."""
    x = np.minimum(x, _f(88.3762626647949))
    x = np.where(x > _f(-88.3762626647949), x, _f(-88.3762626647949))  # max_ps: NaN -> lo
    fx = x * _f(1.44269504088896341) + _f(0.5)
    tmp = np.floor(fx)
    fx = tmp - np.where(tmp > fx, _f(1.0), _f(0.0))
    x = x - fx * _f(0.693359375)
    x = x - fx * _f(-2.12194440e-4)
    z = x * x
    y = np.full_like(x, _f(1.9875691500E-4))
    for p in (1.3981999507E-3, 8.3334519073E-3, 4.1665795894E-2, 1.6666665459E-1,
              5.0000001201E-1):
        y = y * x + _f(p)
    y = y * z + x + _f(1.0)
    n = fx.astype(np.int32) + np.int32(0x7f)
    pow2n = (n.astype(np.int64) << 23).astype(np.uint32).view(np.float32)
    return (y * pow2n).astype(np.float32)


def _act_avx(name: str, a: np.ndarray) -> np.ndarray:
    """detail::forward::avx activations: float ops on 8 lanes, exp256_ps; max_ps / min_ps
    give their second operand when one is NaN."""
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        if name in ("sigmoid", "sigmoid_v2"):
            t = a
            if name == "sigmoid":
                t = np.where(a > _f(-40.0), a, _f(-40.0))
                t = np.where(t < _f(13.0), t, _f(13.0))
            return _f(1.0) / (_f(1.0) + exp256_ps(_f(0.0) - t))
        if name in ("tanh", "tanh_v2"):
            t = _f(-2.0) * a
            if name == "tanh":
                t = np.where(t < _f(40.0), t, _f(40.0))
            return _f(2.0) / (_f(1.0) + exp256_ps(t)) - _f(1.0)
        if name == "relu":
            return np.where(a > _f(0.0), a, _f(0.0))
        if name in ("identity", ""):
            return a
    raise ValueError(f"unsupported activation {name!r}")


def _batches(offs, is_reverse):
    """sequence2batch: sequence indices longest first (stable), and per step t the input
    rows of the sequences still running (row t from the end when reversed)."""
    lens = [e - s for s, e in zip(offs[:-1], offs[1:])]
    order = sorted(range(len(lens)), key=lambda i: -lens[i])
    steps = []
    for t in range(lens[order[0]] if order else 0):
        active = [i for i in order if lens[i] > t]
        rows = [offs[i + 1] - 1 - t if is_reverse else offs[i] + t for i in active]
        steps.append((active, rows))
    return steps


@lod_kernel("pd_op.lstm")
def lstm(input, h0, c0, weight, bias, *, lods=NO_LOD, use_peepholes=True,  # noqa: A002
         is_reverse=False, is_test=False, gate_activation="sigmoid",
         cell_activation="tanh", candidate_activation="tanh"):
    """LSTMKernel: gates [candidate, input, forget, output] (the old API's order) of width D
    = input width / 4; c = act_cand(g_c) * act_gate(g_i + c_prev * w_ic)
    + c_prev * act_gate(g_f + c_prev * w_fc); h = act_gate(g_o + c * w_oc) * act_cell(c)
    (peephole weights w_* are bias[4D:7D] with use_peepholes, else 0). h0 / c0 are one row per
    sequence. Returns (hidden, cell, batch_gate, batch_cell_pre_act); hidden and cell keep
    the input's LoD."""
    offs = need_lod("lstm", "input", lods[0])[0]
    d = input.shape[1] // 4
    x = input.detach().cpu()
    gate_in = (x + bias.reshape(-1)[:4 * d]).numpy()  # RowwiseAdd, in T
    w = weight.detach().cpu()
    b = bias.reshape(-1).numpy()
    dt = gate_in.dtype.type
    zero = np.zeros(d, gate_in.dtype)
    ci, cf, co = (b[4 * d:5 * d], b[5 * d:6 * d], b[6 * d:7 * d]) if use_peepholes else (zero,) * 3
    hidden = np.zeros((x.shape[0], d), gate_in.dtype)
    cell = np.zeros_like(hidden)
    batch_gate = np.zeros_like(gate_in)
    pre_act = np.zeros_like(hidden)
    h_prev = c_prev = None
    h0n = None if h0 is None else h0.detach().cpu()
    c0n = None if c0 is None else c0.detach().cpu().numpy()
    # phi runs its AVX step for float with a frame size that is a multiple of 8
    act = _act_avx if gate_in.dtype == np.float32 and d % 8 == 0 else _act
    for t, (active, rows) in enumerate(_batches(offs, is_reverse)):
        g = torch.from_numpy(gate_in[rows].copy())
        n = len(active)
        if t > 0:
            g = torch.addmm(g, torch.from_numpy(h_prev[:n].copy()), w)
        elif h0n is not None:
            g = torch.addmm(g, h0n[active], w)
        g = g.numpy()
        if t > 0:
            prev = c_prev[:n]
        elif c0n is not None:
            prev = c0n[active]
        else:
            prev = np.zeros((n, d), gate_in.dtype)
        v_in = act(candidate_activation, g[:, :d])
        v_ig = act(gate_activation, g[:, d:2 * d] + prev * ci)
        v_fg = act(gate_activation, g[:, 2 * d:3 * d] + prev * cf)
        state = (v_in * v_ig + prev * v_fg).astype(dt)
        v_og = act(gate_activation, g[:, 3 * d:] + state * co)
        atv = act(cell_activation, state)
        out = (v_og * atv).astype(dt)
        hidden[rows], cell[rows] = out, state
        batch_gate[rows] = np.concatenate([v_in, v_ig, v_fg, v_og], 1)
        pre_act[rows] = atv
        h_prev, c_prev = out, state
    res = tuple(torch.from_numpy(a) for a in (hidden, cell, batch_gate, pre_act))
    return res, (lods[0], lods[0], None, None)


@lod_kernel("pd_op.gru")
def gru(input, h0, weight, bias, *, lods=NO_LOD, activation="tanh",  # noqa: A002
        gate_activation="sigmoid", is_reverse=False, origin_mode=False, is_test=False):
    """GRUKernel with GRUUnitFunctor: gates [update, reset, candidate] of width D = input
    width / 3. The weight's memory is two matrices back to back, [D, 2D] for the gates
    then [D, D] for the candidate (not column blocks of a [D, 3D]). Per step: gates +=
    h_prev @ W_gate; u, r = act_gate(...); r_h = h_prev * r; candidate += r_h @ W_state;
    c = act(candidate); h = u h_prev + c - u c (origin_mode) or h_prev - u h_prev + u c.
    The first step without h0 has h_prev 0 and skips both GEMMs. Returns (batch_gate,
    batch_reset_hidden_prev, batch_hidden, hidden); hidden keeps the input's LoD."""
    offs = need_lod("gru", "input", lods[0])[0]
    d = input.shape[1] // 3
    x = input.detach().cpu()
    gate_in = (x + bias.reshape(-1)[:3 * d]).numpy() if bias is not None else x.numpy().copy()
    flat = weight.detach().cpu().reshape(-1)
    w_gate, w_state = flat[:2 * d * d].reshape(d, 2 * d), flat[2 * d * d:].reshape(d, d)
    dt = gate_in.dtype.type
    act = _act_avx if gate_in.dtype == np.float32 and d % 8 == 0 else _act
    hidden = np.zeros((x.shape[0], d), gate_in.dtype)
    batch_gate = np.zeros_like(gate_in)
    reset_prev = np.zeros_like(hidden)
    h_prev = None
    for t, (active, rows) in enumerate(_batches(offs, is_reverse)):
        n = len(active)
        if t > 0:
            prev = h_prev[:n]
        elif h0 is not None:
            prev = h0.detach().cpu().numpy()[active]
        else:
            prev = None
        g = torch.from_numpy(gate_in[rows].copy())
        if prev is not None:
            g[:, :2 * d] = torch.addmm(g[:, :2 * d], torch.from_numpy(prev.copy()), w_gate)
        g = g.numpy()
        u = act(gate_activation, g[:, :d])
        r = act(gate_activation, g[:, d:2 * d])
        p = prev if prev is not None else np.zeros((n, d), gate_in.dtype)
        r_h = (p * r).astype(dt)
        cand = g[:, 2 * d:]
        if prev is not None:
            cand = torch.addmm(torch.from_numpy(cand.copy()), torch.from_numpy(r_h),
                               w_state).numpy()
        c = act(activation, cand)
        if origin_mode:
            out = u * p + c - u * c
        else:
            out = p - u * p + u * c
        out = out.astype(dt)
        hidden[rows] = out
        batch_gate[rows] = np.concatenate([u, r, c], 1)
        reset_prev[rows] = r_h
        h_prev = out
    res = tuple(torch.from_numpy(a) for a in (batch_gate, reset_prev, hidden.copy(), hidden))
    return res, (None, None, None, lods[0])


def _jit_act(name: str, a: np.ndarray, exp) -> np.ndarray:
    """phi::jit's VSigmoid (clamped to [-40, 13], 1 / (1 + exp(0 - x))) and VTanh
    (2 sigmoid(2x) - 1, through that clamped sigmoid), VRelu, VIdentity, in float."""
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        if name == "sigmoid":
            c = np.where(a > _f(-40.0), a, _f(-40.0))
            c = np.where(c < _f(13.0), c, _f(13.0))
            return _f(1.0) / (_f(1.0) + exp(_f(0.0) - c))
        if name == "tanh":
            return _f(2.0) * _jit_act("sigmoid", _f(2.0) * a, exp) - _f(1.0)
        if name == "relu":
            return np.where(a > _f(0.0), a, _f(0.0))
        if name in ("identity", ""):
            return a
    raise ValueError(f"unsupported activation {name!r}")


@lod_kernel("pd_op.fusion_gru")
def fusion_gru(x, h0, weight_x, weight_h, bias, *, lods=NO_LOD, activation="tanh",
               gate_activation="sigmoid", is_reverse=False, use_seq=True, origin_mode=False,
               force_fp32_output=False):
    """FusionGRUKernel: xx = x @ weight_x + bias (FCFunctor), then per sequence (in time
    order, reversed with is_reverse) phi::jit's GRU steps: without h0 the first step is
    h = act_gate(u) * act(c) (GRUH1); then gates[u, r] += h_prev @ W_ur, r_h = h_prev *
    act_gate(r), c += r_h @ W_c, h = act_gate(u) act(c) + (1 - act_gate(u)) h_prev
    (GRUHtPart1 / Part2). weight_h's memory is [D, 2D] then [D, D], as gru's. The jit
    activations' exp is the Cephes polynomial of avx_mathfun's exp256_ps, which is what
    Paddle's jit kernels compute on the fixtures (bit-exact, frame 2 and 8, both releases).
    Per row the result does not depend on use_seq (one sequence at a time, or batched by
    length: the GEMMs' rows are independent). Returns (reordered_h0 (empty), xx,
    batched_input, batched_out, hidden); hidden keeps x's LoD."""
    offs = need_lod("fusion_gru", "x", lods[0])[0]
    d = weight_h.shape[0]
    xx = torch.mm(x, weight_x)
    if bias is not None:
        xx = xx + bias.reshape(1, -1)
    flat = weight_h.detach().cpu().reshape(-1)
    w_ur, w_c = flat[:2 * d * d].reshape(d, 2 * d), flat[2 * d * d:].reshape(d, d)
    gates = xx.detach().cpu().numpy()
    hidden = np.zeros((x.shape[0], d), gates.dtype)
    h0n = None if h0 is None else h0.detach().cpu().numpy()
    ex = exp256_ps if gates.dtype == np.float32 else np.exp
    if use_seq or len(offs) == 2:
        # SeqCompute: one sequence at a time, one row per GEMM
        groups = [[([i], [r]) for r in (range(e - 1, s - 1, -1) if is_reverse else range(s, e))]
                  for i, (s, e) in enumerate(zip(offs[:-1], offs[1:]))]
    else:
        # BatchCompute: the sequences batched by length, one GEMM per step for all
        groups = [_batches(offs, is_reverse)]
    for steps in groups:
        prev = None
        for t, (active, rows) in enumerate(steps):
            n = len(active)
            if t == 0 and h0n is not None:
                prev = h0n[active]
            elif t > 0:
                prev = prev[:n]
            g = gates[rows].copy()
            if prev is None:  # GRUH1
                u = _jit_act(gate_activation, g[:, :d], ex)
                c = _jit_act(activation, g[:, 2 * d:], ex)
                h = u * c
            else:  # GRUHtPart1, GRUHtPart2
                g[:, :2 * d] = torch.addmm(torch.from_numpy(g[:, :2 * d].copy()),
                                           torch.from_numpy(prev.copy()), w_ur).numpy()
                r = _jit_act(gate_activation, g[:, d:2 * d], ex)
                r_h = (prev * r).astype(gates.dtype)
                g[:, 2 * d:] = torch.addmm(torch.from_numpy(g[:, 2 * d:].copy()),
                                           torch.from_numpy(r_h), w_c).numpy()
                u = _jit_act(gate_activation, g[:, :d], ex)
                c = _jit_act(activation, g[:, 2 * d:], ex)
                h = u * c + (_f(1.0) - u) * prev
            hidden[rows] = h
            prev = h.astype(gates.dtype)
    hid = torch.from_numpy(hidden)
    empty = torch.zeros((0, d), dtype=hid.dtype)
    return (empty, xx, xx.clone(), hid.clone(), hid), (None, None, None, None, lods[0])


def _jit_lstm(gates, offs, weight_h, b, h0, c0, use_peepholes, is_reverse, use_seq,
              gate_activation, cell_activation, candidate_activation, jit_act):
    """The LSTM steps of fusion_lstm / fused_embedding_fc_lstm on the projected `gates`
    ([rows, 4D]; b is the bias, peepholes at [4D:7D]); returns (hidden, cell) arrays."""
    d = weight_h.shape[0]
    wh = weight_h.detach().cpu()
    dt = gates.dtype
    bn = b.numpy()
    wp = (bn[4 * d:5 * d], bn[5 * d:6 * d], bn[6 * d:7 * d]) if use_peepholes else None
    hidden = np.zeros((gates.shape[0], d), dt)
    cell = np.zeros_like(hidden)
    ex = exp256_ps if dt == np.float32 else np.exp
    h0n = None if h0 is None else h0.detach().cpu().numpy()
    c0n = None if c0 is None else c0.detach().cpu().numpy()

    def act(name, a):
        return jit_act(name, a, ex).astype(dt)

    if use_seq or len(offs) == 2:
        # SeqCompute: one sequence at a time, one row per GEMM
        groups = [[([i], [r]) for r in (range(e - 1, s - 1, -1) if is_reverse else range(s, e))]
                  for i, (s, e) in enumerate(zip(offs[:-1], offs[1:]))]
    else:
        # BatchCompute: the sequences batched by length, one GEMM per step for all
        groups = [_batches(offs, is_reverse)]
    for steps in groups:
        h_prev = c_prev = None
        for t, (active, rows) in enumerate(steps):
            n = len(active)
            if t == 0 and h0n is not None:
                h_prev = h0n[active]
                c_prev = c0n[active] if c0n is not None else np.zeros((n, d), dt)
            elif t > 0:
                h_prev, c_prev = h_prev[:n], c_prev[:n]
            g = gates[rows].copy()
            if h_prev is None:  # LSTMC1H1
                ig = act(gate_activation, g[:, d:2 * d])
                cc = act(candidate_activation, g[:, :d])
                c = cc * ig
                og = g[:, 3 * d:]
                if wp is not None:
                    og = wp[2] * c + og
                og = act(gate_activation, og)
            else:  # LSTMCtHt
                g = torch.addmm(torch.from_numpy(g), torch.from_numpy(h_prev.copy()),
                                wh).numpy()
                if wp is not None:
                    ifg = np.concatenate([wp[0] * c_prev, wp[1] * c_prev], 1) + g[:, d:3 * d]
                    ifg = act(gate_activation, ifg)
                    ig, fg = ifg[:, :d], ifg[:, d:]
                    og = g[:, 3 * d:]
                else:
                    ifo = act(gate_activation, g[:, d:])
                    ig, fg, og = ifo[:, :d], ifo[:, d:2 * d], ifo[:, 2 * d:]
                cc = act(candidate_activation, g[:, :d])
                c = cc * ig + c_prev * fg
                if wp is not None:
                    og = act(gate_activation, wp[2] * c + og)
            h = act(cell_activation, c) * og
            hidden[rows], cell[rows] = h, c
            h_prev, c_prev = h.astype(dt), c.astype(dt)
    return hidden, cell


@lod_kernel("pd_op.fusion_lstm")
def fusion_lstm(x, weight_x, weight_h, bias, h0, c0, *, lods=NO_LOD, use_peepholes=True,
                is_reverse=False, use_seq=True, gate_activation="sigmoid",
                cell_activation="tanh", candidate_activation="tanh", scale_data=1.0,
                shift_data=0.0, scale_weights=(1.0,), force_fp32_output=False):
    """FusionLSTMKernel: xx = x @ weight_x + bias[:4D] (gates [candidate, input, forget,
    output]), then per sequence (reversed with is_reverse) phi::jit's LSTM steps: without
    h0 the first is LSTMC1H1 (c = act_cand(g_c) * act_gate(g_i), h = act_cell(c) *
    act_gate(g_o + w_oc c)), each next gates += h_prev @ weight_h and LSTMCtHt (input and
    forget gates with the peepholes w_ic c_prev, w_fc c_prev; c = act_cand(g_c) i + c_prev f;
    o = act_gate(g_o + w_oc c); h = act_cell(c) o); peepholes are bias[4D:7D]. Returns
    (hidden, cell, xx, ...); hidden and cell keep x's LoD."""
    offs = need_lod("fusion_lstm", "x", lods[0])[0]
    d = weight_h.shape[0]
    b = bias.detach().cpu().reshape(-1)
    xx = torch.mm(x, weight_x) + b[:4 * d].reshape(1, -1)
    hidden, cell = _jit_lstm(xx.detach().cpu().numpy(), offs, weight_h, b, h0, c0,
                             use_peepholes, is_reverse, use_seq, gate_activation,
                             cell_activation, candidate_activation, _jit_act)
    hid, cel = torch.from_numpy(hidden), torch.from_numpy(cell)
    empty = torch.zeros((0, d), dtype=hid.dtype)
    res = (hid, cel, xx, xx.clone(), hid.clone(), cel.clone(), empty, empty.clone(),
           torch.zeros((2, d), dtype=hid.dtype))
    return res, (lods[0], lods[0]) + (None,) * 7


def _vec_act(name: str, a: np.ndarray, exp) -> np.ndarray:
    """funcs/cpu_vec.h's VecActivations: vec_sigmoid clamps to [-40, 13] then 1 / (1 +
    exp(0 - x)); vec_tanh is 2 sigmoid(2x) - 1 through it."""
    return _jit_act(name, a, exp)


@lod_kernel("pd_op.fused_embedding_fc_lstm")
def fused_embedding_fc_lstm(ids, embeddings, weight_h, bias, h0, c0, *, lods=NO_LOD,
                            use_peepholes=True, is_reverse=False, use_seq=True,
                            gate_activation="sigmoid", cell_activation="tanh",
                            candidate_activation="tanh"):
    """FusedEmbeddingFCLSTMKernel: the gates are the embedding rows of the ids (the fuse
    pass folded the projection and its bias into `embeddings`; bias holds only the
    peepholes past 4D here), then fusion_lstm's steps with cpu_vec.h's activations, whose
    exp (MKL's vsExp) gives the C library's expf on the fixtures (bit-exact, frame 2 and 8,
    both releases). Returns (hidden, cell, xx, ...); hidden and cell keep the ids' LoD."""
    offs = need_lod("fused_embedding_fc_lstm", "ids", lods[0])[0]
    d = weight_h.shape[0]
    emb = embeddings.detach().cpu()
    xx = emb[ids.detach().cpu().reshape(-1).long()]
    b = bias.detach().cpu().reshape(-1)
    hidden, cell = _jit_lstm(xx.numpy(), offs, weight_h, b, h0, c0, use_peepholes,
                             is_reverse, use_seq, gate_activation, cell_activation,
                             candidate_activation, lambda n, a, ex: _vec_act(n, a, _exp))
    hid, cel = torch.from_numpy(hidden), torch.from_numpy(cell)
    empty = torch.zeros((0, d), dtype=hid.dtype)
    res = (hid, cel, xx, xx.clone(), hid.clone(), cel.clone(), empty, empty.clone())
    return res, (lods[0], lods[0]) + (None,) * 6


@lod_kernel("pd_op.attention_lstm")
def attention_lstm(x, c0, h0, attention_weight, attention_bias, attention_scalar,
                   attention_scalar_bias, lstm_weight, lstm_bias, *, lods=NO_LOD,
                   gate_activation="sigmoid", cell_activation="tanh",
                   candidate_activation="tanh"):
    """AttentionLSTMKernel: per sequence and step, attention scores over the whole
    sequence, relu(x @ w_x [+ b] + c_prev . w_c) (then relu(s * scalar + scalar_bias)),
    softmaxed (max subtracted, exp, the sum from zero in order, times 1 / sum); the pooled
    input (scores @ the sequence's rows) times the lstm weight's x rows [+ h_prev @ its h
    rows] + bias gives gates [forget, input, output, candidate]; c = f c_prev + i act_cand(g),
    h = act_cell(c) o, with cpu_vec's activations (expf). Returns (hidden, cell, ...);
    hidden and cell keep x's LoD."""
    offs = need_lod("attention_lstm", "x", lods[0])[0]
    xs = x.detach().cpu()
    m = xs.shape[1]
    d = lstm_weight.shape[1] // 4
    aw = attention_weight.detach().cpu().reshape(-1)
    atted = torch.mm(xs, aw[:m].reshape(m, 1)).reshape(-1)
    if attention_bias is not None:
        atted = atted + attention_bias.detach().cpu().reshape(-1)[0]
    atted = atted.numpy()
    w = lstm_weight.detach().cpu()
    w_h, w_x = w[:d], w[d:]
    lb = lstm_bias.detach().cpu().reshape(1, -1)
    dt = atted.dtype.type
    scal = None if attention_scalar is None else dt(attention_scalar.reshape(-1)[0].item())
    sbias = (None if attention_scalar_bias is None
             else dt(attention_scalar_bias.reshape(-1)[0].item()))
    c0n = c0.detach().cpu().numpy()
    h0n = None if h0 is None else h0.detach().cpu().numpy()
    hidden = np.zeros((xs.shape[0], d), atted.dtype)
    cell = np.zeros_like(hidden)

    def act(name, a):
        return _vec_act(name, a, _exp).astype(atted.dtype)

    wc = aw[m:m + d].numpy()
    for i, (s, e) in enumerate(zip(offs[:-1], offs[1:])):
        c_prev = c0n[i:i + 1]
        h_prev = None if h0n is None else h0n[i:i + 1]
        seq = xs[s:e]
        for row in range(s, e):
            cb = dt(0)  # blas DOT, in order
            for k in range(d):
                cb = dt(cb + dt(c_prev[0, k] * wc[k]))
            sc = atted[s:e] + cb
            sc = np.where(sc > dt(0), sc, dt(0))
            if scal is not None:
                sc = sc * scal
                if sbias is not None:
                    sc = sc + sbias
                sc = np.where(sc > dt(0), sc, dt(0))
            mx = sc[0]
            for v in sc[1:]:
                mx = v if mx < v else mx
            ex = _exp((sc + (-mx)).astype(atted.dtype))
            tot = dt(0)
            for v in ex:
                tot = dt(tot + v)
            sc = ex * (dt(1) / tot)
            lx = torch.mm(torch.from_numpy(sc.reshape(1, -1)), seq)
            out = torch.mm(lx, w_x)
            if h_prev is not None:
                out = torch.addmm(out, torch.from_numpy(h_prev.copy()), w_h)
            g = (lb + out).numpy()
            gates = act(gate_activation, g[:, :3 * d])
            cand = act(candidate_activation, g[:, 3 * d:])
            c = gates[:, :d] * c_prev + gates[:, d:2 * d] * cand
            h = act(cell_activation, c) * gates[:, 2 * d:3 * d]
            hidden[row], cell[row] = h[0], c[0]
            h_prev, c_prev = h.astype(atted.dtype), c.astype(atted.dtype)
    hid, cel = torch.from_numpy(hidden), torch.from_numpy(cell)
    res = (hid, cel, torch.from_numpy(atted.reshape(-1, 1)), torch.zeros((0, 1), dtype=hid.dtype),
           torch.zeros((1, m), dtype=hid.dtype), torch.zeros((1, 4 * d), dtype=hid.dtype))
    return res, (lods[0], lods[0]) + (None,) * 4
