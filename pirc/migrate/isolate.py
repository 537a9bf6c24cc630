"""Run one model in a child process, so that whatever it does ends with the child.

`run_isolated(fn, args)` forks a child from this process's template (multiprocessing's
*forkserver*, started on first use with `pirc.migrate.template` and `fn`'s module preloaded:
see template.py), runs `fn(*args)` there and sends the value back through a pipe.  The caller
watches the child and never dies with it:

- a segfault, an abort or any signal: status "crashed", "killed by signal 11 (SIGSEGV)";
- `timeout` seconds passed: the child is killed, status "timeout";
- `max_memory_mb`: the child's resident memory is polled in /proc/PID/status (VmHWM, the
  kernel's high-water mark of VmRSS, so a peak between two polls is still seen) and the child
  is killed once it is over the cap: status "oom".  Not RLIMIT_AS: torch reserves far more
  address space than it touches, and a cap on address space fails its allocations long
  before the memory is used;
- `fn` raised: status "failed", reason "ExcType: first line of the message" (the job never
  raises; this is the net under it).

`peak_mb` is the child's peak *resident* memory in MiB (VmHWM: the largest the child's RSS
was while it was polled, and the child's own reading as it finishes).  RSS counts every page
mapped in the child, including the pages it shares, unmodified, with the template (torch's
and pirc's code and data): a child that allocates nothing already shows the template's
resident size, a hundred MiB or more.  A child that dies before it is first seen (a
segfault in its first milliseconds) shows 0.  The cap is therefore on RSS too: set `--max-memory-mb`
above the template's size plus what a model needs.

A worker killed mid-model leaves no orphan writing into OUT: the child watches the process
that started it (a pidfd on the worker) and exits with it, and asks the kernel to kill it
when the template dies (PR_SET_PDEATHSIG).  Watching the template alone is not enough: every
child holds the worker's end of the template's keep-alive pipe, so the template outlives its
worker for as long as any child runs.
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import multiprocessing.connection
import os
import select
import signal
import sys
import threading
import time
import types
from dataclasses import dataclass

from ..errors import first_line

TEMPLATE_MODULE = "pirc.migrate.template"

# How often the watcher reads the child's memory and checks the clock; a result or the
# child's death wakes it at once.
_POLL_SECONDS = 0.05

_PR_SET_PDEATHSIG = 1


@dataclass
class Outcome:
    status: str | None   # None: fn returned; else "timeout" | "oom" | "crashed" | "failed"
    value: object        # the function's return value (None unless status is None)
    reason: str          # why, for the statuses other than None
    seconds: float
    peak_mb: float       # peak resident memory of the child (MiB): see the module docstring


def run_isolated(fn, args: tuple, *, timeout: float | None = None,
                 max_memory_mb: int | None = None) -> Outcome:
    """`fn(*args)` in a child forked from the template; `fn` is a top-level function of an
    importable module (the child imports it by name)."""
    if fn.__module__ == "__main__":
        raise ValueError(f"run_isolated needs a function of an importable module, not "
                         f"__main__.{fn.__qualname__}")
    context = _template_context(fn)
    receiver, sender = context.Pipe(duplex=False)
    child = context.Process(target=_child_main, args=(fn, args, sender), name="pirc-migrate-model")
    with _main_module_hidden():
        child.start()  # the first call in a process waits here for the template to start
    start = time.monotonic()
    sender.close()
    watch = _Watch(child, receiver, start, timeout, max_memory_mb)
    try:
        return watch.until_done()
    finally:
        if child.is_alive():
            child.kill()
        child.join()
        receiver.close()


def _template_context(fn) -> multiprocessing.context.BaseContext:
    """The forkserver context; its server (the template) starts on first use in this process,
    preloading the template module and `fn`'s module (a real run's `pirc.migrate.job`)."""
    context = multiprocessing.get_context("forkserver")
    preload = [TEMPLATE_MODULE]
    if fn.__module__ != TEMPLATE_MODULE:
        preload.append(fn.__module__)
    context.set_forkserver_preload(preload)
    return context


@contextlib.contextmanager
def _main_module_hidden():
    """Start the child without the caller's main module.  multiprocessing has every child
    re-run the main script (or module) of the process that starts it, and the forkserver
    never preloads it (CPython 3.11's server is not even given the main path): a script that
    imports Dask paid 170 ms a model for it.  The child needs nothing from it, `fn` lives in
    an importable module, so it is told there is none."""
    main = sys.modules["__main__"]
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        sys.modules["__main__"] = main


class _Watch:
    """The caller's side: wait for the child's message or its end, polling time and memory."""

    def __init__(self, child, receiver, start, timeout, max_memory_mb):
        self.child, self.receiver, self.start = child, receiver, start
        self.timeout, self.max_memory_mb = timeout, max_memory_mb
        self.peak_mb = 0.0

    def until_done(self) -> Outcome:
        waitables = [self.receiver, self.child.sentinel]
        while True:
            self.peak_mb = max(self.peak_mb, resident_peak_mb(self.child.pid))
            wait = _POLL_SECONDS
            if self.timeout is not None:   # wake at the deadline, not up to a poll after it
                wait = max(min(wait, self.start + self.timeout - time.monotonic()), 0.0)
            ready = multiprocessing.connection.wait(waitables, timeout=wait)
            self.peak_mb = max(self.peak_mb, resident_peak_mb(self.child.pid))
            if self.receiver in ready:
                message = self._receive()
                if message is not None:
                    return self._returned(*message)
                waitables = [self.child.sentinel]  # the pipe closed with nothing in it
            elif self.child.sentinel in ready:
                # Dead: its last words may still be in the pipe (sent, then exited).
                message = self._receive() if self.receiver.poll() else None
                if message is not None:
                    return self._returned(*message)
                return self._ended(*self._death())
            elapsed = time.monotonic() - self.start
            if self.timeout is not None and elapsed > self.timeout:
                return self._ended("timeout", f"no result after {self.timeout:g} s: killed")
            if self.max_memory_mb is not None and self.peak_mb > self.max_memory_mb:
                return self._ended("oom", f"resident memory reached {self.peak_mb:.0f} MiB, over "
                                          f"the cap of {self.max_memory_mb} MiB: killed")

    def _receive(self):
        try:
            return self.receiver.recv()
        except (EOFError, OSError):
            return None

    def _returned(self, kind: str, payload, child_peak_mb: float) -> Outcome:
        self.peak_mb = max(self.peak_mb, child_peak_mb)
        seconds = time.monotonic() - self.start
        if kind == "value":
            return Outcome(None, payload, "", seconds, self.peak_mb)
        return Outcome("failed", None, payload, seconds, self.peak_mb)

    def _death(self) -> tuple[str, str]:
        self.child.join()
        code = self.child.exitcode
        if code is not None and code < 0:
            return "crashed", f"killed by signal {-code} ({_signal_name(-code)})"
        return "crashed", f"exited with status {code} without a result"

    def _ended(self, status: str, reason: str) -> Outcome:
        if self.child.is_alive():
            self.child.kill()
        self.child.join()
        return Outcome(status, None, reason, time.monotonic() - self.start, self.peak_mb)


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return "unknown signal"


def resident_peak_mb(pid: int | str) -> float:
    """VmHWM of process `pid` ("self" for this one) in MiB; 0 once it is gone."""
    try:
        with open(f"/proc/{pid}/status", "rb") as f:
            for line in f:
                if line.startswith(b"VmHWM:"):
                    return int(line.split()[1]) / 1024
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        pass
    return 0.0


def describe_exception(error: BaseException) -> str:
    """'ExcType: first line of the message', the reason a record gives for an exception."""
    line = first_line(error)
    return f"{type(error).__name__}: {line}" if line else type(error).__name__


def _child_main(fn, args, sender) -> None:
    """The child: die with the worker and the template, run `fn`, send (kind, payload, own
    peak MiB).  Ctrl-C on a terminal reaches every process of the run: the child ignores it
    (its worker stops it), else the interrupted model would be reported "failed"."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent()
    _die_with_starter()
    try:
        message = ("value", fn(*args))
    except BaseException as error:  # noqa: BLE001 - the child reports everything, then exits
        message = ("raised", describe_exception(error))
    try:
        try:
            sender.send(message + (resident_peak_mb("self"),))
        except OSError:
            raise
        except Exception as error:  # an unpicklable value
            sender.send(("raised", describe_exception(error), resident_peak_mb("self")))
    except OSError:
        pass  # the caller is gone (its worker was killed): nobody to tell
    sender.close()


def _die_with_starter() -> None:
    """Exit as soon as the process that started this child (the worker) is gone."""
    try:
        worker = os.pidfd_open(multiprocessing.parent_process().pid)
    except ProcessLookupError:
        os._exit(1)

    def watch():
        select.select([worker], [], [])
        os._exit(1)

    threading.Thread(target=watch, name="pirc-migrate-watch-worker", daemon=True).start()


def die_with_parent() -> None:
    """SIGKILL this process when its parent exits (Linux's PR_SET_PDEATHSIG).  The parent is
    the thread that started this process: start it from a thread that lives as long."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() == 1:  # the parent died before the request took effect
        os._exit(1)
