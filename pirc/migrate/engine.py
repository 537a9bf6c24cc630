"""The job over a `concurrent.futures.Executor`: the process pool, or Dask distributed.

`run_tasks` is written once against the Executor API (submit, wait): only where the executor
comes from differs.

- `executor="local"`: a `ProcessPoolExecutor(jobs)` whose workers are spawned (fresh
  interpreters: a forked copy of the caller would inherit its forkserver, its threads and
  whatever it had imported) and die with the caller (PR_SET_PDEATHSIG: a pool worker blocks
  on its queue forever once the caller is gone, and a run killed for `--resume` must not
  leave workers behind).  The pool starts its workers from the caller's thread on the first
  submit; `run_tasks` is called from a thread that outlives the run.
- `executor="dask"`: a `LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True)`,
  or with `scheduler="tcp://HOST:PORT"` a `Client` of a running cluster;
  `client.get_executor()` is the Executor.  Each worker process runs one model at a time.

Each task runs `run_task` in a worker, which runs the model in a child of the worker's
template (isolate.py): a segfault, a timeout or a memory overrun costs that child and is
recorded; the worker lives on.  What is left is the worker itself dying mid-task (the OS's
OOM killer, an operator's `kill -9`):

- the process pool breaks (every future in flight fails with BrokenProcessPool, and which
  task was running when the worker died is unknown).  The pool is rebuilt and the tasks that
  were in flight become *suspects*: each is retried once, alone, so an innocent one that
  shared the pool with the culprit finishes and is not blamed; a suspect that breaks the pool
  a second time is recorded "crashed";
- Dask reschedules the tasks of a dead worker and gives up on a task after
  `distributed.scheduler.allowed-failures` deaths: set to 1 here, so the second death is a
  KilledWorker, recorded "crashed".  `worker-saturation: 1.0` keeps one task per one-thread
  worker (the rest queue on the scheduler), so only the running task is blamed.  Both are
  scheduler settings: a cluster joined with `--scheduler` uses its own.

At most `2 * workers` tasks are in flight: the pool's queue and Dask's scheduler see a
window, not the whole zoo, and a task's result reaches `on_result` (the journal) as soon as it
finishes.

Dask task keys: `ClientExecutor.submit` hands its keyword arguments to `Client.submit`, whose
default `pure=True` names a task `run_task-<tokenize(run_task, {}, task)>`.  Task is a frozen
dataclass: Dask tokenizes it field by field, so the key covers the relative path, the
content hash (via `source`), the options (and their digest, in `key`) and both roots.  A
changed file is a new key, never a stale result.

Dask's worker processes are daemonic by default and a daemonic process may not start
children: the local cluster is made with `distributed.worker.daemon: False`, and a cluster
joined with `--scheduler` must start its workers so (`DASK_DISTRIBUTED__WORKER__DAEMON=False
dask worker ADDR`); `run_tasks` checks this before submitting anything.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import importlib
import logging
import multiprocessing
import os
import sys
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from ..errors import PircError
from .isolate import describe_exception, die_with_parent, run_isolated
from .options import MigrateOptions
from .schema import complete_record
from .sources import ModelSource

# The function a task isolates, as "module:function" so that a worker process imports it.
MIGRATE_FUNCTION = "pirc.migrate.job:migrate_model"

# Tasks in flight per worker: one running, one waiting, so a worker never idles between two.
IN_FLIGHT_PER_WORKER = 2

# Dask scheduler settings for a local cluster (module docstring).
DASK_CONFIG = {
    "distributed.worker.daemon": False,
    "distributed.scheduler.allowed-failures": 1,
    "distributed.scheduler.worker-saturation": 1.0,
}


@dataclass(frozen=True)
class Task:
    key: str
    source: ModelSource
    options: MigrateOptions
    src_root: str
    out_root: str
    function: str = MIGRATE_FUNCTION   # what runs in the child: "module:function"


def run_task(task: Task) -> dict:
    """The worker function: the model in an isolated child, then its record with "seconds",
    "peak_mb" and "worker" added."""
    module, _, name = task.function.partition(":")
    function = getattr(importlib.import_module(module), name)
    options = task.options
    outcome = run_isolated(function, (task.src_root, task.out_root, task.source, options),
                           timeout=options.timeout, max_memory_mb=options.max_memory_mb)
    if outcome.status is None:
        record = dict(outcome.value)
    else:
        record = complete_record({"path": task.source.path, "status": outcome.status,
                                  "reason": outcome.reason})
    record.update(seconds=round(outcome.seconds, 3), peak_mb=round(outcome.peak_mb, 1),
                  worker=worker_label())
    return record


def worker_label() -> str:
    """Where this runs: the Dask worker's address, else "pool-<pid>".  A process that has not
    imported distributed is no Dask worker (and a pool worker need not import it to learn so)."""
    distributed = sys.modules.get("distributed")
    if distributed is not None:
        try:
            return distributed.get_worker().address
        except ValueError:   # distributed imported, but this is not one of its workers
            pass
    return f"pool-{os.getpid()}"


def run_tasks(tasks: Iterable[Task], *, executor: str = "local", jobs: int = 1,
              scheduler: str | None = None, on_result: Callable[[dict], None]) -> None:
    """Run every task; `on_result(record)` in this process as each finishes (module docstring)."""
    tasks = list(tasks)
    if not tasks:
        return
    if executor == "local" and scheduler is None:
        opened = _process_pool(jobs)
    elif executor == "dask" or scheduler is not None:
        opened = _dask(jobs, scheduler)
    else:
        raise PircError(f"unknown executor {executor!r}: use local or dask")
    with opened as (new_executor, workers):
        _drive(tasks, new_executor, IN_FLIGHT_PER_WORKER * workers, on_result)


@contextlib.contextmanager
def _process_pool(jobs: int) -> Iterator[tuple[Callable[[], concurrent.futures.Executor], int]]:
    """A factory of process pools (a broken one is replaced) and the number of workers."""
    pools = []

    def new_pool():
        if pools:
            pools.pop().shutdown(wait=True, cancel_futures=True)
        pools.append(concurrent.futures.ProcessPoolExecutor(
            jobs, mp_context=multiprocessing.get_context("spawn"), initializer=die_with_parent))
        return pools[-1]

    try:
        yield new_pool, jobs
    finally:
        for pool in pools:
            pool.shutdown(wait=True, cancel_futures=True)


@contextlib.contextmanager
def _dask(jobs: int, scheduler: str | None):
    """A Dask client's executor (it never breaks: the factory returns the same one)."""
    try:
        import dask
        from distributed import Client, LocalCluster
    except ImportError:
        raise PircError("--executor dask needs Dask distributed: pip install 'pirc[dask]'"
                        ) from None
    with dask.config.set(DASK_CONFIG), contextlib.ExitStack() as stack:
        if scheduler is None:
            cluster = stack.enter_context(LocalCluster(
                n_workers=jobs, threads_per_worker=1, processes=True, dashboard_address=":0",
                silence_logs=logging.ERROR))
            client = stack.enter_context(Client(cluster))
        else:
            client = stack.enter_context(_join(Client, scheduler))
        _require_non_daemonic(client, scheduler)
        workers = max(sum(client.nthreads().values()), 1)
        executor = client.get_executor()
        yield (lambda: executor), workers


