#!/usr/bin/env python3
"""Does Paddle's executor keep array_write_ calls made inside a `pd_op.if` (FINDINGS.md h)?

Three small layers converted with paddle.jit.to_static(full_graph=True), saved, loaded back
with load_inference_model and run; the array (stacked) compared with the dygraph layer's. Each layer also returns a value
the `if` / `while` computes, else paddle.jit.save prunes an `if` whose only effect is the write
("The feed_var ... is not involved in the target_vars calculation"):
- `in_while`: a tensor array written in a while body (control: the decoding zoo's array_loop);
- `in_if`: written in the true branch of an `if` at the top level;
- `in_if_in_while`: written in an `if` inside a while body, on even steps only, at a counter;
- `in_if_in_while_at_length`: the same at the array's length;
- `in_if_in_while_and_in_body`: the same, and also written directly in the while body each step.
Run with a Paddle venv's python from the repo root; prints one JSON line per layer and writes
tools/paddle_oracle/results/probe_array_write_in_if.VER.json.

    /tmp/pd331/bin/python tools/paddle_oracle/probe_array_write_in_if.py
"""
import importlib.metadata
import json
import os
import sys
import tempfile

import numpy as np
import paddle
from paddle import nn
from paddle.tensor.manipulation import tensor_array_to_tensor

HERE = os.path.dirname(os.path.abspath(__file__))


def stacked(arr):
    out, _ = tensor_array_to_tensor(arr, axis=0, use_stack=True)
    return out


class InWhile(nn.Layer):
    def forward(self, x, n):
        arr = paddle.tensor.create_array("float32")
        i = paddle.zeros([1], "int64")
        paddle.tensor.array_write(x, i, arr)
        while i < n:
            i = i + 1
            paddle.tensor.array_write(x * i.astype("float32"), i, arr)
        return stacked(arr), i


class InIf(nn.Layer):
    def forward(self, x, n):
        arr = paddle.tensor.create_array("float32")
        paddle.tensor.array_write(x, paddle.zeros([1], "int64"), arr)
        taken = paddle.zeros([1], "int64")
        if n > 0:
            taken = taken + 1
            paddle.tensor.array_write(x * 2.0, paddle.ones([1], "int64"), arr)
        return stacked(arr), taken


class InIfInWhile(nn.Layer):
    def forward(self, x, n):
        arr = paddle.tensor.create_array("float32")
        paddle.tensor.array_write(x, paddle.zeros([1], "int64"), arr)
        i = paddle.zeros([1], "int64")
        k = paddle.zeros([1], "int64")
        while i < n:
            i = i + 1
            if i % 2 == 0:
                k = k + 1
                paddle.tensor.array_write(x * i.astype("float32"), k, arr)
        return stacked(arr), k


class ByLength(nn.Layer):
    """As InIfInWhile, the index the array's length (no counter)."""

    def forward(self, x, n):
        arr = paddle.tensor.create_array("float32")
        paddle.tensor.array_write(x, paddle.zeros([1], "int64"), arr)
        i = paddle.zeros([1], "int64")
        while i < n:
            i = i + 1
            if i % 2 == 0:
                at = paddle.zeros([1], "int64") + paddle.tensor.array_length(arr)  # an int in dygraph
                paddle.tensor.array_write(x * i.astype("float32"), at, arr)
        return stacked(arr), i


class AlsoInBody(nn.Layer):
    """As InIfInWhile, and the same array also written directly in the while body each step."""

    def forward(self, x, n):
        arr = paddle.tensor.create_array("float32")
        paddle.tensor.array_write(x, paddle.zeros([1], "int64"), arr)
        i = paddle.zeros([1], "int64")
        k = paddle.zeros([1], "int64")
        while i < n:
            i = i + 1
            k = k + 1
            paddle.tensor.array_write(x, k, arr)
            if i % 2 == 0:
                k = k + 1
                paddle.tensor.array_write(x * i.astype("float32"), k, arr)
        return stacked(arr), k


def probe(name, layer, feeds):
    specs = [paddle.static.InputSpec([-1, 3], "float32", "x"), paddle.static.InputSpec([1], "int64", "n")]
    eager = layer(*[paddle.to_tensor(a) for a in feeds])[0].numpy()
    prefix = os.path.join(tempfile.mkdtemp(), name)
    paddle.jit.save(paddle.jit.to_static(layer, input_spec=specs, full_graph=True), prefix)
    paddle.enable_static()
    try:
        exe = paddle.static.Executor(paddle.CPUPlace())
        prog, feed_names, fetches = paddle.static.load_inference_model(prefix, exe)
        loaded, _ = exe.run(prog, feed=dict(zip(feed_names, feeds)), fetch_list=fetches)
    finally:
        paddle.disable_static()
    return {"model": name, "dygraph_shape": list(eager.shape), "loaded_shape": list(loaded.shape),
            "agree": eager.shape == loaded.shape and bool(np.array_equal(eager, loaded))}


def main():
    version = importlib.metadata.version("paddlepaddle")
    feeds = [np.arange(6, dtype="float32").reshape(2, 3), np.array([4], dtype="int64")]
    results = []
    for name, cls in (("in_while", InWhile), ("in_if", InIf), ("in_if_in_while", InIfInWhile),
                      ("in_if_in_while_at_length", ByLength), ("in_if_in_while_and_in_body", AlsoInBody)):
        try:
            results.append(probe(name, cls(), feeds))
        except Exception as e:  # recorded: what Paddle raised
            results.append({"model": name, "error": f"{type(e).__name__}: {str(e).strip()[:300]}"})
    for r in results:
        print(json.dumps(r))
    out = os.path.join(HERE, "results", f"probe_array_write_in_if.{version}.json")
    with open(out, "w") as f:
        json.dump({"paddle_version": version, "feeds": {"x": "arange(6) as [2, 3]", "n": 4},
                   "results": results}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    sys.exit(main())
