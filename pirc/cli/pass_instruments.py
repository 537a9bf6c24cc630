"""`pirc-opt`'s --print-ir-* and --pass-timing flags, as instruments of the pass manager."""

from __future__ import annotations

import sys

from ..passes.infra.manager import Instrument


def pass_names(flag: str, value: str | None) -> set[str]:
    """The pass names a --print-ir-before/after or --explain value lists; a name no pass has
    is the pipeline's unknown-pass error, with the flag."""
    from ..passes.infra.pipeline import PipelineError, unknown_pass
    from ..passes.infra.registry import all_passes

    names = {n.strip() for n in value.split(",") if n.strip()} if value else set()
    passes = all_passes() if names else {}  # no flag, no scan of every pass module
    for name in sorted(names):
        if name not in passes:
            raise PipelineError(f"{flag}: {unknown_pass(name)}")
    return names


class PrintIR(Instrument):
    """Prints the program (canonical text) to stderr around passes, as mlir-opt's
    --mlir-print-ir-* flags do, each dump headed `// -----// IR Dump After NAME (#N) //----- //`."""

    def __init__(self, args, out=None):
        self.before_names = pass_names("--print-ir-before", args.print_ir_before)
        self.after_names = pass_names("--print-ir-after", args.print_ir_after)
        self.after_all = args.print_ir_after_all
        self.after_change = args.print_ir_after_change
        self.after_failure = args.print_ir_after_failure
        self.out = out or sys.stderr

    def dump(self, when: str, p, index: int, program) -> None:
        from ..text.canonical_printer import print_canonical

        print(f"// -----// IR Dump {when} {p.name} (#{index + 1}) //----- //", file=self.out)
        print(print_canonical(program), end="", file=self.out)

    def before(self, p, index, program):
        if p.name in self.before_names:
            self.dump("Before", p, index, program)

    def after(self, p, index, program, record):
        if self.after_all or p.name in self.after_names or (self.after_change and record.rewrites):
            self.dump("After", p, index, program)

    def failed(self, p, index, program, error):
        if self.after_failure:
            self.dump("After Failure", p, index, program)


def print_pass_timing(result, out=None) -> None:
    out = out or sys.stderr
    total = sum(r.seconds for r in result.passes)
    print("===-------------------------------------------------------------------------===", file=out)
    print(f"  Pass execution timing report: {total:.4f} s in {len(result.passes)} passes", file=out)
    print("===-------------------------------------------------------------------------===", file=out)
    for r in result.passes:
        share = 100 * r.seconds / total if total else 0.0
        print(f"  {r.seconds:9.4f} s ({share:5.1f}%)  {r.name}{'' if r.ran else ' (skipped)'}", file=out)
