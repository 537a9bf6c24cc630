"""Builders of the optimizer update ops, built directly (`paddle._C_ops.NAME`) on fed
parameters, gradients and state, so that each program is one update step whose every output
(new parameter, new state) is fetched. Learning rates and beta powers are [1] tensors as the
optimizers create them."""
import numpy as np
import paddle

from . import Feeds, arr, op  # noqa: F401


def _state(f, n=6, dtype="float32"):
    p, g = f("param", [2, n], dtype), f("grad", [2, n], dtype)
    lr = f("lr", [1], dtype, value=np.array([0.1], dtype))
    return p, g, lr


def _pos(f, name, shape, dtype="float32", lo=0.1):
    return f(name, shape, dtype, value=(np.abs(arr(f.model, name, shape, dtype)) + lo).astype(dtype))


def _full(v, dtype="float32"):
    return paddle.full([1], v, dtype)


def values(*outs):
    """The created outputs: an optional output that is not created comes back as a bool."""
    flat = []
    for o in outs:
        flat += list(o) if isinstance(o, (list, tuple)) else [o]
    return [o for o in flat if isinstance(o, paddle.pir.Value)]


@op("sgd_")
def _sgd(f):
    p, g, lr = _state(f)
    out = paddle._C_ops.sgd_(p, lr, g, None, False)
    return [out[0] if isinstance(out, (list, tuple)) else out], {}


@op("momentum_")
def _momentum(f):
    p, g, lr = _state(f)
    v = f("velocity", [2, 6])
    a = paddle._C_ops.momentum_(p, g, v, lr, None, 0.9, False, "", 0.0, False, 1.0)
    p2, g2, v2 = f("p2", [2, 6]), f("g2", [2, 6]), f("v2", [2, 6])
    b = paddle._C_ops.momentum_(p2, g2, v2, lr, None, 0.8, True, "l2_decay", 0.05, False, 0.5)
    return [a[0], a[1], b[0], b[1]], {}


def _adam_inputs(f, tag=""):
    p, g = f("param" + tag, [2, 6]), f("grad" + tag, [2, 6])
    lr = f("lr" + tag, [1], value=np.array([0.01], "float32"))
    m1, m2 = f("m1" + tag, [2, 6]), _pos(f, "m2" + tag, [2, 6], lo=0.0)
    b1p = f("b1p" + tag, [1], value=np.array([0.9 ** 3], "float32"))
    b2p = f("b2p" + tag, [1], value=np.array([0.999 ** 3], "float32"))
    return p, g, lr, m1, m2, b1p, b2p


@op("adam_")
def _adam(f):
    p, g, lr, m1, m2, b1p, b2p = _adam_inputs(f)
    a = paddle._C_ops.adam_(p, g, lr, m1, m2, None, b1p, b2p, None, None, _full(0.9),
                            _full(0.999), _full(1e-8), False, 1000, False, False, False)
    p2, g2, lr2, m12, m22, b1p2, b2p2 = _adam_inputs(f, "_2")
    m2max = _pos(f, "m2max", [2, 6], lo=0.0)
    b = paddle._C_ops.adam_(p2, g2, lr2, m12, m22, m2max, b1p2, b2p2, None, None, _full(0.8),
                            _full(0.99), _full(1e-6), False, 1000, False, False, True)
    return values(a, b), {}


@op("adamw_")
def _adamw(f):
    p, g, lr, m1, m2, b1p, b2p = _adam_inputs(f)
    a = paddle._C_ops.adamw_(p, g, lr, m1, m2, None, b1p, b2p, None, None, _full(0.9),
                             _full(0.999), _full(1e-8), 1.0, 0.01, True, False, 1000, False,
                             False, False)
    p2, g2, lr2, m12, m22, b1p2, b2p2 = _adam_inputs(f, "_2")
    b = paddle._C_ops.adamw_(p2, g2, lr2, m12, m22, None, b1p2, b2p2, None, None, _full(0.9),
                             _full(0.999), _full(1e-8), 0.5, 0.1, True, False, 1000, False,
                             False, False)
    p3, g3, lr3, m13, m23, b1p3, b2p3 = _adam_inputs(f, "_3")
    c = paddle._C_ops.adamw_(p3, g3, lr3, m13, m23, None, b1p3, b2p3, None, None, _full(0.9),
                             _full(0.999), _full(1e-8), 1.0, 0.01, False, False, 1000, False,
                             False, False)
    return [a[0], a[1], a[2], a[4], a[5], b[0], c[0]], {}


