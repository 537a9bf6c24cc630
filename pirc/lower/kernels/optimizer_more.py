"""The less common optimizer update ops, in the arithmetic order of Paddle's CPU kernels
(phi/kernels/cpu/*_kernel.cc, phi/kernels/impl/*_kernel_impl.h): asgd, rprop, nadam, radam,
decayed_adagrad, ftrl, dpsgd, lars and sparse momentum, the multi-tensor merged / fused adam
and the model-average accumulators.

Like optimizer.py: every result in order, None for an optional result not produced (the
master-weight outputs: pirc runs no mixed precision); [1] learning rates and powers are read
as scalars of the parameter's dtype.
"""

from __future__ import annotations

import torch

from ...runtime.registry import REGISTRY
from .operands import c_int_cast
from .optimizer import _scalar, adam_, adamw_


@REGISTRY.register("pd_op.asgd_", since=1)
def asgd_(param, grad, learning_rate, d, y, n, master_param=None, *, multi_precision=False):
    # phi ASGDKernelCPUImpl: d' = d - y + g; y' = g; p' = p - (lr / n) * d'
    d_out = d - y + grad
    return param - (_scalar(learning_rate, param) / _scalar(n, param)) * d_out, d_out, grad, None


@REGISTRY.register("pd_op.rprop_", since=1)
def rprop_(param, grad, prev, learning_rate, master_param, learning_rate_range, etas, *,
           multi_precision=False):
    # phi RpropKernelCPUImpl: by the sign of g * prev, eta = eta+ (> 0), 1 (== 0), eta- (< 0,
    # and g is zeroed); lr' = clip(lr * eta, lr_min, lr_max) (a NaN product stays NaN);
    # p' = p - sign(g) * lr'; prev' = g (zeroed where the sign flipped)
    lr_min, lr_max = learning_rate_range[0], learning_rate_range[1]
    eta_neg, eta_pos = etas[0], etas[1]
    prod = grad * prev
    one = torch.ones((), dtype=param.dtype)
    eta = torch.where(prod > 0, eta_pos, torch.where(prod == 0, one, eta_neg))
    # a NaN product matches no branch: Paddle leaves eta uninitialised there; 1 is the
    # value a fresh allocation most often holds, the fixtures have no NaN gradient
    g = torch.where(prod < 0, torch.zeros((), dtype=param.dtype), grad)
    lr = learning_rate * eta
    lr = torch.where(lr > lr_max, lr_max, torch.where(lr < lr_min, lr_min, lr))
    return param - torch.sign(g) * lr, g, lr, None


@REGISTRY.register("pd_op.nadam_", since=1)
def nadam_(param, grad, learning_rate, momentum_decay_pow, beta2_pow, mu_product, moment1,
           moment2, master_param=None, *, beta1=0.9, beta2=0.999, epsilon=1e-8,
           momentum_decay=0.004, multi_precision=False):
    # phi NAdamKernel (impl/nadam_kernel_impl.h), same expression order
    dt = param.dtype
    b1, b2 = torch.tensor(beta1, dtype=dt), torch.tensor(beta2, dtype=dt)
    md = torch.tensor(momentum_decay, dtype=dt)
    c096 = torch.tensor(0.96, dtype=dt)
    mdp = momentum_decay_pow * c096
    b2p = beta2_pow * b2
    mu_t = b1 * (1 - 0.5 * mdp.pow(md))
    mu_t1 = b1 * (1 - 0.5 * mdp.pow(md) * torch.pow(c096, md))
    mu_p = mu_product * mu_t
    mu_p1 = mu_p * mu_t1
    m1 = b1 * moment1 + (1 - b1) * grad
    m2 = b2 * moment2 + (1 - b2) * grad * grad
    m1_hat = mu_t1 * m1 / (1 - mu_p1) + (1 - mu_t) * grad / (1 - mu_p)
    m2_hat = m2 / (1 - b2p)
    out = param - learning_rate.reshape(()) * m1_hat / (torch.sqrt(m2_hat) + epsilon)
    return out, mdp, b2p, mu_p, m1, m2, None


