"""Operation classes shared by every PIR op.

Every PIR op is an instance of a subclass of `PirOp`.  The subclasses are
generated from the dialect specs (`pirc.ir.registry`), one per op name and
spec revision, so that `type(op)` tells passes and lowerings which op they
hold at which version.  Operands, results and regions are stored
positionally, exactly as PIR stores them; the per-op structure (which
operand is `x`, which attribute is a Double) lives in the spec and is
checked by `pirc.ir.verifier`, which reports problems in PIR's own terms.

An absent optional operand (`<<NULL VALUE>>`) is the result of a detached
`pir.null_value` op: PIR's null Value has no defining op either, and keeping
it as a real SSA value keeps every operand at its PIR position.
"""

from __future__ import annotations

from xdsl.ir import Attribute, Block, Region, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    region_def,
    traits_def,
    var_operand_def,
    var_region_def,
    var_result_def,
)
from xdsl.traits import NoTerminator

from .types import NULL_TYPE

# Result attributes: Paddle stores these per result (JSON "OA"), and prints
# them merged into the op's attribute dictionary.
RESULT_ATTR_NAMES = ("stop_gradient", "persistable")

# Property that holds block-argument attributes: one ArrayAttr per region,
# one ArrayAttr per block, one DictionaryAttr per argument.
BLOCK_ARG_ATTRS = "pir.block_arg_attrs"


@irdl_op_definition
class PirOp(IRDLOperation):
    """Base of every PIR operation (known or not)."""

    name = "pir.op"

    args = var_operand_def()
    outs = var_result_def()
    regs = var_region_def()
    # PIR blocks end in cf.yield by convention, not by xDSL's terminator rule;
    # pirc's verifier checks PIR's own rules.
    traits = traits_def(NoTerminator())

    def operand_is_null(self, index: int) -> bool:
        return isinstance(self.operands[index].owner, NullValueOp)


# Set outside the class body: IRDL only allows upper-case ClassVars there.
PirOp.spec = None  # the OpSpec a generated subclass was made from
PirOp.pir_version = None  # the spec revision's `since`; None: not version-specific


@irdl_op_definition
class ProgramModuleOp(IRDLOperation):
    """PIR's `builtin.module`: the single-region, single-block program root."""

    name = "builtin.module"
    body = region_def("single_block")
    traits = traits_def(NoTerminator())

    @property
    def block(self) -> Block:
        return self.body.block


@irdl_op_definition
class NullValueOp(IRDLOperation):
    """Defines PIR's null Value.  Never inserted in a block."""

    name = "pir.null_value"
    out = var_result_def()


def null_value() -> SSAValue:
    """A fresh `<<NULL VALUE>>` operand of type `<<NULL TYPE>>`."""
    return NullValueOp.create(result_types=[NULL_TYPE]).results[0]


def is_null_value(value: SSAValue) -> bool:
    return isinstance(value.owner, NullValueOp)


def new_module(ops=()) -> ProgramModuleOp:
    return ProgramModuleOp.create(regions=[Region(Block(ops))])


def attribute_items(op) -> list[tuple[str, Attribute]]:
    """The op's attributes (op and result attributes together), in stored order."""
    return list(op.attributes.items())
