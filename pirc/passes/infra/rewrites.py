"""The gate every rewrite goes through, and what it records.

A pass asks `pc.begin(ops)` before it rewrites the ops it matched and calls `done(produced)`
on the answer after.  Between the two the manager (this module) has

* gated it: each matched op's semantic version (pirc.runtime.op_versions) must be one the
  pass declared for that op (`PircPass.rewrites`), and in conservative mode the op's use
  must be declared conservative-safe; otherwise the rewrite is skipped and counted, with
  the reason;
* protected it: a matched op that another pass produced is a `RewriteConflictError`
  naming both passes and the ops, unless this pass lists the producer (or `*`) in
  `may_rewrite_after`;
* counted it for bisection (`--bisect-limit=N` applies the first N rewrites of the whole
  pipeline, logging each, as LLVM's opt-bisect does);
* and, on `done`, recorded the fingerprints of what was matched and what was produced, and
  which pass produced the new ops.

What a rewrite matched and produced is also what the program fingerprint after the pass
hashes again (with the ops the IR watch saw edited): `RunState.fingerprint_after`.

`RunState` is one pipeline run's shared memory of all that; `RewriteCache` keeps plans by
(fingerprint, pass, pass version, options, op-version digest) so identical subgraphs (a
model's repeated layers) are worked out once.
"""

from __future__ import annotations

import os
from collections import OrderedDict
from dataclasses import dataclass, field

from ...errors import PircError
from ...runtime.op_versions import digest as op_versions_digest
from ...runtime.op_versions import semantic_version
from .fingerprint import Fingerprinter, top_level


@dataclass(frozen=True)
class OpUse:
    """What a pass declares about one op it rewrites.

    `semantic`: the semantic versions (the `since` of pirc.runtime.registry entries) whose
    numerics the pass was written for; `"*"`: any (a pass that moves ops without reading
    what they compute, such as dce).  `conservative`: safe in conservative mode."""

    semantic: tuple[int, ...] | str = (1,)
    conservative: bool = False


ANY_OP = "*"


class RewriteConflictError(PircError):
    """A pass matched ops another pass produced without declaring it may rewrite them."""

    def __init__(self, message: str, passes: tuple[str, str], ops: tuple[str, ...]):
        super().__init__(message)
        self.passes = passes
        self.ops = ops


class RewriteCache:
    """Plans by key, least recently used out first; one per process, so a model zoo's
    repeated layers are worked out once across programs too.  A disabled cache keeps
    nothing (every `get` misses): the same output, each plan computed afresh."""

    def __init__(self, capacity: int = 4096, enabled: bool = True):
        self.capacity = capacity
        self.enabled = enabled
        self._plans: OrderedDict = OrderedDict()
        self.hits = 0
        self.misses = 0

    def get(self, key):
        plan = self._plans.get(key) if self.enabled else None
        if plan is None:
            self.misses += 1
            return None
        self.hits += 1
        self._plans.move_to_end(key)
        return plan

    def put(self, key, plan) -> None:
        if not self.enabled:
            return
        self._plans[key] = plan
        self._plans.move_to_end(key)
        while len(self._plans) > self.capacity:
            self._plans.popitem(last=False)


def cache_enabled(environ=os.environ) -> bool:
    """`PIRC_REWRITE_CACHE=0` turns the process's rewrite cache off.  A benchmark knob
    (tools/bench_passes.py measures what the cache saves), not a user setting: the cache
    never changes what a pass produces, only how often its plans are worked out."""
    return environ.get("PIRC_REWRITE_CACHE", "1").strip() != "0"


CACHE = RewriteCache(enabled=cache_enabled())


@dataclass
class Bisect:
    """`--bisect-limit=N`: rewrites 1..N run, the rest are logged and not run."""

    limit: int | None = None
    count: int = 0
    refused: int = 0   # rewrites not run because of the limit
    log: list[str] = field(default_factory=list)
    echo: object = None  # a file the log lines also go to (stderr for the CLI), or None

    def allow(self, pass_name: str, fingerprint: str) -> bool:
        """Count a rewrite; whether it runs.  Without a limit only the count moves (the
        gate then counts inline, without the call)."""
        self.count += 1
        allowed = self.limit is None or self.count <= self.limit
        self.refused += not allowed
        if self.limit is not None:
            verb = "running" if allowed else "NOT running"
            line = f"BISECT: {verb} pass ({self.count}) {pass_name} on {fingerprint}"
            self.log.append(line)
            if self.echo is not None:
                print(line, file=self.echo)
        return allowed


