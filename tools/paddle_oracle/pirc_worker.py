#!/usr/bin/env python3
"""A long-lived pirc process that runs many `pirc-opt` command lines, one per request.

check_optimised_loads.py makes a few thousand `pirc-opt` calls; on a busy 2-core machine the
interpreter start and pirc's imports were a third of each.  This runs the command's own entry
(`pirc.cli.opt.run(argv)`, what the `pirc-opt` script calls, argument parsing, error reporting
and exit status included) in one process.  Protocol: one JSON line per request on stdin,
`{"argv": [...]}`, one `@@RESULT {"rc": N, "stderr": "..."}` line per request on stdout.  The
driver restarts it every few hundred requests, and after a request that does not answer.
"""
import contextlib
import gc
import io
import json
import os
import sys
import traceback


def main():
    from pirc.cli.opt import run

    # the protocol gets a private copy of fd 1; fd 1 itself (what Python and C++ code print)
    # becomes stderr, so nothing else can land between our lines
    out = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    out.write("@@READY {}\n")
    out.flush()
    for line in sys.stdin:
        if not line.strip():
            continue
        req = json.loads(line)
        err = io.StringIO()
        try:
            with contextlib.redirect_stderr(err):
                rc = run(req["argv"])
        except SystemExit as e:  # argparse's usage errors
            rc = e.code if isinstance(e.code, int) else 2
        except Exception:  # noqa: BLE001 -- what the pirc-opt process would show as a crash
            rc, err = 70, io.StringIO(traceback.format_exc())
        gc.collect()
        out.write("@@RESULT " + json.dumps({"rc": rc, "stderr": err.getvalue()[-4000:]}) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
