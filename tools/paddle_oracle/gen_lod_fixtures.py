#!/usr/bin/env python3
"""Per-op Paddle fixtures of the ops whose CPU kernel reads the LoD of a fed tensor
(sequence_pool, sequence_softmax, sequence_expand, sequence_conv, box_clip ...): each program
is fed LoDTensors (`paddle.static.data(..., lod_level=N)`, recursive sequence lengths set)
and fetched with `return_numpy=False`, so that the LoD of every output is recorded too.
gen_op_fixtures.py feeds numpy arrays only (no LoD), where these kernels fail (its
op_builders/lod.py records that failure).

    /tmp/pd331/bin/python tools/paddle_oracle/gen_lod_fixtures.py --out tests/fixtures/ops
    /tmp/pd300/bin/python tools/paddle_oracle/gen_lod_fixtures.py --out tests/fixtures/ops

Writes OUT/VER/NAME.VER.{pir.txt,json,loaded.pir.txt,io.npz} as gen_op_fixtures.py does and
the log OUT/VER/gen_log.VER.lod_feeds.json. io.npz: in__<feed>, and the feed's LoD as
lod__<feed> (level-0 offsets) and lod1__<feed> (level 1), the inputs pirc.run takes; out__<i>
the LOADED program's outputs and outlod__<i> / outlod1__<i> their LoD levels (absent when an
output has none). Every weight is a feed (no .pdiparams). Each program is built in its own
forked child (a crash in Paddle kills that child only).
"""
import argparse
import json
import multiprocessing as mp
import os
import shutil
import sys
import tempfile
import time
import traceback

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import paddle  # noqa: E402
from paddle.base import core  # noqa: E402

paddle.enable_static()
C = paddle._C_ops
MODELS = {}


def model(name, **info):
    def deco(fn):
        MODELS[name] = (fn, info)
        return fn
    return deco


def rng_for(key):
    import hashlib
    return np.random.default_rng(int(hashlib.sha256(key.encode()).hexdigest()[:8], 16))


class Feeds:
    """f(name, shape, dtype, lens=, value=, lo=, hi=): a feed, with a LoD when `lens` (sequence
    lengths; a list of lists for two levels) is given."""

    def __init__(self, model_name):
        self.model, self.items = model_name, []

    def __call__(self, name, shape, dtype="float32", lens=None, value=None, lo=None, hi=None):
        if value is None:
            r = rng_for(f"{self.model}/{name}")
            value = (r.integers(lo, hi, shape) if lo is not None else r.standard_normal(shape))
        a = np.asarray(value).astype(dtype)
        levels = None if lens is None else (lens if isinstance(lens[0], list) else [lens])
        self.items.append((name, a, levels))
        return paddle.static.data(name, list(a.shape), dtype, lod_level=len(levels or []))

    def feed(self):
        out = {}
        for name, a, levels in self.items:
            if levels is None:
                out[name] = a
            else:
                t = core.LoDTensor()
                t.set(a, core.CPUPlace())
                t.set_recursive_sequence_lengths(levels)
                out[name] = t
        return out

    def npz(self):
        out = {}
        for name, a, levels in self.items:
            out[f"in__{name}"] = a
            for lv, lens in enumerate(levels or []):
                out[("lod__" if lv == 0 else f"lod{lv}__") + name] = np.concatenate(
                    [[0], np.cumsum(lens)]).astype(np.int64)
        return out


# --- the programs ---------------------------------------------------------------------------

POOLS = ("SUM", "AVERAGE", "SQRT", "MAX", "LAST", "FIRST")


@model("sequence_pool__lod")
def _sequence_pool(f):
    # an empty sequence (pad_value), one of one row, one of four; a value between feed and op
    x = paddle.scale(f("x", [7, 3], lens=[2, 0, 1, 4]), 1.5)
    return [C.sequence_pool(x, True, p, 0.5) for p in POOLS]


