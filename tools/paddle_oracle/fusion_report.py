#!/usr/bin/env python3
"""The tables docs/FUSION.md quotes, from the committed oracle results (no Paddle needed):

    python tools/paddle_oracle/fusion_report.py                            # markdown on stdout
    python tools/paddle_oracle/fusion_report.py --update docs/FUSION.md    # its marked tables

- per Paddle fusion pass that fired anywhere: per release, the programs it fired on, its
  summed match count and the ops it produced, for the PassManager and inference routes, and
  the pirc pass fusion_pass_map.yaml maps it to (or why none);
- the oneDNN inference route: per release, the programs where each pass of its list matched;
- the fused kernels per target, dtype and release: built / ran natively / ran under valgrind.
"""

from __future__ import annotations

import collections
import json
from pathlib import Path

import yaml

ORACLE = Path(__file__).resolve().parent
RESULTS = ORACLE / "results"
RELEASES = ("3.0.0", "3.3.1")


def load(kind: str) -> dict:
    out = {}
    for r in RELEASES:
        p = RESULTS / f"{kind}.{r}.json"
        if p.exists():
            out[r] = json.loads(p.read_text())
    return out


FUSED = ("pd_op.silu", "pd_op.swish", "pd_op.rms_norm", "pd_op.self_dp_attention", "pd_op.multihead_matmul",
         "pd_op.add_group_norm_silu")


def _fused(op: str) -> bool:
    return "fused" in op or "fusion" in op or op == "pd_op.fc" or op in FUSED \
        or op.startswith("onednn_op.fused") or op == "onednn_op.fc"


def passes_table() -> list[str]:
    """One row per Paddle fusion pass: per release, the programs it fired on (PassManager
    route), its summed match count, the fused ops it produced, where the inference route
    (scope and place given) differs, the first error; and the pirc pass it maps to."""
    docs = load("fusion_passes")
    mapping = yaml.safe_load((ORACLE / "fusion_pass_map.yaml").read_text())
    fusions = set()
    for doc in docs.values():
        fusions |= set(doc["registry"]) - set(doc["not_fusions"])
    lines = ["| Paddle pass | " + " | ".join(f"{r}: programs, matches, fused ops" for r in RELEASES)
             + " | pirc |", "|---|" + "---|" * len(RELEASES) + "---|"]
    for p in sorted(fusions):
        cells = []
        for release in RELEASES:
            doc = docs.get(release)
            if doc is None or p not in doc["registry"]:
                cells.append("not in the registry")
                continue
            per = {}
            errors = collections.Counter()
            for route in ("pass_manager", "inference"):
                progs, matches, produced = 0, 0, collections.Counter()
                for prog in doc["programs"].values():
                    r = prog["routes"][route].get(p, {})
                    if r.get("match_count") or r.get("produced"):
                        progs += 1
                        matches += r.get("match_count", 0)
                        produced.update({k: v for k, v in r.get("produced", {}).items() if _fused(k)})
                    if "error" in r:
                        errors[(route, r["error"].splitlines()[0][:110])] += 1
                per[route] = (progs, matches, dict(sorted(produced.items())))
            pm = per["pass_manager"]
            cell = f"{pm[0]}, {pm[1]}" + (", " + ", ".join(f"`{k}` {v}" for k, v in pm[2].items())
                                          if pm[2] else "")
            if per["inference"] != pm:
                inf = per["inference"]
                cell += f" (inference route: {inf[0]}, {inf[1]})"
            for (route, e), n in sorted(errors.items())[:2]:
                cell += f"; {route} error on {n}: {e.replace('|', '/')}"
            cells.append(cell)
        target = "; ".join(f"`{e['pirc']}`" if "pirc" in e else "none: " + e["none"]
                           for e in mapping.get(p, [])) or "UNMAPPED"
        lines.append(f"| `{p}` | " + " | ".join(cells) + f" | {target} |")
    return lines


def onednn_table() -> list[str]:
    docs = load("fusion_passes")
    lines = ["| release | pass | programs matched | matches |", "|---|---|---|---|"]
    for release, doc in docs.items():
        per: dict = collections.defaultdict(lambda: [0, 0])
        for prog in doc["programs"].values():
            for p, n in prog["routes"]["onednn"].get("matches", {}).items():
                per[p][0] += 1
                per[p][1] += n
        for p, (k, n) in sorted(per.items()):
            lines.append(f"| {release} | `{p}` | {k} | {n} |")
    return lines


