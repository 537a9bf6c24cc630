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

`aliasing_programs()` (= `programs(aliasing=True, parameters=True)`) adds what the pass layer
must respect about buffers (docs/TESTING.md, "Generated programs"):

* in-place ops (`relu_`, `tanh_`, `exp_`, `abs_`, `sigmoid_`, `scale_`, `add_`, `subtract_`,
  `multiply_`, `assign_value_`) on feeds, intermediates, constants and parameters; the
  written operand is read again later, by its old name and by the in-place result's name;
* 0-D tensors (feeds and constants of shape `[]`, full reductions);
* `to_tensor`-style constants: a `pd_op.full` written by a `pd_op.assign_value_`, drawn in
  pairs of the same shape and `full` value (the LLaMA attention mask's shape);
* views (`reshape`, `squeeze`, `unsqueeze`, `flatten`), later written through either name;
* shared intermediates and repeated pure ops (the same op on the same operands twice, with
  an in-place write of an operand in between or not: what cse must tell apart);
* identity copies (`assign`, `scale` by 1), cast pairs (to the other float type and back),
  constant chains (`scale` of a `full`, `concat` of constants) for canonicalize and const-fold;
* parameters (`builtin.parameter`, `GeneratedProgram.params`, `write_params()` for a
  `.pdiparams`), ops on parameters only (param-fold), parameters written in place, and
  `conv2d` + inference `batch_norm_` (conv-bn-fold).

The numpy reference follows Paddle 3.3.1's static executor, checked by hand against it: an
in-place op writes its operand's buffer, and every name of that buffer (the operand, the
result, earlier in-place results) reads the new contents from then on; a view op's result is
a buffer of its own (the executor copies: a write through a `reshape` result does not change
its input, nor the reverse); a fetch reads its value's buffer at the end of the program.
That is Paddle's sequential executor (`FLAGS_new_executor_sequential_run=1`, the semantics
pirc's lowering implements, docs/LOWERING.md). Paddle's default multi-threaded executor does
not order a read through an older name after a write through a later in-place result of the
same buffer, and may reuse a buffer for an op's output while another name of it is still
fetched; in such programs Paddle's own runs disagree (tools/paddle_oracle compares an
optimised program with Paddle's run of the original, never with this reference).
Parameters are read fresh for each run: give `run` a copy of `params` (`fresh_params()`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from hypothesis import strategies as st

__all__ = ["programs", "aliasing_programs", "GeneratedProgram", "VERSION", "INPLACE_UNARY",
           "INPLACE_BINARY", "VIEWS", "INGREDIENTS"]

VERSION = 4  # the PIR version whose op definitions the generated text follows

_DTYPES = {"float32": "f32", "float64": "f64"}
UNARY = {"pd_op.relu": lambda x: np.maximum(x, 0), "pd_op.tanh": np.tanh,
         "pd_op.sigmoid": lambda x: 1 / (1 + np.exp(-x)), "pd_op.exp": np.exp,
         "pd_op.abs": np.abs}
BINARY = {"pd_op.add": np.add, "pd_op.subtract": np.subtract, "pd_op.multiply": np.multiply,
          "pd_op.maximum": np.maximum, "pd_op.minimum": np.minimum}
REDUCE = {"pd_op.sum": np.sum, "pd_op.mean": np.mean, "pd_op.max": np.max}
# In-place forms (op definition `inplace: {out: x}`): the result is the operand's buffer.
INPLACE_UNARY = {name + "_": fn for name, fn in UNARY.items()}
INPLACE_BINARY = {"pd_op.add_": np.add, "pd_op.subtract_": np.subtract,
                  "pd_op.multiply_": np.multiply}
VIEWS = ("pd_op.reshape", "pd_op.squeeze", "pd_op.unsqueeze", "pd_op.flatten")
# What an aliasing program may hold; GeneratedProgram.ingredients names those it does.
INGREDIENTS = ("inplace", "inplace-read-again", "0-d", "to_tensor-pair", "view", "view-written",
               "shared", "repeat", "repeat-across-write", "param", "param-written", "param-only-op",
               "conv-bn", "const-chain", "identity", "cast-pair")
# Constants whose Paddle print (6 significant digits) is exact, so the printed program and
# the numpy reference hold the same numbers.
_CONSTANTS = (0.0, 1.0, -1.0, 2.5, -0.5, 3.0, -100.0, 0.25)


@dataclass
class GeneratedProgram:
    text: str                                   # Paddle-printed PIR text, version 4
    inputs: dict[str, np.ndarray]               # feed name -> array
    expected: list[np.ndarray]                  # numpy reference of each fetch, in order
    op_names: list[str] = field(default_factory=list)
    params: dict[str, np.ndarray] = field(default_factory=dict)  # parameter name -> array
    ingredients: set[str] = field(default_factory=set)           # of INGREDIENTS

    def parse(self):
        import pirc

        return pirc.parse(self.text, from_version=VERSION)

    def fresh_params(self) -> dict[str, np.ndarray]:
        """A copy of the parameters for one run: a program may write them in place."""
        return {k: v.copy() for k, v in self.params.items()}

    def write_params(self, path) -> None:
        """The parameters as a `.pdiparams` file (Paddle's format, sorted by name)."""
        import pirc

        pirc.write_params(str(path), self.params, self.parse())


def _ttype(shape, dt):
    return "tensor<" + "x".join(str(d) for d in shape) + ("x" if shape else "") + _DTYPES[dt] + ">"


def _list(values):
    return "[" + ",".join(map(str, values)) + "]"


class _Builder:
    """Emits the text and runs the numpy reference alongside, buffer by buffer.

    Every value names a buffer (`buf_of`); an in-place op's result names its operand's
    buffer, every other result a new one.  Reading a value reads its buffer's contents now."""

    def __init__(self, dtype, aliasing=False):
        self.dt = dtype
        self.aliasing = aliasing
        self.lines: list[str] = []
        self.values: list[tuple[int, tuple]] = []   # (id, shape): what later ops may use
        self.shape_of: dict[int, tuple] = {}
        self.buf_of: dict[int, int] = {}
        self.bufs: list[np.ndarray] = []
        self.used: set[int] = set()
        self.inputs: dict[str, np.ndarray] = {}
        self.params: dict[str, np.ndarray] = {}
        self.param_values: set[int] = set()
        self.param_only: set[int] = set()            # values computed from parameters only
        self.consts: set[int] = set()                 # values computed from constants only
        self.pure: list[tuple] = []                   # (name, operands, attrs, shape, fn) to repeat
        self.written_at: dict[int, int] = {}          # buffer -> op count of its last write
        self.n = 0
        self.names: list[str] = []
        self.ingredients: set[str] = set()

    # -- text ------------------------------------------------------------------------------

    def emit(self, name, operands, attrs, out_shape, out_type=None, stop_gradient="[true]"):
        vid = self.n
        self.n += 1
        ins = ", ".join(f"%{o}" for o, _ in operands)
        in_types = ", ".join(t for _, t in operands)
        extra = [f"stop_gradient:{stop_gradient}"] if stop_gradient else []
        a = ",".join(sorted(attrs + extra))
        self.lines.append(f'    (%{vid}) = "{name}" ({ins}) {{{a}}} : ({in_types}) -> '
                          f'{out_type or _ttype(out_shape, self.dt)}')
        self.names.append(name)
        for o, _ in operands:
            if o in self.used and o in self.shape_of:
                self.ingredients.add("shared")
            self.used.add(o)
        return vid

    def tensor(self, vid):
        return vid, _ttype(self.shape_of[vid], self.dt)

    # -- the reference ---------------------------------------------------------------------

    def read(self, vid) -> np.ndarray:
        return self.bufs[self.buf_of[vid]]

    def add_value(self, vid, value, offer=True):
        """`vid` names a new buffer holding `value`."""
        value = np.asarray(value, dtype=self.dt)
        self.buf_of[vid] = len(self.bufs)
        self.bufs.append(value)
        self.shape_of[vid] = tuple(value.shape)
        if not value.shape:
            self.ingredients.add("0-d")
        if offer:
            self.values.append((vid, tuple(value.shape)))
        return vid

    def write(self, vid, operand, value):
        """`vid`, the result of an in-place op on `operand`, names the operand's buffer, which
        now holds `value` (for every name of it)."""
        value = np.asarray(value, dtype=self.dt)
        assert value.shape == self.shape_of[operand], (value.shape, self.shape_of[operand])
        buf = self.buf_of[operand]
        self.bufs[buf] = value
        self.buf_of[vid] = buf
        self.shape_of[vid] = self.shape_of[operand]
        self.values.append((vid, self.shape_of[vid]))
        self.written_at[buf] = self.n
        self.ingredients.add("inplace")
        if buf in {self.buf_of[p] for p in self.param_values}:
            self.ingredients.add("param-written")
        return vid

    def names_of(self, vid):
        return [v for v, _ in self.values if self.buf_of[v] == self.buf_of[vid]]

    # -- leaves ----------------------------------------------------------------------------

    def data(self, shape, rng):
        name = f"x{len(self.inputs)}"
        arr = np.asarray(rng.standard_normal(shape)).astype(self.dt)
        self.inputs[name] = arr
        vid = self.emit("pd_op.data", [], [f"dtype:{self.dt}", f'name:"{name}"',
                                           "place:Place(undefined:0)",
                                           "shape:" + _list(shape)], shape)
        return self.add_value(vid, arr)

    def parameter(self, shape, rng, positive=False):
        name = f"w{len(self.params)}"
        arr = np.asarray(rng.standard_normal(shape)).astype(self.dt)
        if positive:
            arr = (np.abs(arr) + 0.5).astype(self.dt)
        self.params[name] = arr
        vid = self.emit("builtin.parameter", [],
                        ["is_distributed:[false]", "is_parameter:[true]", "need_clip:[true]",
                         f'parameter_name:"{name}"', "persistable:[true]", "trainable:[true]"],
                        shape, stop_gradient="[false]")
        self.param_values.add(vid)
        self.param_only.add(vid)
        self.ingredients.add("param")
        return self.add_value(vid, arr.copy())

    def int_array(self, values):
        vid = self.emit("pd_op.full_int_array", [],
                        ["dtype:int64", "place:Place(cpu)", "value:" + _list(values)],
                        None, f"tensor<{len(values)}xi64>")
        return vid, f"tensor<{len(values)}xi64>"

    def full1(self, value):
        vid = self.emit("pd_op.full", [], [f"dtype:{self.dt}", "place:Place(cpu)", "shape:[1]",
                                           f"value:{value}"], (1,))
        return vid, _ttype((1,), self.dt)

    def full(self, shape, value, offer=True):
        vid = self.emit("pd_op.full", [], [f"dtype:{self.dt}", "place:Place(undefined:0)",
                                           "shape:" + _list(shape), f"value:{value}"], shape)
        self.consts.add(vid)
        return self.add_value(vid, np.full(shape, value), offer)

    def assign_value_(self, target, values):
        shape = self.shape_of[target]
        vid = self.emit("pd_op.assign_value_", [self.tensor(target)],
                        [f"dtype:{self.dt}", "place:Place(undefined:0)", "shape:" + _list(shape),
                         "values:" + _list(values)], shape)
        return self.write(vid, target, np.asarray(values, dtype=self.dt).reshape(shape))

    # -- derived values --------------------------------------------------------------------

    def derived(self, vid, operands):
        """Bookkeeping of a new (not in-place) result computed from `operands`."""
        if operands and all(o in self.param_only for o in operands):
            self.param_only.add(vid)
            self.ingredients.add("param-only-op")
        if operands and all(o in self.consts for o in operands):
            self.consts.add(vid)
            self.ingredients.add("const-chain")
        return vid

    def pure_op(self, name, operands, attrs, shape, fn, repeatable=True):
        """A pure op: its result is a new buffer computed by `fn` from its operands' contents."""
        vid = self.emit(name, [self.tensor(o) if isinstance(o, int) else o for o in operands],
                        attrs, shape)
        # operands given as (id, type) are attribute-like (a full_int_array axis, a scale
        # factor): `fn` takes the contents of the plain tensor operands only
        self.add_value(vid, fn(*[self.read(o) for o in operands if isinstance(o, int)]))
        if repeatable and self.aliasing:
            self.pure.append((name, operands, attrs, shape, fn, self.n))
        return self.derived(vid, [o if isinstance(o, int) else o[0] for o in operands])


def _shapes(zero_d=False):
    shapes = st.lists(st.integers(1, 4), min_size=1, max_size=3).map(tuple)
    if zero_d:
        return st.one_of(shapes, shapes, shapes, st.just(()))
    return shapes


@st.composite
def aliasing_programs(draw, max_ops: int = 10, dtypes=("float32", "float64")):
    """A random valid program with in-place ops, 0-D tensors, to_tensor constants, views,
    shared intermediates and parameters written in place (see the module docstring)."""
    return draw(programs(max_ops=max_ops, dtypes=dtypes, aliasing=True, parameters=True))


@st.composite
def programs(draw, max_ops: int = 8, dtypes=("float32", "float64"), aliasing: bool = False,
             parameters: bool = False):
    """A random valid version-4 program with 1..max_ops compute ops (see module docstring).
    `aliasing` adds in-place ops, 0-D tensors, to_tensor constants, views and repeated ops;
    `parameters` adds builtin.parameter values (GeneratedProgram.params) and conv + bn."""
    with np.errstate(all="ignore"):  # the reference overflows where the kernels do (exp, sigmoid)
        return _program(draw, max_ops, dtypes, aliasing, parameters)


def _program(draw, max_ops, dtypes, aliasing, parameters):
    dt = draw(st.sampled_from(dtypes))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    b = _Builder(dt, aliasing)
    if parameters:
        for _ in range(draw(st.integers(0, 2))):
            b.parameter(draw(_shapes()), rng)
    b.data(draw(_shapes(aliasing)), rng)
    for _ in range(draw(st.integers(1, max_ops))):
        vid, shape = draw(st.sampled_from(b.values))
        val = b.read(vid)
        kinds = ["unary", "binary", "scale", "reshape", "data"]
        if shape:  # a 0-d value (a full reduction) has no axis to reduce, permute or contract
            kinds += ["matmul", "reduce", "transpose"]
        if aliasing:
            kinds += ["inplace_unary", "inplace_unary", "inplace_binary", "inplace_scale",
                      "to_tensor", "to_tensor", "view", "view", "repeat", "repeat", "identity",
                      "const", "assign_value", "cast", "fold", "fold"]
            if shape:
                kinds += ["concat"]
        if parameters:
            kinds += ["param", "conv_bn"]
        kind = draw(st.sampled_from(kinds))
        if kind == "data":
            b.data(draw(_shapes(aliasing)), rng)
        elif kind == "param":
            b.parameter(draw(_shapes(aliasing)), rng)  # 0-D ones too
        elif kind == "unary":
            name = draw(st.sampled_from(sorted(UNARY)))
            if name == "pd_op.exp":
                vid = b.pure_op("pd_op.tanh", [vid], [], shape, np.tanh)  # keep later products finite
            b.pure_op(name, [vid], [], shape, UNARY[name])
        elif kind == "inplace_unary":
            name = draw(st.sampled_from(sorted(INPLACE_UNARY)))
            if name == "pd_op.exp_":
                vid = b.write(b.emit("pd_op.tanh_", [b.tensor(vid)], [], shape), vid, np.tanh(val))
                val = b.read(vid)
            b.write(b.emit(name, [b.tensor(vid)], [], shape), vid, INPLACE_UNARY[name](val))
            _read_again(draw, b, vid)
        elif kind in ("binary", "inplace_binary"):
            names = BINARY if kind == "binary" else INPLACE_BINARY
            name = draw(st.sampled_from(sorted(names)))
            if kind == "binary":
                partners = [(i, s) for i, s in b.values if _broadcasts(s, shape)]
            else:  # the written operand keeps its shape: y broadcasts into x
                partners = [(i, s) for i, s in b.values
                            if _broadcasts(s, shape) and np.broadcast_shapes(s, shape) == shape]
            pid, pshape = draw(st.sampled_from(partners))
            out = np.broadcast_shapes(shape, pshape)
            if kind == "binary":
                b.pure_op(name, [vid, pid], [], out, names[name])
            else:
                b.write(b.emit(name, [b.tensor(vid), b.tensor(pid)], [], out), vid,
                        names[name](val, b.read(pid)))
                _read_again(draw, b, vid)
        elif kind in ("scale", "inplace_scale"):
            s = draw(st.sampled_from([0.5, 2.0, -1.5, 1.0] if aliasing else [0.5, 2.0, -1.5]))
            bias = draw(st.sampled_from([0.0, 1.0, -0.25]))
            after = draw(st.booleans())
            sv = b.full1(s)

            def fn(v, s=s, bias=bias, after=after):
                return v * s + bias if after else (v + bias) * s
            attrs = [f"bias:{bias}", f"bias_after_scale:{str(after).lower()}"]
            if kind == "scale":
                b.pure_op("pd_op.scale", [vid, sv], attrs, shape, fn)
                if s == 1.0 and bias == 0.0:
                    b.ingredients.add("identity")
            else:
                b.write(b.emit("pd_op.scale_", [b.tensor(vid), sv], attrs, shape), vid, fn(val))
                _read_again(draw, b, vid)
        elif kind == "matmul":
            k = shape[-1]
            n = draw(st.integers(1, 4))
            if parameters and draw(st.booleans()):
                wid = b.parameter((k, n), rng)
            else:
                wid = b.data((k, n), rng)
            b.pure_op("pd_op.matmul", [vid, wid], ["transpose_x:false", "transpose_y:false"],
                      shape[:-1] + (n,), np.matmul)
        elif kind == "reduce":
            name = draw(st.sampled_from(sorted(REDUCE)))
            axes = sorted(draw(st.sets(st.integers(0, len(shape) - 1), min_size=1)))
            keep = draw(st.booleans())
            out = tuple(1 if i in axes else d for i, d in enumerate(shape)) if keep else \
                tuple(d for i, d in enumerate(shape) if i not in axes)
            attrs = [f"keepdim:{str(keep).lower()}"]
            if name == "pd_op.sum":
                attrs.insert(0, "dtype:Undefined")
            b.pure_op(name, [vid, b.int_array(axes)], attrs, out,
                      lambda v, name=name, axes=tuple(axes), keep=keep:
                      REDUCE[name](v, axis=axes, keepdims=keep))
        elif kind == "reshape":
            size = int(np.prod(shape))
            target = draw(st.sampled_from([(size,), (1, size), (size, 1)]))
            spec = [-1] + list(target[1:]) if len(target) > 1 else [-1]
            b.pure_op("pd_op.reshape", [vid, b.int_array(spec)], [], target,
                      lambda v, target=target: v.reshape(target))
        elif kind == "view":
            _view(draw, b, vid, shape)
        elif kind == "transpose":
            perm = draw(st.permutations(range(len(shape))))
            out = tuple(shape[p] for p in perm)
            b.pure_op("pd_op.transpose", [vid], ["perm:" + _list(perm)], out,
                      lambda v, perm=tuple(perm): np.transpose(v, perm))
        elif kind == "to_tensor":
            _to_tensor_pair(draw, b)
        elif kind == "assign_value":
            values = [draw(st.sampled_from(_CONSTANTS)) for _ in range(int(np.prod(shape)))]
            b.assign_value_(vid, values)
            _read_again(draw, b, vid)
        elif kind == "const":
            cshape = draw(_shapes(True))
            b.full(cshape, draw(st.sampled_from(_CONSTANTS)))
        elif kind == "identity":
            b.pure_op("pd_op.assign", [vid], [], shape, np.copy)  # a copy: its own buffer
            b.ingredients.add("identity")
        elif kind == "concat":
            _concat(draw, b, vid, shape)
        elif kind == "cast":
            _cast_pair(draw, b, vid, shape)
        elif kind == "fold":
            _constant_expression(draw, b)
        elif kind == "repeat":
            if b.pure:
                name, operands, attrs, rshape, fn, at = draw(st.sampled_from(b.pure))
                ids = [o for o in operands if isinstance(o, int)]
                if ids and draw(st.booleans()):  # exp(x); relu_(x); exp(x): not the same value
                    w = draw(st.sampled_from(ids))
                    wname = draw(st.sampled_from(["pd_op.relu_", "pd_op.abs_", "pd_op.tanh_"]))
                    b.write(b.emit(wname, [b.tensor(w)], [], b.shape_of[w]), w,
                            INPLACE_UNARY[wname](b.read(w)))
                if any(b.written_at.get(b.buf_of[i], -1) >= at for i in ids):
                    b.ingredients.add("repeat-across-write")
                b.pure_op(name, operands, attrs, rshape, fn)
                b.ingredients.add("repeat")
        elif kind == "conv_bn":
            _conv_bn(draw, b, rng)
    expected = []
    col = 0
    for vid, shape in list(b.values):
        if vid in b.used and not (aliasing and rng.random() < 0.15):
            continue  # aliasing: sometimes fetch a used value too (a written feed, a view base)
        b.emit("pd_op.fetch", [b.tensor(vid)],
               [f"col:{col}", f'name:"fetch_name_{col}"', "persistable:[true]"], shape)
        expected.append(b.read(vid).copy())
        col += 1
    text = "{\n" + "\n".join(b.lines) + "\n}\n"
    return GeneratedProgram(text, b.inputs, expected, b.names, b.params, b.ingredients)


def _read_again(draw, b: _Builder, written: int) -> None:
    """Often read a just-written buffer at once, by one of its names (the operand's, the
    result's, an earlier in-place result's): the reads a pass must not move across the write."""
    if not draw(st.booleans()):
        return
    names = b.names_of(written)
    vid = draw(st.sampled_from(names))
    shape = b.shape_of[vid]
    name = draw(st.sampled_from(["pd_op.exp", "pd_op.abs", "pd_op.relu"]))
    if name == "pd_op.exp":
        vid = b.pure_op("pd_op.tanh", [vid], [], shape, np.tanh)
    b.pure_op(name, [vid], [], shape, UNARY[name])
    b.ingredients.add("inplace-read-again")


def _to_tensor_pair(draw, b: _Builder) -> None:
    """paddle.to_tensor(constant) in a saved program: `full` (shape S, value v) then an
    `assign_value_` writing the constant's values into it; two of them, same S and v, so the
    two `full`s look identical to a pass that ignores the writes."""
    shape = draw(_shapes(True))
    fill = draw(st.sampled_from([0.0, 1.0]))
    size = int(np.prod(shape))
    for _ in range(2):
        target = b.full(shape, fill, offer=draw(st.booleans()))
        values = [draw(st.sampled_from(_CONSTANTS)) for _ in range(size)]
        b.assign_value_(target, values)
    b.ingredients.add("to_tensor-pair")


def _view(draw, b: _Builder, vid: int, shape: tuple) -> None:
    """A view op; in Paddle 3.3.1's static executor its result is a copy (module docstring)."""
    choices = ["pd_op.unsqueeze", "pd_op.reshape"]
    if shape:
        choices.append("pd_op.flatten")
    if 1 in shape:
        choices.append("pd_op.squeeze")
    name = draw(st.sampled_from(choices))
    size = int(np.prod(shape))
    if name == "pd_op.reshape":
        target = draw(st.sampled_from([(size,), (1, size), (size, 1)]))
        spec = [-1] + list(target[1:]) if len(target) > 1 else [-1]
        view = b.pure_op(name, [vid, b.int_array(spec)], [], target,
                         lambda v, target=target: v.reshape(target), repeatable=False)
    elif name == "pd_op.unsqueeze":
        axis = draw(st.integers(0, len(shape)))
        target = shape[:axis] + (1,) + shape[axis:]
        view = b.pure_op(name, [vid, b.int_array([axis])], [], target,
                         lambda v, target=target: v.reshape(target), repeatable=False)
    elif name == "pd_op.squeeze":
        axis = draw(st.sampled_from([i for i, d in enumerate(shape) if d == 1]))
        target = shape[:axis] + shape[axis + 1:]
        view = b.pure_op(name, [vid, b.int_array([axis])], [], target,
                         lambda v, target=target: v.reshape(target), repeatable=False)
    else:
        target = (size,)
        view = b.pure_op(name, [vid], ["start_axis:0", f"stop_axis:{len(shape) - 1}"], target,
                         lambda v, target=target: v.reshape(target), repeatable=False)
    b.ingredients.add("view")
    if draw(st.booleans()):  # write through the view or through the base
        target_vid = draw(st.sampled_from([view, vid]))
        name = draw(st.sampled_from(["pd_op.relu_", "pd_op.abs_", "pd_op.tanh_"]))
        b.write(b.emit(name, [b.tensor(target_vid)], [], b.shape_of[target_vid]), target_vid,
                INPLACE_UNARY[name](b.read(target_vid)))
        b.ingredients.add("view-written")
        _read_again(draw, b, draw(st.sampled_from([view, vid])))


def _constant_expression(draw, b: _Builder) -> None:
    """Ops on constants only (0-D ones included), what const-fold folds: a scale of a full,
    a binary op of two fulls, a concat of two fulls."""
    shape = draw(_shapes(True))
    x = b.full(shape, draw(st.sampled_from(_CONSTANTS)))
    how = draw(st.sampled_from(["scale", "binary", "concat"] if shape else ["scale", "binary"]))
    if how == "scale":
        s, bias = draw(st.sampled_from([2.0, 0.5, -1.5])), draw(st.sampled_from([0.0, 1.0]))
        b.pure_op("pd_op.scale", [x, b.full1(s)], [f"bias:{bias}", "bias_after_scale:true"], shape,
                  lambda v, s=s, bias=bias: v * s + bias)
    elif how == "binary":
        name = draw(st.sampled_from(sorted(BINARY)))
        y = b.full(shape, draw(st.sampled_from(_CONSTANTS)))
        b.pure_op(name, [x, y], [], shape, BINARY[name])
    else:
        b.full(shape, draw(st.sampled_from(_CONSTANTS)))
        _concat(draw, b, x, shape)
    b.ingredients.add("const-chain")


def _cast_pair(draw, b: _Builder, vid: int, shape: tuple) -> None:
    """cast to the other float type and back (canonicalize composes cast pairs; on a
    parameter, param-fold may fold what canonicalize produced)."""
    other = "float64" if b.dt == "float32" else "float32"
    mid = b.emit("pd_op.cast", [b.tensor(vid)], [f"dtype:{other}"], None,
                 _ttype(shape, other))
    back = b.emit("pd_op.cast", [(mid, _ttype(shape, other))], [f"dtype:{b.dt}"], shape)
    b.add_value(back, b.read(vid).astype(other).astype(b.dt))
    b.derived(back, [vid])
    b.ingredients.add("cast-pair")


def _concat(draw, b: _Builder, vid: int, shape: tuple) -> None:
    partners = [(i, s) for i, s in b.values if len(s) == len(shape) and s[1:] == shape[1:]]
    pid, pshape = draw(st.sampled_from(partners))
    a, c = b.tensor(vid), b.tensor(pid)
    out = (shape[0] + pshape[0],) + shape[1:]
    combine = b.emit("builtin.combine", [a, c], [], None, f"vec[{a[1]},{c[1]}]",
                     stop_gradient=None)
    axis = b.emit("pd_op.full", [], ["dtype:int32", "place:Place(cpu)", "shape:[1]", "value:0"],
                  None, "tensor<1xi32>")
    vec = (combine, f"vec[{a[1]},{c[1]}]")
    res = b.emit("pd_op.concat", [vec, (axis, "tensor<1xi32>")], [], out)
    b.add_value(res, np.concatenate([b.read(vid), b.read(pid)], axis=0))
    b.derived(res, [vid, pid])


def _conv_bn(draw, b: _Builder, rng) -> None:
    """conv2d (a parameter weight) and an inference batch_norm_ (four parameters): what
    conv-bn-fold folds.  The feed is a new NCHW data; sometimes the weight is written in place
    first (the fold must then not happen, or happen from the written values)."""
    n, c, h, w = draw(st.integers(1, 2)), draw(st.integers(1, 3)), draw(st.integers(2, 4)), \
        draw(st.integers(2, 4))
    oc, k = draw(st.integers(1, 3)), draw(st.sampled_from([1, 3]))
    pad = k // 2
    x = b.data((n, c, h, w), rng)
    wt = b.parameter((oc, c, k, k), rng)
    if draw(st.integers(0, 3)) == 0:
        b.write(b.emit("pd_op.relu_", [b.tensor(wt)], [], (oc, c, k, k)), wt,
                np.maximum(b.read(wt), 0))
    conv = b.emit("pd_op.conv2d", [b.tensor(x), b.tensor(wt)],
                  ['data_format:"NCHW"', "dilations:[1,1]", "groups:1",
                   'padding_algorithm:"EXPLICIT"', f"paddings:[{pad},{pad}]", "strides:[1,1]"],
                  (n, oc, h, w))
    b.add_value(conv, _conv2d(b.read(x), b.read(wt), pad), offer=False)
    mean, var = b.parameter((oc,), rng), b.parameter((oc,), rng, positive=True)
    scale, bias = b.parameter((oc,), rng), b.parameter((oc,), rng)
    ch = f"tensor<{oc}x{_DTYPES[b.dt]}>"
    vid = b.n
    b.n += 6
    ins = [b.tensor(v) for v in (conv, mean, var, scale, bias)]
    b.lines.append(
        f'    (%{vid}, %{vid + 1}, %{vid + 2}, %{vid + 3}, %{vid + 4}, %{vid + 5}) = '
        f'"pd_op.batch_norm_" ({", ".join(f"%{o}" for o, _ in ins)}) '
        '{data_format:"NCHW",epsilon:1e-05,is_test:true,momentum:0.9,'
        'stop_gradient:[false,false,false,false,false,false],trainable_statistics:false,'
        'use_global_stats:false} : '
        f'({", ".join(t for _, t in ins)}) -> {_ttype((n, oc, h, w), b.dt)}, {ch}, {ch}, {ch}, '
        f'{ch}, tensor<-1xu8>')
    b.names.append("pd_op.batch_norm_")
    for o, _ in ins:
        b.used.add(o)
    xs, m, v, s, bb = (b.read(i) for i in (conv, mean, var, scale, bias))
    eps = np.asarray(1e-5, b.dt)
    shape4 = (1, oc, 1, 1)
    out = (xs - m.reshape(shape4)) / np.sqrt(v.reshape(shape4) + eps) * s.reshape(shape4) + \
        bb.reshape(shape4)
    b.add_value(vid, out)
    # mean_out / variance_out name the running statistics' buffers (unchanged in inference)
    for r, src in ((vid + 1, mean), (vid + 2, var)):
        b.buf_of[r] = b.buf_of[src]
        b.shape_of[r] = (oc,)
    b.ingredients.add("conv-bn")


def _conv2d(x, w, pad):
    """NCHW conv2d, stride 1, dilation 1, one group, `pad` on every side."""
    k = w.shape[-1]
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    win = np.lib.stride_tricks.sliding_window_view(xp, (k, k), axis=(2, 3))  # n c h w k k
    return np.einsum("nchwij,ocij->nohw", win, w).astype(x.dtype)


def _broadcasts(a, b):
    try:
        np.broadcast_shapes(a, b)
        return True
    except ValueError:
        return False
