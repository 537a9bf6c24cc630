"""Random programs holding one fusion pattern, or one of its near misses, for differential
testing of the fusion passes (docs/PARITY.md "Fusion tolerances", docs/ROBUSTNESS.md).

`fusion_program(seed, pass_name=None, variant=None, dtype=None)` draws, from one integer seed,
a PIR-version-4 program around one pattern of a fusion pass (docs/PASSES.md's names: fuse-fc,
fuse-rms-norm, ...): random shapes, dtype (f32, f16, bf16, sometimes f64), operand orders of
the commutative ops, the equivalent spellings Paddle programs use (an epsilon by `scale` or by
`add`, gelu's 1/sqrt(2) by `scale` or `divide`, weights as parameters or feeds), ops before
and after the pattern, and in about half of the draws a near miss: the one change that makes
the rule decline (a pow exponent of 3, the mean over another axis, the epsilon outside the
root, an intermediate fetched, a 2-D bias, a wrong scale ...).  The same seed gives the same
program on any machine.  `fusion_programs()` is the hypothesis strategy over seeds.

    >>> from pirc.testing.fusion_programs import fusion_program
    >>> p = fusion_program(7, "fuse-silu", "match", "f32")
    >>> p.pass_name, p.variant, p.dtype
    ('fuse-silu', 'match', 'f32')
    >>> inputs, params = p.arrays(label="nan")      # the boundary feed gets boundary_inputs
    >>> sorted(inputs) == sorted(p.feeds)
    True
"""

from __future__ import annotations

import hashlib
import math
import random
from dataclasses import dataclass, field

import numpy as np

from .boundary import _bf16_bits, boundary_inputs

__all__ = ["FusionProgram", "fusion_program", "fusion_programs", "PATTERNS", "DTYPES"]

DTYPES = ("f32", "f16", "bf16", "f64")
_PADDLE = {"f32": "float32", "f16": "float16", "bf16": "bfloat16", "f64": "float64",
           "i64": "int64", "i32": "int32", "b": "bool"}


@dataclass
class FusionProgram:
    pass_name: str
    variant: str                 # "match", or the near miss's name
    dtype: str
    text: str
    feeds: dict = field(default_factory=dict)    # name -> (shape, dtype)
    params: dict = field(default_factory=dict)   # name -> (shape, dtype)
    boundary_feed: str = "x"     # the feed that takes boundary inputs
    seed: int = 0

    @property
    def near_miss(self) -> bool:
        return self.variant != "match"

    def arrays(self, label: str | None = None, salt: str = "") -> tuple[dict, dict]:
        """Feeds and parameters: seeded normal draws of the declared shapes and dtypes (bf16
        as uint16 bits); with `label`, the boundary feed is boundary_inputs(...)[label]."""
        inputs = {n: self._draw(n, s, d, salt) for n, (s, d) in self.feeds.items()}
        params = {n: self._draw(n, s, d, salt) for n, (s, d) in self.params.items()}
        if label is not None:
            shape, dtype = self.feeds[self.boundary_feed]
            inputs[self.boundary_feed] = boundary_inputs(dtype, shape)[label]
        return inputs, params

    def _draw(self, name, shape, dtype, salt):
        digest = hashlib.sha256(f"{self.seed}/{salt}/{name}".encode()).digest()
        rng = np.random.default_rng(int.from_bytes(digest[:8], "little"))
        if dtype == "b":
            return rng.random(shape) < 0.8
        v = rng.standard_normal(shape)
        if dtype == "bf16":
            return _bf16_bits(v.astype(np.float32))
        return v.astype({"f32": np.float32, "f16": np.float16, "f64": np.float64}[dtype])


