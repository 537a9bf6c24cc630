"""Where an op is in the input the user gave: `LINE:COL` for text, a JSON path for JSON.

Errors, near-miss reports and lowered graphs name ops this way, so a user can find the op
in the file they read (`program.locations` is what the text parser recorded).
"""

from __future__ import annotations


def json_path_of(op, place: int | None = None) -> str:
    """The op's path in Paddle JSON: `program.regions[0].blocks[0].ops[12]`, nested ops
    through their op's `regions[i].blocks[j]`.  `place`: the op's index in its block, where
    the caller has it (`op_locations`)."""
    parts = []
    while True:
        block = op.parent_block()
        if block is None:
            break
        region = block.parent
        owner = region.parent if region is not None else None
        parts.append(f"ops[{_place(op) if place is None else place}]")
        place = None
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
    per op: canonicalize locates its first near misses, thousands of ops into the block)."""
    place = 0
    op = op._prev_op
    while op is not None:
        place += 1
        op = op._prev_op
    return place


def _index_of(item, items) -> int:
    return next(i for i, x in enumerate(items) if x is item)


def op_locations(program, ops) -> list[str]:
    """`op_location` of each of `ops`; the places of those in the top-level block that are
    told by a JSON path are counted in one walk of the block, up to the last of them, not
    one walk each (canonicalize lists its first near misses, thousands of ops in)."""
    block = program.block
    located = program.locations
    wanted = {id(op) for op in ops
              if op.parent is block and not isinstance(located.get(op), (tuple, str))}
    places: dict = {}
    op, i = block._first_op, 0   # xDSL's links (pinned exactly), as _place counts
    while op is not None and len(places) < len(wanted):
        if id(op) in wanted:
            places[id(op)] = i
        op, i = op._next_op, i + 1
    return [json_path_of(op, places[id(op)]) if id(op) in places else op_location(program, op)
            for op in ops]


def op_location(program, op) -> str:
    """`LINE:COL` where the text parser saw `op`, else its JSON path."""
    where = program.locations.get(op) if program is not None else None
    if isinstance(where, tuple):
        return f"{where[0]}:{where[1]}"
    if isinstance(where, str):
        return where
    return json_path_of(op)
