#!/usr/bin/env python3
"""Paddle's own fusion passes on the corpus and the dev zoo: what each one finds, per program.

Run by hand from the repo root with a Paddle 3.x scratch venv's python (paddlepaddle is never a
pirc dependency); pirc runs in its own venv (`--pirc-python`, default .venv/bin/python) only to
list the programs and materialise the zoo's weights (fusion_cases.py):

    /tmp/pd331/bin/python tools/paddle_oracle/paddle_fusion_passes.py     # ~6 min
    /tmp/pd300/bin/python tools/paddle_oracle/paddle_fusion_passes.py
        [--work /tmp/pirc-fusion-oracle] [--zoo2] [--only SUBSTR] [--passes a,b]

Each release runs the programs that release saved (tests/fixtures/corpus/VER, zoo/VER, with
--zoo2 zoo2/VER) and writes `tools/paddle_oracle/results/fusion_passes.VER.json`.

Per program, four routes (each in a child process, so a crash is a verdict, not the end):
- `pass_manager`: every PIR pass of the wheel's registry (the `TouchPirPassRegistrar_*` symbols
  of libpaddle.so, which `REGISTER_IR_PASS` defines), one at a time, on a clone of the loaded
  program through `paddle.pir.PassManager(opt_level=4)` with no attributes (the Python binding
  takes only bool / int / float / str attributes: a pass that needs the parameter scope or the
  place throws or declines here, which is recorded);
- `inference`: the same passes one at a time through `paddle.inference` (PIR on, oneDNN off,
  `enable_custom_passes([PASS], custom_pass_only=True)`), where the predictor hands each pass the
  parameter scope and the place; the program after the pass is the `_optimized.json` the
  predictor saves (`enable_save_optim_model`), written before its own clean-up passes run;
- `onednn`: `paddle.inference` with oneDNN on (`enable_onednn()`), its whole inference pass list
  in the order it runs them (read from its log), and the program it saved;
- `cpu`: `paddle.inference` with oneDNN off and the default pass list.

Counting: Paddle's pass statistics, exactly as the wheel prints them. A `PatternRewritePass`
(every DRR fusion) stores the number of successful rewrites of the greedy driver
(`ApplyPatternsGreedily` -> num_rewrites) as the pass's `__match_count__`
(paddle/pir/src/pass/pass.cc, `PatternRewritePass::Run` -> `AddStatistics`), and the
`PrintStatistics` instrumentation (paddle/pir/src/pass/print_statistics.cc, switched on by
`PassManager.enable_print_statistics()` and by the predictor unless glog info is off) logs
`--- detected [N] subgraphs!` (or `[N/ALL]` / `[N, ALL]` when the pass also sets
`__all_count__`) after a pass that matched, and nothing after one that did not. The pass adaptor
runs a pass again on every op with regions (`pd_op.if`, `pd_op.while`): the counts of all runs
of a pass are added. Each count is checked against the op histogram: `produced` / `removed` are
the op names whose count went up / down (all blocks, nested regions included).

Output, sorted keys: `{"paddle": VER, "pir_version", "machine", "registry": [...], "not_fusions",
"onednn_pass_list", "cpu_pass_list", "programs": {name: {"ops": {op: n}, "routes": {...}}}}`.
Per program, `routes.pass_manager` / `routes.inference` hold `{pass: {match_count, produced,
removed, error, all_count, runs}}` only for the passes that matched, changed the program or
raised (a registry pass absent there ran and declined); `routes.onednn` / `routes.cpu` hold
`matches` ({pass: summed count}), `produced`, `removed` and `error`. Errors are verbatim (first
2000 characters, this run's temporary paths replaced by `<tmp>`).
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "tools" / "paddle_oracle" / "results"
DETECTED = re.compile(r"--- detected \[(\d+)(?:\s*[/,]\s*(\d+))?\] subgraphs!")
RUNNING = re.compile(r"--- Running PIR pass \[([A-Za-z0-9_]+)\]")
SAVED = "Optimized model saved to"
NO_PARAMS_TO_SAVE = "The number of variables to be saved is 0"
ANSI = re.compile(r"\x1b\[[0-9;]*m")
DIALECT_BY_ID = {"0": "builtin", "1": "pd_op", "2": "cf", "3": "custom_op", "4": "dist"}

# Passes of the registry that are not fusions (bookkeeping, layout, precision, memory, clean-up):
# still run and recorded, but flagged so that the mapping table lists only fusions.
NOT_FUSIONS = {
    "add_shadow_output_after_dead_parameter_pass", "auto_layout_insert_pass", "auto_layout_pass",
    "auto_layout_simplify_pass", "auto_mixed_precision_pass", "common_subexpression_elimination_pass",
    "constant_folding_pass", "cpu_bf16_quantize_squash_pass", "cpu_bfloat16_pass",
    "cpu_bfloat16_placement_pass", "cpu_bfloat16_type_placement_pass", "cpu_special_ops_bf16_pass",
    "dead_code_elimination_pass", "delete_assert_op_pass", "delete_quant_dequant_linear_op_pass",
    "delete_weight_dequant_linear_op_pass", "identity_op_clean_pass", "inplace_pass",
    "map_op_to_another_pass", "onednn_placement_pass", "remove_redundant_transpose_pass",
    "replace_fetch_with_shadow_output_pass", "transfer_layout_pass", "depthwise_conv_onednn_pass",
    "fc_onednn_enable_pass", "remove_shadow_feed_pass",
}


# -- shared helpers ----------------------------------------------------------------------------

def json_histogram(path: Path) -> dict[str, int]:
    """Op name -> count over every block of a Paddle PIR JSON file (nested regions included)."""
    doc = json.loads(path.read_text())
    counts: collections.Counter = collections.Counter()

    def block(b):
        for op in b.get("ops", []):
            code = op.get("#", "")
            if code == "p":
                name = "builtin.parameter"
            else:
                dialect, _, rest = code.partition(".")
                name = f"{DIALECT_BY_ID.get(dialect, dialect)}.{rest}" if rest else code
            counts[name] += 1
            for region in op.get("regions", []):
                for b2 in region.get("blocks", []):
                    block(b2)

    for region in doc["program"]["regions"]:
        for b in region["blocks"]:
            block(b)
    return dict(sorted(counts.items()))


def diff(before: dict[str, int], after: dict[str, int]) -> tuple[dict, dict]:
    produced = {k: after.get(k, 0) - before.get(k, 0) for k in after if after.get(k, 0) > before.get(k, 0)}
    removed = {k: before[k] - after.get(k, 0) for k in before if before[k] > after.get(k, 0)}
    return dict(sorted(produced.items())), dict(sorted(removed.items()))


def statistics(log: str) -> dict:
    """From Paddle's PrintStatistics lines: `sequence`, one entry per pass run in log order
    ({pass, match_count[, all_count]}), and `passes`, the same summed per pass name."""
    sequence: list[dict] = []
    for raw in log.splitlines():
        line = ANSI.sub("", raw)
        m = RUNNING.search(line)
        if m:
            sequence.append({"pass": m.group(1), "match_count": 0})
            continue
        m = DETECTED.search(line)
        if m and sequence:
            sequence[-1]["match_count"] += int(m.group(1))
            if m.group(2) is not None:
                sequence[-1]["all_count"] = sequence[-1].get("all_count", 0) + int(m.group(2))
    passes: dict[str, dict] = {}
    for run in sequence:
        ent = passes.setdefault(run["pass"], {"runs": 0, "match_count": 0})
        ent["runs"] += 1
        ent["match_count"] += run["match_count"]
        if "all_count" in run:
            ent["all_count"] = ent.get("all_count", 0) + run["all_count"]
    return {"passes": passes, "sequence": sequence}


@contextlib.contextmanager
def captured(path: Path):
    """Route the process's own stdout and stderr (glog writes to fd 2) into `path`."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    with open(path, "w") as f:
        os.dup2(f.fileno(), 1)
        os.dup2(f.fileno(), 2)
        try:
            yield
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])


