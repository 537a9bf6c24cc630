"""When a value may stand for another: the aliasing rules identity rewrites keep.

Removing an identity op (`y = assign(x)`, a same-type cast, an inference dropout) makes every
user of `y` read `x`.  In PIR that is only the same program when nobody writes either value:

* an in-place op (`relu_(y)`, `assign_value_(y)`) that writes `y` would, after the rewrite,
  write `x`'s storage, which other users of `x` see;
* an in-place op that writes `x` after the identity op would, after the rewrite, change
  what `y`'s users read (they read a copy taken before the write);
* a `cf.yield` passes the value out of a region, where the enclosing op may write it;

so both values must only ever be read.  An op only reads its operands unless it is in-place
(a spec `inplace` entry, or a name ending in `_`: Paddle's spelling), holds regions, has no
spec (unknown effects), or keeps or shares its operand's storage (`_KEEPS_OPERAND`: yields,
parameter stores, share / memcpy ops, dependencies).  A random op or a print reads its
operand like a pure op does: its effect is elsewhere.  A `builtin.combine` only reads when
its vector is only read.

A fetch is Paddle's output: it copies its operand into the fetch list under the fetch's
name.  Forwarding `y = id(x)` into `fetch(y)` is kept to the case Paddle itself produces
every day: `x` computed by an ordinary pure op in the same block and fetched nowhere else.
A fetch that would read a feed (`pd_op.data`), a parameter, a block argument, or a value
that is fetched already under another name would make one variable two outputs (or an
input an output); Paddle's executor resolves fetches by variable, so that is left alone.
"""

from __future__ import annotations

from ...ir.effects import is_pure

FETCH = "pd_op.fetch"
COMBINE = "builtin.combine"

# Ops that are not in-place by name or spec but keep their operand's storage alive under
# another name, or hand it to another region or program: a value they use is not only read.
_KEEPS_OPERAND = frozenset({
    "cf.yield", "cf.tuple_push", "cf.stack_create", "builtin.set_parameter",
    "builtin.shadow_output", "pd_op.shadow_feed", "pd_op.shadow_feed_tensors",
    "pd_op.share_data", "pd_op.share_data_sr", "pd_op.share_var", "pd_op.depend",
    "pd_op.memcpy", "pd_op.memcpy_d2h", "pd_op.memcpy_d2h_multi_io", "pd_op.memcpy_h2d",
    "pd_op.write_to_array", "pd_op.save_combine",
})


def only_reads(op) -> bool:
    """Whether `op` only reads its operands (module docstring)."""
    if is_pure(op):
        return op.name != COMBINE or only_read(op.results[0])
    spec = getattr(type(op), "spec", None)
    return not (spec is None or spec.inplace or op.name.endswith("_") or op.regions
                or op.name in _KEEPS_OPERAND)


def only_read(value, ignore=None) -> bool:
    """Whether every user of `value` (other than the op `ignore`) only reads it."""
    for use in value.uses:
        user = use.operation
        if user is not ignore and user.name != FETCH and not only_reads(user):
            return False
    return True


def fetched(value) -> bool:
    return any(use.operation.name == FETCH for use in value.uses)


def may_forward(op, result, value) -> bool:
    """Whether `result` (of `op`) may be replaced by `value` everywhere: same type, neither
    written in place, and a fetch of `result` keeps its meaning (module docstring)."""
    if result.type != value.type or not only_read(result) or not only_read(value, ignore=op):
        return False
    if fetched(result):
        owner = getattr(value, "op", None)
        if owner is None or owner.parent is not op.parent or not is_pure(owner) or fetched(value):
            return False
    return True
