"""`pirc-opt`: read a PIR program, verify it, print it in the form asked for.

    pirc-opt [INPUT] [-o OUT] [-x pir|json] [--emit=pir|paddle|json]
             [--from-version=N] [--upgrade] [--target-version=N] [--patch-dir=DIR]
             [--verify|--no-verify] [--strict]
             [--pipeline=SPEC|-p SPEC|--pass-pipeline='builtin.module(SPEC)'] [--list-passes]
             [--verify-each=incremental|full|--no-verify-each] [--device cpu|npu]
             [--pass-stats] [--pass-report=FILE] [--explain=PASSES] [--rollout=FILE] [--bisect-limit=N]
             [--params FILE.pdiparams [--params-out OUT.pdiparams]]
             [--split-input-file] [--verify-diagnostics] [--debug] [--version]
"""

from __future__ import annotations

import argparse
import sys

from ..errors import ErrorList, PircError, SourceError, VersionError, VerifyError
from ..ir.verifier import MAX_REPORTED
from ..formats import (
    INPUT_FORMATS,
    OUTPUT_FORMATS,
    format_program_chunks,
    input_format_for,
    output_format_for,
    parse_program,
    read_input,
    write_output,
)
from ..atomic import run_staged
from .diagnostics import check_expected_diagnostics, split_input
from .exit_status import report_errors
from .process import run_as_process
from .version_flag import add_version_flag

SPLIT_MARKER = "// -----"


def build_arg_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="pirc-opt",
        description="Read a Paddle PIR program (Paddle text, pirc text or saved JSON), "
                    "verify it and print it.")
    p.add_argument("input", nargs="?",
                   help="input file ('-' or none: stdin, as mlir-opt); .json = Paddle JSON, else text")
    p.add_argument("-o", dest="output", default=None, help="output file ('-' for stdout); written atomically")
    p.add_argument("-x", dest="input_format", choices=INPUT_FORMATS, help="input format (default: by extension)")
    p.add_argument("--emit", choices=OUTPUT_FORMATS,
                   help="output form: pir (canonical, lossless), paddle (as Paddle prints), json "
                        "(default: by -o's extension, else the input's kind)")
    p.add_argument("--from-version", type=int, metavar="N",
                   help="PIR version of input that carries none (Paddle's printed text): "
                        "1 = Paddle 3.0, 2 = 3.1, 3 = 3.2, 4 = 3.3")
    p.add_argument("--upgrade", action="store_true",
                   help="upgrade the program to the version this pirc writes, with the patches "
                        "(patches/N.yaml, or --patch-dir)")
    p.add_argument("--target-version", type=int, metavar="N",
                   help="bring the program to PIR version N: upgrade if N is newer than the "
                        "program, downgrade (inverse patches) if older; 0 = develop")
    p.add_argument("--patch-dir", metavar="DIR",
                   help="use the patches in DIR (N.yaml, optional versions.yaml) instead of "
                        "pirc's own; with --upgrade or --target-version")
    p.add_argument("--verify", dest="verify", action="store_true", default=True,
                   help="verify against the program version's op specs (default)")
    p.add_argument("--no-verify", dest="verify", action="store_false", help="skip verification")
    p.add_argument("--strict", action="store_true", help="reject ops no spec of the program's version knows")
    p.add_argument("--split-input-file", action="store_true",
                   help=f"split the input at '{SPLIT_MARKER}' lines and process each part alone")
    p.add_argument("--verify-diagnostics", action="store_true",
                   help="check that the errors match '// expected-error@+N {{...}}' comments")
    p.add_argument("-p", "--pipeline", metavar="SPEC",
                   help="run a pass pipeline after reading (and upgrading): a named one "
                        "(default) or passes with options (cse,dce); see --list-passes")
    p.add_argument("--pass-pipeline", metavar="'builtin.module(SPEC)'",
                   help="mlir-opt's form of --pipeline: builtin.module(cse,dce) is -p cse,dce")
    p.add_argument("--list-passes", action="store_true",
                   help="list every pass with its version, options, requires, invariants, "
                        "devices and PIR versions, and the named pipelines")
    p.add_argument("--no-verify-each", dest="verify_each", action="store_false", default=True,
                   help="do not run the verifier after each pass (declared invariants and the "
                        "rewrite-gate check still run)")
    p.add_argument("--verify-each", dest="verify_each", choices=("incremental", "full"),
                   help="after each pass: verify the ops it touched and check that it changed "
                        "the IR only through the rewrite gate (incremental, the default; "
                        "PIRC_VERIFY_EACH sets it), or verify the whole program and check the "
                        "gate by fingerprints and attributes before and after (full)")
    p.add_argument("--device", choices=("cpu", "npu"), default=None,
                   help="the device the program is optimised for: selects device-gated passes "
                        "(default: the pipeline's, `npu` for -p npu, else cpu)")
    p.add_argument("--pass-stats", action="store_true",
                   help="print each pass's statistics on stderr after the pipeline")
    p.add_argument("--pass-report", metavar="FILE",
                   help="write the pipeline's report as JSON (written atomically)")
    p.add_argument("--pass-timing", action="store_true", help="print each pass's time on stderr")
    p.add_argument("--explain", metavar="PASSES",
                   help="print on stderr, for these passes (comma-separated), each rule's rewrites "
                        "and near misses: candidates that matched a root and a producer, the "
                        "check that failed and where")
    p.add_argument("--print-ir-before", metavar="PASSES", help="print the IR before these passes (comma-separated) on stderr")
    p.add_argument("--print-ir-after", metavar="PASSES", help="print the IR after these passes on stderr")
    p.add_argument("--print-ir-after-all", action="store_true", help="print the IR after every pass")
    p.add_argument("--print-ir-after-change", action="store_true", help="print the IR after each pass that changed it")
    p.add_argument("--print-ir-after-failure", action="store_true", help="print the IR after a pass that failed")
    p.add_argument("--crash-reproducer", metavar="FILE", default="pirc-crash.pir",
                   help="where a failing pass's reproducer goes (default: pirc-crash.pir here)")
    p.add_argument("--run-reproducer", metavar="FILE",
                   help="replay a crash or bisection reproducer: its IR through its pipeline "
                        "(and its bisect limit)")
    p.add_argument("--rollout", metavar="FILE",
                   help="each pass's rollout state (YAML: passes: {NAME: {state: canary, "
                        "fraction: 0.1}}); wins over PIRC_ROLLOUT")
    p.add_argument("--bisect-limit", type=_count, metavar="N",
                   help="apply only the first N rewrites of the pipeline; each rewrite is "
                        "logged on stderr (BISECT: running / NOT running pass (K) NAME on FP)")
    p.add_argument("--params", metavar="FILE.pdiparams",
                   help="the program's parameters (Paddle .pdiparams), for passes that read or "
                        "fold weights (conv-bn-fold, param-fold)")
    p.add_argument("--params-out", metavar="OUT.pdiparams",
                   help="write the parameters after the pipeline: the program's remaining ones, "
                        "new ones included, sorted as Paddle saves them (written atomically); "
                        "needs --params")
    p.add_argument("--debug", action="store_true", help="show Python tracebacks")
    add_version_flag(p)
    return p


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a number of rewrites (0 or more), got {text!r}")
    return value


