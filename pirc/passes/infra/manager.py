"""The pass manager: runs a pipeline on a program, pass by pass, as MLIR's PassManager does.

Before a pass: its device and program-version declarations (outside them the pass is skipped
whole, with the reason).  After it: the verifier (unless `verify_each=False`) and every
invariant the pass declared; the first failure stops the pipeline with a `PassFailure`
naming the pass and what broke.  Each pass's statistics (matches, rewrites, skips and their
reasons, ops before and after, seconds) are kept in the result, which the CLI prints
(`--pass-stats`) and writes (`--pass-report`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from ...errors import PircError
from .invariants import check, known_invariants
from .kill_switch import ENV as KILL_SWITCH
from .kill_switch import disabled_passes
from .pass_base import PassContext
from .pipeline import Pipeline, build_pipeline


class PassFailure(PircError):
    """A pass broke the verifier or an invariant it declared (or raised)."""

    def __init__(self, message: str, pass_name: str, invariant: str | None, index: int):
        super().__init__(message)
        self.pass_name = pass_name
        self.invariant = invariant
        self.index = index  # the pass's position in the pipeline


@dataclass
class PassRecord:
    name: str
    version: int
    ran: bool
    skipped_reason: str | None = None
    matches: int = 0
    rewrites: int = 0
    skips: list = field(default_factory=list)
    ops_before: int = 0
    ops_after: int = 0
    seconds: float = 0.0

    def as_json(self) -> dict:
        return {"name": self.name, "version": self.version, "ran": self.ran,
                "skipped_reason": self.skipped_reason, "matches": self.matches,
                "rewrites": self.rewrites,
                "skips": [{"reason": s.reason, "op": s.op} for s in self.skips],
                "ops_before": self.ops_before, "ops_after": self.ops_after,
                "seconds": round(self.seconds, 6)}


@dataclass
class PipelineResult:
    pipeline: Pipeline
    passes: list[PassRecord] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return any(r.rewrites for r in self.passes)


class Instrument:
    """Called around each pass (the CLI's --print-ir-* flags are one): override what you need."""

    def before(self, p, index: int, program) -> None: ...

    def after(self, p, index: int, program, record: PassRecord) -> None: ...

    def failed(self, p, index: int, program, error: PassFailure) -> None: ...


def run_pipeline(program, pipeline: Pipeline | str, *, device: str = "cpu",
                 verify_each: bool = True, instruments=(), stop_after: int | None = None) -> PipelineResult:
    """Run `pipeline` (a Pipeline, a name or a spec) on `program` in place.

    `instruments` are called around each pass; `stop_after=N` runs only the first N passes
    (what a crash reproducer replays up to)."""
    if isinstance(pipeline, str):
        pipeline = build_pipeline(pipeline)
    result = PipelineResult(pipeline)
    disabled = disabled_passes()
    for index, p in enumerate(pipeline.passes):
        if stop_after is not None and index >= stop_after:
            break
        if p.name in disabled:
            result.passes.append(PassRecord(p.name, type(p).version, ran=False,
                                            skipped_reason=f"rollout: disabled by {KILL_SWITCH}"))
            continue
        try:
            _run_one(p, index, program, device, verify_each, instruments, result)
        except PassFailure as e:
            for instrument in instruments:
                instrument.failed(p, index, program, e)
            raise
    return result


def _run_one(p, index: int, program, device: str, verify_each: bool, instruments, result) -> None:
    cls = type(p)
    record = PassRecord(p.name, cls.version, ran=False)
    result.passes.append(record)
    reason = _skip_reason(cls, program, device)
    if reason is not None:
        record.skipped_reason = reason
        return
    for instrument in instruments:
        instrument.before(p, index, program)
    record.ops_before = program.op_count()
    pc = PassContext(program, device)
    start = time.perf_counter()
    try:
        p.run(pc)
    except PircError:
        raise
    except Exception as e:  # noqa: BLE001 - a crashing pass is reported like a broken one
        raise PassFailure(f"pass {p.name!r} (#{index + 1} of the pipeline) crashed: "
                          f"{type(e).__name__}: {e}", p.name, None, index) from e
    record.seconds = time.perf_counter() - start
    record.ran = True
    record.matches, record.rewrites, record.skips = pc.matches, pc.rewrites, pc.skips
    record.ops_after = program.op_count()
    _check_after(p, index, program, verify_each)
    for instrument in instruments:
        instrument.after(p, index, program, record)


def _check_after(p, index: int, program, verify_each: bool) -> None:
    """The invariants the pass declared, then (with verify_each) the verifier."""
    cls = type(p)
    invariants = known_invariants()
    checks = [n for n in cls.invariants if verify_each or n != "verified"]
    for name in checks:
        if name not in invariants:
            raise PassFailure(f"pass {p.name!r} declares an unknown invariant {name!r} "
                              f"(known: {', '.join(sorted(invariants))})", p.name, name, index)
        problems = check(name, program)
        if problems:
            shown = "; ".join(problems[:3]) + (f"; and {len(problems) - 3} more" if len(problems) > 3 else "")
            raise PassFailure(f"pass {p.name!r} (#{index + 1} of the pipeline) broke the invariant "
                              f"{name!r}: {shown}", p.name, name, index)
    if verify_each and "verified" not in checks:
        problems = check("verified", program)
        if problems:
            raise PassFailure(f"pass {p.name!r} (#{index + 1} of the pipeline) left a program "
                              f"that does not verify: {'; '.join(problems[:3])}", p.name, "verified", index)


def _skip_reason(cls, program, device: str) -> str | None:
    if device not in cls.devices:
        return f"device: {cls.name} runs on {', '.join(cls.devices)}, not {device}"
    low, high = cls.pir_versions
    version = program.version
    if version != 0 and not low <= version <= high:
        return (f"version: {cls.name} is declared safe for PIR versions {low}-{high}, "
                f"the program is version {version}")
    return None
