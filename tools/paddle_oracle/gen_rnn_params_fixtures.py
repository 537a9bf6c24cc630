#!/usr/bin/env python3
"""Real Paddle's recurrent layers saved with `paddle.jit.save`: programs whose `pd_op.rnn` reads
a parameter Paddle does not persist (`dropout_state`), with Paddle's own outputs.

Run by hand from the repo root with each Paddle release's python (paddlepaddle is never a pirc
dependency):

    /tmp/pd331/bin/python tools/paddle_oracle/gen_rnn_params_fixtures.py
    /tmp/pd300/bin/python tools/paddle_oracle/gen_rnn_params_fixtures.py
        [--dir tests/fixtures/nonpersistable] [--only NAME ...] [--pirc-python .venv/bin/python]

Per model (each in its own child process, so Paddle's generated names — `lstm_0`,
`lstm_cell_0.w_0`, `..dropout_state__non_persistable` — do not depend on the others):

1. the layer is built in dygraph with `paddle.seed(0)`, every weight is then overwritten from
   `default_rng(crc32("NAME/param/PARAM"))` (uniform in [-0.5, 0.5), float32), put in eval
   mode (so the saved rnn op has `is_test`) and saved with `paddle.jit.save` and an
   `InputSpec` whose batch and time are dynamic.  `static_shape_of_state` is not an rnn: a
   static program with a parameter made non-persistable by hand (read by `shape`), saved with
   `save_inference_model` — the rule is the format's, not rnn's;
2. a fresh scope loads `DIR/RELEASE/NAME.json` + `.pdiparams` with
   `paddle.static.load_inference_model` and runs it with `paddle.static.Executor` on the CPU;
   the feeds come from `default_rng(crc32("NAME/feed/FEED"))`;
3. `DIR/RELEASE/NAME.npz` gets `in__<feed>`, `out__<i>` (Paddle's outputs in fetch order)
   and `fetch_names`;
4. with `--pirc-python` (default .venv/bin/python; '' skips it): pirc-opt rewrites the model
   under the `default` and `inference` pipelines with `--params` / `--params-out`, and Paddle
   loads what pirc wrote and runs it on the same inputs: the log's `pirc_written` records the
   largest difference from Paddle's recorded outputs and whether pirc's .pdiparams is
   Paddle's file byte for byte (what pirc writes, Paddle reads back).

`DIR/RELEASE/gen_log.json` records the Paddle version, each model's parameters (persisted or
not, with shape and dtype: what the .pdiparams holds and what Paddle creates at load), the
feeds and fetches, and any error.  tests/unit/test_nonpersistable_params.py holds pirc to
these files.
"""
import argparse
import json
import os
import subprocess
import sys
import zlib

# name -> (layer constructor source, forward kwargs, feeds: name -> (shape, dtype, spec shape))
# The feeds' shapes are what is run; the spec shape is what is saved (-1 = dynamic).
MODELS = {
    # 2-layer bidirectional LSTM with per-row lengths (rows shorter than the time axis) and
    # between-layer dropout, which eval mode (is_test) must switch off
    "lstm_bidir_seqlen": (
        "paddle.nn.LSTM(4, 3, num_layers=2, direction='bidirect', dropout=0.3)",
        {"x": ((3, 5, 4), "float32", [-1, -1, 4]), "seq_len": ((3,), "int64", [-1])},
    ),
    # LSTM with initial states fed in (pre_state), time-major input
    "lstm_init_state": (
        "paddle.nn.LSTM(4, 3, num_layers=1, time_major=True)",
        {"x": ((6, 2, 4), "float32", [-1, -1, 4]), "h0": ((1, 2, 3), "float32", [1, -1, 3]),
         "c0": ((1, 2, 3), "float32", [1, -1, 3])},
    ),
    "gru_2layer": (
        "paddle.nn.GRU(4, 3, num_layers=2)",
        {"x": ((2, 5, 4), "float32", [-1, -1, 4])},
    ),
    "gru_bidir_seqlen": (
        "paddle.nn.GRU(4, 3, num_layers=1, direction='bidirect')",
        {"x": ((3, 6, 4), "float32", [-1, -1, 4]), "seq_len": ((3,), "int64", [-1])},
    ),
    "simple_rnn_tanh_bidir": (
        "paddle.nn.SimpleRNN(4, 3, num_layers=2, direction='bidirect')",
        {"x": ((2, 4, 4), "float32", [-1, -1, 4])},
    ),
    "simple_rnn_relu_seqlen": (
        "paddle.nn.SimpleRNN(4, 3, activation='relu')",
        {"x": ((3, 5, 4), "float32", [-1, -1, 4]), "seq_len": ((3,), "int64", [-1])},
    ),
    # every row shorter than the time axis, one of length 0 (its outputs 0, its state h0/c0)
    "lstm_bidir_short_rows": (
        "paddle.nn.LSTM(4, 3, num_layers=1, direction='bidirect')",
        {"x": ((3, 6, 4), "float32", [-1, -1, 4]), "seq_len": ((3,), "int64", [-1])},
    ),
    # not an rnn: a static program whose non-persistable parameter `b_state` (sorted between
    # the persisted `a_w` and `c_w`) is read only for its shape, and a persisted one added
    "static_shape_of_state": (
        None,
        {"x": ((2, 3), "float32", [-1, 3])},
    ),
}

