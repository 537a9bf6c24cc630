"""Optimizer update ops: one training step of a parameter and its state, in the arithmetic
order of Paddle's CPU kernels (phi/kernels/cpu/*_kernel.cc and their jit "refer" loops).

Each returns every result of the op in order, None for an optional result the op does not
produce (moment2_max_out without amsgrad, master_param_out without multi_precision: pirc
runs no mixed-precision master weights, so that path is the plain one). Learning rates and
beta powers are [1] tensors; Paddle reads them as scalars of the parameter's dtype.
"""

from __future__ import annotations

import torch

from ...runtime.registry import REGISTRY
from .operands import number


def _scalar(t, like: torch.Tensor) -> torch.Tensor:
    """A [1] state tensor or a Scalar operand as a 0-d tensor of `like`'s dtype."""
    if isinstance(t, torch.Tensor):
        return t.reshape(()).to(like.dtype)
    return torch.tensor(float(number(t)), dtype=like.dtype)


@REGISTRY.register("pd_op.sgd_", since=1)
def sgd_(param, learning_rate, grad, master_param=None, *, multi_precision=False):
    return param - _scalar(learning_rate, param) * grad, None


@REGISTRY.register("pd_op.momentum_", since=1)
def momentum_(param, grad, velocity, learning_rate, master_param=None, *, mu=0.9,
              use_nesterov=False, regularization_method="", regularization_coeff=0.0,
              multi_precision=False, rescale_grad=1.0):
    # phi CPUDenseMomentumFunctor: g = grad (+ coeff * param for l2_decay; the CPU kernel
    # ignores rescale_grad, only the GPU one applies it); v' = mu * v + g;
    # nesterov: p' = p - (g + mu * v') * lr, else p' = p - lr * v'
    lr = _scalar(learning_rate, param)
    g = grad
    if regularization_method == "l2_decay":
        g = param * regularization_coeff + g
    v = velocity * mu + g
    if use_nesterov:
        return param - (g + mu * v) * lr, v, None
    return param - lr * v, v, None


def _adam_step(param, grad, lr, moment1, moment2, moment2_max, beta1_pow, beta2_pow,
               beta1, beta2, epsilon, amsgrad):
    b1, b2 = _scalar(beta1, param), _scalar(beta2, param)
    b1p, b2p = _scalar(beta1_pow, param), _scalar(beta2_pow, param)
    # the bias corrections fold into the step size and epsilon, as Paddle's kernel does
    step = lr * (torch.sqrt(1 - b2p) / (1 - b1p))
    eps = _scalar(epsilon, param) * torch.sqrt(1 - b2p)
    m1 = b1 * moment1 + (1 - b1) * grad
    m2 = b2 * moment2 + (1 - b2) * grad * grad
    m2_max = torch.maximum(m2, moment2_max) if amsgrad else None
    denom = torch.sqrt(m2_max if amsgrad else m2) + eps
    return m1, m2, m2_max, step, denom, (b1 * b1p).reshape(beta1_pow.shape), \
        (b2 * b2p).reshape(beta2_pow.shape)


@REGISTRY.register("pd_op.adam_", since=1)
def adam_(param, grad, learning_rate, moment1, moment2, moment2_max, beta1_pow, beta2_pow,
          master_param=None, skip_update=None, beta1=0.9, beta2=0.999, epsilon=1e-8, *,
          lazy_mode=False, min_row_size_to_use_multithread=1000, multi_precision=False,
          use_global_beta_pow=False, amsgrad=False):
    if skip_update is not None and bool(skip_update.reshape(-1)[0]):
        return param, moment1, moment2, moment2_max if amsgrad else None, beta1_pow, beta2_pow, None
    m1, m2, m2_max, step, denom, b1p, b2p = _adam_step(
        param, grad, _scalar(learning_rate, param), moment1, moment2, moment2_max, beta1_pow,
        beta2_pow, beta1, beta2, epsilon, amsgrad)
    if use_global_beta_pow:
        b1p, b2p = beta1_pow, beta2_pow
    return param + (-step) * (m1 / denom), m1, m2, m2_max, b1p, b2p, None


