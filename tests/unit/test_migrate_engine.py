"""pirc-migrate's engine: each model isolated in a child of the worker's template, on the
process pool and on Dask, and every fault recorded as that model's result alone.

The job itself is replaced by migrate_fakes.fake_migrate, which misbehaves on request
(segfault, exception, sleep, memory hog, killing its worker); the real job's tests run
the zoo."""

from __future__ import annotations

import dataclasses
import os
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from collections import Counter

import pytest

from migrate_fakes import ATTEMPTS, FAKE_FUNCTION, HOG_LIMIT_MB, fake_migrate, options, source
from pirc.errors import PircError
from pirc.migrate import engine
from pirc.migrate.engine import Task, run_task, run_tasks
from pirc.migrate.isolate import run_isolated
from pirc.migrate.options import task_key
from pirc.migrate.schema import RECORD_FIELDS, RUN_FIELDS


def tasks(names, opts=None, content="0" * 64, out_root="/tmp/pd331-out"):
    opts = opts or options()
    out = []
    for name in names:
        src = source(f"zoo/{name}.json", content)
        out.append(Task(key=task_key(src, opts), source=src, options=opts, src_root="/tmp/pd331",
                        out_root=str(out_root), function=FAKE_FUNCTION))
    return out


def run(names, opts=None, out_root="/tmp/pd331-out", **engine):
    records = []
    run_tasks(tasks(names, opts, out_root=out_root), on_result=records.append, **engine)
    return {r["path"].split("/")[-1][:-len(".json")]: r for r in records}


def args(name, opts=None):
    return ("/tmp/pd331", "/tmp/pd331-out", source(f"zoo/{name}.json"), opts or options())


# --- one child ---------------------------------------------------------------------------

def test_a_returned_value_comes_back_with_the_childs_peak_memory():
    outcome = run_isolated(fake_migrate, args("ok-a"))
    assert outcome.status is None and outcome.value["status"] == "upgraded"
    assert outcome.value["path"] == "zoo/ok-a.json"
    # RSS includes the pages the child shares with the template, which has torch imported.
    assert outcome.peak_mb > 20


def test_the_child_is_forked_from_a_template_that_imported_pirc_and_torch():
    outcome = run_isolated(_modules_and_threads, ())
    assert outcome.status is None
    torch_loaded, pirc_loaded, threads, pid = outcome.value
    assert torch_loaded and pirc_loaded and threads == 1 and pid != os.getpid()


def _modules_and_threads():
    import sys
    import torch
    return "torch" in sys.modules, "pirc" in sys.modules, torch.get_num_threads(), os.getpid()


@pytest.mark.parametrize("name", ["segv-a", "null-a"])
def test_a_segfault_costs_the_child_alone(name):
    outcome = run_isolated(fake_migrate, args(name))
    assert outcome.status == "crashed"
    assert outcome.reason == f"killed by signal {int(signal.SIGSEGV)} (SIGSEGV)"
    assert run_isolated(fake_migrate, args("ok-a")).status is None   # the caller lives on


def test_an_exception_is_failed_with_its_type_and_first_line():
    outcome = run_isolated(fake_migrate, args("raise-a"))
    assert (outcome.status, outcome.reason) == (
        "failed", "ValueError: no such op in zoo/raise-a.json")


def test_a_timeout_kills_the_child():
    outcome = run_isolated(fake_migrate, args("sleep-a"), timeout=0.5)
    assert outcome.status == "timeout" and "0.5 s" in outcome.reason
    assert 0.5 <= outcome.seconds < 30


def test_memory_over_the_cap_kills_the_child_and_is_oom():
    baseline = run_isolated(fake_migrate, args("ok-a")).peak_mb
    cap = int(baseline) + 200
    outcome = run_isolated(fake_migrate, args("hog-a"), max_memory_mb=cap)
    assert outcome.status == "oom" and f"cap of {cap} MiB" in outcome.reason
    assert cap < outcome.peak_mb < baseline + HOG_LIMIT_MB


# --- the engine on the process pool ------------------------------------------------------

