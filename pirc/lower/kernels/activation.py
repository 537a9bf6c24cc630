"""Activations, written in the form Paddle's CPU functors compute them.

Where Paddle's formula differs from torch's builtin (elu as max(x,0)+min(alpha*(e^x-1),0),
softplus with log(1+e^x) rather than log1p) the Paddle form is used so results match
bit-for-bit more often; where they agree the torch builtin is used.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from ...runtime.registry import REGISTRY, Behaviour
from ..gelu_erf import M_SQRT1_2, gelu_erf
from ..softmax_rows import SHORT_ROW, softmax_last
from ..specialize import specializer
from ..value_facts import FLOATS
from .eigen_packets import FLT_MIN, eigen_packet_lanes, eigen_packet_log_input


@REGISTRY.register("pd_op.relu", since=1)
def relu(x):
    # phi ReluCPUFunctor: v > 0 ? v : 0, so NaN -> 0 and -0 -> +0 (torch.relu keeps both).
    # threshold is `v <= 0 ? 0 : v` (NaN kept, -0 -> +0), then the NaNs go: two fused
    # element-wise passes, a fifth of compare + where + zeros on a [1, 192, 8, 8] map.
    # (torch.fmax(0, x) is one call with these bits, but a scalar loop: 8x slower on a
    # [64, 8, 16, 16] map.)  torch.threshold, not F.threshold: the same op without
    # F's Python wrapper (1.5 us a call).
    if not x.is_floating_point():
        return torch.relu(x)
    if x.requires_grad:   # autograd through the kernel: no in-place step
        return torch.nan_to_num(torch.threshold(x, 0.0, 0.0), nan=0.0, posinf=math.inf)
    # the NaNs cleared in place on threshold's fresh result: the same bits, one allocation
    return torch.nan_to_num_(torch.threshold(x, 0.0, 0.0), nan=0.0, posinf=math.inf)


@specializer(relu)
def _relu_call(site):
    """A floating relu as the kernel's two calls, without its Python frame; where
    value_facts says x is never NaN, threshold alone (nan_to_num_ would find nothing to
    clear: threshold already made -inf 0).  The in-place step on threshold's fresh result
    gives the gradient the kernel's out-of-place one gives (tests/unit/
    test_speed_paths_facts8.py)."""
    x = site.p["x"]
    if site.dtype(x) not in FLOATS:
        return None
    cleared = site.call(torch.threshold, x, 0.0, 0.0)
    if not site.facts(x).nan:
        return cleared
    return site.call(torch.nan_to_num_, cleared, nan=0.0, posinf=math.inf)



@REGISTRY.register("pd_op.sigmoid", since=1)
def sigmoid(x):
    return torch.sigmoid(x)


@REGISTRY.register("pd_op.tanh", since=1)
def tanh(x):
    return torch.tanh(x)


@REGISTRY.register("pd_op.gelu", since=1)
def gelu(x, *, approximate=False):
    """phi GeluFunctor (cpu/gelu_kernel.cc).  Exact: gelu_erf (pirc/lower/gelu_erf.py, also
    npu_gelu's CPU reference): the wheels' MKLML branch, erf(x * M_SQRT1_2) then
    x * (1 + erf) * 0.5 in x's type, so x * 2 overflows first: +inf for x above half the
    type's max and for +inf, where F.gelu (x * 0.5 * (1 + erf)) keeps x and gives NaN at
    +inf; -inf gives -inf * 0 = NaN.  Bit-exact against Paddle 3.3.1 on every float32
    input, where F.gelu differs on 1.91% of them (gelu_erf.py).
    Approximate: x * 0.5 * (1 + tanh(...)), torch's tanh form."""
    if approximate:
        return F.gelu(x, approximate="tanh")
    return gelu_erf(x)


@REGISTRY.register("pd_op.elu", since=1)
def elu(x, *, alpha=1.0):
    # phi ELUFunctor: x.cwiseMax(0) + (alpha * (x.exp() - 1)).cwiseMin(0)
    return torch.clamp_min(x, 0) + torch.clamp_max(alpha * (torch.exp(x) - 1), 0)


@REGISTRY.register("pd_op.hardtanh", since=1)
def hardtanh(x, *, t_min=0.0, t_max=24.0):
    return torch.clamp(x, t_min, t_max)


# negative_slope is a float attribute before PIR version 4 and a double from 4 on; the
# kernel computes in x's type either way, so one entry serves both.
@REGISTRY.register("pd_op.leaky_relu", since=1)
def leaky_relu(x, *, negative_slope=0.02):
    # Paddle's LeakyReluFunctor: max(x, alpha * x) for alpha < 1, else min(x, alpha * x), with
    # alpha cast to x's dtype; Eigen keeps x on a tie or a NaN product, so a negative slope
    # keeps a zero's sign and a zero slope keeps -inf (torch's `x > 0 ? x : alpha * x` does not).
    # The autograd Function keeps Paddle's gradient (x > 0 ? dy : alpha * dy), which the
    # torch.where's tie rule would not give at 0.
    # Without a gradient to record (inference), the forward alone: the Function's own cost is
    # a good part of the op's on small maps.
    if not x.is_floating_point():
        return F.leaky_relu(x, negative_slope)
    if not (x.requires_grad and torch.is_grad_enabled()):
        return _leaky_relu_forward(x, negative_slope)
    return _PaddleLeakyRelu.apply(x, negative_slope)


def _leaky_relu_forward(x, slope):
    ax = x * torch.tensor(slope, dtype=x.dtype)
    return torch.where(ax > x if slope < 1 else ax < x, ax, x)


class _PaddleLeakyRelu(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, slope):
        ctx.save_for_backward(x)
        ctx.slope = slope
        return _leaky_relu_forward(x, slope)

    @staticmethod
    def backward(ctx, dy):
        (x,) = ctx.saved_tensors
        return torch.where(x > 0, dy, dy * torch.tensor(ctx.slope, dtype=dy.dtype)), None


@REGISTRY.register("pd_op.logit", since=1)
def logit(x, *, eps=1e-6):
    # phi LogitFunctor: clip to [eps, 1-eps] when eps != 0; without eps, x outside [0, 1]
    # gives NaN (log of a negative ratio does that already).
    if eps:
        x = torch.clamp(x, eps, 1.0 - eps)
    # Eigen's vectorised log (full packets) takes a denormal as the smallest normal number
    return torch.log(eigen_packet_log_input(x / (1 - x)))


@REGISTRY.register("pd_op.softplus", since=1)
def softplus(x, *, beta=1.0, threshold=20.0):
    # phi SoftplusFunctor: x*beta > threshold ? x : log(1 + exp(x*beta)) / beta
    xb = x * beta
    # exp of the clamped product: the same values where that branch is taken, and no inf
    # in the other one, whose zero gradient times an infinite exp' would make softplus_grad
    # (autograd of this kernel) NaN for large x.
    soft = torch.log(1 + torch.exp(torch.clamp_max(xb, threshold))) / beta
    return torch.where(xb > threshold, x, soft)


@REGISTRY.register("pd_op.softmax", since=1)
def softmax(x, *, axis=-1):
    if x.dim() == 0:
        return torch.ones_like(x)
    if axis in (-1, x.dim() - 1):
        return softmax_last(x)
    return torch.softmax(x, axis)


@REGISTRY.register("pd_op.log_softmax", since=1)
def log_softmax(x, *, axis=-1):
    if x.dim() == 0:
        return torch.zeros_like(x)
    return torch.log_softmax(x, axis)


@REGISTRY.register("pd_op.sqrt", since=1)
def sqrt(x):
    # float32: Eigen's vectorised sqrt (rsqrt estimate + a Newton step, up to 3 ulp from
    # the IEEE root) gives +inf -> NaN and [-0, smallest normal) -> +0 in full packets
    out = torch.sqrt(x)
    if x.dtype != torch.float32:
        return out
    lanes = eigen_packet_lanes(x)
    special = (x == math.inf) | ((x >= 0) & (x < FLT_MIN))
    fix = torch.where(x == math.inf, torch.full_like(x, math.nan), torch.zeros_like(x))
    return torch.where(lanes & special, fix, out)


@REGISTRY.register("pd_op.log", since=1)
def log(x):
    return torch.log(x)


# Specialisations (pirc.lower.specialize): the torch call itself where the kernel is one.
for _kernel, _torch_fn in ((sigmoid, torch.sigmoid), (tanh, torch.tanh)):
    specializer(_kernel)(lambda site, _fn=_torch_fn: site.call(_fn, site.p["x"]))


@specializer(gelu)
def _gelu_call(site):
    """Exact: gelu_erf's calls in the graph, its numbers as 0-d tensors of x's dtype
    (Site.scalar): the same operations in the same order, so the same bits, without the
    kernel's frame and torch wrapping three numbers on every call.  erf is out of place (the
    kernel's in-place step is taken only without autograd; erf's gradient reads its input)."""
    x = site.p["x"]
    if site.p["approximate"]:
        return site.call(F.gelu, x, approximate="tanh")
    dtype = site.dtype(x)
    t = site.call(torch.erf, site.call(torch.mul, x, site.scalar(M_SQRT1_2, dtype)))
    t = site.method("add_", t, site.scalar(1, dtype))
    return site.method("mul_", site.call(torch.mul, x, t), site.scalar(0.5, dtype))


@specializer(softmax)
def _softmax_call(site):
    x, axis = site.p["x"], site.p["axis"]
    rank = site.rank(x)
    if not rank:  # unknown, or 0-D (the kernel's special case)
        return None
    if axis in (-1, rank - 1) and site.shape(x)[-1] < SHORT_ROW:   # -1: dynamic
        # rows that are, or may be, short: softmax_last chooses its route on the run's shape
        return site.call(softmax_last, x)
    return site.call(torch.softmax, x, axis)


# -- more activations, each as its phi functor
# writes it (FloatAttribute values are float32 in Paddle: `f32` rounds them so a float64 input
# meets the same constant).

def f32(v) -> float:
    """A float attribute as the C++ float Paddle keeps it."""
    return float(torch.tensor(float(v), dtype=torch.float32))


@REGISTRY.register("pd_op.celu", since=1)
def celu(x, *, alpha=1.0):
    # phi CELUFunctor: x < 0 ? alpha * (exp(x / alpha) - 1) : x
    a = f32(alpha)
    return torch.where(x < 0, a * (torch.exp(x / a) - 1), x)


@REGISTRY.register("pd_op.selu", since=1)
def selu(x, *, scale=1.0507009873554805, alpha=1.6732632423543772):
    # phi SeluFunctor: scale * (x <= 0 ? alpha * exp(x) - alpha : x)
    a, s = f32(alpha), f32(scale)
    return s * torch.where(x <= 0, a * torch.exp(x) - a, x)


@REGISTRY.register("pd_op.mish", since=1)
def mish(x, *, lambda_=20.0):
    # phi MishFunctor: x * tanh(x > threshold ? x : log(1 + exp(x))); the op's attribute is
    # `lambda` (threshold in the functor), which the lowering passes as lambda_
    th = f32(lambda_)
    sp = torch.where(x > th, x, torch.log(1 + torch.exp(torch.clamp_max(x, th))))
    return x * torch.tanh(sp)


def _shrink_mask(x, threshold, inclusive):
    t = f32(threshold)
    if inclusive:
        return (x <= -t) | (x >= t)
    return (x < -t) | (x > t)


@REGISTRY.register("pd_op.hardshrink", since=1, until=2, flags=Behaviour(
    notes="keeps |x| > threshold (Paddle 3.0)"))
def hardshrink_v1(x, *, threshold=0.5):
    # x * mask: a dropped negative x gives -0, a NaN stays NaN
    return x * _shrink_mask(x, threshold, False).to(x.dtype)


@REGISTRY.register("pd_op.hardshrink", since=2, flags=Behaviour(
    notes="keeps |x| >= threshold (Paddle 3.1+; checked on the 3.1.1 wheel)"))
def hardshrink(x, *, threshold=0.5):
    return x * _shrink_mask(x, threshold, True).to(x.dtype)


@REGISTRY.register("pd_op.softshrink", since=1)
def softshrink(x, *, threshold=0.5):
    # phi SoftShrinkFunctor: (x > l) * (x - l) + (x < -l) * (x + l)
    t = f32(threshold)
    return (x > t).to(x.dtype) * (x - t) + (x < -t).to(x.dtype) * (x + t)


@REGISTRY.register("pd_op.softsign", since=1)
def softsign(x):
    return x / (1 + torch.abs(x))


@REGISTRY.register("pd_op.tanh_shrink", since=1)
def tanh_shrink(x):
    return x - torch.tanh(x)


@REGISTRY.register("pd_op.thresholded_relu", since=1)
def thresholded_relu(x, *, threshold=1.0, value=0.0):
    # phi ThresholdedReluFunctor: (x > th) * x + (x <= th) * value
    th = f32(threshold)
    return (x > th).to(x.dtype) * x + (x <= th).to(x.dtype) * f32(value)


@REGISTRY.register("pd_op.logsigmoid", since=1)
def logsigmoid(x):
    # phi LogSigmoidFunctor: t = max(-x, 0); -t - log(exp(-t) + exp(-x - t)). Eigen's packet
    # negation is 0 - a, so there -(+0) is +0 (the 0 at large x is +0 in full packets and
    # -0 in the scalar tail, eigen_packets.py)
    lanes = eigen_packet_lanes(x)

    def neg(a):
        return torch.where(lanes, 0 - a, -a)

    nx = neg(x)
    t = torch.clamp_min(nx, 0)
    return neg(t) - torch.log(torch.exp(neg(t)) + torch.exp(nx - t))


@REGISTRY.register("pd_op.relu6", since=1)
def relu6(x):
    return torch.clamp(x, 0, 6)


@REGISTRY.register("pd_op.hardswish", since=1)
def hardswish(x):
    # phi HardSwishFunctor: min(max(x + 3, 0), 6) * x / 6
    return torch.clamp(x + 3, 0, 6) * x / 6


@REGISTRY.register("pd_op.hardsigmoid", since=1)
def hardsigmoid(x, *, slope=0.2, offset=0.5):
    return torch.clamp(x * f32(slope) + f32(offset), 0, 1)


@REGISTRY.register("pd_op.swish", since=1)
def swish(x):
    # phi SwishFunctor with beta 1: x / (1 + exp(-x))
    return x / (1 + torch.exp(-x))


@REGISTRY.register("pd_op.stanh", since=1)
def stanh(x, *, scale_a=0.67, scale_b=1.7159):
    return f32(scale_b) * torch.tanh(f32(scale_a) * x)