def clean_error(text: str, tmp: str) -> str:
    text = ANSI.sub("", text).replace(tmp, "<tmp>")
    text = re.sub(r"/tmp/tmp[A-Za-z0-9_]+", "<tmp>", text)
    return text.strip()[:2000]


def registry(paddle) -> list[str]:
    """The PIR passes this wheel registers: REGISTER_IR_PASS(name, ...) defines
    `TouchPirPassRegistrar_<name>()`, exported from libpaddle.so."""
    so = Path(paddle.__file__).parent / "base" / "libpaddle.so"
    out = subprocess.run(["nm", "-D", "--defined-only", str(so)], capture_output=True, text=True,
                         check=True).stdout
    names = set(re.findall(r"_Z\d+TouchPirPassRegistrar_([A-Za-z0-9_]+?)v\b", out))
    return sorted(names)


# -- the child: one program, a list of (route, pass) jobs ---------------------------------------

def child(args) -> None:
    import warnings

    warnings.simplefilter("ignore")
    import paddle
    import paddle.inference as pi

    case = json.loads(args.child)
    jobs = json.loads(Path(args.jobs).read_text())
    out = open(args.results, "a")
    tmp = tempfile.mkdtemp(prefix="pirc-fo-")
    prefix = os.path.join(tmp, "model")
    shutil.copy(ROOT / case["json"], prefix + ".json")
    params = prefix + ".pdiparams" if case["params"] else ""
    if params:
        shutil.copy(case["params"] if os.path.isabs(case["params"]) else ROOT / case["params"], params)
    before = json_histogram(Path(prefix + ".json"))

    def emit(rec):
        out.write(json.dumps(rec, sort_keys=True) + "\n")
        out.flush()

    paddle.enable_static()
    program = None
    loaded: dict[str, int] = {}

    def load():
        scope = paddle.static.Scope()
        with paddle.static.scope_guard(scope):
            exe = paddle.static.Executor(paddle.CPUPlace())
            prog, _, _ = paddle.static.load_inference_model(prefix, exe)
        return prog

    def mem_histogram(prog) -> dict[str, int]:
        counts: collections.Counter = collections.Counter()

        def walk(block):
            for op in block.ops:
                counts[op.name()] += 1
                for b in op.blocks():
                    walk(b)

        walk(prog.global_block())
        return dict(sorted(counts.items()))

    for i, (route, name) in enumerate(jobs):
        print(f"@@START {route} {name}", flush=True)
        rec = {"route": route, "pass": name}
        log = Path(tmp) / f"log{i}.txt"
        t0 = time.time()
        try:
            if route == "pass_manager":
                if program is None:
                    program = load()
                    loaded = mem_histogram(program)
                    if loaded != before:  # the loaded program is the file's: say so if not
                        emit({"route": "load", "pass": "", "loaded_ops": loaded})
                clone = program.clone()
                with captured(log):
                    pm = paddle.pir.PassManager(opt_level=4)
                    pm.add_pass(name, {})
                    pm.enable_print_statistics()
                    pm.run(clone)
                after = mem_histogram(clone)
                stats = statistics(log.read_text())["passes"].get(name, {"runs": 0, "match_count": 0})
                rec.update(stats)
                rec["produced"], rec["removed"] = diff(loaded, after)
            else:
                cfg = pi.Config(prefix + ".json", params)
                cfg.disable_gpu()
                cfg.enable_new_ir(True)
                cfg.set_cpu_math_library_num_threads(1)
                # 3.3.1 renamed enable_mkldnn / disable_mkldnn to *_onednn (3.0.0 has only those)
                on = getattr(cfg, "enable_onednn", None) or cfg.enable_mkldnn
                off = getattr(cfg, "disable_onednn", None) or cfg.disable_mkldnn
                if route == "onednn":
                    on()
                elif route == "cpu":
                    off()
                else:
                    off()
                    cfg.enable_custom_passes([name], True)
                cfg.enable_save_optim_model(True)
                opt = os.path.join(tmp, f"opt{i}")
                cfg.set_optim_cache_dir(opt)
                try:
                    with captured(log):
                        pi.create_predictor(cfg)
                except Exception as e:  # noqa: BLE001 -- the passes may have run before it
                    rec["error"] = clean_error(f"{type(e).__name__}: {e}", tmp)
                    if not params and NO_PARAMS_TO_SAVE in rec["error"]:
                        # The predictor cannot save a program without parameters; its passes
                        # ran (the log has their counts): the main record says so once.
                        del rec["error"]
                        rec["unsaved"] = True
                text = log.read_text()
                head = text.split(SAVED)[0]  # the passes before the optimised model was saved
                stats = statistics(head)
                saved = Path(opt) / "_optimized.json"
                if route == "inference":
                    rec.update(stats["passes"].get(name, {"runs": 0, "match_count": 0}))
                else:
                    rec["sequence"] = stats["sequence"]
                if saved.exists():
                    rec["produced"], rec["removed"] = diff(before, json_histogram(saved))
                elif "error" not in rec and not rec.get("unsaved"):
                    rec["error"] = "no _optimized.json was saved"
        except Exception as e:  # noqa: BLE001 -- every failure is a verdict
            rec["error"] = clean_error(f"{type(e).__name__}: {e}", tmp)
        rec["secs"] = round(time.time() - t0, 3)
        emit(rec)
    shutil.rmtree(tmp, ignore_errors=True)


