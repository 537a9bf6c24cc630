"""Edits of the IR made through xDSL's links, for the passes that make thousands of them
(canonicalize's forwards and the greedy driver's erasures, cse's merges).

They edit `first_use`, `_next_use`, `_operands` and `_operand_uses` directly (xDSL is pinned
exactly), through the primitives the IR watch wraps (`remove_use`, `add_use`,
`Block.detach_op`: pirc.passes.infra.ir_watch sees every edit).  `replace_all_uses_with` and
`Block.erase_op` make the same edits through views (`operands[i] = v` rebuilds the operand
tuple twice, `erase` makes an `ErasedSSAValue` for each unused result).  Inside a rewrite,
where every op edited is in the top-level block, the IR watch makes the edits and records
them in one call (ir_watch.move_top_level, erase_top_level), as the wrapped primitives would
(tests/unit/test_forward_fast_paths.py holds the two equal).
"""

from __future__ import annotations

from xdsl.ir import SSAValues

from .ir_watch import erase_top_level, move_top_level


def unused(op) -> bool:
    """Whether no result of `op` has a use."""
    for result in op.results:
        if result.first_use is not None:
            return False
    return True


def move_uses(result, value, users: list | None = None) -> None:
    """`result.replace_all_uses_with(value)`, the users appended to `users` (if given) in use
    order: the same edits in the same order (each use moves to the front of `value`'s uses)."""
    if value is result:
        if users is not None:
            users.extend(use.operation for use in result.uses)
        return
    if move_top_level(result, value, [] if users is None else users):   # edits and record at once
        return
    use = result.first_use
    while use is not None:
        after = use._next_use   # add_use relinks `use` into value's list
        user, index = use._operation, use._index
        if users is not None:
            users.append(user)
        result.remove_use(use)
        value.add_use(use)
        operands = list(user._operands)
        operands[index] = value
        user._operands = SSAValues(operands)
        use = after
    if value._name is None and result._name is not None:   # name_hint's field (xDSL pinned)
        value.name_hint = result._name


def erase(op) -> None:
    """`op.parent.erase_op(op, safe_erase=False)` for an op whose results are unused: detach
    it and drop its operands' uses (xDSL's erase, without the `ErasedSSAValue`s it would put
    in no use).  An op with regions, successors or a used result goes through xDSL."""
    if erase_top_level(op):   # the edits and the watch's record at once
        return
    if op.regions or op._successors or not unused(op):
        op.parent.erase_op(op, safe_erase=False)
        return
    op.parent.detach_op(op)
    for operand, use in zip(op._operands, op._operand_uses):
        operand.remove_use(use)
    op._operand_uses = ()
