"""`pirc-migrate`: upgrade (and optimise) every saved program of a model zoo, check each
upgrade numerically, and write a report people can read.

    pirc-migrate SRC -o OUT [--target-version N] [--pipeline SPEC] [--jobs N]
                 [--executor local|dask] [--scheduler ADDR] [--resume] [--timeout S]
                 [--max-memory-mb M] [--check auto|none|self|outputs] [--skip-list FILE]
                 [--alarm-change-rate X] [--compare-pipelines P1 P2]
    pirc-migrate --compare A.json B.json [--alarm-change-rate X]

The pieces live in pirc.migrate (docs/MIGRATE.md): `sources` finds the models, `job` does
one model, `isolate` runs it in a child forked from a warm template, `engine` spreads the
children over a process pool or a Dask cluster, `journal` makes a run resumable, `report`
and `compare` say what happened.  This module only wires them and talks to the terminal.

Exit status: 0 every model fine (upgraded, unchanged or skipped), 1 any other verdict
(drifted, refused, failed, timeout, oom, crashed), 2 bad usage (flags, SRC, a resume whose
options differ from the journal's), 3 the change-rate alarm (--compare,
--compare-pipelines).
"""

from __future__ import annotations

import argparse
import datetime
import os
import sys

from ..errors import PircError
from .exit_status import report_errors
from .process import run_as_process
from .version_flag import add_version_flag

USAGE_STATUS = 2
ALARM_STATUS = 3


class UsageError(PircError):
    """A command line that cannot run: exit status 2, as argparse's own errors."""


class BadSetup(Exception):
    """A pirc error met while setting a run up, before any model ran (the options, SRC, the
    skip list, a journal that does not match --resume): bad usage, exit status 2."""

    def __init__(self, error: PircError):
        super().__init__(str(error))
        self.error = error


def build_arg_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="pirc-migrate",
        description="Upgrade every saved Paddle program under SRC (NAME.json with NAME.pdiparams "
                    "and NAME.io.npz beside it) to one PIR version, optionally optimise it, check "
                    "each upgrade numerically, and write the results and OUT/report.{json,md,html}.")
    p.add_argument("src", nargs="?", metavar="SRC", help="folder searched for NAME.json programs")
    p.add_argument("-o", "--output", metavar="OUT", help="output folder (created; SRC is never written)")
    p.add_argument("--target-version", type=int, metavar="N",
                   help="PIR version to upgrade to (default: the newest this pirc writes)")
    p.add_argument("-p", "--pipeline", metavar="SPEC",
                   help="pass pipeline run after the upgrade, with the parameters (e.g. default)")
    p.add_argument("--jobs", type=_positive_int, default=1, metavar="N",
                   help="models at a time: pool processes, or Dask workers of a local cluster")
    p.add_argument("--executor", choices=("local", "dask"), default="local",
                   help="local: a process pool on this machine; dask: a Dask cluster "
                        "(a local one, or --scheduler's); needs pirc[dask]")
    p.add_argument("--scheduler", metavar="ADDR",
                   help="join a running Dask scheduler (tcp://HOST:PORT); implies --executor dask")
    p.add_argument("--resume", action="store_true",
                   help="continue an interrupted run into the same OUT, redoing only models "
                        "without a result; the options must be the journal's")
    p.add_argument("--timeout", type=_positive_float, metavar="S", help="seconds per model")
    p.add_argument("--max-memory-mb", type=_positive_int, metavar="M",
                   help="kill a model whose process holds more resident memory (MiB)")
    p.add_argument("--check", choices=("auto", "none", "self", "outputs"), default="auto",
                   help="self: the original (its own version's semantics) against the upgraded "
                        "program on the same inputs; outputs: the upgraded program against the "
                        "recorded outputs; auto (default): self where it can run, else none")
    p.add_argument("--skip-list", metavar="FILE",
                   help="YAML list of {path: GLOB, reason, expires: YYYY-MM-DD}: known failures "
                        "reported as skipped (an expired entry warns, and the model runs)")
    p.add_argument("--compare", nargs=2, metavar=("A.json", "B.json"),
                   help="compare two reports (no SRC): per-pass change rates, changed outputs, "
                        "worse numeric verdicts")
    p.add_argument("--compare-pipelines", nargs=2, metavar=("P1", "P2"),
                   help="migrate SRC with pipeline P1 into OUT/a and with P2 into OUT/b, then "
                        "compare the two reports")
    p.add_argument("--alarm-change-rate", type=_rate, metavar="X",
                   help="exit 3 when a pass's change rate moves by more than X (0-1) between "
                        "the compared reports, or a model's numeric verdict got worse")
    p.add_argument("--progress", choices=("auto", "bar", "lines", "none"), default="auto",
                   help="a progress bar on a terminal, one line per model otherwise (auto)")
    p.add_argument("--debug", action="store_true", help="show Python tracebacks")
    add_version_flag(p)
    return p