def _join(client_class, scheduler: str):
    try:
        return client_class(scheduler, timeout="30s")
    except (OSError, TimeoutError) as error:
        raise PircError(f"cannot reach the Dask scheduler {scheduler}: {describe_exception(error)}"
                        ) from None


def _require_non_daemonic(client, scheduler: str | None) -> None:
    """A daemonic worker cannot start the children the models run in: say so up front."""
    daemonic = sorted(a for a, d in client.run(_is_daemonic).items() if d)
    if daemonic:
        raise PircError(
            f"the Dask workers {', '.join(daemonic)} of {scheduler or 'the local cluster'} are "
            f"daemonic and cannot start a model's child process: start them with "
            f"DASK_DISTRIBUTED__WORKER__DAEMON=False")


def _is_daemonic() -> bool:
    return bool(multiprocessing.current_process().daemon)


def _drive(tasks: list[Task], new_executor, window: int, on_result) -> None:
    """Submit within the window, hand each finished record on; a broken executor is replaced
    and its tasks in flight are retried one at a time, once each (module docstring)."""
    waiting = deque(tasks)
    suspects: deque[Task] = deque()
    breaks: Counter[str] = Counter()
    in_flight: dict[concurrent.futures.Future, Task] = {}
    executor = new_executor()
    while waiting or suspects or in_flight:
        if suspects:
            if not in_flight:
                task = suspects.popleft()
                in_flight[executor.submit(run_task, task)] = task
        else:
            while waiting and len(in_flight) < window:
                task = waiting.popleft()
                in_flight[executor.submit(run_task, task)] = task
        done, _ = concurrent.futures.wait(in_flight, return_when=concurrent.futures.FIRST_COMPLETED)
        cancelled = [in_flight[f].source.path for f in done if f.cancelled()]
        if cancelled:   # not the model's doing: stop, and let --resume redo it
            raise PircError(f"the executor cancelled {cancelled[0]} (the Dask scheduler or its "
                            f"cluster went away?): finish the run with --resume")
        if any(isinstance(f.exception(), concurrent.futures.BrokenExecutor) for f in done):
            # Every other future of a broken pool fails too: collect them all, then rebuild.
            done = set(in_flight)
            concurrent.futures.wait(done)
        broken = False
        for future in done:
            task = in_flight.pop(future)
            error = future.exception()
            if isinstance(error, concurrent.futures.BrokenExecutor):
                broken = True
                breaks[task.key] += 1
                if breaks[task.key] > 1:
                    on_result(_lost(task, "crashed",
                                    "its worker process died twice while running it"))
                else:
                    suspects.append(task)
            elif isinstance(error, Exception):
                on_result(_lost(task, _status_of(error), describe_exception(error)))
            elif error is not None:   # the worker was interrupted (Ctrl-C): not the model's result
                raise error
            else:
                on_result(future.result())
        if broken:
            executor = new_executor()


def _status_of(error: BaseException) -> str:
    """A task's exception: Dask gave up on it after its workers died ("crashed"), or
    run_task itself failed, e.g. the isolated function's module does not import ("failed")."""
    return "crashed" if type(error).__name__ == "KilledWorker" else "failed"


def _lost(task: Task, status: str, reason: str) -> dict:
    """The record of a task whose worker gave no record: nothing measured, no worker."""
    return complete_record({"path": task.source.path, "status": status, "reason": reason})
