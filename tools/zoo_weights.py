"""Deterministic weights for the development zoo (tests/fixtures/zoo/), numpy only.

`value(name, shape, dtype)` is a parameter's value from its name alone: the generator
(tools/paddle_oracle/gen_zoo.py, run with a Paddle venv's python) sets every parameter of a
model to it before saving, and the tests (tests/unit/test_zoo.py) rebuild the same values from
the saved program's `builtin.parameter` ops, so the large `.pdiparams` files are not committed.

The seed is the first 8 bytes of sha256(name); the draw is a standard normal scaled like a
sensible initialisation, chosen by Paddle's parameter naming (`LAYER_N.w_K` / `LAYER_N.b_K`):
- batch-norm statistics (`batch_norm*` / `*norm*` names, 1-D): `.w_1` (running mean) 0.1 * N,
  `.w_2` (running variance) uniform in [0.5, 1.5), always positive;
- other 1-D `.w_*` (norm scales, e.g. batch_norm / layer_norm / RMSNorm weights): 1 + 0.1 * N;
- biases (`.b_*`, any rank) 0.05 * N;
- 2-D weights (Paddle's Linear is [in, out]; embeddings [vocab, hidden]): N / sqrt(shape[0]);
- convolution kernels ([out, in/groups, k...]): N / sqrt(prod(shape[1:]));
- integer and bool parameters: zeros.
The values are drawn in float64 and rounded once to the parameter's dtype.
"""

from __future__ import annotations

import hashlib
import math

import numpy as np


def seed(name: str) -> int:
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "little")


def _kind(name: str, ndim: int) -> str:
    suffix = name.rsplit(".", 1)[-1]
    if suffix.startswith("b_"):
        return "bias"
    if ndim == 1:
        stat = "norm" in name or name.startswith("bn") or "batch_norm" in name
        if stat and suffix == "w_1":
            return "mean"
        if stat and suffix == "w_2":
            return "variance"
        return "scale"
    if ndim == 0:
        return "scale"
    return "weight"


def value(name: str, shape, dtype="float32") -> np.ndarray:
    """The parameter `name` of `shape` and `dtype`, the same on every machine."""
    shape = tuple(int(d) for d in shape)
    dtype = np.dtype("float32" if dtype == "bfloat16" else dtype)
    if dtype.kind not in "fc":
        return np.zeros(shape, dtype)
    rng = np.random.default_rng(seed(name))
    kind = _kind(name, len(shape))
    if kind == "variance":
        draw = rng.uniform(0.5, 1.5, shape)
    else:
        normal = rng.standard_normal(shape)
        if kind == "mean":
            draw = 0.1 * normal
        elif kind == "scale":
            draw = 1.0 + 0.1 * normal
        elif kind == "bias":
            draw = 0.05 * normal
        else:
            fan_in = shape[0] if len(shape) == 2 else math.prod(shape[1:])
            draw = normal / math.sqrt(max(fan_in, 1))
    return draw.astype(dtype)

