"""The one rule for op names, kept by every front end: `dialect.name`.

Paddle names every op `dialect.name` (`pd_op.matmul`, `builtin.parameter`, `cf.yield`,
`pd_op.add_`): a dialect identifier, a dot, and a name of letters, digits and underscores,
possibly itself dotted.  The rule is enforced where op classes are created
(pirc.ir.registry), so the text parser, the JSON reader and every rewrite that renames an op
refuse the same names; each front end reports the error at its own location (FILE:LINE:COL,
JSON path).  Anything else (spaces, brackets, quotes, NUL, an empty name, a name without a
dialect) would print as text that no reader can split back into an op line.
"""

from __future__ import annotations

import re

from ..errors import PircError

OP_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)+")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
RULE = ("an op name is `dialect.name`: a dialect identifier, a dot, then letters, digits and "
        "underscores (`pd_op.matmul`, `builtin.parameter`)")


class OpNameError(PircError):
    """An op name outside the `dialect.name` rule (raised without a location)."""


def check_op_name(name: str) -> None:
    if type(name) is not str or OP_NAME.fullmatch(name) is None:
        shown = ascii(name) if type(name) is str else repr(name)
        if type(name) is str and _IDENT.fullmatch(name):
            raise OpNameError(f"op name {shown} has no dialect; {RULE}")
        raise OpNameError(f"invalid op name {shown}; {RULE}")
