"""When a value may stand for another: the aliasing rules identity rewrites keep.

Removing an identity op (`y = assign(x)`, a same-type cast, an inference dropout) makes every
user of `y` read `x`.  In PIR that is only the same program when nobody writes either value:

* an in-place op (`relu_(y)`, `assign_value_(y)`) that writes `y` would, after the rewrite,
  write `x`'s storage, which other users of `x` see;
* an in-place op that writes `x` after the identity op would, after the rewrite, change
  what `y`'s users read (they read a copy taken before the write);
* a `cf.yield` passes the value out of a region, where the enclosing op may write it;

so both values must only ever be read: every user is a pure op (dialects/effects.yaml), a
`builtin.combine` whose vector is itself only read, or a `pd_op.fetch`.

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


def only_read(value, ignore=None) -> bool:
    """Whether every user of `value` (other than the op `ignore`) only reads it."""
    for use in value.uses:
        user = use.operation
        if user is ignore or user.name == FETCH:
            continue
        if not is_pure(user):
            return False
        if user.name == COMBINE and not only_read(user.results[0]):
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
