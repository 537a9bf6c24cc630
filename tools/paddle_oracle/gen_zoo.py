#!/usr/bin/env python3
"""The development zoo: real architectures saved by Paddle (tests/fixtures/zoo/).

Run with the python of a scratch venv that has paddlepaddle (and paddlenlp for the NLP models;
README.md "Zoo"), never the repo's environment, from the repo root:

    /tmp/pd331/bin/python tools/paddle_oracle/gen_zoo.py --out tests/fixtures/zoo
    /tmp/pd300/bin/python tools/paddle_oracle/gen_zoo.py --out tests/fixtures/zoo
    # the oracle for pirc's --upgrade: each 3.0.0 file loaded by 3.3.1 and written back
    /tmp/pd331/bin/python tools/paddle_oracle/gen_zoo.py --out tests/fixtures/zoo --crossload 3.0.0

`--zoo zoo2` builds the second zoo instead (tools/paddle_oracle/zoo2/: sequence, decoding and
detection models, each with extra input sets that take every branch and loop count) into
tests/fixtures/zoo2, the same way:

    /tmp/pd331/bin/python tools/paddle_oracle/gen_zoo.py --zoo zoo2 --out tests/fixtures/zoo2

Each model (zoo/vision.py, zoo/nlp.py) is built in its own child process: every parameter
(BN statistics included) is set to tools/zoo_weights.value(name, shape, dtype), the layer is
converted with paddle.jit.to_static(input_spec=[InputSpec with -1 batch (and sequence) dims])
and saved with paddle.jit.save; the saved program is loaded back with load_inference_model
and run on the model's fixed inputs. OUT/VER/ gets MODEL.VER.json (the saved program),
MODEL.VER.pdiparams (ignored by git: the tests rebuild it from zoo_weights), MODEL.VER.constants.npz
(the parameters jit.save made of tensors the forward built eagerly, `eager_tmp_N`: position
ids, masks, rotary tables, whose values zoo_weights cannot know; only where there are such),
MODEL.VER.io.npz
(in__<feed>, out__<i> = the loaded program's outputs), MODEL.VER.io.LABEL.npz for each of the
model's extra input sets (`Model.cases`) and gen_log.VER.json (per model: ops,
parameters, the .pdiparams sha256 and size, output shapes, the loaded program's outputs vs the
dygraph layer's, errors). `--crossload 3.0.0` (3.3.1 only) loads OUT/3.0.0/MODEL.3.0.0.json
with its .pdiparams, runs it and re-serializes it with core.serialize_pir_program (the JSON
Paddle 3.3.1 writes after its patches) into
OUT/crossload/MODEL.3.0.0-loaded-in-3.3.1.{json,out.npz}, with crossload_log.json.
`--models a b` does only some (the other gen_log entries are kept).
"""
import argparse
import collections
import glob
import hashlib
import importlib
import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tools"))

import numpy as np  # noqa: E402

PADDLE_VERSION = importlib.metadata.version("paddlepaddle")
NEWEST = "3.3.1"
CHILD_TIMEOUT_S = 600


ZOO_PACKAGE = os.environ.get("PIRC_ZOO_PACKAGE", "zoo")  # set from --zoo, for the children too


def all_models():
    """name -> (module, builder) of the package's FAMILIES (zoo: vision, nlp; zoo2: its own);
    a family whose imports fail in this venv (no paddlenlp) is left out with a message."""
    package = importlib.import_module(ZOO_PACKAGE)
    models = {}
    for family in package.FAMILIES:
        try:
            module = importlib.import_module(f"{ZOO_PACKAGE}.{family}")
        except Exception as e:  # e.g. no paddlenlp in this venv
            print(f"(no {family} models: {type(e).__name__}: {e})", file=sys.stderr)
            continue
        models.update({n: (family, f) for n, f in module.MODELS.items()})
    return models


def err(e):
    return f"{type(e).__name__}: {str(e).strip()[:2000]}"


