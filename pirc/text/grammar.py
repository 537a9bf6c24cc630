"""The Lark LALR parser for every PIR text form (grammar in pir.lark)."""

from __future__ import annotations

import os
import sys
import zlib
from functools import lru_cache
from pathlib import Path

import lark
from lark import Lark

from .. import user_cache

# Sub-grammars parsed on demand from the text of one composite token.
STARTS = ["start", "attr_dict", "signature", "result_types", "block_args"]


@lru_cache(maxsize=1)
def grammar_text() -> str:
    # Beside this module (package data); importlib.resources would import zipfile (start-up).
    return Path(__file__).with_name("pir.lark").read_text(encoding="utf-8")


_OPTIONS = dict(parser="lalr", lexer="contextual", start=STARTS, propagate_positions=False,
                maybe_placeholders=False)


@lru_cache(maxsize=None)
def lark_parser(transformer_cls) -> Lark:
    """One LALR parser per transformer class, built once per process.

    Building the LALR tables takes ~0.2 s, most of a small text input's `pirc-opt` run, so
    the tables are cached (Lark's own `cache=`, which checks the grammar's hash) under pirc's
    user cache folder, in a file named by the grammar, the options and the Lark and Python
    versions.  A new file is written under a name of this process's own and renamed into
    place, so that parallel runs (lit) never read a half-written one.
    """
    grammar = grammar_text()
    key = f"{grammar}{sorted(_OPTIONS.items())}{lark.__version__}{sys.version_info[:2]}".encode()
    cache = user_cache.cache_dir() / f"lark-{zlib.crc32(key):08x}{zlib.adler32(key):08x}.pickle"
    if cache.is_file():
        return Lark(grammar, transformer=transformer_cls(), cache=str(cache), **_OPTIONS)
    try:
        cache.parent.mkdir(parents=True, exist_ok=True)
    except OSError:  # no writable cache: build every time
        return Lark(grammar, transformer=transformer_cls(), **_OPTIONS)
    own = cache.with_name(f".{cache.name}.{os.getpid()}")
    parser = Lark(grammar, transformer=transformer_cls(), cache=str(own), **_OPTIONS)
    try:
        os.replace(own, cache)
    except OSError:  # Lark could not write it (it says nothing): next run builds again
        pass
    return parser
