"""Deliberately broken passes the pass-manager tests run (registered on import).

Each goes through the rewrite gate (`pc.begin` ... `done`) except the `test-*-outside-gate`
ones, whose breakage is exactly that they do not: the manager must name them."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import ArrayAttr

from pirc.ir import attrs as A
from pirc.ir.builder import append_op
from pirc.ir.registry import op_class
from pirc.passes import PircPass, register_pass
from pirc.passes.infra.rewrites import ANY_OP, OpUse


@register_pass
@dataclass(frozen=True)
class BreaksVerifier(PircPass):
    """Drops the add's second operand: the program no longer verifies."""

    name = "test-breaks-verifier"
    rewrites = {"pd_op.add": OpUse(ANY_OP)}

    def run(self, pc):
        add = next(op for op in pc.program.block.ops if op.name == "pd_op.add")
        rewrite = pc.begin([add])
        add.operands = [add.operands[0]]
        rewrite.done([add])


@register_pass
@dataclass(frozen=True)
class UsesALaterValue(PircPass):
    """Makes the first tanh read the add's result, defined after it: a use before its
    definition, which only the op the pass touched shows."""

    name = "test-uses-later-value"
    rewrites = {"pd_op.tanh": OpUse(ANY_OP)}

    def run(self, pc):
        ops = list(pc.program.block.ops)
        tanh = next(op for op in ops if op.name == "pd_op.tanh")
        add = next(op for op in ops if op.name == "pd_op.add")
        rewrite = pc.begin([tanh])
        tanh.operands = [add.results[0]]
        rewrite.done([tanh])


@register_pass
@dataclass(frozen=True)
class ErasesAUsedOp(PircPass):
    """Erases the relu's producer, the data op, though relu and both tanh ops still read it."""

    name = "test-erases-used-op"
    rewrites = {"pd_op.data": OpUse(ANY_OP)}

    def run(self, pc):
        data = next(op for op in pc.program.block.ops if op.name == "pd_op.data")
        rewrite = pc.begin([data])
        pc.program.block.detach_op(data)
        rewrite.done()


@register_pass
@dataclass(frozen=True)
class MiscomputesKthAdd(PircPass):
    """Rebuilds each pd_op.add as an equal new op, except the k-th, which becomes a subtract.

    Every rebuild goes through the rewrite gate, so bisection sees k rewrites that keep the
    outputs and then the one that does not: pirc.testing.bisect must name rewrite k."""

    name = "test-miscompute"
    rewrites = {"pd_op.add": OpUse((1,))}
    k: int = 1

    def run(self, pc):
        count = 0
        for op in list(pc.program.block.ops):
            if op.name != "pd_op.add":
                continue
            pc.matched()
            rewrite = pc.begin([op])
            if rewrite is None:
                continue
            count += 1
            rewrite.done([replace_op(op, "pd_op.subtract" if count == self.k else "pd_op.add", pc.version)])


@register_pass
@dataclass(frozen=True)
class ErasesOutsideGate(PircPass):
    """Removes the unused relu as dce would, but without asking the gate: the program still
    verifies and computes the same, yet no version gate, bisection or tag saw the change."""

    name = "test-erases-outside-gate"
    rewrites = {ANY_OP: OpUse(ANY_OP)}

    def run(self, pc):
        relu = next(op for op in pc.program.block.ops if op.name == "pd_op.relu")
        pc.program.block.erase_op(relu)


@register_pass
@dataclass(frozen=True)
class RewritesThenEditsOutsideGate(PircPass):
    """Merges the second tanh into the first through the gate, then erases the unused relu
    after `done()`: one rewrite counted, one edit behind the gate's back."""

    name = "test-rewrites-then-edits-outside-gate"
    rewrites = {ANY_OP: OpUse(ANY_OP)}

    def run(self, pc):
        ops = list(pc.program.block.ops)
        first, second = [op for op in ops if op.name == "pd_op.tanh"]
        rewrite = pc.begin([second])
        second.results[0].replace_all_uses_with(first.results[0])
        pc.program.block.erase_op(second)
        rewrite.done()
        pc.program.block.erase_op(next(op for op in ops if op.name == "pd_op.relu"))


@register_pass
@dataclass(frozen=True)
class NeverDone(PircPass):
    """Asks the gate, erases the unused relu, and never calls `done()`: the rewrite is not
    counted, so nothing would verify, tag or report it."""

    name = "test-never-done"
    rewrites = {ANY_OP: OpUse(ANY_OP)}

    def run(self, pc):
        relu = next(op for op in pc.program.block.ops if op.name == "pd_op.relu")
        if pc.begin([relu]) is not None:
            pc.program.block.erase_op(relu)


@register_pass
@dataclass(frozen=True)
class SetsAttributeOutsideGate(PircPass):
    """Renames the fetch (its `name` attribute) without asking the gate: no structural edit,
    so only `--verify-each=full` (fingerprints, attributes before and after) sees it."""

    name = "test-sets-attribute-outside-gate"
    rewrites = {ANY_OP: OpUse(ANY_OP)}

    def run(self, pc):
        fetch = next(op for op in pc.program.block.ops if op.name == "pd_op.fetch")
        fetch.attributes["name"] = A.str_attr("renamed")


@register_pass
@dataclass(frozen=True)
class SetsAttributeOfAnEditedReader(PircPass):
    """Merges the second tanh into the first, as cse does, inside the gate, and while at it
    sets an attribute of the add reading it: the add was edited (an operand set), neither
    matched nor produced, so its attributes are not the rewrite's to change.  The watch
    sees only the operand edit; `--verify-each=full` compares the attributes."""

    name = "test-sets-attribute-of-an-edited-reader"
    rewrites = {ANY_OP: OpUse(ANY_OP)}

    def run(self, pc):
        first, second = [op for op in pc.program.block.ops if op.name == "pd_op.tanh"]
        add = next(op for op in pc.program.block.ops if op.name == "pd_op.add")
        rewrite = pc.begin([second])
        if rewrite is None:
            return
        second.results[0].replace_all_uses_with(first.results[0])
        add.attributes["stop_gradient"] = ArrayAttr([A.bool_attr(False)])
        pc.program.block.erase_op(second)
        rewrite.done()


@register_pass
@dataclass(frozen=True)
class CorrectnessEditsOutsideGate(PircPass):
    """A correctness pass (never disabled) that removes the unused relu outside the gate
    and counts nothing: the manager still tags the program and reports the edits."""

    name = "test-correctness-outside-gate"
    correctness = True
    conservative_safe = True

    def run(self, pc):
        relu = next(op for op in pc.program.block.ops if op.name == "pd_op.relu")
        pc.program.block.erase_op(relu)


def replace_op(op, name: str, version: int):
    """Put a new op named `name`, with `op`'s operands, attributes and result type, in its
    place; the new op."""
    new = append_op(op_class(name, version), list(op.operands), [r.type for r in op.results],
                    dict(op.attributes), None)
    op.parent.insert_op_before(new, op)
    op.results[0].replace_all_uses_with(new.results[0])
    op.parent.erase_op(op, safe_erase=False)
    return new
