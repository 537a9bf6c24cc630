"""Downgrade: compile a patch's inverse, and take a program back to an older version.

The inverse of step N (version N -> N-1) undoes its actions in reverse order:

| action (step N)            | inverse                                                        |
|----------------------------|----------------------------------------------------------------|
| add_attr X = d             | delete X when it holds d; any other value is refused          |
| modify_attr X, kind only   | X back to its kind at N-1 (from the op definitions of N-1):    |
|                            | Double -> Float rounds to f32; Int64 -> Int32 refused if the   |
|                            | value does not fit                                             |
| modify_attr X with data    | refused: the value before the patch is unknown                 |
| delete_attr X              | refused: the deleted value is unknown                          |
| modify_attr_name a -> b    | b -> a                                                         |
| add_output i               | remove result i; refused if it is used                         |
| delete_input i             | refused: the removed operand is unknown                        |
| modify_output_type i       | refused: the old type is unknown                               |
| modify_name a -> b         | b -> a                                                         |
| add_value [i, j]           | remove the value (result i and operand j); refused if it has   |
|                            | other uses                                                     |
| delete_value [i, j]        | refused: the removed value is unknown                          |
| attr/type kind rename a->b | refused for an op holding b: pirc cannot tell which b were a   |

A refusal is reported only for ops of the program the action would act on,
so a downgrade of a program that does not use what a patch changed goes
through.  All refusals of a step are listed together; nothing is written.
After the steps, an op whose definition does not exist at the target version
is refused too (an old reader would fail on it), and the program is verified
against the target version's definitions by the caller.

The `*_output_attr` variants invert like the attribute actions.
"""

from __future__ import annotations

from ..ir.specs import get_spec
from .compiler import (
    AttrKindPattern,
    CompiledStep,
    OpPairPattern,
    OpPatchPattern,
    TypeKindPattern,
    _Compiler,
    _file_label,
)
from .actions.registry import lookup
from .model import PatchFile
from .op_actions import OpAction, Refuse, RenameOp
from .step_context import Problem, StepRefused


def compile_inverse(patch: PatchFile, from_version: int, to_version: int) -> CompiledStep:
    """The step that undoes `patch`: a program of `from_version` back to `to_version`."""
    step = CompiledStep(patch, from_version, to_version, f"inverse of patch {_file_label(patch)}",
                        inverse=True)
    c = _Compiler(patch, to_version, from_version)
    inv = _Inverter(c, to_version)
    for entry in reversed(patch.type_patches):
        actions = [inv.action("type_patches", entry.type_name, a) for a in reversed(entry.actions)]
        step.type_kind_patterns.append(TypeKindPattern(step, actions, None, entry.type_name))
    for entry in reversed(patch.attr_patches):
        actions = [inv.action("attr_patches", entry.attr_type, a) for a in reversed(entry.actions)]
        step.attr_kind_patterns.append(AttrKindPattern(step, actions, None, entry.attr_type))
    for entry in reversed(patch.op_patches):
        forward = [c.action("op_patches", entry.op_name, a) for a in entry.actions]
        final_name = entry.op_name
        for a in forward:
            if isinstance(a, RenameOp):
                final_name = a.new_name
        actions = [inv.action("op_patches", entry.op_name, a, f)
                   for a, f in zip(reversed(entry.actions), reversed(forward))]
        step.op_patterns.append(OpPatchPattern(step, actions, {final_name}, final_name))
        if final_name != entry.op_name:
            reused = _name_reused(entry.op_name, final_name, from_version, to_version,
                                  c.source(entry.actions[0]))
            if reused is not None:
                step.op_patterns.append(OpPatchPattern(step, [reused], {entry.op_name},
                                                       entry.op_name))
    for pair in reversed(patch.op_pair_patches):
        subject = (pair.producer, pair.consumer)
        actions = [inv.action("op_pair_patches", subject, a, c.action("op_pair_patches", subject, a))
                   for a in reversed(pair.actions)]
        step.pair_patterns.append(OpPairPattern(step, actions, {pair.producer, pair.consumer},
                                                f"{pair.producer} -> {pair.consumer}"))
    c.raise_errors()
    return step


