"""Input limits: sizes no real program reaches, refused beyond them with a message naming the limit.

A malformed or hostile input must get a clean error, not exhaust the machine: a 200 MB string
attribute once drove `pirc-opt` to 23 GB (Lark's lexer copies each token several times), and
deep nesting ran Python out of stack. Each limit is a named constant with a default far above
what Paddle writes (docs/ROBUSTNESS.md gives the real programs' figures), overridable by an
environment variable so that tests can use small limits instead of allocating 200 MB.

Read a limit with `limits.MAX_STRING_ATTR.value()` at the point of use: the environment is
read each time (cheap, and a test's monkeypatch takes effect at once). `Limit.check(n, where)`
raises a LimitError naming the limit, its variable and what to do.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from .errors import PircError


class LimitError(PircError):
    """An input beyond one of pirc's limits (the message names the limit and its variable)."""


@dataclass(frozen=True)
class Limit:
    name: str       # what is limited, as a user reads it
    env: str        # the environment variable that overrides the default
    default: int
    unit: str       # "bytes", "levels", "digits", ...

    def value(self) -> int:
        raw = os.environ.get(self.env)
        if raw is None or raw == "":
            return self.default
        try:
            n = int(raw)
        except ValueError:
            raise LimitError(f"{self.env}={raw!r} is not an integer "
                             f"(it sets the {self.name}, default {self.default} {self.unit})") from None
        if n < 1:
            raise LimitError(f"{self.env}={raw!r}: the {self.name} must be at least 1")
        return n

    def message(self, found: int | None = None) -> str:
        """The sentence a user reads when an input goes past this limit."""
        got = f" ({found} {self.unit})" if found is not None else ""
        return (f"input exceeds the {self.name} of {self.value()} {self.unit}{got}; "
                f"no real program comes near it: if this one is real, raise it with {self.env}=N")

    def check(self, found: int) -> None:
        """Raise LimitError when `found` is over the limit."""
        if found > self.value():
            raise LimitError(self.message(found))


# One entry per limit; docs/ROBUSTNESS.md lists them with the real programs' figures.
MAX_INPUT_BYTES = Limit("input size limit", "PIRC_MAX_INPUT_BYTES", 4 << 30, "bytes")
MAX_LINE_BYTES = Limit("line length limit", "PIRC_MAX_LINE_BYTES", 64 << 20, "bytes")
MAX_STRING_ATTR = Limit("string attribute limit", "PIRC_MAX_STRING_BYTES", 16 << 20, "bytes")
MAX_NESTING = Limit("nesting depth limit", "PIRC_MAX_NESTING", 200, "levels")
MAX_INT_DIGITS = Limit("integer literal limit", "PIRC_MAX_INT_DIGITS", 400, "digits")
MAX_YAML_NODES = Limit("patch size limit (YAML nodes, aliases expanded)", "PIRC_MAX_YAML_NODES", 100_000, "nodes")

ALL = (MAX_INPUT_BYTES, MAX_LINE_BYTES, MAX_STRING_ATTR, MAX_NESTING, MAX_INT_DIGITS, MAX_YAML_NODES)
