"""Bisection: which rewrite of a pipeline changed what a program computes.

    result = bisect(program, {"x": x}, "default", params="model.pdiparams")
    if result.diverged:
        print(result)   # the pass, its k-th rewrite, the fingerprint of what it matched

Three steps, each a run of the program's outputs through pirc.testing.numerical_diff:

1. the whole pipeline: do the outputs before and after it agree?  If so, done;
2. prefixes of the pipeline, shortest first: the first pass whose output diverges (a pass
   that moves no numbers can still be the one: the check is on outputs, not on rewrites);
3. within that pass, a binary search over the rewrite gate's bisect limit (opt-bisect,
   pirc.passes.infra.rewrites.Bisect): the smallest limit whose output diverges names the
   rewrite.  The earlier passes' rewrites all stay applied, so the limit ranges over that
   pass's rewrites only.

The reproducer (pirc.passes.infra.reproducer's format) holds the IR before that pass, the
pipeline from it and the limit counted from it: `pirc-opt --run-reproducer=FILE` stops right
after the culprit rewrite.  A pass that changes the program outside the gate (a correctness
pass such as upgrade) is still named; its rewrite is then unknown (`rewrite` is None).

Each probe reruns the pipeline on a fresh copy of the program: passes are deterministic, so
the k-th rewrite of one run is the k-th of every run.
"""

from __future__ import annotations

from dataclasses import dataclass

from .numerical_diff import DiffReport, numerical_diff

DEFAULT_REPRODUCER = "pirc-bisect.pir"


@dataclass
class BisectResult:
    """What bisect found.  `rewrite` counts from 1 within the pass; `bisect_limit` is the
    pipeline-wide limit that applies every rewrite up to it (pirc-opt --bisect-limit)."""

    diverged: bool
    diff: DiffReport                 # outputs before the pipeline vs. after the culprit rewrite
    pass_name: str | None = None
    pass_index: int | None = None    # the pass's position in the pipeline, from 0
    rewrite: int | None = None
    bisect_limit: int | None = None
    fingerprint: str | None = None   # pfp1: of the ops the culprit rewrite matched
    reproducer: str | None = None    # where the reproducer was written

    def __str__(self) -> str:
        if not self.diverged:
            return "no divergence: the outputs agree before and after the pipeline"
        where = f"pass {self.pass_name} (#{self.pass_index + 1} of the pipeline)"
        if self.rewrite is None:
            head = (f"the outputs diverge after {where}, with none of its rewrites through the "
                    "rewrite gate applied: it changes the program outside the gate")
        else:
            head = (f"the outputs diverge at rewrite {self.rewrite} of {where} "
                    f"(--bisect-limit={self.bisect_limit}), on {self.fingerprint}")
        lines = [head, str(self.diff)]
        if self.reproducer:
            lines.append(f"reproducer: {self.reproducer} (replay: pirc-opt --run-reproducer={self.reproducer})")
        return "\n".join(lines)


def bisect(program, inputs: dict, pipeline, params=None, *, device: str = "cpu",
           atol: float = 1e-5, rtol: float = 1e-4, reproducer: str | None = DEFAULT_REPRODUCER,
           program_name: str | None = None, rollout: str | None = None, runner=None) -> BisectResult:
    """Find the first pass of `pipeline` (a spec, a name or a Pipeline) and the first of its
    rewrites after which `program`'s outputs on `inputs` diverge from the original's.

    `program` is not changed.  `params`: the parameters (name -> array, or a .pdiparams
    path).  `reproducer`: where to write the reproducer (None: nowhere).  `program_name` and
    `rollout` decide rollout states as in run_pipeline; `runner` replaces pirc.run, as in
    numerical_diff."""
    from ..passes import build_pipeline

    if isinstance(pipeline, str):
        pipeline = build_pipeline(pipeline)
    probe = _Probe(program, inputs, pipeline, _params_dict(params, program), device, atol, rtol,
                   program_name, rollout, runner)
    n = len(pipeline.passes)
    _, whole, report = probe.run(n)
    if report.equal:
        return BisectResult(False, report)
    before_count = 0
    for index in range(n):
        _, prefix, report = probe.run(index + 1) if index + 1 < n else (None, whole, report)
        if not report.equal:
            break
        before_count = prefix.bisect_count
    limit = probe.first_diverging_limit(index + 1, before_count, prefix.bisect_count)
    after, result, _ = probe.run(index + 1, limit)
    diff = probe.diff(after, result, locate=True)
    found = BisectResult(True, diff, pipeline.passes[index].name, index)
    if limit is not None:
        found.rewrite, found.bisect_limit = limit - before_count, limit
        found.fingerprint = result.bisect_log[limit - 1].rsplit(" on ", 1)[1]
    if reproducer is not None:
        found.reproducer = reproducer
        _write_reproducer(probe, found, pipeline)
    return found


