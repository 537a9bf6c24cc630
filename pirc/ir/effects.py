"""What each op does besides computing its results: purity and memory effects, from data.

`dialects/effects.yaml` holds the rules (its header explains the four effects); this module
resolves an op spec to its effect and to the xDSL traits that express it, so that the passes
of `pirc.passes` and xDSL's own `dce` / `cse` / canonicalize read one source.  The traits
are attached to each generated op class lazily (xDSL's `OpTraits` takes a factory): the
rules are loaded the first time a pass asks an op for its traits, never at start-up.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from xdsl.traits import (MemoryReadEffect, MemoryWriteEffect, NoTerminator, Pure,
                         RecursiveMemoryEffect)

from ..package_data import data_dir

PURE, READ, WRITE, RECURSIVE = "pure", "read", "write", "recursive"
EFFECTS = (PURE, READ, WRITE, RECURSIVE)

_TRAITS = {PURE: Pure, READ: MemoryReadEffect, WRITE: MemoryWriteEffect,
           RECURSIVE: RecursiveMemoryEffect}


@dataclass(frozen=True)
class Effect:
    kind: str  # one of EFFECTS
    why: str   # the rule's reason, for --list-passes style reports and error messages


@dataclass(frozen=True)
class _Rule:
    effect: Effect
    ops: frozenset[str]
    match: re.Pattern | None


def effects_file() -> Path:
    return data_dir("pirc.dialects", "effects.yaml",
                    Path(__file__).resolve().parents[2] / "dialects") / "effects.yaml"


@lru_cache(maxsize=1)
def _rules() -> tuple[_Rule, ...]:
    from .. import user_cache  # parsed once per text of the file: a warm run imports no YAML parser

    data = user_cache.yaml_data(effects_file(), "effects")
    rules = []
    for i, entry in enumerate(data["rules"]):
        kind = entry["effect"]
        if kind not in EFFECTS:
            raise ValueError(f"{effects_file()}: rule {i}: unknown effect {kind!r} "
                             f"(one of {', '.join(EFFECTS)})")
        pattern = entry.get("match")
        rules.append(_Rule(Effect(kind, entry["why"]), frozenset(entry.get("ops", ())),
                           re.compile(pattern) if pattern else None))
    return tuple(rules)


INPLACE_WRITE = Effect(WRITE, "in-place: writes its operand")  # and nothing else
_INPLACE = INPLACE_WRITE
_NO_RESULTS = Effect(WRITE, "has no results: it matters only through an effect")
_DEFAULT = Effect(PURE, "computes its results from its operands and attributes")


# spec id -> (spec, its effect): the rules are regular expressions tried in order, and cse,
# dce and their invariants ask once per op (300k asks at 100k ops, 6% of `-p default`).
_BY_SPEC: dict[int, tuple[object, Effect]] = {}


def effect_of(spec) -> Effect:
    """The effect of the op a spec defines (an OpSpec of pirc.ir.specs)."""
    entry = _BY_SPEC.get(id(spec))
    if entry is not None and entry[0] is spec:
        return entry[1]
    effect = _BY_SPEC[id(spec)] = (spec, _resolve(spec))
    return effect[1]


def _resolve(spec) -> Effect:
    name = spec.name
    for rule in _rules():
        if name in rule.ops or (rule.match is not None and rule.match.match(name)):
            return rule.effect
    if spec.inplace or name.endswith("_") or _inplace_in_table(name):
        return _INPLACE
    if not spec.results:
        return _NO_RESULTS
    return _DEFAULT


def _inplace_in_table(name: str) -> bool:
    """Whether the alias model's table (dialects/aliasing.yaml) lists `name` as in-place."""
    return name in _table_inplace()


@lru_cache(maxsize=1)
def _table_inplace() -> frozenset:
    from .aliasing import _table

    return frozenset(_table().get("inplace") or ())


def traits_for(spec) -> tuple:
    """The xDSL traits of a generated op class: PIR's block rule plus the op's effect."""
    return (NoTerminator(), _TRAITS[effect_of(spec).kind]())


def is_pure(op) -> bool:
    """Whether `op` may be removed when unused, merged with an identical op and folded."""
    spec = getattr(type(op), "spec", None)
    return spec is not None and effect_of(spec).kind == PURE