@dataclass
class RunState:
    """What one pipeline run shares between its passes."""

    program: object
    conservative: str | None = None       # why the run is conservative, or None
    bisect: Bisect = field(default_factory=Bisect)
    producers: dict = field(default_factory=dict)   # id(op) -> (op, pass name)
    cache: RewriteCache = CACHE
    watch: object = None                   # the running pass's IRWatch (pirc.passes.infra.ir_watch)
    # The top-level ops holding what rewrites matched or produced since the program's last
    # fingerprint, by id: with the watch's, what the next one hashes again.
    seeds: dict = field(default_factory=dict)
    _fingerprinter: Fingerprinter | None = None

    @property
    def program_version(self) -> int:
        return self.program.version  # an upgrade pass changes it mid-pipeline

    @property
    def fingerprinter(self) -> Fingerprinter:
        if self._fingerprinter is None or self._fingerprinter.version != self.program.version:
            self._fingerprinter = Fingerprinter(self.program.version)
        return self._fingerprinter

    def fingerprint(self, ops) -> str:
        fingerprinter = self._fingerprinter  # the property's check, inline: once per rewrite
        if fingerprinter is None or fingerprinter.version != self.program.version:
            fingerprinter = self.fingerprinter
        # The seeds: the only top-level ops whose static keys may differ from those the
        # fingerprinter kept at the last look (Fingerprinter.ops)
        return fingerprinter.ops(ops, self.seeds)

    def kept_statics(self):
        """op -> the static key the program fingerprint kept for it, where it is still the
        op's (Fingerprinter.kept_static, against the seeds as they are at each call), or
        None: for a pass's own walks while it runs (cse's keys, pirc.passes.infra.op_keys)."""
        fingerprinter, seeds = self.fingerprinter, self.seeds
        kept = fingerprinter.kept_static
        return lambda op: kept(op, seeds)

    def program_fingerprint(self) -> str:
        """The program's fingerprint, every op looked at (pirc.passes.infra.fingerprint)."""
        fingerprinter = self.fingerprinter
        value = fingerprinter.program(self.program)
        self.seeds.clear()
        return value

    def fingerprint_after(self, edited, detached: int | None = None) -> str:
        """The program's fingerprint after a pass whose every change went through the gate:
        only the ops its rewrites matched or produced and the top-level ops `edited` (the
        IR watch's: each op an edit touched, by id) are hashed again, with what lies
        downstream of them.  `detached`: how many ops left a block of the program (the
        watch's count), which tells the update whether any op moved (Fingerprinter.update)."""
        fingerprinter = self.fingerprinter
        seeds = self.seeds
        # The ops only the watch saw edited, which no rewrite matched or produced: their
        # operands, not what they are (the gate's contract, which --verify-each=full checks).
        steady = edited.keys() - seeds.keys()
        seeds.update(edited)
        value = fingerprinter.update(self.program, seeds.values(), steady, detached)
        seeds.clear()
        return value

    def note(self, ops) -> None:
        """The ops a rewrite matched or produced: their top-level ops change."""
        if not ops:  # most rewrites produce nothing (cse's merges, forwards)
            return
        # The top-level block: the running pass's watch holds it (the program's `block` is a
        # property of xDSL's, worked out at each call).
        watch = self.watch
        block = self.program.block if watch is None else watch.block
        seeds = self.seeds
        for op in ops:
            top = op if op.parent is block else top_level(op, block)  # mostly a top-level op
            if top is not None:
                seeds[id(top)] = top

    def producer(self, op) -> str | None:
        entry = self.producers.get(id(op))
        return entry[1] if entry is not None and entry[0] is op else None


