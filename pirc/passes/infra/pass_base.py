"""`PircPass`: what a pass declares, on xDSL's `ModulePass`.

A pass is one module under `pirc/passes/` holding one class, decorated with
`@register_pass` and `@dataclass(frozen=True)` (`pirc/passes/dce.py` is a short one; docs/PASSES.md
has a whole example).

Options are the dataclass's fields, typed with defaults, as xDSL's passes take them
(`const-fold{max-iterations=2}` sets `max_iterations: int = 1`).  The declarations are class
variables read by the manager (pirc.passes.infra.manager) before and after the pass runs:

* `requires`: passes that must run earlier in the same pipeline;
* `invariants`: named checks (pirc.passes.infra.invariants) the manager runs after the pass;
* `devices`: the `--device` values the pass applies to;
* `pir_versions`: the program PIR versions (inclusive bounds) the pass is safe for; a
  program outside them skips the whole pass, with the reason;
* `conservative_safe`: whether it runs in conservative mode (a program from another pirc);
* `may_rewrite_after`: passes whose output this one may rewrite (`*`: any, for cleanups);
* `correctness`: needed for a correct program (upgrade): the kill switch never disables it;
* `rewrites`: per op it rewrites (or `*`), an `OpUse`: the semantic op versions it was
  written for and whether that use is safe in conservative mode;
* `interest`: the op names it starts from (None: any op); when the program holds none of
  them the manager does not run it (`ops_of_interest`, pirc.passes.infra.op_index): its
  report is that of a run that found nothing, at the cost of a lookup;
* `reads_weights`: it reads parameter values (`pc.params`); run without them, the manager
  skips it whole with the reason (`skipped_reason`, no match), as for a device it does not
  apply to.
"""

from __future__ import annotations

from abc import abstractmethod
from dataclasses import dataclass, field
from typing import ClassVar

from xdsl.context import Context
from xdsl.passes import ModulePass

from ...ir.program import LATEST_VERSION
from . import rewrites as the_gate   # its `gate`, looked up at each call (begin)
from .rewrites import RunState, cache_key


@dataclass
class Skip:
    reason: str
    op: str | None = None
    fingerprint: str | None = None


