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
from ...ir.program import GraphTag
from .manifest import conservative_reason, make_manifest
from .pass_base import PassContext
from .pipeline import Pipeline, build_pipeline
from .rewrites import Bisect, RunState
from .rollout import Rollout


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
    state: str = "enabled"
    skipped_reason: str | None = None
    matches: int = 0
    rewrites: int = 0
    skips: list = field(default_factory=list)
    ops_before: int = 0
    ops_after: int = 0
    seconds: float = 0.0
    rewrites_detail: list = field(default_factory=list)
    fingerprint_after: str | None = None   # the program's, when the pass changed it

    def as_json(self) -> dict:
        return {"name": self.name, "version": self.version, "state": self.state, "ran": self.ran,
                "skipped_reason": self.skipped_reason, "matches": self.matches,
                "rewrites": self.rewrites,
                "skips": [{"reason": s.reason, "op": s.op, "fingerprint": s.fingerprint} for s in self.skips],
                "ops_before": self.ops_before, "ops_after": self.ops_after,
                "seconds": round(self.seconds, 6), "rewrites_detail": self.rewrites_detail}


@dataclass
class PipelineResult:
    pipeline: Pipeline
    passes: list[PassRecord] = field(default_factory=list)
    fingerprint: str | None = None        # the program's, as it entered the pipeline
    pir_version: int | None = None        # its PIR version then (an upgrade pass changes it)
    conservative: str | None = None       # why the run was conservative, or None
    bisect_log: list[str] = field(default_factory=list)
    bisect_count: int = 0                 # rewrites the gate counted (allowed or not)
    params: dict | None = None            # the parameters after the pipeline (new ones included)

    @property
    def changed(self) -> bool:
        return any(r.rewrites for r in self.passes)


class Instrument:
    """Called around each pass (the CLI's --print-ir-* flags are one): override what you need."""

    def before(self, p, index: int, program) -> None: ...

    def after(self, p, index: int, program, record: PassRecord) -> None: ...

    def failed(self, p, index: int, program, error: PassFailure) -> None: ...


def run_pipeline(program, pipeline: Pipeline | str, *, device: str = "cpu",
                 verify_each: bool = True, instruments=(), stop_after: int | None = None,
                 params: dict | None = None, program_name: str | None = None,
                 rollout: str | None = None, bisect_limit: int | None = None,
                 bisect_echo=None, tags: bool = True) -> PipelineResult:
    """Run `pipeline` (a Pipeline, a name or a spec) on `program` in place.

    `params`: the parameters by name (numpy arrays), which passes that read or fold weights
    use, extend and prune (the result's `params`, a new dict: the argument is not changed).  `program_name` (a file's stem) and `rollout`
    (a rollout file; else PIRC_ROLLOUT) decide each pass's rollout state.  `bisect_limit=N`
    applies only the first N rewrites (each logged in the result, and on `bisect_echo`).
    `instruments` are called around each pass; `stop_after=N` runs only the first N passes
    (what a crash reproducer replays up to).  With `tags`, each pass that changed the program
    appends a graph tag and the program gets a manifest."""
    if isinstance(pipeline, str):
        pipeline = build_pipeline(pipeline)
    # The run's own dict: passes add and remove parameters, the caller's dict stays as it was.
    params = dict(params) if params is not None else None
    state = RunState(program, conservative=conservative_reason(program),
                     bisect=Bisect(bisect_limit, echo=bisect_echo))
    result = PipelineResult(pipeline, conservative=state.conservative, params=params)
    result.fingerprint = state.program_fingerprint()
    result.pir_version = program.version
    decisions = Rollout(program_name, lambda: result.fingerprint, rollout)
    before = result.fingerprint
    for index, p in enumerate(pipeline.passes):
        if stop_after is not None and index >= stop_after:
            break
        decision = decisions.decide(type(p))
        if not decision.runs:
            result.passes.append(PassRecord(p.name, type(p).version, ran=False, state=decision.state,
                                            skipped_reason=decision.reason))
            continue
        try:
            record = _run_one(p, index, program, device, verify_each, instruments, result, state, params)
        except PassFailure as e:
            for instrument in instruments:
                instrument.failed(p, index, program, e)
            raise
        record.state = decision.state
        if tags and record.ran and record.rewrites:
            program.graph_tags.append(GraphTag(p.name, type(p).version, decision.state, before,
                                               record.fingerprint_after))
            before = record.fingerprint_after
    result.bisect_log = state.bisect.log
    result.bisect_count = state.bisect.count
    if tags:
        program.manifest = make_manifest(program, pipeline)
    return result


