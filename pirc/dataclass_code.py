"""The compiled code of dataclasses' generated methods, kept in the user cache.

`@dataclass` writes each method it adds (`__init__`, `__repr__`, `__eq__`, a frozen class's
`__setattr__`, ...) as Python source and compiles it with `exec` when the class is defined,
on every run: the bytecode cache that spares a module's own compile does not cover them.
About 0.07 ms each: pirc's import (with the xDSL modules it imports) defines some 400 of
them, over a quarter of a small `pirc-opt` run, and a pipeline's modules (the pass
machinery, the passes, xDSL's pipeline parser) another 220, a third of what `-p default`
added to a small program (docs/PERFORMANCE.md, "Issue 24: the fixed cost of a pipeline").

While `compiled_dataclass_methods()` is active, the `exec` that the dataclasses module calls
looks the source up in a table of code objects (`dataclass-code.marshal` in pirc's user
cache, pirc.user_cache) and compiles only what it has not seen, as `exec` would (the file
name `<string>`, no inherited `__future__` flags); the table is stored again when new
sources were added.  The code run is the code `exec` would have compiled from the same
text, so the classes are the same.  A cache made by another Python (or another `-O` level)
is not used.  It is active while pirc's package imports its modules (pirc/__init__.py) and
for a command's whole job (pirc.cli.process); outside those blocks dataclasses are left
alone.
"""

from __future__ import annotations

import builtins
import dataclasses
import sys
from contextlib import contextmanager

from . import user_cache

CACHE_NAME = "dataclass-code.marshal"
# More sources than pirc and its dependencies define (about 700 methods) means the table
# gathered other programs' classes, or old versions': it starts over.
LIMIT = 4000


def _key() -> tuple:
    # marshal's code objects belong to one interpreter version; -O changes what compiles
    return (1, sys.hexversion, sys.implementation.cache_tag, sys.flags.optimize)


class _CodeTable:
    """Source text -> code, for the `exec` calls of the dataclasses module."""

    def __init__(self, codes: dict):
        self.codes = codes
        self.added = False

    def exec(self, source, globals=None, locals=None):  # noqa: A002 - exec's own parameter names
        if type(source) is not str:
            return builtins.exec(source, *_namespaces(globals, locals))
        code = self.codes.get(source)
        if code is None:
            code = compile(source, "<string>", "exec", dont_inherit=True)
            if len(self.codes) >= LIMIT:
                self.codes.clear()
            self.codes[source] = code
            self.added = True
        return builtins.exec(code, *_namespaces(globals, locals))


def _namespaces(globals, locals):
    """exec's defaults, taken from the caller of `_CodeTable.exec` (the dataclasses module's
    frame) rather than from that method's own frame."""
    if globals is None:
        frame = sys._getframe(2)
        return frame.f_globals, (frame.f_locals if locals is None else locals)
    return globals, (globals if locals is None else locals)


# cache file -> its table, read once per process (the commands' job and pirc's own import
# both use it)
_TABLES: dict = {}


@contextmanager
def compiled_dataclass_methods():
    """Dataclasses defined inside the block take their methods' code from the cache."""
    if "exec" in vars(dataclasses):  # someone else's hook (or ours, nested): leave it be
        yield
        return
    path = user_cache.cache_dir() / CACHE_NAME
    key = _key()
    table = _TABLES.get(path)
    if table is None:
        stored = user_cache.load(path, key)
        table = _TABLES[path] = _CodeTable(stored if isinstance(stored, dict) else {})
    dataclasses.exec = table.exec
    try:
        yield
    finally:
        del dataclasses.exec
        if table.added:
            user_cache.store(path, key, table.codes)
            table.added = False