class _Builder:
    """PIR text as Paddle 3.3 prints it, value by value, with each value's shape and dtype."""

    def __init__(self, dtype: str, rng: random.Random, params_ok: bool):
        self.dt, self.rng, self.params_ok = dtype, rng, params_ok
        self.lines: list[str] = []
        self.n = 0
        self.types: dict[str, tuple[list, str]] = {}
        self.feeds: dict = {}
        self.params: dict = {}
        self.fetched = 0

    def ty(self, v: str) -> str:
        shape, dt = self.types[v]
        return _ttype(shape, dt)

    def _new(self, shape, dt) -> str:
        v = f"%{self.n}"
        self.n += 1
        self.types[v] = (list(shape), dt)
        return v

    def op(self, name: str, operands, attrs: dict, results) -> list[str]:
        """results: [(shape, dtype)]; attrs: name -> printed value (stop_gradient added)."""
        outs = [self._new(s, d or self.dt) for s, d in results]
        a = dict(attrs)
        a.setdefault("stop_gradient", "[" + ",".join(["true"] * len(outs)) + "]")
        attr_text = ",".join(f"{k}:{a[k]}" for k in sorted(a))
        ins = ", ".join(operands)
        in_types = ", ".join(self.ty(v) for v in operands)
        out_types = ", ".join(self.ty(v) for v in outs)
        self.lines.append(f'    ({", ".join(outs)}) = "{name}" ({ins}) {{{attr_text}}} : '
                          f'({in_types}) -> {out_types}')
        return outs

    def one(self, name, operands, attrs=None, shape=None, dt=None) -> str:
        shape = self.types[operands[0]][0] if shape is None else shape
        return self.op(name, operands, attrs or {}, [(shape, dt)])[0]

    def data(self, name: str, shape, dt=None) -> str:
        dt = dt or self.dt
        self.feeds[name] = (tuple(shape), dt)
        return self.op("pd_op.data", [], {"dtype": _PADDLE[dt], "name": f'"{name}"',
                                          "place": "Place(undefined:0)", "shape": _ints(shape)},
                       [(shape, dt)])[0]

    def weight(self, name: str, shape, dt=None) -> str:
        """A parameter (float32/float64 programs, half of the time) or a feed."""
        dt = dt or self.dt
        if self.params_ok and dt in ("f32", "f64") and self.rng.random() < 0.5:
            self.params[name] = (tuple(shape), dt)
            return self.op("builtin.parameter", [], {
                "is_distributed": "[false]", "is_parameter": "[true]", "need_clip": "[true]",
                "parameter_name": f'"{name}"', "persistable": "[true]", "stop_gradient": "[false]",
                "trainable": "[true]"}, [(shape, dt)])[0]
        return self.data(name, shape, dt)

    def full(self, value: float, dt=None, shape=(1,)) -> str:
        dt = dt or self.dt
        return self.op("pd_op.full", [], {"dtype": _PADDLE[dt], "place": "Place(cpu)",
                                          "shape": _ints(shape), "value": _num(value)},
                       [(shape, dt)])[0]

    def int_array(self, values) -> str:
        return self.op("pd_op.full_int_array", [], {"dtype": "int64", "place": "Place(cpu)",
                                                     "value": _ints(values)},
                       [([len(values)], "i64")])[0]

    def scale(self, x: str, s: float, bias: float = 0.0) -> str:
        return self.one("pd_op.scale", [x, self.full(s, "f32")],
                        {"bias": _num(bias), "bias_after_scale": "true"})

    def binary(self, name: str, a: str, b: str, swap: bool | None = None) -> str:
        if swap is None:
            swap = self.rng.random() < 0.5
        x, y = (b, a) if swap else (a, b)
        shape = _broadcast(self.types[x][0], self.types[y][0])
        return self.one(name, [x, y], shape=shape)

    def concat(self, parts: list[str], shape) -> str:
        """concat(builtin.combine(parts), -1): the vector value has a type of its own."""
        vec = f"%{self.n}"
        self.n += 1
        ptypes = [self.ty(p) for p in parts]
        self.lines.append(f'    ({vec}) = "builtin.combine" ({", ".join(parts)}) {{stop_gradient:[true]}} : '
                          f'({", ".join(ptypes)}) -> vec[{",".join(ptypes)}]')
        axis = self.full(-1, "i32")
        out = self._new(shape, self.dt)
        self.lines.append(f'    ({out}) = "pd_op.concat" ({vec}, {axis}) {{stop_gradient:[true]}} : '
                          f'(vec[{",".join(ptypes)}], {self.ty(axis)}) -> {self.ty(out)}')
        return out

    def fetch(self, v: str) -> None:
        self.op("pd_op.fetch", [v], {"col": str(self.fetched), "name": f'"out{self.fetched}"',
                                     "persistable": "[true]"}, [(self.types[v][0], self.types[v][1])])
        self.fetched += 1

    def text(self) -> str:
        return "{\n" + "\n".join(self.lines) + "\n}\n"


