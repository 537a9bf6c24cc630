"""param-fold: compute once what depends on parameters only, and keep it as a new parameter.

A Paddle program recomputes on every run values that depend on its parameters alone: each
conv2d's bias reshaped to [1, C, 1, 1], a weight transposed or cast.  This pass finds, in
the top block, the pure ops (dialects/effects.yaml) whose operands are all parameters,
constants (pure ops without operands: full, full_int_array) or results of such ops, and
that read at least one parameter; each of their values that an op outside that set uses is
evaluated once and becomes a new `builtin.parameter` (the first parameter's attributes,
the name `<parameter>.<op>`), and the ops that computed it go.

The values are computed by pirc's own kernels, through the lowering (a small program of the
folded ops, run once), so they are the numbers the unfolded program computes, bit for bit;
that is why the pass needs no per-op semantic version (`rewrites = {"*": ...}`): it encodes
no op's numerics, it runs the kernel the program's version resolves to, and an op without a
registered kernel (pirc.runtime.op_versions) is not folded.  It reads the parameter
values: without them the manager skips it whole, with the reason (`reads_weights`), and a
program without a `builtin.parameter` gives it nothing to do (`interest`); torch is
imported only when a cone is evaluated.  Results over
2**20 elements, or of dynamic shape, stay computed, so folding never multiplies a model's
size; random ops, in-place ops, control flow and tensor arrays are never pure, so never
folded.

The alias model (pirc.ir.aliasing) decides what may be read at compile time: a parameter
whose buffer an op changes in place (`relu_(w)`, an `assign_out_` into it: Paddle keeps that
write in the parameter's storage) is not a constant, nor is a value whose buffer is written;
an inference `batch_norm_` writes its running statistics without changing them, so they
stay foldable.  A cone whose evaluation fails is skipped with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..ir.effects import is_pure
from ..ir.types import DenseTensorType
from ..runtime.op_versions import semantic_version
from .infra.parameters import (PARAMETER, add_parameter, erase_unused, fresh_name,
                               not_persisted_reason, parameter_name, program_parameter_names,
                               weights_digest)
from .infra.pass_base import PassContext, PircPass
from .infra.registry import register_pass
from .infra.rewrites import ANY_OP, OpUse

MAX_ELEMENTS = 1 << 20


@register_pass
@dataclass(frozen=True)
class ParamFold(PircPass):
    """Folds ops that depend on parameters only into new parameters (needs the parameter
    values)."""

    name = "param-fold"
    version = 1
    invariants = ("verified",)
    # It evaluates each op with the kernel the program's version resolves to: any op, any
    # semantic version (module docstring).  Not in conservative mode: the kernels are this
    # pirc's, the program another pirc's.
    rewrites = {ANY_OP: OpUse(ANY_OP)}
    # It may fold what canonicalize (a composed cast or transpose) and const-fold (full,
    # full_int_array, full + assign_value_) leave: those are ordinary ops that mean what
    # their spec says, and param-fold computes them with the kernels the unfolded program
    # runs, so the value is the same bit for bit (docs/PASSES.md, "Who rewrites whose output").
    may_rewrite_after = ("canonicalize", "const-fold")
    reads_weights = True
    interest = frozenset({PARAMETER})   # every cone reads a parameter

    def run(self, pc: PassContext) -> None:
        block = pc.program.block
        computable, frontier = foldable(block, pc.program.version, pc.aliases)
        # Block positions, taken once: ordering each cone by a walk of the block made the
        # pass quadratic (33 s at 100k ops).  Parameters made on the way have no position:
        # they read nothing, so they may come first.
        position = {id(op): i for i, op in enumerate(block.ops)}
        taken = None
        for value in frontier:
            cone = cone_of(value, computable, position)
            pc.matched()
            ops = [op for op in cone if op.name != PARAMETER]
            params = [op for op in cone if op.name == PARAMETER]
            unknown = not_persisted_reason(params)
            if unknown:
                pc.skip(unknown, value.owner, pc.state.fingerprint(ops))
                continue
            missing = [parameter_name(p) for p in params if parameter_name(p) not in pc.params]
            if missing:
                pc.skip(f"params: no value for {', '.join(sorted(set(missing)))} in the parameters given",
                        value.owner, pc.state.fingerprint(ops))
                continue
            rewrite = pc.begin(ops)
            if rewrite is None:
                continue
            if taken is None:
                taken = program_parameter_names(pc.program) | set(pc.params)
            arrays = [pc.params[parameter_name(p)] for p in params]
            array = pc.cached(f"{rewrite.fingerprint}:{value.index}",
                              lambda: _evaluated(cone, value, pc), extra=weights_digest(arrays))
            if isinstance(array, str):
                pc.skip(array, value.owner, rewrite.fingerprint)
                continue
            like = params[0]
            name = fresh_name(f"{parameter_name(like)}.{value.owner.name.split('.')[-1]}", taken)
            taken.add(name)
            new = add_parameter(pc, like, name, array, value.type, value.owner)
            computable.add(new)  # a later cone may read it, once it replaces `value`
            value.replace_all_uses_with(new.results[0])
            erase_unused(pc, reversed(cone))
            rewrite.done([new])


def foldable(block, version: int, aliases=None):
    """(every op whose values can be computed now: parameters, constants and the ops on
    them; the values of the ops among them that read a parameter which an op outside uses),
    in block order.  `aliases` (pirc.ir.aliasing.AliasAnalysis): a value whose buffer is
    written in place is none of them."""
    constant: dict = {}    # value -> whether it depends on a parameter
    computable, folded = set(), []

    def written(values) -> bool:
        return aliases is not None and any(aliases.is_written(v) for v in values)

    for op in block.ops:
        if op.name == PARAMETER:
            if not written(op.results):
                constant[op.results[0]] = True
                computable.add(op)
            continue
        if (not _foldable_op(op, version) or not all(v in constant for v in op.operands)
                or written(op.results)):
            continue
        reads_param = any(constant[v] for v in op.operands)
        for r in op.results:
            constant[r] = reads_param
        computable.add(op)
        if reads_param:
            folded.append(op)
    inside = set(folded)
    frontier = [r for op in folded for r in op.results
                if any(use.operation not in inside for use in r.uses)]
    return computable, frontier


def _foldable_op(op, version: int) -> bool:
    if op.regions or not op.results or not is_pure(op):
        return False
    if semantic_version(op.name, version) is None:
        return False  # no kernel to compute it with
    for r in op.results:
        t = r.type
        if not isinstance(t, DenseTensorType) or any(d < 0 for d in t.shape):
            return False
        count = 1
        for d in t.shape:
            count *= d
        if count > MAX_ELEMENTS:
            return False
    return True


def cone_of(value, computable: set, position: dict | None = None) -> list:
    """The ops `value` is computed from (all `computable`), in block order (`position`: each
    op's index in the block, by id; ops it lacks read nothing and come first)."""
    seen, stack = set(), [value.owner]
    while stack:
        op = stack.pop()
        if op not in seen:
            seen.add(op)
            stack.extend(v.owner for v in op.operands)
    assert seen <= computable, "a foldable op reads a value that cannot be computed"
    if position is None:
        return [op for op in value.owner.parent.ops if op in seen]
    return sorted(seen, key=lambda op: position.get(id(op), -1))


def _evaluated(cone: list, value, pc: PassContext):
    """`evaluate`, or the skip reason when it fails (shapes the verifier accepts that do not
    add up, an op the lowering refuses): a fold that cannot be computed is never a crash."""
    from ..errors import PircError

    try:
        return evaluate(cone, value, pc)
    except (PircError, RuntimeError, ValueError, IndexError, TypeError) as e:
        lines = str(e).strip().splitlines()
        return f"evaluation failed: {type(e).__name__}: {lines[0] if lines else ''}".rstrip(": ")


def evaluate(cone: list, value, pc: PassContext):
    """`value` computed by pirc's kernels: the cone as a program of its own, with one fetch,
    lowered and run (float32 for bfloat16, as read_params gives it)."""
    import numpy as np
    import torch

    from ..ir.attrs import int32_attr, str_attr
    from ..ir.ops import new_module
    from ..ir.program import Program
    from ..ir.registry import op_class
    from ..lower import lower

    mapping: dict = {}
    module = new_module()
    for op in cone:
        module.block.add_op(op.clone(value_mapper=mapping))
    out = mapping[value]
    module.block.add_op(op_class("pd_op.fetch", pc.program.version).create(
        operands=[out], result_types=[out.type],
        attributes={"name": str_attr("folded"), "col": int32_attr(0)}))
    gm = lower(Program(module, pc.program.version), pc.params, "cpu")
    with torch.no_grad():
        (result,) = gm.forward()
    result = result.detach().cpu()
    if result.dtype == torch.bfloat16:
        result = result.to(torch.float32)  # exact: bfloat16 widens to float32
    array = result.numpy()
    # np.ascontiguousarray would make a 0-D value 1-D (a [] parameter stored as [1])
    return array if array.flags.c_contiguous else array.copy(order="C")