def compare(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        return f"shape/dtype differ: {a.shape} {a.dtype} vs {b.shape} {b.dtype}"
    if a.tobytes() == b.tobytes():
        return "bitexact"
    if a.dtype.kind in "fc":
        return f"max abs diff {float(np.max(np.abs(a - b))):.3g}"
    return "mismatch"


def run_program(exe, prog, feed, fetch_list):
    """exe.run with return_numpy=False, then each output as an ndarray: an output that carries
    LoD (collect_fpn_proposals' rois, multiclass_nms3's rows in a real Faster R-CNN) cannot be
    fetched as numpy directly, and the LoD is not part of what the program computes."""
    return [np.array(t) for t in exe.run(prog, feed=feed, fetch_list=fetch_list, return_numpy=False)]


def saved_params(json_path):
    """name -> (shape, stop_gradient) of the builtin.parameter ops of a saved JSON."""
    with open(json_path) as f:
        doc = json.load(f)
    out = {}

    def walk(node):
        if isinstance(node, dict):
            if node.get("#") == "p" and "A" in node:
                out[node["A"][3]] = node["O"]["TT"]["D"][1]
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)
    walk(doc)
    return out


def op_counts(json_path):
    with open(json_path) as f:
        doc = json.load(f)
    counts = collections.Counter()

    def walk(node):
        if isinstance(node, dict):
            name = node.get("#")
            if isinstance(name, str) and "A" in node and "O" in node:  # an op, as the JSON names it
                counts[name] += 1
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)
    walk(doc)
    return dict(sorted(counts.items()))


def set_weights(layer):
    """Every parameter and persistable buffer from zoo_weights.value; returns name -> shape."""
    import paddle
    from zoo_weights import value
    done = {}
    tensors = [p for p in layer.parameters()] + [b for b in layer.buffers() if getattr(b, "persistable", False)]
    for t in tensors:
        dtype = str(t.dtype).replace("paddle.", "")
        v = value(t.name, list(t.shape), dtype)
        t.set_value(paddle.to_tensor(v, dtype=t.dtype))
        done[t.name] = list(t.shape)
    return done


def gen_one(name, outdir):
    import paddle
    log = {"ok": False}
    t0 = time.time()
    module, builder = all_models()[name]
    base = os.path.join(outdir, f"{name}.{PADDLE_VERSION}")
    paddle.seed(0)
    model = builder(name)
    layer = model.layer
    layer.eval()
    set_names = set_weights(layer)
    log["set_params"] = len(set_names)
    log["notes"] = model.notes
    log["input_specs"] = [{"name": s.name, "shape": list(s.shape), "dtype": str(s.dtype).replace("paddle.", "")}
                          for s in model.specs]
    def dygraph(feeds_of_set):
        with paddle.no_grad():
            out = layer(*[paddle.to_tensor(feeds_of_set[s.name]) for s in model.specs])
        return [np.asarray(t.numpy()) for t in (out if isinstance(out, (list, tuple)) else [out])]
    # Every input set through the dygraph layer BEFORE to_static: paddle.jit.to_static(layer)
    # replaces layer.forward, so a later layer(...) runs the converted program, not dygraph.
    eager = dygraph(model.inputs)
    case_eagers = {label: dygraph(feeds_of_case) for label, feeds_of_case in model.cases.items()}
    static = paddle.jit.to_static(layer, input_spec=model.specs, full_graph=True)
    tmp = tempfile.mkdtemp()
    prefix = os.path.join(tmp, name)
    paddle.jit.save(static, prefix)
    saved = sorted(os.listdir(tmp))
    log["saved_files"] = saved
    shutil.copyfile(prefix + ".json", base + ".json")
    params_path = prefix + ".pdiparams"
    if os.path.exists(params_path):
        shutil.copyfile(params_path, base + ".pdiparams")
        with open(params_path, "rb") as f:
            data = f.read()
        log["pdiparams_sha256"] = hashlib.sha256(data).hexdigest()
        log["pdiparams_bytes"] = len(data)
    params = saved_params(prefix + ".json")
    log["params"] = len(params)
    log["param_elements"] = int(sum(int(np.prod(s)) for s in params.values()))
    log["ops"] = op_counts(prefix + ".json")
    # the saved program, loaded back and run
    paddle.enable_static()
    exe = paddle.static.Executor(paddle.CPUPlace())
    scope = paddle.static.Scope()
    with paddle.static.scope_guard(scope):
        prog, feed_names, fetch_targets = paddle.static.load_inference_model(prefix, exe)
        log["feed_names"] = list(feed_names)
        outs = run_program(exe, prog, {n: model.inputs[n] for n in feed_names}, fetch_targets)
        # Tensors the forward built eagerly (position ids, causal masks, rotary cos/sin tables)
        # become parameters named eager_tmp_N: their values are the model's, not zoo_weights'.
        constants, created = {}, []
        for n in sorted(params):
            if n in set_names:
                continue
            var = scope.find_var(n)
            if var is None or not var.get_tensor()._is_initialized():
                created.append(n)  # not persisted (rnn's dropout_state): Paddle made it at load
                continue
            constants[n] = np.array(var.get_tensor())
        if created:
            log["not_persisted"] = created
    if constants:
        np.savez_compressed(base + ".constants.npz", **constants)
        log["constants"] = {n: list(a.shape) for n, a in constants.items()}
    np.savez(base + ".io.npz", **{f"in__{n}": model.inputs[n] for n in feed_names},
             **{f"out__{i}": np.asarray(a) for i, a in enumerate(outs)})
    log["outputs"] = [{"shape": list(np.shape(a)), "dtype": str(np.asarray(a).dtype)} for a in outs]
    log["loaded_vs_dygraph"] = [compare(a, b) for a, b in zip(outs, eager)]
    # More input sets (zoo2: each branch of every `if`, loops of 0, 1 and many iterations), each
    # run by the loaded program into MODEL.VER.io.LABEL.npz and compared with the dygraph layer.
    log["cases"] = {}
    for label, feeds_of_case in model.cases.items():
        with paddle.static.scope_guard(scope):
            case_outs = run_program(exe, prog, {n: feeds_of_case[n] for n in feed_names}, fetch_targets)
        case_eager = case_eagers[label]
        np.savez(f"{base}.io.{label}.npz", **{f"in__{n}": feeds_of_case[n] for n in feed_names},
                 **{f"out__{i}": np.asarray(a) for i, a in enumerate(case_outs)})
        log["cases"][label] = {"outputs": [{"shape": list(np.shape(a)), "dtype": str(np.asarray(a).dtype)}
                                           for a in case_outs],
                               "loaded_vs_dygraph": [compare(a, b) for a, b in zip(case_outs, case_eager)]}
    log["seconds"] = round(time.time() - t0, 1)
    log["ok"] = True
    shutil.rmtree(tmp, ignore_errors=True)
    return log


