"""const-fold: evaluate ops whose inputs are constants, and replace them by constant ops.

A constant is the result of `pd_op.full`, `pd_op.full_int_array` or `pd_op.assign_value_`
that nothing writes in place (pirc.passes.folding.constants).  An op is folded when each
operand its rule reads (pirc.passes.folding.rules: elementwise arithmetic, scale, cast,
reshape, transpose, concat, stack, slice) is a constant, or, for `pd_op.shape`,
`pd_op.shape64` and `pd_op.full_like`, when the input it measures has a fully static type.
The value is computed with numpy (imported when the pass runs, never at pirc-opt start-up),
with the numbers pirc's kernels give, and written back as the constant op Paddle itself
uses (`full_int_array`, `full`, or `full` + `assign_value_`); a rule that is unsure of the
numbers, a result that is not of the op's static result type, or a non-uniform result of
more than `max-elements` elements leaves the op as it is.

Folding runs under the greedy driver, so a constant subgraph folds whole: each folded op
makes its users' operands constant.  The value of a subgraph is kept in the rewrite cache by
its fingerprint (`pc.cached`), so a model's repeated layers are evaluated once.  The
constants an op read stay for dce, except an `assign_value_` left unused: an in-place op,
which dce never removes, so const-fold erases the ones it consumed itself.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..ir import attrs as A
from .folding.constants import SOURCES, constant_ops, constant_value, tensor_info
from .folding.rules import RULES
from .infra.forwarding import unwritten
from .infra.greedy import DEFAULT_MAX_ITERATIONS, Pattern, apply_patterns, replace_op
from .infra.pass_base import PassContext, PircPass
from .infra.registry import register_pass
from .infra.rewrites import ANY_OP, OpUse

COMBINE = "builtin.combine"
_NOT_FOLDED = False          # a cached plan: the rule declined
_TRUE = A.array_attr([A.bool_attr(True)])


class Unfoldable:
    """A cached plan: evaluating the op failed (a skip, with `reason`; never a pass crash)."""

    def __init__(self, reason: str):
        self.reason = reason


def _first_line(e: Exception) -> str:
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0]}" if text else type(e).__name__
_UNDEFINED = A.place_attr(0)
_item = tuple.__getitem__   # an operand tuple's item (xDSL's `SSAValues.__getitem__` is Python)


class Constants:
    """The constant values one run has read, by op (identity kept: ids are reused).  numpy
    is imported when the first constant is read: a program with nothing to fold never
    pays for it."""

    def __init__(self, pc=None):
        self._memo: dict = {}
        self._np = None
        self._pc = pc

    @property
    def aliases(self):
        """The alias model (pirc.ir.aliasing) of the program, built when a constant is first
        read: a program with nothing to fold never pays for it."""
        return None if self._pc is None else self._pc.aliases

    @property
    def np(self):
        if self._np is None:
            import numpy

            self._np = numpy
        return self._np

    def _numpy(self):
        return self.np

    def value(self, v):
        owner = getattr(v, "op", None)
        if owner is None or owner.name not in SOURCES:
            return None
        entry = self._memo.get(id(owner))
        if entry is None or entry[0] is not owner:
            entry = self._memo[id(owner)] = (owner, constant_value(v, self._numpy, self.aliases))
        return entry[1]


class FoldOp(Pattern):
    """Folds ops named `root` by their rule (folding.rules.RULES)."""

    def __init__(self, root: str, rule, constants: Constants, max_elements: int):
        self.root = root
        self.rule = rule
        self.constants = constants
        self.max_elements = max_elements
        # The first operand that must come from a constant op, and the op it must come from:
        # most ops a rule roots at read a computed tensor there, and fail this one check.
        self._probe = next(((i, COMBINE if kind == "vec" else None)
                            for i, kind in enumerate(rule.operands) if kind in ("const", "vec")),
                           None)
        # The same test, made by the driver before it calls (pirc.passes.infra.greedy).
        self.probe = None if self._probe is None else (
            self._probe[0], frozenset((self._probe[1],) if self._probe[1] else SOURCES), None)

    @property
    def name(self) -> str:
        return f"fold {self.root}"

    def match_and_rewrite(self, op, pc):
        if self._probe is not None:
            index, wanted = self._probe
            operands = op._operands   # xDSL's tuple (pinned): `op.operands` makes a view
            owner = getattr(_item(operands, index), "op", None) if len(operands) > index else None
            if owner is None or (owner.name != wanted if wanted else owner.name not in SOURCES):
                return None
        args, sources = self._inputs(op)
        if args is None or len(op.results) != 1:
            return None
        result = op.results[0]
        info = tensor_info(result.type)
        # a result whose buffer is written in place is no constant: its users read the write
        if info is None or not unwritten(self.constants.aliases, result):
            return None
        matched = list(dict.fromkeys(sources)) + [op]
        plan = pc.cached(pc.state.fingerprint(matched), lambda: self._evaluate(op, args, info))
        if plan is _NOT_FOLDED:
            return None
        if isinstance(plan, Unfoldable):
            pc.matched()
            pc.skip(plan.reason, op, pc.state.fingerprint(matched))
            return None
        first = sources[0] if sources else op
        new_ops = constant_ops(plan, result.type, pc.version,
                               first.attributes.get("place", _UNDEFINED),
                               op.attributes.get("stop_gradient", _TRUE), self.max_elements,
                               self.constants.np)
        if new_ops is None:
            return None
        pc.matched()
        rewrite = pc.begin(matched)
        if rewrite is None:
            return None
        block = op.parent
        for new in new_ops:
            block.insert_op_before(new, op)
        users = replace_op(op, [new_ops[-1].results[0]])
        for source in matched[:-1]:  # in-place constants dce cannot remove (module docstring)
            if (source.name == "pd_op.assign_value_" and source.results[0].first_use is None
                    and sum(1 for _ in source.operands[0].uses) == 1):
                # no other name of the buffer reads the write: it goes with its last reader
                source.parent.erase_op(source, safe_erase=False)
        rewrite.done(new_ops)
        return users

    def _inputs(self, op):
        """The rule's arguments and the constant ops they came from; (None, None) when an
        operand is not what the rule needs."""
        kinds = self.rule.operands
        if len(op.operands) != len(kinds):
            return None, None
        args, sources = [], []
        for kind, v in zip(kinds, op.operands):
            if kind == "any":
                args.append(None)
            elif kind == "type":
                info = tensor_info(v.type)
                if info is None:
                    return None, None
                args.append(info)
            elif kind == "vec":
                combine = getattr(v, "op", None)
                if combine is None or combine.name != COMBINE or not unwritten(self.constants.aliases, v):
                    return None, None
                arrays = [self.constants.value(x) for x in combine.operands]
                if any(a is None for a in arrays):
                    return None, None
                args.append(arrays)
                sources += [x.op for x in combine.operands] + [combine]
            else:
                a = self.constants.value(v)
                if a is None:
                    return None, None
                args.append(a)
                sources.append(v.op)
        return args, sources

    def _evaluate(self, op, args, info):
        np = self.constants.np
        try:
            with np.errstate(all="ignore"):
                out = self.rule.fold(op, args, np)
        except KeyError:  # an attribute the rule reads is missing (read without the verifier)
            return _NOT_FOLDED
        except (ValueError, IndexError, TypeError) as e:
            # shapes the verifier accepts but that do not add up (add of [2] and [3] into
            # [3]): the kernel would refuse them at run time; folding is skipped, with why
            return Unfoldable(f"evaluation failed: {_first_line(e)}")
        if out is None or out.shape != info[0] or out.dtype.name != info[1]:
            return _NOT_FOLDED
        if not out.flags.c_contiguous:  # np.ascontiguousarray would make a 0-D array 1-D
            out = out.copy(order="C")
        out.setflags(write=False)  # shared through the rewrite cache
        return out


_FOLDED = OpUse((1,))


@register_pass
@dataclass(frozen=True)
class ConstantFolding(PircPass):
    """Folds ops on constants, and shapes of static types, into full / full_int_array ops."""

    name = "const-fold"
    version = 1
    invariants = ("verified",)
    # It folds casts and transposes canonicalize composed.
    may_rewrite_after = ("canonicalize",)
    rewrites = {
        **{name: _FOLDED for name in RULES},
        # Casts round to nearest since semantic version 3; version 1 truncates float32 ->
        # float16, which the rule does not compute.
        "pd_op.cast": OpUse((3,)),
        # No kernel entry: they read only the static type of their input.
        "pd_op.shape": OpUse(ANY_OP),
        "pd_op.shape64": OpUse(ANY_OP),
        # Read: the constants.  builtin.combine only groups them.
        "pd_op.full": _FOLDED,
        "pd_op.full_int_array": _FOLDED,
        "pd_op.assign_value_": _FOLDED,
        COMBINE: OpUse(ANY_OP),
    }
    interest = frozenset(RULES)   # the patterns' roots
    max_iterations: int = DEFAULT_MAX_ITERATIONS
    max_elements: int = 1024

    def run(self, pc: PassContext) -> None:
        constants = Constants(pc)
        apply_patterns(pc, [FoldOp(root, rule, constants, self.max_elements)
                            for root, rule in RULES.items()], self.max_iterations)
