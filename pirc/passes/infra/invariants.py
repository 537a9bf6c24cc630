"""Named invariants a pass guarantees after it runs, each a check on the program.

A check returns the problems it found (empty: the invariant holds); the manager runs the
ones a pass declares, after the verifier, and stops the pipeline on the first broken one.
Add an invariant with `@invariant("name")` on a function of the program.
"""

from __future__ import annotations

from typing import Callable

from ...ir.effects import is_pure

_CHECKS: dict[str, Callable] = {}


def invariant(name: str):
    def register(fn):
        _CHECKS[name] = fn
        return fn
    return register


def known_invariants() -> dict[str, Callable]:
    return dict(_CHECKS)


def check(name: str, program) -> list[str]:
    return _CHECKS[name](program)


@invariant("verified")
def _verified(program) -> list[str]:
    from ...ir.verifier import collect_problems

    return [str(p) for p in collect_problems(program)]


@invariant("no-dead-ops")
def _no_dead_ops(program) -> list[str]:
    return [f"{op.name} is pure and its results are unused"
            for op in program.walk()
            if is_pure(op) and all(r.first_use is None for r in op.results)]


@invariant("no-common-subexpressions")
def _no_common_subexpressions(program) -> list[str]:
    from ...ir.aliasing import AliasAnalysis
    from .op_keys import OpKeys, common_subexpressions

    return [f"{op.name} computes what an earlier {earlier.name} computes"
            for op, earlier in common_subexpressions(program.block, OpKeys(),
                                                     AliasAnalysis(program))]
