"""Running a campaign: worker processes, the watchdog, the memory cap, the statistics.

Workers are forked from the parent (seeds and pirc imported once) and take batches of input
indices from a shared counter; input k is `make_case(front, seed, k)`, so which worker runs
it does not matter.  Each worker:
  * caps its address space (RLIMIT_AS, --memory-mb): an allocation bomb is a MemoryError
    finding in that worker, not the machine's OOM killer;
  * arms SIGALRM for every input (--hang-seconds): a check still running then raises Hang
    where it stands, which gives the hang a signature and a traceback.
The parent watches every worker's current input: a worker that dies (a signal, the kernel)
or stays on one input past the limit plus a grace period (stuck in C, where SIGALRM cannot
interrupt) is recorded as a finding for that input and replaced by a fresh worker that
goes on with the rest of its batch.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import queue as queue_mod
import resource
import signal
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor, TimeoutError as FutureTimeout
from dataclasses import dataclass, field

from .cases import Case, make_case
from .checks import check_case
from .signature import Hang, format_exception, signature

BATCH = 8
KILL_GRACE_S = 5.0
# Frames of Python stack every check gets above its caller: Python's default recursion limit,
# which is what `pirc-opt` runs under.  Counting from the caller keeps a RecursionError's
# place the same in a campaign worker, in the minimizer and in `replay`.
CHECK_STACK_FRAMES = 1000


# -- one input ----------------------------------------------------------------------------


def _on_alarm(signum, frame):
    raise Hang("the check ran past the time limit")


def limit_process(memory_mb: int | None) -> None:
    """What every worker (and `replay`) runs under: the memory cap and the alarm handler."""
    if memory_mb:
        cap = memory_mb * 1024 * 1024
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard != resource.RLIM_INFINITY:
            cap = min(cap, hard)
        resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    signal.signal(signal.SIGALRM, _on_alarm)


@dataclass
class Result:
    sig: str | None = None
    traceback: str = ""
    accepted: bool = False
    verified: bool = False
    note: str = ""


def _stack_depth() -> int:
    frame, depth = sys._getframe(1), 0
    while frame is not None:
        depth += 1
        frame = frame.f_back
    return depth


def run_one(case: Case, hang_s: float) -> Result:
    """Check one case under the watchdog; a finding comes back as its signature and traceback."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(_stack_depth() + CHECK_STACK_FRAMES)
    try:
        return _run_one(case, hang_s)
    finally:
        sys.setrecursionlimit(limit)


def _run_one(case: Case, hang_s: float) -> Result:
    signal.setitimer(signal.ITIMER_REAL, hang_s)
    try:
        outcome = check_case(case)
        signal.setitimer(signal.ITIMER_REAL, 0)
        return Result(None, "", outcome.accepted, outcome.verified, outcome.note)
    except (Exception, Hang) as exc:  # noqa: BLE001 - everything that is not a PircError is a finding
        signal.setitimer(signal.ITIMER_REAL, 0)
        try:
            return Result(signature(exc), format_exception(exc))
        except RecursionError:  # formatting a traceback thousands of frames deep
            return Result(f"{type(exc).__name__} @ <traceback too deep>", repr(exc)[:2000])


# -- workers --------------------------------------------------------------------------------


@dataclass
class _Shared:
    next_index: object   # mp.Value('q'): the next index to hand out
    lock: object
    stop: object         # mp.Value('b'): set when the time budget is spent
    current: object      # mp.Array('d', 3 * jobs): per worker (index, start time, batch end)
    results: object      # mp.Queue


