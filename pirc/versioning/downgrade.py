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
from . import paddle_kinds as PK
from .compiler import (
    AttrKindPattern,
    CompiledStep,
    OpPairPattern,
    OpPatchPattern,
    TypeKindPattern,
    _Compiler,
    _file_label,
    type_rename,
)
from .kind_actions import op_holds_attr_kind, op_holds_type
from .model import PatchFile
from .op_actions import (
    AddAttr,
    AddNullInput,
    AddOutput,
    AttrToInput,
    ConvertAttr,
    DeleteAddedAttr,
    InputToAttr,
    Nothing,
    OpAction,
    RemoveNullInput,
    Refuse,
    RemoveOutput,
    RenameAttr,
    RenameOp,
    RetypeArray,
)
from .pair_actions import AddValue, DeleteValue
from .step_context import Problem, StepRefused


def compile_inverse(patch: PatchFile, from_version: int, to_version: int) -> CompiledStep:
    """The step that undoes `patch`: a program of `from_version` back to `to_version`."""
    step = CompiledStep(patch, from_version, to_version, f"inverse of patch {_file_label(patch)}",
                        inverse=True)
    c = _Compiler(patch, to_version, from_version)
    inv = _Inverter(c, to_version)
    for entry in reversed(patch.type_patches):
        actions = [inv.type_kind(entry.type_name, a) for a in reversed(entry.actions)]
        step.type_kind_patterns.append(TypeKindPattern(step, actions, None, entry.type_name))
    for entry in reversed(patch.attr_patches):
        actions = [inv.attr_kind(entry.attr_type, a) for a in reversed(entry.actions)]
        step.attr_kind_patterns.append(AttrKindPattern(step, actions, None, entry.attr_type))
    for entry in reversed(patch.op_patches):
        forward = [c.op_action(entry.op_name, a) for a in entry.actions]
        final_name = entry.op_name
        for a in forward:
            if isinstance(a, RenameOp):
                final_name = a.new_name
        actions = [inv.op_action(entry.op_name, a, f) for a, f in zip(reversed(entry.actions), reversed(forward))]
        step.op_patterns.append(OpPatchPattern(step, actions, {final_name}, final_name))
        if final_name != entry.op_name:
            reused = _name_reused(entry.op_name, final_name, from_version, to_version,
                                  c.source(entry.actions[0]))
            if reused is not None:
                step.op_patterns.append(OpPatchPattern(step, [reused], {entry.op_name},
                                                       entry.op_name))
    for pair in reversed(patch.op_pair_patches):
        actions = [inv.pair_action(pair.producer, pair.consumer, a) for a in reversed(pair.actions)]
        step.pair_patterns.append(OpPairPattern(step, actions, {pair.producer, pair.consumer},
                                                f"{pair.producer} -> {pair.consumer}"))
    c.raise_errors()
    return step


