"""The common backward ops the generic autograd rule (grad.py) cannot map from the specs.

Their ops carry the forward's result instead of its input (relu_grad, tanh_grad,
sigmoid_grad, exp_grad, softmax_grad, relu_double_grad take `out`), an attribute the forward
lacks (add_grad's `axis`, mean_grad's `reduce_all`), or no forward operand at all
(transpose_grad, scale_grad).  Each kernel evaluates the formula phi's CPU grad kernel
evaluates, in its order of operations, so element-wise results agree with Paddle to the bit;
reductions (a broadcast operand's gradient, softmax's dot product) use torch's summation
order and agree to rounding.  Imported before grad.py, whose generic rule leaves ops with a
kernel alone; the in-place `X_grad_` twins alias these through inplace.py.

The normalisation, dropout and embedding grads are in grad_nn.py; the loss functions' ops
(softmax cross-entropy, mean squared error) in losses.py.
"""

from __future__ import annotations

import torch

from ...runtime.registry import REGISTRY
from .elementwise import scale as _scale
from .operands import int_list


# -- activations: the gradient from the forward's result --------------------------------------

@REGISTRY.register("pd_op.relu_grad", since=1)
def relu_grad(out, out_grad):
    # phi ReluGradFunctor: dout * (out > 0) as T, a product, so a negative dout times the
    # mask gives -0.0 where Paddle gives it (torch.where would give +0.0)
    return out_grad * (out > 0).to(out_grad.dtype)


@REGISTRY.register("pd_op.relu_double_grad", since=1)
def relu_double_grad(out, grad_x_grad):
    # phi ReluGradGradFunctor: ddout = ddx * (out > 0)
    return grad_x_grad * (out > 0).to(grad_x_grad.dtype)


@REGISTRY.register("pd_op.tanh_grad", since=1)
def tanh_grad(out, out_grad):
    return out_grad * (1 - out * out)  # phi TanhGradFunctor


@REGISTRY.register("pd_op.sigmoid_grad", since=1)
def sigmoid_grad(out, out_grad):
    return out_grad * out * (1 - out)  # phi SigmoidGradFunctor, left to right


@REGISTRY.register("pd_op.exp_grad", since=1)
def exp_grad(out, out_grad):
    return out_grad * out


@REGISTRY.register("pd_op.sqrt_grad", since=1)
def sqrt_grad(out, out_grad):
    return out_grad * 0.5 / out  # phi SqrtGradFunctor: dout * 0.5 / out


@REGISTRY.register("pd_op.rsqrt_grad", since=1)
def rsqrt_grad(out, out_grad):
    return -0.5 * out_grad * out * out * out  # phi RsqrtGradFunctor, left to right


@REGISTRY.register("pd_op.log_grad", since=1)
def log_grad(x, out_grad):
    return out_grad / x  # phi LogGradFunctor: dout * (1 / x), as a division


@REGISTRY.register("pd_op.tanh_double_grad", since=1)
def tanh_double_grad(out, grad_out, grad_x_grad):
    # phi TanhGradGradFunctor: the gradient of tanh_grad = grad_out * (1 - out^2) w.r.t.
    # out (-2 out grad_out ddx) and w.r.t. grad_out (ddx (1 - out^2)).
    return -2 * out * grad_out * grad_x_grad, grad_x_grad * (1 - out * out)


@REGISTRY.register("pd_op.sigmoid_double_grad", since=1)
def sigmoid_double_grad(out, grad_out, grad_x_grad):
    # phi SigmoidGradGradFunctor: sigmoid_grad = dout * out * (1 - out), differentiated
    # w.r.t. out (ddx dout (1 - 2 out)) and w.r.t. dout (ddx out (1 - out)).
    return grad_x_grad * grad_out * (1 - 2 * out), grad_x_grad * out * (1 - out)


@REGISTRY.register("pd_op.log_softmax_grad", since=1)
def log_softmax_grad(out, out_grad, *, axis=-1):
    # phi LogSoftmaxGradFunctor: dout - exp(out) * sum(dout along axis)
    if out.dim() == 0:
        return torch.zeros_like(out_grad)
    return out_grad - torch.exp(out) * out_grad.sum(axis, keepdim=True)


@REGISTRY.register("pd_op.softmax_grad", since=1)
def softmax_grad(out, out_grad, *, axis=-1):
    # phi SoftmaxGradFunctor: (dout - sum(dout * out along axis)) * out
    if out.dim() == 0:
        return torch.zeros_like(out_grad)
    dot = (out * out_grad).sum(axis, keepdim=True)
    return (out_grad - dot) * out


# -- element-wise binary ops: the gradient summed back to each operand's shape ------------------

def sum_to(grad, shape, axis=-1):
    """`grad` (the broadcast output's shape) summed over the dims an operand of `shape` was
    broadcast along.  Paddle aligns a lower-rank operand at `axis` (-1: at the trailing dims,
    numpy's rule), so `shape` sits at dims [axis, axis + len(shape)) of the output."""
    shape = list(shape)
    if list(grad.shape) == shape:
        return grad
    aligned = list(shape)
    lead = grad.dim() - len(shape) if axis == -1 or len(shape) == grad.dim() else axis
    while lead + len(aligned) > grad.dim() and aligned and aligned[-1] == 1:
        aligned.pop()  # Paddle trims an operand's trailing 1s before aligning it at axis
    padded = [1] * lead + aligned + [1] * (grad.dim() - lead - len(aligned))
    dims = [d for d in range(grad.dim()) if padded[d] == 1 and grad.shape[d] != 1]
    out = grad.sum(dims, keepdim=True) if dims else grad
    return out.reshape(shape)


