"""Stand-ins for `pirc.migrate.job.migrate_model` that the engine tests isolate.

`fake_migrate` has the job's signature and behaves by the model's file name, so one task list
exercises every fault in one engine run: `ok-*` returns a record, `raise-*` raises, `segv-*`
kills itself with SIGSEGV, `null-*` reads address 0, `sleep-*` outlives any timeout, `hog-*`
allocates until it is stopped, `killworker-*` SIGKILLs the worker that started it (the process
pool's worker or the Dask worker), then waits to be reaped with it.  When OUT is an existing
folder, each call writes a line to OUT/attempts.log: the file name, the child's pid and the
pid of the worker that started it."""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import time

from pirc.migrate.options import MigrateOptions
from pirc.migrate.sources import ModelSource

FAKE_FUNCTION = f"{__name__}:fake_migrate"

# Each call appends "NAME CHILD_PID WORKER_PID" here, when OUT is an existing folder.
ATTEMPTS = "attempts.log"

# What `hog-*` allocates at most (MiB), in steps, if nothing stops it first.
HOG_LIMIT_MB = 1536
_HOG_STEP_MB = 32


def fake_migrate(src_root: str, out_root: str, source: ModelSource,
                 options: MigrateOptions) -> dict:
    name = source.path.rsplit("/", 1)[-1]
    kind = name.split("-", 1)[0]
    if os.path.isdir(out_root):   # a test that counts the attempts
        with open(os.path.join(out_root, ATTEMPTS), "a") as f:
            f.write(f"{name} {os.getpid()} {multiprocessing.parent_process().pid}\n")
    if kind == "raise":
        raise ValueError(f"no such op in {source.path}\nsecond line")
    if kind == "segv":
        os.kill(os.getpid(), signal.SIGSEGV)
    if kind == "null":
        ctypes.string_at(0)
    if kind == "sleep":
        time.sleep(120)
    if kind == "hog":
        held = []
        while len(held) * _HOG_STEP_MB < HOG_LIMIT_MB:
            held.append(bytearray(b"\1") * (_HOG_STEP_MB << 20))   # touched: resident
            time.sleep(0.01)
    if kind == "killworker":
        os.kill(multiprocessing.parent_process().pid, signal.SIGKILL)
        time.sleep(120)
    record = {"path": source.path, "status": "upgraded", "reason": None}
    record.update(ops_before=len(source.path), ops_after=len(source.content_hash),
                  passes_changed=[], passes_run=["fake"], from_version=1,
                  to_version=options.target_version)
    return record


def source(path: str, content: str = "0" * 64) -> ModelSource:
    return ModelSource(path=path, program=f"/tmp/pd331/{path}", params=None, io=None,
                       content_hash=content)


def options(timeout: float | None = None, max_memory_mb: int | None = None) -> MigrateOptions:
    return MigrateOptions(target_version=4, pipeline=None, check="none", timeout=timeout,
                          max_memory_mb=max_memory_mb)
