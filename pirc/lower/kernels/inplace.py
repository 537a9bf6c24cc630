"""In-place ops (`leaky_relu_`, `logit_`, `relu_`, ...) lower to their out-of-place kernel.

Paddle's `X_` computes what `X` computes and writes the result into its input. The lowering
is functional: the graph builder rebinds every name of the written storage to the op's result
(graph_builder `_apply_writes`, storage.py), so `X`'s kernel is `X_`'s kernel wherever the two ops take
the same operands and attributes and give the same results. That is checked against the op
specs at every PIR version an `X` entry covers; an alias is registered only for the versions
where it holds, with the entry's behaviour flags. An in-place op with a kernel of its own
(batch_norm_, assign_value_, array_write_) keeps it.
"""

from __future__ import annotations

from ...ir.program import LATEST_VERSION
from ...ir.specs import get_spec
from ...runtime.registry import REGISTRY


def _signature(spec) -> tuple:
    return (tuple(o.name for o in spec.operands), tuple(a.name for a in spec.attributes),
            tuple(r.name for r in spec.results))


def _same_op(inplace: str, name: str, version: int) -> bool:
    a, b = get_spec(inplace, version), get_spec(name, version)
    return a is not None and b is not None and bool(a.inplace) and _signature(a) == _signature(b)


def _runs(versions: list[int]) -> list[tuple[int, int]]:
    """Consecutive versions as half-open [since, until) ranges."""
    runs = []
    for v in versions:
        if runs and runs[-1][1] == v:
            runs[-1] = (runs[-1][0], v + 1)
        else:
            runs.append((v, v + 1))
    return runs


def register_inplace_aliases(registry=REGISTRY) -> list[str]:
    """Register `X_` for every kernel `X` whose in-place twin has the same signature."""
    added = []
    for name in registry.names():
        inplace = name + "_"
        if name.endswith("_") or inplace in registry:
            continue
        for entry in registry.entries(name):
            last = LATEST_VERSION if entry.until is None else entry.until - 1
            versions = [v for v in range(entry.since, last + 1) if _same_op(inplace, name, v)]
            for since, until in _runs(versions):
                open_ended = entry.until is None and until == LATEST_VERSION + 1
                registry.register(inplace, since, None if open_ended else until,
                                  flags=entry.flags, deprecated=entry.deprecated)(entry.fn)
                added.append(inplace)
    return sorted(set(added))