@op("adagrad_")
def _adagrad(f):
    p, g, lr = _state(f)
    m = _pos(f, "moment", [2, 6], lo=0.0)
    a = paddle._C_ops.adagrad_(p, g, m, lr, None, 1e-6, False)
    return [a[0], a[1]], {}


@op("rmsprop_")
def _rmsprop(f):
    p, g, lr = _state(f)
    ms, mom = _pos(f, "ms", [2, 6]), f("mom", [2, 6])
    a = paddle._C_ops.rmsprop_(p, ms, g, mom, lr, None, None, 1e-10, 0.9, 0.0, False, False)
    p2, g2 = f("p2", [2, 6]), f("g2", [2, 6])
    ms2, mom2, mg2 = _pos(f, "ms2", [2, 6], lo=1.0), f("mom2", [2, 6]), f("mg2", [2, 6]) * 0.1
    b = paddle._C_ops.rmsprop_(p2, ms2, g2, mom2, lr, mg2, None, 1e-6, 0.8, 0.5, True, False)
    return values(a, b), {}


@op("adamax_")
def _adamax(f):
    p, g, lr = _state(f)
    m, inf = f("moment", [2, 6]), _pos(f, "inf_norm", [2, 6])
    b1p = f("b1p", [1], value=np.array([0.9 ** 2], "float32"))
    a = paddle._C_ops.adamax_(p, g, lr, m, inf, b1p, None, 0.9, 0.999, 1e-8, False)
    return [a[0], a[1], a[2]], {}


@op("adadelta_")
def _adadelta(f):
    p, g, lr = _state(f)
    asg, asu = _pos(f, "asg", [2, 6], lo=0.0), _pos(f, "asu", [2, 6], lo=0.0)
    a = paddle._C_ops.adadelta_(p, g, asg, asu, lr, None, 0.95, 1e-6, False)
    return [a[0], a[1], a[2]], {}


@op("lamb_")
def _lamb(f):
    p, g, lr, m1, m2, b1p, b2p = _adam_inputs(f)
    a = paddle._C_ops.lamb_(p, g, lr, m1, m2, b1p, b2p, None, None, 0.01, 0.9, 0.999, 1e-6,
                            False, False)
    return [a[0], a[1], a[2], a[3], a[4]], {}


@op("check_finite_and_unscale_")
def _check_finite(f):
    x, y = f("x", [2, 3]), f("y", [4])
    bad = f("bad", [3], value=np.array([1.0, np.inf, 2.0], "float32"))
    s = f("scale", [1], value=np.array([4.0], "float32"))
    a = paddle._C_ops.check_finite_and_unscale_([x, y], s)
    b = paddle._C_ops.check_finite_and_unscale_([bad], s)
    return [*a[0], a[1], *b[0], b[1]], {}


@op("update_loss_scaling_")
def _update_loss_scaling(f):
    x = f("x", [2, 3])
    found = f("found", [1], "bool", value=np.array([False]))
    found2 = f("found2", [1], "bool", value=np.array([True]))
    ls = f("ls", [1], value=np.array([1024.0], "float32"))
    good = f("good", [1], "int32", value=np.array([9], "int32"))
    bad = f("bad", [1], "int32", value=np.array([1], "int32"))
    stop = f("stop", [1], "bool", value=np.array([False]))
    a = paddle._C_ops.update_loss_scaling_([x], found, ls, good, bad, 10, 2, 2.0, 0.5, stop)
    # the op updates its state in place: the second call gets state of its own
    y = f("y", [2, 3])
    ls2 = f("ls2", [1], value=np.array([1024.0], "float32"))
    good2 = f("good2", [1], "int32", value=np.array([3], "int32"))
    bad2 = f("bad2", [1], "int32", value=np.array([1], "int32"))
    b = paddle._C_ops.update_loss_scaling_([y], found2, ls2, good2, bad2, 10, 2, 2.0, 0.5, stop)
    return values(a, b), {}
