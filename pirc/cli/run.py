"""`pirc-run`: run a PIR program on numpy inputs through its torch lowering.

    pirc-run PROGRAM [-x pir|json] [--from-version=N] [--params FILE.pdiparams]
             --inputs IN.npz --outputs OUT.npz [--device cpu|npu|cuda] [--debug]
    pirc-run --check-lowering PROGRAM [-x pir|json] [--from-version=N]

Inputs are keyed by feed name (the pd_op.data name; the corpus's `in__<feed>` keys are
accepted too); outputs are keyed by fetch name in fetch order, or out0, out1, ... for a
program without fetch ops.  The output file is written atomically.  `--device npu` runs the
`npu` pass pipeline on a copy of the program first (pirc.lower's default on that device).
"""

from __future__ import annotations

import argparse
import io
import sys

from ..atomic import run_staged, write_atomically
from ..errors import PircError
from ..formats import INPUT_FORMATS, input_format_for, parse_program, read_input
from .exit_status import report_errors
from .process import run_as_process
from .version_flag import add_version_flag


class RunError(PircError):
    """A pirc-run problem outside the program itself (inputs file, outputs file)."""


def build_arg_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="pirc-run",
        description="Run a Paddle PIR program (saved JSON or PIR text) on the inputs of an "
                    ".npz file through its torch lowering and write the fetched outputs.")
    add_program_arguments(p, inputs_required=False)
    p.add_argument("--outputs", metavar="OUT.npz",
                   help="where to write the outputs, keyed by fetch name (atomically)")
    p.add_argument("--check-lowering", action="store_true",
                   help="run nothing: list each op kind the program needs that pirc cannot "
                        "lower (NAME (N ops): reason); exit 1 when there is any")
    p.add_argument("--device", choices=("cpu", "npu", "cuda"), default="cpu",
                   help="where the module runs; npu first runs the `npu` pass pipeline (its "
                        "fusions) on a copy of the program, as pirc.lower(device='npu') does, "
                        "and lowers the fused ops to torch_npu calls (their CPU references "
                        "where no NPU is usable)")
    p.add_argument("--debug", action="store_true", help="show Python tracebacks")
    add_version_flag(p)
    return p


def add_program_arguments(p: argparse.ArgumentParser, inputs_required: bool = True) -> None:
    """What a command that runs a program on inputs takes (pirc-run, pirc-bisect): the
    program, its format and version, its parameters and the inputs."""
    p.add_argument("program", help="program file; .json = Paddle JSON, else PIR text")
    p.add_argument("-x", dest="input_format", choices=INPUT_FORMATS, help="program format (default: by extension)")
    p.add_argument("--from-version", type=int, metavar="N",
                   help="PIR version of a program that carries none (Paddle's printed text)")
    p.add_argument("--params", metavar="FILE", help="the model's .pdiparams file")
    p.add_argument("--inputs", required=inputs_required, metavar="IN.npz",
                   help="inputs keyed by feed name (or in__<feed>)")


def read_program_arg(args):
    """The program `add_program_arguments`' flags name, read (not verified)."""
    filename = "<stdin>" if args.program == "-" else args.program
    text = read_input(args.program)
    return parse_program(text, input_format_for(args.program, args.input_format, text),
                         filename, args.from_version), text


def load_inputs(path: str) -> dict:
    """The feeds of an inputs .npz by name; one InputsError naming the file when it is not
    one (pirc/cli/npz_inputs.py)."""
    from .npz_inputs import load_inputs as load

    return load(path)


def save_outputs(path: str, outputs: dict) -> None:
    """np.savez, written as pirc.atomic writes outputs: never a half-written file."""
    import numpy as np

    buf = io.BytesIO()
    np.savez(buf, **outputs)
    try:
        write_atomically(path, [buf.getvalue()], binary=True)
    except OSError as e:
        raise RunError(f"cannot write the outputs file: {e.strerror}").in_file(path) from None


def run(argv=None) -> int:
    parser = build_arg_parser()
    args = parser.parse_args(argv)
    if args.check_lowering:
        return report_errors(lambda: check_lowering(args), args.debug)
    missing = [flag for flag, value in (("--inputs", args.inputs), ("--outputs", args.outputs)) if value is None]
    if missing:
        parser.error(f"the following arguments are required: {', '.join(missing)} "
                     "(or --check-lowering, which runs nothing)")

    def command() -> int:
        filename = "<stdin>" if args.program == "-" else args.program
        program, text = read_program_arg(args)
        inputs = load_inputs(args.inputs)
        from ..lower import lower
        from ..lower.execute import run_module
        from ..errors import LoweringError
        from ..lower.failures import KernelFailure, locate
        from ..lower.feeds import FeedError

        try:
            gm = lower(program, args.params, args.device)  # its warnings: exit_status prints them
            outputs = run_module(gm, inputs)
        except KernelFailure as e:
            raise locate(e, e.op, program, filename, text) from None
        except FeedError as e:  # what is wrong is the inputs file
            raise e.in_file(args.inputs) from None
        except LoweringError as e:  # about the program as a whole: `PROGRAM: error: ...`
            raise e.in_file(filename) from None
        save_outputs(args.outputs, outputs)
        return 0

    # --outputs is checked before the program runs and written only when it succeeds
    return report_errors(lambda: run_staged(command, args.outputs), args.debug)


def check_lowering(args) -> int:
    """--check-lowering: what the program needs that pirc lacks, without torch."""
    from ..runtime.lowering_coverage import lowering_coverage

    program, _ = read_program_arg(args)
    missing = lowering_coverage(program)
    for entry in missing:
        print(entry)
    if not missing:
        print(f"{args.program}: every op can be lowered (PIR version {program.version})")
    return 1 if missing else 0


def main() -> None:
    run_as_process(run)


if __name__ == "__main__":
    main()