def test_pool_records_every_fault_as_that_models_result():
    work = tasks(["ok-a", "segv-a", "raise-a", "sleep-a", "ok-b", "null-a", "nomodule-a"],
                 options(timeout=2))
    work[-1] = dataclasses.replace(work[-1], function="no_such_module:migrate_model")
    records = []
    run_tasks(work, jobs=2, on_result=records.append)
    got = {r["path"].split("/")[-1][:-len(".json")]: r for r in records}
    assert {k: r["status"] for k, r in got.items()} == {
        "ok-a": "upgraded", "ok-b": "upgraded", "segv-a": "crashed", "null-a": "crashed",
        "raise-a": "failed", "sleep-a": "timeout", "nomodule-a": "failed"}
    assert got["nomodule-a"]["reason"] == "ModuleNotFoundError: No module named 'no_such_module'"
    del got["nomodule-a"]   # run_task itself failed: no worker, nothing measured
    assert got["ok-a"]["ops_after"] == 64 and got["ok-a"]["to_version"] == 4
    for name in ("segv-a", "sleep-a"):   # the job knew nothing: None, not a guess
        assert set(got[name]) == set(RECORD_FIELDS)
        assert got[name]["from_version"] is got[name]["fingerprint_after"] is None
        assert got[name]["passes_run"] == [] and got[name]["check"]["ok"] is None
    for record in got.values():
        assert record["worker"].startswith("pool-") and record["worker"] != f"pool-{os.getpid()}"
        assert record["seconds"] >= 0 and record["peak_mb"] >= 0
    assert got["ok-a"]["peak_mb"] > 20 and got["sleep-a"]["peak_mb"] > 20


def attempt_lines(out_root):
    path = out_root / ATTEMPTS
    return [line.split() for line in path.read_text().splitlines()] if path.exists() else []


def attempts(out_root):
    return Counter(name for name, _, _ in attempt_lines(out_root))


