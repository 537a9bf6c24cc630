"""Named invariants a pass guarantees after it runs, each a check on the program.

A check returns the problems it found (empty: the invariant holds); the manager runs the
ones a pass declares, after the verifier, and stops the pipeline on the first broken one.
Add an invariant with `@invariant("name")` on a function of the program and of what the
pass touched.

Each check has two forms.  Whole (`touched=None`: `--verify-each=full`, which the test
suite runs): the whole program.  Incremental (`touched`, a pirc.passes.infra.touched.Touched:
`--verify-each=incremental`, the default, and the declared invariants under
`--no-verify-each`): only the region of the program where the pass can have broken the
invariant, which each check's docstring names, and why nothing outside it can be broken.
The incremental form answers "did this pass break it", not "does it hold": a violation the
pass found in the program and left where it did not touch (a dead op dce never reached
because its version gate skipped it) is the whole form's to see.  Within its region it
finds what the whole form finds (tests/unit/test_incremental_invariants.py checks both on
every corpus program after every pass of the default pipeline).
"""

from __future__ import annotations

from operator import itemgetter
from typing import Callable

from ...ir.effects import is_pure

_CHECKS: dict[str, Callable] = {}


def invariant(name: str):
    def register(fn):
        _CHECKS[name] = fn
        return fn
    return register


def known_invariants() -> dict[str, Callable]:
    return dict(_CHECKS)


def check(name: str, program, touched=None) -> list[str]:
    """The problems of invariant `name`: in the whole program, or (with `touched`) in the
    region the pass that touched it can have broken."""
    return _CHECKS[name](program, touched)


@invariant("verified")
def _verified(program, touched=None) -> list[str]:
    """The verifier (pirc.ir.verifier).  Region: the ops the pass matched, produced or
    edited (an operand set, the op inserted or moved; less the operand sets the IR watch
    settled as they happened: pirc.passes.infra.touched) and the readers of the ops it removed,
    with what pirc.ir.verifier.collect_problems_in reads around them.  Enough: what the
    verifier checks is either one op against its spec (its name, attributes and counts,
    which change only on an op a rewrite matched or produced, or whose operands were set) or
    a definition before its use (which changes only when the use is set or moved, an edit
    of the reader, or when the definition is removed or moved, which records its readers)."""
    from ...ir.verifier import collect_problems, collect_problems_in

    if touched is None:
        problems = collect_problems(program)
    else:
        problems = collect_problems_in(program, touched.verify_ops(), touched.order,
                                       touched.respec(), touched.names())
    return [str(p) for p in problems]


@invariant("no-dead-ops")
def _no_dead_ops(program, touched=None) -> list[str]:
    """No pure op whose results are all unused.  Region: the ops the pass matched, produced
    or edited, and the producers of every value that lost a use (an operand replaced, or its
    reader removed, nested ops included).  Enough: an op becomes dead only when it is made
    (produced, inserted), when it becomes pure (its class changes: a new op), or when its
    last use goes, and a use goes only by one of those edits."""
    if touched is None:
        ops = program.walk()
    else:
        ops = touched.present(list(touched.ops.values())
                              + [getattr(value, "op", None) for value, _ in touched.released])
    return [f"{op.name} is pure and its results are unused"
            for op in ops
            if is_pure(op) and all(r.first_use is None for r in op.results)]


@invariant("no-common-subexpressions")
def _no_common_subexpressions(program, touched=None) -> list[str]:
    """No pure op that an earlier op computes too (pirc.passes.infra.op_keys).  Region: the
    ops the pass matched, produced or edited, with every op sharing the key of one of them;
    and where an op the pass touched or removed writes a buffer in place (pirc.ir.aliasing),
    the producers and readers of every name of that buffer.  Enough: two ops become a pair
    when one's key changes (its operands, attributes or class: an edited, matched or
    produced op), when one is made or moved (an inserted op), or when what kept them apart
    goes: a write of an operand's buffer between them, or of a result's buffer, removed or
    moved (its writer, removed, reached, or matched for the attributes that say whether it
    changes the values) -- then both ops read or produce a name of that buffer."""
    from .op_keys import (OpKeys, alias_model, common_subexpressions,
                          common_subexpressions_around, may_have_common_subexpressions)

    if touched is None:
        keys = OpKeys()
        pairs = (common_subexpressions(program.block, keys, alias_model(program))
                 if may_have_common_subexpressions(program.block, keys) else ())
    else:
        ops, aliases = _around_writes(program, touched)
        pairs = common_subexpressions_around(ops, OpKeys(), program, aliases)
    return [f"{op.name} computes what an earlier {earlier.name} computes" for op, earlier in pairs]


def _around_writes(program, touched) -> tuple[list, object]:
    """The ops the pass touched, with the producers and readers of every name of a buffer
    an op it touched or removed writes, and the alias model when that needed one."""
    from ...ir.aliasing import AliasAnalysis

    ops = touched.touched_ops()
    released = touched.released
    removed = list(map(_READER, released))
    # Most passes touch no op that writes a buffer: the classes are asked first (each once,
    # gathered in C), and the values only when one of them may write.
    writing = _writing_classes(program.version, removed, ops)
    if not writing:
        return ops, None
    written = [value for value, reader in released if type(reader) in writing]
    written += [value for op in ops if type(op) in writing for value in op._operands]
    if not written:
        return ops, None
    aliases = AliasAnalysis(program)
    around = list(ops)
    for value in written:
        if not aliases.knows(value):
            continue  # defined by an op the pass removed: no reader is left
        for name in aliases.names(value):
            around.append(getattr(name, "op", None))
            around.extend(use.operation for use in name.uses)
    return touched.present(around), aliases


_READER = itemgetter(1)   # a `released` entry's op


def _writing_classes(version: int, *ops) -> set:
    """The classes of the ops of `ops` (lists) whose ops may write a buffer (in place, as
    a loop, or unknown to the alias model), each class asked once (of one of its ops)."""
    from ...ir.aliasing import STRUCTURAL_WRITERS, aliasing_of

    by_class: dict = {}
    for group in ops:
        by_class.update(zip(map(type, group), group))   # one op per class, in C
    writing = set()
    for cls, op in by_class.items():
        aliasing = aliasing_of(op, version)
        if not aliasing.known or aliasing.writes or op.name in STRUCTURAL_WRITERS:
            writing.add(cls)
    return writing