def kernels_table() -> list[str]:
    docs = load("fused_kernels")
    lines = ["| target | release | registered CPU dtypes | float32 | float64 | float16 | bfloat16 | no AVX-512 (valgrind, float32) |",
             "|---|---|---|---|---|---|---|---|"]
    for release, doc in docs.items():
        reg = doc["registered_cpu_kernels"]
        targets = sorted({k.split(":")[0] for k in doc.get("native", {})})
        for t in targets:
            cells = []
            for d in ("float32", "float64", "float16", "bfloat16"):
                recs = [v for k, v in doc["native"].items() if k.startswith(f"{t}:{d}:")]
                if recs and all(r.get("ran") for r in recs):
                    err = max(r.get("max_rel_err", 0) for r in recs)
                    cells.append(f"runs (rel err {err:.1e})")
                elif any("has no rms_norm" in r.get("error", "") for r in recs):
                    cells.append("no such API")
                elif any(r.get("built") for r in recs):
                    cells.append("builds, fails to run")
                else:
                    cells.append("refused")
            vg = doc.get("valgrind", {}).get(f"{t}:float32:20")
            if vg is None:
                vcell = "-"
            elif vg.get("ran"):
                vcell = "runs"
            elif vg.get("evex_avx512"):
                vcell = f"SIGILL: AVX-512 instruction ({vg['unhandled_instruction'][:24]})"
            else:
                vcell = "fails: " + json.dumps(vg)[:60]
            kern = {"fc": "fc", "fc_relu": "fc", "gelu_erf": "gelu", "gelu_tanh": "gelu",
                    "fused_rms_norm": "rms_norm / fused_rms_norm_quant",
                    "fused_rms_norm_residual": "rms_norm / fused_rms_norm_quant",
                    "rms_norm_api": "rms_norm"}.get(t, t)
            regd = "; ".join(f"{k}: {', '.join(v) or 'none'}" for k, v in reg.items()
                             if k in kern.split(" / "))
            lines.append(f"| `{t}` | {release} | {regd} | " + " | ".join(cells) + f" | {vcell} |")
    return lines


def misses_table() -> list[str]:
    """Per variant of a fusion site: what each release's passes did with it."""
    docs = load("fusion_misses")
    variants = sorted({v for d in docs.values() for v in d["variants"]})
    lines = ["| variant | " + " | ".join(RELEASES) + " |", "|---|" + "---|" * len(RELEASES)]
    for v in variants:
        cells = []
        for release in RELEASES:
            rec = docs.get(release, {}).get("variants", {}).get(v)
            if rec is None:
                cells.append("-")
                continue
            if "crash" in rec:
                cells.append("crash: " + rec["crash"][:80])
                continue
            parts = []
            for p, r in sorted(rec.get("passes", {}).items()):
                if "error" in r:
                    parts.append(f"`{p}` **throws**: {r['error'].splitlines()[0][:120]}")
                else:
                    made = ", ".join(f"`{k}`" for k in r.get("produced", {}) if _fused(k))
                    cell = f"`{p}` {r.get('match_count', 0)}" + (f" -> {made}" if made else "")
                    if "max_abs_diff_vs_unfused" in r:
                        cell += (f" (outputs differ by {r['max_abs_diff_vs_unfused']:g}, "
                                 f"largest {r['max_abs_unfused']:g})")
                    parts.append(cell)
            cells.append("; ".join(parts) or "nothing fires")
        lines.append(f"| `{v}` | " + " | ".join(c.replace("|", "/") for c in cells) + " |")
    return lines


TABLES = {"passes": passes_table, "onednn": onednn_table, "kernels": kernels_table,
          "misses": misses_table}


def update(doc: Path) -> None:
    """Replace each `<!-- fusion_report:NAME -->` ... `<!-- /fusion_report:NAME -->` block."""
    text = doc.read_text()
    for name, fn in TABLES.items():
        begin, end = f"<!-- fusion_report:{name} -->", f"<!-- /fusion_report:{name} -->"
        if begin in text:
            head, rest = text.split(begin, 1)
            _, tail = rest.split(end, 1)
            text = head + begin + "\n" + "\n".join(fn()) + "\n" + end + tail
    doc.write_text(text)


def main() -> None:
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--update", type=Path, help="rewrite the marked tables of this file (docs/FUSION.md)")
    args = ap.parse_args()
    if args.update:
        return update(args.update)
    for name, fn in TABLES.items():
        print(f"## {name}\n")
        print("\n".join(fn()) + "\n")


if __name__ == "__main__":
    main()