def crossload_one(name, src_dir, outdir, from_ver):
    import paddle
    from paddle.base import core
    log = {"ok": False}
    prefix = os.path.join(src_dir, f"{name}.{from_ver}")
    if not os.path.exists(prefix + ".json"):
        return {"ok": False, "error": "no source JSON"}
    io = dict(np.load(prefix + ".io.npz"))
    paddle.enable_static()
    scope = paddle.static.Scope()
    base = os.path.join(outdir, f"{name}.{from_ver}-loaded-in-{NEWEST}")
    with paddle.static.scope_guard(scope):
        exe = paddle.static.Executor(paddle.CPUPlace())
        prog, feed_names, fetch_targets = paddle.static.load_inference_model(prefix, exe)
        core.serialize_pir_program(prog, base + ".json", True, False, True)
        try:
            outs = run_program(exe, prog, {n: io[f"in__{n}"] for n in feed_names}, fetch_targets)
        except Exception as e:
            log["run_error"] = err(e)
            outs = None
    if outs is not None:
        np.savez(base + ".out.npz", **{f"out__{i}": np.asarray(a) for i, a in enumerate(outs)})
        log["vs_source"] = [compare(a, io[f"out__{i}"]) for i, a in enumerate(outs)]
        native = os.path.join(os.path.dirname(src_dir), NEWEST, f"{name}.{NEWEST}.io.npz")
        if os.path.exists(native):
            nat = dict(np.load(native))
            log["vs_native_3.3.1"] = [compare(a, nat[f"out__{i}"]) for i, a in enumerate(outs)]
    for case_npz in sorted(glob.glob(prefix + ".io.*.npz")):
        label = case_npz[len(prefix + ".io."):-len(".npz")]
        case_io = dict(np.load(case_npz))
        with paddle.static.scope_guard(scope):
            try:
                case_outs = run_program(exe, prog, {n: case_io[f"in__{n}"] for n in feed_names},
                                         fetch_targets)
            except Exception as e:
                log[f"run_error.{label}"] = err(e)
                continue
        np.savez(f"{base}.{label}.out.npz", **{f"out__{i}": np.asarray(a) for i, a in enumerate(case_outs)})
        log.setdefault("cases_vs_source", {})[label] = [compare(a, case_io[f"out__{i}"])
                                                       for i, a in enumerate(case_outs)]
    log["ok"] = not any(k.startswith("run_error") for k in log)
    return log


