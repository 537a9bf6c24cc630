#!/usr/bin/env python3
"""Real Paddle 3.3.1 is the oracle for pirc's passes: does an optimised program compute what
Paddle computes for the original?

Run by hand from the repo root with pirc's python (pirc runs as `python -m pirc` from this
checkout; Paddle only in child processes of a scratch venv's python, never a pirc dependency):

    python tools/paddle_oracle/check_optimised_loads.py --pd331 /work/venvs/pd331/bin/python \
        [--groups corpus,zoo,generated] [--generated 500] [--jobs 2] [--only SUBSTR] [--limit N]
        [--pipelines default,inference] [--work /tmp/pirc-oracle-work] [--out tools/paddle_oracle/results]
        [--rerun-failed] [--recheck] [--report-only]

Cases (optimised_cases.py): every corpus program with recorded inputs, every dev-zoo model of
both releases (weights materialised as `.pdiparams` by tools/zoo_weights.py), and a generated
set drawn from pirc.testing.strategies (JSON + params + feeds written under --work).  Each case
runs in up to four configurations, pipeline x parameters:

    pirc-opt P.json --upgrade -p PIPE -o OUT.json                                  (params: none)
    pirc-opt P.json --upgrade -p PIPE --params P.pdiparams --params-out O.pdiparams -o OUT.json
                                                                                  (params: given)

PIPE is `default` and `inference`; the second form only for programs with parameters.  Real
Paddle 3.3.1 (paddle_worker.py, one long-lived process per job slot) loads OUT.json with the
parameters pirc wrote (`--params-out`) or, without `--params`, the original ones, runs it on the
case's inputs, and compares each output with the ORIGINAL program's as Paddle 3.3.1 computes it
here, from two independent loads and runs of the original:
- outputs that depend on a random op (tainted forward from the ops dialects/effects.yaml calls
  random, and dropout with is_test false, as the tests' `random_fetches` does; through operands,
  writes of in-place ops and control-flow regions) and outputs whose two original runs differ are
  compared by shape and dtype only; after a mismatch the original runs 10 more times (4 in the
  same Paddle process, 6 each in a new one: Paddle's executor races a read of a name against an
  in-place write of its buffer, and some races show only across processes) and outputs that
  differ between any of its runs join the shape-only set; a mismatch that remains runs the
  optimised program 4 more times in new processes, and when its outputs vary and one run gives
  the original's, the verdict is RACE (Paddle races on the program itself; counted as passing,
  listed apart);
- the others bit for bit, else within (rtol, atol): 1e-5 / 1e-6 for corpus and generated
  programs, the zoo's float32-network bound (tests/fixtures/zoo/parity.yaml) for the zoo, where
  conv-bn-fold and param-fold reassociate float32 arithmetic.
Where Paddle cannot run the original (the NaN-attribute fixtures), the reference is the outputs
recorded when the program was made (`reference: recorded`).  A configuration that does not pass
is triaged: the case is run through `--upgrade` alone and compared the same way, so the log tells
a pass's fault (`upgrade_only` passes) from one already there (`upgrade_only` fails too).

Results: one JSON line per case x configuration, appended to --out/optimised_loads.jsonl as each
finishes; a rerun skips the lines already there whose source (program + params + inputs sha256)
is unchanged (`--rerun-failed` redoes the failing ones; `--recheck` re-runs pirc for every
line that passed with another pirc (git trees of pirc/, dialects/, patches/, pipelines/) and calls
Paddle again only where pirc's output (sha256 of JSON + params) changed).  Then
optimised_loads.json (every line, with per-group counts) and optimised_loads.md
(optimised_report.py) are rewritten from the whole file.
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import os
import queue
import select
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from optimised_cases import Case, corpus_cases, generated_cases, zoo_cases  # noqa: E402
from optimised_report import write_report  # noqa: E402

WORKER = Path(__file__).with_name("paddle_worker.py")
PIRC_WORKER = Path(__file__).with_name("pirc_worker.py")
PIPELINES = ("default", "inference")
PASS = ("BITEXACT", "ALLCLOSE", "RACE")
TOLERANCE = {"corpus": (1e-5, 1e-6), "generated": (1e-5, 1e-6)}  # zoo: parity.yaml
RECORDED_OLDER = (1e-4, 1e-5)  # check_migrations.py's, for outputs an older Paddle recorded
EXTRA_RUNS, FRESH_RUNS = 4, 6
OPTIMISED_RUNS = 4  # new-process runs of an optimised program that still mismatches  # more runs of the original after a mismatch (`widen`)
WORKER_RESTART = 150  # requests per Paddle process: bounds what one process accumulates
PIRC_TIMEOUT, PADDLE_TIMEOUT = 900, 900
ENV = dict(os.environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1", MKL_NUM_THREADS="1",
           OPENBLAS_NUM_THREADS="1", GLOG_minloglevel="2", FLAGS_call_stack_level="0")

_pirc_lock = threading.Lock()  # pirc's in-process uses (taint) from the job threads


def zoo_tolerance() -> tuple[float, float]:
    import yaml

    default = yaml.safe_load((ROOT / "tests/fixtures/zoo/parity.yaml").read_text())["default"]
    return default["rtol"], default["atol"]


def sha256_files(*paths) -> str:
    """The first 80 bits of the sha256 of the files' bytes: enough to see a change, and the
    log holds two per line."""
    h = hashlib.sha256()
    for p in paths:
        h.update(Path(p).read_bytes() if p is not None else b"-")
    return h.hexdigest()[:20]


# -- real Paddle ----------------------------------------------------------------------------------

class LineWorker:
    """A long-lived child (paddle_worker.py, pirc_worker.py): one JSON request per line in, one
    `@@RESULT` line out; restarted every WORKER_RESTART requests and after one that fails to
    answer (a crash or a timeout)."""

    def __init__(self, cmd: list, log: Path, env: dict):
        self.cmd, self.log, self.env, self.proc, self.served = cmd, log, env, None, 0

    def _start(self):
        self.proc = subprocess.Popen(self.cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=open(self.log, "ab"), env=self.env, cwd=ROOT)
        self.served, self.buf = 0, b""
        line = self._line(300)
        if not line or not line.startswith("@@READY"):
            raise SystemExit(f"{' '.join(self.cmd)}: did not start (see {self.log})")

    def _line(self, timeout: float) -> str | None:
        """The next `@@` line; None after `timeout`, "" when the process died.  Reads the pipe
        unbuffered into our own buffer: a buffered readline after select() would leave a
        second line in Python's buffer, where select() cannot see it."""
        deadline = time.time() + timeout
        fd = self.proc.stdout.fileno()
        while True:
            while b"\n" in self.buf:
                raw, self.buf = self.buf.split(b"\n", 1)
                line = raw.decode("utf-8", "replace")
                if line.startswith("@@"):
                    return line
            left = deadline - time.time()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                return None
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                return ""
            self.buf += chunk

    def stop(self):
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None

    def request(self, req: dict, timeout: float) -> dict:
        """The answer, or {"died": "CRASH" | "TIMEOUT", "error": ...}."""
        if self.proc is None or self.served >= WORKER_RESTART:
            self.stop()
            self._start()
        self.served += 1
        try:
            self.proc.stdin.write((json.dumps(req) + "\n").encode())
            self.proc.stdin.flush()
        except BrokenPipeError:
            pass  # it died after its last answer: _line sees the end of file
        line = self._line(timeout)
        if not line:
            code = self.proc.poll()
            self.stop()
            return {"died": "CRASH" if line == "" else "TIMEOUT",
                    "error": f"exit status {code}" if line == "" else f"no answer in {timeout} s"}
        return json.loads(line[len("@@RESULT "):])


