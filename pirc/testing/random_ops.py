"""Which ops draw random numbers, and which of a program's fetched outputs depend on them.

Two runs of a program with a random op (gaussian, uniform, dropout in training) give different
numbers, so a test or a differential check compares such outputs by shape and dtype only.  An
output depends on a random op when a value it is computed from is a random op's result, followed
through operands in print order (a random op inside a region taints what the region's ops compute
from it, not the op that holds the region; a check that needs every case also runs the program
twice and treats outputs that differ as random, as pirc.migrate.check does).
"""

from __future__ import annotations

RANDOM_OPS = frozenset({"pd_op.gaussian", "pd_op.uniform"})


def is_random(op) -> bool:
    """A random op, or dropout in training (`is_test` false): its results are random draws."""
    return op.name in RANDOM_OPS or (op.name == "pd_op.dropout" and not
                                     bool(op.attributes["is_test"].value.data))


def random_fetches(program) -> set[int]:
    """Positions (in fetch order) of fetched values that depend on a random op."""
    tainted = set()
    for op in program.walk():
        if is_random(op) or any(getattr(v, "owner", None) in tainted for v in op.operands):
            tainted.add(op)
    fetches = [op for op in program.block.ops if op.name == "pd_op.fetch"]
    return {i for i, op in enumerate(fetches) if op in tainted}
