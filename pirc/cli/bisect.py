"""`pirc-bisect`: which pass, and which of its rewrites, changes what a program computes.

    pirc-bisect PROGRAM --inputs IN.npz [--params P.pdiparams] --pipeline SPEC
                [--reproducer FILE] [-x pir|json] [--from-version=N] [--atol A] [--rtol R]
                [--device cpu|npu|cuda] [--debug] [--version]

Runs PROGRAM on the inputs before and after the pipeline (pirc.testing.bisect).  Exit 0:
the outputs agree (it says so); 1: they diverge, and it prints the first pass and rewrite
after which they do, and writes a reproducer that `pirc-opt --run-reproducer` replays up to
that rewrite; 2: bad input (a program, inputs file, parameters or pipeline it cannot use).
"""

from __future__ import annotations

import argparse

from .exit_status import report_errors
from .process import run_as_process
from .run import add_program_arguments
from .version_flag import add_version_flag

FOUND, BAD_INPUT = 1, 2


def build_arg_parser() -> argparse.ArgumentParser:
    from ..testing.bisect import DEFAULT_REPRODUCER

    p = argparse.ArgumentParser(
        prog="pirc-bisect",
        description="Find the first pass of a pipeline, and the first of its rewrites, after "
                    "which a program's outputs on the given inputs diverge from the original's.")
    add_program_arguments(p)
    p.add_argument("-p", "--pipeline", required=True, metavar="SPEC",
                   help="the pipeline to bisect: a named one (default) or passes with options (cse,dce)")
    p.add_argument("--reproducer", metavar="FILE", default=DEFAULT_REPRODUCER,
                   help=f"where the culprit's reproducer goes (default: {DEFAULT_REPRODUCER} here)")
    p.add_argument("--atol", type=float, default=1e-5, help="absolute tolerance (default 1e-5)")
    p.add_argument("--rtol", type=float, default=1e-4, help="relative tolerance (default 1e-4)")
    p.add_argument("--device", choices=("cpu", "npu", "cuda"), default="cpu")
    p.add_argument("--debug", action="store_true", help="show Python tracebacks")
    add_version_flag(p)
    return p


def run(argv=None) -> int:
    args = build_arg_parser().parse_args(argv)

    def command() -> int:
        from ..errors import LoweringError
        from ..lower.feeds import FeedError
        from ..passes import build_pipeline
        from ..testing.bisect import bisect
        from .opt import program_name
        from .run import load_inputs, read_program_arg

        pipeline = build_pipeline(args.pipeline)  # checked before the program is read
        program, _ = read_program_arg(args)
        inputs = load_inputs(args.inputs)
        try:
            result = bisect(program, inputs, pipeline, args.params, device=args.device,
                            atol=args.atol, rtol=args.rtol, reproducer=args.reproducer,
                            program_name=program_name(args.program))
        except FeedError as e:  # the inputs file, as pirc-run says
            raise e.in_file(args.inputs) from None
        except LoweringError as e:
            raise e.in_file(args.program) from None
        if not result.diverged:
            print(f"no divergence: {args.program}'s outputs agree before and after "
                  f"{pipeline.text() or 'the pipeline'} (atol {args.atol:g}, rtol {args.rtol:g})")
            return 0
        print(result)
        return FOUND

    return report_errors(command, args.debug, error_status=BAD_INPUT)


def main() -> None:
    run_as_process(run)


if __name__ == "__main__":
    main()