def _worker(wid: int, front: str, seed: int, count: int, shared: _Shared, hang_s: float,
            memory_mb: int | None, resume: tuple[int, int] | None) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    parent = os.getppid()
    limit_process(memory_mb)
    done = accepted = verified = 0
    sigs: Counter = Counter()
    reported: set[str] = set()
    last_flush = time.monotonic()
    cpu_at_flush = time.process_time()

    def flush():
        nonlocal done, accepted, verified, sigs, last_flush, cpu_at_flush
        cpu = time.process_time()
        shared.results.put(("progress", wid, done, accepted, verified, dict(sigs), cpu - cpu_at_flush))
        cpu_at_flush = cpu
        done = accepted = verified = 0
        sigs = Counter()
        last_flush = time.monotonic()

    def batches():
        if resume is not None and resume[0] < resume[1]:
            yield resume
        while not shared.stop.value:
            with shared.lock:
                start = shared.next_index.value
                if start >= count:
                    return
                shared.next_index.value = min(start + BATCH, count)
            yield start, min(start + BATCH, count)

    for start, end in batches():
        if os.getppid() != parent:  # the parent is gone: nobody reads the results
            return
        for k in range(start, end):
            if shared.stop.value:
                break
            base = 3 * wid
            shared.current[base] = k
            shared.current[base + 1] = time.monotonic()
            shared.current[base + 2] = end
            case = make_case(front, seed, k)
            result = run_one(case, hang_s)
            done += 1
            accepted += result.accepted
            verified += result.verified
            if result.sig is not None:
                sigs[result.sig] += 1
                if result.sig not in reported:
                    reported.add(result.sig)
                    shared.results.put(("finding", wid, k, result.sig, result.traceback))
            if time.monotonic() - last_flush > 1.0:
                flush()
    shared.current[3 * wid] = -1
    flush()
    shared.results.put(("done", wid))


# -- the campaign ---------------------------------------------------------------------------


@dataclass
class Finding:
    sig: str
    index: int
    traceback: str
    count: int = 0


@dataclass
class Stats:
    front: str
    seed: int
    inputs: int = 0
    accepted: int = 0
    verified: int = 0
    seconds: float = 0.0
    cpu_seconds: float = 0.0  # the workers' CPU time: a rate that does not depend on the machine's load
    findings: dict = field(default_factory=dict)  # sig -> Finding

    @property
    def rate(self) -> float:
        return self.inputs / self.seconds if self.seconds else 0.0

    @property
    def cpu_rate(self) -> float:
        return self.inputs / self.cpu_seconds if self.cpu_seconds else 0.0

    @property
    def crashing_inputs(self) -> int:
        return sum(f.count for f in self.findings.values())


