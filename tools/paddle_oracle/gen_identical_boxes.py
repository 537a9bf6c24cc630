"""Paddle's outputs for the matrix_nms op fixture (tests/fixtures/ops/VER/matrix_nms.VER.json,
two matrix_nms ops, linear and gaussian decay) run on identical boxes, where the linear decay
(1 - iou) / (1 - max_iou) divides by zero (issue 21 class 3):
tests/fixtures/paddle_checks/matrix_nms_identical.VER.io.npz (in__<feed>, out__<i>).

    /tmp/pd331/bin/python tools/paddle_oracle/gen_identical_boxes.py
    /tmp/pd300/bin/python tools/paddle_oracle/gen_identical_boxes.py
"""

import importlib.metadata
import os

import numpy as np
import paddle

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "fixtures")


def main():
    ver = importlib.metadata.version("paddlepaddle")
    paddle.enable_static()
    exe = paddle.static.Executor(paddle.CPUPlace())
    prefix = os.path.join(ROOT, "ops", ver, f"matrix_nms.{ver}")
    prog, feeds, fetches = paddle.static.load_inference_model(prefix, exe)
    # six identical boxes per image, scores falling, one image with a zero-area box too
    b = np.tile(np.array([[0.1, 0.1, 0.5, 0.5]], "float32"), (2, 6, 1))
    b[1, 5] = [0.3, 0.3, 0.3, 0.6]
    s = np.tile(np.array([0.9, 0.8, 0.7, 0.6, 0.5, 0.4], "float32"), (2, 3, 1))
    inputs = {"b": b, "s": s}
    outs = exe.run(prog, feed={k: inputs[k] for k in feeds}, fetch_list=fetches)
    path = os.path.join(ROOT, "paddle_checks", f"matrix_nms_identical.{ver}.io.npz")
    np.savez(path, **{f"in__{k}": v for k, v in inputs.items()},
             **{f"out__{i}": np.asarray(o) for i, o in enumerate(outs)})
    print(f"wrote {path}: " + ", ".join(str(np.asarray(o).shape) for o in outs))


if __name__ == "__main__":
    main()