def _ttype(shape, dt) -> str:
    dims = "x".join(str(d) for d in shape)
    return f"tensor<{dims}x{dt}>" if shape else f"tensor<{dt}>"


def _ints(values) -> str:
    return "[" + ",".join(str(int(v)) for v in values) + "]"


def _num(v: float) -> str:
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    if float(v).is_integer() and abs(v) < 1e15:
        return str(int(v))
    return f"{v:.9g}"


def _broadcast(a, b):
    n = max(len(a), len(b))
    a, b = [1] * (n - len(a)) + list(a), [1] * (n - len(b)) + list(b)
    return [max(x, y) if 1 in (x, y) else x for x, y in zip(a, b)]


# -- context around a pattern ----------------------------------------------------------------------

def _prefix(b: _Builder, x: str) -> str:
    """The pattern's input: the feed itself, or an op of it (the pattern need not start at a feed)."""
    roll = b.rng.random()
    if roll < 0.6:
        return x
    if roll < 0.8:
        return b.scale(x, b.rng.choice([0.5, 2.0, -1.0]))
    return b.one(b.rng.choice(["pd_op.tanh", "pd_op.abs", "pd_op.exp"]), [x])


def _suffix(b: _Builder, y: str) -> None:
    """Fetch the result, or an op of it."""
    roll = b.rng.random()
    if roll < 0.7:
        b.fetch(y)
    elif roll < 0.85:
        b.fetch(b.binary("pd_op.add", y, y))
    else:
        b.fetch(b.one("pd_op.relu", [y]))


def _rows(rng: random.Random, hidden=None) -> list[int]:
    h = hidden or rng.choice([4, 8, 16, 32, 64])
    return rng.choice([[rng.randint(1, 6), h], [rng.randint(1, 3), rng.randint(1, 6), h]])


# -- the patterns --------------------------------------------------------------------------------------
# Each builder draws one program: `variant` "match" or one of its near misses.

def _rms_norm(b: _Builder, variant: str) -> None:
    rng = b.rng
    shape = _rows(rng)
    x = _prefix(b, b.data("x", shape))
    if rng.random() < 0.3:  # a residual add before the norm (its sum fetched: residual_out)
        r = b.data("residual", shape if variant != "broadcast-residual" else shape[-1:])
        h = b.binary("pd_op.add", x, r)
        if rng.random() < 0.5:
            b.fetch(h)
    else:
        h = x
    exponent = 3 if variant == "pow3" else 2
    sq = b.one("pd_op.pow", [h], {"y": str(exponent)}) if rng.random() < 0.85 or exponent != 2 \
        else b.binary("pd_op.multiply", h, h)
    axis = -2 if variant == "mean-axis" and len(shape) == 3 else -1
    reduced = list(shape)
    reduced[axis] = 1
    m = b.one("pd_op.mean", [sq, b.int_array([axis])], {"keepdim": "true"}, shape=reduced)
    eps = rng.choice([1e-5, 1e-6, 1e-12, 1e-8])
    if variant == "eps-outside":
        rs = b.binary("pd_op.add", b.one("pd_op.rsqrt", [m]), b.full(eps))
    else:
        if rng.random() < 0.5:
            e = b.one("pd_op.scale", [m, b.full(2.0 if variant == "scale-not-1" else 1.0, "f32")],
                      {"bias": _num(eps), "bias_after_scale": "true"})
        else:
            e = b.binary("pd_op.add", m, b.full(eps))
        rs = b.one("pd_op.rsqrt", [e])
    if variant == "fetch-intermediate":
        b.fetch(rs)
    y = b.binary("pd_op.multiply", h, rs)
    w = b.weight("w", [shape[-1]])
    _suffix(b, b.binary("pd_op.multiply", y, w))


