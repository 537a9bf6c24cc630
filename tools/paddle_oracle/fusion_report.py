#!/usr/bin/env python3
"""The tables docs/FUSION.md quotes, from the committed oracle results (no Paddle needed):

    python tools/paddle_oracle/fusion_report.py            # markdown on stdout

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


def passes_table() -> list[str]:
    docs = load("fusion_passes")
    mapping = yaml.safe_load((ORACLE / "fusion_pass_map.yaml").read_text())
    stats: dict = collections.defaultdict(lambda: collections.defaultdict(dict))
    for release, doc in docs.items():
        fusions = set(doc["registry"]) - set(doc["not_fusions"])
        for name, prog in doc["programs"].items():
            for route in ("pass_manager", "inference"):
                for p, r in prog["routes"][route].items():
                    if p not in fusions:
                        continue
                    s = stats[p][(release, route)]
                    if r.get("match_count") or r.get("produced"):
                        s.setdefault("programs", 0)
                        s["programs"] += 1
                        s["matches"] = s.get("matches", 0) + r.get("match_count", 0)
                        for op, n in r.get("produced", {}).items():
                            if "fused" in op or "fc" in op or op.startswith("onednn_op") or op in (
                                    "pd_op.silu", "pd_op.rms_norm", "pd_op.self_dp_attention",
                                    "pd_op.multihead_matmul", "pd_op.add_group_norm_silu",
                                    "pd_op.fusion_transpose_flatten_concat"):
                                s.setdefault("produced", collections.Counter())[op] += n
                    if "error" in r:
                        s.setdefault("errors", collections.Counter())[r["error"].splitlines()[0][:90]] += 1
    lines = ["| Paddle pass | release | route | programs fired | matches | fused ops produced | errors | pirc |",
             "|---|---|---|---|---|---|---|---|"]
    for p in sorted(stats):
        target = "; ".join(e.get("pirc") or "none: " + e["none"][:60] for e in mapping.get(p, [])) or "UNMAPPED"
        for (release, route), s in sorted(stats[p].items()):
            if not s:
                continue
            prod = ", ".join(f"{op} {n}" for op, n in sorted(s.get("produced", {}).items()))
            errs = "; ".join(f"{n}x {e}" for e, n in sorted(s.get("errors", {}).items()))
            lines.append(f"| `{p}` | {release} | {route} | {s.get('programs', 0)} | {s.get('matches', 0)} "
                         f"| {prod} | {errs} | {target} |")
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


def main() -> None:
    print("## Paddle's fusion passes\n")
    print("\n".join(passes_table()))
    print("\n## oneDNN inference route\n")
    print("\n".join(onednn_table()))
    print("\n## Fused kernels\n")
    print("\n".join(kernels_table()))


if __name__ == "__main__":
    main()
