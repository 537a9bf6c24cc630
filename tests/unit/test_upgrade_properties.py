"""Properties of upgrade and downgrade on random programs.

* idempotence: upgrading an upgraded program changes nothing, and so does running a
  step again on its own result (for the actions that are idempotent by themselves);
* downgrade(upgrade(P)) == P for programs of the ops pirc's patches touch, with random
  values of the kinds version 1 gives them, and for random invertible patches.
"""

from __future__ import annotations

import struct

from hypothesis import assume, given, settings
from hypothesis import strategies as st

import pirc
from pirc.ir import attrs as A
from pirc.ir import types as T
from pirc.ir.builder import append_op
from pirc.ir.equality import program_differences
from pirc.ir.program import Program
from pirc.ir.registry import op_class
from pirc.ir.specs import get_spec
from pirc.versioning.compiler import compile_patch
from pirc.versioning.downgrade import compile_inverse
from pirc.versioning.model import Action, AttrValue, OpPatch, PatchFile
from pirc.versioning.upgrade import load_patches

SHIPPED = load_patches()
PATCHED_OPS = sorted({e.op_name for n in (2, 3, 4) for e in SHIPPED.files[n].op_patches
                      if e.op_name.startswith("pd_op.") and get_spec(e.op_name, 1) is not None})
OTHER_OPS = ["pd_op.relu", "pd_op.matmul", "pd_op.scale"]
# Ops whose upgrade cannot be undone, by design: the downgrade refuses them
# (tests/unit/test_patch_layers.py checks the refusal).
ONE_WAY = {"pd_op.weight_dequantize": "Paddle 3.1 removed out_dtype; pirc's layer deletes it, "
                                      "so its value is gone after the upgrade"}


def _f32(x: float) -> float:
    return struct.unpack("<f", struct.pack("<f", x))[0]


floats32 = st.floats(width=32, allow_nan=False, allow_infinity=False).map(_f32)
int32s = st.integers(-(2 ** 31), 2 ** 31 - 1)


def attr_of_kind(kind: str):
    if kind == "int32":
        return int32s.map(A.int32_attr)
    if kind == "int64":
        return st.integers(-(2 ** 40), 2 ** 40).map(A.int64_attr)
    if kind == "float":
        return floats32.map(A.float_attr)
    if kind == "double":
        return st.floats(allow_nan=False, allow_infinity=False).map(lambda v: A.float_attr(v, True))
    if kind == "bool":
        return st.booleans().map(A.bool_attr)
    if kind == "str":
        return st.text(max_size=5).map(A.str_attr)
    if kind.startswith("array<"):
        return st.lists(attr_of_kind(kind[6:-1]), max_size=4).map(A.array_attr)
    return None


@st.composite
def version_1_programs(draw):
    """Ops the shipped patches touch (and some they do not), each with every attribute of
    its version-1 definition that has a plain kind, drawn at random."""
    program = Program(version=1)
    block = program.block
    tensor = T.DenseTensorType.make(A.f32, [2, 3])
    for name in draw(st.lists(st.sampled_from(PATCHED_OPS + OTHER_OPS), min_size=1, max_size=8)):
        spec = get_spec(name, 1)
        attributes = {}
        for a in spec.attributes:
            strategy = attr_of_kind(a.type)
            if strategy is not None and draw(st.booleans() | st.just(True)):
                attributes[a.name] = draw(strategy)
        append_op(op_class(name, 1), [], [tensor], attributes, block)
    return program


def clone(program: Program) -> Program:
    return pirc.parse(pirc.to_text(program))


@settings(max_examples=60, deadline=None)
@given(version_1_programs())
def test_upgrade_of_an_upgraded_program_changes_nothing(program):
    pirc.upgrade(program)
    once = clone(program)
    pirc.upgrade(program)
    assert program_differences(once, program) == []
    # a step run again on its own result changes nothing either (Paddle re-applies the
    # patch of a file's own version)
    for n in (2, 3, 4):
        compile_patch(SHIPPED.files[n]).run(program)
    assert program_differences(once, program) == []


@settings(max_examples=60, deadline=None)
@given(version_1_programs())
def test_downgrade_of_an_upgrade_gives_the_program_back(program):
    assume(not any(op.name in ONE_WAY for op in program.walk()))
    original = clone(program)
    pirc.upgrade(program)
    assert program.version == 4
    pirc.downgrade(program, 1)
    assert program.version == 1
    assert program_differences(original, program) == []
    assert [type(op) for op in program.walk()] == [type(op) for op in original.walk()]


# -- random invertible patches on ops no definition knows --------------------------------

# A program valid at version 1 lacks what the patch adds at 2: added attributes are named
# from one set, the program's own (which renames may act on) from another.
added_names = st.sampled_from(["x", "y", "z"])
own_names = st.sampled_from(["a", "b", "c"])


@st.composite
def invertible_patches(draw):
    actions = []
    used = set()
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["add_attr", "modify_attr_name", "add_output", "modify_name"]))
        if kind == "add_attr":
            name = draw(added_names.filter(lambda n: n not in used))
            used.add(name)
            actions.append(Action("add_attr", name, AttrValue("pir::Int64Attribute", draw(st.integers(-5, 5)), True)))
        elif kind == "modify_attr_name":
            old = draw(own_names.filter(lambda n: n not in used))
            used.add(old)
            new = old.upper()
            actions.append(Action("modify_attr_name", old, new_name=new))
        elif kind == "add_output" and not any(a.action == "add_output" for a in actions):
            actions.append(Action("add_output", 1, type_name="pir::Int32Type"))
        elif kind == "modify_name" and not any(a.action == "modify_name" for a in actions):
            actions.append(Action("modify_name", new_name="t.renamed"))
    return PatchFile("random.yaml", 2, (OpPatch("t.op", tuple(actions)),))


@st.composite
def unknown_dialect_programs(draw):
    program = Program(version=1)
    for _ in range(draw(st.integers(1, 4))):
        attributes = {n: A.str_attr(n * 2) for n in draw(st.sets(own_names, max_size=3))}
        append_op(op_class("t.op", 1), [], [A.f32], attributes, program.block)
        append_op(op_class("t.other", 1), [], [], {"a": A.int32_attr(1)}, program.block)
    return program


@settings(max_examples=80, deadline=None)
@given(invertible_patches(), unknown_dialect_programs())
def test_random_invertible_patch_round_trips(patch, program):
    original = clone(program)
    compile_patch(patch, 1, 2).run(program)
    compile_inverse(patch, 2, 1).run(program)
    assert program_differences(original, program) == []
