"""Compile a patch file into xDSL rewrite patterns, and run them.

A validated `PatchFile` (pirc.versioning.model) compiles into a `CompiledStep`:

* one `OpPatchPattern` per `op_patches` entry, holding its actions as small
  objects (pirc.versioning.op_actions) applied in file order;
* one `OpPairPattern` per `op_pair_patches` entry (pirc.versioning.pair_actions);
* one `AttrKindPattern` per `attr_patches` entry and one `TypeKindPattern` per
  `type_patches` entry (pirc.versioning.kind_actions).

Each YAML action builds its object through its class in pirc.versioning.actions (the
registry): the compiler knows no action by name.

Everything a patch writes (attribute values, types, kinds) is built once, at
compile time, so applying a step builds nothing per op but what changes.
Problems a patch could only show at run time (an existing value that does not
fit the new kind, a consumer with no producer) are collected per op in the
step's context and raised together (`StepRefused`); problems with the patch
itself are `PatchError`s naming its file and line.

The patterns are real `RewritePattern`s: `CompiledStep.run_with_walker` runs
them with xDSL's `PatternRewriteWalker` (pairs first, then op patches, then
attribute kinds, then type kinds; a walker per group, so one op can take
several patterns).  `CompiledStep.run` is the fast path the upgrade uses: one
walk of the program that looks up the op's name in a table of the same action
objects; the two give the same program (tests/unit/test_upgrade.py).

An op a step changes takes the op class of its (possibly new) name at the
step's target version, so `type(op)` always matches the program's version.
The class is swapped in place (`op.__class__ = ...`): generated op classes
add only properties to `PirOp`, so the object is valid as either class, and
in-place keeps operands, results, uses and regions untouched (rebuilding with
`Operation.create` costs ~18 us per op and rewires every use).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)

from ..errors import PatchError
from ..ir.registry import op_class
from .actions.registry import lookup
from .model import Action, PatchFile, action_path
from .op_actions import OpAction, RenameOp
from .step_context import StepContext, StepRefused

MODULE_OP = "builtin.module"


# -- patterns ------------------------------------------------------------------------------


class StepPattern(RewritePattern):
    """Applies a list of actions to the ops whose name is in `names` (None: every op)."""

    def __init__(self, step: "CompiledStep", actions: list[OpAction], names=None, label: str = ""):
        self.step = step
        self.actions = tuple(actions)
        self.names = None if names is None else frozenset(names)
        self.label = label

    def match_and_rewrite(self, op, rewriter: PatternRewriter) -> None:
        if op.name == MODULE_OP or (self.names is not None and op.name not in self.names):
            return
        ctx = self.step.context
        changed = False
        for action in self.actions:
            changed |= action.apply(op, ctx)
        if changed:
            settle_class(op, self.step.to_version)
            rewriter.notify_op_modified(op)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.label}>"


class OpPatchPattern(StepPattern):
    """The actions of one `op_patches` entry, on ops of that name."""


class OpPairPattern(StepPattern):
    """The actions of one `op_pair_patches` entry, on ops of either name."""


class AttrKindPattern(StepPattern):
    """One `attr_patches` entry, on every op."""


class TypeKindPattern(StepPattern):
    """One `type_patches` entry, on every op."""


def settle_class(op, version: int) -> None:
    """Give `op` the op class of its name at `version` (in place; see the module docstring)."""
    cls = op_class(op.name, version)
    if type(op) is not cls:
        op.__class__ = cls


def settle_classes(program, version: int) -> None:
    """Every op of the program takes its class at `version`: ops no patch touched may still
    have a new definition there (an op whose spec changed without a patch)."""
    _walk(program, None, version, names=())


# -- the compiled step ---------------------------------------------------------------------


@dataclass
class CompiledStep:
    """A patch file compiled for one direction: `from_version` -> `to_version`."""

    patch: PatchFile
    from_version: int
    to_version: int
    label: str
    pair_patterns: list = field(default_factory=list)
    op_patterns: list = field(default_factory=list)
    attr_kind_patterns: list = field(default_factory=list)
    type_kind_patterns: list = field(default_factory=list)
    # An inverse step (a downgrade) runs its groups in the opposite order: type kinds,
    # attribute kinds, op patches, op pairs (each group's own lists are already reversed).
    inverse: bool = False
    context: StepContext | None = None

    def groups(self) -> list[list]:
        """The pattern groups in the order they run."""
        groups = [self.pair_patterns, self.op_patterns, self.attr_kind_patterns,
                  self.type_kind_patterns]
        return groups[::-1] if self.inverse else groups

    def patterns(self) -> list[RewritePattern]:
        return [p for group in self.groups() for p in group]

    def is_empty(self) -> bool:
        return not self.patterns()

    # Fast path: one walk, actions looked up by op name (see run_steps).
    def run(self, program) -> StepContext:
        return run_steps(program, [self])[0]

    def dispatch(self):
        """(actions for every op before the named ones, {op name: actions}, actions for every
        op after them), in the order of groups(): per op, the order the walker route uses."""
        table: dict[str, list] = {}
        first, last = [], []
        seen_named = False
        for group in self.groups():
            for pattern in group:
                if pattern.names is None:
                    (last if seen_named else first).extend(pattern.actions)
                else:
                    seen_named = True
                    for name in pattern.names:
                        table.setdefault(name, []).extend(pattern.actions)
        return first, table, last

    def has_pairs(self) -> bool:
        return bool(self.pair_patterns)

    def pair_names(self) -> set[str]:
        return {n for p in self.pair_patterns for n in p.names}

    def rename_targets(self) -> set[str]:
        return {a.new_name for p in self.op_patterns for a in p.actions
                if isinstance(a, RenameOp)}

    # The xDSL route: the same actions as RewritePatterns under PatternRewriteWalker.
    def run_with_walker(self, program) -> StepContext:
        ctx = self.context = self._new_context()
        walks = []
        for group in self.groups():
            if group is self.op_patterns:
                if group:
                    walks.append(group)  # one name each: they never compete for an op
            else:
                walks += [[p] for p in group]
        for group in walks:
            walker = PatternRewriteWalker(
                GreedyRewritePatternApplier(list(group), dce_enabled=False),
                apply_recursively=False)
            walker.rewrite_region(program.module.body)
        self._raise_problems(program)
        return ctx

    def _new_context(self) -> StepContext:
        return StepContext(self.from_version, self.to_version, self.label)

    def _raise_problems(self, program) -> None:
        problems = self.context.problems
        if problems:
            n = len({id(p.op) for p in problems})
            raise StepRefused(f"{self.label} (version {self.from_version} -> {self.to_version}) "
                              f"cannot be applied: {n} op{'s block' if n != 1 else ' blocks'} it", problems,
                              program)


def run_steps(program, steps: list[CompiledStep], settle_version: int | None = None,
              idle_pairs: bool = False):
    """Run several steps in one walk of the program; returns their contexts.

    Steps whose actions are all local to one op (op patches, kind renames) give the same
    program whether run one after the other or op by op, so consecutive such steps share
    a walk.  A step with op-pair patches (which connect two ops) must run alone, unless
    the caller knows no op of the program can be named by its pairs (`idle_pairs`: the
    pair actions then never run).  With `settle_version`, every op takes its class at that
    version in the same walk.
    """
    if len(steps) > 1 and not idle_pairs and any(s.has_pairs() for s in steps):
        raise ValueError("a step with op_pair_patches runs alone")
    plans = []
    for step in steps:
        step.context = step._new_context()
        if not step.is_empty():
            plans.append((step.context, step.to_version) + step.dispatch())
    if not plans and settle_version is None:
        pass
    elif any(first or last for _, _, first, _, last in plans):
        _walk(program, lambda op: _apply_all(op, plans, settle_version), settle_version)
    else:
        # Only op-name dispatch: merge the steps' tables, so an op no step names costs one
        # dictionary lookup.
        merged: dict[str, list] = {}
        for ctx, to_version, _, table, _ in plans:
            for name, actions in table.items():
                merged.setdefault(name, []).append((ctx, to_version, actions))
        get = merged.get

        def visit(op):
            for ctx, to_version, actions in get(op.name, ()):
                changed = False
                for action in actions:
                    changed |= action.apply(op, ctx)
                if changed and settle_version is None:
                    settle_class(op, to_version)
        _walk(program, visit, settle_version, names=merged)
    for step in steps:
        step._raise_problems(program)
    return [s.context for s in steps]


def _apply_all(op, plans, settle_version) -> None:
    for ctx, to_version, first, table, last in plans:
        changed = False
        for action in first:
            changed |= action.apply(op, ctx)
        for action in table.get(op.name, ()):
            changed |= action.apply(op, ctx)
        for action in last:
            changed |= action.apply(op, ctx)
        if changed and settle_version is None:
            settle_class(op, to_version)


def op_names(program) -> set[str]:
    """The names of the program's ops (nested ones included), in one fast walk."""
    names: set[str] = set()
    add = names.add
    _walk(program, lambda op: add(op.name), None)
    return names