def changes_version(args) -> bool:
    return args.upgrade or args.target_version is not None


def read_program(text: str, fmt: str, args, filename: str, line_offset: int = 0):
    """The program the flags ask for before any pass: read, and upgraded or downgraded."""
    if not changes_version(args):
        return parse_program(text, fmt, filename, args.from_version, line_offset)
    program = read_for_version_change(text, fmt, filename, args, line_offset)
    try:
        change_program_version(program, args)
    except PircError as e:
        raise e.in_file(filename) from None
    return program


def uses_pass_manager(args) -> bool:
    """A pipeline, or a flag that reports on one: then --upgrade runs as the manager's first
    pass, so the report, the graph tags and the timing cover it."""
    return args.pipeline is not None or bool(args.pass_report or args.pass_stats or args.pass_timing
                                             or args.explain)


def process_text(text: str, args, filename: str, line_offset: int = 0) -> str:
    fmt = input_format_for(filename, args.input_format, text)
    managed = uses_pass_manager(args)
    if managed and changes_version(args):
        # the upgrade is the pipeline's first pass: read the program as it is, and verify it
        # after the upgrade (the pass's invariant), not before
        program = read_for_version_change(text, fmt, filename, args, line_offset)
    else:
        program = read_program(text, fmt, args, filename, line_offset)
        if args.verify:
            verify_read(program, args, fmt, text, filename, line_offset)
    params = read_program_params(program, args)
    if managed:
        # reload: the program as it entered the pipeline, for a crash reproducer
        reload = lambda: read_for_version_change(text, fmt, filename, args, line_offset)  # noqa: E731
        params = run_passes(program, args, filename, reload, params)
        if args.verify and changes_version(args) and not args.verify_each:
            verify_read(program, args, fmt, text, filename, line_offset)
    if args.params_out is not None:
        from ..runtime.params import write_params
        write_params(args.params_out, params, program)
    out_fmt = output_format_for(fmt, args.output, args.emit)
    return format_program_chunks(program, out_fmt)


