"""pirc's Python API: one call per job.

    import pirc
    program = pirc.load("model.json")                 # Paddle JSON, any PIR text form
    program = pirc.load("model.pir.txt", from_version=4)  # Paddle's printed text
    pirc.verify(program)
    text = pirc.to_text(program, "paddle")            # "pir" (canonical), "paddle", "json"
    pirc.save(program, "out.json")                    # format by extension, atomic
    pirc.upgrade(program)                             # to the version this pirc writes
    pirc.downgrade(program, 1)                        # back to PIR version 1 (Paddle 3.0)
    params = pirc.read_params("model.pdiparams", program)
    result = pirc.run_pipeline(program, "conv-bn-fold,dce", params=params)
    pirc.write_params("out.pdiparams", result.params, program)
    exported = pirc.export(program, params)           # torch.export, every -1 dim dynamic
"""

from __future__ import annotations

import os

from .formats import (format_program, format_program_chunks, input_format_for, output_format_for,
                      parse_program, read_input, write_output)
from .ir.program import Program


def load(path, *, format: str | None = None, from_version: int | None = None) -> Program:
    """Read a program from a file (a str or os.PathLike): `.json` is Paddle JSON, anything
    else PIR text."""
    path = os.fspath(path)
    fmt = input_format_for(path, format)
    return parse_program(read_input(path), fmt, path, from_version)


def parse(text: str, *, format: str = "pir", from_version: int | None = None,
          filename: str = "<string>") -> Program:
    """Read a program from a string (`format` is "pir" for any text form, or "json")."""
    return parse_program(text, format, filename, from_version)


def to_text(program: Program, form: str = "pir") -> str:
    """The program as canonical text ("pir"), Paddle's print ("paddle") or Paddle JSON ("json")."""
    return format_program(program, form)


def save(program: Program, path, *, form: str | None = None) -> None:
    """Write the program to `path` (a str or os.PathLike) atomically; the form follows the
    extension unless given."""
    path = os.fspath(path)
    write_output(path, format_program_chunks(program, output_format_for("pir", path, form)))


def verify(program: Program, *, strict: bool = False) -> None:
    """Check the program against its PIR version's op specs; raises VerifyError."""
    from .ir.verifier import verify_program

    verify_program(program, strict=strict)


def run_pipeline(program: Program, pipeline: str = "default", params: dict | None = None,
                 device: str | None = None, verify_each: bool | str = True, report: bool = True, *,
                 program_name: str | None = None, rollout: str | None = None,
                 bisect_limit: int | None = None):
    """Run a pass pipeline (a name such as "default", or a list: "cse,dce") on `program` in
    place; returns the PipelineResult (per pass: ran or why not, matches, rewrites, skips;
    `result.params`: the parameters after the pipeline, new ones included, unused ones
    gone).  `params`: name -> numpy array (`read_params(path, program)`), for passes that
    read or fold weights (conv-bn-fold, param-fold); the dict given is not changed.
    `device`: what device-gated passes optimise for (default: the pipeline's own, `npu` for
    the `npu` pipeline, else cpu).  `report=False` leaves the program's graph tags and manifest as they were.
    `program_name` (for rollout allowlists) and `rollout` (a rollout file, else
    PIRC_ROLLOUT) decide which passes run; `bisect_limit=N` applies only the first N
    rewrites.  `verify_each`: True (the default level: "incremental", or PIRC_VERIFY_EACH),
    "incremental", "full" or False.  Raises PipelineError for a pipeline that cannot run and
    PassFailure when a pass breaks the verifier or an invariant it declared, or changes the
    program outside the rewrite gate (docs/PASSES.md)."""
    from .passes import run_pipeline as _run

    return _run(program, pipeline, device=device, verify_each=verify_each, params=params,
                tags=report, program_name=program_name, rollout=rollout, bisect_limit=bisect_limit)


def upgrade(program: Program, target: int | None = None, patch_dir: str | None = None) -> Program:
    """Upgrade `program` in place with the migration patches and return it.

    `target` defaults to the version this pirc writes (patches/versions.yaml); `patch_dir`
    uses another patch folder.  Refuses (PircError, naming versions and ops) a target older
    than the program, a missing step, or an op a patch cannot change.  Verify the result
    with `verify(program)`.
    """
    from .versioning.upgrade import upgrade as _upgrade

    return _upgrade(program, target, patch_dir)


