"""One model's migration, in process: read, upgrade, verify, optimise, check, write.

`migrate_model(src_root, out_root, source, options)` is what the engine runs for each model
(inside an isolated child, pirc.migrate.isolate) and what a test calls directly.  It never
raises: any exception becomes the record's status "failed" with "ExcType: first line" as the
reason (paths inside SRC and OUT spelled relative to them, so a record does not depend on where
the folders are), and nothing is written for that model.

The steps and what each puts in the record:
1. pirc.load the program: `from_version` (its PIR version), `ops_before` (every op, nested
   ones in pd_op.if / while regions included, the builtin.module not counted: Program.op_count)
   and `fingerprint_before` (pirc.passes.infra.fingerprint.program_fingerprint, which covers
   the version); the parameters, where NAME.pdiparams is there (pirc.read_params).
2. pirc.upgrade to `options.target_version`: a refusal (a PircError of the upgrade, a target
   older than the program included) is status "refused" with pirc's message as the reason; so
   is a program of a PIR version newer than this pirc reads (pirc.load's VersionError), which
   no upgrade can take.
3. pirc.verify against the target's op definitions.
4. The pipeline, when given, with the parameters (pirc.run_pipeline, graph tags written as
   pirc-opt writes them): `passes_run` (passes that ran, pipeline order) and `passes_changed`
   (those that changed the program, PassRecord.changed); `ops_after`, `fingerprint_after`.
5. The check (pirc.migrate.check) on the original program as read and the result; a check
   that fails is status "drifted", its reason the outputs that differ and the first diverging
   op.  A program whose fingerprint and version are unchanged, and that no pass changed, is
   the program read with the parameters read: its check is not run (`ok` True, `max_abs`
   None: nothing measured), since the same ops at the same version with the same parameters
   compute the same outputs by construction (a pass that rewrote something is checked even
   when the fingerprint came out the same: it may have changed a parameter's values).
6. OUT/<path> (Paddle JSON, pirc.save), OUT/<stem>.pdiparams (the parameters after the
   pipeline, pirc.write_params; only where the source had a .pdiparams) and a copy of the
   .io.npz, staged in one pirc.atomic.OutputSet: all three are written, each by rename, or
   none.  A drifted model's files are written too, so the difference can be inspected; the
   report's status is the gate.  SRC is only read; an OUT file that would be the source
   itself is refused.

Status: "upgraded", "unchanged" (same fingerprint and version after the pipeline), "drifted",
"refused" or "failed".  The record holds no timings: the engine adds "seconds", "peak_mb" and
"worker".  Its floats are plain Python floats, never NaN or infinite (None instead).
"""

from __future__ import annotations

import os

from ..errors import PircError, VersionError, first_line
from .check import CheckUnavailable, record as check_record, resolve_mode
from .options import MigrateOptions
from .sources import ModelSource

_COPY_CHUNK = 1 << 20


def blank_record(source: ModelSource, check_mode: str) -> dict:
    """A record with every field, nothing known yet."""
    return {"path": source.path, "status": None, "reason": None, "from_version": None,
            "to_version": None, "ops_before": None, "ops_after": None,
            "fingerprint_before": None, "fingerprint_after": None, "passes_changed": [],
            "passes_run": [], "check": check_record(check_mode)}


def migrate_model(src_root: str, out_root: str, source: ModelSource,
                  options: MigrateOptions) -> dict:
    """One model's record (module docstring); never raises."""
    rec = blank_record(source, options.check)
    try:
        _migrate(out_root, source, options, rec)
    except Exception as e:  # noqa: BLE001 - one model's failure is its record, never the run's
        rec["status"] = "failed"
        rec["reason"] = f"{type(e).__name__}: {first_line(e, '(no message)')}"
    if rec["reason"] is not None:
        rec["reason"] = _relative(rec["reason"], src_root, out_root, source)
    return rec


def _relative(text: str, src_root: str, out_root: str, source: ModelSource) -> str:
    text = text.replace(source.program, source.path)
    for root, shown in ((src_root, ""), (out_root, "OUT/")):
        text = text.replace(os.path.abspath(root) + os.sep, shown)
    return text


