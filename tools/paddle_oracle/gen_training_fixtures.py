#!/usr/bin/env python3
"""Real-Paddle training programs, backward ops included, with the gradients Paddle computes.

Run with the python of a scratch venv that has paddlepaddle (never pirc's environment):

    /tmp/pd331/bin/python tools/paddle_oracle/gen_training_fixtures.py --out tests/fixtures/training
    /tmp/pd300/bin/python tools/paddle_oracle/gen_training_fixtures.py --out tests/fixtures/training

Per case NAME (CASES below) OUT/VER/ gets

    NAME.VER.json        what paddle.static.save_inference_model wrote, less its is_test
                         rewrite (save_training_program): the forward, the backward ops
                         paddle.static.gradients appended, fetch ops
    NAME.VER.pdiparams   its parameters
    NAME.VER.pir.txt     str(program) as built
    NAME.VER.io.npz      in__<feed> inputs; out__<i> the fetches of the saved program loaded
                         back and run by the same Paddle (loss, then what the case fetches)

and OUT/VER/gen_log.VER.json what happened (ops in the program, is_test flags as saved,
output shapes).  Each case fetches the gradient of the loss w.r.t. its input and every trainable
parameter, which is what makes the saved program keep the backward ops.  Dropout in training
draws a random mask: the mlp case fetches the mask too, so a test can replay it and compare the
gradients value for value (mlp_mse the same, with the other dropout mode).  Parameters are
deterministic by name (normal * 0.5 from a generator seeded by crc32 of the name); batch norm's
running variance is made positive (|v| + 0.5) so use_global_stats is finite.
"""
import argparse
import importlib.metadata
import json
import os
import sys
import tempfile
import time
import zlib

import numpy as np
import paddle

paddle.enable_static()
F = paddle.nn.functional
VER = importlib.metadata.version("paddlepaddle")


def rng(key):
    return np.random.default_rng(zlib.crc32(f"training/{key}".encode()))


class Feeds:
    """paddle.static.data with a deterministic array per name."""

    def __init__(self, case):
        self.case, self.items = case, []

    def __call__(self, name, arr, grad=False):
        self.items.append((name, arr))
        v = paddle.static.data(name, list(arr.shape), str(arr.dtype))
        if grad:
            v.stop_gradient = False
        return v

    def normal(self, name, shape, grad=False):
        return self(name, rng(f"{self.case}/{name}").standard_normal(shape).astype("float32"), grad)


def params_of(*layers):
    return [p for layer in layers for p in layer.parameters() if not p.stop_gradient]


CASES = {}


def case(fn):
    CASES[fn.__name__[1:]] = fn
    return fn


@case
def _mlp(f):
    """linear -> relu -> dropout (training, upscale_in_train) -> linear ->
    softmax_with_cross_entropy -> mean.  Fetches: loss, dropout mask, x grad, param grads."""
    x = f.normal("x", [4, 6], grad=True)
    label = f("label", rng("mlp/label").integers(0, 3, [4, 1]).astype("int64"))
    l1, l2 = paddle.nn.Linear(6, 8), paddle.nn.Linear(8, 3)
    h = F.relu(l1(x))
    dropped = F.dropout(h, 0.3, training=True, mode="upscale_in_train")
    loss = paddle.mean(F.softmax_with_cross_entropy(l2(dropped), label))
    mask = dropped.get_defining_op().result(1)
    params = params_of(l1, l2)
    return [loss, mask, *paddle.static.gradients([loss], [x, *params])], params


@case
def _mlp_mse(f):
    """linear -> relu -> dropout (training, downscale_in_infer) -> linear -> mse_loss
    (subtract, square, mean).  Fetches: loss, dropout mask, x grad, param grads."""
    x = f.normal("x", [4, 6], grad=True)
    target = f.normal("target", [4, 1])
    l1, l2 = paddle.nn.Linear(6, 8), paddle.nn.Linear(8, 1)
    dropped = F.dropout(F.relu(l1(x)), 0.25, training=True, mode="downscale_in_infer")
    loss = F.mse_loss(l2(dropped), target)
    mask = dropped.get_defining_op().result(1)
    params = params_of(l1, l2)
    return [loss, mask, *paddle.static.gradients([loss], [x, *params])], params


@case
def _mlp_act(f):
    """The element-wise family on an MLP: tanh, sigmoid, exp, scale, multiply / divide with a
    broadcast operand, cast, transpose, reshape, softmax, sum, mean."""
    x = f.normal("x", [4, 6], grad=True)
    l1 = paddle.nn.Linear(6, 8)
    gain = paddle.create_parameter([8], "float32", name="gain")
    h = l1(x)
    a = paddle.tanh(h) * F.sigmoid(h)                        # multiply_grad, same shapes
    b = a / (paddle.exp(h * 0.1) + 1.0)                     # divide_grad, exp_grad, scale_grad
    c = paddle.cast(paddle.cast(b, "float64") * gain.astype("float64"), "float32")  # cast_grad
    t = paddle.reshape(paddle.transpose(c, [1, 0]), [2, 16])  # transpose_grad, reshape_grad
    s = F.softmax(t, axis=-1)
    loss = paddle.mean(s * t) + paddle.sum(t, axis=1).mean()
    params = params_of(l1) + [gain]
    return [loss, *paddle.static.gradients([loss], [x, *params])], params


