"""Hypothesis strategies for random VALID PIR programs, for fuzzing passes and upgrades.

`programs()` draws a straight-line program of pd_op ops whose shapes and dtypes are consistent:
feeds (pd_op.data), unary activations, broadcasting binary elementwise ops, scale, matmul,
reductions (sum / mean / max with a full_int_array axis), reshape, transpose, and a fetch for
every value nothing uses.  The text is what Paddle 3.3 prints (PIR version 4), so the program
is read by pirc's own front end exactly as a real saved program would be.  Each draw also
carries its expected outputs, computed in numpy while the program is built, so a test can
check a lowering, a pass or an upgrade against an independent reference.

    from hypothesis import given
    from pirc.testing.strategies import programs

    @given(programs())
    def test_pass_keeps_numbers(g):
        before = g.parse(); after = my_pass(g.parse())
        assert numerical_diff(before, after, g.inputs).equal
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from hypothesis import strategies as st

__all__ = ["programs", "GeneratedProgram", "VERSION"]

VERSION = 4  # the PIR version whose op definitions the generated text follows

_DTYPES = {"float32": "f32", "float64": "f64"}
UNARY = {"pd_op.relu": lambda x: np.maximum(x, 0), "pd_op.tanh": np.tanh,
         "pd_op.sigmoid": lambda x: 1 / (1 + np.exp(-x)), "pd_op.exp": np.exp,
         "pd_op.abs": np.abs}
BINARY = {"pd_op.add": np.add, "pd_op.subtract": np.subtract, "pd_op.multiply": np.multiply,
          "pd_op.maximum": np.maximum, "pd_op.minimum": np.minimum}
REDUCE = {"pd_op.sum": np.sum, "pd_op.mean": np.mean, "pd_op.max": np.max}


@dataclass
class GeneratedProgram:
    text: str                                   # Paddle-printed PIR text, version 4
    inputs: dict[str, np.ndarray]               # feed name -> array
    expected: list[np.ndarray]                  # numpy reference of each fetch, in order
    op_names: list[str] = field(default_factory=list)

    def parse(self):
        import pirc

        return pirc.parse(self.text, from_version=VERSION)


def _ttype(shape, dt):
    return "tensor<" + "x".join(str(d) for d in shape) + ("x" if shape else "") + _DTYPES[dt] + ">"


class _Builder:
    def __init__(self, dtype):
        self.dt = dtype
        self.lines: list[str] = []
        self.values: list[tuple[int, tuple, np.ndarray]] = []  # (id, shape, numpy value)
        self.used: set[int] = set()
        self.inputs: dict[str, np.ndarray] = {}
        self.n = 0
        self.names: list[str] = []

    def emit(self, name, operands, attrs, out_shape, out_type=None):
        vid = self.n
        self.n += 1
        ins = ", ".join(f"%{o}" for o, _ in operands)
        in_types = ", ".join(t for _, t in operands)
        a = ",".join(attrs + ["stop_gradient:[true]"])
        self.lines.append(f'    (%{vid}) = "{name}" ({ins}) {{{a}}} : ({in_types}) -> '
                          f'{out_type or _ttype(out_shape, self.dt)}')
        self.names.append(name)
        for o, _ in operands:
            self.used.add(o)
        return vid

    def tensor(self, vid):
        shape = next(s for i, s, _ in self.values if i == vid)
        return vid, _ttype(shape, self.dt)

    def add_value(self, vid, value):
        value = np.asarray(value, dtype=self.dt)
        self.values.append((vid, tuple(value.shape), value))
        return vid

    def data(self, shape, rng):
        name = f"x{len(self.inputs)}"
        arr = rng.standard_normal(shape).astype(self.dt)
        self.inputs[name] = arr
        vid = self.emit("pd_op.data", [], [f"dtype:{self.dt}", f'name:"{name}"',
                                           "place:Place(undefined:0)",
                                           "shape:[" + ",".join(map(str, shape)) + "]"], shape)
        return self.add_value(vid, arr)

    def int_array(self, values):
        vid = self.emit("pd_op.full_int_array", [],
                        ["dtype:int64", "place:Place(cpu)",
                         "value:[" + ",".join(map(str, values)) + "]"],
                        None, f"tensor<{len(values)}xi64>")
        return vid, f"tensor<{len(values)}xi64>"

    def full1(self, value):
        vid = self.emit("pd_op.full", [], [f"dtype:{self.dt}", "place:Place(cpu)", "shape:[1]",
                                           f"value:{value}"], (1,))
        return vid, _ttype((1,), self.dt)


def _shapes():
    return st.lists(st.integers(1, 4), min_size=1, max_size=3).map(tuple)


@st.composite
def programs(draw, max_ops: int = 8, dtypes=("float32", "float64")):
    """A random valid version-4 program with 1..max_ops compute ops (see module docstring)."""
    dt = draw(st.sampled_from(dtypes))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    b = _Builder(dt)
    b.data(draw(_shapes()), rng)
    for _ in range(draw(st.integers(1, max_ops))):
        vid, shape, val = draw(st.sampled_from(b.values))
        kinds = ["unary", "binary", "scale", "reshape", "data"]
        if shape:  # a 0-d value (a full reduction) has no axis to reduce, permute or contract
            kinds += ["matmul", "reduce", "transpose"]
        kind = draw(st.sampled_from(kinds))
        if kind == "data":
            b.data(draw(_shapes()), rng)
        elif kind == "unary":
            name = draw(st.sampled_from(sorted(UNARY)))
            if name == "pd_op.exp":
                val = np.clip(val, -30, 30)  # keep later products finite
                vid = b.add_value(b.emit("pd_op.tanh", [b.tensor(vid)], [], shape), np.tanh(val))
                val = np.tanh(val)
            b.add_value(b.emit(name, [b.tensor(vid)], [], shape), UNARY[name](val))
        elif kind == "binary":
            name = draw(st.sampled_from(sorted(BINARY)))
            partners = [(i, s, v) for i, s, v in b.values if _broadcasts(s, shape)]
            pid, pshape, pval = draw(st.sampled_from(partners))
            out = np.broadcast_shapes(shape, pshape)
            b.add_value(b.emit(name, [b.tensor(vid), b.tensor(pid)], [], out),
                        BINARY[name](val, pval))
        elif kind == "scale":
            s = draw(st.sampled_from([0.5, 2.0, -1.5]))
            bias = draw(st.sampled_from([0.0, 1.0, -0.25]))
            after = draw(st.booleans())
            sv = b.full1(s)
            ref = val * s + bias if after else (val + bias) * s
            b.add_value(b.emit("pd_op.scale", [b.tensor(vid), sv],
                               [f"bias:{bias}", f"bias_after_scale:{str(after).lower()}"],
                               shape), ref)
        elif kind == "matmul":
            k = shape[-1]
            n = draw(st.integers(1, 4))
            wid = b.data((k, n), rng)
            w = b.values[-1][2]
            tx = False
            out = shape[:-1] + (n,)
            b.add_value(b.emit("pd_op.matmul", [b.tensor(vid), b.tensor(wid)],
                               [f"transpose_x:{str(tx).lower()}", "transpose_y:false"], out),
                        np.matmul(val, w))
        elif kind == "reduce":
            name = draw(st.sampled_from(sorted(REDUCE)))
            axes = sorted(draw(st.sets(st.integers(0, len(shape) - 1), min_size=1)))
            keep = draw(st.booleans())
            out = tuple(1 if i in axes else d for i, d in enumerate(shape)) if keep else \
                tuple(d for i, d in enumerate(shape) if i not in axes)
            attrs = [f"keepdim:{str(keep).lower()}"]
            if name == "pd_op.sum":
                attrs.insert(0, "dtype:Undefined")
            ref = REDUCE[name](val, axis=tuple(axes), keepdims=keep)
            b.add_value(b.emit(name, [b.tensor(vid), b.int_array(axes)], attrs, out), ref)
        elif kind == "reshape":
            size = int(np.prod(shape))
            target = draw(st.sampled_from([(size,), (1, size), (size, 1)]))
            spec = [-1] + list(target[1:]) if len(target) > 1 else [-1]
            b.add_value(b.emit("pd_op.reshape", [b.tensor(vid), b.int_array(spec)], [], target),
                        val.reshape(target))
        else:  # transpose
            perm = draw(st.permutations(range(len(shape))))
            out = tuple(shape[p] for p in perm)
            b.add_value(b.emit("pd_op.transpose", [b.tensor(vid)],
                               ["perm:[" + ",".join(map(str, perm)) + "]"], out),
                        np.transpose(val, perm))
    expected = []
    col = 0
    for vid, shape, val in list(b.values):
        if vid in b.used:
            continue
        b.emit("pd_op.fetch", [b.tensor(vid)],
               [f"col:{col}", f'name:"fetch_name_{col}"', "persistable:[true]"], shape)
        expected.append(val)
        col += 1
    text = "{\n" + "\n".join(b.lines) + "\n}\n"
    return GeneratedProgram(text, b.inputs, expected, b.names)


def _broadcasts(a, b):
    try:
        np.broadcast_shapes(a, b)
        return True
    except ValueError:
        return False