def read_program_params(program, args) -> dict | None:
    """--params: the file's tensors named by the program's persisted builtin.parameter ops,
    and the parameters Paddle creates at load (not persistable)."""
    if args.params is None:
        return None
    from ..runtime.params import read_params
    return read_params(args.params, program)


def verify_read(program, args, fmt: str, text: str, filename: str, line_offset: int) -> None:
    from ..ir.verifier import verify_program
    try:
        verify_program(program, strict=args.strict)
    except VerifyError as e:
        if fmt == "json":
            from ..paddle_json.op_paths import located_problems as json_located
            raise json_located(e, program, filename) from None
        raise located_problems(e, program, text, filename, line_offset) from None


def cli_pipeline(args):
    """The pipeline the flags ask for: --upgrade / --target-version as the upgrade pass,
    first, then --pipeline's passes."""
    from ..passes import Pipeline, build_pipeline

    pipeline = build_pipeline(args.pipeline) if args.pipeline is not None else Pipeline("", ())
    if not changes_version(args):
        return pipeline
    from ..passes.upgrade import Upgrade

    upgrade = Upgrade(target_version=-1 if args.target_version is None else args.target_version,
                      patch_dir=args.patch_dir or "", allow_downgrade=not args.upgrade)
    spec = ",".join(s for s in ("upgrade", pipeline.spec) if s)
    return Pipeline(spec, (upgrade,) + pipeline.passes, pipeline.name, pipeline.version, pipeline.device)


def run_passes(program, args, filename: str, reload, params=None) -> dict | None:
    """--pipeline: build it (checked before anything runs), run it, report; the parameters
    after it.  A failing pass stops the run with its error and a crash reproducer
    (--crash-reproducer)."""
    from ..passes import PassFailure, PipelineError, run_pipeline
    from .pass_instruments import PrintIR, pass_names, print_pass_timing
    from .pass_report import print_explain, print_pass_stats, write_pass_report

    pipeline = cli_pipeline(args)
    instruments = [PrintIR(args)]  # checks the pass names it prints around
    explain = pass_names("--explain", args.explain)
    try:
        result = run_pipeline(program, pipeline, device=args.device, verify_each=args.verify_each,
                              instruments=instruments, program_name=program_name(filename),
                              params=params, rollout=args.rollout, bisect_limit=args.bisect_limit,
                              bisect_echo=sys.stderr)
    except PassFailure as e:
        note = write_reproducer(args, pipeline, e, reload, filename)
        raise PircError(f"{e}{note}").in_file(filename) from None
    except PipelineError:
        raise  # about a flag or PIRC_DISABLE_PASSES / PIRC_ROLLOUT, not the input file
    except PircError as e:
        raise e.in_file(filename) from None
    if args.pass_timing:
        print_pass_timing(result)
    if args.pass_stats:
        print_pass_stats(result, sys.stderr)
    if explain:
        print_explain(result, explain, filename, sys.stderr)
    if args.pass_report:
        write_pass_report(result, program, filename, args.pass_report)
    return result.params


def program_name(filename: str) -> str:
    """A program's name for rollout allowlists and reports: its file's stem."""
    from pathlib import Path
    return Path(filename).stem


def write_reproducer(args, pipeline, failure, reload, filename: str) -> str:
    """Write the reproducer of `failure`; the sentence the error ends with (where it is, or
    why there is none).  The passes before the failing one rerun as they ran (the same
    rollout, the same bisect limit), and what is left of the limit goes in the file."""
    from ..atomic import write_diagnostic
    from ..passes import run_pipeline
    from ..passes.infra.reproducer import reproducer_text

    if not args.crash_reproducer:
        return ""
    try:
        before = reload()
        prefix = run_pipeline(before, pipeline, device=args.device, verify_each=False,
                              stop_after=failure.index, program_name=program_name(filename),
                              rollout=args.rollout, bisect_limit=args.bisect_limit)
        left = None if args.bisect_limit is None else max(args.bisect_limit - prefix.bisect_count, 0)
        write_diagnostic(args.crash_reproducer,  # written because the command fails
                         [reproducer_text(before, pipeline, failure.index, str(failure), left)])
    except (PircError, OSError) as e:
        return f"\nnote: no crash reproducer written: {e}"
    return (f"\nnote: the IR before the pass and the pipeline from it are in {args.crash_reproducer}; "
            f"replay with: pirc-opt --run-reproducer={args.crash_reproducer}")