def _fc(b: _Builder, variant: str) -> None:
    rng = b.rng
    k, n = rng.choice([4, 8, 16]), rng.choice([3, 8, 16])
    lead = rng.choice([[rng.randint(1, 6)], [rng.randint(1, 3), rng.randint(1, 5)]])
    if variant == "bias-2d":
        lead = lead[-1:]
    x = _prefix(b, b.data("x", lead + [k]))
    w = b.weight("w", [k, n])
    mm = b.op("pd_op.matmul", [x, w], {"transpose_x": "false", "transpose_y": "false"},
              [(lead + [n], None)])[0]
    if variant == "fetch-matmul":
        b.fetch(mm)
    bias = b.weight("b", lead + [n] if variant == "bias-2d" else [n])
    y = b.binary("pd_op.add", mm, bias)
    if rng.random() < 0.5:
        y = b.one("pd_op.relu" if variant != "tanh-activation" else "pd_op.tanh", [y])
    elif variant == "tanh-activation":
        y = b.one("pd_op.tanh", [y])
    _suffix(b, y)


def _residual_layer_norm(b: _Builder, variant: str) -> None:
    rng = b.rng
    shape = _rows(rng)
    x = _prefix(b, b.data("x", shape))
    r = b.data("residual", shape[-1:] if variant == "broadcast-residual" else shape)
    h = b.binary("pd_op.add", x, r)
    if rng.random() < 0.4:
        b.fetch(h)
    begin = len(shape) - 1
    w, bias = b.weight("ln_w", [shape[-1]]), b.weight("ln_b", [shape[-1]])
    stats = shape[:begin]
    out, mean, var = b.op("pd_op.layer_norm", [h, w, bias],
                          {"begin_norm_axis": str(begin), "epsilon": _num(rng.choice([1e-5, 1e-6, 1e-12])),
                           "stop_gradient": "[true,true,true]"},
                          [(shape, None), (stats, "f32"), (stats, "f32")])
    if variant == "fetch-mean":
        b.fetch(mean)
    _suffix(b, out)


def _silu(b: _Builder, variant: str) -> None:
    shape = _rows(b.rng)
    x = _prefix(b, b.data("x", shape))
    other = b.data("y", shape) if variant == "other-value" else x
    s = b.one("pd_op.sigmoid", [other])
    if variant == "fetch-sigmoid":
        b.fetch(s)
    _suffix(b, b.binary("pd_op.multiply", x, s))


def _swiglu(b: _Builder, variant: str) -> None:
    rng = b.rng
    shape = _rows(rng)
    a = _prefix(b, b.data("x", shape))
    g = b.data("gate", shape[-1:] if variant == "broadcast-gate" else shape)
    if rng.random() < 0.5:
        s = b.one("pd_op.silu", [a])
    else:
        s = b.binary("pd_op.multiply", a, b.one("pd_op.sigmoid", [a]))
    if variant == "fetch-silu":
        b.fetch(s)
    _suffix(b, b.binary("pd_op.multiply", s, g))


