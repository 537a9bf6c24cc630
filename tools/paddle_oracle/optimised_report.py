"""The log of check_optimised_loads.py: optimised_loads.json (counts per group, pipeline and
parameter mode, and the lines that did not pass or passed as RACE; every line is in the .jsonl) and optimised_loads.md (the same counts, then
every configuration that did not pass, triaged)."""

from __future__ import annotations

import datetime
import json
from collections import Counter
from pathlib import Path

PASS = ("BITEXACT", "ALLCLOSE", "RACE")
GROUPS = ("corpus", "zoo", "generated")


def counts(rows: list[dict]) -> dict:
    """group -> "pipeline/params" -> {cases, pass, bitexact, allclose, fail, verdicts}."""
    table: dict = {}
    for r in rows:
        cell = table.setdefault(r["group"], {}).setdefault(f"{r['pipeline']}/{r['params']}", {
            "cases": 0, "pass": 0, "bitexact": 0, "allclose": 0, "race": 0, "fail": 0, "verdicts": Counter()})
        cell["cases"] += 1
        cell["verdicts"][r["verdict"]] += 1
        if r["verdict"] in PASS:
            cell["pass"] += 1
            cell[{"BITEXACT": "bitexact", "ALLCLOSE": "allclose", "RACE": "race"}[r["verdict"]]] += 1
        else:
            cell["fail"] += 1
    for group in table.values():
        for cell in group.values():
            cell["verdicts"] = dict(sorted(cell["verdicts"].items()))
    return table


def fault(r: dict) -> str:
    """A failing line's triage: `pass` when `--upgrade` alone gives the original's outputs,
    `pre-existing` when it fails too, `paddle` when Paddle cannot run the original."""
    if r["verdict"] == "NO_REFERENCE":
        return "no reference"
    up = (r.get("upgrade_only") or {}).get("verdict")
    if up in PASS:
        return "pass"
    return f"pre-existing (upgrade alone: {up})" if up else "?"