def _cnn_body(f, name, use_global_stats):
    x = f.normal("x", [2, 3, 6, 6], grad=True)
    conv = paddle.nn.Conv2D(3, 4, 3, padding=1)
    bn = paddle.nn.BatchNorm2D(4, use_global_stats=use_global_stats)
    lin = paddle.nn.Linear(4 * 3 * 3, 5)
    h = F.relu(bn(conv(x)))
    h = paddle.flatten(F.max_pool2d(h, 2, 2), 1)
    loss = paddle.mean(lin(h))
    params = params_of(conv, bn, lin)
    return [loss, *paddle.static.gradients([loss], [x, *params])], params


@case
def _cnn(f):
    """conv2d -> batch_norm (training statistics) -> relu -> max pool2d -> flatten ->
    linear -> mean."""
    return _cnn_body(f, "cnn", False)


@case
def _cnn_global_stats(f):
    """The same with batch norm on its running statistics (use_global_stats)."""
    return _cnn_body(f, "cnn_global_stats", True)


def set_params(main, scope, place):
    """Deterministic values by parameter name (normal * 0.5); variances |v| + 0.5."""
    out = []
    for p in main.global_block().all_parameters():
        arr = (rng(p.name).standard_normal([int(d) for d in p.shape]) * 0.5).astype("float32")
        if p.name.startswith("batch_norm") and p.name.endswith(".w_2"):  # running variance
            arr = np.abs(arr) + 0.5
        scope.find_var(p.name).get_tensor().set(arr, place)
        out.append(p.name)
    return out


def ops_of(program):
    return [op.name() for op in program.global_block().ops]


def save_training_program(prefix, feed_vals, fetches, exe, program):
    """save_inference_model without its inference rewrite.

    Its normalisation (static/pir_io.py normalize_pir_program) prunes the program to the
    fetches and appends fetch ops, which is what keeps the backward ops, but it also calls
    _inference_optimize, which sets every op's is_test to true: dropout would stop dropping
    (and give no mask) and batch norm would switch to its running statistics, while
    the backward ops were built for training.  That one call is skipped here, so the file
    holds the program as built; 3.0.0 and 3.3.1 both call it by its module-level name."""
    from paddle.static import pir_io
    saved = pir_io._inference_optimize
    pir_io._inference_optimize = lambda program, prune_read_op=True: None
    try:
        paddle.static.save_inference_model(prefix, feed_vals, fetches, exe, program=program)
    finally:
        pir_io._inference_optimize = saved


def generate(name, outdir):
    log = {}
    place = paddle.CPUPlace()
    main, start = paddle.static.Program(), paddle.static.Program()
    scope = paddle.static.Scope()
    with paddle.static.scope_guard(scope), paddle.utils.unique_name.guard():
        f = Feeds(name)
        with paddle.static.program_guard(main, start):
            fetches, params = CASES[name](f)
        fetches = [v for v in fetches if v is not None]
        with open(os.path.join(outdir, f"{name}.{VER}.pir.txt"), "w") as fh:
            fh.write(str(main))
        exe = paddle.static.Executor(place)
        exe.run(start)
        log["params"] = set_params(main, scope, place)
        log["ops"] = sorted(set(ops_of(main)))
        feed = dict(f.items)
        feed_vals = [op.result(0) for op in main.global_block().ops if op.name() == "pd_op.data"]
        with tempfile.TemporaryDirectory() as td:
            prefix = os.path.join(td, f"{name}.{VER}")
            save_training_program(prefix, feed_vals, fetches, exe, main)
            for fn in os.listdir(td):
                with open(os.path.join(td, fn), "rb") as src, \
                        open(os.path.join(outdir, fn), "wb") as dst:
                    dst.write(src.read())
            scope2 = paddle.static.Scope()
            with paddle.static.scope_guard(scope2):
                exe2 = paddle.static.Executor(place)
                prog2, feed_names, fetch_targets = paddle.static.load_inference_model(prefix, exe2)
                outs = exe2.run(prog2, feed={n: feed[n] for n in feed_names},
                                fetch_list=fetch_targets)
                log["ops_saved"] = sorted(set(ops_of(prog2)))
                log["is_test_saved"] = {
                    op.name(): op.attrs()["is_test"] for op in prog2.global_block().ops
                    if "is_test" in op.attrs()}
        npz = {f"in__{n}": a for n, a in f.items}
        for i, a in enumerate(outs):
            npz[f"out__{i}"] = np.asarray(a)
        np.savez_compressed(os.path.join(outdir, f"{name}.{VER}.io.npz"), **npz)
        log["outputs"] = [[list(np.shape(a)), str(np.asarray(a).dtype)] for a in outs]
    return log


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True, help="e.g. tests/fixtures/training")
    ap.add_argument("--cases", nargs="*", help="subset of cases")
    args = ap.parse_args()
    outdir = os.path.join(args.out, VER)
    os.makedirs(outdir, exist_ok=True)
    log = {"paddle_version": VER, "numpy_version": np.__version__,
           "python": sys.version.split()[0],
           "date_utc": time.strftime("%Y-%m-%d", time.gmtime()), "cases": {}}
    for name in CASES:
        if args.cases and name not in args.cases:
            continue
        log["cases"][name] = r = generate(name, outdir)
        print(f"== {name}: {len(r['outputs'])} outputs, ops {r['ops_saved']}", flush=True)
    with open(os.path.join(outdir, f"gen_log.{VER}.json"), "w") as fh:
        json.dump(log, fh, indent=1)
        fh.write("\n")


if __name__ == "__main__":
    main()
