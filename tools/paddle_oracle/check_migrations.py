#!/usr/bin/env python3
"""Do the migration fixtures run in real Paddle 3.3.1, with and without pirc's upgrade?

Run from the repo root with pirc's python (pirc is imported through `python -m pirc`);
Paddle runs only in child processes of the scratch venv's python:

    python3 tools/paddle_oracle/check_migrations.py --pd331 /tmp/pd331/bin/python   # ~3 min

For each case of tests/fixtures/migrations/manifest.json (made by gen_migration_fixtures.py):
  1. without pirc: Paddle 3.3.1 loads the ORIGINAL old file (load_inference_model) and runs
     it on the saved inputs (check_json_loads.py in a child process, so a segfault is a
     verdict, not the end of the check);
  2. with pirc: `python -m pirc OLD.json --upgrade -o UP.json` (to version 4), then the same
     load and run of UP.json in Paddle 3.3.1;
  3. pirc-run: `pirc-run UP.json --inputs --outputs` (pirc's own torch lowering).
Outputs are compared with the outputs Paddle 3.0.0 (or the source release) computed: bitexact,
close (atol 1e-5 / rtol 1e-4, pirc.testing.parity's float32 bar) or MISMATCH, with the max abs
error. Writes tests/fixtures/migrations/RESULTS.md and results.json (every verdict and error,
and the sha256 of the JSON pirc wrote: tests/unit/test_migration_fixtures.py fails when
pirc's upgrade output changes, so this check is rerun).
"""
import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FIX = os.path.join(ROOT, "tests", "fixtures", "migrations")
CHECK = os.path.join(HERE, "check_json_loads.py")
ATOL, RTOL = 1e-5, 1e-4


def compare(got, want):
    """(verdict, max abs error) of got against want."""
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape:
        return f"MISMATCH shape {list(got.shape)} vs {list(want.shape)}", None
    if got.dtype != want.dtype:
        return f"MISMATCH dtype {got.dtype} vs {want.dtype}", None
    if got.tobytes() == want.tobytes():
        return "bitexact", 0.0
    if got.dtype.kind not in "fciub":
        return "MISMATCH", None
    g, w = got.astype("float64"), want.astype("float64")
    with np.errstate(invalid="ignore"):
        err = float(np.nanmax(np.abs(g - w))) if g.size else 0.0
    nan_same = np.array_equal(np.isnan(g), np.isnan(w))
    ok = nan_same and bool(np.allclose(g, w, atol=ATOL, rtol=RTOL, equal_nan=True))
    return ("close" if ok else "MISMATCH"), err


def compare_all(outs, io):
    """Compare a list of outputs with io's out__<i>; a summary dict."""
    want = [io[f"out__{i}"] for i in range(sum(k.startswith("out__") for k in io))]
    if not want:
        return {"verdict": "RAN", "detail": "no expected outputs"}
    per = [compare(g, w) for g, w in zip(outs, want)]
    errs = [e for _, e in per if e is not None]
    res = {"per_output": [v for v, _ in per], "max_abs_err": max(errs) if errs else None}
    if len(outs) != len(want):
        res["verdict"] = f"MISMATCH ({len(outs)} outputs, expected {len(want)})"
    elif all(v == "bitexact" for v, _ in per):
        res["verdict"] = "BITEXACT"
    elif all(v in ("bitexact", "close") for v, _ in per):
        res["verdict"] = "CLOSE"
    else:
        res["verdict"] = "MISMATCH"
    return res