@model("sequence_pool__lod_2d")
def _sequence_pool_2d(f):
    # rows of [2, 2] (the kernel flattens them); is_test false (max_index computed)
    x = f("x", [6, 2, 2], lens=[3, 3])
    return [C.sequence_pool(x, False, p, 0.0) for p in ("SUM", "MAX", "AVERAGE")]


@model("sequence_pool__lod_two_levels")
def _sequence_pool_two(f):
    # pooling the last level; the result keeps level 0
    x = f("x", [6, 3], lens=[[2, 1], [1, 2, 3]])
    return [C.sequence_pool(x, True, "SUM", 0.0), C.sequence_pool(x, True, "MAX", 0.0)]


@model("sequence_softmax__lod")
def _sequence_softmax(f):
    x = f("x", [8, 1], lens=[3, 1, 4], value=np.array(
        [[0.5], [-1.0], [3.0], [2.0], [-0.25], [10.0], [0.0], [-7.5]], "float32"))
    return [C.sequence_softmax(x), C.sequence_softmax(paddle.scale(x, 2.0))]


@model("sequence_expand__lod")
def _sequence_expand(f):
    x = f("x", [3, 2], lens=[1, 2, 0], value=np.arange(6).reshape(3, 2))
    y = f("y", [5, 2], lens=[2, 0, 3])
    x0 = f("x0", [3, 2])  # no LoD: each row is a sequence
    return [C.sequence_expand(x, y, -1), C.sequence_expand(x0, y, -1)]


@model("sequence_expand__lod_two_levels")
def _sequence_expand_two(f):
    x = f("x", [2, 2])
    y = f("y", [5, 2], lens=[[1, 2], [2, 2, 1]])
    return [C.sequence_expand(x, y, 0),
            C.sequence_expand(f("x1", [3, 2]), y, -1)]


@model("sequence_conv__lod")
def _sequence_conv(f):
    x = f("x", [6, 2], lens=[1, 3, 2])
    w = f("w", [6, 3])
    w5 = f("w5", [10, 3])
    return [C.sequence_conv(x, None, w, 3, False, -1, 1),
            C.sequence_conv(x, None, w, 3, False, 0, 1),
            C.sequence_conv(x, None, w5, 5, False, -2, 1)]


@model("sequence_conv__lod_padding")
def _sequence_conv_pad(f):
    x = f("x", [6, 2], lens=[1, 3, 2])
    w = f("w", [6, 3])
    pad = f("pad", [2, 2])  # up_pad 1 + down_pad 1 rows
    return [C.sequence_conv(x, pad, w, 3, True, -1, 1)]


@model("box_clip__lod")
def _box_clip(f):
    b = f("b", [6, 4], lens=[3, 3], value=rng_for("box_clip/b").random([6, 4]) * 30 - 5)
    im = f("im", [2, 3], value=np.array([[10, 12, 1.0], [20, 16, 2.0]], "float32"))
    return [C.box_clip(b, im)]


@model("fusion_seqpool_concat__lod")
def _fusion_seqpool_concat(f):
    xs = [f("x0", [4, 3], lens=[1, 3]), f("x1", [5, 3], lens=[2, 3])]
    return [C.fusion_seqpool_concat(xs, p, 1) for p in ("SUM", "AVERAGE", "SQRT")]


def _lstm(f, d, **kw):
    x = f("x", [6, 4 * d], lens=[2, 3, 1])
    w, b = f("w", [d, 4 * d]), f("b", [1, 4 * d])
    b7 = f("b7", [1, 7 * d])
    h0, c0 = f("h0", [3, d]), f("c0", [3, d])
    act = ("sigmoid", "tanh", "tanh")
    outs = []
    for args in [(None, None, b, False, False), (None, None, b, False, True),
                 (h0, c0, b, False, False), (h0, c0, b7, True, False),
                 (None, None, b7, True, True)]:
        hh, cc, bb, peep, rev = args
        outs += list(C.lstm(x, hh, cc, w, bb, peep, rev, True, *act))[:2]
    return outs


