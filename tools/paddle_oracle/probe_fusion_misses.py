#!/usr/bin/env python3
"""Where Paddle's own fusion patterns miss: small programs, one variant of a fusion site each,
through the Paddle pass that should fuse it.

Run by hand from the repo root with a Paddle 3.x scratch venv's python (~30 s):

    /tmp/pd331/bin/python tools/paddle_oracle/probe_fusion_misses.py
    /tmp/pd300/bin/python tools/paddle_oracle/probe_fusion_misses.py

Each variant (`VARIANTS`: RMSNorm in both operand orders, epsilon by `scale` and by `add`,
with a residual add, `x * x` for the square; silu in both orders; matmul + 1-D / 2-D bias in
both orders, with relu / gelu after; the erf and tanh gelu compositions; silu(a) * b; and near
misses: pow exponent 3, mean over axis 1, epsilon outside the sqrt) is built as a static
program in its own child process, and each pass of `PASSES` runs on a clone of it through
`paddle.pir.PassManager` with `enable_print_statistics()` (the count is Paddle's own
`--- detected [N] subgraphs!`, as paddle_fusion_passes.py reads it). Recorded per variant and
pass that matched, changed the program or raised: match count, ops produced and removed, the
error verbatim. (Whether fused programs give the unfused outputs is check_fused_loads.py's.)

Output: `results/fusion_misses.VER.json` (sorted keys).
"""

from __future__ import annotations

import argparse
import collections
import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from paddle_fusion_passes import captured, clean_error, statistics  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "tools" / "paddle_oracle" / "results"
PASSES = ("add_norm_fuse_pass", "silu_fuse_pass", "matmul_add_act_fuse_pass",
          "fc_activation_fuse_pass", "fused_rotary_position_embedding_pass",
          "multihead_matmul_fuse_pass", "self_attention_fuse_pass")
EPS = 1e-6
H = 16


