"""What the Paddle-style and the canonical printers share: value names and
the walk over blocks.

Values are named in print order, as Paddle's IrPrinter names them: op
results `%0, %1, ...` with one counter for the whole program (nested
regions included; an op's results are named before its regions' ops), and
block arguments `%arg_0, %arg_1, ...` with a second counter.
"""

from __future__ import annotations

import json
import re

from xdsl.ir import Block

from ..errors import PircError
from ..ir.ops import BLOCK_ARG_ATTRS, NullValueOp
from .types_text import type_text

NULL_VALUE_TEXT = "<<NULL VALUE>>"


# pir.lark's KEY: an attribute name printed bare.  Any other name (Paddle allows any string,
# "" included) prints as a JSON string literal, which every text form reads back.
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")


_NAME_TEXTS: dict[str, str] = {}  # a program has a few hundred attribute names, each printed often


def attr_name_text(name: str) -> str:
    text = _NAME_TEXTS.get(name)
    if text is None:
        text = name if _KEY.fullmatch(name) else json.dumps(name, ensure_ascii=False)
        if len(_NAME_TEXTS) < 65536:  # bounded: a fuzzed program may have millions
            _NAME_TEXTS[name] = text
    return text


class PrintError(PircError):
    """A program that a printer cannot write so that it reads back (the message says why)."""


def describe_op(program, op, index: int | None = None) -> str:
    """`"pd_op.while" (line 3)`: an op as an error message names it."""
    where = program.locations.get(op) if program is not None else None
    return f'"{op.name}"' + (f" (line {where[0]})" if where else "")


def _defining_block(value):
    owner = value.owner
    return owner if isinstance(owner, Block) else owner.parent_block()


def _encloses(block, inner) -> bool:
    """Whether `inner` is `block` or nested in one of its ops' regions."""
    while inner is not None:
        if inner is block:
            return True
        parent_op = inner.parent_op()
        inner = parent_op.parent_block() if parent_op is not None else None
    return False


class PrinterBase:
    INDENT = "    "

    @staticmethod
    def spell_attr(attr) -> str:
        """The text of one attribute value in this printer's form."""
        raise NotImplementedError

    @classmethod
    def print(cls, program) -> str:
        printer = cls()
        printer.program = program
        printer.print_program(program)
        return "".join(printer.out)

    def __init__(self):
        self.attr_memo: dict[int, str] = {}
        self.names: dict = {}
        self.next_result = 0
        self.next_arg = 0
        self.out: list[str] = []
        self.type_memo: dict[int, str] = {}
        self.program = None

    def attr_text(self, attr) -> str:
        """spell_attr() memoised by identity (the program keeps every attribute
        alive while it is printed, and xDSL attributes hash recursively)."""
        text = self.attr_memo.get(id(attr))
        if text is None:
            text = self.spell_attr(attr)
            self.attr_memo[id(attr)] = text
        return text

    def type_text(self, t, lossless: bool) -> str:
        """type_text() memoised by identity (types hash recursively)."""
        text = self.type_memo.get(id(t))
        if text is None:
            text = type_text(t, lossless)
            self.type_memo[id(t)] = text
        return text

    # -- names
    def name_results(self, op) -> str:
        parts = []
        for r in op.results:
            n = f"%{self.next_result}"
            self.next_result += 1
            self.names[r] = n
            parts.append(n)
        return "(" + ", ".join(parts) + ")"

    def name_block_args(self, block) -> list[str]:
        names = []
        for a in block.args:
            n = f"%arg_{self.next_arg}"
            self.next_arg += 1
            self.names[a] = n
            names.append(n)
        return names

    def value_name(self, value) -> str:
        name = self.names.get(value)
        if name is None:
            if isinstance(value.owner, NullValueOp):
                return NULL_VALUE_TEXT
            user = next((u.operation for u in value.uses), None)
            op_text = describe_op(self.program, user) if user is not None else "an op"
            raise PrintError(f"cannot print {op_text}: it uses a value that is not defined "
                             "before it in print order")
        return name

    def operand_list(self, op) -> str:
        here = op.parent
        for v in op.operands:
            owner = v.owner  # the common case first: defined in the same block, one lookup
            if owner is here or getattr(owner, "parent", None) is here:
                continue
            where = _defining_block(v)
            if where is not None and not _encloses(where, here):
                raise PrintError(f"cannot print {describe_op(self.program, op)}: it uses a value "
                                 "defined in a region that does not enclose it (the text could "
                                 "not name it there)")
        return "(" + ", ".join(self.value_name(v) for v in op.operands) + ")"

    @staticmethod
    def block_arg_attrs(op, region_index: int, block_index: int) -> list:
        """Per-argument attribute dicts (dict name -> attribute) of one block."""
        prop = op.properties.get(BLOCK_ARG_ATTRS)
        if prop is None:
            return []
        try:
            per_block = prop.data[region_index].data[block_index].data
        except IndexError:
            return []
        return [dict(d.data) for d in per_block]