class Slot:
    """One job slot: a real-Paddle worker and a pirc worker, used by one thread at a time."""

    def __init__(self, python: str, logdir: Path, k: int):
        self.python, self.log = python, logdir / f"paddle-worker-{k}.log"
        self.paddle = LineWorker([python, str(WORKER)], self.log, ENV)
        self.pirc = LineWorker([sys.executable, str(PIRC_WORKER)], logdir / f"pirc-worker-{k}.log", ENV)

    def run(self, program: Path, params: Path | None, inputs: Path, save: Path) -> dict:
        """Paddle 3.3.1 loads `program` (+ params) afresh, runs it on `inputs`, saves the outputs."""
        req = {"json": str(program), "params": str(params) if params else None,
               "inputs": str(inputs), "save": str(save)}
        got = self.paddle.request(req, PADDLE_TIMEOUT)
        if "died" in got:
            return {"verdict": got["died"], "error": "Paddle process: " + got["error"]}
        if got.get("flags_left_changed"):  # a flag it could not set back: a new process next time
            self.paddle.stop()
        return got

    def opt(self, argv: list) -> subprocess.CompletedProcess:
        """`pirc-opt ARGV` (pirc.cli.opt.run in pirc_worker.py)."""
        got = self.pirc.request({"argv": [str(a) for a in argv]}, PIRC_TIMEOUT)
        if "died" in got:
            return subprocess.CompletedProcess(argv, 124 if got["died"] == "TIMEOUT" else 70, "",
                                               f"pirc worker: {got['error']}")
        return subprocess.CompletedProcess(argv, got["rc"], "", got["stderr"])

    def fresh_run(self, program: Path, params: Path | None, inputs: Path, save: Path) -> dict:
        """As `run`, in a Paddle process of its own (started and stopped for this one run)."""
        one = LineWorker([self.python, str(WORKER)], self.log, ENV)
        try:
            req = {"json": str(program), "params": str(params) if params else None,
                   "inputs": str(inputs), "save": str(save)}
            got = one.request(req, PADDLE_TIMEOUT)
        finally:
            one.stop()
        return {"verdict": got["died"], "error": got["error"]} if "died" in got else got

    def stop(self):
        self.paddle.stop()
        self.pirc.stop()


