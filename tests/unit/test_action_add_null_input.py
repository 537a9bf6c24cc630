"""add_null_input, one action in one module (pirc/versioning/actions/add_null_input.py):
its schema, rewrite, inverse, explanation, definition check and coverage, each through the
registry as the reader, compiler, downgrade, explain and check ask for them."""

from __future__ import annotations

import pirc
from pirc.ir.ops import is_null_value
from pirc.versioning.actions import add_null_input as module
from pirc.versioning.actions.registry import accepted, lookup
from pirc.versioning.compiler import compile_patch
from pirc.versioning.covered import CoverScope
from pirc.versioning.defdiff import DefChange
from pirc.versioning.downgrade import compile_inverse
from pirc.versioning.explain import explain_patch
from pirc.versioning.schema import parse_patch_text
from pirc.versioning.step_context import StepContext, StepRefused

import pytest

PATCH = """op_patches:
  - op_name : pd_op.instance_norm_grad
    actions:
      - action : add_null_input
        object : 2
"""
DATA = ('(%{n}) = "pd_op.data" () {{dtype:(pd_op.DataType)float32,name:"in{n}",'
        'place:Place(cpu),shape:(pd_op.IntArray)[1]}} : () -> tensor<2x3xf32>')
T = "tensor<2x3xf32>"


def grad_program(operands: int):
    body = [DATA.format(n=i) for i in range(operands)]
    body.append(f'(%10, %11, %12) = "pd_op.instance_norm_grad" '
                f'({", ".join(f"%{i}" for i in range(operands))}) {{epsilon:(Float)1e-05}} : '
                f'({", ".join([T] * operands)}) -> {T}, {T}, {T}')
    p = pirc.parse("pir.version 1\n{\n" + "\n".join(body) + "\n}\n")
    return p, next(op for op in p.walk() if op.name == "pd_op.instance_norm_grad")


def test_it_registers_from_its_own_module_after_paddles_actions():
    act = lookup("op_patches", "add_null_input")
    assert type(act).__module__ == module.__name__
    assert (act.object, act.type, act.data, act.origin, act.operand_delta) == ("index", None, None, "pirc", 1)
    names = list(accepted("op_patches"))
    assert names.index("add_null_input") == names.index("attr_to_input") - 1


def test_the_schema_it_declares_is_what_the_reader_checks():
    patch, errors = parse_patch_text(PATCH, "p.yaml")
    assert errors == [] and patch.op_patches[0].actions[0].object == 2
    _, errors = parse_patch_text(PATCH + "        type : pir::DenseTensorType\n", "p.yaml")
    assert [str(e) for e in errors] == [
        "p.yaml:6: error: pd_op.instance_norm_grad: add_null_input: takes no `type`"]
    _, errors = parse_patch_text(PATCH.replace("object : 2", "data : 2"), "p.yaml")
    assert [str(e) for e in errors] == [
        "p.yaml:4: error: pd_op.instance_norm_grad: add_null_input: needs `object:` (an index (0, 1, ...))"]


def test_the_check_wants_an_optional_operand_of_the_new_definition():
    _, errors = parse_patch_text(PATCH, "2.yaml", version=2)
    assert errors == []
    _, errors = parse_patch_text(PATCH.replace("object : 2", "object : 0"), "2.yaml", version=2)
    assert len(errors) == 1 and "operand 0 (x) is required" in str(errors[0])
    assert "only an optional operand can be a <<NULL VALUE>>" in str(errors[0])


def test_it_explains_itself():
    patch, _ = parse_patch_text(PATCH, "p.yaml")
    assert explain_patch(patch)[1:] == [
        "pd_op.instance_norm_grad: takes <<NULL VALUE>> as a new optional operand #2 (old form only)"]


def test_it_inserts_a_null_value_on_the_old_form_only_and_its_inverse_takes_it_out():
    patch, _ = parse_patch_text(PATCH, "2.yaml", version=2)
    step = compile_patch(patch, 1, 2)
    (forward,) = step.op_patterns[0].actions
    assert (type(forward), forward.index, forward.before) == (module.AddNullInput, 2, 5)
    p, grad = grad_program(5)
    step.run(p)
    assert len(grad.operands) == 6 and is_null_value(grad.operands[2])
    compile_patch(patch, 1, 2).run(p)  # the new form already: left alone
    assert len(grad.operands) == 6
    compile_inverse(patch, 2, 1).run(p)
    assert len(grad.operands) == 5 and not any(is_null_value(v) for v in grad.operands)


def test_the_inverse_refuses_a_real_value_there():
    p, grad = grad_program(6)
    undo = module.RemoveNullInput(2, 6, "2.yaml:4")
    ctx = StepContext(2, 1, "inverse")
    assert not undo.apply(grad, ctx)
    assert [x.message for x in ctx.problems] == [
        "operand 2 holds a value; the older version has no such operand"]
    patch, _ = parse_patch_text(PATCH, "2.yaml", version=2)
    with pytest.raises(StepRefused, match="undo add_null_input 2"):
        compile_inverse(patch, 2, 1).run(p)


def test_it_covers_as_many_added_optional_operands_as_it_inserts():
    act = lookup("op_patches", "add_null_input")
    patch, _ = parse_patch_text(PATCH, "p.yaml")
    actions = patch.op_patches[0].actions
    op = "pd_op.instance_norm_grad"
    one = DefChange(op, "operand_added", "saved_mean", 2, None, "tensor optional")
    two = DefChange(op, "operand_added", "saved_var", 3, None, "tensor optional")
    required = DefChange(op, "operand_added", "y", 2, None, "tensor")
    assert act.covers(one, op, actions[0], CoverScope(actions, (one,)))
    assert not act.covers(one, op, actions[0], CoverScope(actions, (one, two)))
    assert not act.covers(required, op, actions[0], CoverScope(actions, (required,)))