def _migrate(out_root: str, source: ModelSource, options: MigrateOptions, rec: dict) -> None:
    import pirc
    from ..passes.infra.fingerprint import program_fingerprint
    from ..runtime.persistence import persisted_names

    try:
        program = pirc.load(source.program)
    except VersionError as e:  # newer than this pirc: a refusal, as an upgrade's own
        rec["status"], rec["reason"] = "refused", first_line(e, "(no message)")
        return
    rec["from_version"] = program.version
    rec["ops_before"] = program.op_count()
    rec["fingerprint_before"] = before = program_fingerprint(program)
    params = pirc.read_params(source.params, program) if source.params is not None else None
    mode = resolve_mode(options.check, source.params is not None, bool(persisted_names(program)))
    rec["check"] = check_record(mode)
    references = _check_needs(mode, source, program)
    original = program.clone() if mode == "self" else None

    try:
        pirc.upgrade(program, options.target_version)
    except PircError as e:
        rec["status"], rec["reason"] = "refused", first_line(e, "(no message)")
        return
    rec["to_version"] = program.version
    pirc.verify(program)

    after_params = params
    if options.pipeline:
        result = pirc.run_pipeline(program, options.pipeline, params=params, report=True)
        rec["passes_run"] = [r.name for r in result.passes if r.ran]
        rec["passes_changed"] = [r.name for r in result.passes if r.changed]
        if result.params is not None:
            after_params = result.params
    rec["ops_after"] = program.op_count()
    rec["fingerprint_after"] = after = program_fingerprint(program)
    unchanged = after == before and program.version == rec["from_version"]
    rec["status"] = "unchanged" if unchanged else "upgraded"

    if mode != "none":
        if unchanged and not rec["passes_changed"]:
            rec["check"] = check_record(mode, ok=True)
        else:
            rec["check"], why = _check(mode, source, original, params, program, after_params,
                                       references)
            if not rec["check"]["ok"]:
                rec["status"], rec["reason"] = "drifted", why
    _write(out_root, source, program, after_params)


def _check_needs(mode: str, source: ModelSource, program):
    """What the check needs, checked before any work: CheckUnavailable saying what is missing.
    Returns the reference outputs for mode "outputs"."""
    from ..runtime.persistence import persisted_names
    from .inputs import reference_outputs

    if mode == "none":
        return None
    if source.params is None and persisted_names(program):
        raise CheckUnavailable(f"--check {mode} runs the model, and its parameters are not there "
                               f"(no {os.path.basename(source.stem)}.pdiparams beside it); "
                               "give them, or use --check none")
    if mode != "outputs":
        return None
    if source.io is None:
        raise CheckUnavailable(f"--check outputs compares with the reference outputs of "
                               f"{os.path.basename(source.stem)}.io.npz, and there is none beside "
                               "it; use --check self")
    references = reference_outputs(source.io)
    if not references:
        raise CheckUnavailable(f"{os.path.basename(source.io)} has no reference outputs "
                               "(reload_out__<i> or out__<i>); use --check self")
    return references


def _check(mode, source, original, params, upgraded, after_params, references):
    from .check import outputs_check, self_check
    from .inputs import check_inputs, sample_inputs

    if mode == "self":
        inputs = check_inputs(original, source.path, source.io)
        return self_check(original, params, upgraded, after_params, inputs)
    return outputs_check(upgraded, after_params, sample_inputs(source.io), references)


def _write(out_root: str, source: ModelSource, program, params) -> None:
    import pirc
    from ..atomic import OutputSet, write_atomically

    target = os.path.join(out_root, *source.path.split("/"))
    stem = target[:-len(".json")]
    produced = [(target, source.program)]
    if source.params is not None:
        produced.append((stem + ".pdiparams", source.params))
    if source.io is not None:
        produced.append((stem + ".io.npz", source.io))
    for out, src in produced:
        if os.path.exists(out) and os.path.samefile(out, src):
            raise PircError(f"{out}: is the source file itself; write to an OUT folder apart "
                            "from SRC")
    os.makedirs(os.path.dirname(target), exist_ok=True)
    with OutputSet() as outputs:
        pirc.save(program, target)
        if source.params is not None:
            pirc.write_params(stem + ".pdiparams", params, program)
        if source.io is not None:
            write_atomically(stem + ".io.npz", _chunks(source.io), binary=True)
        outputs.commit()


def _chunks(path: str):
    with open(path, "rb") as f:
        while chunk := f.read(_COPY_CHUNK):
            yield chunk
