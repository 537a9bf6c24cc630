"""The compat registry: one key per torch / torch_npu API difference, with version-gated sides.

    @compat_impl(key="npu_default_generator", ge=(2, 14))
    def _upstream(device_index): ...
    @compat_impl(key="npu_default_generator", lt=(2, 14))
    def _local(device_index): ...
    default_generator = compat_impl_container["npu_default_generator"].resolve()

The decorator only records a side and returns the function unchanged. `resolve()` returns the
side that matches the running torch without calling it (CompatError if none does); `apply()`
calls the matching zero-argument side and returns its value, or does nothing when none matches.

Registration rules (each rejects with CompatError, naming the key and the defining module):
- the key is a non-empty string;
- exactly one of ge / lt / judgement is given;
- ge / lt thresholds are (int, int) tuples;
- a threshold at or below the minimum supported torch is stale: that side always (or never)
  matches on every supported torch, so the difference is gone and the side should be deleted;
- a key has at most two sides;
- two versioned sides are one ge and one lt with the same threshold (no gaps, no overlaps;
  only ge and lt exist, so every version falls on exactly one side);
- versioned and judgement sides are not mixed under one key;
- at most one judgement side of a key is True;
- all sides of a key are defined in one module (a difference is read in one place).
This follows the compat_impl design in Ascend/pytorch's torch_npu/_compat/_impl.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from ..errors import PircError
from .torch_versions import MIN_TORCH, torch_version


class CompatError(PircError):
    """A compat key registered against the rules, or one with no side for the running torch."""


Version = tuple[int, int]


@dataclass(frozen=True)
class Side:
    key: str
    fn: Callable
    module: str
    ge: Version | None = None
    lt: Version | None = None
    judgement: bool | None = None

    def condition(self) -> str:
        if self.ge is not None:
            return f"ge={self.ge[0]}.{self.ge[1]}"
        if self.lt is not None:
            return f"lt={self.lt[0]}.{self.lt[1]}"
        return f"judgement={self.judgement}"

    def matches(self, current: Version) -> bool:
        if self.ge is not None:
            return current >= self.ge
        if self.lt is not None:
            return current < self.lt
        return bool(self.judgement)

    def describe(self) -> str:
        return f"{self.condition()}: {self.module}.{getattr(self.fn, '__qualname__', self.fn)}"


@dataclass
class CompatPoint:
    """One API difference: its sides, judged against the running torch of its registry."""

    key: str
    registry: "CompatRegistry"
    sides: list[Side] = field(default_factory=list)

    @property
    def current(self) -> Version:
        return self.registry.current

    def active(self) -> Side | None:
        for side in self.sides:
            if side.matches(self.current):
                return side
        return None

    def resolve(self) -> Callable:
        side = self.active()
        if side is None:
            raise CompatError(
                f"compat key '{self.key}' has no side for torch "
                f"{self.current[0]}.{self.current[1]} (sides: "
                + ", ".join(s.condition() for s in self.sides)
                + "); add the missing side or install a supported torch")
        return side.fn

    def apply(self):
        side = self.active()
        return side.fn() if side is not None else None


def _check_threshold(key: str, name: str, value, minimum: Version, module: str) -> Version:
    if (not isinstance(value, tuple) or len(value) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
        raise CompatError(f"compat key '{key}' in {module}: {name}={value!r} must be a "
                          "(major, minor) tuple of two ints, e.g. (2, 14)")
    if value <= minimum:
        raise CompatError(
            f"compat key '{key}' in {module}: {name}={value[0]}.{value[1]} is at or below the "
            f"minimum supported torch {minimum[0]}.{minimum[1]}, so this side is stale: "
            "delete the key's sides and keep the code of the side every supported torch takes")
    return value


class CompatRegistry:
    """Compat keys by name. `current` is the running torch (major, minor), read lazily."""

    def __init__(self, minimum: Version = MIN_TORCH, current: Version | None = None):
        self.minimum = minimum
        self._current = current
        self.points: dict[str, CompatPoint] = {}

    @property
    def current(self) -> Version:
        if self._current is None:
            self._current = torch_version()
        return self._current

    def __getitem__(self, key: str) -> CompatPoint:
        try:
            return self.points[key]
        except KeyError:
            raise CompatError(f"no compat key '{key}'; known keys: "
                              + (", ".join(sorted(self.points)) or "none")) from None

    def __contains__(self, key: str) -> bool:
        return key in self.points

    def __iter__(self):
        return iter(sorted(self.points))

    def compat_impl(self, *, key: str, ge: Version | None = None, lt: Version | None = None,
                    judgement: bool | None = None):
        def register(fn: Callable) -> Callable:
            self._add(fn, key, ge, lt, judgement)
            return fn
        return register

    def _add(self, fn, key, ge, lt, judgement) -> None:
        module = getattr(fn, "__module__", "?")
        if not isinstance(key, str) or not key.strip():
            raise CompatError(f"compat side {module}.{getattr(fn, '__qualname__', fn)}: "
                              "the key must be a non-empty string")
        given = [n for n, v in (("ge", ge), ("lt", lt), ("judgement", judgement)) if v is not None]
        if len(given) != 1:
            raise CompatError(f"compat key '{key}' in {module}: give exactly one of ge, lt, "
                              f"judgement (got {', '.join(given) or 'none'})")
        if ge is not None:
            ge = _check_threshold(key, "ge", ge, self.minimum, module)
        if lt is not None:
            lt = _check_threshold(key, "lt", lt, self.minimum, module)
        if judgement is not None and not isinstance(judgement, bool):
            raise CompatError(f"compat key '{key}' in {module}: judgement must be a bool "
                              f"(got {type(judgement).__name__})")
        side = Side(key, fn, module, ge, lt, judgement)
        point = self.points.get(key)
        if point is None:
            self.points[key] = CompatPoint(key, self, [side])
            return
        _check_pair(point, side)
        point.sides.append(side)


def _check_pair(point: CompatPoint, new: Side) -> None:
    key = point.key
    old = point.sides
    if any(s.module != new.module for s in old):
        raise CompatError(f"compat key '{key}' is defined in {old[0].module} and again in "
                          f"{new.module}: keep all sides of a key in one module")
    if len(old) >= 2:
        raise CompatError(f"compat key '{key}' in {new.module}: a key has at most two sides "
                          f"(already {', '.join(s.condition() for s in old)}; adding "
                          f"{new.condition()})")
    first = old[0]
    versioned = [s.judgement is None for s in (first, new)]
    if versioned[0] != versioned[1]:
        raise CompatError(f"compat key '{key}' in {new.module}: cannot mix a version side "
                          f"({(first if versioned[0] else new).condition()}) with a judgement "
                          "side under one key")
    if versioned[0]:
        sides = {("ge" if s.ge is not None else "lt"): (s.ge or s.lt) for s in (first, new)}
        if len(sides) != 2 or sides["ge"] != sides["lt"]:
            raise CompatError(
                f"compat key '{key}' in {new.module}: two version sides must be one ge and one "
                f"lt with the same threshold (got {first.condition()} and {new.condition()})")
    elif first.judgement and new.judgement:
        raise CompatError(f"compat key '{key}' in {new.module}: more than one judgement side "
                          "is True; exactly one side may match")


compat_impl_container = CompatRegistry()
compat_impl = compat_impl_container.compat_impl
