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

`ctc_infeasible`: paddle.nn.functional.ctc_loss (the warpctc op) on [3, 4, 5] logits whose
samples need 3, 3, 4 and 4 steps (labels plus a blank between equal neighbours): warp-ctc gives
loss 0 and gradient 0 to the two that do not fit in 3 steps, where torch's ctc_loss gives inf.
Writes VER/ctc_infeasible.VER.json and .io.npz (in__logits, in__labels, in__input_lengths,
in__label_lengths, out__0 the loss [4, 1], grad__logits: the eager layer's gradient of the
summed loss with respect to the logits, i.e. warpctc's warpctcgrad output).
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


def ctc_infeasible():
    main = paddle.static.Program()
    with paddle.static.program_guard(main):
        logits = paddle.static.data("logits", [-1, -1, 5], "float32")  # [T, B, C]
        labels = paddle.static.data("labels", [-1, -1], "int32")
        input_lengths = paddle.static.data("input_lengths", [-1], "int64")
        label_lengths = paddle.static.data("label_lengths", [-1], "int64")
        loss = paddle.nn.functional.ctc_loss(logits, labels, input_lengths, label_lengths,
                                             reduction="none")
    feeds = {"logits": np.random.default_rng(0).standard_normal((3, 4, 5)).astype("float32"),
             # 3 steps each: [1 2 3] fits, [2 2] fits (2 + 1 repeat), [1 1 2] and [1 2 3 4] do not
             "labels": np.array([[1, 2, 3, 0], [2, 2, 0, 0], [1, 1, 2, 0], [1, 2, 3, 4]], "int32"),
             "input_lengths": np.array([3, 3, 3, 3], "int64"),
             "label_lengths": np.array([3, 2, 3, 4], "int64")}
    return main, [logits, labels, input_lengths, label_lengths], [loss], feeds


def ctc_gradient(feeds):
    """The eager gradient of the summed loss with respect to the logits (= warpctcgrad)."""
    paddle.disable_static()
    logits = paddle.to_tensor(feeds["logits"], stop_gradient=False)
    loss = paddle.nn.functional.ctc_loss(logits, *[paddle.to_tensor(feeds[k]) for k in
                                                   ("labels", "input_lengths", "label_lengths")],
                                         reduction="none")
    loss.sum().backward()
    grad = logits.grad.numpy()
    paddle.enable_static()
    return grad


def save(exe, name, program, inputs, fetches, feeds, extra=None):
    outs = exe.run(program, feed=feeds, fetch_list=fetches)
    prefix = os.path.join(OUT, VERSION, f"{name}.{VERSION}")
    paddle.static.save_inference_model(prefix, inputs, fetches, exe, program=program)
    if os.path.exists(prefix + ".pdiparams"):  # no parameters: Paddle may still write an empty file
        os.unlink(prefix + ".pdiparams")
    np.savez(prefix + ".io.npz", **{f"in__{k}": v for k, v in feeds.items()},
             **{f"out__{k}": np.asarray(a) for k, a in enumerate(outs)}, **(extra or {}))
    print(prefix, [np.asarray(a).tolist() for a in outs])


def main():
    paddle.enable_static()
    os.makedirs(os.path.join(OUT, VERSION), exist_ok=True)
    exe = paddle.static.Executor(paddle.CPUPlace())
    program, x, fetches = while_counter()
    save(exe, "while_counter", program, [x], fetches,
         {"x": np.arange(10, dtype="float32").reshape(5, 2)})
    program, inputs, fetches, feeds = ctc_infeasible()
    save(exe, "ctc_infeasible", program, inputs, fetches, feeds, {"grad__logits": ctc_gradient(feeds)})


if __name__ == "__main__":
    main()