@model("lstm__lod")
def _lstm2(f):
    # frame size 2: phi's scalar LSTM step (not a multiple of 8, the AVX one's width)
    return _lstm(f, 2)


@model("lstm__lod_avx")
def _lstm8(f):
    # frame size 8: phi's AVX LSTM step (its exp is avx_mathfun's polynomial)
    return _lstm(f, 8)


def _gru(f, d):
    x = f("x", [6, 3 * d], lens=[2, 3, 1])
    w, b = f("w", [d, 3 * d]), f("b", [1, 3 * d])
    h0 = f("h0", [3, d])
    outs = []
    for hh, rev, origin in [(None, False, False), (None, True, False), (h0, False, False),
                            (h0, False, True)]:
        outs.append(C.gru(x, hh, w, b, "tanh", "sigmoid", rev, origin, True)[-1])
    return outs


@model("gru__lod")
def _gru2(f):
    return _gru(f, 2)


@model("gru__lod_avx")
def _gru8(f):
    return _gru(f, 8)


def _beam(f, tag, pre_ids, pre_lens, width, beam, end, accumulated, ids=True):
    """One beam_search step: rows of pre_ids / pre_scores are the live prefixes, two LoD
    levels (sources, then prefixes); ids / scores the candidates of each prefix."""
    rows = len(pre_ids)
    r = rng_for(f"beam/{tag}")
    pi = f(f"pi{tag}", [rows, 1], "int64", lens=pre_lens,
           value=np.array(pre_ids, "int64").reshape(rows, 1))
    ps = f(f"ps{tag}", [rows, 1], lens=pre_lens, value=r.random([rows, 1]) - 1.0)
    i = f(f"i{tag}", [rows, width], "int64", lens=pre_lens, lo=0, hi=9) if ids else None
    sc = f(f"s{tag}", [rows, width], lens=pre_lens,
           value=(r.random([rows, width]) * 2 - 1.5) if accumulated else r.random([rows, width]))
    return list(C.beam_search(pi, ps, i, sc, 0, beam, end, accumulated))


@model("beam_search__lod")
def _beam_search(f):
    outs = []
    # two sources of one prefix each, accumulated scores and log-probabilities
    outs += _beam(f, "a", [1, 2], [[1, 1], [1, 1]], 3, 2, 0, True)
    outs += _beam(f, "b", [1, 2], [[1, 1], [1, 1]], 3, 2, 0, False)
    # a finished prefix (pre_id == end_id) beside a live one; a wide beam
    outs += _beam(f, "c", [0, 3, 4], [[2, 1], [1, 1, 1]], 4, 3, 0, True)
    # a source whose prefixes all ended (pruned: no rows for it) and one still going
    outs += _beam(f, "d", [0, 0, 5], [[2, 1], [1, 1, 1]], 2, 2, 0, True)
    # ties: equal scores across prefixes and candidates
    outs += _beam(f, "e", [1, 2], [[2], [1, 1]], 3, 4, 0, True)
    return outs


@model("fusion_seqconv_eltadd_relu__lod")
def _fusion_seqconv(f):
    # sequences longer than the context and shorter (1 row: phi's other im2col branch)
    x = f("x", [7, 3], lens=[1, 4, 2])
    w, b = f("w", [9, 4]), f("b", [1, 4])
    w5 = f("w5", [15, 4])
    return [C.fusion_seqconv_eltadd_relu(x, w, b, 3, -1, 1)[0],
            C.fusion_seqconv_eltadd_relu(x, w, b, 3, 0, 1)[0],
            C.fusion_seqconv_eltadd_relu(x, w5, b, 5, -2, 1)[0]]