def run_campaign(front: str, seed: int, count: int, jobs: int, time_budget: float | None,
                 hang_s: float, memory_mb: int | None, log=print) -> Stats:
    from .cases import SURFACES
    if front in SURFACES:  # build the pool of programs once, before the workers fork
        from .surfaces import warm
        warm(front)
    ctx = mp.get_context("fork")
    shared = _Shared(ctx.Value("q", 0), ctx.Lock(), ctx.Value("b", 0), ctx.Array("d", [-1.0] * 3 * jobs),
                     ctx.Queue())
    stats = Stats(front, seed)
    t0 = time.monotonic()
    deadline = t0 + time_budget if time_budget else None
    procs: dict[int, mp.Process] = {}
    finished: set[int] = set()

    def spawn(wid, resume=None):
        shared.current[3 * wid] = -1
        p = ctx.Process(target=_worker, args=(wid, front, seed, count, shared, hang_s, memory_mb, resume),
                        daemon=True)
        p.start()
        procs[wid] = p

    def record(sig, k, tb, n=1):
        f = stats.findings.get(sig)
        if f is None:
            f = stats.findings[sig] = Finding(sig, k, tb)
            log(f"  [{front}] new class after {stats.inputs} inputs: {sig} (input {k})")
        elif k < f.index and tb:
            f.index, f.traceback = k, tb
        f.count += n

    def handle(msg):
        kind = msg[0]
        if kind == "progress":
            _, wid, done, acc, ver, sigs, cpu = msg
            stats.inputs += done
            stats.cpu_seconds += cpu
            stats.accepted += acc
            stats.verified += ver
            for sig, n in sigs.items():
                f = stats.findings.get(sig)
                if f is None:  # its "finding" message is still in the queue
                    f = stats.findings[sig] = Finding(sig, 10**18, "")
                f.count += n
        elif kind == "finding":
            _, wid, k, sig, tb = msg
            f = stats.findings.get(sig)
            if f is None:
                stats.findings[sig] = Finding(sig, k, tb)
                log(f"  [{front}] new class after {stats.inputs} inputs: {sig} (input {k})")
            elif k < f.index:
                f.index, f.traceback = k, tb
        elif kind == "done":
            finished.add(msg[1])

    def on_term(signum, frame):
        raise SystemExit(128 + signum)  # runs the finally below: the workers are stopped too

    previous_term = signal.signal(signal.SIGTERM, on_term)
    for wid in range(jobs):
        spawn(wid)
    last_report = t0
    try:
        while len(finished) < jobs:
            try:
                handle(shared.results.get(timeout=0.2))
                continue
            except queue_mod.Empty:
                pass
            now = time.monotonic()
            if deadline is not None and now > deadline:
                shared.stop.value = 1
            for wid, p in list(procs.items()):
                if wid in finished:
                    continue
                k = int(shared.current[3 * wid])
                started = shared.current[3 * wid + 1]
                stuck = k >= 0 and now - started > hang_s + KILL_GRACE_S
                if p.is_alive() and not stuck:
                    continue
                if p.is_alive():
                    p.kill()
                p.join()
                _drain(shared.results, handle)
                if wid in finished:
                    continue
                if k >= 0:
                    why = (f"Hang @ <killed by the fuzzer after {hang_s + KILL_GRACE_S:.0f} s>" if stuck
                           else f"WorkerDied @ <exit {p.exitcode}"
                                f"{' (' + signal.Signals(-p.exitcode).name + ')' if p.exitcode and p.exitcode < 0 else ''}>")
                    stats.inputs += 1
                    record(why, k, f"{why}: input {k} of seed {seed} (replay it to see where)\n")
                    if shared.stop.value:
                        finished.add(wid)
                    else:
                        spawn(wid, (k + 1, int(shared.current[3 * wid + 2])))
                else:
                    finished.add(wid)
            if now - last_report > 30:
                last_report = now
                log(f"  [{front}] {stats.inputs} inputs, {stats.inputs / (now - t0):.0f}/s, "
                    f"{len(stats.findings)} classes")
        _drain(shared.results, handle)
    finally:
        shared.stop.value = 1
        for p in procs.values():
            p.join(timeout=hang_s + KILL_GRACE_S)
            if p.is_alive():
                p.kill()
                p.join()
        signal.signal(signal.SIGTERM, previous_term)
    stats.seconds = time.monotonic() - t0
    return stats


def _drain(q, handle) -> None:
    while True:
        try:
            handle(q.get(timeout=0.05))
        except queue_mod.Empty:
            return


# -- minimizing, in worker processes --------------------------------------------------------


def _minimize_job(case: Case, sig: str, hang_s: float, budget_s: float):
    from .minimize import minimize

    def run(c):
        return run_one(c, hang_s).sig

    small = minimize(case, sig, run, budget_s)
    result = run_one(small, hang_s)
    if result.sig != sig:  # cannot happen (minimize keeps only what holds); be safe
        small, result = case, run_one(case, hang_s)
    return small, result.traceback


def _init_minimizer(memory_mb):
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    limit_process(memory_mb)


def minimize_all(jobs_list: list[tuple[Case, str]], jobs: int, hang_s: float, memory_mb: int | None,
                 budget_s: float) -> list[tuple[Case, str] | None]:
    """Minimize each (case, signature); None where the minimizer's process died."""
    if not jobs_list:
        return []
    out: list = [None] * len(jobs_list)
    ctx = mp.get_context("fork")
    with ProcessPoolExecutor(max_workers=jobs, mp_context=ctx, initializer=_init_minimizer,
                             initargs=(memory_mb,)) as pool:
        futures = [pool.submit(_minimize_job, c, s, hang_s, budget_s) for c, s in jobs_list]
        wall = budget_s * (len(jobs_list) / max(jobs, 1) + 1) + 2 * hang_s + 30
        end = time.monotonic() + wall
        for i, fut in enumerate(futures):
            try:
                out[i] = fut.result(timeout=max(1.0, end - time.monotonic()))
            except FutureTimeout:
                out[i] = None
            except Exception:  # noqa: BLE001 - BrokenProcessPool: a trial killed its process
                out[i] = None
        if any(o is None for o in out):
            for p in list(getattr(pool, "_processes", {}).values()):
                p.kill()
            pool.shutdown(wait=False, cancel_futures=True)
    return out