def paddle_run(pd, json_path, params, inputs, io, td, tag):
    """Load and run json_path in Paddle (child process); a result dict."""
    rep, outs = os.path.join(td, tag + ".report.json"), os.path.join(td, tag + ".out.npz")
    txt = os.path.join(td, tag + ".pir.txt")
    cmd = [pd, CHECK, "--json", json_path, "--inputs", inputs, "--report", rep,
           "--save-outputs", outs, "--dump-text", txt]
    if params:
        cmd += ["--params", params]
    try:
        cp = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        return {"verdict": "TIMEOUT"}
    if cp.returncode < 0 or not os.path.exists(rep):
        sig = -cp.returncode if cp.returncode < 0 else None
        lines = [ln.strip() for ln in (cp.stdout + cp.stderr).splitlines()
                 if ln.strip() and "Warning" not in ln and "warnings.warn" not in ln]
        fatal = [ln for ln in lines if ln.startswith("FatalError")]
        frames = [ln for ln in lines if ln.split(" ", 1)[0].isdigit()]
        msg = (fatal[-1] if fatal else lines[-1] if lines else "no output")
        if frames:
            msg += " in " + frames[-1].split(None, 1)[1]
        return {"verdict": f"CRASH (signal {sig})" if sig else f"CRASH (exit {cp.returncode})",
                "error": msg[:1500]}
    with open(rep) as fh:
        r = json.load(fh)
    v = r["verdict"]
    if v in ("LOAD_FAIL", "RUN_FAIL", "PRINT_FAIL"):
        return {"verdict": v, "error": r.get("error", "")[:1500]}
    if v == "INPUT_MISSING":
        # nothing to run it on (GPU-only op): keep what Paddle made of the op under test
        with open(txt) as fh:
            printed = [ln.strip() for ln in fh if '"pd_op.' in ln and "pd_op.data" not in ln
                       and "pd_op.fetch" not in ln]
        return {"verdict": "LOADED (not run: GPU-only op)", "loaded_ops": printed}
    got = dict(np.load(outs))
    res = compare_all([got[f"out__{i}"] for i in range(len(got))], io) if io else \
        {"verdict": "RAN"}
    if res["verdict"] == "MISMATCH" and res.get("max_abs_err") is not None:
        res["verdict"] = "WRONG RESULT"
    return res


def pirc_upgrade(src, dst):
    cp = subprocess.run([sys.executable, "-m", "pirc", src, "--upgrade", "-o", dst], cwd=ROOT,
                        capture_output=True, text=True, timeout=300)
    if cp.returncode != 0:
        return {"ok": False, "error": (cp.stderr.strip() or cp.stdout.strip())[-1500:]}
    with open(dst) as fh:
        text = fh.read()
    doc = json.loads(text)
    return {"ok": True, "version": doc["base_code"]["version"],
            "sha256": hashlib.sha256(text.encode()).hexdigest(),
            "ops": [o["#"] for o in doc["program"]["regions"][0]["blocks"][0]["ops"]]}


def pirc_run(prog, params, inputs, io, td, tag):
    outs = os.path.join(td, tag + ".pirc.npz")
    cmd = [sys.executable, "-c", "from pirc.cli.run import main; main()", prog, "--inputs",
           inputs, "--outputs", outs]
    if params:
        cmd += ["--params", params]
    cp = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    if cp.returncode != 0:
        msg = " ".join(ln.strip() for ln in (cp.stderr.strip() or cp.stdout.strip()).splitlines())
        return {"verdict": "FAIL", "error": msg[-1500:]}
    with np.load(outs) as d:
        got = [d[k] for k in d.files]
    return compare_all(got, io) if io else {"verdict": "RAN"}


def check_case(e, pd, td):
    name = e["case"]
    src = os.path.join(FIX, e["files"]["json"])
    params = src[:-len(".json")] + ".pdiparams"
    params = params if os.path.exists(params) else None
    io_path = os.path.join(FIX, e["files"]["io"]) if e["files"].get("io") else None
    io = dict(np.load(io_path)) if io_path else None
    if io_path is None:          # nothing to feed: an empty inputs file (load only)
        io_path = os.path.join(td, name + ".empty.npz")
        np.savez(io_path)
    r = {"case": name}
    r["without_pirc"] = paddle_run(pd, src, params, io_path, io, td, name + ".orig")
    up = os.path.join(td, name + ".upgraded.json")
    r["pirc_upgrade"] = pirc_upgrade(src, up)
    if r["pirc_upgrade"]["ok"]:
        r["with_pirc"] = paddle_run(pd, up, params, io_path, io, td, name + ".up")
        r["pirc_run"] = pirc_run(up, params, io_path, io, td, name)
    else:
        r["with_pirc"] = {"verdict": "not run (pirc upgrade failed)"}
        r["pirc_run"] = {"verdict": "not run (pirc upgrade failed)"}
    return r


