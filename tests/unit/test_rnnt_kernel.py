"""pd_op.warprnnt beyond its fixtures (which fetch the loss only): the gradient it returns
is d loss / d input, checked against autograd through an independent per-cell recursion,
and bad operands are refused with a message."""
import re

import pytest
import torch

from pirc.lower.kernels.rnnt import warprnnt


def _reference_loss(lp, labels, T, U, blank):
    """-log P(labels) of one sample by the textbook forward recursion (autograd-friendly)."""
    alpha = {(0, 0): lp.new_zeros(())}
    for t in range(T):
        for u in range(U):
            if t or u:
                terms = []
                if t:
                    terms.append(alpha[t - 1, u] + lp[t - 1, u, blank])
                if u:
                    terms.append(alpha[t, u - 1] + lp[t, u - 1, labels[u - 1]])
                alpha[t, u] = torch.logsumexp(torch.stack(terms), 0)
    return -(alpha[T - 1, U - 1] + lp[T - 1, U - 1, blank])


def _case():
    gen = torch.Generator().manual_seed(3)
    acts = torch.randn(3, 5, 4, 6, generator=gen, dtype=torch.float64)
    label = torch.tensor([[1, 2, 3], [4, 0, 0], [2, 2, 5]], dtype=torch.int32)
    il = torch.tensor([5, 3, 4], dtype=torch.int32)
    ll = torch.tensor([3, 1, 2], dtype=torch.int32)
    return acts, label, il, ll


@pytest.mark.parametrize("blank", [0, 5])  # no used label equals blank: see below
def test_loss_and_gradient_match_autograd(blank):
    acts, label, il, ll = _case()
    loss, grad = warprnnt(acts, label, il, ll, blank=blank, fastemit_lambda=0.0)
    assert loss.shape == (3,) and grad.shape == acts.shape and grad.dtype == torch.float64
    x = acts.clone().requires_grad_(True)
    ref = torch.stack([_reference_loss(x[b], label[b].tolist(), int(il[b]), int(ll[b]) + 1,
                                       blank) for b in range(3)])
    ref.sum().backward()
    torch.testing.assert_close(loss, ref.detach(), rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(grad, x.grad, rtol=1e-10, atol=1e-12)
    # past a sample's lengths nothing is read, so its gradient is zero there
    assert not grad[1, 3:].any() and not grad[1, :, 2:].any()


def test_label_equal_to_blank_overwrites_its_blank_entry():
    # the kernel stores the label transition's gradient over the blank one of the same cell
    # (as Paddle 3.3.1 gives it), so there the result is not the summed derivative
    acts, label, il, ll = _case()
    _, grad = warprnnt(acts, label, il, ll, blank=2, fastemit_lambda=0.0)
    _, scaled = warprnnt(acts, label, il, ll, blank=2, fastemit_lambda=1.0)
    # sample 2 emits label 2 from u = 0 and 1: those cells hold label gradients only
    torch.testing.assert_close(scaled[2, :4, :2, 2], 2 * grad[2, :4, :2, 2], rtol=1e-15, atol=0)
    assert torch.equal(scaled[2, :3, 2, 2], grad[2, :3, 2, 2])   # u = 2: a blank entry


def test_fastemit_scales_label_gradients_only():
    acts, label, il, ll = _case()
    loss0, grad0 = warprnnt(acts, label, il, ll, blank=0, fastemit_lambda=0.0)
    loss1, grad1 = warprnnt(acts, label, il, ll, blank=0, fastemit_lambda=0.5)
    assert torch.equal(loss0, loss1)
    assert torch.equal(grad0[..., 0], grad1[..., 0])
    torch.testing.assert_close(grad1[..., 1:], 1.5 * grad0[..., 1:], rtol=1e-15, atol=0)


@pytest.mark.parametrize("change,message", [
    (lambda a, lab, il, ll: (a[0], lab, il, ll), "ranks 4, 2, 1, 1"),
    (lambda a, lab, il, ll: (a, lab, il + 1, ll), "input length 6"),
    (lambda a, lab, il, ll: (a, lab, il, ll + 1), "label length 4"),
    (lambda a, lab, il, ll: (a, lab + 4, il, ll), "labels in [0, 6)"),
    (lambda a, lab, il, ll: (a.int(), lab, il, ll), "float32 or float64"),
])
def test_bad_operands_are_refused(change, message):
    with pytest.raises((ValueError, TypeError), match=re.escape(message)):
        warprnnt(*change(*_case()), blank=0, fastemit_lambda=0.0)


def test_bad_attributes_are_refused():
    with pytest.raises(ValueError, match="blank must be in"):
        warprnnt(*_case(), blank=6, fastemit_lambda=0.0)
    with pytest.raises(ValueError, match="fastemit_lambda must be >= 0"):
        warprnnt(*_case(), blank=0, fastemit_lambda=-0.1)