def _gelu(b: _Builder, variant: str) -> None:
    rng = b.rng
    shape = _rows(rng)
    x = _prefix(b, b.data("x", shape))
    tanh_form = variant in ("tanh-const",) or (variant == "match" and rng.random() < 0.5)
    if variant == "erf-const":
        tanh_form = False
    if tanh_form:
        cube = b.one("pd_op.pow", [x], {"y": "3"})
        inner = b.binary("pd_op.add", x, b.scale(cube, 0.05 if variant == "tanh-const" else 0.044715))
        t = b.one("pd_op.tanh", [b.scale(inner, math.sqrt(2 / math.pi))])
        core = t
    else:
        c = 0.8 if variant == "erf-const" else 1 / math.sqrt(2)
        if rng.random() < 0.5:
            arg = b.scale(x, c)
        else:
            arg = b.binary("pd_op.divide", x, b.full(1 / c), swap=False)
        core = b.one("pd_op.erf", [arg])
    one_plus = b.scale(core, 1.0, 1.0) if rng.random() < 0.5 else b.binary("pd_op.add", core, b.full(1.0))
    if rng.random() < 0.5:  # 0.5 * x first, or last
        y = b.binary("pd_op.multiply", b.scale(x, 0.5), one_plus)
    else:
        y = b.scale(b.binary("pd_op.multiply", x, one_plus), 0.5)
    _suffix(b, y)


def _rotary(b: _Builder, variant: str) -> None:
    rng = b.rng
    d = rng.choice([4, 8, 16])
    shape = [rng.randint(1, 2), rng.randint(1, 3), rng.randint(1, 6), d]
    q = _prefix(b, b.data("x", shape))
    cos, sin = b.data("cos", [1, 1, shape[2], d]), b.data("sin", [1, 1, shape[2], d])
    if variant == "sin-cos-swapped":
        cos, sin = sin, cos
    half = d // 2
    cut = half - 1 if variant == "slice-bounds" else half
    first = b.op("pd_op.slice", [q, b.int_array([0]), b.int_array([cut])],
                 {"axes": "[3]", "decrease_axis": "[]", "infer_flags": "[1]"},
                 [(shape[:3] + [cut], None)])[0]
    second = b.op("pd_op.slice", [q, b.int_array([cut]), b.int_array([2147483647])],
                  {"axes": "[3]", "decrease_axis": "[]", "infer_flags": "[1]"},
                  [(shape[:3] + [d - cut], None)])[0]
    neg = b.scale(second, -1.0)
    parts = [first, neg] if variant == "halves-swapped" else [neg, first]
    rot = b.concat(parts, shape)
    y = b.binary("pd_op.add", b.binary("pd_op.multiply", q, cos), b.binary("pd_op.multiply", rot, sin))
    _suffix(b, y)


def _attention(b: _Builder, variant: str) -> None:
    rng = b.rng
    d = rng.choice([4, 8, 16])
    bsz, heads, s = rng.randint(1, 2), rng.randint(1, 3), rng.randint(1, 8)
    shape = [bsz, heads, s, d]
    q = _prefix(b, b.data("x", shape))
    k, v = b.data("k", shape), b.data("v", shape)
    scores = b.op("pd_op.matmul", [q, k], {"transpose_x": "false", "transpose_y": "true"},
                  [([bsz, heads, s, s], None)])[0]
    scale = 0.3 if variant == "scale-other" else 1 / math.sqrt(d)
    scaled = b.scale(scores, scale)
    if variant == "float-mask":  # any float mask: not provably 0 / -inf
        scaled = b.binary("pd_op.add", scaled, b.data("mask", [bsz, 1, s, s]))
    elif variant == "match" and rng.random() < 0.3:  # where(bool, 0, -inf): a boolean mask
        keep = b.data("mask", [bsz, 1, s, s], "b")
        mask = b.one("pd_op.where", [keep, b.full(0.0, shape=(bsz, 1, s, s)),
                                     b.full(-math.inf, shape=(bsz, 1, s, s))], dt=b.dt)
        scaled = b.binary("pd_op.add", scaled, mask)
    probs = b.one("pd_op.softmax", [scaled], {"axis": "-2" if variant == "softmax-axis" else "-1"})
    if variant == "fetch-probs":
        b.fetch(probs)
    out = b.op("pd_op.matmul", [probs, v], {"transpose_x": "false", "transpose_y": "false"},
               [(shape, None)])[0]
    _suffix(b, out)


