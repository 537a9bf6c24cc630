"""When a value may stand for another, or be read as a constant: the alias model's queries
that the rewriting passes share.

Every question about in-place writes goes to the one alias model (pirc.ir.aliasing, reached
as `pc.aliases`): which values name one buffer, and which ops change it.  Removing an
identity op (`y = assign(x)`, a same-type cast, an inference dropout) makes every user of `y`
read `x`: after it, every name of `y`'s buffer is a name of `x`'s.  That is the same program
only when

* no op changes `y`'s buffer (an in-place op on `y`, on a view of it, on the result of a
  region that yields it: after the rewrite it would change `x`, which other users read);
* no op changes `x`'s buffer after the identity op (`y`'s users read a copy taken before);

which `may_forward` asks.  `unwritten` is the question folding asks of a constant or a
parameter: nothing changes its buffer (an `assign_value_` that defines the value by writing
is the constant's own write).

A value the pass made after the analysis was built (a constant const-fold wrote) is unknown
to it; for such a value the answer comes from its uses: it is unwritten when every user only
reads it (no in-place op, no op without a spec, no region).

Besides writes, some ops hand their operand's storage to something the model does not follow
(`_EXPORTS`: stacks for the backward pass, memcpy and shadow ops, dependencies, arrays,
saving): a value they use is never forwarded.

A fetch is Paddle's output: it copies its operand into the fetch list under the fetch's
name.  Forwarding `y = id(x)` into `fetch(y)` is kept to the case Paddle itself produces
every day: `x` computed by an ordinary pure op in the same block and fetched nowhere else.
A fetch that would read a feed (`pd_op.data`), a parameter, a block argument, or a value
that is fetched already under another name would make one variable two outputs (or an
input an output); Paddle's executor resolves fetches by variable, so that is left alone.
"""

from __future__ import annotations

from ...ir.aliasing import aliasing_of
from ...ir.effects import is_pure

FETCH = "pd_op.fetch"
COMBINE = "builtin.combine"

# Ops that are not in-place but hand their operand's storage to something the alias model
# does not follow (another program, the backward pass's stacks, a device copy, an array): a
# value they use is never forwarded.
_EXPORTS = frozenset({
    "cf.tuple_push", "cf.stack_create", "builtin.shadow_output",
    "pd_op.shadow_feed", "pd_op.shadow_feed_tensors", "pd_op.share_var", "pd_op.depend",
    "pd_op.memcpy", "pd_op.memcpy_d2h", "pd_op.memcpy_d2h_multi_io", "pd_op.memcpy_h2d",
    "pd_op.write_to_array", "pd_op.save_combine",
})


def only_reads(op) -> bool:
    """Whether `op` only reads its operands, judged from the op alone (for values the alias
    model does not know): not in-place, a spec, no regions, nothing exported."""
    if is_pure(op):
        return op.name != COMBINE or only_read(op.results[0])
    spec = getattr(type(op), "spec", None)
    return not (spec is None or spec.inplace or op.name.endswith("_") or op.regions
                or op.name in _EXPORTS or op.name == "cf.yield" or op.name == "builtin.set_parameter")


# The queries below walk a value's uses through xDSL's links (`first_use`, `_next_use`,
# `_operation`; xDSL is pinned exactly): `value.uses` makes a view and a generator per call,
# and canonicalize asks several of these per candidate.


def only_read(value, ignore=None) -> bool:
    """Whether every user of `value` (other than the op `ignore`) only reads it (from the
    users alone: `unwritten` asks the alias model first)."""
    use = value.first_use
    while use is not None:
        user = use._operation
        if user is not ignore and user.name != FETCH and not only_reads(user):
            return False
        use = use._next_use
    return True


def exported(value, ignore=None) -> bool:
    """Whether an op other than `ignore` hands `value`'s storage on (`_EXPORTS`)."""
    use = value.first_use
    while use is not None:
        user = use._operation
        if user is not ignore and user.name in _EXPORTS:
            return True
        use = use._next_use
    return False


# The questions below need the alias model only where a value's buffer may have another
# name or a writer.  Most values a rewriting pass asks about (a dropout's input and result,
# a scale's factor) are made by an op the model's walk records nothing for and read by such
# ops alone: `alone` proves that from the value's definer and users, and then the uses
# answer every question as the model would, known value or not (a pass may then pass no
# model, and a pass whose every question is of that kind never builds one: the build is a
# walk of the whole program).