@model("fusion_seqpool_cvm_concat__lod")
def _fusion_seqpool_cvm_concat(f):
    from old_ir_op import old_ir_op, results
    r = rng_for("fusion_seqpool_cvm_concat")
    x0 = f("x0", [4, 3], lens=[1, 3], value=r.random([4, 3]) * 3)
    x1 = f("x1", [5, 3], lens=[2, 3], value=r.random([5, 3]) * 3)
    cvm = f("cvm", [2, 2], value=np.ones([2, 2]))
    outs = []
    for p in ("SUM", "AVERAGE", "SQRT"):
        o = old_ir_op("fusion_seqpool_cvm_concat", {"X": [x0, x1], "CVM": [cvm]}, {"Out": 1},
                      {"pooltype": p, "use_cvm": True, "axis": 1})
        outs += o if isinstance(o, list) else results(o)
    return outs


@model("match_matrix_tensor__lod")
def _match_matrix_tensor(f):
    from old_ir_op import old_ir_op, results
    x = f("x", [5, 3], lens=[1, 2, 2])
    y = f("y", [6, 3], lens=[3, 1, 2])
    outs = []
    for t in (1, 2):
        w = f(f"w{t}", [3, t, 3])
        o = old_ir_op("match_matrix_tensor", {"X": [x], "Y": [y], "W": [w]},
                      {"Out": 1, "Tmp": 1}, {"dim_t": t})
        outs += (o if isinstance(o, list) else results(o))[:1]
    return outs


def _fusion_gru(f, d):
    x = f("x", [6, 3], lens=[2, 3, 1])
    wx, wh, b = f("wx", [3, 3 * d]), f("wh", [d, 3 * d]), f("b", [1, 3 * d])
    h0 = f("h0", [3, d])
    return [C.fusion_gru(x, hh, wx, wh, b, "tanh", "sigmoid", rev, seq, False, False)[-1]
            for hh, rev, seq in [(None, False, True), (None, False, False), (None, True, True),
                                 (h0, False, False), (h0, True, True)]]


@model("fusion_gru__lod")
def _fusion_gru2(f):
    return _fusion_gru(f, 2)


@model("fusion_gru__lod_8")
def _fusion_gru8(f):
    return _fusion_gru(f, 8)


def _fusion_lstm(f, d):
    from old_ir_op import old_ir_op, results
    x = f("x", [6, 3], lens=[2, 3, 1])
    wx, wh = f("wx", [3, 4 * d]), f("wh", [d, 4 * d])
    b4, b7 = f("b4", [1, 4 * d]), f("b7", [1, 7 * d])
    h0, c0 = f("h0", [3, d]), f("c0", [3, d])
    outs = []
    for peep, rev, seq, init in [(False, False, True, False), (False, True, False, False),
                                 (True, False, True, False), (True, False, False, True),
                                 (False, True, True, True)]:
        ins = {"X": [x], "WeightX": [wx], "WeightH": [wh], "Bias": [b7 if peep else b4]}
        if init:
            ins.update({"H0": [h0], "C0": [c0]})
        o = old_ir_op("fusion_lstm", ins,
                      {"Hidden": 1, "Cell": 1, "XX": 1, "BatchedInput": 1, "BatchedHidden": 1,
                       "BatchedCell": 1, "ReorderedH0": 1, "ReorderedC0": 1, "CheckedCell": 1},
                      {"use_peepholes": peep, "is_reverse": rev, "use_seq": seq})
        outs += (o if isinstance(o, list) else results(o))[:2]
    return outs


@model("fusion_lstm__lod")
def _fusion_lstm2(f):
    return _fusion_lstm(f, 2)


@model("fusion_lstm__lod_8")
def _fusion_lstm8(f):
    return _fusion_lstm(f, 8)


def _fused_embedding_fc_lstm(f, d):
    from old_ir_op import old_ir_op, results
    ids = f("ids", [6, 1], "int64", lens=[2, 3, 1], lo=0, hi=7)
    emb, wh = f("emb", [7, 4 * d]), f("wh", [d, 4 * d])
    b4, b7 = f("b4", [1, 4 * d]), f("b7", [1, 7 * d])
    h0, c0 = f("h0", [3, d]), f("c0", [3, d])
    outs = []
    for peep, rev, seq, init in [(False, False, True, False), (False, True, False, False),
                                 (True, False, True, False), (True, False, False, True),
                                 (False, True, True, True)]:
        ins = {"Ids": [ids], "Embeddings": [emb], "WeightH": [wh], "Bias": [b7 if peep else b4]}
        if init:
            ins.update({"H0": [h0], "C0": [c0]})
        o = old_ir_op("fused_embedding_fc_lstm", ins,
                      {"Hidden": 1, "Cell": 1, "XX": 1, "BatchedInput": 1, "BatchedHidden": 1,
                       "BatchedCell": 1, "ReorderedH0": 1, "ReorderedC0": 1},
                      {"use_peepholes": peep, "is_reverse": rev, "use_seq": seq})
        outs += (o if isinstance(o, list) else results(o))[:2]
    return outs