# -- the driver ----------------------------------------------------------------------------------

def compact_pass_route(by_pass: dict) -> dict:
    """Only the passes that matched, changed the program or raised; a registry pass absent
    here ran and declined (no match, no change, no error). `runs` is kept only where a pass
    ran more than once (the pass adaptor's nested regions)."""
    out: dict = {}
    for name, r in sorted(by_pass.items()):
        r = {k: v for k, v in r.items() if k != "unsaved"}
        if not r.get("match_count") and not r.get("produced") and not r.get("removed") \
                and "error" not in r:
            continue
        out[name] = {k: v for k, v in r.items() if not (k == "runs" and v == 1)
                     and not (k in ("produced", "removed") and not v)}
    return out


def collapse_unloadable(entry: dict) -> None:
    """Where the predictor could not load the program at all (Paddle 3.0.0 with a program
    without parameters: it opens the empty parameter path), every inference job failed with
    the same error before any pass ran: say so once (`predictor_error`) instead of per pass."""
    inf = entry["routes"]["inference"]
    errors = {r.get("error") for r in inf.values()} | {entry["routes"][r].get("error")
                                                       for r in ("onednn", "cpu")}
    ran = any(r.get("match_count") or r.get("runs") for r in inf.values())
    if len(errors) == 1 and None not in errors and not ran and inf:
        entry["predictor_error"] = errors.pop()
        entry["routes"]["inference"] = {}
        entry["routes"]["onednn"] = {}
        entry["routes"]["cpu"] = {}