def _number(convert, accept, expected: str):
    """An argparse type: `convert(text)` when `accept` holds for it, else what was expected."""
    def parse(text: str):
        try:
            value = convert(text)
        except ValueError:
            value = None
        if value is None or not accept(value):
            raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}")
        return value
    return parse


_positive_int = _number(int, lambda n: n >= 1, "a whole number >= 1")
_positive_float = _number(float, lambda x: 0 < x < float("inf"), "a number of seconds > 0")
_rate = _number(float, lambda x: 0 <= x <= 1, "a fraction between 0 and 1")


def run(argv=None) -> int:
    parser = build_arg_parser()
    args = parser.parse_args(argv)
    if args.compare:
        if args.src or args.output or args.compare_pipelines:
            parser.error("--compare reads two reports: give no SRC, -o or --compare-pipelines")
    else:
        if not args.src or not args.output:
            parser.error("give SRC and -o OUT (or --compare A.json B.json)")
        if args.alarm_change_rate is not None and not args.compare_pipelines:
            parser.error("--alarm-change-rate compares two runs: use it with --compare or "
                         "--compare-pipelines")
    if args.scheduler:
        args.executor = "dask"

    def command() -> int:
        try:
            if args.compare:
                return compare_files(*args.compare, args.alarm_change_rate)
            if args.compare_pipelines:
                return compare_pipelines(args)
            return migrate(args, args.output, args.pipeline)
        except BadSetup as e:
            print(e.error.render(), file=sys.stderr)
            return USAGE_STATUS

    return report_errors(command, args.debug)


# -- one migration ---------------------------------------------------------------------------

def migrate(args, out: str, pipeline: str | None) -> int:
    """Migrate SRC into `out` with `pipeline`; write the reports; the report's exit status."""
    from .. import __version__
    from ..atomic import remove_stale_temporaries
    from ..migrate.engine import Task, run_tasks
    from ..migrate.journal import Journal
    from ..migrate.options import task_key
    from ..migrate.report import build_report, exit_status, write_reports
    from ..migrate.sources import find_models

    try:
        src, out = os.path.abspath(args.src), os.path.abspath(out)
        _check_folders(src, out)
        options = _options(args, pipeline)
        sources = find_models(src)
        skips = _skipped(args.skip_list, sources)
        try:
            os.makedirs(out, exist_ok=True)
        except OSError as e:
            raise UsageError(f"cannot create the output folder: {e.strerror}").in_file(out) from None
        journal = Journal.open(out, options, resume=args.resume)
    except PircError as e:
        raise BadSetup(e) from None
    remove_stale_temporaries(out)   # what a killed run was writing: redone below
    done = journal.done()
    records, tasks = [], []
    for source in sources:
        key = task_key(source, options)
        if source.path in skips:
            records.append(skips[source.path])
        elif key in done:
            records.append(done[key])
        else:
            tasks.append(Task(key, source, options, src, out))
    progress = _progress(args.progress, len(sources), len(sources) - len(tasks))
    keys = {t.source.path: t.key for t in tasks}

    def finished(record: dict) -> None:
        journal.append(record, keys[record["path"]])
        records.append(record)
        progress(record)

    try:
        run_tasks(tasks, executor=args.executor, jobs=args.jobs, scheduler=args.scheduler,
                  on_result=finished)
    finally:
        progress(None)
    report = build_report(records, options, __version__)
    write_reports(out, report)
    return exit_status(report)