def _aligned(t, rank, axis=-1):
    """An operand as it meets the other one element-wise: `t`'s shape placed at `axis` of a
    rank-`rank` shape (trailing dims for -1), so torch's broadcasting pairs the dims Paddle's
    does."""
    shape = list(t.shape)
    if len(shape) == rank or axis == -1:
        return t
    while axis + len(shape) > rank and shape and shape[-1] == 1:
        shape.pop()
    return t.reshape([1] * axis + shape + [1] * (rank - axis - len(shape)))


@REGISTRY.register("pd_op.add_grad", since=1)
def add_grad(x, y, out_grad, *, axis=-1):
    return sum_to(out_grad, x.shape, axis), sum_to(out_grad, y.shape, axis)


@REGISTRY.register("pd_op.subtract_grad", since=1)
def subtract_grad(x, y, out_grad, *, axis=-1):
    return sum_to(out_grad, x.shape, axis), sum_to(-out_grad, y.shape, axis)


@REGISTRY.register("pd_op.multiply_grad", since=1)
def multiply_grad(x, y, out_grad, *, axis=-1):
    # phi MulGradDX / MulGradDY: dout * y, dout * x, each then summed to its operand's shape
    r = out_grad.dim()
    return (sum_to(out_grad * _aligned(y, r, axis), x.shape, axis),
            sum_to(out_grad * _aligned(x, r, axis), y.shape, axis))


@REGISTRY.register("pd_op.divide_grad", since=1)
def divide_grad(x, y, out, out_grad, *, axis=-1):
    # phi DivGradDX / DivGradDY: dout / y and -dout * out / y (from the forward's result,
    # not x / y**2)
    ya = _aligned(y, out_grad.dim(), axis)
    return sum_to(out_grad / ya, x.shape, axis), sum_to(-out_grad * out / ya, y.shape, axis)


# -- reductions ---------------------------------------------------------------------------------

def _reduced(x, axis, reduce_all):
    """The dims a reduction of x over `axis` removed (all of them for reduce_all, an empty
    list, or a list naming every dim: phi's ReduceGradKernel rule)."""
    axes = sorted({a + x.dim() if a < 0 else a for a in int_list(axis)})
    if reduce_all or not axes or len(axes) == x.dim():
        return list(range(x.dim()))
    return axes


def _spread(x, out_grad, axis, reduce_all):
    """out_grad broadcast back to x's shape (keepdim or not)."""
    dims = _reduced(x, axis, reduce_all)
    shape = [1 if d in dims else s for d, s in enumerate(x.shape)]
    return out_grad.reshape(shape).expand(x.shape), dims


@REGISTRY.register("pd_op.sum_grad", since=1)
def sum_grad(x, out_grad, axis=(), *, keepdim=False, reduce_all=False):
    grad, _ = _spread(x, out_grad, axis, reduce_all)
    return grad.to(x.dtype).contiguous()  # sum(dtype=...) differentiates back to x's type


@REGISTRY.register("pd_op.mean_grad", since=1)
def mean_grad(x, out_grad, axis=(), *, keepdim=False, reduce_all=False):
    # phi MeanGradFunctor: dy.broadcast(...) / size, a division (not a product with 1/size)
    grad, dims = _spread(x, out_grad, axis, reduce_all)
    count = 1
    for d in dims:
        count *= x.shape[d]
    return grad / count


@REGISTRY.register("pd_op.mean_all_grad", since=1)
def mean_all_grad(x, out_grad):
    return out_grad.reshape([1] * x.dim()).expand(x.shape) / max(x.numel(), 1)


# -- casts and layout -----------------------------------------------------------------------------

@REGISTRY.register("pd_op.cast_grad", since=1)
def cast_grad(x, out_grad):
    return out_grad.to(x.dtype)  # backward.yaml: cast(out_grad, x.dtype)


@REGISTRY.register("pd_op.transpose_grad", since=1)
def transpose_grad(out_grad, *, perm=()):
    perm = [p + out_grad.dim() if p < 0 else p for p in perm]
    if not perm:
        return out_grad.clone()
    inverse = [0] * len(perm)
    for i, p in enumerate(perm):
        inverse[p] = i
    return out_grad.permute(inverse).contiguous()


@REGISTRY.register("pd_op.scale_grad", since=1)
def scale_grad(out_grad, scale=1.0):
    # backward.yaml invokes scale(out_grad, scale, bias=0.0, bias_after_scale=true): the
    # forward's own kernel, so a -0.0 product becomes +0.0 as in Paddle
    return _scale(out_grad, scale, bias=0.0, bias_after_scale=True)


def _input_shape(x, out_grad):
    """The forward input's shape from the grad op's `x`: the input itself (what Paddle 3
    programs pass), or an xshape ([0] + the input's shape, what legacy_reshape_grad, which
    runs reshape_grad's kernel, may carry), told apart by the element count."""
    if x.dim() and x.shape[0] == 0 and out_grad.numel() != 0:
        return list(x.shape[1:])
    return list(x.shape)


@REGISTRY.register("pd_op.reshape_grad", since=1)
def reshape_grad(x, out_grad):
    return out_grad.reshape(_input_shape(x, out_grad))


@REGISTRY.register("pd_op.flatten_grad", since=1)
def flatten_grad(x, out_grad):
    return out_grad.reshape(_input_shape(x, out_grad))