def downgrade(program: Program, target: int, patch_dir: str | None = None) -> Program:
    """Take `program` back to the older PIR version `target` in place and return it.

    Applies the inverse patch steps; refuses, listing every op and action, what cannot be
    undone (a deleted attribute, a value that does not fit the old kind, ...).
    """
    from .versioning.upgrade import downgrade as _downgrade

    return _downgrade(program, target, patch_dir)


def lower(program: Program, params=None, device: str = "cpu", pipeline: str | None = None):
    """The program as a torch.fx.GraphModule running on `device` ("cpu", "npu", "cuda").

    `params`: dict parameter name -> numpy array / torch tensor, or the path of the model's
    `.pdiparams` file.  `pipeline`: a pass pipeline run first, with the parameters, on a
    copy of the program: `"param-fold,cse,dce"` computes what depends on parameters only
    once and shares repeated computations (the lowering itself emits one call per op).
    None (the default) runs the device's pipeline: `npu` on device npu (its fusion passes
    make the fused ops that lower to torch_npu calls), none elsewhere; `""` runs none.
    The module's forward takes the feeds (pd_op.data names, in program order) and returns a
    tuple of the fetched values in fetch order.  Every op must have a lowering at the
    program's PIR version; otherwise one LoweringError lists them all.
    """
    from .lower import lower as _lower

    return _lower(program, params, device, pipeline)


def export(program: Program, params=None, inputs: dict | None = None, *, device: str = "cpu",
           pipeline: str | None = None):
    """The program as a `torch.export.ExportedProgram` with every -1 dim of every feed
    dynamic (`torch.export.Dim.DYNAMIC`; the export fails if the module fixes one).

    `params`, `device` and `pipeline` as for `lower`.  `inputs` (feed name -> array) are
    the example feeds the trace sees; without them every -1 dim is 2 and every value 0.
    `exported.module()(*feeds)` takes the feeds in pd_op.data order, at any size in the -1
    dims, and returns the fetches in order.  `pirc.lower.export.dynamic_shapes(gm.pirc_feed_specs)`
    is the `dynamic_shapes` argument alone, to call torch.export.export yourself.
    """
    from .lower.export import export as _export

    return _export(program, params, inputs, device=device, pipeline=pipeline)


def run(program: Program, inputs: dict, params=None, device: str = "cpu",
        pipeline: str | None = None) -> dict:
    """Run the program: feed name -> array in, fetch name (or out0, out1, ...) -> numpy array out.

    Input keys may be the feed name (`x`) or the corpus spelling (`in__x`).  `device` and
    `pipeline` as for `lower` (device npu runs the `npu` pipeline first unless `pipeline=`).
    """
    from .lower.execute import run_module
    from .lower import lower as _lower

    return run_module(_lower(program, params, device, pipeline), inputs)


def lowering_coverage(program: Program) -> list:
    """What `program` needs that this pirc cannot lower, before anything runs (no torch):
    one entry per op kind, `str(entry)` = `NAME (N ops): reason`; empty when it all lowers."""
    from .runtime.lowering_coverage import lowering_coverage as _coverage

    return _coverage(program)


def read_params(path: str, names=None) -> dict:
    """A `.pdiparams` file as name -> numpy array; `names` (or a Program) supplies the names,
    which Paddle stores in sorted order; without them the keys are "0", "1", ...  Given a
    Program, the file holds its persisted parameters only, and the ones Paddle creates at load
    (`persistable:[false]`, like rnn's `dropout_state`) are created: zeros of their declared
    shape and dtype.
    """
    from .runtime.params import read_params as _read

    return _read(path, names)


def write_params(path: str, params: dict, program: Program) -> None:
    """Write the program's parameters (name -> array) to a `.pdiparams` file, atomically: the
    names its persisted builtin.parameter ops hold, sorted, each in its declared dtype (those
    Paddle creates at load are not written, as Paddle writes none)."""
    from .runtime.params import write_params as _write

    _write(path, params, program)
