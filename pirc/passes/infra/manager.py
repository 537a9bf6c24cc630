"""The pass manager: runs a pipeline on a program, pass by pass, as MLIR's PassManager does.

Before a pass: its device and program-version declarations, and for a pass that reads
weights, whether the run has parameters (outside them the pass is skipped whole, with the
reason); a pass none of whose ops of interest is in the program (the op index,
pirc.passes.infra.op_index) is not run: it reports a run that found nothing.  While it
runs: a watch on the IR (pirc.passes.infra.ir_watch) that counts each edit made outside
the rewrite gate.  After it: the gate check (an edit outside the gate is an error naming the
pass; a correctness pass gets a tag and a report entry instead), the verifier (unless
`verify_each=False`) and every invariant the pass declared; the first failure stops the
pipeline with a `PassFailure` naming the pass and what broke.

`verify_each` is a level: "incremental" (True, the default) checks the verifier and the
declared invariants in the region the pass touched (pirc.passes.infra.invariants); "full"
checks them on the whole program and checks the gate fully: the program's fingerprint
before and after the pass (a pass whose fingerprint moved with no rewrite changed it outside
the gate) and every op whose attributes or result types changed outside the ops a rewrite
matched or produced (an op a rewrite only edited, setting an operand, keeps what it is: the
incremental verifier and the fingerprint update rely on it); False (`--no-verify-each`) drops the verifier (the declared
invariants stay, incremental), not the cheap gate check.  `PIRC_VERIFY_EACH=full` (the test
suite sets it) makes "full" the default.  Each pass's statistics (matches, rewrites, skips and their
reasons, ops before and after, seconds) are kept in the result, which the CLI prints
(`--pass-stats`) and writes (`--pass-report`).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field

from ...errors import PircError
from ...ir.block_order import BlockOrder
from .invariants import check, known_invariants
from .ir_watch import IRWatch
from .op_index import OpIndex
from ...ir.program import GraphTag
from .manifest import conservative_reason, make_manifest
from .parameters import needs_params
from .pass_base import PassContext
from .pipeline import Pipeline, build_pipeline, resolve_device
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
    outside_gate: int = 0   # edits outside the rewrite gate (a correctness pass's own steps)
    near_misses: dict = field(default_factory=dict)   # rule -> NearMisses (declarative rules)
    rule_rewrites: dict = field(default_factory=dict)  # rule -> rewrites (declarative rules)

    @property
    def changed(self) -> bool:
        return bool(self.rewrites or self.outside_gate)

    def as_json(self) -> dict:
        return {"name": self.name, "version": self.version, "state": self.state, "ran": self.ran,
                "skipped_reason": self.skipped_reason, "matches": self.matches,
                "rewrites": self.rewrites,
                "skips": [{"reason": s.reason, "op": s.op, "fingerprint": s.fingerprint} for s in self.skips],
                "ops_before": self.ops_before, "ops_after": self.ops_after,
                "seconds": round(self.seconds, 6), "rewrites_detail": self.rewrites_detail,
                "outside_gate": self.outside_gate,
                "rule_rewrites": dict(sorted(self.rule_rewrites.items())),
                "near_misses": {rule: n.as_json() for rule, n in sorted(self.near_misses.items())}}


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
        return any(r.changed for r in self.passes)


class Instrument:
    """Called around each pass (the CLI's --print-ir-* flags are one): override what you need."""

    def before(self, p, index: int, program) -> None: ...

    def after(self, p, index: int, program, record: PassRecord) -> None: ...

    def failed(self, p, index: int, program, error: PassFailure) -> None: ...


VERIFY_LEVELS = ("incremental", "full")


def verify_level(verify_each) -> str | None:
    """"incremental", "full" or None (no verifier) for a `verify_each` argument: True is
    the default level, "incremental" unless PIRC_VERIFY_EACH=full."""
    if verify_each is False or verify_each is None:
        return None
    if verify_each is True:
        default = os.environ.get("PIRC_VERIFY_EACH", "").strip() or "incremental"
        if default not in VERIFY_LEVELS:
            raise PircError(f"PIRC_VERIFY_EACH={default!r}: expected one of {', '.join(VERIFY_LEVELS)}")
        return default
    if verify_each not in VERIFY_LEVELS:
        raise PircError(f"verify_each={verify_each!r}: expected True, False or one of "
                        f"{', '.join(map(repr, VERIFY_LEVELS))}")
    return verify_each


def run_pipeline(program, pipeline: Pipeline | str, *, device: str | None = None,
                 verify_each: bool | str = True, instruments=(), stop_after: int | None = None,
                 params: dict | None = None, program_name: str | None = None,
                 rollout: str | None = None, bisect_limit: int | None = None,
                 bisect_echo=None, tags: bool = True) -> PipelineResult:
    """Run `pipeline` (a Pipeline, a name or a spec) on `program` in place.

    `params`: the parameters by name (numpy arrays), which passes that read or fold weights
    use, extend and prune (the result's `params`, a new dict: the argument is not changed).  `program_name` (a file's stem) and `rollout`
    (a rollout file; else PIRC_ROLLOUT) decide each pass's rollout state.  `bisect_limit=N`
    applies only the first N rewrites (each logged in the result, and on `bisect_echo`).
    `verify_each`: True (the default level), "incremental", "full" or False (module
    docstring).  `device`: the device passes optimise for (default: the named pipeline's
    `device`, else cpu).  `instruments` are called around each pass; `stop_after=N` runs only the
    first N passes (what a crash reproducer replays up to).  With `tags`, each pass that
    changed the program appends a graph tag (before the instruments see the program after
    it) and the program gets a manifest."""
    level = verify_level(verify_each)
    if isinstance(pipeline, str):
        pipeline = build_pipeline(pipeline)
    device = resolve_device(pipeline, device)
    # The run's own dict: passes add and remove parameters, the caller's dict stays as it was.
    params = dict(params) if params is not None else None
    state = RunState(program, conservative=conservative_reason(program),
                     bisect=Bisect(bisect_limit, echo=bisect_echo))
    result = PipelineResult(pipeline, conservative=state.conservative, params=params)
    result.fingerprint = state.program_fingerprint()
    result.pir_version = program.version
    decisions = Rollout(program_name, lambda: result.fingerprint, rollout)
    run = _Run(program, device, level, instruments, result, state, params, tags)
    run.before = result.fingerprint
    run.walk = state.fingerprinter.walked(program.block)
    for index, p in enumerate(pipeline.passes):
        if stop_after is not None and index >= stop_after:
            break
        decision = decisions.decide(type(p))
        if not decision.runs:
            record = PassRecord(p.name, type(p).version, ran=False, state=decision.state,
                                skipped_reason=decision.reason)
            record.ops_before = record.ops_after = run.op_count()
            result.passes.append(record)
            continue
        try:
            run.one(p, index, decision.state)
        except PassFailure as e:
            for instrument in instruments:
                instrument.failed(p, index, program, e)
            raise
    result.bisect_log = state.bisect.log
    result.bisect_count = state.bisect.count
    if tags:
        program.manifest = make_manifest(program, pipeline)
    return result


@dataclass
class _Run:
    """One pipeline run's settings and what it carries from pass to pass."""

    program: object
    device: str
    level: str | None          # verify_level()
    instruments: tuple
    result: PipelineResult
    state: RunState
    params: dict | None
    tags: bool
    before: str | None = None  # the program's fingerprint after the last pass that changed it
    index: OpIndex | None = None   # op-name counts, kept current by the watch (op_index)
    order: BlockOrder | None = None   # the top-level ops' order, told by the watch (block_order)
    # The walk of the top-level block that the program's first fingerprint made (its ops,
    # their names and ids, the ops it found unused: Fingerprinter.walked), until a pass
    # runs: the op index counts from it and the block order numbers from it, where each
    # would walk the block again.
    walk: tuple | None = None

    def op_index(self) -> OpIndex:
        # Built from the first fingerprint's walk, or by a walk, for the first report entry;
        # the watch keeps it current, so no pass's count walks again.
        if self.index is None:
            # The first fingerprint's walk is the program's until a pass runs (`one` drops
            # it then): its names, and the ops it found unused (dce's candidates).
            walk = self.walk
            self.index = OpIndex(self.program, walk[:2] if walk is not None else None,
                                 walk[3] if walk is not None else None)
        return self.index

    def op_count(self) -> int:
        return self.op_index().total

    def one(self, p, index: int, rollout_state: str) -> PassRecord:
        program, state, cls = self.program, self.state, type(p)
        record = PassRecord(p.name, cls.version, ran=False, state=rollout_state)
        self.result.passes.append(record)
        record.ops_before = record.ops_after = self.op_count()
        reason = _skip_reason(cls, program, self.device, state, self.params)
        if reason is not None:
            record.skipped_reason = reason
            return record
        for instrument in self.instruments:
            instrument.before(p, index, program)
        full = self.level == "full"
        if full:
            fingerprint_before = state.program_fingerprint()
            snapshot = _snapshot(program)
        refused = state.bisect.refused
        pc = PassContext(program, self.device, pass_obj=p, state=state, params=self.params)
        op_index = self.op_index()
        if self.order is None and self.level == "incremental":
            # Numbered as the first pass begins: here from the first fingerprint's walk, else
            # by the watch's record (pirc.passes.infra.touched), from the op index's.
            self.order = BlockOrder(program)
            if self.walk is not None:
                self.order.number(self.walk[0], self.walk[2])
        self.walk = None   # the pass may edit the program: the walk is no longer its ops
        watch = state.watch = IRWatch(program, general=full, index=op_index, order=self.order)
        interest = p.ops_of_interest()
        start = time.perf_counter()
        try:
            with watch:
                if interest is None or op_index.has_any(interest):
                    p.run(pc)
            watch.close_open()
        except PircError:
            raise
        except Exception as e:  # noqa: BLE001 - a crashing pass is reported like a broken one
            raise PassFailure(f"pass {p.name!r} (#{index + 1} of the pipeline) crashed: "
                              f"{type(e).__name__}: {e}", p.name, None, index) from e
        finally:
            state.watch = None
        record.seconds = time.perf_counter() - start
        record.ran = True
        record.matches, record.rewrites, record.skips = pc.matches, pc.rewrites, pc.skips
        record.near_misses, record.rule_rewrites = pc.near_misses, pc.rule_rewrites
        record.rewrites_detail = pc.rewrites_detail
        outside = _outside_gate(p, index, record, watch)
        fingerprint_after = None
        if full:
            fingerprint_after = state.program_fingerprint()
            outside += _outside_gate_full(p, index, program, record, watch, snapshot,
                                          fingerprint_before, fingerprint_after)
        record.outside_gate = outside
        if record.changed:
            # The fingerprint after the pass, for its tag.  A pass that changed nothing needs
            # no verifier: every change goes through pc.begin (the watch above holds passes
            # to that), so the ops its rewrites and edits touched are all that is hashed
            # again; a correctness pass may edit outside the gate, and with
            # --verify-each=full every op is looked at.
            if fingerprint_after is None:
                exact = cls.correctness or watch.whole
                fingerprint_after = (state.program_fingerprint() if exact
                                     else state.fingerprint_after(watch.tops, watch.touched.detached))
            record.fingerprint_after = fingerprint_after
        if cls.correctness:
            self.index = None   # it may rename ops in place, which the watch cannot see
        elif full:
            _check_index(p, index, program, self.index)
        record.ops_after = self.op_count()
        # A pass cut short by --bisect-limit has not finished: what its invariants promise about
        # its output (no dead ops left) need not hold; the program must still verify.
        _check_after(p, index, program, self.level, changed=record.changed,
                     touched=watch.touched, complete=state.bisect.refused == refused)
        if self.tags and record.changed:
            program.graph_tags.append(GraphTag(p.name, cls.version, rollout_state, self.before,
                                               record.fingerprint_after))
            self.before = record.fingerprint_after
        for instrument in self.instruments:
            instrument.after(p, index, program, record)
        return record


GATE = "rewrite-gate"   # the PassFailure's `invariant` for an edit outside the gate
_HOW = ("every change goes through the rewrite gate: rewrite = pc.begin(matched_ops), "
        "change the IR, rewrite.done(produced_ops)")


def _outside_gate(p, index: int, record: PassRecord, watch: IRWatch) -> int:
    """The edits the watch saw outside the gate: an error for a pass, the count (for its
    tag and report entry) for a correctness pass."""
    if watch.unfinished is not None:
        raise PassFailure(f"pass {p.name!r} (#{index + 1} of the pipeline) changed the IR outside "
                          f"the rewrite gate: {watch.unfinished}; {_HOW}", p.name, GATE, index)
    if watch.outside and not type(p).correctness:
        raise PassFailure(f"pass {p.name!r} (#{index + 1} of the pipeline) changed the IR outside "
                          f"the rewrite gate: {watch.outside} edit(s), the first: "
                          f"{watch.first_outside}; {_HOW}", p.name, GATE, index)
    return watch.outside


def _check_index(p, position: int, program, index: OpIndex) -> None:
    """--verify-each=full: the op index the watch kept must be a fresh count's."""
    problem = index.mismatch(program)
    if problem is not None:
        raise PassFailure(f"pass {p.name!r} (#{position + 1} of the pipeline) changed the IR where "
                          f"the watch cannot see it: {problem}; {_HOW}", p.name, GATE, position)


def _snapshot(program) -> dict:
    """What the watch cannot see, per op (by id; the op kept): attributes, properties and
    result types."""
    return {id(op): (op, dict(op.attributes), dict(op.properties), [r.type for r in op.results])
            for op in program.walk()}


def _outside_gate_full(p, index: int, program, record: PassRecord, watch: IRWatch,
                       snapshot: dict, before: str, after: str) -> int:
    """--verify-each=full: ops whose attributes or result types changed though no rewrite
    matched or produced them (editing an op's operands does not let a rewrite change what
    the op is), and a fingerprint that moved with nothing through the
    gate: an error for a pass.  For a correctness pass, what to count when neither its
    rewrites nor the watch recorded a change (0 otherwise)."""
    edited = watch.touched.rewritten
    changed = []
    for op in program.walk():
        entry = snapshot.get(id(op))
        if entry is None or entry[0] is not op or id(op) in edited:
            continue
        if (entry[1] != op.attributes or entry[2] != op.properties
                or entry[3] != [r.type for r in op.results]):
            changed.append(op)
    moved = before != after and not record.rewrites and not watch.changed
    if not changed and not moved:
        return 0
    if type(p).correctness:
        return 0 if record.rewrites or watch.outside else max(len(changed), 1)
    what = (f"{len(changed)} op(s) whose attributes or result types changed in no rewrite, the "
            f"first: {changed[0].name}" if changed else
            f"the program's fingerprint went from {before} to {after} with no rewrite")
    raise PassFailure(f"pass {p.name!r} (#{index + 1} of the pipeline) changed the IR outside the "
                      f"rewrite gate (--verify-each=full): {what}; {_HOW}", p.name, GATE, index)


def _check_after(p, index: int, program, level: str | None, changed: bool = True, touched=None,
                 complete: bool = True) -> None:
    """The invariants the pass declared (only `verified` when the pass was not `complete`),
    then (with a verify level) the verifier; not the verifier when the pass changed nothing.

    Each on the whole program under "full", or without `touched` (what the watch recorded:
    pirc.passes.infra.touched); else (incremental, and the declared invariants under
    --no-verify-each) each in the region the pass touched that can break it
    (pirc.passes.infra.invariants), unless the pass is a correctness pass or changed the
    program's version: then whole."""
    cls = type(p)
    invariants = known_invariants()
    verify_each = level is not None
    if level == "full" or touched is None or touched.whole_program(cls.correctness):
        touched = None
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
            problems = check(name, program, touched)
        if problems:
            shown = "; ".join(problems[:3]) + (f"; and {len(problems) - 3} more" if len(problems) > 3 else "")
            what = (f"left a program that does not verify" if name == "verified" and name not in cls.invariants
                    else f"broke the invariant {name!r}")
            raise PassFailure(f"pass {p.name!r} (#{index + 1} of the pipeline) {what}: {shown}",
                              p.name, name, index)


def _verify(program, changed: bool, touched) -> list[str]:
    return check("verified", program, touched) if changed else []


def _skip_reason(cls, program, device: str, state, params=None) -> str | None:
    if state.conservative is not None and not cls.conservative_safe:
        return f"conservative mode: {state.conservative}; {cls.name} is not declared safe for it"
    if device not in cls.devices:
        return f"device: {cls.name} runs on {', '.join(cls.devices)}, not {device}"
    low, high = cls.pir_versions
    version = program.version
    if version != 0 and not low <= version <= high:
        return (f"version: {cls.name} is declared safe for PIR versions {low}-{high}, "
                f"the program is version {version}")
    if cls.reads_weights and params is None:
        return needs_params(cls.name)
    return None
