"""pd_op.warprnnt: the RNN-transducer loss, as Paddle's CPU kernel computes it
(phi/kernels/impl/warprnnt_kernel_impl.h calling warp-transducer's CpuRNNT,
phi/kernels/funcs/warp_transducer/include/detail/cpu_rnnt.h).

input [B, maxT, maxU, D] is taken as log-probabilities as it is: the CPU kernel applies no
log_softmax (paddle.nn.functional.rnnt_loss does that before the op on CPU). Per sample b,
T = input_lengths[b] and U = label_lengths[b] + 1; its labels start at flat offset
b * (maxU - 1) of `label`. In log space, alpha[0, 0] = 0 and
alpha[t, u] = lse(alpha[t, u-1] + emit[t, u-1], alpha[t-1, u] + blank[t-1, u]); beta runs
the same recursion from beta[T-1, U-1] = blank[T-1, U-1]. loss = -(alpha[T-1, U-1] +
blank[T-1, U-1]). The gradient (w.r.t. the log-probabilities; zero where no transition
reads it) is -exp(lp + alpha + beta_next - beta[0, 0]) at the blank and label entries, the
label entries scaled by 1 + fastemit_lambda (fastemit never changes the loss).

Cells on one anti-diagonal t + u depend only on the previous one, so each diagonal is one
vectorised step; every cell gets the kernel's own operations in the kernel's order. Against
Paddle 3.3.1 on 74 random cases (float32 and float64, every blank, short lengths, fastemit):
every loss bit-exact, the float32 gradients bit-exact but for 1 ulp in one case, the float64
ones within 1 ulp (torch's exp vs the C library's).
"""

from __future__ import annotations

import torch

from ...runtime.registry import REGISTRY


def _exp(x):
    """std::exp of ProbT: for float, glibc's expf, which evaluates in double and rounds once
    (torch's float32 exp is a float polynomial that can land 1 ulp away)."""
    return torch.exp(x.double()).to(x.dtype) if x.dtype == torch.float32 else torch.exp(x)


def _lse(a, b):
    """rnnt_helper::log_sum_exp(a, b): log1p(exp(lo - hi)) + hi, an -inf operand giving
    the other as it is. Its unqualified exp / log1p are the C library's double ones: for
    float the difference lo - hi rounds to float, the rest is double rounded once."""
    a_big = a > b
    hi, lo = torch.where(a_big, a, b), torch.where(a_big, b, a)
    r = (torch.log1p(torch.exp((lo - hi).double())) + hi.double()).to(a.dtype)
    return torch.where(a == -torch.inf, b, torch.where(b == -torch.inf, a, r))


def _diagonal(n, T, U):
    """(t, u) index tensors of the cells t + u == n of a T x U lattice."""
    t = torch.arange(max(0, n - U + 1), min(T - 1, n) + 1)
    return t, n - t


def _alphas(blank_lp, emit_lp, T, U):
    alpha = torch.zeros(T, U, dtype=blank_lp.dtype)
    for n in range(1, T + U - 1):
        t, u = _diagonal(n, T, U)
        tp, up = t.clamp(min=1) - 1, u.clamp(min=1) - 1     # predecessors (masked below)
        no_emit = alpha[tp, u] + blank_lp[tp, u]
        emit = alpha[t, up] + emit_lp[t, up] if U > 1 else no_emit
        alpha[t, u] = torch.where(u == 0, no_emit,
                                  torch.where(t == 0, emit, _lse(emit, no_emit)))
    return alpha


def _betas(blank_lp, emit_lp, T, U):
    beta = torch.empty(T, U, dtype=blank_lp.dtype)
    beta[T - 1, U - 1] = blank_lp[T - 1, U - 1]
    for n in range(T + U - 3, -1, -1):
        t, u = _diagonal(n, T, U)
        tn, un = (t + 1).clamp(max=T - 1), (u + 1).clamp(max=U - 1)   # successors
        ue = u.clamp(max=max(U - 2, 0))
        no_emit = beta[tn, u] + blank_lp[t, u]
        emit = beta[t, un] + emit_lp[t, ue] if U > 1 else no_emit
        beta[t, u] = torch.where(u == U - 1, no_emit,
                                 torch.where(t == T - 1, emit, _lse(emit, no_emit)))
    return beta


