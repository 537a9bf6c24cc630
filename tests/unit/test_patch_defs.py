"""Versioned op definitions and patches agree: for every patch N in patches/ and every op it
touches that is defined at N-1 and N, a program valid at N-1 upgraded by step N is valid at N.

The programs are built from the definitions themselves (one op, fed by pd_op.data values,
its attributes at their defaults or synthesized from their kinds), so every op a patch
names is exercised, including the ones no CPU wheel can build (tests/fixtures/patchops
has the Paddle-made programs).  The patches are pirc's: Paddle's N.yaml with pirc's layer
patches/pirc/N.yaml merged over it, which also repairs the two places where Paddle's patch 4
disagrees with Paddle's definitions (moe_permute's new result, moe_unpermute's extra
attribute).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pirc.ir import attrs as A
from pirc.ir import types as T
from pirc.ir.builder import append_op
from pirc.ir.ops import null_value
from pirc.ir.program import Program
from pirc.ir.registry import op_class
from pirc.ir.specs import get_spec
from pirc.ir.verifier import collect_problems
from pirc.versioning.defdiff import diff_versions
from pirc.versioning.patch_sets import load_patch_set
from pirc.versioning.upgrade import upgrade

ROOT = Path(__file__).resolve().parents[2]
PATCHES = load_patch_set(ROOT / "patches")

_F32 = T.ELEMENT_TYPES["f32"]


def _tensor():
    return T.DenseTensorType.make(_F32, (2, 3))


def _scalar(kind: str, default):
    if kind == "bool":
        return A.bool_attr(bool(default) if default is not None else False)
    if kind in ("int32", "int64", "index"):
        value = default if isinstance(default, int) and not isinstance(default, bool) else 1
        return A.make_scalar(kind, value)
    if kind in ("float", "double"):
        value = float(default) if isinstance(default, (int, float)) else 0.5
        return A.float_attr(value, double=kind == "double")
    if kind == "str":
        return A.str_attr(default if isinstance(default, str) else "NCHW")
    if kind == "dtype":
        return A.dtype_attr("float32")
    if kind == "place":
        return A.place_attr(1)
    if kind == "int_array":
        return A.int_array_attr(tuple(default) if isinstance(default, tuple) else (1,))
    if kind == "scalar":
        return A.float_attr(1.0, double=True)
    return None


def attribute_for(spec_attr):
    """An attribute of the spec's kind: its default when it has a plain one, else a value."""
    kind, default = spec_attr.type, spec_attr.default if spec_attr.has_default else None
    if kind.startswith("array"):
        inner = kind[6:-1] if kind.startswith("array<") else None
        # Two elements unless the default has some: an empty array fits every array kind,
        # which would hide a retype of its elements.
        values = default if isinstance(default, tuple) and default else (None, None)
        if inner is None:
            return A.array_attr(())
        return A.array_attr(_scalar(inner, v) for v in values)
    if kind == "any":
        return A.str_attr("x")
    return _scalar(kind, default)


def program_with(name: str, version: int) -> Program:
    """A program valid at `version` holding one `name` op fed by pd_op.data values."""
    spec = get_spec(name, version)
    program = Program(version=version)
    block = program.block
    data_spec = get_spec("pd_op.data", version)

    def data(i):
        attrs = {a.name: attribute_for(a) for a in data_spec.attributes if not a.optional}
        attrs["name"] = A.str_attr(f"in{i}")
        op = append_op(op_class("pd_op.data", version), [], [_tensor()], attrs, block)
        return op.results[0]

    operands = []
    for i, o in enumerate(spec.operands):
        if o.type in ("tensor", "any"):
            operands.append(data(i))
        elif o.type == "vec<tensor>":
            combine = append_op(op_class("builtin.combine", version), [data(i)],
                                [T.VectorType.make([_tensor()])], {}, block)
            operands.append(combine.results[0])
        elif o.optional:
            operands.append(null_value())
        else:
            pytest.skip(f"{name}: operand {o.name} of type {o.type} is not synthesized")
    attributes = {a.name: attribute_for(a) for a in spec.attributes if not a.optional}
    results = [_tensor() for _ in spec.results]
    append_op(op_class(name, version), operands, results, attributes, block)
    return program


def touched():
    for n in sorted(v for v in PATCHES.files if v > 1):
        for patch in PATCHES.files[n].op_patches:
            yield n, patch.op_name


CASES = [(n, op) for n, op in touched()]


@pytest.mark.parametrize("n,op", CASES, ids=[f"{n}-{op}" for n, op in CASES])
def test_patch_step_keeps_programs_valid(n, op):
    if get_spec(op, n - 1) is None or get_spec(op, n) is None:
        pytest.skip(f"{op} has no definition at {n - 1} and {n} (not in pirc's dialects)")
    program = program_with(op, n - 1)
    assert [str(p) for p in collect_problems(program, strict=True)] == []
    if any(c.op == op and c.breaking for c in diff_versions(n - 1, n)):
        # Not vacuous: read at N without the patch, the same op does not verify.
        unpatched = program_with(op, n - 1)
        unpatched.version = n
        assert [p for p in collect_problems(unpatched)
                if "built with the definition" not in str(p)], f"{op}: nothing to patch?"
    upgrade(program, target=n)
    assert program.version == n
    assert [str(p) for p in collect_problems(program, strict=True)] == []


def test_every_patched_op_pirc_defines_is_exercised():
    ops = {op for _, op in CASES if get_spec(op, 1) is not None or get_spec(op, 4) is not None}
    assert {"pd_op.pool2d", "pd_op.kthvalue", "pd_op.repeat_interleave", "pd_op.leaky_relu",
            "pd_op.bicubic_interp", "pd_op.moe_permute"} <= ops
    assert "onednn_op.fused_softplus" not in ops  # pirc has no oneDNN dialect


def test_a_step_really_changes_what_the_old_definition_allowed():
    """The builder is not vacuous: a version-3 leaky_relu is invalid at 4 until patched."""
    program = program_with("pd_op.leaky_relu", 3)
    program.version = 4
    problems = [str(p) for p in collect_problems(program)]
    assert any("negative_slope is float, expects double" in p for p in problems)