@REGISTRY.register("pd_op.adamw_", since=1)
def adamw_(param, grad, learning_rate, moment1, moment2, moment2_max, beta1_pow, beta2_pow,
           master_param=None, skip_update=None, beta1=0.9, beta2=0.999, epsilon=1e-8, *,
           lr_ratio=1.0, coeff=0.01, with_decay=False, lazy_mode=False,
           min_row_size_to_use_multithread=1000, multi_precision=False,
           use_global_beta_pow=False, amsgrad=False):
    # phi AdamwDenseKernel: without decay (or skipping) it is adam_; with decay the
    # parameter first loses lr * lr_ratio * coeff of itself, then takes the Adam step at
    # the unscaled lr (lr_ratio scales the decay only)
    if (skip_update is not None and bool(skip_update.reshape(-1)[0])) or not with_decay:
        return adam_(param, grad, learning_rate, moment1, moment2, moment2_max, beta1_pow,
                     beta2_pow, master_param, skip_update, beta1, beta2, epsilon,
                     use_global_beta_pow=use_global_beta_pow, amsgrad=amsgrad)
    old_lr = _scalar(learning_rate, param)
    ratio = torch.tensor(lr_ratio, dtype=param.dtype)
    m1, m2, m2_max, step, denom, b1p, b2p = _adam_step(
        param, grad, old_lr, moment1, moment2, moment2_max, beta1_pow, beta2_pow,
        beta1, beta2, epsilon, amsgrad)
    if use_global_beta_pow:
        b1p, b2p = beta1_pow, beta2_pow
    decayed = param - old_lr * ratio * torch.tensor(coeff, dtype=param.dtype) * param
    return decayed + (-step) * (m1 / denom), m1, m2, m2_max, b1p, b2p, None


@REGISTRY.register("pd_op.adagrad_", since=1)
def adagrad_(param, grad, moment, learning_rate, master_param=None, *, epsilon=1e-6,
             multi_precision=False):
    m = moment + grad * grad
    return param - _scalar(learning_rate, param) * grad / (torch.sqrt(m) + epsilon), m, None


@REGISTRY.register("pd_op.rmsprop_", since=1)
def rmsprop_(param, mean_square, grad, moment, learning_rate, mean_grad=None,
             master_param=None, *, epsilon=1e-10, decay=0.9, momentum=0.0, centered=False,
             multi_precision=False):
    # phi RmspropDenseKernel: ms' = rho * ms + (1 - rho) g^2; centered: mg' likewise and
    # mom' = momentum * mom + lr * g / sqrt(ms' - mg'^2 + eps); p' = p - mom'
    lr = _scalar(learning_rate, param)
    ms = decay * mean_square + (1 - decay) * grad * grad
    if centered:
        mg = decay * mean_grad + (1 - decay) * grad
        mom = momentum * moment + lr * grad / torch.sqrt(ms - mg * mg + epsilon)
        return param - mom, mom, ms, mg, None
    mom = momentum * moment + lr * grad / torch.sqrt(ms + epsilon)
    return param - mom, mom, ms, None, None


@REGISTRY.register("pd_op.adamax_", since=1)
def adamax_(param, grad, learning_rate, moment, inf_norm, beta1_pow, master_param=None, *,
            beta1=0.9, beta2=0.999, epsilon=1e-8, multi_precision=False):
    lr = _scalar(learning_rate, param) / (1 - _scalar(beta1_pow, param))
    m = beta1 * moment + (1 - beta1) * grad
    u = torch.maximum(beta2 * inf_norm + epsilon, torch.abs(grad))
    return param - lr * (m / u), m, u, None


@REGISTRY.register("pd_op.adadelta_", since=1)
def adadelta_(param, grad, avg_squared_grad, avg_squared_update, learning_rate,
              master_param=None, *, rho=0.95, epsilon=1e-6, multi_precision=False):
    g2 = rho * avg_squared_grad + (1 - rho) * grad * grad
    update = -torch.sqrt((avg_squared_update + epsilon) / (g2 + epsilon)) * grad
    u2 = rho * avg_squared_update + (1 - rho) * update * update
    return param + _scalar(learning_rate, param) * update, g2, u2, None