def _run_one(p, index: int, program, device: str, verify_each: bool, instruments, result,
             state, params) -> PassRecord:
    cls = type(p)
    record = PassRecord(p.name, cls.version, ran=False)
    result.passes.append(record)
    reason = _skip_reason(cls, program, device, state)
    if reason is not None:
        record.skipped_reason = reason
        return record
    for instrument in instruments:
        instrument.before(p, index, program)
    # Counting walks the program (a quarter second at 100k ops): the count after the last
    # pass that ran is still right unless that pass rewrote something.
    if state.op_count is None:
        state.op_count = program.op_count()
    record.ops_before = state.op_count
    refused = state.bisect.refused
    pc = PassContext(program, device, pass_obj=p, state=state, params=params)
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
    record.rewrites_detail = pc.rewrites_detail
    if record.rewrites:
        state.op_count = program.op_count()
    record.ops_after = state.op_count
    touched = None
    if record.rewrites:
        # The fingerprint after the pass (for its tag) also says which ops it touched: the
        # verifier looks at those alone.  A pass that rewrote nothing changed nothing
        # (every rewrite goes through pc.begin, or counts itself with pc.rewrote).
        record.fingerprint_after = state.program_fingerprint()
        touched = state.fingerprinter.touched
    # A pass cut short by --bisect-limit has not finished: what its invariants promise about
    # its output (no dead ops left) need not hold; the program must still verify.
    _check_after(p, index, program, verify_each, changed=bool(record.rewrites), touched=touched,
                 complete=state.bisect.refused == refused)
    for instrument in instruments:
        instrument.after(p, index, program, record)
    return record


def _check_after(p, index: int, program, verify_each: bool, changed: bool = True, touched=None,
                 complete: bool = True) -> None:
    """The invariants the pass declared (only `verified` when the pass was not `complete`),
    then (with verify_each) the verifier: on the ops the pass touched when they are known,
    not at all when it changed nothing."""
    cls = type(p)
    invariants = known_invariants()
    checks = [n for n in cls.invariants if (verify_each or n != "verified") and (complete or n == "verified")]
    if verify_each and "verified" not in checks:
        checks.append("verified")
    for name in checks:
        if name not in invariants:
            raise PassFailure(f"pass {p.name!r} declares an unknown invariant {name!r} "
                              f"(known: {', '.join(sorted(invariants))})", p.name, name, index)
        if name == "verified":
            problems = _verify(program, changed, touched)
        else:
            problems = check(name, program)
        if problems:
            shown = "; ".join(problems[:3]) + (f"; and {len(problems) - 3} more" if len(problems) > 3 else "")
            what = (f"left a program that does not verify" if name == "verified" and name not in cls.invariants
                    else f"broke the invariant {name!r}")
            raise PassFailure(f"pass {p.name!r} (#{index + 1} of the pipeline) {what}: {shown}",
                              p.name, name, index)


def _verify(program, changed: bool, touched) -> list[str]:
    if not changed:
        return []
    if touched is None:
        return check("verified", program)
    from ...ir.verifier import collect_problems_in
    return [str(problem) for problem in collect_problems_in(program, touched)]


def _skip_reason(cls, program, device: str, state) -> str | None:
    if state.conservative is not None and not cls.conservative_safe:
        return f"conservative mode: {state.conservative}; {cls.name} is not declared safe for it"
    if device not in cls.devices:
        return f"device: {cls.name} runs on {', '.join(cls.devices)}, not {device}"
    low, high = cls.pir_versions
    version = program.version
    if version != 0 and not low <= version <= high:
        return (f"version: {cls.name} is declared safe for PIR versions {low}-{high}, "
                f"the program is version {version}")
    return None
