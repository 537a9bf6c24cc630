"""Builders of leaky_relu's sign-of-zero cases: Paddle's LeakyReluFunctor is
max(x, alpha * x) for alpha < 1 and min(x, alpha * x) otherwise (Eigen's cwiseMax/Min keep x
on a tie or a NaN product), so a negative slope keeps the sign of a zero input and a zero
slope keeps -inf, where `x > 0 ? x : alpha * x` flips or loses them."""
import paddle.nn.functional as F

from . import boundary, op


@op("leaky_relu__slopes")
def _leaky_relu_slopes(f):
    x = f("x", [21], value=boundary())
    return [F.leaky_relu(x, s) for s in (-0.1, 0.0, 0.5, 1.0, 2.0, -3.0)], {}
