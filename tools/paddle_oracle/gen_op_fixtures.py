#!/usr/bin/env python3
"""Per-op Paddle fixtures for lowering parity: one small static program per op (the builders
are in op_builders/, a module per op family), each fetching several attribute variants and
boundary inputs of that op.

Run with the python of a scratch venv that has paddlepaddle (never pirc's environment):

    /tmp/pd331/bin/python tools/paddle_oracle/gen_op_fixtures.py --out tests/fixtures/ops
    /tmp/pd300/bin/python tools/paddle_oracle/gen_op_fixtures.py --out tests/fixtures/ops

and, with Paddle 3.1.1 and 3.2.2, only the builders of ops whose kernel pirc splits by PIR
version (pirc/runtime/op_versions.json), which place each split between releases
(tests/unit/test_version_splits.py):

    /tmp/pd311/bin/python tools/paddle_oracle/gen_op_fixtures.py --out tests/fixtures/ops --version-splits
    /tmp/pd322/bin/python tools/paddle_oracle/gen_op_fixtures.py --out tests/fixtures/ops --version-splits

Writes OUT/VER/NAME.VER.{pir.txt,json,pdiparams?,loaded.pir.txt,io.npz} and gen_log.VER.json
exactly as gen_fixtures.py does (same weights, same child process per model, io.npz with
in__<feed> and out__<i> = outputs of the LOADED program; compressed, and built_out__<i>
only where it differs from out__<i>); gen_log.VER.json logs op_builders/section7.py and
gen_log.VER.FAMILY.json each other module. A model's name is its op's short
name, or OP__VARIANT when one op needs several programs; `"extra": true` marks ops outside
section 7 that common API calls emit (depthwise_conv2d, split_with_num). gen_log entries carry
"random": true for programs whose outputs are random (compare shape, dtype, distribution).
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_fixtures as gf  # noqa: E402  (imports paddle, enable_static)

import numpy as np  # noqa: E402
import paddle  # noqa: E402
from op_builders import Feeds, arr, load_all  # noqa: E402

B = load_all()


# --- generation (one child process per model, like gen_fixtures.py) ----------------------------

def compact_io(name, outdir, ver):
    """Keep the fixtures small: compress io.npz and drop each built_out__<i> that is
    bit-identical to out__<i> (gen_log's reload_bitexact_vs_built records it)."""
    path = os.path.join(outdir, f"{name}.{ver}.io.npz")
    if not os.path.exists(path):
        return
    d = dict(np.load(path))
    keep = {k: v for k, v in d.items()
            if not (k.startswith("built_out__") and f"out__{k[11:]}" in d
                    and d[f"out__{k[11:]}"].tobytes() == v.tobytes()
                    and d[f"out__{k[11:]}"].dtype == v.dtype)}
    np.savez_compressed(path, **keep)


def retrain(name, outdir, ver, log, ops):
    """save_inference_model forces every `is_test` attribute to true; a training-mode fixture
    (dropout, the quantisers' abs-max / moving-average observers) needs the saved JSON edited
    back to is_test=false on the ops named in `ops` (".dropout", ...), then loaded and run
    again.  Outputs the test-mode run could not fetch (an unset optional) are dropped first."""
    n = 0

    def edit(doc):
        nonlocal n
        for o in doc["program"]["regions"][0]["blocks"][0]["ops"]:
            if o["#"].endswith(tuple(ops)):
                for a in o["A"]:
                    if a["N"] == "is_test":
                        a["AT"]["D"] = False
                        n += 1

    rerun_edited(name, outdir, ver, log, edit)
    log["json_edited"] = f"is_test set to false on {n} ops ({', '.join(ops)}) after saving"


def rerun_edited(name, outdir, ver, log, edit, fresh=False):
    """Apply `edit` to the saved JSON document, then load the program with Paddle, run it on
    the same feeds and record its outputs as the fixture's (loaded.pir.txt rewritten).
    `fresh`: the edited program is another one, so the built program's outputs go too."""
    prefix = os.path.join(outdir, f"{name}.{ver}")
    with open(prefix + ".json") as fh:
        doc = json.load(fh)
    edit(doc)
    with open(prefix + ".json", "w") as fh:
        json.dump(doc, fh)
    io = {k: v for k, v in np.load(prefix + ".io.npz", allow_pickle=True).items()
          if v.dtype != object}
    scope = paddle.static.Scope()
    with paddle.static.scope_guard(scope):
        exe = paddle.static.Executor(paddle.CPUPlace())
        prog, feed_names, fetch_targets = paddle.static.load_inference_model(prefix, exe)
        with open(prefix + ".loaded.pir.txt", "w") as fh:
            fh.write(str(prog))
        outs = exe.run(prog, feed={k: io["in__" + k] for k in feed_names},
                       fetch_list=fetch_targets)
        if fresh:
            log["num_ops_loaded"] = len(prog.global_block().ops)
            log["ops_loaded"] = sorted({o.name() for o in prog.global_block().ops})
            log.pop("reload_bitexact_vs_built", None)
            io = {k: v for k, v in io.items() if not k.startswith(("out__", "built_out__"))}
    for i, a in enumerate(outs):
        io[f"out__{i}"] = np.asarray(a)
    np.savez(prefix + ".io.npz", **io)
    log.pop("loaded_run_error", None)
    log["loaded_out"] = [gf.arr_meta(a) for a in outs]
    log["ok"] = not any(k.endswith("_error") for k in log)


def rewrite(name, outdir, ver, log, fn_name):
    """A builder's `rewrite="FN"`: FN(doc) of its module edits the saved JSON (an op no
    Python API and no translator builds, written over the op that stands in for it); the
    edited program is what Paddle then loads and runs."""
    fn = getattr(sys.modules[B[name][0].__module__], fn_name)
    rerun_edited(name, outdir, ver, log, fn, fresh=True)
    log["json_edited"] = f"{fn_name}: {fn.__doc__.strip().splitlines()[0]}"


def drop_if_pruned(name, outdir, ver, log):
    """A fixture whose op is in the built program but not in the saved one (pruned on save:
    an op with no result that no fetch depends on) proves nothing about the op: its files
    are removed and the gen log says why."""
    op = "pd_op." + name.split("__")[0]
    path = os.path.join(outdir, f"{name}.{ver}.loaded.pir.txt")
    if op not in log.get("ops_main", ()) or not os.path.exists(path):
        return
    with open(path) as fh:
        if f'"{op}"' in fh.read():
            return
    for suffix in ("json", "pdiparams", "loaded.pir.txt", "io.npz"):
        p = os.path.join(outdir, f"{name}.{ver}.{suffix}")
        if os.path.exists(p):
            os.remove(p)
    log["pruned_error"] = (f"{op} is in the built program but not in the saved one "
                           f"(save_inference_model pruned it): fixture dropped")
    log["ok"] = False


def second_size(name, outdir, ver, log, alt):
    """A dynamic-shape fixture (`alt={feed: shape}`): run the loaded program again on the feeds
    at a second size and keep them as in2__<feed> / out2__<i> beside the first size's."""
    prefix = os.path.join(outdir, f"{name}.{ver}")
    io = dict(np.load(prefix + ".io.npz"))
    feeds = {k[4:]: v for k, v in io.items() if k.startswith("in__")}
    for key, shape in alt.items():
        first = feeds[key]
        lo, hi = (None, None) if first.dtype.kind == "f" else (int(first.min()), int(first.max()) + 1)
        feeds[key] = arr(name, key + "@alt", shape, str(first.dtype), lo, hi)
    scope = paddle.static.Scope()
    with paddle.static.scope_guard(scope):
        exe = paddle.static.Executor(paddle.CPUPlace())
        prog, feed_names, fetch_targets = paddle.static.load_inference_model(prefix, exe)
        outs = exe.run(prog, feed={k: feeds[k] for k in feed_names}, fetch_list=fetch_targets)
    io.update({f"in2__{k}": v for k, v in feeds.items()})
    io.update({f"out2__{i}": np.asarray(a) for i, a in enumerate(outs)})
    np.savez_compressed(prefix + ".io.npz", **io)
    log["alt_out"] = [gf.arr_meta(a) for a in outs]


def build(name):
    """Called inside program_guard by gen_fixtures' machinery."""
    fn, info = B[name]
    f = Feeds(name)
    fetches, extra = fn(f)
    return f.items, fetches, {**info, **extra}


def fixture_script_main(models, build, example_out: str, note: str, script: str) -> None:
    """The command line of a small fixture generator (gen_fusion_fixtures.py and its kin):
    `--out DIR` builds every name of `models` in a process of its own (the script re-run with
    `--one NAME`), writes DIR/VER/NAME.VER.* as gen_fixtures.gen_one_3x does (inputs compacted)
    and DIR/VER/gen_log.VER.json.  `build(name)` -> (feeds, fetches, extra); `script` is the
    generator's own __file__ (what run_isolated re-executes)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", help=f"e.g. {example_out}")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    ap.add_argument("--outdir", help=argparse.SUPPRESS)
    ap.add_argument("--result", help=argparse.SUPPRESS)
    args = ap.parse_args()
    ver = gf.PADDLE_VERSION
    if args.one:
        setattr(gf, "m_" + args.one, build)   # gen_one_3x looks its builder up as m_<name>
        try:
            r = gf.gen_one_3x(args.one, args.outdir, ver)
            compact_io(args.one, args.outdir, ver)
        except Exception as e:
            import traceback
            r = {"ok": False, "build_error": gf.err(e), "traceback": traceback.format_exc()[-3000:]}
        with open(args.result, "w") as fh:
            json.dump(r, fh)
        return
    if not args.out:
        ap.error("--out is required")
    outdir = os.path.join(args.out, ver)
    os.makedirs(outdir, exist_ok=True)
    log = {"paddle_version": ver, "commit": getattr(paddle.version, "commit", None),
           "numpy_version": np.__version__, "date_utc": time.strftime("%Y-%m-%d", time.gmtime()),
           "note": note, "models": {}}
    gf.__file__ = os.path.abspath(script)  # run_isolated re-executes the generator
    for m in models:
        r = gf.run_isolated(m, outdir, ver, None)
        log["models"][m] = r
        print(f"== {m}: ok={r.get('ok')} "
              + json.dumps({k: v for k, v in r.items() if k.endswith("error")})[:400], flush=True)
    with open(os.path.join(outdir, f"gen_log.{ver}.json"), "w") as fh:
        json.dump(log, fh, indent=1)
        fh.write("\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", help="e.g. tests/fixtures/ops")
    ap.add_argument("--models", nargs="*")
    ap.add_argument("--family", nargs="*",
                    help="only the builders of these op_builders modules (e.g. unary)")
    ap.add_argument("--version-splits", action="store_true",
                    help="only the builders of ops with more than one kernel by PIR version, "
                         "or one from a later version (pirc/runtime/op_versions.json)")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    ap.add_argument("--outdir", help=argparse.SUPPRESS)
    ap.add_argument("--result", help=argparse.SUPPRESS)
    args = ap.parse_args()
    ver = gf.PADDLE_VERSION
    if args.one:
        # gen_fixtures.gen_one_3x looks its builder up as m_<name> in its own module.
        setattr(gf, "m_" + args.one, lambda model: build(model))
        try:
            r = gf.gen_one_3x(args.one, args.outdir, ver)
            info = B[args.one][1]
            train = [".dropout"] if info.get("train_dropout") else list(info.get("train", ()))
            if train and r.get("saved_files"):
                retrain(args.one, args.outdir, ver, r, train)
            if info.get("rewrite") and r.get("saved_files"):
                rewrite(args.one, args.outdir, ver, r, info["rewrite"])
            drop_if_pruned(args.one, args.outdir, ver, r)
            compact_io(args.one, args.outdir, ver)
            if B[args.one][1].get("alt") and r.get("ok"):
                second_size(args.one, args.outdir, ver, r, B[args.one][1]["alt"])
        except Exception as e:
            import traceback
            # the builder's own info (its `expect` above all) is kept when it fails to build
            r = {**B[args.one][1], "ok": False, "build_error": gf.err(e),
                 "traceback": traceback.format_exc()[-3000:]}
        with open(args.result, "w") as fh:
            json.dump(r, fh)
        return
    if not args.out:
        ap.error("--out is required")
    outdir = os.path.join(args.out, ver)
    os.makedirs(outdir, exist_ok=True)
    split = split_ops() if args.version_splits else None
    models = [m for m in B if (not args.models or m in args.models)
              and (not args.family or family_of(m) in args.family)
              and (split is None or "pd_op." + m.split("__")[0] in split)]
    unknown = sorted(set(args.models or ()) - set(B))
    if unknown:
        ap.error(f"no builder named {', '.join(unknown)}")
    gf.__file__ = os.path.abspath(__file__)   # run_isolated re-executes this script
    # One gen_log per builder module (gen_log.VER.json for section7, the first one;
    # gen_log.VER.FAMILY.json for the others), so that families are regenerated, reviewed
    # and merged independently.
    by_log = {}
    for m in models:
        by_log.setdefault(log_path(outdir, ver, m), []).append(m)
    for logpath, group in by_log.items():
        full = {"paddle_version": ver, "commit": getattr(paddle.version, "commit", None),
                "numpy_version": np.__version__, "python": sys.version.split()[0],
                "date_utc": time.strftime("%Y-%m-%d", time.gmtime()),
                "note": "one program per op (several attribute variants as outputs); "
                        "each built in its own process", "models": {}}
        if os.path.exists(logpath):
            with open(logpath) as fh:
                full["models"] = json.load(fh).get("models", {})
        # a builder that no longer exists leaves no entry behind
        full["models"] = {k: v for k, v in full["models"].items() if k in B}
        for m in group:
            r = gf.run_isolated(m, outdir, ver, None)
            if "child_error" in r:
                # the child died (a crash in Paddle): keep the builder's info, its expect above all
                r = {**B[m][1], **r}
            full["models"][m] = r
            print(f"== {m}: ok={r.get('ok')} "
                  + json.dumps({k: v for k, v in r.items() if k.endswith("error")})[:400],
                  flush=True)
        full["models"] = dict(sorted(full["models"].items()))
        with open(logpath + ".tmp", "w") as fh:
            json.dump(full, fh, indent=1)
            fh.write("\n")
        os.replace(logpath + ".tmp", logpath)


def split_ops():
    """The forward ops whose pirc kernel changes with the PIR version (or starts after 1)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "pirc",
                        "runtime", "op_versions.json")
    with open(path) as fh:
        ops = json.load(fh)["ops"]
    return {name for name, ranges in ops.items() if "_grad" not in name
            and (len(ranges) > 1 or ranges[0][0] > 1)}


def family_of(model):
    return B[model][0].__module__.rsplit(".", 1)[-1]


def log_path(outdir, ver, model):
    family = family_of(model)
    suffix = "" if family == "section7" else f".{family}"
    return os.path.join(outdir, f"gen_log.{ver}{suffix}.json")


if __name__ == "__main__":
    main()