SEQ_LENS = {"lstm_bidir_short_rows": [4, 2, 0]}


def feed_value(model, feed, shape, dtype):
    import numpy as np

    if feed == "seq_len":
        if model in SEQ_LENS:
            return np.array(SEQ_LENS[model], dtype=dtype)
        time = MODELS[model][1]["x"][0][1]  # one full row, one shorter, one of length 1
        return np.array([time, max(1, time - 2), 1][:shape[0]], dtype=dtype)
    rng = np.random.default_rng(zlib.crc32(f"{model}/feed/{feed}".encode()))
    return rng.standard_normal(shape).astype(dtype)


def build_and_run(name, out_dir):
    """Child process: save model NAME under OUT_DIR, run it in Paddle, record the outputs."""
    import numpy as np
    import paddle

    ctor, feeds = MODELS[name]
    prefix = os.path.join(out_dir, name)
    paddle.seed(0)
    if ctor is None:
        save_static_program(name, prefix)
    else:
        save_layer(name, prefix)
    run_saved(name, prefix)


def save_static_program(name, prefix):
    """static_shape_of_state: built with the static API and saved with save_inference_model."""
    import numpy as np
    import paddle

    paddle.enable_static()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [-1, 3], "float32")
        params = {}
        for pname, shape in (("a_w", [3]), ("b_state", [2, 3]), ("c_w", [3])):
            params[pname] = paddle.create_parameter(shape, "float32", name=pname)
        params["b_state"].persistable = False
        out = (x + params["a_w"]) * params["c_w"]
        shp = paddle.shape(params["b_state"])
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    for pname in ("a_w", "c_w"):
        rng = np.random.default_rng(zlib.crc32(f"{name}/param/{pname}".encode()))
        paddle.static.global_scope().find_var(pname).get_tensor().set(
            rng.uniform(-0.5, 0.5, [3]).astype("float32"), paddle.CPUPlace())
    paddle.static.save_inference_model(prefix, [x], [out, shp], exe, program=main)
    paddle.disable_static()