def cell(res):
    v = res["verdict"]
    err = res.get("max_abs_err")
    if err is not None and v not in ("BITEXACT",):
        v += f" (max abs err {err:.3g})"
    return v


def first_line(res):
    msg = (res.get("error") or "").strip()
    for ln in msg.splitlines():
        ln = ln.strip()
        if ln and not ln.startswith(("Traceback", "File ", "[", "----", "C++")):
            return ln[:300].replace("|", "\\|")
    return ""


def summary(results, cases):
    """Counts per column, for the top of RESULTS.md."""
    def count(key):
        out = {}
        for r in results:
            v = r[key]["verdict"].split(" (")[0]
            out[v] = out.get(v, 0) + 1
        return ", ".join(f"{n} {v}" for v, n in sorted(out.items(), key=lambda x: -x[1]))
    migrated_by_paddle = sum(cases[r["case"]]["paddle_migrates"] for r in results)
    return [f"{len(results)} cases ({migrated_by_paddle} controls that Paddle's own patches "
            "migrate).", "",
            f"* without pirc: {count('without_pirc')}",
            f"* pirc upgrade: {sum(r['pirc_upgrade']['ok'] for r in results)} of "
            f"{len(results)} ok",
            f"* with pirc: {count('with_pirc')}",
            f"* pirc-run: {count('pirc_run')}"]


