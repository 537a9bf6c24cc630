"""Builders of the per-op Paddle fixtures (tools/paddle_oracle/gen_op_fixtures.py), one module
per op family.

A builder is `fn(f: Feeds) -> (fetches, info)` registered with `@op(NAME, **info)`; NAME is the
op's short name (`erf`), or `OP__VARIANT` when one op needs several programs. `info` goes to
gen_log: `random=True` (compare by distribution), `extra=True` (outside FORMAT-NOTES section 7),
`expect="..."` (the builder is expected to fail on Paddle's CPU wheel, and says why: the
exception Paddle raises is recorded in gen_log as the evidence). Feeds are deterministic by
(model, feed name); `boundary(dtype)` gives the special values every float op is tried on.

Only importable inside a paddle venv (gen_fixtures imports paddle and enables static mode).
"""
import importlib
import os
import pkgutil
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import gen_fixtures as gf  # noqa: E402

import numpy as np  # noqa: E402
import paddle  # noqa: E402

INF = float("inf")
B = {}


def op(name, **info):
    """Register a builder for fixture NAME; a second builder of one name is a mistake."""
    def deco(fn):
        if name in B:
            raise ValueError(f"two op builders named {name!r}")
        B[name] = (fn, info)
        return fn
    return deco


def arr(model, key, shape, dtype="float32", lo=None, hi=None):
    """Deterministic input: normal floats, or integers in [lo, hi)."""
    r = gf.rng_for(f"{model}/{key}")
    if dtype == "bool":
        return r.integers(0, 2, shape).astype(bool)
    if lo is not None:
        return r.integers(lo, hi, shape).astype(dtype)
    return r.standard_normal(shape).astype(dtype)


def boundary(dtype="float32"):
    """The special values of a float dtype, 1-D: NaN, +-Inf, +-0, the smallest denormal and
    normal of each sign, the largest finite of each sign, +-1, and a few ordinary values."""
    fi = np.finfo(dtype)
    tiny, dmin = fi.tiny, np.nextafter(np.array(0, dtype), np.array(1, dtype))
    v = [np.nan, INF, -INF, 0.0, -0.0, dmin, -dmin, tiny, -tiny, fi.max, -fi.max, 1.0, -1.0,
         0.5, -0.5, 2.0, -3.0, 1e-3, 10.0, -10.0, 100.0]
    return np.array(v, dtype)


def int_boundary(dtype="int32"):
    """The extremes of an integer dtype, 0, +-1 and a few ordinary values."""
    ii = np.iinfo(dtype)
    return np.array([ii.min, ii.min + 1, -7, -1, 0, 1, 5, ii.max - 1, ii.max], dtype)


class Feeds:
    """Collects (name, array) feeds and creates their paddle.static.data.

    `dyn` gives the declared shape (-1 for a dynamic dim) when it differs from the array's."""

    def __init__(self, model):
        self.model, self.items = model, []

    def __call__(self, name, shape, dtype="float32", lo=None, hi=None, value=None, dyn=None):
        a = arr(self.model, name, shape, dtype, lo, hi) if value is None else np.asarray(value)
        self.items.append((name, a))
        return paddle.static.data(name, dyn if dyn is not None else list(a.shape), str(a.dtype))


def load_all():
    """Import every builder module of this package (sorted, so B's order is stable)."""
    for m in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        importlib.import_module(f"{__name__}.{m.name}")
    return B
