"""The kill switch: `PIRC_DISABLE_PASSES=name,name` (or `all`) turns optimising passes off
without a new release.  Read for each pipeline run, so in a long-running process a change
takes effect on the next program.  Passes a correct program needs (`correctness = True`)
are never disabled; naming one is an error, as is an unknown name."""

from __future__ import annotations

import os

from .pipeline import PipelineError, closest_first, closest_hint
from .registry import all_passes

ENV = "PIRC_DISABLE_PASSES"


def optimising_passes() -> list[str]:
    """The passes a rollout may turn off: every registered one but the correctness passes."""
    return [n for n, cls in all_passes().items() if not cls.correctness]


def unknown_pass(name: str, what: str) -> str:
    """The message for an unknown pass `name`: the valid ones, the closest match first
    (`what` says what they are, e.g. "the passes it can disable")."""
    valid = optimising_passes()
    return (f"unknown pass {name!r}{closest_hint(name, valid)}; {what}: "
            f"{', '.join(closest_first(name, valid))}")


def disabled_passes() -> set[str]:
    """The names the environment disables now (every optimising pass for `all`)."""
    raw = os.environ.get(ENV, "")
    names = {n.strip() for n in raw.split(",") if n.strip()}
    if not names:
        return set()
    passes = all_passes()
    if "all" in names:
        return set(optimising_passes())
    for name in sorted(names):
        cls = passes.get(name)
        if cls is None:
            raise PipelineError(f"{ENV}: {unknown_pass(name, 'the passes it can disable')}, or all")
        if cls.correctness:
            raise PipelineError(f"{ENV}: {name!r} is needed for a correct program and is never disabled")
    return names