def _scaled_softmax(b: _Builder, variant: str) -> None:
    shape = _rows(b.rng)
    x = _prefix(b, b.data("x", shape))
    bias = 0.5 if variant == "scale-bias" else 0.0
    s = b.scale(x, b.rng.choice([0.125, 0.353553, 2.0]), bias)
    _suffix(b, b.one("pd_op.softmax", [s], {"axis": "0" if variant == "softmax-axis" else "-1"}))


# pass -> (builder, near misses)
PATTERNS = {
    "fuse-rms-norm": (_rms_norm, ("pow3", "mean-axis", "eps-outside", "scale-not-1",
                                  "fetch-intermediate", "broadcast-residual")),
    "fuse-fc": (_fc, ("bias-2d", "fetch-matmul", "tanh-activation")),
    "fuse-residual-layer-norm": (_residual_layer_norm, ("broadcast-residual", "fetch-mean")),
    "fuse-silu": (_silu, ("other-value", "fetch-sigmoid")),
    "fuse-swiglu": (_swiglu, ("broadcast-gate", "fetch-silu")),
    "fuse-gelu": (_gelu, ("erf-const", "tanh-const")),
    "fuse-rotary": (_rotary, ("slice-bounds", "halves-swapped", "sin-cos-swapped")),
    "fuse-attention": (_attention, ("scale-other", "softmax-axis", "fetch-probs", "float-mask")),
    "fuse-scaled-softmax": (_scaled_softmax, ("scale-bias", "softmax-axis")),
}


def fusion_program(seed: int, pass_name: str | None = None, variant: str | None = None,
                   dtype: str | None = None) -> FusionProgram:
    """One program around one pattern (see the module docstring); unnamed choices are drawn."""
    rng = random.Random(f"pirc-fusion/{seed}/{pass_name}/{variant}/{dtype}")
    pass_name = pass_name or rng.choice(sorted(PATTERNS))
    build, misses = PATTERNS[pass_name]
    if variant is None:
        variant = "match" if rng.random() < 0.5 else rng.choice(misses)
    if variant != "match" and variant not in misses:
        raise ValueError(f"{pass_name} has no near miss {variant!r}; it has {', '.join(misses)}")
    dtype = dtype or rng.choice(["f32", "f32", "f16", "bf16", "f64"])
    b = _Builder(dtype, rng, params_ok=True)
    build(b, variant)
    return FusionProgram(pass_name, variant, dtype, b.text(), b.feeds, b.params, "x", seed)


def program_of(text: str, pass_name: str, variant: str, dtype: str, seed: int) -> FusionProgram:
    """A FusionProgram for `text` (a drawn program, or one minimized or edited by hand): its
    feeds and parameters read from the program's own pd_op.data and builtin.parameter ops."""
    import pirc
    from ..ir.types import ELEMENT_TYPE_NAMES

    program = pirc.parse(text, from_version=4)
    feeds, params = {}, {}
    for op in program.block.ops:
        if op.name not in ("pd_op.data", "builtin.parameter") or not op.results:
            continue
        t = op.results[0].type
        shape = tuple(max(int(d.data), 1) for d in t.dims.data)
        dt = ELEMENT_TYPE_NAMES.get(t.dtype, "f32")
        if op.name == "pd_op.data":
            feeds[op.attributes["name"].data] = (shape, dt)
        else:
            params[op.attributes["parameter_name"].data] = (shape, dt)
    boundary = "x" if "x" in feeds else next(iter(feeds), "x")
    return FusionProgram(pass_name, variant, dtype, text, feeds, params, boundary, seed)


def fusion_programs(pass_name: str | None = None, dtype: str | None = None):
    """Hypothesis strategy: fusion_program over seeds (shrinks toward seed 0)."""
    from hypothesis import strategies as st
    return st.integers(0, 2 ** 32 - 1).map(lambda n: fusion_program(n, pass_name, None, dtype))
