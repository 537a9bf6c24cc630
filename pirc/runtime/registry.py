"""The versioned op registry: which implementation runs an op at a program's PIR version.

An op name maps to entries, each covering a half-open range of PIR versions [since, until)
with its implementation and its behaviour flags (the numerics a fusion must respect).
A program keeps the semantics of the version it was saved at: entries are never deleted,
only marked deprecated, and `resolve(name, version)` picks the one entry whose range holds
the program's version.  Ranges of one name may not overlap, so the choice never depends on
registration order.  Version 0 (an unreleased develop build) resolves like the newest
release, as op specs do (pirc.ir.specs).

Kernel modules register at import (`@REGISTRY.register("pd_op.relu", since=1)`);
`pirc.lower.kernels` imports them all.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from ..errors import LoweringError, PircError
from ..ir.program import DEVELOP_VERSION, LATEST_VERSION

__all__ = ["REGISTRY", "Behaviour", "Entry", "OpRegistry", "LoweringError", "RegistryError"]


class RegistryError(PircError):
    """A registration that breaks the registry's rules (overlapping ranges, bad bounds)."""


@dataclass(frozen=True)
class Behaviour:
    """Numerics an implementation has and a fusion or rewrite must keep.

    Free-form but named, so a fusion can ask before replacing a subgraph
    (e.g. an rms_norm whose epsilon is added inside the square root).
    """

    epsilon_placement: str | None = None  # "inside_sqrt", "outside_sqrt", ...
    accumulation: str | None = None  # "float32", "pairwise", "sequential", ...
    defaults: tuple[tuple[str, object], ...] = ()  # attribute defaults this version assumes
    layout: str | None = None  # preferred data layout ("NCHW", "NHWC")
    notes: str = ""


@dataclass
class Entry:
    """One implementation of an op for PIR versions [since, until) (until None: open-ended)."""

    name: str
    since: int
    until: int | None
    fn: Callable
    flags: Behaviour = field(default_factory=Behaviour)
    deprecated: bool = False
    # The kernel takes its operands as keywords named as the op's spec names them, a null
    # one left out (its default holds): for a kernel whose signature is a foreign schema
    # that puts attributes between tensors (torch_npu's, pirc.lower.npu.ops).
    keyword_operands: bool = False

    def covers(self, version: int) -> bool:
        return self.since <= version and (self.until is None or version < self.until)

    def range_text(self) -> str:
        end = "" if self.until is None else str(self.until)
        return f"[{self.since}, {end or '...'})" + (" (deprecated)" if self.deprecated else "")


def _overlap(a: Entry, since: int, until: int | None) -> bool:
    a_end = float("inf") if a.until is None else a.until
    b_end = float("inf") if until is None else until
    return a.since < b_end and since < a_end


class OpRegistry:
    """Entries by op name; see the module docstring for the rules."""

    def __init__(self) -> None:
        self._entries: dict[str, list[Entry]] = {}

    def register(self, name: str, since: int = 1, until: int | None = None, *,
                 flags: Behaviour | None = None, deprecated: bool = False,
                 keyword_operands: bool = False):
        """Decorator: register `fn` for `name` at PIR versions [since, until); returns fn unchanged."""
        if not isinstance(name, str) or not name:
            raise RegistryError(f"op name must be a non-empty string, got {name!r}")
        if not isinstance(since, int) or since < 1:
            raise RegistryError(f"{name}: since must be a PIR version >= 1, got {since!r}")
        if until is not None and (not isinstance(until, int) or until <= since):
            raise RegistryError(f"{name}: until must be a PIR version above since={since}, got {until!r}")

        def decorate(fn: Callable) -> Callable:
            entries = self._entries.setdefault(name, [])
            for e in entries:
                if _overlap(e, since, until):
                    new = Entry(name, since, until, fn).range_text()
                    raise RegistryError(
                        f"{name}: versions {new} of {_qualname(fn)} overlap {e.range_text()} of "
                        f"{_qualname(e.fn)}; give the older entry an `until` where the new one starts")
            entries.append(Entry(name, since, until, fn, flags or Behaviour(), deprecated,
                                 keyword_operands))
            entries.sort(key=lambda e: e.since)
            return fn

        return decorate

    def resolve(self, name: str, program_version: int) -> Entry:
        """The entry whose range holds `program_version`; LoweringError if none does."""
        version = LATEST_VERSION if program_version == DEVELOP_VERSION else program_version
        entries = self._entries.get(name, [])
        for e in entries:
            if e.covers(version):
                return e
        raise LoweringError(self.missing_message(name, program_version))

    def find(self, name: str, program_version: int) -> Entry | None:
        """Like resolve, but None when nothing covers the version."""
        try:
            return self.resolve(name, program_version)
        except LoweringError:
            return None

    def missing_message(self, name: str, program_version: int) -> str:
        entries = self._entries.get(name, [])
        shown = f"{program_version} (develop, resolved as {LATEST_VERSION})" \
            if program_version == DEVELOP_VERSION else str(program_version)
        if not entries:
            return f"{name} has no lowering (program PIR version {shown}); no version range is registered"
        ranges = ", ".join(e.range_text() for e in entries)
        return f"{name} has no lowering for PIR version {shown}; registered ranges: {ranges}"

    def deprecate(self, name: str, since: int) -> Entry:
        """Mark the entry of `name` that covers version `since` deprecated (it stays resolvable)."""
        for e in self._entries.get(name, []):
            if e.covers(since):
                e.deprecated = True
                return e
        raise RegistryError(self.missing_message(name, since).replace("has no lowering", "has no entry"))

    def entries(self, name: str) -> list[Entry]:
        """Every entry of `name`, oldest first (deprecated ones included)."""
        return list(self._entries.get(name, []))

    def names(self) -> list[str]:
        return sorted(self._entries)

    def __contains__(self, name: str) -> bool:
        return name in self._entries


def _qualname(fn) -> str:
    return f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', repr(fn))}"


# The registry every kernel module registers into.
REGISTRY = OpRegistry()
