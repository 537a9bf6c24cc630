#!/usr/bin/env python3
"""Answer PIR JSON format questions by editing generated fixtures and loading them in Paddle.

    /tmp/pd331/bin/python tools/paddle_oracle/probe_formats.py --fixtures tests/fixtures/generated/3.3.1
    /tmp/pd300/bin/python tools/paddle_oracle/probe_formats.py --fixtures tests/fixtures/generated/3.0.0

Needs the fixtures from gen_fixtures.py for the same Paddle version (nan_attr, nan_f32, floats,
negzero, vecops). Every variant is loaded in a child process through check_json_loads.py (a bad
variant may crash Paddle). Writes FIXTURES/probes/probe_formats.VER.json (verdict, error,
first output values, and for place/layout variants the printed line, per variant).
"""
import argparse
import importlib.metadata
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
CHECK = os.path.join(HERE, "check_json_loads.py")
VER = importlib.metadata.version("paddlepaddle")


def run_check(json_text, params, inputs, expect_key, tag, outdir, td, keep_text=True):
    jp = os.path.join(td, f"{tag}.json")
    with open(jp, "w") as f:
        f.write(json_text)
    rp = os.path.join(td, f"{tag}.report.json")
    tp = os.path.join(td, f"{tag}.txt")
    op = os.path.join(td, f"{tag}.out.npz")
    cmd = [sys.executable, CHECK, "--json", jp, "--inputs", inputs, "--expect-key", expect_key,
           "--report", rp, "--dump-text", tp, "--save-outputs", op]
    if params:
        cmd += ["--params", params]
    cp = subprocess.run(cmd, capture_output=True, text=True)
    res = {"exit": cp.returncode}
    if os.path.exists(rp):
        with open(rp) as f:
            rep = json.load(f)
        res.update({k: rep.get(k) for k in ("verdict", "detail", "error")})
        res["outputs"] = rep.get("outputs")
    else:
        res["verdict"] = "CRASH"
        res["stderr_tail"] = cp.stderr[-1500:]
    if os.path.exists(op):
        outs = dict(np.load(op, allow_pickle=True))
        vals = {}
        for k in sorted(outs):
            a = outs[k]
            if a.dtype.kind in "fiub":
                vals[k] = [repr(float(v)) for v in a.reshape(-1)[:4]]
            else:
                vals[k] = f"dtype {a.dtype}: {repr(a.reshape(-1)[:4])[:200]}"
        res["values"] = vals
    if os.path.exists(tp):
        with open(tp) as f:
            res["text"] = f.read()
        if keep_text:
            with open(os.path.join(outdir, f"{tag}.{VER}.loaded.pir.txt"), "w") as f:
                f.write(res["text"])
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fixtures", required=True, help="tests/fixtures/generated/VER")
    args = ap.parse_args()
    fx = args.fixtures
    outdir = os.path.join(fx, "probes")
    os.makedirs(outdir, exist_ok=True)
    P = lambda n, ext: os.path.join(fx, f"{n}.{VER}.{ext}")  # noqa: E731
    results = {"paddle_version": VER}

    with tempfile.TemporaryDirectory() as td:
        # ---- a. NaN spellings ------------------------------------------------------------
        for model in ("nan_attr", "nan_f32"):
            src = open(P(model, "json")).read()
            assert '"VD":"NaN"' in src
            variants = {
                "VD_NaN(as written)": src,
                "VD_NAN": src.replace('"VD":"NaN"', '"VD":"NAN"'),
                "VD_nan": src.replace('"VD":"NaN"', '"VD":"nan"'),
                "VD_Nan": src.replace('"VD":"NaN"', '"VD":"Nan"'),
                "D_NaN_literal": src.replace('"VD":"NaN"', '"D":NaN'),
                "D_str_NaN": src.replace('"VD":"NaN"', '"D":"NaN"'),
                "D_str_nan": src.replace('"VD":"NaN"', '"D":"nan"'),
                "D_0_plus_VD_NaN": src.replace('"VD":"NaN"', '"D":0.0,"VD":"NaN"'),
            }
            res = {}
            for name, text in variants.items():
                tag = f"{model}__{re.sub(r'[^A-Za-z0-9_]', '', name)}"
                r = run_check(text, None, P(model, "io.npz"), "built_out__", tag, outdir, td,
                              keep_text=False)
                r.pop("text", None)
                res[name] = r
            results[f"a_nan_spellings_{model}"] = res

        # ---- a. inf spellings (floats: out 0 f32 full inf, 1 -inf, 19 scale.bias f32 inf,
        #         20 f64 full inf, 21 f64 full -inf)
        src = open(P("floats", "json")).read()
        assert '"VD":"INF"' in src

        def inf_variant(pos, neg):
            return src.replace('"VD":"-INF"', neg).replace('"VD":"INF"', pos)
        variants = {
            "VD_INF(as written)": src,
            "VD_inf": inf_variant('"VD":"inf"', '"VD":"-inf"'),
            "VD_Inf": inf_variant('"VD":"Inf"', '"VD":"-Inf"'),
            "VD_Infinity": inf_variant('"VD":"Infinity"', '"VD":"-Infinity"'),
            "D_Infinity_literal": inf_variant('"D":Infinity', '"D":-Infinity'),
            "D_1e999": inf_variant('"D":1e999', '"D":-1e999'),
            "D_str_INF": inf_variant('"D":"INF"', '"D":"-INF"'),
            "D_DBL_MAX": inf_variant('"D":1.7976931348623157e+308',
                                     '"D":-1.7976931348623157e+308'),
        }
        res = {}
        for name, text in variants.items():
            tag = f"floats__{re.sub(r'[^A-Za-z0-9_]', '', name)}"
            r = run_check(text, P("floats", "pdiparams"), P("floats", "io.npz"), "built_out__",
                          tag, outdir, td, keep_text=False)
            r.pop("text", None)
            if "values" in r:
                r["values"] = {k: v for k, v in r["values"].items()
                               if k in ("out__0", "out__1", "out__19", "out__20", "out__21")}
            if r.get("outputs"):
                r["outputs"] = [o for o in r["outputs"] if o["i"] in (0, 1, 19, 20, 21)]
            res[name] = r
        results["a_inf_spellings_floats"] = res

        # ---- b. place attribute values (print only; run may fail) ------------------------
        src = open(P("negzero", "json")).read()
        m = re.search(r'"1\.a_place","D":\[0,0,""\]', src)
        assert m
        res = {}
        for d in ([0, 0, ""], [1, 0, ""], [2, 0, ""], [2, 3, ""], [3, 0, ""], [4, 0, ""],
                  [5, 0, ""], [6, 0, ""], [7, 0, ""], [8, 0, ""], [9, 0, "npu"],
                  [9, 1, "custom_cpu"], [99, 0, ""]):
            text = src[:m.start()] + '"1.a_place","D":' + json.dumps(d, separators=(",", ":")) \
                + src[m.end():]
            tag = "place_" + "_".join(str(x) for x in d if x != "")
            r = run_check(text, None, P("negzero", "io.npz"), "out__", tag, outdir, td,
                          keep_text=False)
            lines = [ln.strip() for ln in r.pop("text", "").splitlines() if "place:" in ln]
            r["first_place_line"] = lines[0] if lines else None
            r.pop("values", None)
            r.pop("outputs", None)
            res[json.dumps(d)] = r
        results["b_place_values"] = res

        # ---- b. layout field of t_dtensor (does the text show it?) ----------------------
        src = open(P("negzero", "json")).read()
        res = {}
        for lay in ("NCHW", "NHWC", "NDHWC", "ANY", "UNDEFINED", "ONEDNN", "STRIDED", "bogus"):
            text = src.replace('"NCHW"', json.dumps(lay), 1)
            tag = f"layout_{lay}"
            r = run_check(text, None, P("negzero", "io.npz"), "out__", tag, outdir, td,
                          keep_text=False)
            t = r.pop("text", "")
            r["first_op_line"] = next((ln.strip() for ln in t.splitlines() if "pd_op" in ln),
                                      None)
            r.pop("values", None)
            r.pop("outputs", None)
            res[lay] = r
        results["b_dtensor_layout_field"] = res

        # ---- d. extra keys ---------------------------------------------------------------
        src = json.load(open(P("vecops", "json")))
        res = {}
        v1 = json.loads(json.dumps(src))
        v1["base_code"]["pirc"] = {"writer": "pirc", "version": "0.1", "nested": [1, 2]}
        v2 = json.loads(json.dumps(src))
        v2["pirc_meta"] = {"source": "x.mlir"}
        v3 = json.loads(json.dumps(v1))
        v3["pirc_meta"] = {"source": "x.mlir"}
        v4 = json.loads(json.dumps(src))
        ops = v4["program"]["regions"][0]["blocks"][0]["ops"]
        for op in ops:
            if op["#"] != "p":
                op["pirc_loc"] = "x.mlir:1:1"
        v5 = json.loads(json.dumps(src))
        v5["program"]["pirc_note"] = 1
        v5["program"]["regions"][0]["pirc_note"] = 1
        v5["program"]["regions"][0]["blocks"][0]["pirc_note"] = 1
        for name, obj in (("base_code_extra_key", v1), ("top_level_extra_key", v2),
                          ("both", v3), ("op_level_extra_key", v4),
                          ("program_region_block_extra_key", v5)):
            r = run_check(json.dumps(obj, separators=(",", ":")), P("vecops", "pdiparams"),
                          P("vecops", "io.npz"), "out__", f"extra_{name}", outdir, td,
                          keep_text=False)
            r.pop("text", None)
            r.pop("values", None)
            r.pop("outputs", None)
            res[name] = r
        results["d_extra_keys_vecops"] = res

    out = os.path.join(outdir, f"probe_formats.{VER}.json")
    with open(out, "w") as f:
        json.dump(results, f, indent=1)
        f.write("\n")
    # short summary
    for sect, res in results.items():
        if not isinstance(res, dict):
            continue
        print(f"== {sect}")
        for k, r in res.items():
            extra = r.get("first_place_line") or r.get("first_op_line") or ""
            print(f"  {k:28s} {r.get('verdict')}  {str(r.get('detail'))[:110]}  {extra[:150]}")
            if "values" in r:
                print("      ", json.dumps(r["values"])[:400])


if __name__ == "__main__":
    main()