@REGISTRY.register("pd_op.radam_", since=1)
def radam_(param, grad, learning_rate, beta1_pow, beta2_pow, rho, moment1, moment2,
           master_param=None, *, beta1=0.9, beta2=0.999, epsilon=1e-8, multi_precision=False):
    # phi RAdamKernel: rho_inf = 2 / (1 - b2) - 1; rho' = (rho (b2 - b2p') + b2p') /
    # (1 - b2p'); rho_t = rho_inf - 2 rho'; the rectified step where rho_t > 5, else the
    # bias-corrected momentum step
    dt = param.dtype
    b1, b2 = torch.tensor(beta1, dtype=dt), torch.tensor(beta2, dtype=dt)
    rho_inf = 2 / (1 - b2) - 1
    b1p, b2p = beta1_pow * b1, beta2_pow * b2
    rho_out = (rho * (b2 - b2p) + b2p) / (1 - b2p)
    m1 = b1 * moment1 + (1 - b1) * grad
    m2 = b2 * moment2 + (1 - b2) * grad * grad
    m1_hat = m1 / (1 - b1p.reshape(()))
    rho_t = rho_inf - 2 * rho_out.reshape(())
    lr = learning_rate.reshape(())
    if bool(rho_t > 5):
        l_t = torch.sqrt(1 - b2p.reshape(())) / (torch.sqrt(m2) + epsilon)
        r_t = torch.sqrt(((rho_t - 4) * (rho_t - 2) * rho_inf)
                         / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
        out = param - lr * m1_hat * r_t * l_t
    else:
        out = param - lr * m1_hat
    return out, b1p, b2p, rho_out, m1, m2, None


@REGISTRY.register("pd_op.decayed_adagrad", since=1)
def decayed_adagrad(param, grad, moment, learning_rate, *, decay=0.95, epsilon=1e-6):
    m = decay * moment + (1 - decay) * grad * grad
    return param - learning_rate.reshape(()) * grad / (torch.sqrt(m) + epsilon), m


@REGISTRY.register("pd_op.ftrl", since=1)
def ftrl(param, squared_accumulator, linear_accumulator, grad, learning_rate, *, l1=0.0,
         l2=0.0, lr_power=-0.5):
    # phi FTRLOpKernel: l1, l2 get 1e-10 added; lr_power -0.5 takes sqrt, else pow(-lr_power)
    dt = param.dtype
    l1_t = torch.tensor(l1, dtype=dt) + torch.tensor(1e-10, dtype=dt)
    l2_t = torch.tensor(l2, dtype=dt) + torch.tensor(1e-10, dtype=dt)
    lr = learning_rate.reshape(())
    new_accum = squared_accumulator + grad * grad
    if lr_power == -0.5:
        root = lambda t: torch.sqrt(t)  # noqa: E731
    else:
        p = torch.tensor(-lr_power, dtype=dt)
        root = lambda t: torch.pow(t, p)  # noqa: E731
    lin = linear_accumulator + grad - ((root(new_accum) - root(squared_accumulator)) / lr) * param
    x = l1_t * torch.sign(lin) - lin
    y = root(new_accum) / lr + 2 * l2_t
    out = torch.where(torch.abs(lin) > l1_t, x / y, torch.zeros((), dtype=dt))
    return out, squared_accumulator + grad * grad, lin


@REGISTRY.register("pd_op.dpsgd", since=1, flags={"random"})
def dpsgd(param, grad, learning_rate, *, clip=10.0, batch_size=16.0, sigma=1.0, seed=0):
    # phi DpsgdOpKernel: the gradient scaled down to L2 norm `clip` (scale = norm / clip when
    # the norm is larger), plus ONE Gaussian sample of std sigma (Box-Muller) shared by every
    # element, over the batch size: p' = p - lr * (g / scale + noise / batch_size)
    norm = torch.sqrt(torch.sum(grad * grad))
    scale = torch.where(norm > clip, norm / clip, torch.ones((), dtype=grad.dtype))
    noise = torch.randn((), dtype=grad.dtype) * sigma
    return param - learning_rate.reshape(()) * (grad / scale + noise / batch_size)


@REGISTRY.register("pd_op.lars_momentum_", since=1)
def lars_momentum_(param, grad, velocity, learning_rate, master_param=None, *, mu=0.9,
                   lars_coeff=0.001, lars_weight_decay=(0.0005,), epsilon=0.0,
                   multi_precision=False, rescale_grad=1.0):
    # phi LarsMomentumKernel (CPU), per tensor: local_lr = lr * coeff * |p| / (|g| + wd |p| +
    # eps) when wd, |p| and |g| are all > 0, else lr; v' = v mu + local_lr (g + wd p);
    # p' = p - v'
    p_outs, v_outs = [], []
    for i, (p, g, v, lr) in enumerate(zip(param, grad, velocity, learning_rate)):
        wd = torch.tensor(lars_weight_decay[i], dtype=p.dtype)
        g = rescale_grad * g
        p_norm, g_norm = torch.sqrt(torch.sum(p * p)), torch.sqrt(torch.sum(g * g))
        lr0 = lr.reshape(())
        local = lr0 * lars_coeff * p_norm / (g_norm + wd * p_norm + epsilon)
        local = torch.where((wd > 0) & (p_norm > 0) & (g_norm > 0), local, lr0)
        v2 = v * mu + local * (g + wd * p)
        v_outs.append(v2)
        p_outs.append(p - v2)
    return p_outs, v_outs, None


def _momentum_update(grad, velocity, mu, use_nesterov):
    v = velocity * mu + grad
    return v, (grad + v * mu) if use_nesterov else v


@REGISTRY.register("pd_op.sparse_momentum", since=1)
def sparse_momentum(param, grad, velocity, index, learning_rate, master_param=None, axis=0, *,
                    mu=0.9, use_nesterov=False, regularization_method="",
                    regularization_coeff=0.0, multi_precision=False, rescale_grad=1.0):
    # phi IndexMomentumFunctor: grad rows (axis 0) or columns (axis 1) are scattered onto the
    # param rows / columns `index` names, duplicates summed in index order, each times
    # rescale_grad; rows no index names get a zero gradient; then dense momentum
    from .operands import number
    ax = int(number(axis))
    idx = index.reshape(-1).long()
    g = torch.zeros_like(param)
    order = torch.sort(idx, stable=True).indices
    g = g.index_add(ax, idx[order], (grad * rescale_grad).index_select(ax, order))
    if regularization_method == "l2_decay":
        g = g + regularization_coeff * param
    v, step = _momentum_update(g, velocity, mu, use_nesterov)
    return param - step * learning_rate.reshape(()), v, None


@REGISTRY.register("pd_op.merged_adam_", since=1)
def merged_adam_(param, grad, learning_rate, moment1, moment2, moment2_max, beta1_pow,
                 beta2_pow, master_param=None, beta1=0.9, beta2=0.999, epsilon=1e-8, *,
                 multi_precision=False, use_global_beta_pow=False, amsgrad=False):
    # phi MergedAdamKernel (CPU): adam_ on each tensor with its own learning rate
    n = len(param)
    outs = [adam_(param[i], grad[i], learning_rate[i], moment1[i], moment2[i],
                  moment2_max[i] if moment2_max else None, beta1_pow[i], beta2_pow[i],
                  None, None, beta1, beta2, epsilon, use_global_beta_pow=use_global_beta_pow,
                  amsgrad=amsgrad) for i in range(n)]
    col = lambda k: [o[k] for o in outs]  # noqa: E731
    return col(0), col(1), col(2), col(3) if amsgrad else None, col(4), col(5), None


@REGISTRY.register("pd_op.fused_adam_", since=1)
def fused_adam_(params, grads, learning_rate, moments1, moments2, moments2_max, beta1_pows,
                beta2_pows, master_params=None, skip_update=None, *, beta1=0.9, beta2=0.999,
                epsilon=1e-8, chunk_size=16, weight_decay=0.0, use_adamw=False,
                multi_precision=False, use_global_beta_pow=False, amsgrad=False):
    # phi FusedAdamKernel (CPU): AdamDenseKernel, or AdamwDenseKernel (lr_ratio 1, coeff =
    # weight_decay, with_decay) with use_adamw, on each tensor with the one learning rate
    outs = []
    for i in range(len(params)):
        m2max = moments2_max[i] if moments2_max else None
        args = (params[i], grads[i], learning_rate, moments1[i], moments2[i], m2max,
                beta1_pows[i], beta2_pows[i], None, skip_update, beta1, beta2, epsilon)
        if use_adamw:
            outs.append(adamw_(*args, lr_ratio=1.0, coeff=weight_decay, with_decay=True,
                               use_global_beta_pow=use_global_beta_pow, amsgrad=amsgrad))
        else:
            outs.append(adam_(*args, use_global_beta_pow=use_global_beta_pow, amsgrad=amsgrad))
    col = lambda k: [o[k] for o in outs]  # noqa: E731
    return col(0), col(1), col(2), col(3) if amsgrad else None, col(4), col(5), None


@REGISTRY.register("pd_op.average_accumulates_", since=1)
def average_accumulates_(param, in_sum_1, in_sum_2, in_sum_3, in_num_accumulates,
                         in_old_num_accumulates, in_num_updates, *, average_window=0.0,
                         max_average_window=2 ** 63 - 1, min_average_window=10000):
    # phi AverageAccumulatesKernel: sum_1 += param; every 16384 updates sum_1 moves into
    # sum_2; once the window is long enough (num_accumulates >= min_window and >=
    # min(max_window, num_updates * average_window), an int64 comparison with a double),
    # sum_3 = sum_1 + sum_2, sum_1 = sum_2 = 0 and the counters restart. The op is in place
    # (out_sum_k is in_sum_k's buffer), so each later read of in_sum_1 / in_sum_2 sees
    # what the steps before wrote: sum_3 gets the sums after `+= param` and the move.
    nu = int(in_num_updates.reshape(-1)[0]) + 1
    na = int(in_num_accumulates.reshape(-1)[0]) + 1
    ona = int(in_old_num_accumulates.reshape(-1)[0])
    s1, s2, s3 = in_sum_1 + param, in_sum_2, in_sum_3
    if nu % 16384 == 0:
        s2 = s2 + s1
        s1 = torch.zeros_like(s1)
    # std::min<int64_t>(max_window, num_updates * average_window): the double cast to int64
    # as x86 casts it (NaN and inf: INT64_MIN; Python's int() raises)
    window = c_int_cast(float(nu * average_window), torch.int64)
    if na >= min_average_window and na >= min(max_average_window, window):
        s3 = s1 + s2
        s1, s2 = torch.zeros_like(s1), torch.zeros_like(s2)
        ona, na = na, 0
    like = in_num_accumulates
    counter = lambda v: torch.full(like.shape, v, dtype=like.dtype)  # noqa: E731
    return s1, s2, s3, counter(na), counter(ona), counter(nu)