def change_program_version(program, args) -> None:
    """--upgrade / --target-version=N.  --upgrade never goes back: with an older
    --target-version it is refused, and the message names the flags that downgrade."""
    from ..versioning.planner import name_version
    from ..versioning.upgrade import apply_plan, plan_for
    plan = plan_for(program, args.target_version, args.patch_dir)
    if args.upgrade and plan.is_downgrade:
        raise PircError(
            f"--upgrade --target-version={args.target_version}: version "
            f"{name_version(plan.target)} is older than the program's version "
            f"{name_version(program.version)}, and --upgrade never goes back; to downgrade, "
            f"drop --upgrade: --target-version={args.target_version} alone")
    apply_plan(program, plan)


def read_for_version_change(text: str, fmt: str, filename: str, args, line_offset: int):
    """Parse; a program newer than pirc is refused naming the first op that blocks."""
    try:
        return parse_program(text, fmt, filename, args.from_version, line_offset)
    except VersionError as e:
        from ..ir.program import LATEST_VERSION
        from ..versioning.planner import describe_newer_program
        stated = args.from_version if args.from_version is not None else None
        if stated is not None and stated <= LATEST_VERSION:
            raise
        newer = describe_newer_program(text, fmt, filename, stated, LATEST_VERSION)
        if "newer than" not in str(e) and "reads versions" not in str(e):
            raise
        raise newer from None


def located_problems(error: VerifyError, program, text: str, filename: str,
                     line_offset: int = 0) -> PircError:
    """Point each verification problem at its op's source line, when the input was text."""
    if not program.locations or not error.problems:
        return error
    lines = text.splitlines()
    located = []
    for problem in error.problems[:MAX_REPORTED]:
        line, col = program.locations.get(problem.op, (0, 0))
        at = line - line_offset
        source = lines[at - 1] if 0 < at <= len(lines) else None
        located.append(SourceError(f"{problem.op.name}: {problem.message}", filename, line, col, source))
    return ErrorList(located)


def run(argv=None) -> int:
    parser = build_arg_parser()
    args = parser.parse_args(argv)
    if args.patch_dir is not None and not changes_version(args):
        parser.error("--patch-dir needs --upgrade or --target-version")
    if args.list_passes:
        from .pass_list import print_pass_list
        return report_errors(lambda: print_pass_list() or 0, args.debug)  # a broken plugin: exit 1
    if args.run_reproducer is not None:
        if args.input is not None or args.pipeline is not None or args.pass_pipeline is not None:
            parser.error("--run-reproducer replays its file's own IR and pipeline: give no input or --pipeline")
        args.input = args.run_reproducer
    if args.input is None:
        args.input = "-"  # as mlir-opt: no input file reads stdin
    if args.pass_pipeline is not None and args.pipeline is not None:
        parser.error("--pass-pipeline and --pipeline (-p) both give the pipeline: keep one")
    if args.params_out is not None and args.params is None:
        parser.error("--params-out writes the parameters after the pipeline: give the "
                     "program's parameters with --params FILE.pdiparams")
    if args.params is not None and args.split_input_file:
        parser.error("--params belongs to one program: drop --split-input-file")
    if args.pass_report is not None and args.split_input_file:
        parser.error("--pass-report describes one program: drop --split-input-file")
    filename = "<stdin>" if args.input == "-" else args.input
    if args.split_input_file and output_format_for(
            input_format_for(filename, args.input_format), args.output, args.emit) == "json":
        parser.error("--split-input-file writes text (its parts joined by '// -----'); "
                     "use --emit=pir or --emit=paddle")
    # every output is staged and written at the end, none when the command fails (pirc.atomic)
    return report_errors(lambda: run_staged(lambda: process(args, filename), args.output,
                                            args.pass_report, args.params_out), args.debug)


def process(args, filename: str) -> int:
    """Read, transform and write one input, as the flags say; the exit status."""
    if args.pass_pipeline is not None:
        from ..passes.infra.anchored_pipeline import pipeline_from_anchored
        args.pipeline = pipeline_from_anchored(args.pass_pipeline)
    text = read_input(args.input)
    if args.run_reproducer is not None:
        from ..passes.infra.reproducer import read_reproducer
        args.pipeline, limit = read_reproducer(text, filename)
        if args.bisect_limit is None:
            args.bisect_limit = limit
    if args.verify_diagnostics:
        return check_expected_diagnostics(text, filename, args, process_text)
    if args.split_input_file:
        outputs, failed = [], False
        for chunk, offset in split_input(text, SPLIT_MARKER):
            try:
                outputs.append("".join(process_text(chunk, args, filename, offset)))
            except PircError as e:  # report every part's error, as mlir-opt does
                print(e.render(), file=sys.stderr)
                failed = True
        if failed:
            return 1
        write_output(args.output, (SPLIT_MARKER + "\n").join(outputs))
        return 0
    write_output(args.output, process_text(text, args, filename))
    return 0


def main() -> None:
    run_as_process(run)


if __name__ == "__main__":
    main()
