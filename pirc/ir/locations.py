"""Where an op is in the input the user gave: `LINE:COL` for text, a JSON path for JSON.

Errors, near-miss reports and lowered graphs name ops this way, so a user can find the op
in the file they read (`program.locations` is what the text parser recorded).
"""

from __future__ import annotations


def json_path_of(op, places: dict | None = None) -> str:
    """The op's path in Paddle JSON: `program.regions[0].blocks[0].ops[12]`, nested ops
    through their op's `regions[i].blocks[j]`.  `places`: id(op) -> its index in its block,
    for the ops on the path (`op_places`), else each block is scanned for it."""
    parts = []
    while True:
        block = op.parent_block()
        if block is None:
            break
        region = block.parent
        owner = region.parent if region is not None else None
        parts.append(f"ops[{places[id(op)] if places is not None else _place(op)}]")
        if region is None or owner is None:
            break
        parts.append(f"blocks[{_index_of(block, region.blocks)}]")
        parts.append(f"regions[{_index_of(region, owner.regions)}]")
        if owner.parent_block() is None:  # the module: JSON's `program`
            parts.append("program")
            break
        op = owner
    return ".".join(reversed(parts))


def json_paths(program) -> dict:
    """op -> its JSON path, every op of the program in one walk (json_path_of per op would
    rescan each block: quadratic in a block's length)."""
    out = {}

    def block_ops(block, prefix):
        for i, op in enumerate(block.ops):
            path = f"{prefix}.ops[{i}]"
            out[op] = path
            for r, region in enumerate(op.regions):
                for b, inner in enumerate(region.blocks):
                    block_ops(inner, f"{path}.regions[{r}].blocks[{b}]")

    block_ops(program.block, "program.regions[0].blocks[0]")
    return out


def _place(op) -> int:
    """The index of `op` in its block: the ops before it, counted through xDSL's links
    (`_prev_op`; xDSL is pinned exactly), not with the block's iterator (two Python calls
    per op)."""
    place = 0
    op = op._prev_op
    while op is not None:
        place += 1
        op = op._prev_op
    return place


def _index_of(item, items) -> int:
    return next(i for i, x in enumerate(items) if x is item)


def op_location(program, op, places: dict | None = None) -> str:
    """`LINE:COL` where the text parser saw `op`, else its JSON path (`places`: as for
    json_path_of)."""
    where = program.locations.get(op) if program is not None else None
    if isinstance(where, tuple):
        return f"{where[0]}:{where[1]}"
    if isinstance(where, str):
        return where
    return json_path_of(op, places)


def op_locations(program, ops) -> list[str]:
    """op_location of each of `ops` (each in a block), with at most one walk of each block
    that holds one of them or one of their owners: json_path_of per op scans its block from
    the start, and the near misses of a pass (pirc.passes.infra.declarative) lie anywhere in
    a program of 100k ops."""
    return [op_location(program, op, places) for places in [op_places(ops)] for op in ops]


def op_places(ops) -> dict:
    """id(op) -> the op's index in its block, for each of `ops` and the ops that hold them
    (up to the module).  Each block is walked by xDSL's links (`_first_op`, `_next_op`;
    xDSL is pinned exactly) up to the last op asked for in it."""
    wanted: dict = {}   # block -> ids of its ops asked for (a block is hashed by identity)
    for op in ops:
        while True:
            block = op.parent_block()
            if block is None:
                break
            wanted.setdefault(block, set()).add(id(op))
            region = block.parent
            owner = region.parent if region is not None else None
            if owner is None or owner.parent_block() is None:
                break
            op = owner
    places = {}
    for block, ids in wanted.items():
        left = len(ids)
        op, i = block._first_op, 0
        while op is not None:
            if id(op) in ids:
                places[id(op)] = i
                left -= 1
                if not left:
                    break
            op, i = op._next_op, i + 1
    return places
