"""The JSON path of each op of a program (`program.regions[0].blocks[0].ops[12]`).

An op's position in the JSON the reader read is its position in the IR (the reader makes
one op per JSON op, in order), so the path is found by walking the program: used for
messages about a JSON input (verifier problems, kept unknown keys), only when there is one.
"""

from __future__ import annotations

TOP_BLOCK_PATH = "program.regions[0].blocks[0]"


def op_paths(program):
    """(op, its JSON path) for every op, nested ops included."""
    stack = [(program.block, TOP_BLOCK_PATH)]
    while stack:
        block, path = stack.pop()
        nested = []
        for i, op in enumerate(block.ops):
            here = f"{path}.ops[{i}]"
            yield op, here
            for r, region in enumerate(op.regions):
                for b, inner in enumerate(region.blocks):
                    nested.append((inner, f"{here}.regions[{r}].blocks[{b}]"))
        stack.extend(reversed(nested))


def located_problems(error, program, filename: str):
    """A VerifyError about a program read from JSON, each problem at its op's JSON path
    (`FILE: program.regions[0].blocks[0].ops[12]: error: pd_op.x: ...`), as the reader's
    own errors are."""
    from ..errors import ErrorList, JsonError
    from ..ir.verifier import MAX_REPORTED

    if not error.problems:
        return error
    paths = dict(op_paths(program))
    located = [JsonError(f"{p.op.name}: {p.message}", path=paths.get(p.op, ""), filename=filename)
               for p in error.problems[:MAX_REPORTED]]
    return ErrorList(located)