@dataclass
class PassContext:
    """What a running pass sees and reports: the program, the device, the parameters (a
    dict name -> numpy array, or None when the run has none), its counters.

    Every rewrite goes through `begin(ops)` (pirc.passes.infra.rewrites): the version and
    conservative-mode gates, rewrite-twice protection and bisection live there, not in the
    passes."""

    program: object              # pirc.ir.program.Program
    device: str = "cpu"
    pass_obj: object = None      # the running PircPass
    state: object = None         # pirc.passes.infra.rewrites.RunState
    params: dict | None = None
    matches: int = 0
    rewrites: int = 0
    skips: list[Skip] = field(default_factory=list)
    rewrites_detail: list[dict] = field(default_factory=list)
    # rule name -> NearMisses (pirc.passes.infra.declarative): candidates that matched their
    # root and a producer, then failed a check
    near_misses: dict = field(default_factory=dict)
    rule_rewrites: dict = field(default_factory=dict)   # rule name -> rewrites it made
    _near_pending: dict = field(default_factory=dict, repr=False)
    _aliases: object = field(default=None, repr=False)
    _parameter_names: object = field(default=None, repr=False)   # pirc.passes.infra.parameters
    _verdicts: dict = field(default_factory=dict, repr=False)    # verdicts()
    _verdicts_version: int | None = field(default=None, repr=False)

    def __post_init__(self):
        if self.state is None:
            self.state = RunState(self.program)

    @property
    def module(self):
        return self.program.module

    @property
    def version(self) -> int:
        return self.program.version

    @property
    def pass_cls(self):
        return type(self.pass_obj)

    @property
    def pass_name(self) -> str:
        return self.pass_obj.name

    @property
    def options_text(self) -> str:
        from .pipeline import pass_text
        return pass_text(self.pass_obj)

    @property
    def aliases(self):
        """The alias model of the program (pirc.ir.aliasing.AliasAnalysis): which values share
        a buffer and which ops write it.  Built on first ask, for the program as it was then:
        rewrites keep it true (no pass adds a write to an existing buffer, and merging or
        forwarding only happens where it says no write tells the names apart); a value made
        after it was built is unknown to it (`knows`), and the queries of
        pirc.passes.infra.forwarding then decide from that value's uses."""
        if self._aliases is None:
            from ...ir.aliasing import AliasAnalysis

            self._aliases = AliasAnalysis(self.program)
        return self._aliases

    def matched(self, n: int = 1) -> None:
        self.matches += n

    def begin(self, ops):
        """Ask to rewrite the matched `ops`: a `Rewrite` (call its `done(produced_ops)` once
        the IR has changed), or None when the rewrite may not happen (the skip is recorded)."""
        return the_gate.gate(self, ops)   # looked up in its module: a profiler may wrap it

    def verdicts(self, version: int) -> dict:
        """The gate's verdicts for this pass on a program of PIR `version`: op name -> None
        (the pass may rewrite it) or why not.  A verdict depends on the name, the pass, the
        version and the run's mode only, so the gate works each out once per pass (and again
        if a pass changes the program's version)."""
        if self._verdicts_version != version:
            self._verdicts, self._verdicts_version = {}, version
        return self._verdicts

    def rewrote(self, n: int = 1) -> None:
        """Count `n` rewrites that did not go through `begin`: for a correctness pass such
        as upgrade, whose steps are not optional.  Any other pass that changes the IR
        outside `begin` ... `done` is stopped by the manager (pirc.passes.infra.ir_watch)."""
        self.rewrites += n

    def skip(self, reason: str, op=None, fingerprint: str | None = None) -> None:
        """A rewrite not applied, and why (counted in the pass statistics and the report)."""
        self.skips.append(Skip(reason, None if op is None else op.name, fingerprint))

    def cached(self, fingerprint: str, compute, extra: bytes = b""):
        """The plan for a subgraph with this fingerprint: from the rewrite cache, or
        `compute()` (then cached).  `extra`: what else the plan depends on (weight bytes)."""
        key = cache_key(self, fingerprint, extra)
        plan = self.state.cache.get(key)
        if plan is None:
            plan = compute()
            self.state.cache.put(key, plan)
        return plan


@dataclass(frozen=True)
class PircPass(ModulePass):
    name: ClassVar[str]
    version: ClassVar[int] = 1
    requires: ClassVar[tuple[str, ...]] = ()
    invariants: ClassVar[tuple[str, ...]] = ("verified",)
    devices: ClassVar[tuple[str, ...]] = ("cpu", "npu")
    pir_versions: ClassVar[tuple[int, int]] = (1, LATEST_VERSION)
    conservative_safe: ClassVar[bool] = False
    may_rewrite_after: ClassVar[tuple[str, ...]] = ()
    correctness: ClassVar[bool] = False
    rewrites: ClassVar[dict] = {}   # op name (or "*") -> OpUse (pirc.passes.infra.rewrites)
    interest: ClassVar[frozenset[str] | None] = None   # op names it starts from; None: any
    reads_weights: ClassVar[bool] = False

    @classmethod
    def ops_of_interest(cls) -> frozenset[str] | None:
        """The op names the pass starts from (its matches' roots): a program without any of
        them gives it nothing to do.  None: any op may start a match."""
        return cls.interest

    @abstractmethod
    def run(self, pc: PassContext) -> None:
        """Rewrite `pc.program` in place, counting rewrites and skips on `pc`."""

    def apply(self, ctx: Context, op) -> None:
        """xDSL's entry point (a pirc pass in an xDSL pipeline): the module alone, read as a
        program of the latest version."""
        from ...ir.program import Program

        if self.reads_weights:
            return  # no parameter values come this way: nothing to read (the manager's skip)
        self.run(PassContext(Program(module=op, version=LATEST_VERSION), pass_obj=self))

    @classmethod
    def summary(cls) -> str:
        """The docstring's first paragraph, on one line: what the pass rewrites (a sentence
        that wraps in the source is not cut at the wrap: `--list-passes`)."""
        doc = (cls.__doc__ or "").strip()
        return " ".join(doc.split("\n\n")[0].split())
