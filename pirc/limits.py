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
# Side files, read whole (read_bounded): a FIFO that never ends or a sparse file of a terabyte
# is refused at the limit instead of filling memory.  A .pdiparams holds a model's weights
# (LLaMA-7B in float16 is 13 GB); a rollout file is a few lines; an inputs .npz holds a batch.
MAX_PARAMS_BYTES = Limit("parameters file limit", "PIRC_MAX_PARAMS_BYTES", 256 << 30, "bytes")
MAX_ROLLOUT_BYTES = Limit("rollout file limit", "PIRC_MAX_ROLLOUT_BYTES", 16 << 20, "bytes")
MAX_INPUTS_BYTES = Limit("inputs file limit", "PIRC_MAX_INPUTS_BYTES", 64 << 30, "bytes")

ALL = (MAX_INPUT_BYTES, MAX_LINE_BYTES, MAX_STRING_ATTR, MAX_NESTING, MAX_INT_DIGITS, MAX_YAML_NODES,
       MAX_PARAMS_BYTES, MAX_ROLLOUT_BYTES, MAX_INPUTS_BYTES)

_CHUNK = 1 << 20


def read_bounded(path: str, limit: Limit, what: str = "") -> bytes:
    """The bytes of the file at `path` (`what` names it in messages: "parameters file"),
    refused with a LimitError naming the file and `limit` when it holds more.

    A regular file's size is checked before reading (a sparse file of a terabyte costs
    nothing); anything else (a FIFO, a character device, /dev/stdin) is read in chunks and
    refused as soon as it passes the limit, so an endless writer costs at most the limit.
    OSError (missing file, a folder, no permission) is the caller's to word."""
    with open(path, "rb") as f:
        return read_open_bounded(f, path, limit, what)


def read_open_bounded(f, path: str, limit: Limit, what: str = "") -> bytes:
    """read_bounded of a file already open (binary): a FIFO can be opened only once."""
    import stat

    what = f"{what}: " if what else ""  # none for the program: the file is its only subject
    cap = limit.value()
    info = os.fstat(f.fileno())
    if stat.S_ISDIR(info.st_mode):  # Linux opens a folder read-only; reading it fails
        raise IsADirectoryError(21, "Is a directory", path)
    if stat.S_ISREG(info.st_mode) and info.st_size > cap:
        raise LimitError(f"{what}{limit.message(info.st_size)}").in_file(path)
    chunks, size = [], 0
    while True:
        chunk = f.read(min(_CHUNK, cap + 1 - size))
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        size += len(chunk)
        if size > cap:
            raise LimitError(f"{what}input exceeds the {limit.name} of {cap} {limit.unit} "
                             f"(it goes on past that); no real input comes near it: if this "
                             f"one is real, raise it with {limit.env}=N").in_file(path)
