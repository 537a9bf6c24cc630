"""The Lark LALR parser for every PIR text form (grammar in pir.lark)."""

from __future__ import annotations

from functools import lru_cache
from importlib.resources import files

from lark import Lark

# Sub-grammars parsed on demand from the text of one composite token.
STARTS = ["start", "attr_dict", "signature", "result_types", "block_args"]


@lru_cache(maxsize=1)
def grammar_text() -> str:
    return files("pirc.text").joinpath("pir.lark").read_text(encoding="utf-8")


@lru_cache(maxsize=None)
def lark_parser(transformer_cls) -> Lark:
    """One LALR parser per transformer class, built once per process."""
    return Lark(
        grammar_text(),
        parser="lalr",
        lexer="contextual",
        start=STARTS,
        transformer=transformer_cls(),
        propagate_positions=False,
        maybe_placeholders=False,
        cache=False,
    )