def _check_folders(src: str, out: str) -> None:
    if not os.path.isdir(src):
        raise UsageError("SRC is not a folder" if os.path.exists(src) else
                         "SRC does not exist").in_file(src)
    real_src, real_out = os.path.realpath(src), os.path.realpath(out)
    if real_out == real_src or real_out.startswith(real_src + os.sep) or \
            real_src.startswith(real_out + os.sep):
        raise UsageError(f"OUT ({out}) and SRC ({src}) overlap: pirc-migrate never writes into "
                         "SRC, and a later run would read OUT's programs as models; pick an OUT "
                         "outside SRC")


def _options(args, pipeline: str | None):
    """The run's MigrateOptions, checked before any model runs (target, pipeline, limits)."""
    from ..migrate.options import MigrateOptions

    return MigrateOptions(target_version=args.target_version, pipeline=pipeline,
                          check=args.check, timeout=args.timeout, max_memory_mb=args.max_memory_mb)


def _skipped(path: str | None, sources) -> dict:
    """path -> the `skipped` record of each model the skip list holds (not expired)."""
    if path is None:
        return {}
    from ..migrate.skiplist import load_skip_list, skipped_record

    skip_list = load_skip_list(path)
    today = datetime.date.today()
    skipped = {}
    for source in sources:
        reason, warning = skip_list.match(source.path, today)
        if warning:
            print(f"{path}: warning: {warning}", file=sys.stderr)
        if reason is not None:
            skipped[source.path] = skipped_record(source.path, reason)
    return skipped


# -- comparing ---------------------------------------------------------------------------------

def compare_files(a: str, b: str, alarm_rate: float | None) -> int:
    from ..migrate.compare import read_report

    return _compare(read_report(a), read_report(b), alarm_rate)


def compare_pipelines(args) -> int:
    """Migrate SRC twice (OUT/a with P1, OUT/b with P2) and compare the two reports."""
    from ..migrate.compare import read_report

    p1, p2 = args.compare_pipelines
    status = 0
    for sub, pipeline in (("a", p1), ("b", p2)):
        status = max(status, migrate(args, os.path.join(args.output, sub), pipeline))
    a, b = (read_report(os.path.join(args.output, sub, "report.json")) for sub in "ab")
    return max(status, _compare(a, b, args.alarm_change_rate))


def _compare(a: dict, b: dict, alarm_rate: float | None) -> int:
    from ..migrate.compare import alarms, compare_reports, format_comparison

    cmp = compare_reports(a, b)
    print(format_comparison(cmp))
    raised = alarms(cmp, alarm_rate) if alarm_rate is not None else []
    for message in raised:
        print(f"alarm: {message}", file=sys.stderr)
    return ALARM_STATUS if raised else 0


# -- progress ----------------------------------------------------------------------------------

def _progress(mode: str, total: int, already: int):
    """A callback per finished record (None at the end): a tqdm bar on a terminal, else one
    plain line per model on stderr (CI logs, pipes)."""
    if mode == "auto":
        mode = "bar" if sys.stderr.isatty() else "lines"
    if mode == "none":
        return lambda record: None
    if mode == "bar":
        from tqdm import tqdm

        bar = tqdm(total=total, initial=already, unit="model", file=sys.stderr)

        def update(record):
            if record is None:
                bar.close()
            else:
                bar.set_postfix_str(f"{record['status']} {record['path']}", refresh=False)
                bar.update(1)
        return update
    count = [already]

    def line(record):
        if record is not None:
            count[0] += 1
            seconds = record.get("seconds")
            took = f" {seconds:.1f}s" if isinstance(seconds, (int, float)) else ""
            print(f"[{count[0]}/{total}] {record['status']:9} {record['path']}{took}",
                  file=sys.stderr, flush=True)
    return line


def main() -> None:
    run_as_process(run)


if __name__ == "__main__":
    main()