# -- pirc ----------------------------------------------------------------------------------------

def random_fetches(program_path: Path) -> list[int]:
    """Fetch columns of the original program that depend on a random op (tests/unit/
    test_parity_corpus.py's `random_fetches`, widened): an op is random when
    dialects/effects.yaml says it makes a new random value on every run, dropout only when
    is_test is false; taint flows through operands, from an in-place op to the operand it writes,
    and from any op inside a region to the op that holds the region."""
    import pirc
    from pirc.ir.effects import effect_of

    def random(op) -> bool:
        if op.name == "pd_op.dropout":
            attr = op.attributes.get("is_test")
            return not bool(getattr(getattr(attr, "value", None), "data", False))
        spec = getattr(type(op), "spec", None)
        return spec is not None and "random" in effect_of(spec).why

    with _pirc_lock:
        program = pirc.load(str(program_path))
        ops = list(program.walk())
        tainted_ops, tainted = set(), set()
        changed = True
        while changed:  # to a fixed point: regions and in-place writes flow backwards in print order
            changed = False
            for op in ops:
                hit = (op in tainted_ops or random(op) or any(v in tainted for v in op.operands)
                       or any(inner in tainted_ops for r in op.regions for inner in r.walk()))
                if not hit:
                    continue
                new = set(op.results) | (set(op.operands) if op.name.endswith("_") else set())
                if op not in tainted_ops or not new <= tainted:
                    tainted_ops.add(op)
                    tainted |= new
                    changed = True
        cols = []
        fetches = [op for op in ops if op.name == "pd_op.fetch"]
        for i, op in enumerate(fetches):
            if op in tainted_ops:
                col = op.attributes.get("col")
                cols.append(int(col.value.data) if col is not None and hasattr(col, "value") else i)
        return sorted(cols)


# -- comparison -----------------------------------------------------------------------------------

def load_outputs(npz: Path) -> list[np.ndarray]:
    with np.load(npz) as data:
        keys = sorted((k for k in data.files if k.startswith("out__")), key=lambda k: int(k[5:]))
        return [data[k] for k in keys]