class Rewrite:
    """A rewrite the gate allowed: call `done(produced_ops)` once the IR has changed.

    `matched`: the ops themselves (what --verify-each=full lets the rewrite edit); `ops`
    their names, for messages.  A plain class with slots: one is made per rewrite, and a
    pipeline makes tens of thousands."""

    __slots__ = ("pc", "fingerprint", "matched")

    def __init__(self, pc, fingerprint: str, matched: tuple):
        self.pc = pc
        self.fingerprint = fingerprint
        self.matched = matched

    @property
    def ops(self) -> tuple[str, ...]:
        return tuple(op.name for op in self.matched)

    def done(self, produced=()) -> None:
        pc = self.pc
        state = pc.state
        produced = list(produced) if produced else ()   # most rewrites produce nothing
        if state.watch is not None:
            state.watch.closed(self, produced)
        if produced:
            producers, name = state.producers, pc.pass_name
            for op in produced:
                producers[id(op)] = (op, name)
            state.note(produced)
        pc.rewrites += 1
        pc.rewrites_detail.append({"fingerprint": self.fingerprint,
                                   "produced": state.fingerprint(produced) if produced else None})


def gate(pc, ops) -> Rewrite | None:
    """The checks of the module docstring, for the ops a pass matched; None when the
    rewrite may not happen (the skip and its reason are recorded on `pc`).

    Each check is a lookup in the common case: an op name's verdict (versions, conservative
    mode) is worked out once per pass (`PassContext.verdicts`), the producers are looked up
    only when a pass produced something this one may not rewrite, and without a bisection
    limit the count is all bisection does."""
    ops = tuple(ops)
    state = pc.state
    watch = state.watch
    if watch is not None and watch.open is not None:   # a new rewrite: what was open is over
        watch.close_open()
    fingerprint = state.fingerprint(ops)
    verdicts = pc.verdicts(state.program.version)
    for op in ops:
        reason = verdicts.get(op.name, _UNKNOWN)
        if reason is _UNKNOWN:
            reason = verdicts[op.name] = _version_reason(pc, pc.pass_cls.rewrites, op, state)
        if reason is not None:
            pc.skip(reason, op, fingerprint)
            return None
    if state.producers:
        _check_conflicts(pc, ops, state)
    bisect = state.bisect
    if bisect.limit is None:
        bisect.count += 1   # Bisect.allow without a limit
    elif not bisect.allow(pc.pass_name, fingerprint):
        pc.skip(f"bisect: beyond --bisect-limit={bisect.limit}", ops[0] if ops else None, fingerprint)
        return None
    rewrite = Rewrite(pc, fingerprint, ops)
    state.note(ops)
    if watch is not None:
        watch.opened(rewrite)
    return rewrite


_UNKNOWN = object()   # an op name the gate has no verdict for yet


def _version_reason(pc, declared: dict, op, state: RunState) -> str | None:
    use = declared.get(op.name) or declared.get(ANY_OP)
    if use is None:
        return (f"version: {pc.pass_name} declares no semantic versions for {op.name} "
                f"(it declares {', '.join(sorted(declared)) or 'none'})")
    if use.semantic != ANY_OP:
        semantic = semantic_version(op.name, state.program_version)
        if semantic not in use.semantic:
            have = "no registered semantics" if semantic is None else f"semantic version {semantic}"
            return (f"version: {op.name} at PIR version {state.program_version} has {have}; "
                    f"{pc.pass_name} was written for {', '.join(map(str, use.semantic))}")
    if state.conservative is not None and not use.conservative:
        return f"conservative mode ({state.conservative}): {pc.pass_name} is not declared safe on {op.name}"
    return None


def _check_conflicts(pc, ops, state: RunState) -> None:
    allowed = pc.pass_cls.may_rewrite_after
    if "*" in allowed:
        return
    for op in ops:
        producer = state.producer(op)
        if producer is not None and producer != pc.pass_name and producer not in allowed:
            names = tuple(o.name for o in ops)
            raise RewriteConflictError(
                f"rewrite conflict: {pc.pass_name} matched {op.name}, which {producer} produced "
                f"(matched ops: {', '.join(names)}); a subgraph is rewritten by one pass unless "
                f"the later one lists the earlier in may_rewrite_after", (producer, pc.pass_name), names)


def cache_key(pc, fingerprint: str, extra: bytes = b"") -> tuple:
    """The rewrite cache's key for a plan of `pc`'s pass on a subgraph; `extra` is what
    else the plan read (a pass that reads weight values passes their bytes' digest)."""
    return (fingerprint, pc.pass_name, pc.pass_cls.version, pc.options_text, op_versions_digest(), extra)
