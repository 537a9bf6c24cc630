"""A pirc command as a whole process: one job, then exit, without the cyclic GC.

A command builds one program, writes it and exits.  Two costs of CPython's cyclic garbage
collector are pure overhead for such a process, and at 100k ops they were a quarter of
`pirc-opt`'s run (docs/PERFORMANCE.md, "Whole process"):

* during the job, every generation-2 collection traverses the whole IR (millions of
  objects, all alive until the end): ~0.4 s of CPU for a text round trip.  The readers
  and the JSON writer already paused it; the verifier, the upgrade and the printers did not.
  Disabling it for the job leaves memory to reference counting, which frees everything but
  cycles: the IR's own cycles (an op and its block) live until the end anyway.
* at exit, the interpreter's final collection frees the IR cycle by cycle (0.6-0.9 s).
  `gc.freeze()` moves every object to the permanent generation, which no collection
  visits; the process then exits without that walk.  Everything else at exit still
  happens as usual: buffered output is flushed, atexit handlers (coverage, profilers) run.

The job runs with dataclasses' generated methods compiled once per install
(pirc.dataclass_code): what a pipeline imports defines some 40 dataclasses.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable
from typing import NoReturn


def run_as_process(job: Callable[[], int]) -> NoReturn:
    """Run the command `job` (it returns the exit status) and exit with its status."""
    from ..dataclass_code import compiled_dataclass_methods

    gc.disable()
    try:
        with compiled_dataclass_methods():
            status = job()
    except BrokenPipeError:
        # the reader went away (`pirc-opt --list-passes | head`): stop quietly, as Unix tools
        # do; point stdout at devnull so the interpreter's final flush cannot fail again
        import os
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        status = 141  # 128 + SIGPIPE, what a shell reports for a killed writer
    finally:
        gc.freeze()
    sys.exit(status)