def child(args):
    try:
        if args.crossload_one:
            log = crossload_one(args.crossload_one, args.src_dir, args.outdir, args.from_ver)
        else:
            log = gen_one(args.one, args.outdir)
    except Exception as e:
        log = {"ok": False, "error": err(e), "traceback": traceback.format_exc()[-4000:]}
    with open(args.result, "w") as f:
        json.dump(log, f)


def isolated(argv):
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        result = f.name
    try:  # a to_static conversion was once seen to spin for minutes (then fine on a rerun)
        run = subprocess.run([sys.executable, os.path.abspath(__file__), *argv, "--result", result],
                             capture_output=True, text=True, timeout=CHILD_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.unlink(result)
        return {"ok": False, "error": f"child did not finish in {CHILD_TIMEOUT_S} s"}
    try:
        with open(result) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {"ok": False, "error": f"child exited {run.returncode}", "stderr": run.stderr[-4000:]}
    finally:
        os.unlink(result)


def write_log(path, entries, extra):
    import paddle
    full = {"paddle_version": PADDLE_VERSION, "commit": getattr(paddle.version, "commit", None),
            "numpy_version": np.__version__, "python": sys.version.split()[0],
            "date_utc": time.strftime("%Y-%m-%d", time.gmtime()), **extra, "models": {}}
    for pkg in ("paddlenlp",):
        try:
            full[f"{pkg}_version"] = importlib.metadata.version(pkg)
        except importlib.metadata.PackageNotFoundError:
            pass
    if os.path.exists(path):
        with open(path) as f:
            full["models"] = json.load(f).get("models", {})
    full["models"].update(entries)
    full["models"] = dict(sorted(full["models"].items()))
    with open(path, "w") as f:
        json.dump(full, f, indent=1)
        f.write("\n")


def main():
    global ZOO_PACKAGE
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", help="e.g. tests/fixtures/zoo")
    ap.add_argument("--zoo", choices=("zoo", "zoo2"), default=ZOO_PACKAGE,
                    help="which model package (tools/paddle_oracle/zoo or zoo2); default zoo")
    ap.add_argument("--models", nargs="*", help="subset of models")
    ap.add_argument("--crossload", nargs="*", metavar="FROM",
                    help="(3.3.1) load OUT/FROM/*.json and re-serialize them")
    for hidden in ("--one", "--outdir", "--result", "--crossload-one", "--src-dir", "--from-ver"):
        ap.add_argument(hidden, help=argparse.SUPPRESS)
    args = ap.parse_args()
    ZOO_PACKAGE = os.environ["PIRC_ZOO_PACKAGE"] = args.zoo  # the children inherit it
    if args.result:
        return child(args)
    if not args.out:
        ap.error("--out is required")
    models = [m for m in all_models() if not args.models or m in args.models]
    if args.crossload:
        if PADDLE_VERSION != NEWEST:
            ap.error(f"--crossload needs paddle {NEWEST}, this is {PADDLE_VERSION}")
        outdir = os.path.join(args.out, "crossload")
        os.makedirs(outdir, exist_ok=True)
        entries = {}
        for ver in args.crossload:
            src = os.path.join(args.out, ver)
            for m in models:
                key = f"{m}.{ver}"
                entries[key] = isolated(["--crossload-one", m, "--src-dir", src, "--outdir", outdir,
                                         "--from-ver", ver])
                print(key, json.dumps(entries[key])[:300], flush=True)
        write_log(os.path.join(outdir, "crossload_log.json"), entries,
                  {"what": "FROM files loaded by load_inference_model in 3.3.1, re-serialized "
                           "with core.serialize_pir_program(prog, path, True, False, True)"})
        return
    outdir = os.path.join(args.out, PADDLE_VERSION)
    os.makedirs(outdir, exist_ok=True)
    entries = {}
    for m in models:
        entries[m] = isolated(["--one", m, "--outdir", outdir])
        shown = {k: v for k, v in entries[m].items()
                 if k.endswith("error") or k in ("ok", "params", "seconds", "loaded_vs_dygraph")}
        print(m, json.dumps(shown)[:600], flush=True)
    try:
        not_exported = {n: why for n, (_, why) in
                        importlib.import_module(f"{ZOO_PACKAGE}.nlp").NOT_EXPORTED.items()}
    except Exception:
        not_exported = {}
    write_log(os.path.join(outdir, f"gen_log.{PADDLE_VERSION}.json"), entries,
              {"note": "each model is built in its own process; weights: tools/zoo_weights.py",
               "not_exported": not_exported})


if __name__ == "__main__":
    main()