@model("fused_embedding_fc_lstm__lod")
def _fused_embedding_fc_lstm2(f):
    return _fused_embedding_fc_lstm(f, 2)


@model("fused_embedding_fc_lstm__lod_8")
def _fused_embedding_fc_lstm8(f):
    return _fused_embedding_fc_lstm(f, 8)


def _attention_lstm(f, d):
    x = f("x", [6, 3], lens=[2, 3, 1])
    c0, h0 = f("c0", [3, d]), f("h0", [3, d])
    aw, ab = f("aw", [3 + d, 1]), f("ab", [1, 1])
    asc, asb = f("asc", [1, 1], value=np.array([[0.7]])), f("asb", [1, 1], value=np.array([[0.1]]))
    lw, lb = f("lw", [d + 3, 4 * d]), f("lb", [1, 4 * d])
    act = ("sigmoid", "tanh", "tanh")
    outs = []
    for hh, b, sc, sb in [(None, None, None, None), (h0, ab, None, None), (h0, ab, asc, asb)]:
        outs += list(C.attention_lstm(x, c0, hh, aw, b, sc, sb, lw, lb, *act))[:2]
    return outs


@model("attention_lstm__lod")
def _attention_lstm2(f):
    return _attention_lstm(f, 2)


@model("attention_lstm__lod_8")
def _attention_lstm8(f):
    return _attention_lstm(f, 8)


@model("pyramid_hash__lod")
def _pyramid_hash(f):
    # inference (is_training 0), no filter: every n-gram of 2 .. pyramid_layer ids hashed
    # (XXH32) into the weight; a sequence of one id gives a zero row
    x = f("x", [7, 1], "int32", lens=[3, 1, 3], lo=0, hi=50)
    w = f("w", [36, 1])
    wl, bl = f("wl", [0, 1]), f("bl", [0, 1])
    outs = []
    for num_emb, space, layer, rand, drop in [(4, 32, 2, 4, 1.0), (8, 32, 3, 4, 0.5),
                                              (8, 34, 4, 2, 0.25)]:
        outs.append(C.pyramid_hash(x, w, wl, bl, num_emb, space, layer, rand, drop, 0, False,
                                   0, 0, 0, 0.0, "")[0])
    return outs


# --- generation -----------------------------------------------------------------------------

def outs_of(res):
    vals, lods = [], []
    for t in res:
        vals.append(np.array(t))
        lods.append([list(map(int, lv)) for lv in (t.lod() if hasattr(t, "lod") else [])])
    return vals, lods


def meta(a, lod):
    m = {"shape": list(a.shape), "dtype": str(a.dtype)}
    if lod:
        m["lod"] = lod
    return m


