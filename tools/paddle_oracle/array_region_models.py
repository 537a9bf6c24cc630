"""The programs of tests/fixtures/array_regions: tensor arrays and dense tensors of an enclosing
block written inside `while` bodies and `if` branches, as `paddle.jit.to_static` writes them
(gen_array_region_fixtures.py saves and runs them; imported in its Paddle child process only).

Each entry of MODELS: name -> (layer class, input specs, input cases), or (static builder,
None, input cases) for a program built with paddle.static (the builder returns its feed and
fetch variables).  A case is
{feed: numpy array}; the cases of a model drive its loops 0, 1 and many times and its `if`s
down each branch.  Every parameter is set by tools/zoo_weights.value, so any machine remakes
the same numbers.
"""
from __future__ import annotations

import numpy as np
import paddle
from paddle import nn
from paddle.static import InputSpec

A = paddle.tensor  # create_array, array_write, array_read, array_length
to_tensor = paddle.tensor.manipulation.tensor_array_to_tensor  # pd_op.array_to_tensor


def _i64(v):
    return paddle.full([1], v, dtype="int64")


class WhileIndexWrite(nn.Layer):
    """Element 0 written before the loop; step i reads element i (the previous step's) and
    writes element i+1 (index = the loop counter); after: stack, concat, length, last element."""

    def forward(self, x, n):
        arr = A.create_array("float32")
        A.array_write(x * 0.5, _i64(0), array=arr)
        i = _i64(0)
        while i < n:
            prev = A.array_read(arr, i)
            A.array_write(prev * 1.5 + x * (i.astype("float32") + 1.0), i + 1, array=arr)
            i = i + 1
        stacked, _ = to_tensor(arr, axis=0, use_stack=True)
        cat, sizes = to_tensor(arr, axis=1, use_stack=False)
        length = A.array_length(arr)
        last = A.array_read(arr, length - 1)
        return stacked, cat, sizes, length, last


class WhileAppendList(nn.Layer):
    """A Python list appended to in a tensor-bounded loop: to_static makes it a tensor array
    written at its length; after: paddle.concat of the list (array_to_tensor) and its length."""

    def forward(self, x, n):
        outs = [paddle.tanh(x)]
        i = _i64(0)
        while i < n:
            outs.append(paddle.tanh(x + i.astype("float32")) * 0.5)
            i = i + 1
        return paddle.concat(outs, axis=0), paddle.stack(outs, axis=1), A.array_length(outs)


class IfWrite(nn.Layer):
    """An array written in the true branch of an `if` only (element 1, then element 2 at the
    length); the false branch leaves it with its one element.  The `if` also gives a tensor
    the code after it reads: Paddle's save prunes an `if` whose results nothing reads."""

    def forward(self, x):
        arr = A.create_array("float32")
        A.array_write(x, _i64(0), array=arr)
        if x.mean() > 0:
            A.array_write(paddle.exp(x), _i64(1), array=arr)
            A.array_write(x * 3.0, A.array_length(arr), array=arr)
            y = x + 1.0
        else:
            y = x - 1.0
        stacked, _ = to_tensor(arr, axis=0, use_stack=True)
        return stacked, A.array_length(arr), y


class WhileNestedIf(nn.Layer):
    """Two arrays: `every` written each step at the counter, `even` appended to inside an `if`
    nested in the body (even steps only), reading `every`'s newest element."""

    def forward(self, x, n):
        every = A.create_array("float32")
        even = A.create_array("float32")
        A.array_write(x, _i64(0), array=even)
        i = _i64(0)
        while i < n:
            A.array_write(x * (i.astype("float32") - 1.0), i, array=every)
            if i % 2 == 0:
                newest = A.array_read(every, i)
                A.array_write(paddle.sin(newest) + 1.0, A.array_length(even), array=even)
            i = i + 1
        cat, _ = to_tensor(even, axis=0, use_stack=False)
        return cat, A.array_length(every), A.array_length(even)


class NestedWhileAppend(nn.Layer):
    """A list appended to in a loop nested in a loop (m steps per outer step), and a second
    array written at the outer counter after the inner loop, reading the list's length."""

    def forward(self, x, n, m):
        outs = [x]
        per_step = A.create_array("int64")
        i = _i64(0)
        while i < n:
            j = _i64(0)
            while j < m:
                outs.append(outs[-1] * 0.5 + (i * 10 + j).astype("float32"))
                j = j + 1
            A.array_write(A.array_length(outs), i, array=per_step)
            i = i + 1
        return paddle.stack(outs, axis=0), A.array_length(outs), A.array_length(per_step)