def _walk(program, visit, settle_version: int | None, names=None) -> None:
    """Call `visit` on every op (or, with `names`, on the ops whose name is in it), in
    program order, nested ops after their parent; with `settle_version`, then give each op
    its class at that version.  An explicit stack: half the cost of Operation.walk."""
    classes: dict = {}
    stack = [program.module.body.block._first_op]
    while stack:
        op = stack.pop()
        while op is not None:
            if names is None or op.name in names:
                visit(op)
            if settle_version is not None:
                name = op.name
                cls = classes.get(name)
                if cls is None:
                    cls = classes[name] = op_class(name, settle_version)
                if type(op) is not cls:
                    op.__class__ = cls
            if op.regions:
                stack.append(op._next_op)
                for block in reversed([b for r in op.regions for b in r.blocks]):
                    stack.append(block._first_op)
                break
            op = op._next_op


# -- compiling ----------------------------------------------------------------------------


def compile_patch(patch: PatchFile, from_version: int | None = None,
                  to_version: int | None = None) -> CompiledStep:
    """Compile `patch` (the step to its version) into rewrite patterns."""
    to_version = patch.version if to_version is None else to_version
    from_version = (to_version - 1) if from_version is None else from_version
    step = CompiledStep(patch, from_version, to_version, f"patch {_file_label(patch)}")
    c = _Compiler(patch, from_version, to_version)
    for pair in patch.op_pair_patches:
        subject = (pair.producer, pair.consumer)
        actions = [c.action("op_pair_patches", subject, a) for a in pair.actions]
        step.pair_patterns.append(OpPairPattern(step, actions, {pair.producer, pair.consumer},
                                                f"{pair.producer} -> {pair.consumer}"))
    for entry in patch.op_patches:
        actions = [c.action("op_patches", entry.op_name, a) for a in entry.actions]
        step.op_patterns.append(OpPatchPattern(step, actions, {entry.op_name}, entry.op_name))
    for entry in patch.attr_patches:
        actions = [c.action("attr_patches", entry.attr_type, a) for a in entry.actions]
        step.attr_kind_patterns.append(AttrKindPattern(step, actions, None, entry.attr_type))
    for entry in patch.type_patches:
        actions = [c.action("type_patches", entry.type_name, a) for a in entry.actions]
        step.type_kind_patterns.append(TypeKindPattern(step, actions, None, entry.type_name))
    c.raise_errors()
    return step