def build(variant: str, fetch: bool = False):
    """The variant's program: (main program, startup, feeds {name: array}, fetch list). With
    `fetch`, the outputs get `pd_op.fetch` ops, as a saved program has: the greedy driver of a
    pass erases ops whose results nothing uses, which would empty a program without them."""
    import numpy as np
    import paddle
    import paddle.nn.functional as F

    rng = np.random.default_rng(3)
    feeds = {}

    def data(name, shape):
        feeds[name] = rng.standard_normal(shape).astype("float32")
        return paddle.static.data(name, shape, "float32")

    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        if not variant.startswith("fc/"):
            x, w = data("x", [2, 4, H]), data("w", [H])
        if variant == "rms/near_pow3":  # positive inputs: the unfused mean of x^3 is then > 0
            feeds["x"] = np.abs(feeds["x"]) + 0.1
        ms = lambda t: paddle.mean(paddle.pow(t, 2.0), axis=-1, keepdim=True)  # noqa: E731
        if variant == "rms/rsqrt_x_w":           # rsqrt(mean(x^2) + eps) * x * w, eps by scale
            out = paddle.rsqrt(paddle.scale(ms(x), 1.0, EPS)) * x * w
        elif variant == "rms/x_rsqrt_w":         # x * rsqrt(...) * w: LLaMA's order
            out = x * paddle.rsqrt(paddle.scale(ms(x), 1.0, EPS)) * w
        elif variant == "rms/w_x_rsqrt":         # w * (x * rsqrt(...))
            out = w * (x * paddle.rsqrt(paddle.scale(ms(x), 1.0, EPS)))
        elif variant == "rms/eps_by_add":        # eps added with add of a full
            eps = paddle.full([1], EPS, "float32")
            out = paddle.rsqrt(paddle.add(ms(x), eps)) * x * w
        elif variant == "rms/eps_by_add_x_first":
            eps = paddle.full([1], EPS, "float32")
            out = x * paddle.rsqrt(paddle.add(ms(x), eps)) * w
        elif variant == "rms/square_by_multiply":  # x * x instead of pow(x, 2)
            out = paddle.rsqrt(paddle.scale(paddle.mean(x * x, -1, keepdim=True), 1.0, EPS)) * x * w
        elif variant == "rms/residual":          # (a + b) normalised, the sum also returned
            r = data("r", [2, 4, H])
            s = x + r
            out = [paddle.rsqrt(paddle.scale(ms(s), 1.0, EPS)) * s * w, s]
        elif variant == "rms/residual_x_first":
            r = data("r", [2, 4, H])
            s = x + r
            out = [s * paddle.rsqrt(paddle.scale(ms(s), 1.0, EPS)) * w, s]
        elif variant == "rms/near_pow3":         # near miss: x^3
            out = paddle.rsqrt(paddle.scale(paddle.mean(paddle.pow(x, 3.0), -1, keepdim=True), 1.0, EPS)) * x * w
        elif variant == "rms/near_mean_axis1":   # near miss: mean over another axis
            out = paddle.rsqrt(paddle.scale(paddle.mean(paddle.pow(x, 2.0), 1, keepdim=True), 1.0, EPS)) * x * w
        elif variant == "rms/near_eps_outside":  # near miss: rsqrt(mean) + eps
            out = paddle.scale(paddle.rsqrt(ms(x)), 1.0, EPS) * x * w
        elif variant == "rms/near_no_keepdim":   # near miss: mean without keepdim (then unsqueeze)
            out = paddle.unsqueeze(paddle.rsqrt(paddle.scale(paddle.mean(paddle.pow(x, 2.0), -1), 1.0, EPS)), -1) * x * w
        elif variant == "layer_norm/residual":   # add + layer_norm
            r, b = data("r", [2, 4, H]), data("b", [H])
            s = x + r
            out = [F.layer_norm(s, [H], w, b, 1e-5), s]
        elif variant == "layer_norm/residual_norm_only":  # the sum used by the norm alone
            r, b = data("r", [2, 4, H]), data("b", [H])
            out = F.layer_norm(x + r, [H], w, b, 1e-5)
        elif variant == "rms/residual_norm_only":
            r = data("r", [2, 4, H])
            s = x + r
            out = paddle.rsqrt(paddle.scale(ms(s), 1.0, EPS)) * s * w
        elif variant == "layer_norm/residual_r_first":
            r, b = data("r", [2, 4, H]), data("b", [H])
            s = r + x
            out = [F.layer_norm(s, [H], w, b, 1e-5), s]
        elif variant == "silu/x_sigmoid":
            out = x * F.sigmoid(x)
        elif variant == "silu/sigmoid_x":
            out = F.sigmoid(x) * x
        elif variant == "swiglu/silu_a_b":
            r = data("r", [2, 4, H])
            out = F.silu(x) * r
        elif variant == "gelu/erf":
            out = 0.5 * x * (1.0 + paddle.erf(x / np.sqrt(2.0)))
        elif variant == "gelu/tanh":
            out = 0.5 * x * (1.0 + paddle.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * paddle.pow(x, 3.0))))
        elif variant.startswith("fc/"):
            a = data("a", [4, H])
            wm = paddle.static.create_parameter([H, 8], "float32", name="fc_w")
            bias = data("bias", [8] if "bias2d" not in variant else [4, 8])
            mm = paddle.matmul(a, wm)
            y = paddle.add(bias, mm) if "bias_first" in variant else paddle.add(mm, bias)
            out = F.relu(y) if "relu" in variant else F.gelu(y) if "gelu" in variant else y
        else:
            raise SystemExit(f"unknown variant {variant}")
        outs = out if isinstance(out, list) else [out]
        if fetch:
            for i, o in enumerate(outs):
                paddle._pir_ops.fetch(o, f"out{i}", i)
    return main, startup, feeds, outs


VARIANTS = ("rms/rsqrt_x_w", "rms/x_rsqrt_w", "rms/w_x_rsqrt", "rms/eps_by_add",
            "rms/eps_by_add_x_first", "rms/square_by_multiply", "rms/residual",
            "rms/residual_x_first", "rms/residual_norm_only", "rms/near_pow3", "rms/near_mean_axis1", "rms/near_eps_outside",
            "rms/near_no_keepdim", "layer_norm/residual", "layer_norm/residual_norm_only",
            "layer_norm/residual_r_first",
            "silu/x_sigmoid", "silu/sigmoid_x", "swiglu/silu_a_b", "gelu/erf", "gelu/tanh",
            "fc/bias1d", "fc/bias_first", "fc/bias1d_relu", "fc/bias1d_gelu", "fc/bias2d")


def histogram(prog) -> dict:
    counts: collections.Counter = collections.Counter()

    def walk(block):
        for op in block.ops:
            counts[op.name()] += 1
            for b in op.blocks():
                walk(b)

    walk(prog.global_block())
    return dict(counts)