class GreedyDecode(nn.Layer):
    """Greedy decoding as to_static writes it: each step's token appended to a list (a tensor
    array), the loop bounded by a tensor; after: the tokens concatenated [batch, steps+1]."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(16, 8)
        self.proj = nn.Linear(8, 16)

    def forward(self, start, steps):
        tokens = [start]
        cur = start
        i = _i64(0)
        while i < steps:
            logits = self.proj(paddle.tanh(self.embed(cur)))  # [b, 1, 16]
            cur = paddle.argmax(logits, axis=-1)  # [b, 1]
            tokens.append(cur)
            i = i + 1
        return paddle.concat(tokens, axis=1)


def inplace_outer():
    """Dense tensors of the enclosing block written in place, built as a static program
    (to_static turns a layer's `acc.scale_()` on a captured tensor into an out-of-place
    scale, and so does the static API's `Tensor.scale_`): `assign_out_` (paddle.assign with
    output=) in a while body and in an `if` branch; each read after its region.  Returns
    (feeds, fetches)."""
    x = paddle.static.data("x", [2, 3], "float32")
    n = paddle.static.data("n", [1], "int64")
    acc = paddle.tanh(x)
    flag = paddle.zeros_like(x)

    def body(i):
        paddle.assign(acc * 0.5 + 0.25, output=acc)
        return [i + 1]

    (i,) = paddle.static.nn.while_loop(lambda i: i < n, body, [_i64(0)])

    def true_fn():
        paddle.assign(x + 2.0, output=flag)
        return x + 1.0

    y = paddle.static.nn.cond(x.sum() > 0, true_fn, lambda: x - 1.0)
    return [x, n], [acc, flag, acc + flag, i, y]


def inplace_nested():
    """A dense tensor of the enclosing block written in place (`assign_out_`) by an `if`
    nested in a while body, on odd steps only; read in the body (the step's output) and after
    the loop."""
    x = paddle.static.data("x", [2, 3], "float32")
    n = paddle.static.data("n", [1], "int64")
    acc = paddle.tanh(x)

    def body(i, seen):
        def odd():
            paddle.assign(acc * -0.5 + 0.125, output=acc)
            return i + 0

        def even():
            return i + 0

        paddle.static.nn.cond(i % 2 == 1, odd, even)
        return [i + 1, seen + acc.sum()]

    i, seen = paddle.static.nn.while_loop(lambda i, s: i < n, body, [_i64(0), paddle.zeros([], "float32")])
    return [x, n], [acc, seen, i]


def _x(seed, shape, shift=0.0):
    return (np.random.default_rng(seed).standard_normal(shape) + shift).astype("float32")


def _n(v):
    return np.array([v], dtype="int64")


F32 = "float32"
MODELS = {
    "while_index_write": (WhileIndexWrite, [InputSpec([2, 3], F32, "x"), InputSpec([1], "int64", "n")],
                          [{"x": _x(1, [2, 3]), "n": _n(k)} for k in (0, 1, 5)]),
    "while_append_list": (WhileAppendList, [InputSpec([-1, 4], F32, "x"), InputSpec([1], "int64", "n")],
                          [{"x": _x(2, [3, 4]), "n": _n(0)}, {"x": _x(3, [1, 4]), "n": _n(1)},
                           {"x": _x(4, [2, 4]), "n": _n(6)}]),
    "if_write": (IfWrite, [InputSpec([2, 3], F32, "x")],
                 [{"x": _x(5, [2, 3], 2.0)}, {"x": _x(6, [2, 3], -2.0)}]),
    "while_nested_if": (WhileNestedIf, [InputSpec([2, 3], F32, "x"), InputSpec([1], "int64", "n")],
                        [{"x": _x(7, [2, 3]), "n": _n(k)} for k in (0, 1, 2, 7)]),
    "nested_while_append": (NestedWhileAppend, [InputSpec([3], F32, "x"), InputSpec([1], "int64", "n"),
                                                InputSpec([1], "int64", "m")],
                            [{"x": _x(11, [3]), "n": _n(a), "m": _n(b)} for a, b in ((0, 2), (1, 0), (1, 1), (3, 2))]),
    "greedy_decode": (GreedyDecode, [InputSpec([-1, 1], "int64", "start"), InputSpec([1], "int64", "steps")],
                      [{"start": np.array([[3], [11]], "int64"), "steps": _n(k)} for k in (0, 1, 9)]),
    "inplace_nested": (inplace_nested, None, [{"x": _x(13, [2, 3]), "n": _n(k)} for k in (0, 1, 2, 5)]),
    "inplace_outer": (inplace_outer, None,
                            [{"x": _x(8, [2, 3], 1.0), "n": _n(0)}, {"x": _x(9, [2, 3], -1.0), "n": _n(1)},
                             {"x": _x(10, [2, 3], 1.0), "n": _n(4)}]),
}
