#!/usr/bin/env python3
"""Small Paddle programs for the problems the zoo2 sequence family showed
(tests/unit/test_sequence_regressions.py; tests/fixtures/sequence_regressions/).

Run with a Paddle venv's python from the repo root (3.3.1 and 3.0.0):

    /tmp/pd331/bin/python tools/paddle_oracle/gen_sequence_regressions.py
    /tmp/pd300/bin/python tools/paddle_oracle/gen_sequence_regressions.py

`while_counter`: the loop paddle.nn.RNN builds under to_static (nn/layer/rnn.py
_rnn_static_graph), cut down: a `while` with no carried values whose step counter is a
pd_op.full made before the loop, read by array_read / slice / cast in the body BEFORE the
body's increment_ of it, then used to write the next state. pirc once took the counter for its
defining op's constant (0) inside the body: every step read and wrote element 0.
Writes VER/while_counter.VER.json and .io.npz (in__x, out__0 the stacked rows, out__1 the
running sum read after the loop).
"""
import importlib.metadata
import os

import numpy as np
import paddle

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests", "fixtures", "sequence_regressions")
VERSION = importlib.metadata.version("paddlepaddle")


def while_counter():
    main = paddle.static.Program()
    with paddle.static.program_guard(main):
        x = paddle.static.data("x", [-1, 2], "float32")  # [steps, 2]
        i = paddle.zeros([], "int64")
        n = paddle.cast(paddle.shape(x)[0], "int64")
        cond = i < n
        loop = paddle.static.nn.control_flow.While(cond)
        seen = paddle.tensor.create_array("float32")
        acc = paddle.tensor.create_array("float32")
        paddle.tensor.array_write(paddle.zeros([2], "float32"), i, acc)
        with loop.block():
            prev = paddle.tensor.array_read(acc, i)  # the counter, read before its increment_
            row = x[i]
            paddle.tensor.array_write(row * 10.0 + paddle.cast(i, "float32"), i, seen)
            i = paddle.tensor.increment(i, 1)
            paddle.tensor.array_write(prev + row, i, acc)
            paddle.assign(paddle.tensor.less_than(i, n), cond)
        out, _ = paddle.tensor.manipulation.tensor_array_to_tensor(seen, axis=0, use_stack=True)
        total = paddle.tensor.array_read(acc, i)
    return main, x, [out, total]


def main():
    paddle.enable_static()
    os.makedirs(os.path.join(OUT, VERSION), exist_ok=True)
    exe = paddle.static.Executor(paddle.CPUPlace())
    program, x, fetches = while_counter()
    xv = np.arange(10, dtype="float32").reshape(5, 2)
    outs = exe.run(program, feed={"x": xv}, fetch_list=fetches)
    prefix = os.path.join(OUT, VERSION, f"while_counter.{VERSION}")
    paddle.static.save_inference_model(prefix, [x], fetches, exe, program=program)
    for leftover in (prefix + ".pdiparams",):  # no parameters: Paddle may still write an empty file
        if os.path.exists(leftover):
            os.unlink(leftover)
    np.savez(prefix + ".io.npz", in__x=xv, **{f"out__{k}": np.asarray(a) for k, a in enumerate(outs)})
    print(prefix, [np.asarray(a).tolist() for a in outs])


if __name__ == "__main__":
    main()