def alone(value, version: int) -> bool:
    """Whether `value` names a buffer of its own that no op writes, as the alias model would
    find it, and every user only reads it (`only_reads`): its definer and each user have a
    spec and no regions, export nothing, and are neither in-place, a view nor structural at
    PIR `version` (pirc.ir.aliasing: its walk joins and writes nothing for such an op).
    Then `unwritten`, `written_after`, `written_between` and `may_reread` give the same
    answer with no model as with it."""
    owner = getattr(value, "op", None)
    if owner is None:
        return False
    plain = _PLAIN.get(version)
    if plain is None:
        plain = _PLAIN[version] = {}
    use = value.first_use
    op = owner
    while True:   # the definer, then each user
        if op.regions:
            return False
        known = plain.get(type(op))
        if known is None:
            known = plain[type(op)] = _plain_class(op, version)
        if not known:
            return False
        if use is None:
            return True
        op, use = use._operation, use._next_use


# version -> op class -> `_plain_class`: an op class has one name and one spec (xDSL's
# `name` is a class variable), and what the model does with an op depends on those alone.
_PLAIN: dict = {}


def _plain_class(op, version: int) -> bool:
    """Whether the model's walk records nothing for ops of `op`'s class (no join, no write:
    a known op, neither in-place nor a view nor one of the structural `builtin.` / `cf.`
    ops), and they only read their operands (`only_reads`, regions aside)."""
    name = op.name
    if getattr(type(op), "spec", None) is None or name.startswith(("builtin.", "cf.")):
        return False
    if name.endswith("_") or name in _EXPORTS:
        return False
    oa = aliasing_of(op, version)
    return oa.known and not oa.inplace and not oa.views and not oa.writes and only_reads(op)


def unwritten(aliases, value, by=None) -> bool:
    """Whether no op changes `value`'s buffer but `by` (the op that defines it by writing,
    an `assign_value_`, or None) -- the alias model's answer, or the uses' for a value it
    does not know."""
    if aliases is not None and aliases.knows(value):
        return aliases.writers(value) == ((by,) if by is not None else ())
    return only_read(value, ignore=by)


def written_after(aliases, value, op) -> bool:
    """Whether `value`'s buffer is changed after `op` (the uses' answer for a value the model
    does not know: any user that is more than a reader)."""
    if aliases is not None and aliases.knows(value) and aliases.knows_op(op):
        return aliases.written_after(value, op)
    return not only_read(value, ignore=op)


def written_between(aliases, value, first, last) -> bool:
    """Whether `value`'s buffer is changed between ops `first` and `last` (the whole program's
    writers for a value or an op the model does not know: any writer counts)."""
    if aliases is not None and aliases.knows(value) and aliases.knows_op(first) and aliases.knows_op(last):
        return aliases.written_between(value, first, last)
    return not unwritten(aliases, value)


def may_reread(aliases, inner, op, x) -> bool:
    """Whether `op`, which reads `inner`'s result, may read `inner`'s operand `x` instead
    (composing two casts or transposes): `inner`'s result is never changed, and `x`'s buffer
    is not changed between the two ops."""
    if not unwritten(aliases, inner.results[0]) or exported(x):
        return False
    if aliases is not None and aliases.knows(x) and aliases.knows_op(inner) and aliases.knows_op(op):
        return not aliases.written_between(x, inner, op)
    return only_read(x)


def fetched(value) -> bool:
    use = value.first_use
    while use is not None:
        if use._operation.name == FETCH:
            return True
        use = use._next_use
    return False


def may_forward(op, result, value, aliases=None) -> bool:
    """Whether `result` (of `op`) may be replaced by `value` everywhere: same type, no write
    tells them apart, nothing exported, and a fetch of `result` keeps its meaning (module
    docstring)."""
    rtype, vtype = result.type, value.type
    if rtype is not vtype and rtype != vtype:
        return False
    if not unwritten(aliases, result) or written_after(aliases, value, op):
        return False
    # `exported(result)` and `fetched(result)` in one walk of the result's uses
    result_fetched = False
    use = result.first_use
    while use is not None:
        name = use._operation.name
        if name in _EXPORTS:
            return False
        if name == FETCH:
            result_fetched = True
        use = use._next_use
    if exported(value, ignore=op):
        return False
    if result_fetched:
        owner = getattr(value, "op", None)
        if owner is None or owner.parent is not op.parent or not is_pure(owner) or fetched(value):
            return False
    return True


def may_forward_alone(op, result, value) -> bool:
    """`may_forward(op, result, value)` for a `result` and a `value` that are both `alone`:
    neither has a writer or an exporting user (`alone` read every user's class), so what is
    left to ask is their types, and whether a fetch of `result` keeps its meaning.  For a
    producer the forwarded value passes through whose result is `alone` too, `may_reread`
    holds (its result unwritten, `value` only read): the caller asks nothing more."""
    rtype, vtype = result.type, value.type
    if rtype is not vtype and rtype != vtype:
        return False
    if fetched(result):
        owner = getattr(value, "op", None)
        if owner is None or owner.parent is not op.parent or not is_pure(owner) or fetched(value):
            return False
    return True