def running(pid: int) -> bool:
    """Whether `pid` still runs (a zombie waiting for its reaper does not)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except FileNotFoundError:
        return False


def gone(pids, seconds=20.0) -> bool:
    deadline = time.monotonic() + seconds
    while any(running(p) for p in pids):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def test_a_pool_worker_killed_mid_task_is_retried_once_then_crashed_and_blames_no_other(tmp_path):
    got = run(["ok-a", "killworker-a", "ok-b", "ok-c", "ok-d"], jobs=2, out_root=tmp_path)
    assert attempts(tmp_path)["killworker-a.json"] == 2
    assert got["killworker-a"]["status"] == "crashed"
    assert "died twice" in got["killworker-a"]["reason"]
    # The children of the killed workers do not live on, orphaned.
    assert gone([int(child) for name, child, _ in attempt_lines(tmp_path)])
    assert got["killworker-a"]["worker"] is None
    assert {got[k]["status"] for k in ("ok-a", "ok-b", "ok-c", "ok-d")} == {"upgraded"}


class CountingExecutor(ThreadPoolExecutor):
    """Threads standing in for workers; records the most futures unfinished at once."""

    def __init__(self):
        super().__init__(4)
        self.lock, self.open, self.most = threading.Lock(), 0, 0

    def submit(self, fn, *args):
        with self.lock:
            self.open += 1
            self.most = max(self.most, self.open)
        future = super().submit(fn, *args)
        future.add_done_callback(self._closed)
        return future

    def _closed(self, _):
        with self.lock:
            self.open -= 1


def test_no_more_than_the_window_of_tasks_is_in_flight():
    executor = CountingExecutor()
    records = []
    with executor:
        engine._drive(tasks([f"ok-{i}" for i in range(12)]), lambda: executor, 3, records.append)
    assert executor.most == 3
    assert sorted(r["path"] for r in records) == sorted(f"zoo/ok-{i}.json" for i in range(12))


KILLED_RUN = """
import sys
from test_migrate_engine import run
run(["sleep-a", "sleep-b", "sleep-c"], out_root=sys.argv[1], jobs=2)
"""


def test_a_run_killed_leaves_no_worker_and_no_child_behind(tmp_path):
    """`pirc-migrate` killed (to be resumed) takes its pool workers and models with it."""
    run_dir = os.path.dirname(__file__)
    caller = subprocess.Popen([sys.executable, "-c", KILLED_RUN, str(tmp_path)], cwd=run_dir,
                              env={**os.environ, "PYTHONPATH": run_dir})
    try:
        deadline = time.monotonic() + 60
        while len(attempt_lines(tmp_path)) < 2 and caller.poll() is None:
            assert time.monotonic() < deadline, "the models never started"
            time.sleep(0.1)
    finally:
        caller.kill()
        caller.wait()
    started = attempt_lines(tmp_path)
    assert len(started) == 2
    assert gone([int(pid) for _, child, worker in started for pid in (child, worker)])


def test_run_task_isolates_the_tasks_function_and_labels_the_worker():
    record = run_task(tasks(["ok-a"])[0])
    assert record["status"] == "upgraded" and record["worker"] == f"pool-{os.getpid()}"
    assert set(RUN_FIELDS) <= set(record)


def test_the_dask_key_of_a_task_changes_with_its_content_and_options():
    """Dask names a pure task by tokenizing (function, kwargs, *args): a changed file or other
    options must give another key, else the scheduler could serve a stale result."""
    tokenize = pytest.importorskip("dask.base").tokenize
    key = lambda task: tokenize(run_task, {}, task)  # noqa: E731 - Client.submit's own formula
    (base,) = tasks(["ok-a"])
    (same,) = tasks(["ok-a"])
    (changed,) = tasks(["ok-a"], content="1" * 64)
    (other,) = tasks(["ok-a"], options(timeout=5))
    assert key(base) == key(same)
    assert len({key(base), key(changed), key(other)}) == 3


# --- the engine on Dask ------------------------------------------------------------------

@pytest.fixture(scope="module")
def dask_scheduler():
    """One local cluster for the Dask tests that join a running one (--scheduler)."""
    dask = pytest.importorskip("dask")
    distributed = pytest.importorskip("distributed")
    from pirc.migrate.engine import DASK_CONFIG
    with dask.config.set(DASK_CONFIG), distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster:
        yield cluster.scheduler_address


def test_dask_runs_each_task_in_a_dask_worker(dask_scheduler):
    got = run(["ok-a", "ok-b", "ok-c", "segv-a"], scheduler=dask_scheduler, executor="dask")
    assert got["segv-a"]["status"] == "crashed"
    workers = {r["worker"] for r in got.values()}
    assert all(w.startswith("tcp://127.0.0.1:") for w in workers), workers


def test_a_dask_worker_killed_mid_task_is_retried_then_crashed_and_blames_no_other(
        dask_scheduler, tmp_path):
    got = run(["ok-a", "killworker-a", "ok-b"], scheduler=dask_scheduler, executor="dask",
              out_root=tmp_path)
    assert attempts(tmp_path)["killworker-a.json"] == 2
    assert got["killworker-a"]["status"] == "crashed"
    assert got["killworker-a"]["reason"].startswith("KilledWorker")
    assert gone([int(child) for name, child, _ in attempt_lines(tmp_path)])
    assert got["ok-a"]["status"] == got["ok-b"]["status"] == "upgraded"


def test_daemonic_dask_workers_are_refused_before_anything_runs():
    """A daemonic worker could not start a model's child: say how to start the workers."""
    dask = pytest.importorskip("dask")
    distributed = pytest.importorskip("distributed")
    with dask.config.set({"distributed.worker.daemon": True}), distributed.LocalCluster(
            n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster:
        with pytest.raises(PircError, match="DASK_DISTRIBUTED__WORKER__DAEMON=False"):
            run(["ok-a"], scheduler=cluster.scheduler_address)


def test_pool_and_a_dask_local_cluster_give_the_same_records():
    pytest.importorskip("distributed")
    names = ["ok-a", "ok-b", "raise-a", "segv-a", "sleep-a"]
    opts = options(timeout=2)
    pool = run(names, opts, jobs=2)
    dask = run(names, opts, executor="dask", jobs=2)
    strip = lambda got: {k: {f: v for f, v in r.items() if f not in RUN_FIELDS}  # noqa: E731
                         for k, r in got.items()}
    assert strip(pool) == strip(dask)
    assert all(not r["worker"].startswith("pool-") for r in dask.values())