def recorded_outputs(case: Case) -> list[np.ndarray]:
    with np.load(case.recorded) as data:
        keys = sorted((k for k in data.files if k.startswith(case.key) and k[len(case.key):].isdigit()),
                      key=lambda k: int(k[len(case.key):]))
        return [data[k] for k in keys]


def compare(got: list, want: list, shape_only: set, tol: tuple[float, float]) -> dict:
    """Verdict of `got` against the reference `want`, output by output."""
    rtol, atol = tol
    if len(got) != len(want):
        return {"verdict": "MISMATCH", "detail": f"{len(got)} outputs, the original has {len(want)}"}
    bad, inexact, worst = [], 0, 0.0
    for i, (g, w) in enumerate(zip(got, want)):
        if g.shape != w.shape or g.dtype != w.dtype:
            bad.append(f"out {i}: {g.dtype}{list(g.shape)} vs {w.dtype}{list(w.shape)}")
            continue
        if i in shape_only or g.tobytes() == w.tobytes():
            continue
        if g.dtype.kind in "fc":
            with np.errstate(all="ignore"):
                same_nan = np.array_equal(np.isnan(g), np.isnan(w))
                close = same_nan and bool(np.allclose(g, w, rtol=rtol, atol=atol, equal_nan=True))
                fin = np.isfinite(w) & np.isfinite(g)
                d = float(np.max(np.abs(g[fin].astype(np.complex128) - w[fin].astype(np.complex128)),
                                 initial=0.0))
            worst = max(worst, d)
            if close:
                inexact += 1
                continue
            bad.append(f"out {i}: max abs diff {d:.3g} (max |ref| "
                       f"{float(np.max(np.abs(w[np.isfinite(w)]), initial=0.0)):.3g})")
        else:
            bad.append(f"out {i}: {int(np.sum(g != w))} of {g.size} elements differ ({g.dtype})")
    entry = {"outputs": len(got), "max_abs_diff": worst}
    if bad:
        return {**entry, "verdict": "MISMATCH", "detail": "; ".join(bad)[:400]}
    return {**entry, "verdict": "ALLCLOSE" if inexact else "BITEXACT",
            "detail": f"{len(got)} outputs, {inexact} within tolerance, {len(shape_only & set(range(len(got))))} by shape"}


# -- one case ---------------------------------------------------------------------------------------