def gen_one(name, outdir, ver):
    fn, info = MODELS[name]
    log = dict(info, ok=False)
    main, start = paddle.static.Program(), paddle.static.Program()
    scope = paddle.static.Scope()
    with paddle.static.scope_guard(scope), paddle.utils.unique_name.guard():
        f = Feeds(name)
        with paddle.static.program_guard(main, start):
            fetches = fn(f)
        with open(os.path.join(outdir, f"{name}.{ver}.pir.txt"), "w") as fh:
            fh.write(str(main))
        log["ops_main"] = sorted({o.name() for o in main.global_block().ops})
        log["feed_order"] = [n for n, _, _ in f.items]
        log["feed_lods"] = {n: lv for n, _, lv in f.items if lv}
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(start)
        built, _ = outs_of(exe.run(main, feed=f.feed(), fetch_list=fetches, return_numpy=False))
        feed_vals = [o.result(0) for o in main.global_block().ops if o.name() == "pd_op.data"]
        with tempfile.TemporaryDirectory() as td:
            prefix = os.path.join(td, f"{name}.{ver}")
            paddle.static.save_inference_model(prefix, feed_vals, fetches, exe, program=main)
            log["saved_files"] = sorted(os.listdir(td))
            for fn_ in log["saved_files"]:
                shutil.copy(os.path.join(td, fn_), os.path.join(outdir, fn_))
            with paddle.static.scope_guard(paddle.static.Scope()):
                exe2 = paddle.static.Executor(paddle.CPUPlace())
                prog2, feed_names, targets = paddle.static.load_inference_model(prefix, exe2)
                with open(os.path.join(outdir, f"{name}.{ver}.loaded.pir.txt"), "w") as fh:
                    fh.write(str(prog2))
                log["ops_loaded"] = sorted({o.name() for o in prog2.global_block().ops})
                feed = f.feed()
                outs, lods = outs_of(exe2.run(prog2, feed={k: feed[k] for k in feed_names},
                                              fetch_list=targets, return_numpy=False))
    npz = f.npz()
    for i, (a, lod) in enumerate(zip(outs, lods)):
        npz[f"out__{i}"] = a
        for lv, offs in enumerate(lod):
            npz[("outlod__" if lv == 0 else f"outlod{lv}__") + str(i)] = np.array(offs, np.int64)
    np.savez_compressed(os.path.join(outdir, f"{name}.{ver}.io.npz"), **npz)
    log["loaded_out"] = [meta(a, lod) for a, lod in zip(outs, lods)]
    log["reload_bitexact_vs_built"] = [a.tobytes() == b.tobytes() for a, b in zip(outs, built)]
    log["ok"] = True
    return log


def child(name, outdir, ver, q):
    try:
        q.put(gen_one(name, outdir, ver))
    except BaseException as e:  # noqa: BLE001 - the exception is the evidence
        first = str(e).strip().splitlines()[0][:400] if str(e).strip() else ""
        q.put({**MODELS[name][1], "ok": False, "build_error": f"{type(e).__name__}: {first}",
               "traceback": traceback.format_exc()[-2000:]})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--models", nargs="*")
    args = ap.parse_args()
    ver = paddle.__version__
    outdir = os.path.join(args.out, ver)
    os.makedirs(outdir, exist_ok=True)
    logpath = os.path.join(outdir, f"gen_log.{ver}.lod_feeds.json")
    full = {"paddle_version": ver, "commit": getattr(paddle.version, "commit", None),
            "numpy_version": np.__version__, "python": sys.version.split()[0],
            "date_utc": time.strftime("%Y-%m-%d", time.gmtime()),
            "note": "LoD feeds (LoDTensor, recursive sequence lengths) and return_numpy=False "
                    "fetches; each program built in its own forked child", "models": {}}
    if os.path.exists(logpath):
        with open(logpath) as fh:
            full["models"] = {k: v for k, v in json.load(fh)["models"].items() if k in MODELS}
    ctx = mp.get_context("fork")
    for name in MODELS:
        if args.models and name not in args.models:
            continue
        q = ctx.Queue()
        p = ctx.Process(target=child, args=(name, outdir, ver, q))
        p.start()
        p.join(120)
        r = q.get() if not q.empty() else {**MODELS[name][1], "ok": False,
                                           "child_error": f"exit {p.exitcode}"}
        full["models"][name] = r
        print(f"== {name}: ok={r.get('ok')} {r.get('build_error', '')}", flush=True)
    full["models"] = dict(sorted(full["models"].items()))
    with open(logpath, "w") as fh:
        json.dump(full, fh, indent=1)
        fh.write("\n")


if __name__ == "__main__":
    main()