class _Inverter:
    def __init__(self, compiler: _Compiler, old_version: int):
        self.c = compiler
        self.old_version = old_version

    def op_action(self, op_name: str, a, forward: OpAction) -> OpAction:
        src = forward.source
        kind = a.action
        if isinstance(forward, AddAttr):
            return DeleteAddedAttr(forward.name, forward.value, src, kind)
        if isinstance(forward, (ConvertAttr, RetypeArray)):
            old = self.old_attr_kind(op_name, forward.name)
            if old is None:
                return Refuse(kind, forward.name,
                              f"the kind {forward.name} had before the patch is unknown (no op "
                              f"definition of {op_name} at version {self.old_version} says it)",
                              src, when=_has_attr(forward.name))
            if isinstance(forward, ConvertAttr):
                if old.startswith("array"):
                    return _refuse_kind(kind, forward.name, op_name, old, self.old_version, src)
                return ConvertAttr(forward.name, old, src, kind)
            element = old[len("array<"):-1] if old.startswith("array<") else None
            if element is None:
                return _refuse_kind(kind, forward.name, op_name, old, self.old_version, src)
            return RetypeArray(forward.name, element, src, kind)
        if kind in ("modify_attr", "modify_output_attr"):
            return Refuse(kind, forward.name, "the value before the patch is unknown", src,
                          when=_has_attr(forward.name))
        if kind in ("delete_attr", "delete_output_attr"):
            if self.had_no_attr(op_name, forward.name):
                # The older version has no such attribute either (pirc's layer deletes one
                # that Paddle's patch adds against the definition): nothing to restore.
                return Nothing(kind, src)
            return Refuse(kind, forward.name, "the deleted value is unknown", src)
        if isinstance(forward, RenameAttr):
            return RenameAttr(forward.new_name, forward.name, src, kind)
        if isinstance(forward, AddOutput):
            return RemoveOutput(forward.index, src)
        if kind == "delete_input":
            return Refuse(kind, str(forward.index), "the removed operand is unknown", src)
        if isinstance(forward, AddNullInput):
            return RemoveNullInput(forward.index, forward.before + 1, src)
        if isinstance(forward, AttrToInput):
            old = self.old_attr_kind(op_name, forward.name)
            if old is None:
                return Refuse(kind, forward.name, f"no op definition of {op_name} at version "
                                                  f"{self.old_version} gives the attribute's kind", src)
            return InputToAttr(forward.name, forward.index, forward.before + 1, old, src)
        if kind == "modify_output_type":
            return Refuse(kind, str(forward.index), "the result's type before the patch is unknown", src)
        if isinstance(forward, RenameOp):
            return RenameOp(op_name, src)
        return Refuse(kind, "", "pirc has no inverse for this action", src)

    def had_no_attr(self, op_name: str, attr: str) -> bool:
        from ..ir.specs import get_spec
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

    def pair_action(self, producer: str, consumer: str, a) -> OpAction:
        forward = self.c.pair_action(producer, consumer, a)
        if isinstance(forward, AddValue):
            old = get_spec(producer, self.old_version)
            had_it = (old is not None and not old.variadic_results
                      and len(old.results) > forward.out_index)
            return DeleteValue(producer, consumer, forward.out_index, forward.in_index,
                               forward.source, strict=True, keep_result=had_it)
        if isinstance(forward, DeleteValue):
            return Refuse("delete_value", f"[{forward.out_index}, {forward.in_index}] on "
                                          f"({producer}, {consumer})",
                          "the removed value is unknown", forward.source,
                          when=lambda op, p=producer: op.name == p)
        return forward

    def attr_kind(self, attr_type: str, a) -> OpAction:
        src = self.c.source(a)
        new_type = a.new_name or a.type_name
        new_kind = PK.attribute_kind(new_type) if new_type else None
        return Refuse(f"attr_patches {a.action}", f"{attr_type} -> {new_type}",
                      f"it holds {new_type} attributes, and pirc cannot tell which of them were "
                      f"{attr_type} before the patch", src,
                      when=(lambda op, k=new_kind: op_holds_attr_kind(op, k)) if new_kind else None)

    def type_kind(self, type_name: str, a) -> OpAction:
        src = self.c.source(a)
        new_type = a.new_name or a.type_name
        probe = None
        try:
            probe = type_rename(new_type, None, src) if new_type else None
        except ValueError:
            pass
        return Refuse(f"type_patches {a.action}", f"{type_name} -> {new_type}",
                      f"it holds {new_type} types, and pirc cannot tell which of them were "
                      f"{type_name} before the patch", src,
                      when=(lambda op, p=probe: op_holds_type(op, p)) if probe else None)


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


def _has_attr(name: str):
    return lambda op: name in op.attributes


def _refuse_kind(kind, name, op_name, old, version, src) -> Refuse:
    return Refuse(kind, name, f"{op_name}.{name} is {old} at version {version}; pirc cannot "
                              f"turn the patched value back into that", src, when=_has_attr(name))


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