class Checker:
    def __init__(self, args, rows: dict, out_file: Path, commit: str):
        self.args, self.rows, self.out_file, self.commit = args, rows, out_file, commit
        self.tree = pirc_tree()
        self.work = Path(args.work)
        self.write_lock = threading.Lock()
        self.zoo_tol = zoo_tolerance()
        self.triaged: dict = {}

    def configs(self, case: Case) -> list[tuple[str, str]]:
        modes = ["none", "given"] if case.params is not None else ["none"]
        return [(p, m) for p in self.args.pipelines for m in modes]

    def case_dir(self, case: Case) -> Path:
        d = self.work / "cases" / case.group / hashlib.sha256(case.name.encode()).hexdigest()[:16]
        d.mkdir(parents=True, exist_ok=True)
        return d

    def tolerance(self, case: Case) -> tuple[float, float]:
        return self.zoo_tol if case.group == "zoo" else TOLERANCE[case.group]

    def reference(self, case: Case, worker: Slot, source: str) -> dict:
        """The original's outputs in Paddle 3.3.1 here (two independent runs), cached per source."""
        d = self.case_dir(case)
        meta = d / "reference.json"
        if meta.exists():
            ref = json.loads(meta.read_text())
            if ref.get("source") == source and ref["kind"] == "paddle":  # else: try Paddle again
                return ref
        runs = []
        for k in (1, 2):
            runs.append(worker.run(case.program, case.params, case.inputs, d / f"original{k}.npz"))
        ref = {"source": source, "runs": [r["verdict"] for r in runs],
               "error": next((r.get("error", "")[:300] for r in runs if r["verdict"] != "RAN"), None)}
        ref["random"] = random_fetches(case.program)
        if all(r["verdict"] == "RAN" for r in runs):
            a, b = load_outputs(d / "original1.npz"), load_outputs(d / "original2.npz")
            ref["kind"] = "paddle"
            if case.group == "generated":  # the strategy's numpy reference against Paddle itself
                ref["original_vs_numpy"] = compare(a, recorded_outputs(case), set(ref["random"]),
                                                   RECORDED_OLDER)["verdict"]
            ref["nondeterministic"] = [i for i, (x, y) in enumerate(zip(a, b))
                                       if x.shape != y.shape or x.tobytes() != y.tobytes()]
            if len(a) != len(b):
                ref["nondeterministic"] += list(range(min(len(a), len(b)), max(len(a), len(b))))
        elif case.recorded is not None and case.group != "generated":
            ref["kind"], ref["nondeterministic"] = "recorded", []
        else:
            ref["kind"], ref["nondeterministic"] = "none", []
        meta.write_text(json.dumps(ref))
        return ref

    def expected(self, case: Case, ref: dict) -> tuple[list, tuple[float, float]]:
        if ref["kind"] == "paddle":
            return load_outputs(self.case_dir(case) / "original1.npz"), self.tolerance(case)
        tol = self.tolerance(case) if case.outputs_from == "3.3.1" else RECORDED_OLDER
        return recorded_outputs(case), tol

    def widen(self, case: Case, ref: dict, worker: Slot) -> bool:
        """After a mismatch: more independent runs of the original, EXTRA_RUNS in this worker and
        FRESH_RUNS each in a new Paddle process (some of Paddle's races show only across
        processes); outputs that differ between any two runs join `nondeterministic`.  Whether
        that set grew (the mismatch is then judged again)."""
        done = ref.get("runs_total", 2)
        if ref["kind"] != "paddle" or done >= 2 + EXTRA_RUNS + FRESH_RUNS:
            return False
        d = self.case_dir(case)
        base = load_outputs(d / "original1.npz")
        before = set(ref["nondeterministic"])
        nondet, verdicts = set(before), []
        for k in range(done + 1, 3 + EXTRA_RUNS + FRESH_RUNS):
            save = d / f"original{k}.npz"
            run = worker.run if k < 3 + EXTRA_RUNS else worker.fresh_run
            r = run(case.program, case.params, case.inputs, save)
            verdicts.append(r["verdict"])
            if r["verdict"] == "RAN":
                other = load_outputs(save)
                nondet |= {i for i, (x, y) in enumerate(zip(base, other))
                           if x.shape != y.shape or x.tobytes() != y.tobytes()}
        ref["nondeterministic"], ref["runs_total"] = sorted(nondet), done + len(verdicts)
        ref["runs"] = ref["runs"] + verdicts
        (d / "reference.json").write_text(json.dumps(ref))
        return nondet != before

    def judge(self, case: Case, ref: dict, got: Path) -> dict:
        if ref["kind"] == "none":
            return {"verdict": "NO_REFERENCE", "detail": f"the original does not run in Paddle: {ref['error']}"}
        want, tol = self.expected(case, ref)
        shape_only = set(ref["random"]) | set(ref["nondeterministic"])
        return compare(load_outputs(got), want, shape_only, tol)

    def optimise(self, case: Case, pipeline: str | None, mode: str, d: Path,
                 worker: Slot) -> tuple[dict, Path, Path | None]:
        tag = f"{pipeline or 'upgrade'}.{mode}"
        out, report = d / f"{tag}.json", d / f"{tag}.passes.json"
        argv = [case.program, "--upgrade"]
        if pipeline:
            argv += ["-p", pipeline, "--pass-report", report]
        params = case.params
        if mode == "given":
            params = d / f"{tag}.pdiparams"
            argv += ["--params", case.params, "--params-out", params]
        for f in (out, report, params if mode == "given" else None):
            if f is not None and f.exists():
                f.unlink()
        t0 = time.time()
        run = worker.opt([*argv, "-o", out])
        entry = {"pirc_rc": run.returncode, "pirc_secs": round(time.time() - t0, 2)}
        if run.returncode != 0:
            err = run.stderr.strip().splitlines()
            entry.update(verdict="PIRC_FAIL", detail=(err[-1] if err else "")[:400])
            return entry, out, params
        entry["sha256"] = sha256_files(out, params if mode == "given" else None)
        if report.exists():
            passes = json.loads(report.read_text()).get("passes", [])
            entry["rewrites"] = {p["name"]: p["rewrites"] for p in passes if p.get("rewrites")}
            if passes:
                entry["ops"] = [passes[0].get("ops_before"), passes[-1].get("ops_after")]
        return entry, out, params

    def check(self, case: Case, pipeline: str, mode: str, ref: dict, worker: Slot,
              old: dict | None) -> dict:
        d = self.case_dir(case)
        entry, out, params = self.optimise(case, pipeline, mode, d, worker)
        if entry.get("verdict") == "PIRC_FAIL":
            return entry
        if (old is not None and old.get("sha256") == entry["sha256"] and "paddle" in old
                and old["verdict"] in PASS):
            entry.update({k: old[k] for k in ("verdict", "detail", "outputs", "max_abs_diff", "paddle")
                          if k in old})
            entry["reused"] = True
            return entry
        got = d / f"{pipeline}.{mode}.out.npz"
        result = worker.run(out, params, case.inputs, got)
        entry["paddle"] = result["verdict"]
        if result["verdict"] != "RAN":
            entry.update(verdict=result["verdict"], detail=(result.get("error") or "")[:400])
            return entry
        entry.update(self.judge(case, ref, got))
        if entry["verdict"] == "MISMATCH" and self.widen(case, ref, worker):
            entry.update(self.judge(case, ref, got))
        if entry["verdict"] == "MISMATCH" and ref["kind"] == "paddle":
            entry.update(self.rerun_optimised(case, ref, worker, out, params, got, entry))
        return entry

    def rerun_optimised(self, case: Case, ref: dict, worker: Slot, out: Path, params: Path | None,
                        got: Path, entry: dict) -> dict:
        """A mismatch that the original's own runs do not explain: run the OPTIMISED program in
        OPTIMISED_RUNS new Paddle processes.  When its outputs vary between those runs and one of
        them gives the original's outputs, Paddle itself races on the program (FINDINGS.md e):
        verdict RACE (counted as passing, listed apart).  Otherwise the mismatch stands."""
        seen, first = [load_outputs(got)], None
        for k in range(OPTIMISED_RUNS):
            again = got.with_name(got.name.replace(".out.npz", f".again{k}.out.npz"))
            r = worker.fresh_run(out, params, case.inputs, again)
            if r["verdict"] != "RAN":
                continue
            outs = load_outputs(again)
            seen.append(outs)
            verdict = self.judge(case, ref, again)
            if verdict["verdict"] in PASS and first is None:
                first = k
        varies = any(len(o) != len(seen[0]) or any(a.tobytes() != b.tobytes() for a, b in zip(o, seen[0]))
                     for o in seen[1:])
        if varies and first is not None:
            return {"verdict": "RACE", "detail": f"the optimised program's outputs vary between Paddle runs; "
                    f"run {first + 2} of {len(seen)} gave the original's ({entry.get('detail', '')[:200]})"}
        return {"optimised_runs": len(seen), "optimised_varies": varies}

    def triage(self, case: Case, mode: str, ref: dict, worker: Slot) -> dict:
        """The same case through `--upgrade` alone: is the fault already there without passes?"""
        d = self.case_dir(case)
        done = self.triaged.get((case.name, mode))
        if done is not None:  # once per case and run of this script (pirc may change between runs)
            return done
        entry, out, _ = self.optimise(case, None, "none", d, worker)
        if entry.get("verdict") != "PIRC_FAIL":
            got = d / f"upgrade.{mode}.out.npz"
            result = worker.run(out, case.params, case.inputs, got)
            if result["verdict"] != "RAN":
                entry.update(verdict=result["verdict"], detail=(result.get("error") or "")[:300])
            else:
                entry.update(self.judge(case, ref, got))
        entry = {k: entry[k] for k in ("verdict", "detail") if k in entry}
        self.triaged[(case.name, mode)] = entry
        return entry

    def run_case(self, case: Case, worker: Slot) -> None:
        source = sha256_files(case.program, case.params, case.inputs)
        todo = []
        for pipeline, mode in self.configs(case):
            key = f"{case.group}|{case.name}|{pipeline}|{mode}"
            old = self.rows.get(key)
            fresh = old is not None and old.get("source") == source
            current = fresh and old.get("pirc_tree") == self.tree and old["verdict"] in PASS
            if fresh and (current or not self.args.recheck) and not (
                    self.args.rerun_failed and old["verdict"] not in PASS):
                continue
            todo.append((pipeline, mode, key, old if fresh else None))
        if not todo:
            return
        ref = self.reference(case, worker, source)
        for pipeline, mode, key, old in todo:
            t0 = time.time()
            entry = self.check(case, pipeline, mode, ref, worker, old if self.args.recheck else None)
            if entry["verdict"] not in PASS:
                entry["upgrade_only"] = self.triage(case, "none", ref, worker)
            row = {"group": case.group, "case": case.name, "pipeline": pipeline,
                   "params": mode, "source": source, "reference": ref["kind"],
                   "random_fetches": ref["random"], "nondeterministic": ref["nondeterministic"],
                   "original_runs": ref.get("runs_total", 2),
                   **({"tags": list(case.tags)} if case.tags else {}),
                   **({"original_vs_numpy": ref["original_vs_numpy"]} if "original_vs_numpy" in ref else {}),
                   **entry, "secs": round(time.time() - t0, 2), "pirc_commit": self.commit,
                   "pirc_tree": self.tree,
                   "when": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S")}
            with self.write_lock:
                self.rows[key] = row
                with open(self.out_file, "a") as f:
                    f.write(json.dumps(row, sort_keys=True) + "\n")
            mark = "" if row["verdict"] in PASS else f"  {row.get('detail', '')[:120]}"
            print(f"{row['verdict']:12s} {case.group:9s} {pipeline:9s} {mode:5s} {case.name}{mark}", flush=True)


def git_commit() -> str:
    """HEAD, with `+dirty` when pirc/ or dialects/ differ from it (what the passes run is not
    a commit)."""
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                          capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--", "pirc", "dialects"],
                           capture_output=True, text=True).stdout.strip()
    return head + ("+dirty" if dirty else "")