def _file_label(patch: PatchFile) -> str:
    import os
    return os.path.basename(patch.path) if patch.path else f"{patch.version}.yaml"


class _Compiler:
    def __init__(self, patch: PatchFile, from_version: int | None = None,
                 to_version: int | None = None):
        self.patch = patch
        self.from_version = from_version  # the op definitions operands_before counts from
        self.to_version = to_version  # the version of the ops an action makes
        self.errors: list[PatchError] = []

    def source(self, action: Action) -> str:
        return f"{action_path(self.patch, action)}:{action.line}"

    def error(self, action: Action, message: str) -> OpAction:
        self.errors.append(PatchError(f"{action.action}: {message}",
                                      action_path(self.patch, action), action.line))
        return OpAction(self.source(action))  # a placeholder; compiling fails at the end

    def raise_errors(self) -> None:
        if len(self.errors) == 1:
            raise self.errors[0]
        if self.errors:
            from ..errors import ErrorList
            raise ErrorList(self.errors)

    def action(self, section: str, subject, a: Action) -> OpAction:
        """The compiled form of action `a` of the `section` entry on `subject`, built by the
        action's class; a problem is reported at `a`'s line."""
        src = self.source(a)
        where = f"[{subject[0]}, {subject[1]}]" if isinstance(subject, tuple) else subject
        act = lookup(section, a.action)
        if act is None:
            return self.error(a, f"{where}: not {'an' if section[0] in 'aeiou' else 'a'} {section} action")
        try:
            return act.compile(self, subject, a, src)
        except (ValueError, TypeError, KeyError) as e:
            return self.error(a, f"{where}: {_reason(e)}")

    def operands_before(self, op_name: str, a: Action) -> int:
        """How many operands an op has when `a` (an action of its entry that adds an operand)
        applies: its definition's count at the step's old version, moved by the entry's
        earlier actions (their `operand_delta`)."""
        from ..ir.specs import get_spec
        spec = get_spec(op_name, self.from_version) if self.from_version is not None else None
        if spec is None or spec.variadic_operands:
            raise ValueError(f"{a.action} needs a definition of {op_name} at version "
                             f"{self.from_version} with a fixed operand count, to tell the old "
                             f"form from the new")
        count = len(spec.operands)
        entry = next(e for e in self.patch.op_patches if e.op_name == op_name)
        for earlier in entry.actions:
            if earlier is a:
                break
            count += lookup("op_patches", earlier.action).operand_delta
        return count


def _reason(e: Exception) -> str:
    return e.args[0] if e.args and isinstance(e.args[0], str) else str(e)
