"""Builders of the random ops: outputs are compared by shape, dtype and distribution (a
two-sample KS distance), so each draws enough values (>= 1024) for the comparison to mean
something; deterministic parts (masks of p=0 / p=1, counts of 0) are fetched separately."""
import numpy as np
import paddle
import paddle.nn.functional as F

from . import Feeds, arr, op  # noqa: F401


@op("bernoulli", random=True)
def _bernoulli(f):
    p = f("p", [32, 32], value=np.full([32, 32], 0.3, "float32"))
    q = f("q", [32, 32], "float64", value=np.linspace(0, 1, 1024).reshape(32, 32))
    return [paddle.bernoulli(p), paddle.bernoulli(q)], {}


@op("binomial", random=True)
def _binomial(f):
    n = f("n", [32, 32], "int64", value=np.full([32, 32], 10, "int64"))
    p = f("p", [32, 32], value=np.full([32, 32], 0.25, "float32"))
    return [paddle.binomial(n, p), paddle.binomial(n * 30, p)], {}


@op("poisson", random=True)
def _poisson(f):
    lam = f("lam", [32, 32], value=np.full([32, 32], 3.5, "float32"))
    big = f("big", [32, 32], "float64", value=np.full([32, 32], 40.0))
    return [paddle.poisson(lam), paddle.poisson(big)], {}


@op("dirichlet", random=True)
def _dirichlet(f):
    a = f("a", [512, 3], value=np.tile(np.array([0.5, 2.0, 5.0], "float32"), (512, 1)))
    return [paddle._C_ops.dirichlet(a)], {}


@op("exponential_", random=True)
def _exponential(f):
    x = f("x", [32, 32])
    y = f("y", [32, 32], "float64")
    return [x.exponential_(2.0), y.exponential_(0.5)], {}


@op("multinomial", random=True)
def _multinomial(f):
    w = f("w", [1024, 4], value=np.tile(np.array([0.1, 0.2, 0.3, 0.4], "float32"), (1024, 1)))
    v = f("v", [4], value=np.array([1.0, 0.0, 3.0, 4.0], "float32"))
    return [paddle.multinomial(w, 1), paddle.multinomial(v, 1024, replacement=True),
            paddle.sort(paddle.multinomial(v, 3))], {}


@op("randint", random=True)
def _randint(f):
    x = f("x", [2])
    return [paddle.randint(-5, 7, [32, 32]), paddle.randint(0, 3, [32, 32], "int32"),
            paddle.randint(10, 11, [4]), x], {}


@op("randperm", random=True)
def _randperm(f):
    x = f("x", [2])
    return [paddle.sort(paddle.randperm(1024)), paddle.randperm(1024, "int32"),
            paddle.sort(paddle.randperm(7, "float32")), x], {}


@op("standard_gamma", random=True)
def _standard_gamma(f):
    a = f("a", [32, 32], value=np.full([32, 32], 2.5, "float32"))
    b = f("b", [32, 32], "float64", value=np.full([32, 32], 0.3))
    return [paddle.standard_gamma(a), paddle.standard_gamma(b)], {}


@op("truncated_gaussian_random", random=True)
def _truncated_gaussian(f):
    x = f("x", [2])
    return [paddle._C_ops.truncated_gaussian_random([32, 32], 1.0, 2.0, 0, -2.0, 2.0,
                                                   paddle.float32, paddle.CPUPlace()),
            paddle._C_ops.truncated_gaussian_random([32, 32], 0.0, 1.0, 3, -1.0, 3.0,
                                                   paddle.float64, paddle.CPUPlace()), x], {}


@op("uniform_inplace", random=True)
def _uniform_inplace(f):
    x = f("x", [32, 32])
    y = f("y", [32, 32], "float64")
    # x.uniform_() is dynamic-mode only; the op builds directly in static mode
    return [paddle._C_ops.uniform_inplace(x, -2.0, 3.0, 0, 0, 0, 1.0),
            paddle._C_ops.uniform_inplace(y, 0.0, 1.0, 4, 0, 0, 1.0)], {}


@op("gaussian_inplace", random=True)
def _gaussian_inplace(f):
    x = f("x", [32, 32])
    y = f("y", [32, 32], "float64")
    return [paddle._C_ops.gaussian_inplace(x, 1.5, 0.5, 0),
            paddle._C_ops.gaussian_inplace(y, -1.0, 2.0, 9)], {}


@op("gumbel_softmax", random=True)
def _gumbel_softmax(f):
    x = f("x", [256, 4], value=np.tile(np.log(np.array([0.1, 0.2, 0.3, 0.4], "float32")), (256, 1)))
    # (softmax over a short axis: the KS comparison assumes nearly independent values)
    return [F.gumbel_softmax(x, temperature=0.5), F.gumbel_softmax(x, hard=True).sum(0),
            F.gumbel_softmax(paddle.transpose(x, [1, 0]), temperature=2.0, axis=0)], {}


@op("top_p_sampling", random=True, expect="GPU-only kernel")
def _top_p_sampling(f):
    x = f("x", [4, 8])
    ps = f("ps", [4], value=np.full([4], 0.8, "float32"))
    return list(paddle.tensor.top_p_sampling(F.softmax(x), ps)), {}


@op("class_center_sample", random=True)
def _class_center_sample(f):
    label = f("label", [64], "int64", 0, 20)
    remap, centers = paddle.nn.functional.class_center_sample(label, 20, 8)
    return [remap, centers], {}


@op("shuffle_batch", random=True)
def _shuffle_batch(f):
    x = f("x", [64, 3])
    seed = paddle.full([1], 5, "int64")
    out, idx, seed_out = paddle._C_ops.shuffle_batch(x, seed, 0)
    return [paddle.sort(out, axis=0), idx], {}
