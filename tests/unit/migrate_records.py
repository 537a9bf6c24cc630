"""Hand-built pirc-migrate records and reports for the report and compare tests.

Records follow the schema (pirc/migrate/schema.py) as the job and the engine produce them:
`record(path, status, ...)` fills the rest like a real result of that status (an upgraded
model has versions, op counts, fingerprints, passes and an ok check; a timeout only its path
and reason), so a test states only what it is about.  `sample_records()` is a zoo-like run
with every status, the models named after the dev zoo's (tests/fixtures/zoo).
"""

from __future__ import annotations

import hashlib

from pirc.migrate.options import MigrateOptions
from pirc.migrate.report import build_report

PIPELINE = ["canonicalize", "const-fold", "cse", "fuse-fc", "fuse-attention", "dce"]
OPTIONS = MigrateOptions(target_version=4, pipeline="fuse", check="auto", timeout=120.0,
                         max_memory_mb=4096)


def fingerprint(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()


def record(path: str, status: str = "upgraded", *, changed=("canonicalize", "dce"), ran=PIPELINE,
           ops=(120, 96), seconds=1.5, peak_mb=300.0, worker="pool-101", reason=None,
           ok=None, max_abs=None, first_bad_op=None, random_outputs=(), output=None, **fields) -> dict:
    """One model's record, as the engine hands it to the report."""
    if status in ("timeout", "oom", "crashed", "skipped"):
        out = {"path": path, "status": status, "reason": reason or f"{status} (test)",
               "seconds": seconds if status != "skipped" else None,
               "peak_mb": peak_mb if status != "skipped" else None,
               "worker": worker if status != "skipped" else None}
        out.update(fields)
        return out
    ran_any = status not in ("refused", "failed")
    if ok is None and status in ("upgraded", "unchanged", "drifted"):
        ok = status != "drifted"
    if max_abs is None and ok is not None:
        max_abs = 0.37 if ok is False else 2.4e-07
    out = {
        "path": path, "status": status, "reason": reason,
        "from_version": 1, "to_version": 4 if ran_any else None,
        "ops_before": ops[0], "ops_after": ops[1] if ran_any else None,
        "fingerprint_before": fingerprint(path),
        "fingerprint_after": (output or fingerprint(path + "|" + ",".join(changed))) if ran_any else None,
        "passes_changed": list(changed) if ran_any else [],
        "passes_run": list(ran) if ran_any else [],
        "check": {"mode": "self" if ok is not None else "none", "ok": ok,
                  "max_abs": max_abs, "max_rel": None if max_abs is None else max_abs * 3,
                  "first_bad_op": first_bad_op if ok is not False else (first_bad_op or "pd_op.matmul #41"),
                  "random_outputs": list(random_outputs)},
        "seconds": seconds, "peak_mb": peak_mb, "worker": worker,
    }
    if status == "unchanged":
        out.update(from_version=4, to_version=4, ops_after=ops[0], fingerprint_after=out["fingerprint_before"],
                   passes_changed=[])
    if status in ("refused", "failed") and reason is None:
        out["reason"] = ("VersionError: program version 9 is newer than this pirc knows (4)"
                         if status == "refused" else "KeyError: 'pd_op.fused_gemm_epilogue'")
    out.update(fields)
    return out


def sample_records() -> list[dict]:
    """A zoo-like run: every status at least once, in no particular order."""
    zoo = "zoo/3.0.0"
    return [
        record(f"{zoo}/vgg11.3.0.0.json", changed=("fuse-fc", "dce"), ops=(61, 52), seconds=3.9,
               peak_mb=812.0, worker="pool-102"),
        record(f"{zoo}/bert.3.0.0.json", changed=("canonicalize", "fuse-fc", "fuse-attention", "dce"),
               ops=(412, 301), seconds=6.2, peak_mb=655.0),
        record(f"{zoo}/alexnet.3.0.0.json", changed=("fuse-fc",), ops=(44, 41), seconds=2.1,
               peak_mb=590.0, worker="pool-102"),
        record(f"{zoo}/resnet18.3.0.0.json", "unchanged", ops=(178, 178), seconds=1.2, peak_mb=402.0),
        record(f"{zoo}/llama.3.0.0.json", "drifted", changed=("canonicalize", "fuse-attention", "cse", "dce"),
               ops=(530, 377), max_abs=0.0123, first_bad_op="pd_op.softmax #88", seconds=9.8,
               peak_mb=1210.0),
        record(f"{zoo}/qwen.3.0.0.json", random_outputs=[1], changed=("canonicalize", "cse", "dce"),
               ops=(488, 402), seconds=7.4, peak_mb=990.0, worker="pool-102"),
        record(f"{zoo}/gen_log.3.0.0.json", "refused", ops=(12, None), seconds=0.2, peak_mb=180.0),
        record(f"{zoo}/t5_encoder.3.0.0.json", "failed", ops=(350, None), seconds=0.9, peak_mb=320.0),
        record(f"{zoo}/densenet121.3.0.0.json", "timeout", reason="no result after 120 s",
               seconds=120.0, peak_mb=1500.0),
        record(f"{zoo}/inception_v3.3.0.0.json", "oom",
               reason="resident memory 4301 MiB over --max-memory-mb 4096", seconds=14.0, peak_mb=4301.0),
        record(f"{zoo}/googlenet.3.0.0.json", "crashed", reason="killed by signal 11 (SIGSEGV)",
               seconds=3.1, peak_mb=700.0, worker="pool-102"),
        record(f"{zoo}/mobilenet_v3_small.3.0.0.json", "skipped",
               reason="hardswish kernel differs (issue 17), until 2027-01-31"),
        record(f"{zoo}/ernie.3.0.0.json", changed=("canonicalize", "fuse-fc", "fuse-attention", "dce"),
               ops=(398, 290), seconds=5.7, peak_mb=640.0, worker="pool-102"),
        record(f"{zoo}/squeezenet1_0.3.0.0.json", changed=("dce",), ops=(66, 65), seconds=1.6, peak_mb=350.0),
    ]


def sample_report(records=None, options=OPTIONS) -> dict:
    return build_report(sample_records() if records is None else records, options, "0.1.0")