class _Inverter:
    """What an action's `invert` may ask: the older version's op definitions."""

    def __init__(self, compiler: _Compiler, old_version: int):
        self.c = compiler
        self.old_version = old_version

    def action(self, section: str, subject, a, forward: OpAction | None = None) -> OpAction:
        """The inverse of action `a` (`forward`: its compiled form, for op and pair actions),
        made by the action's class."""
        if forward is not None and type(forward) is OpAction:
            return forward  # a placeholder for an action that did not compile: reported
        act = lookup(section, a.action)
        return act.invert(self, subject, a, forward)

    def source(self, a) -> str:
        return self.c.source(a)

    def spec(self, op_name: str):
        return get_spec(op_name, self.old_version)

    def had_no_attr(self, op_name: str, attr: str) -> bool:
        spec = get_spec(op_name, self.old_version)
        return spec is not None and spec.attribute(attr) is None

    def old_attr_kind(self, op_name: str, attr: str) -> str | None:
        try:
            spec = get_spec(op_name, self.old_version)
        except ValueError:
            return None
        a = spec.attribute(attr) if spec is not None else None
        if a is None or a.type in ("any", "array", "scalar"):
            return None
        return a.type


def _name_reused(old_name: str, new_name: str, newer: int, older: int, src: str):
    """A Refuse for the ops that hold `old_name` at `newer` as a different op: the step
    renamed the old op to `new_name` and the name went to a new op (3.3's rms_norm), which
    has no form at `older`.  An op renamed back by this inverse step keeps the old form
    (every required attribute of the old definition), so only the new op is refused."""
    old, new = get_spec(old_name, older), get_spec(old_name, newer)
    if old is None or new is None or old is new:
        return None
    required = [a.name for a in old.attributes if not a.optional]

    def new_form(op) -> bool:
        return any(name not in op.attributes for name in required)
    return Refuse("modify_name", old_name,
                  f"at version {newer} {old_name} is another op than at version {older} (whose "
                  f"{old_name} became {new_name}); it has no version-{older} form", src,
                  when=new_form)


_CONCRETE = ("bool", "int32", "int64", "index", "float", "double", "str")


def restore_kinds(program, version: int) -> None:
    """Give attributes the kind the op definitions of `version` expect, where the value
    converts exactly (Int64 -> Int32 in range, Double -> Float rounding to f32).

    The op definitions record kind changes that no patch does: `kthvalue.k` became Int64
    in Paddle 3.1's definitions (version 2) while the patch that converts it is 3.yaml.
    Going down, an old reader expects the old kind whichever patch moved it, so the
    definitions of the target version decide.  A value that does not convert (an Int64
    beyond Int32) is refused, listing every such op.
    """
    from .op_actions import retype_array
    from .paddle_kinds import convert_attr
    problems = []
    for op in program.walk():
        spec = getattr(type(op), "spec", None)
        if spec is None:
            continue
        attributes = op.attributes
        for a in spec.attributes:
            value = attributes.get(a.name)
            if value is None:
                continue
            try:
                if a.type in _CONCRETE:
                    new = convert_attr(value, a.type)
                elif a.type.startswith("array<") and a.type[6:-1] in _CONCRETE:
                    new = retype_array(value, a.type[6:-1])
                else:
                    continue
            except (ValueError, TypeError) as e:
                problems.append(Problem(op, f"op definitions of version {version}", f"{a.name} -> {a.type}",
                                        str(e)))
                continue
            if new is not value:
                attributes[a.name] = new
    if problems:
        raise StepRefused(f"cannot downgrade to version {version}: {len(problems)} attribute"
                          f"{'s do' if len(problems) != 1 else ' does'} not fit the kind that "
                          f"version expects", problems, program)


def check_ops_exist(program, version: int) -> None:
    """Refuse ops that pirc knows but that do not exist at `version` (an old reader fails)."""
    from ..ir.specs import all_op_names
    known = all_op_names()
    problems = []
    for op in program.walk():
        if op is program.module or op.name not in known:
            continue
        try:
            spec = get_spec(op.name, version)
        except ValueError:
            return
        if spec is None:
            problems.append(Problem(op, "op definitions", "downgrade",
                                    f"{op.name} does not exist at version {version}"))
    if problems:
        raise StepRefused(f"cannot downgrade to version {version}: {len(problems)} op"
                          f"{'s' if len(problems) != 1 else ''} did not exist then", problems, program)