class _Probe:
    """Runs the pipeline (a prefix, a bisect limit) on fresh copies of one program and
    compares the outputs with the original's, which are computed once."""

    def __init__(self, program, inputs, pipeline, params, device, atol, rtol, program_name,
                 rollout, runner):
        from .numerical_diff import _pirc_run

        self.original = program.clone()
        self.inputs, self.pipeline, self.params, self.device = inputs, pipeline, params, device
        self.atol, self.rtol = atol, rtol
        self.program_name, self.rollout = program_name, rollout
        base = runner or _pirc_run
        reference = {}

        def run(p, feeds, bound, dev):
            if p is not self.original:
                return base(p, feeds, bound, dev)
            if "outputs" not in reference:  # the original: the same outputs every probe
                reference["outputs"] = base(p, feeds, bound, dev)
            return reference["outputs"]

        self.runner = run

    def run(self, stop_after: int, limit: int | None = None):
        """(program, PipelineResult, DiffReport without the op search) after the first
        `stop_after` passes, applying at most `limit` rewrites."""
        from ..passes import run_pipeline

        p = self.original.clone()
        result = run_pipeline(p, self.pipeline, device=self.device, stop_after=stop_after,
                              params=None if self.params is None else dict(self.params),
                              program_name=self.program_name, rollout=self.rollout,
                              bisect_limit=limit, tags=False)
        return p, result, self.diff(p, result, locate=False)

    def diff(self, p, result, locate: bool) -> DiffReport:
        return numerical_diff(self.original, p, self.inputs, self.atol, self.rtol, self.params,
                              result.params, self.device, self.runner, locate=locate)

    def first_diverging_limit(self, stop_after: int, low: int, high: int) -> int | None:
        """The smallest limit in (low, high] after which the outputs diverge, knowing they do
        at `high` (every rewrite applied); None when they already do at `low` (none of the
        pass's rewrites applied)."""
        if not self.run(stop_after, low)[2].equal:
            return None
        while high - low > 1:  # agree at low, diverge at high
            mid = (low + high) // 2
            if self.run(stop_after, mid)[2].equal:
                low = mid
            else:
                high = mid
        return high


def _params_dict(params, program):
    """Passes read parameters as arrays by name; a .pdiparams path is read once."""
    if params is None or isinstance(params, dict):
        return params
    from ..runtime.params import read_params

    return read_params(str(params), program)


def _write_reproducer(probe, found: BisectResult, pipeline) -> None:
    from ..atomic import write_atomically
    from ..passes.infra.reproducer import reproducer_text

    before, _, _ = probe.run(found.pass_index)
    what = (f"rewrite {found.rewrite} of pass {found.pass_name} changes the outputs"
            if found.rewrite is not None else f"pass {found.pass_name} changes the outputs")
    failed = next((f"{name}: {d}" for name, d in found.diff.outputs if not d.ok), "")
    text = reproducer_text(before, pipeline, found.pass_index, f"{what} ({failed})",
                           found.rewrite, kind="bisection")
    write_atomically(found.reproducer, [text])