def child(variant: str) -> None:
    import warnings

    warnings.simplefilter("ignore")
    import paddle

    paddle.enable_static()
    main, _, _, _ = build(variant, fetch=True)
    before = histogram(main)
    rec = {"ops": dict(sorted(before.items())), "passes": {}}
    tmp = tempfile.mkdtemp(prefix="pirc-fm-")
    for name in PASSES:
        clone = main.clone()
        log = Path(tmp) / f"{name}.log"
        r: dict = {}
        try:
            with captured(log):
                pm = paddle.pir.PassManager(opt_level=4)
                pm.add_pass(name, {})
                pm.enable_print_statistics()
                pm.run(clone)
            r["match_count"] = statistics(log.read_text())["passes"].get(name, {}).get("match_count", 0)
        except Exception as e:  # noqa: BLE001 -- the verdict
            r["error"] = clean_error(f"{type(e).__name__}: {e}", tmp)
            rec["passes"][name] = r
            continue
        after = histogram(clone)
        produced = {k: v - before.get(k, 0) for k, v in after.items() if v > before.get(k, 0)}
        removed = {k: v - after.get(k, 0) for k, v in before.items() if v > after.get(k, 0)}
        if produced or removed:
            r["produced"], r["removed"] = dict(sorted(produced.items())), dict(sorted(removed.items()))
        if r.get("match_count") or "produced" in r:
            if r.get("produced"):
                r.update(numeric(paddle, *build(variant), name, tmp))
            rec["passes"][name] = r
    print("@@REC " + json.dumps(rec, sort_keys=True), flush=True)


def numeric(paddle, main, startup, feeds, outs, name: str, tmp: str) -> dict:
    """The variant saved as an inference model and run by two predictors, one with only
    `name` (custom_pass_only) and one with no pass: the largest difference of their outputs,
    or the error of the fused one (a fused op without a CPU kernel)."""
    import numpy as np
    import paddle.inference as pi

    prefix = str(Path(tmp) / f"model_{name}")
    exe = paddle.static.Executor(paddle.CPUPlace())
    scope = paddle.static.Scope()
    with paddle.static.scope_guard(scope):
        exe.run(startup)
        feed_vars = [v for v in main.global_block().ops if v.name() == "pd_op.data"]
        feed_vars = [op.result(0) for op in feed_vars if not op.result(0).use_empty()]
        paddle.static.save_inference_model(prefix, feed_vars, outs, exe, program=main)

    def run(passes):
        cfg = pi.Config(prefix + ".json", prefix + ".pdiparams" if Path(prefix + ".pdiparams").exists() else "")
        cfg.disable_gpu()
        cfg.enable_new_ir(True)
        cfg.enable_custom_passes(passes, True)
        cfg.set_cpu_math_library_num_threads(1)
        with captured(Path(tmp) / "pred.log"):
            pred = pi.create_predictor(cfg)
        for n in pred.get_input_names():
            pred.get_input_handle(n).copy_from_cpu(feeds[n])
        pred.run()
        return [pred.get_output_handle(n).copy_to_cpu() for n in pred.get_output_names()]

    try:
        ref = run([])
    except Exception as e:  # noqa: BLE001
        return {"numeric": "the unfused program did not run: " + clean_error(f"{type(e).__name__}: {e}", tmp)[:300]}
    try:
        got = run([name])
    except Exception as e:  # noqa: BLE001
        return {"numeric": "the fused program did not run: " + clean_error(f"{type(e).__name__}: {e}", tmp)[:300]}
    diff = max(float(np.max(np.abs(g.astype("float64") - r.astype("float64")))) for g, r in zip(got, ref))
    scale = max(float(np.max(np.abs(r))) for r in ref)
    if not (np.isfinite(diff) and np.isfinite(scale)):
        return {"numeric": f"non-finite outputs: max |diff| {diff}, max |unfused| {scale}"}
    return {"max_abs_diff_vs_unfused": float(f"{diff:.3g}"), "max_abs_unfused": float(f"{scale:.3g}")}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--only", help="variants, comma-separated")
    args = ap.parse_args()
    if args.child:
        return child(args.child)
    import warnings

    warnings.simplefilter("ignore")
    import paddle

    doc = {"paddle": paddle.__version__, "passes": list(PASSES), "variants": {}}
    for variant in (args.only.split(",") if args.only else VARIANTS):
        proc = subprocess.run([sys.executable, __file__, "--child", variant], capture_output=True,
                              text=True, cwd=ROOT, timeout=600)
        line = [ln for ln in proc.stdout.splitlines() if ln.startswith("@@REC ")]
        if line:
            rec = json.loads(line[-1][6:])
        else:
            tail = [ln for ln in proc.stderr.splitlines() if ln.strip()][-3:]
            rec = {"crash": f"exit {proc.returncode}: " + " | ".join(tail)[:600]}
        doc["variants"][variant] = rec
        fired = {p: r.get("match_count", r.get("error", "")[:60]) for p, r in rec.get("passes", {}).items()}
        if "crash" in rec:
            fired = rec["crash"][-300:]
        print(f"{variant}: {fired}", flush=True)
    out = RESULTS / f"fusion_misses.{paddle.__version__}.json"
    out.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
