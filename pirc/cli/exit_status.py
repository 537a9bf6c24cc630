"""How every pirc command ends: a pirc error is its rendered message on stderr and exit 1.

No Python traceback unless --debug (README, "Errors").  A pirc error renders itself
(pirc.errors.render_diagnostic: one `error:` per message, after its location).  Any other
exception is a bug in pirc, not in the input: it is reported in one line that says so and
how to get the traceback (`--debug`), with exit status 70 (EX_SOFTWARE, sysexits.h), so a
script or the fuzzer tells a pirc bug from a refused input (1).  Ctrl-C is exit 130, as a
shell's; a reader that stops early (`pirc-opt big.pir | head`) ends the command quietly
with 141, the status a shell gives a process killed by SIGPIPE.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Callable

from ..errors import PircError, PircWarning

INTERNAL_ERROR_STATUS = 70


def report_errors(command: Callable[[], int], debug: bool = False, error_status: int = 1) -> int:
    """Run `command`; return its exit status, or `error_status` (1) after printing the error
    it raised (pirc-bisect uses 2: its 1 means it found a culprit).

    Its warnings (pirc.errors.PircWarning, issued with `warnings.warn`) print as they come,
    `WHERE: warning: MESSAGE`; other Python warnings as Python prints them."""
    with warnings.catch_warnings():
        warnings.simplefilter("always", PircWarning)
        python_shows = warnings.showwarning

        def show(message, category, filename, lineno, file=None, line=None):
            if isinstance(message, PircWarning):
                print(message.render(), file=sys.stderr)
            else:
                python_shows(message, category, filename, lineno, file, line)

        warnings.showwarning = show
        return _run(command, debug, error_status)


def _run(command: Callable[[], int], debug: bool, error_status: int) -> int:
    try:
        status = command()
        sys.stdout.flush()  # a closed pipe shows here, not as an "Exception ignored" at exit
        return status
    except PircError as e:
        if debug:
            raise
        print(e.render(), file=sys.stderr)
        return error_status
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # Python would report the failed flush of stdout again at exit: point stdout at
        # /dev/null first (the recipe of Python's signal module documentation).
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141
    except Exception as e:  # noqa: BLE001 - the last line of defence: no traceback for users
        if debug:
            raise
        print(f"error: internal error in pirc: {type(e).__name__}: {e}\n"
              "note: this is a bug in pirc, not in the input; rerun with --debug for the "
              "traceback and report it", file=sys.stderr)
        return INTERNAL_ERROR_STATUS
