"""Builders of the debugging ops that pass their input through: print (which also writes the
tensor to stdout), the model-wide NaN/Inf check switches and accuracy_check, whose result is
an all-true bool mask when x and y agree (and an error when they do not)."""
import numpy as np
import paddle

from . import boundary, int_boundary, op

C = paddle._C_ops


@op("print")
def _print(f):
    x, i = f("x", [21], value=boundary()), f("i", [2, 3], "int64", lo=-9, hi=9)
    e = f("e", [0, 2])
    # first_n, message, summarize, then what to print and print_phase
    return [C.print(x, -1, "x", 20, True, True, True, True, True, "BOTH", True),
            C.print(i, 1, "", -1, False, False, False, False, False, "FORWARD", True),
            C.print(e, -1, "empty", 3, True, True, True, True, True, "BOTH", True)], {}


def _inputs(f, finite):
    x = f("x", [21], value=boundary() if not finite else np.nan_to_num(boundary(), posinf=7.0,
                                                                        neginf=-7.0, nan=0.25))
    i, d = f("i", [9], value=int_boundary()), f("d", [2, 3], "float64")
    return x, i, d


# The kernel copies x and sets the process-wide FLAGS_check_nan_inf to `flag`, after which the
# executor checks every op's result (its own included) for NaN / Inf and raises on one: the
# flag-1 variants get finite inputs, and the last op sets the flag back to 0.
@op("enable_check_model_nan_inf")
def _enable_check_model_nan_inf(f):
    x, i, d = _inputs(f, True)
    fn = C.enable_check_model_nan_inf
    return [fn(x, 1), fn(i, 1), fn(d, 1), fn(paddle.scale(x, 0.5), 0)], {}


@op("disable_check_model_nan_inf")
def _disable_check_model_nan_inf(f):
    x, i, d = _inputs(f, False)
    fn = C.disable_check_model_nan_inf
    return [fn(x, 0), fn(i, 0), fn(d, 0)], {}


@op("accuracy_check")
def _accuracy_check(f):
    x = f("x", [3, 4])
    b = f("b", [21], value=boundary())
    # within rtol * |y| + atol of x, NaN only against NaN (with equal_nan), Inf against Inf
    # of either sign (|inf - -inf| <= inf), -0 against +0
    near = f("near", [21], value=np.where(np.isfinite(boundary()), boundary() * (1 + 1e-6),
                                          np.abs(boundary())).astype("float32"))
    d = f("d", [2, 3], "float64")
    i = f("i", [9], value=int_boundary("int64"))
    return [C.accuracy_check(x, x, "same", 1e-5, 1e-8, False),
            C.accuracy_check(b, near, "near", 1e-5, 1e-8, True),
            C.accuracy_check(d, paddle.scale(d, 1.0), "f64", 0.0, 0.0, False),
            C.accuracy_check(i, i, "int", 1e-5, 1e-8, False)], {}