def _sample(lp, labels, T, U, blank, emit_scale):
    """(loss, gradient [maxT, maxU, D]) of one sample's log-probabilities lp."""
    blank_lp = lp[:T, :U, blank]
    index = labels[:U - 1].expand(T, U - 1).unsqueeze(-1)
    emit_lp = lp[:T, :U - 1].gather(-1, index).squeeze(-1)
    alpha = _alphas(blank_lp, emit_lp, T, U)
    beta = _betas(blank_lp, emit_lp, T, U)
    loglike = beta[0, 0]
    grad = torch.zeros_like(lp)
    # blank transitions t -> t + 1, then label transitions u -> u + 1 (a label equal to blank
    # overwrites the blank entry of its cell, as the kernel's loop does), then the final blank
    grad[:T - 1, :U, blank] = -_exp(blank_lp[:-1] + (alpha[:-1] + beta[1:]) - loglike)
    # (1. + fastemit_lambda) is a double in the kernel: the product rounds once to ProbT
    e = _exp(emit_lp + (alpha[:, :-1] + beta[:, 1:]) - loglike)
    grad[:T, :U - 1].scatter_(-1, index, -(emit_scale * e.double()).to(lp.dtype).unsqueeze(-1))
    grad[T - 1, U - 1, blank] = -_exp(blank_lp[-1, -1] + alpha[-1, -1] - loglike)
    return -(alpha[-1, -1] + blank_lp[-1, -1]), grad


@REGISTRY.register("pd_op.warprnnt", since=1)
def warprnnt(input, label, input_lengths, label_lengths, *, blank=0,  # noqa: A002
             fastemit_lambda=0.0):
    if input.dtype not in (torch.float32, torch.float64):
        raise TypeError(f"warprnnt: input must be float32 or float64, got {input.dtype}")
    ranks = (input.dim(), label.dim(), input_lengths.dim(), label_lengths.dim())
    if ranks != (4, 2, 1, 1):
        raise ValueError(f"warprnnt: input, label, input_lengths, label_lengths must have "
                         f"ranks 4, 2, 1, 1, got {ranks}")
    B, max_t, max_u, D = input.shape
    if min(B, max_t, max_u, D) <= 0:
        raise ValueError(f"warprnnt: every dimension of input must be > 0, got "
                         f"{list(input.shape)}")
    if fastemit_lambda < 0:
        raise ValueError(f"warprnnt: fastemit_lambda must be >= 0, got {fastemit_lambda}")
    if not 0 <= blank < D:
        raise ValueError(f"warprnnt: blank must be in [0, {D}), got {blank}")
    ts, us = input_lengths.reshape(-1).tolist(), label_lengths.reshape(-1).tolist()
    if len(ts) != B or len(us) != B:
        raise ValueError(f"warprnnt: input_lengths and label_lengths need {B} values, got "
                         f"{len(ts)} and {len(us)}")
    # the kernel reads sample b's labels at b * (maxU - 1) of the flat label buffer
    flat = label.reshape(-1).to(torch.int64)
    emit_scale = 1.0 + float(fastemit_lambda)
    losses, grads = [], []
    for b, (T, n_lab) in enumerate(zip(ts, us)):
        if not (1 <= T <= max_t and 0 <= n_lab < max_u):
            raise ValueError(f"warprnnt: sample {b} has input length {T} (1..{max_t}) and "
                             f"label length {n_lab} (0..{max_u - 1})")
        start = b * (max_u - 1)
        labels = flat[start:start + n_lab]
        if labels.numel() != n_lab or ((labels < 0) | (labels >= D)).any():
            raise ValueError(f"warprnnt: sample {b} needs {n_lab} labels in [0, {D}), got "
                             f"{labels.tolist()}")
        loss, grad = _sample(input[b], labels, T, n_lab + 1, blank, emit_scale)
        losses.append(loss)
        grads.append(grad)
    return torch.stack(losses), torch.stack(grads)