def compact_list_route(r: dict) -> dict:
    """A whole pass list: its order (`passes`, names as the log listed them) and the match
    count of each pass that matched (`matches`, summed over repeated runs)."""
    seq = r.pop("sequence", [])
    matches: dict = {}
    for run in seq:
        if run["match_count"]:
            matches[run["pass"]] = matches.get(run["pass"], 0) + run["match_count"]
    return {**r, "passes": [run["pass"] for run in seq], "matches": dict(sorted(matches.items()))}


def run_case(case: dict, jobs: list, work: Path) -> list[dict]:
    """Run `jobs` for one program in child processes; a child that dies marks its current job
    CRASH and a new child takes the rest."""
    results: list[dict] = []
    pending = list(jobs)
    while pending:
        jobs_file = work / "jobs.json"
        res_file = work / "child.jsonl"
        jobs_file.write_text(json.dumps(pending))
        res_file.write_text("")
        proc = subprocess.run([sys.executable, __file__, "--child", json.dumps(case), "--jobs",
                               str(jobs_file), "--results", str(res_file)],
                              capture_output=True, text=True, cwd=ROOT, timeout=1800)
        got = [json.loads(x) for x in res_file.read_text().splitlines() if x.strip()]
        done = {(r["route"], r["pass"]) for r in got}
        results += got
        if proc.returncode == 0:
            break
        started = [(ln.split(" ") + [""])[1:3] for ln in proc.stdout.splitlines()
                   if ln.startswith("@@START")]
        last = tuple(started[-1]) if started else None
        if last is None or tuple(last) in done:
            raise SystemExit(f"{case['name']}: child failed before a job: {proc.stderr[-2000:]}")
        tail = [ANSI.sub("", ln) for ln in proc.stderr.splitlines() if ln.strip()][-3:]
        results.append({"route": last[0], "pass": last[1],
                        "error": f"CRASH: exit {proc.returncode}; last log lines: "
                                 + clean_error(" | ".join(tail), str(work))})
        i = pending.index([last[0], last[1]])
        pending = pending[i + 1:]
    return results


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "pirc-fusion-oracle")
    ap.add_argument("--pirc-python", default=".venv/bin/python")
    ap.add_argument("--zoo2", action="store_true")
    ap.add_argument("--only", help="only programs whose name contains this")
    ap.add_argument("--passes", help="comma-separated pass names (default: the whole registry)")
    ap.add_argument("--out", type=Path, help="default results/fusion_passes.VER.json")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--jobs", help=argparse.SUPPRESS)
    ap.add_argument("--results", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return child(args)

    import warnings

    warnings.simplefilter("ignore")
    import paddle

    release = paddle.__version__
    out_path = args.out or RESULTS / f"fusion_passes.{release}.json"
    args.work.mkdir(parents=True, exist_ok=True)
    prep = [args.pirc_python, str(ROOT / "tools" / "paddle_oracle" / "fusion_cases.py"),
            "--work", str(args.work)] + (["--zoo2"] if args.zoo2 else [])
    subprocess.run(prep, check=True, cwd=ROOT)
    cases = [c for c in json.loads((args.work / "cases.json").read_text())
             if c["release"] == release and (not args.only or args.only in c["name"])]
    passes = args.passes.split(",") if args.passes else registry(paddle)
    jobs = [["onednn", ""], ["cpu", ""]]
    jobs += [["pass_manager", p] for p in passes] + [["inference", p] for p in passes]

    doc = {"paddle": release, "machine": {"cpu_avx512f": "avx512f" in Path("/proc/cpuinfo").read_text(),
                                            "arch": platform.machine()},
           "registry": registry(paddle), "not_fusions": sorted(NOT_FUSIONS & set(registry(paddle))),
           "programs": {}}
    if out_path.exists() and (args.only or args.passes):  # a partial rerun keeps the others
        old = json.loads(out_path.read_text())
        doc["programs"] = old.get("programs", {})
    for n, case in enumerate(cases, 1):
        t0 = time.time()
        src = ROOT / case["json"]
        pir_version = json.loads(src.read_text())["base_code"].get("version")
        doc["pir_version"] = pir_version
        results = run_case(case, jobs, args.work)
        entry = {"group": case["group"], "json": case["json"], "ops": json_histogram(src),
                 "routes": {"pass_manager": {}, "inference": {}}}
        old = doc["programs"].get(case["name"], {}).get("routes", {}) if args.passes else {}
        for route in ("pass_manager", "inference"):
            entry["routes"][route].update(old.get(route, {}))
        for r in results:
            if r["route"] == "load":
                entry["loaded_ops"] = r["loaded_ops"]
                continue
            r = {k: v for k, v in r.items() if k not in ("secs",)}
            route, name = r.pop("route"), r.pop("pass")
            if route in ("onednn", "cpu"):
                entry["routes"][route] = compact_list_route(r)
            else:
                entry["routes"][route][name] = r
        if any(r.get("unsaved") for r in results):
            entry["unsaved"] = ("paddle.inference cannot save a program without parameters ('"
                                + NO_PARAMS_TO_SAVE + "'): the counts of its routes come from "
                                "the log, no op histogram after them")
        for route in ("onednn", "cpu"):
            entry["routes"][route].pop("unsaved", None)
            listed = entry["routes"][route].get("passes")
            # the list the predictor ran, once per release; a program whose log differs
            # (regions run the list again) keeps its own
            doc.setdefault(f"{route}_pass_list", listed)
            if listed == doc[f"{route}_pass_list"]:
                entry["routes"][route].pop("passes", None)
        for route in ("pass_manager", "inference"):
            entry["routes"][route] = compact_pass_route(entry["routes"][route])
        collapse_unloadable(entry)
        for route in ("onednn", "cpu"):
            if route not in entry["routes"] and route in old:
                entry["routes"][route] = old[route]
        doc["programs"][case["name"]] = entry
        fired = sorted(p for p, r in entry["routes"]["inference"].items()
                       if p != "declined" and r.get("match_count") and p not in NOT_FUSIONS)
        print(f"[{n}/{len(cases)}] {case['name']}: {time.time() - t0:.1f}s; fusions that fired "
              f"(inference route): {', '.join(fired) or 'none'}", flush=True)
    doc["programs"] = dict(sorted(doc["programs"].items()))
    out_path.parent.mkdir(parents=True, exist_ok=True)
    out_path.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
    print(f"wrote {out_path}")


if __name__ == "__main__":
    main()