def write_results(results, manifest, pd_version, path_md, path_json, date=None):
    cases = {e["case"]: e for e in manifest["cases"]}
    date = date or time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    patch_files = sorted(os.path.relpath(os.path.join(d, f), ROOT)
                         for d, _, fs in os.walk(os.path.join(ROOT, "patches"))
                         for f in fs if f.endswith(".yaml"))
    lines = [
        "# Migration fixtures in real Paddle 3.3.1",
        "",
        f"Run {date} with paddlepaddle {pd_version} (CPU wheel) by "
        "`python3 tools/paddle_oracle/check_migrations.py --pd331 /tmp/pd331/bin/python`; "
        "fixtures from `tools/paddle_oracle/gen_migration_fixtures.py` (Paddle 3.0.0; "
        "`built: hand-written` cases per manifest.json). Patch files present: "
        + ", ".join(patch_files) + ".",
        "",
        *summary(results, cases),
        "",
        "* **without pirc**: Paddle 3.3.1 loads the original old file and runs it.",
        "* **pirc upgrade**: `python -m pirc OLD.json --upgrade -o UP.json`.",
        "* **with pirc**: Paddle 3.3.1 loads UP.json and runs it.",
        "* **pirc-run**: pirc's torch lowering runs UP.json.",
        "",
        "Outputs are compared with the source release's (out__<i> of the .io.npz): BITEXACT, "
        "CLOSE (atol 1e-5, rtol 1e-4), WRONG RESULT / MISMATCH (max abs error given), or the "
        "failure. CRASH (signal 11) is a segfault of the child process.",
        "",
        "| case | class | variant | Paddle migrates | without pirc | pirc upgrade | with pirc "
        "| pirc-run |",
        "|---|---|---|---|---|---|---|---|",
    ]
    notes = []
    for r in results:
        e = cases[r["case"]]
        up = r["pirc_upgrade"]
        upc = f"ok (v{up['version']})" if up["ok"] else "FAILED"
        lines.append(f"| {r['case']} | {e['class']} | {e['variant']} | "
                     f"{'yes' if e['paddle_migrates'] else 'no'} | {cell(r['without_pirc'])} | "
                     f"{upc} | {cell(r['with_pirc'])} | {cell(r['pirc_run'])} |")
        for what, key in (("without pirc", "without_pirc"), ("pirc upgrade", "pirc_upgrade"),
                          ("with pirc", "with_pirc"), ("pirc-run", "pirc_run")):
            msg = first_line(r[key])
            if msg:
                notes.append(f"* {r['case']}, {what}: {msg}")
            for line in r[key].get("loaded_ops", []):
                if e["op"] in line or e["expect"]["op"] in line:
                    ins = line.split('" (', 1)[1].split(") {", 1)[0].split(", ")
                    notes.append(f"* {r['case']}, {what}: loaded as `{line.split(' {')[0]}` "
                                 f"({len(ins)} operands; the 3.3.1 definition has "
                                 f"{e['expect']['operands']})")
    lines += ["", "## Notes from the manifest", ""]
    lines += [f"* {r['case']}: {cases[r['case']]['note']}" for r in results
              if cases[r["case"]].get("note")]
    lines += [f"* {r['case']}: pirc-run not expected: {cases[r['case']]['pirc_run']}"
              for r in results if cases[r["case"]]["pirc_run"] != "expected"]
    lines += ["", "## Errors (first line of each)", ""] + notes
    lines += ["", "## What changed per case (manifest.json)", "",
              "| case | op | source | built | changes (source definition -> 3.3.1) |",
              "|---|---|---|---|---|"]
    for r in results:
        e = cases[r["case"]]
        lines.append(f"| {r['case']} | {e['op']} | {e['source_release']} | {e['built']} | "
                     + "; ".join(e["changes"]).replace("|", "\\|") + " |")
    lines.append("")
    with open(path_md, "w") as fh:
        fh.write("\n".join(lines))
    with open(path_json, "w") as fh:
        json.dump({"date_utc": date, "paddle": pd_version, "results": results}, fh, indent=1)
        fh.write("\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pd331", required=True, help="python of a paddlepaddle 3.3.1 venv")
    ap.add_argument("--cases", nargs="*", help="subset of cases (results of the others kept)")
    ap.add_argument("--out", default=FIX, help="where RESULTS.md / results.json go")
    ap.add_argument("--render-only", action="store_true",
                    help="rewrite RESULTS.md from results.json (no Paddle run)")
    args = ap.parse_args()
    with open(os.path.join(FIX, "manifest.json")) as fh:
        manifest = json.load(fh)
    if args.render_only:
        with open(os.path.join(args.out, "results.json")) as fh:
            saved = json.load(fh)
        write_results(saved["results"], manifest, saved["paddle"],
                      os.path.join(args.out, "RESULTS.md"), os.path.join(args.out, "results.json"),
                      date=saved["date_utc"])
        return
    pd_version = subprocess.run(
        [args.pd331, "-c", "import importlib.metadata as m; print(m.version('paddlepaddle'))"],
        capture_output=True, text=True).stdout.strip()
    path_json = os.path.join(args.out, "results.json")
    old = {}
    if args.cases and os.path.exists(path_json):
        with open(path_json) as fh:
            old = {r["case"]: r for r in json.load(fh)["results"]}
    results = []
    with tempfile.TemporaryDirectory() as td:
        for e in manifest["cases"]:
            if args.cases and e["case"] not in args.cases:
                if e["case"] in old:
                    results.append(old[e["case"]])
                continue
            r = check_case(e, args.pd331, td)
            results.append(r)
            print(f"{e['case']}: without pirc {cell(r['without_pirc'])}; upgrade "
                  f"{'ok' if r['pirc_upgrade']['ok'] else 'FAILED'}; with pirc "
                  f"{cell(r['with_pirc'])}; pirc-run {cell(r['pirc_run'])}", flush=True)
    write_results(results, manifest, pd_version, os.path.join(args.out, "RESULTS.md"), path_json)


if __name__ == "__main__":
    main()