def write_report(dest: Path, rows: dict, info: dict, pd331: str, commit: str) -> None:
    lines_ = sorted(rows.values(), key=lambda r: (GROUPS.index(r["group"]) if r["group"] in GROUPS else 9,
                                                  r["case"], r["pipeline"], r["params"]))
    table = counts(lines_)
    whens = sorted(r["when"] for r in lines_ if r.get("when"))
    commits = Counter(r.get("pirc_commit", "?") for r in lines_)
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    cases = {g: len({r["case"] for r in lines_ if r["group"] == g}) for g in GROUPS}
    (dest / "optimised_loads.json").write_text(json.dumps(
        {"checked_with": "tools/paddle_oracle/check_optimised_loads.py", "written": date,
         "runs_between": [whens[0], whens[-1]] if whens else None, "pirc_commits": dict(commits),
         "paddle": pd331, "cases": cases, "counts": table, **info,
         "every_line": "optimised_loads.jsonl (one JSON object per case x pipeline x params mode)",
         "not_passing": [r for r in lines_ if r["verdict"] not in PASS],
         "race": [r for r in lines_ if r["verdict"] == "RACE"]},
        indent=1, sort_keys=True) + "\n")

    md = ["# Optimised programs in real Paddle 3.3.1",
          "",
          "`python tools/paddle_oracle/check_optimised_loads.py --pd331 PY` (its docstring says what "
          "each case does). Every program goes through `pirc-opt --upgrade -p PIPELINE` without and "
          "(where it has parameters) with `--params`/`--params-out`; real Paddle 3.3.1 runs the optimised "
          "JSON and its outputs are compared with the original program's as Paddle 3.3.1 computes them "
          "(two runs; outputs of random ops and outputs that differ between the runs by shape only).",
          "",
          f"- lines run between {whens[0] if whens else '-'} and {whens[-1] if whens else '-'} UTC; "
          f"pirc commit(s): {', '.join(f'{c} ({n})' for c, n in commits.most_common())}; Paddle 3.3.1 from {pd331}",
          f"- cases: corpus {cases['corpus']} distinct programs"
          + (f" ({info['corpus_duplicates_left_out']} duplicates left out)" if "corpus_duplicates_left_out" in info else "")
          + f", zoo {cases['zoo']} (models x releases 3.3.1, 3.0.0), generated {cases['generated']}",
          ""]
    gen = {r["case"]: r for r in lines_ if r["group"] == "generated"}
    if gen:
        tags = Counter(t for r in gen.values() for t in r.get("tags", ()))
        numpy_ok = Counter(r.get("original_vs_numpy", "-") for r in gen.values())
        md += [f"Generated set: {len(gen)} programs from pirc.testing.strategies; programs holding each "
               "ingredient: " + (", ".join(f"{t} {n}" for t, n in sorted(tags.items())) or "(none recorded)")
               + f"; {len({r['case'] for r in lines_ if r['group'] == 'generated' and r['params'] == 'given'})} "
               "with parameters. "
               "Paddle's outputs of the original against the strategy's own numpy reference: "
               + ", ".join(f"{v} {n}" for v, n in numpy_ok.most_common()) + ".", ""]
    md += ["| group | pipeline / params | configurations | pass | bit-exact | within tolerance | race | fail | verdicts |",
          "|---|---|---|---|---|---|---|---|---|"]
    for g in GROUPS:
        for cfg, cell in sorted(table.get(g, {}).items()):
            md.append(f"| {g} | {cfg} | {cell['cases']} | **{cell['pass']}** | {cell['bitexact']} | "
                      f"{cell['allclose']} | {cell['race']} | {cell['fail']} | "
                      + ", ".join(f"{v} {n}" for v, n in cell["verdicts"].items()) + " |")
    md += ["", "`race`: the optimised program mismatched once, its outputs vary between new Paddle processes "
           "and one of its runs gave the original's (Paddle's executor races on the program itself, "
           "FINDINGS.md e); counted as passing and listed below."]
    raced = [r for r in lines_ if r["verdict"] == "RACE"]
    if raced:
        md += ["", f"## RACE: {len(raced)}", "", "| group | case | pipeline / params | detail |", "|---|---|---|---|"]
        md += [f"| {r['group']} | {r['case']} | {r['pipeline']}/{r['params']} | "
               f"{(r.get('detail') or '').replace('|', chr(92) + '|')[:240]} |" for r in raced]
    failed = [r for r in lines_ if r["verdict"] not in PASS]
    md += ["", f"## Not passing: {len(failed)}", ""]
    if failed:
        by_fault = Counter(fault(r) for r in failed)
        md += ["Triage: " + "; ".join(f"{k}: {n}" for k, n in by_fault.most_common()) + ". `pass` = "
               "the program after `--upgrade` alone gives the original's outputs in Paddle, so a pass "
               "changed the meaning; `pre-existing` = it fails without the pipeline too.", "",
               "| group | case | pipeline / params | verdict | triage | reference | random / nondet. fetches "
               "| rewrites | detail |",
               "|---|---|---|---|---|---|---|---|---|"]
        for r in failed:
            detail = (r.get("detail") or "").replace("|", "\\|").replace("\n", " ")[:200]
            rewrites = ", ".join(f"{k} {v}" for k, v in (r.get("rewrites") or {}).items())
            shape_only = f"{r.get('random_fetches', [])} / {r.get('nondeterministic', [])}"
            md.append(f"| {r['group']} | {r['case']} | {r['pipeline']}/{r['params']} | {r['verdict']} | "
                      f"{fault(r)} | {r.get('reference', '')} | {shape_only} | {rewrites} | {detail} |")
    shaped = [r for r in lines_ if r.get("random_fetches") or r.get("nondeterministic")]
    if shaped:
        md += ["", "Compared by shape only (random ops / nondeterministic between two runs of the "
               "original), per case:", ""]
        seen = set()
        for r in shaped:
            if r["case"] in seen:
                continue
            seen.add(r["case"])
            md.append(f"- {r['case']}: random {r.get('random_fetches', [])}, "
                      f"nondeterministic {r.get('nondeterministic', [])}")
    (dest / "optimised_loads.md").write_text("\n".join(md) + "\n")
