"""A kernel that fails while a program runs (or while the lowering folds a constant): which
op it was, where that op stands in the input, and what it was given.

Every graph node the lowering makes for an op carries where it came from
(`node.meta["pir_op"]`, an `OpOrigin`: the op's name and its line:col in text input or its
JSON path, and the op itself; graph_builder), and the specialiser and the folder keep it on
the nodes they make, so a failure names its op however the graph was rewritten.  Running a module is plain
`gm.forward(**feeds)` (fast); only when that raises is the same call repeated under an
`fx.Interpreter` that stops at the failing node, to name its op and its operands' actual
shapes and dtypes.  `locate` then says where the op is: `FILE:LINE:COL` for text input
(the parser's `program.locations`), its JSON path (`program.regions[0].blocks[0].ops[3]`)
for JSON input.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch
import torch.fx as fx

from ..errors import LoweringError, PircError, excerpt
from ..ir.locations import json_path_of

OP_META = "pir_op"


@dataclass(frozen=True)
class OpOrigin:
    """What `node.meta["pir_op"]` holds: the PIR op a graph node was emitted for.

    `line`/`column`: where the op stands in text input (the parser's program.locations);
    `path`: its JSON path (`program.regions[0].blocks[0].ops[3]`) otherwise.  When the
    lowering ran a pipeline first (device npu), an op the passes kept has its place in the
    program given; an op a pass made has its path in the optimised program.
    """

    name: str
    line: int = 0
    column: int = 0
    path: str = ""
    op: object = field(default=None, compare=False, repr=False)

    def __str__(self) -> str:
        return f"{self.name} at {f'{self.line}:{self.column}' if self.line else self.path}"


class KernelFailure(LoweringError):
    """An op's kernel raised: the op, what it got, what it said."""

    def __init__(self, op, operands: str, cause: BaseException, origin: OpOrigin | None = None):
        name = getattr(op, "name", "an op")
        said = cause.bare_message if isinstance(cause, PircError) else f"{type(cause).__name__}: {cause}"
        super().__init__(f"{name} failed: {said.strip()}" + (f"; operands: {operands}" if operands else ""))
        self.op = op
        self.origin = origin  # where the op stands in the input (lowering a copy: the original's)


def describe_value(value) -> str:
    """`float32[2, 3]` for a tensor, `[float32[2], int64[]]` for a list, the repr otherwise."""
    if isinstance(value, torch.Tensor):
        return f"{str(value.dtype).removeprefix('torch.')}{list(value.shape)}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(describe_value(v) for v in value) + "]"
    if value is None:
        return "null"
    text = repr(value)
    return excerpt(text, 40)


def describe_operands(args) -> str:
    return ", ".join(describe_value(a) for a in args)


class _FailureFinder(fx.Interpreter):
    """Runs a graph node by node; the first node that raises becomes a KernelFailure."""

    def __init__(self, gm: fx.GraphModule):
        super().__init__(gm)
        self.extra_traceback = False  # fx would append its own notes to the message

    def run_node(self, n: fx.Node):
        try:
            return super().run_node(n)
        except KernelFailure:
            raise
        except Exception as e:  # noqa: BLE001 - any kernel failure is reported with its op
            origin = n.meta.get(OP_META)
            if origin is None:
                raise
            args, _ = self.fetch_args_kwargs_from_env(n)
            raise KernelFailure(origin.op, describe_operands(args), e, origin) from e


def find_failure(gm: fx.GraphModule, feeds: dict, error: BaseException) -> BaseException:
    """Rerun `gm` on `feeds` node by node; the KernelFailure naming the failing op, or `error`
    itself when the failure cannot be pinned to an op (or does not happen again)."""
    placeholders = [n.target for n in gm.graph.nodes if n.op == "placeholder"]
    try:
        with torch.no_grad():
            _FailureFinder(gm).run(*[feeds[p] for p in placeholders])
    except KernelFailure as failure:
        return failure
    except Exception:  # noqa: BLE001 - no op to name: report the first failure as it was
        return error
    return error


def locate(error: PircError, op, program, filename: str, text: str | None = None) -> PircError:
    """Give `error` the op's place in the input: line:col (text) or JSON path (JSON)."""
    error.filename = filename
    where = program.locations.get(op)
    origin = getattr(error, "origin", None)
    if where is None and origin is not None:  # the op of a copy the lowering optimised
        where = (origin.line, origin.column) if origin.line else origin.path or None
    if isinstance(where, tuple):
        error.line, error.column = where
        if text is not None:
            lines = text.splitlines()
            if 0 < error.line <= len(lines):
                error.source_line = lines[error.line - 1]
    elif isinstance(where, str):
        error.path = where
    else:
        error.path = json_path_of(op)
    return error