@REGISTRY.register("pd_op.lamb_", since=1)
def lamb_(param, grad, learning_rate, moment1, moment2, beta1_pow, beta2_pow,
          master_param=None, skip_update=None, *, weight_decay=0.01, beta1=0.9, beta2=0.999,
          epsilon=1e-6, always_adapt=False, multi_precision=False):
    # phi LambKernel: the Adam direction with bias correction plus decay, scaled by the
    # trust ratio ||p|| / ||r|| (1 where either norm is 0)
    if skip_update is not None and bool(skip_update.reshape(-1)[0]):
        return param, moment1, moment2, beta1_pow, beta2_pow, None
    b1p, b2p = _scalar(beta1_pow, param), _scalar(beta2_pow, param)
    m1 = beta1 * moment1 + (1 - beta1) * grad
    m2 = beta2 * moment2 + (1 - beta2) * grad * grad
    r = (m1 / (1 - b1p)) / (torch.sqrt(m2 / (1 - b2p)) + epsilon)
    if weight_decay > 0 or always_adapt:
        r = r + weight_decay * param
    p_norm, r_norm = torch.linalg.vector_norm(param), torch.linalg.vector_norm(r)
    ratio = torch.where((p_norm > 0) & (r_norm > 0), p_norm / r_norm,
                        torch.ones((), dtype=param.dtype))
    if not (weight_decay > 0 or always_adapt):
        ratio = torch.ones((), dtype=param.dtype)
    out = param - _scalar(learning_rate, param) * ratio * r
    return out, m1, m2, (beta1 * b1p).reshape(beta1_pow.shape), \
        (beta2 * b2p).reshape(beta2_pow.shape), None


# -- mixed-precision loss scaling ----------------------------------------------------------------

@REGISTRY.register("pd_op.check_finite_and_unscale_", since=1)
def check_finite_and_unscale_(x, scale):
    # phi CheckFiniteAndUnscaleKernel: the tensors in order, each x * (1 / scale) until one
    # holds an inf or NaN; from that one on each is x * 0 (so an inf becomes NaN);
    # found_infinite is [1] bool
    found = torch.zeros(1, dtype=torch.bool)
    outs = []
    for t in x:
        found = found | ~torch.isfinite(t).all().reshape(1)
        inv = 1 / scale.reshape(()).to(t.dtype)
        outs.append(t * torch.where(found.reshape(()), torch.zeros((), dtype=t.dtype), inv))
    return outs, found


@REGISTRY.register("pd_op.update_loss_scaling_", since=1)
def update_loss_scaling_(x, found_infinite, prev_loss_scaling, in_good_steps, in_bad_steps,
                         stop_update=None, *, incr_every_n_steps=1000,
                         decr_every_n_nan_or_inf=2, incr_ratio=2.0, decr_ratio=0.5):
    # phi UpdateLossScalingKernel: a step with an inf/nan zeroes the gradients and counts a
    # bad step (decr_every bad steps in a row scale the loss down, never under 1); a good
    # step counts up (incr_every in a row scale it up, if the result stays finite)
    found = bool(found_infinite.reshape(-1)[0])
    outs = [torch.zeros_like(t) for t in x] if found else list(x)
    if stop_update is not None and bool(stop_update.reshape(-1)[0]):
        return outs, prev_loss_scaling, in_good_steps, in_bad_steps
    ls, good, bad = prev_loss_scaling.clone(), in_good_steps.clone(), in_bad_steps.clone()
    if found:
        good.zero_()
        bad += 1
        if int(bad.reshape(-1)[0]) == decr_every_n_nan_or_inf:
            ls = torch.clamp_min(prev_loss_scaling * decr_ratio, 1.0)
            bad.zero_()
    else:
        bad.zero_()
        good += 1
        if int(good.reshape(-1)[0]) == incr_every_n_steps:
            new = prev_loss_scaling * incr_ratio
            if bool(torch.isfinite(new).all()):
                ls = new
            good.zero_()
    return outs, ls, good, bad
