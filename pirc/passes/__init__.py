"""Passes: one module per pass in this package, found by scanning it; the machinery (base
class, registry, pipelines, manager, invariants, the rewrite gate, fingerprints) in
`pirc.passes.infra`.  docs/PASSES.md says how to write one."""

from .infra.manager import PassFailure, PipelineResult, run_pipeline
from .infra.pass_base import PassContext, PircPass
from .infra.pipeline import Pipeline, PipelineError, build_pipeline
from .infra.registry import all_passes, get_pass, register_pass
from .infra.rewrites import ANY_OP, OpUse, RewriteConflictError

__all__ = ["ANY_OP", "OpUse", "PassContext", "PassFailure", "Pipeline", "PipelineError", "PipelineResult",
           "PircPass", "RewriteConflictError", "all_passes", "build_pipeline", "get_pass",
           "register_pass", "run_pipeline"]