def save_layer(name, prefix):
    """A paddle.nn recurrent layer (MODELS) saved with paddle.jit.save."""
    import numpy as np
    import paddle

    ctor, feeds = MODELS[name]
    layer = eval(ctor)
    for pname, p in layer.named_parameters():
        rng = np.random.default_rng(zlib.crc32(f"{name}/param/{pname}".encode()))
        p.set_value(rng.uniform(-0.5, 0.5, p.shape).astype("float32"))
    layer.eval()
    feed_names = list(feeds)

    # jit.save traces forward's source: one explicit signature per feed set
    class Wrapped(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.rnn = layer

    class X(Wrapped):
        def forward(self, x):
            out, state = self.rnn(x)
            return [out] + (list(state) if isinstance(state, (tuple, list)) else [state])

    class XSeqLen(Wrapped):
        def forward(self, x, seq_len):
            out, state = self.rnn(x, None, seq_len)
            return [out] + (list(state) if isinstance(state, (tuple, list)) else [state])

    class XInitState(Wrapped):
        def forward(self, x, h0, c0):
            out, (h, c) = self.rnn(x, (h0, c0))
            return [out, h, c]

    model = {("x",): X, ("x", "seq_len"): XSeqLen, ("x", "h0", "c0"): XInitState}[tuple(feed_names)]()
    model.eval()
    specs = [paddle.static.InputSpec(spec, dtype, feed) for feed, (_, dtype, spec) in feeds.items()]
    paddle.jit.save(model, prefix, input_spec=specs)


def run_saved(name, prefix):
    """Load PREFIX.json + .pdiparams in a fresh scope, run it on the CPU, record the outputs."""
    import numpy as np
    import paddle

    feeds = MODELS[name][1]
    paddle.enable_static()
    arrays = {f"in__{f}": feed_value(name, f, shape, dtype) for f, (shape, dtype, _) in feeds.items()}
    scope = paddle.static.Scope()
    with paddle.static.scope_guard(scope):
        exe = paddle.static.Executor(paddle.CPUPlace())
        prog, loaded_feeds, fetch_targets = paddle.static.load_inference_model(prefix, exe)
        outs = exe.run(prog, feed={f: arrays[f"in__{f}"] for f in loaded_feeds},
                       fetch_list=fetch_targets)
        params = []
        for v in prog.list_vars():
            op = v.get_defining_op()
            if op.name() == "builtin.parameter":
                params.append({"name": v.name, "persistable": bool(v.persistable),
                               "shape": list(v.shape), "dtype": str(v.dtype)})
        fetch_names = [op.attrs()["name"] for op in prog.global_block().ops
                       if op.name() == "pd_op.fetch"]
    for i, o in enumerate(outs):
        arrays[f"out__{i}"] = np.array(o)
    arrays["fetch_names"] = np.array(fetch_names)
    np.savez(prefix + ".npz", **arrays)
    print(json.dumps({"paddle": paddle.__version__, "feeds": list(loaded_feeds),
                      "fetch_names": fetch_names,
                      "params": sorted(params, key=lambda p: p["name"]),
                      "pdiparams_bytes": os.path.getsize(prefix + ".pdiparams")}))


def run_pirc_written(prefix, npz_path):
    """Child process: Paddle loads PREFIX.json + .pdiparams (written by pirc) and runs it on
    the recorded inputs; prints the largest difference from the recorded outputs."""
    import numpy as np
    import paddle

    paddle.enable_static()
    data = dict(np.load(npz_path))
    scope = paddle.static.Scope()
    with paddle.static.scope_guard(scope):
        exe = paddle.static.Executor(paddle.CPUPlace())
        prog, feeds, fetch_targets = paddle.static.load_inference_model(prefix, exe)
        outs = exe.run(prog, feed={f: data[f"in__{f}"] for f in feeds}, fetch_list=fetch_targets)
    diff = max(float(np.abs(np.asarray(o, np.float64) - data[f"out__{i}"]).max())
               for i, o in enumerate(outs))
    print(json.dumps({"max_abs_diff": diff}))


def check_pirc_written(name, out_dir, pirc_python):
    """pirc-opt rewrites the saved model (+ --params-out) under each pipeline; Paddle loads what
    pirc wrote and must reproduce its own recorded outputs."""
    import filecmp
    import tempfile

    stem = os.path.join(out_dir, name)
    result = {}
    for pipeline in ("default", "inference"):
        with tempfile.TemporaryDirectory() as td:
            prefix = os.path.join(td, "model")
            opt = subprocess.run([pirc_python, "-m", "pirc", stem + ".json", "-p", pipeline,
                                  "--params", stem + ".pdiparams", "-o", prefix + ".json",
                                  "--params-out", prefix + ".pdiparams"],
                                 capture_output=True, text=True)
            if opt.returncode:
                result[pipeline] = {"error": "pirc: " + opt.stderr.strip()[-1000:]}
                continue
            child = subprocess.run([sys.executable, os.path.abspath(__file__), "--child-load", prefix,
                                    stem + ".npz"], capture_output=True, text=True,
                                   env=dict(os.environ, GLOG_v="0"))
            if child.returncode:
                result[pipeline] = {"error": "paddle: " + child.stderr.strip()[-1000:]}
                continue
            result[pipeline] = json.loads(child.stdout.strip().splitlines()[-1])
            result[pipeline]["pdiparams_identical"] = filecmp.cmp(
                stem + ".pdiparams", prefix + ".pdiparams", shallow=False)
    return result


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        build_and_run(sys.argv[2], sys.argv[3])
        return
    if len(sys.argv) > 1 and sys.argv[1] == "--child-load":
        run_pirc_written(sys.argv[2], sys.argv[3])
        return
    import paddle

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dir", default="tests/fixtures/nonpersistable")
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--pirc-python", default=".venv/bin/python",
                    help="a python with pirc installed, for the pirc-written check ('' skips it)")
    args = ap.parse_args()
    release = paddle.__version__
    out_dir = os.path.join(args.dir, release)
    os.makedirs(out_dir, exist_ok=True)
    log_path = os.path.join(out_dir, "gen_log.json")
    log = json.load(open(log_path)) if os.path.exists(log_path) else {}
    for name in MODELS:
        if args.only and name not in args.only:
            continue
        env = dict(os.environ, GLOG_v="0")
        child = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", name, out_dir],
                               capture_output=True, text=True, env=env)
        if child.returncode:
            log[name] = {"error": child.stderr.strip()[-2000:]}
        else:
            log[name] = json.loads(child.stdout.strip().splitlines()[-1])
            if args.pirc_python:
                log[name]["pirc_written"] = check_pirc_written(name, out_dir, args.pirc_python)
                if any("error" in v for v in log[name]["pirc_written"].values()):
                    log[name]["error"] = "pirc-written program: see pirc_written"
        print(name, json.dumps(log[name])[:300])
    log = {k: log[k] for k in sorted(log) if k in MODELS}
    with open(log_path, "w") as f:
        json.dump(log, f, indent=1, sort_keys=True)
        f.write("\n")
    sys.exit(1 if any("error" in v for v in log.values()) else 0)


if __name__ == "__main__":
    main()