PIRC_INPUTS = ("pirc", "dialects", "patches", "pipelines")  # what pirc-opt's output depends on


def pirc_tree() -> str:
    """The git trees of what pirc-opt's output depends on (and any uncommitted change there):
    a line run with the same tree and source needs no `--recheck`."""
    trees = subprocess.run(["git", "-C", str(ROOT), "rev-parse", *(f"HEAD:{d}" for d in PIRC_INPUTS)],
                           capture_output=True, text=True).stdout
    dirty = subprocess.run(["git", "-C", str(ROOT), "diff", "HEAD", "--", *PIRC_INPUTS],
                           capture_output=True, text=True).stdout
    untracked = subprocess.run(["git", "-C", str(ROOT), "ls-files", "--others", "--exclude-standard",
                                "--", *PIRC_INPUTS], capture_output=True, text=True).stdout
    return hashlib.sha256((trees + dirty + untracked).encode()).hexdigest()[:16]


def row_key(row: dict) -> str:
    return f"{row['group']}|{row['case']}|{row['pipeline']}|{row['params']}"


def read_rows(path: Path) -> dict:
    """The latest line per case x pipeline x params mode."""
    rows = {}
    if path.exists():
        for line in path.read_text().splitlines():
            if line.strip():
                row = json.loads(line)
                rows[row_key(row)] = row
    return rows


def compact(path: Path, rows: dict) -> None:
    """Rewrite the log with one line per key, in case order, without empty fields."""
    def empty(v) -> bool:
        return v is None or v is False or (isinstance(v, (list, dict, str)) and not v)

    implied = {"key", "detail", "paddle", "pirc_rc"}  # for a passing line: its verdict says them
    keep = [{k: v for k, v in r.items() if not empty(v) and not (
        k in implied and (k == "key" or r["verdict"] in ("BITEXACT", "ALLCLOSE")))}
        for _, r in sorted(rows.items())]
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in keep))
    tmp.replace(path)


def select_cases(args) -> tuple[list[Case], dict]:
    work = Path(args.work)
    found, info = [], {}
    for group in args.groups:
        if group == "corpus":
            cases, info["corpus_duplicates_left_out"] = corpus_cases()
        elif group == "zoo":
            cases = zoo_cases(work)
        else:
            cases = generated_cases(work, args.generated)
        if args.only:
            cases = [c for c in cases if args.only in c.name]
        if args.limit:
            cases = cases[: args.limit]
        found += cases
    return found, info


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pd331", required=True, help="python of a venv with paddlepaddle==3.3.1")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", default=str(Path(__file__).with_name("results")))
    ap.add_argument("--work", default="/tmp/pirc-oracle-work",
                    help="scratch: zoo weights, generated programs, pirc's outputs, Paddle's outputs")
    ap.add_argument("--groups", default="corpus,zoo,generated", type=lambda s: s.split(","))
    ap.add_argument("--pipelines", default=",".join(PIPELINES), type=lambda s: tuple(s.split(",")))
    ap.add_argument("--generated", type=int, default=500, help="how many generated programs")
    ap.add_argument("--only", help="only cases whose name contains this")
    ap.add_argument("--limit", type=int, help="at most this many cases per group")
    ap.add_argument("--rerun-failed", action="store_true", help="redo the lines that did not pass")
    ap.add_argument("--recheck", action="store_true",
                    help="re-run pirc for every selected line; Paddle only where pirc's output changed")
    ap.add_argument("--report-only", action="store_true", help="rewrite the .json/.md from the .jsonl")
    args = ap.parse_args()
    bad = set(args.groups) - {"corpus", "zoo", "generated"}
    if bad:
        ap.error(f"--groups: unknown {sorted(bad)} (corpus, zoo, generated)")
    dest = Path(args.out)
    dest.mkdir(parents=True, exist_ok=True)
    out_file = dest / "optimised_loads.jsonl"
    rows = read_rows(out_file)
    info_file = dest / ".optimised_loads.info.json"
    info = json.loads(info_file.read_text()) if info_file.exists() else {}
    if not args.report_only:
        Path(args.work).mkdir(parents=True, exist_ok=True)
        cases, found_info = select_cases(args)
        info.update(found_info)
        info_file.write_text(json.dumps(info))
        checker = Checker(args, rows, out_file, git_commit())
        jobs: queue.Queue = queue.Queue()
        for case in cases:
            jobs.put(case)
        errors = []

        def slot(k: int) -> None:
            worker = Slot(args.pd331, Path(args.work), k)
            try:
                while True:
                    try:
                        case = jobs.get_nowait()
                    except queue.Empty:
                        return
                    try:
                        checker.run_case(case, worker)
                    except Exception as e:  # noqa: BLE001 -- one broken case must not stop the run
                        errors.append(f"{case.name}: {type(e).__name__}: {e}")
                        print(f"HARNESS_ERROR {case.name}: {type(e).__name__}: {e}", flush=True)
            finally:
                worker.stop()

        threads = [threading.Thread(target=slot, args=(k,)) for k in range(max(1, args.jobs))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        rows = read_rows(out_file)
    compact(out_file, rows)
    write_report(dest, rows, info, args.pd331, git_commit())


if __name__ == "__main__":
    main()
