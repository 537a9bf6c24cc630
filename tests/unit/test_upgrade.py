"""The patch compiler, the version planner, upgrade and downgrade, action by action."""

from __future__ import annotations

from pathlib import Path

import pytest

import pirc
from pirc.errors import PatchError, PircError, VersionError
from pirc.ir.equality import program_differences
from pirc.ir.registry import op_class
from pirc.versioning.compiler import (
    AttrKindPattern,
    OpPairPattern,
    OpPatchPattern,
    TypeKindPattern,
    compile_patch,
)
from pirc.versioning.downgrade import compile_inverse
from pirc.versioning.model import (
    Action,
    AttrKindPatch,
    AttrValue,
    OpPairPatch,
    OpPatch,
    PatchFile,
    PatchSet,
    TypeKindPatch,
)
from pirc.versioning.planner import PlanError, make_plan
from pirc.versioning.step_context import StepRefused
from pirc.versioning.upgrade import load_patches

ROOT = Path(__file__).resolve().parents[2]
PADDLE_TEST_CHAIN = ROOT / "tests" / "lit" / "upgrade" / "Inputs" / "paddle-test-chain"


def program(body: str, version: int = 3):
    return pirc.parse(f"pir.version {version}\n{{\n{body}\n}}\n")


def text(p) -> str:
    return pirc.to_text(p)


def op_named(p, name):
    return next(op for op in p.walk() if op.name == name)


def step(*op_patches, pairs=(), attr_kinds=(), type_kinds=(), version=4):
    return PatchFile("t.yaml", version, tuple(op_patches), tuple(pairs), tuple(attr_kinds),
                     tuple(type_kinds))


def act(action, obj=None, **kw):
    return Action(action, obj, line=7, **kw)


LEAKY = ('    (%0) = "pd_op.data" () {dtype:(pd_op.DataType)float32,name:"x",place:Place(undefined:0),'
         'shape:(pd_op.IntArray)[2],stop_gradient:[true]} : () -> tensor<2xf32>\n'
         '    (%1) = "pd_op.leaky_relu" (%0) {negative_slope:(Float)0.02,stop_gradient:[false]} : '
         '(tensor<2xf32>) -> tensor<2xf32>')


# -- compilation --------------------------------------------------------------------------


def test_one_rewrite_pattern_per_op_pair_attr_kind_and_type_kind():
    patch = step(OpPatch("pd_op.a", (act("delete_attr", "x"),)),
                 OpPatch("pd_op.b", (act("delete_attr", "y"), act("delete_attr", "z"))),
                 pairs=[OpPairPatch("t.p", "t.c", (act("delete_value", (0, 0)),))],
                 attr_kinds=[AttrKindPatch("pir::FloatAttribute",
                                           (act("modify_name", new_name="pir::DoubleAttribute"),))],
                 type_kinds=[TypeKindPatch("pir::Float32Type",
                                           (act("modify_name", new_name="pir::Float64Type"),))])
    compiled = compile_patch(patch)
    kinds = [type(p) for p in compiled.patterns()]
    assert kinds == [OpPairPattern, OpPatchPattern, OpPatchPattern, AttrKindPattern, TypeKindPattern]
    assert [len(p.actions) for p in compiled.op_patterns] == [1, 2]


def test_compile_errors_name_file_line_and_action():
    patch = step(type_kinds=[TypeKindPatch("pir::DenseTensorType", (act("add_type_attr", 5),))])
    with pytest.raises(PatchError) as e:
        compile_patch(patch)
    assert e.value.filename == "t.yaml" and e.value.line == 7
    assert "add_type_attr" in str(e.value) and "Paddle never implemented it" in str(e.value)


def test_shipped_patches_compile():
    # How fast is tools/bench_upgrade.py's business, not a test's (docs/PERFORMANCE.md).
    patches = load_patches()
    for n in (2, 3, 4):
        assert compile_patch(patches.files[n]).op_patterns


# -- op actions ---------------------------------------------------------------------------


def upgraded(p, patch, walker=False):
    compiled = compile_patch(patch)
    (compiled.run_with_walker if walker else compiled.run)(p)
    return p


def test_modify_attr_float_to_double_keeps_the_f32_value_exactly():
    p = upgraded(program(LEAKY), step(OpPatch("pd_op.leaky_relu", (
        act("modify_attr", "negative_slope", value=AttrValue("pir::DoubleAttribute")),))))
    assert "negative_slope:(Double)0.019999999552965164" in text(p)


def test_an_op_a_step_changes_takes_the_op_class_of_the_new_version():
    p = program(LEAKY)
    assert type(op_named(p, "pd_op.leaky_relu")) is op_class("pd_op.leaky_relu", 3)
    upgraded(p, step(OpPatch("pd_op.leaky_relu", (
        act("modify_attr", "negative_slope", value=AttrValue("pir::DoubleAttribute")),))))
    assert type(op_named(p, "pd_op.leaky_relu")) is op_class("pd_op.leaky_relu", 4)
    assert op_class("pd_op.leaky_relu", 3) is not op_class("pd_op.leaky_relu", 4)


def test_modify_attr_with_data_replaces_and_array_element_types_keep_values():
    p = program('    () = "t.op" () {a:(Int32)1,b:[(Int32)3,(Int32)4,(Int32)5],s:"old"} : () -> ')
    upgraded(p, step(OpPatch("t.op", (
        act("modify_attr", "a", value=AttrValue("pir::Int64Attribute", 9, True)),
        # Paddle's form: the element types of the listed elements (only the first counts).
        act("modify_attr", "b", value=AttrValue("pir::ArrayAttribute", None, False,
                                                (AttrValue("pir::Int64Attribute"),))),
        act("modify_attr", "s", value=AttrValue("pir::StrAttribute", "new", True)),
        act("modify_attr", "absent", value=AttrValue("pir::Int64Attribute", 1, True)),
    ))))
    assert "{a:(Int64)9,b:[(Int64)3,(Int64)4,(Int64)5],s:\"new\"}" in text(p)


def test_modify_attr_that_cannot_keep_the_value_is_refused_naming_the_op():
    p = program('    () = "t.op" () {a:(Float)1.5} : () -> ')
    with pytest.raises(StepRefused) as e:
        upgraded(p, step(OpPatch("t.op", (act("modify_attr", "a", value=AttrValue("pir::Int32Attribute")),))))
    assert "1 op blocks it\n  ops[0] t.op (line 3): modify_attr a -> int32 (t.yaml:7)" in str(e.value)
    assert "not a whole number" in str(e.value)


def test_add_attr_keeps_the_files_value_and_delete_and_rename_attr():
    p = program('    () = "t.op" () {keep:(Int64)5,gone:true,old:"v"} : () -> \n'
                '    () = "t.op" () {} : () -> ')
    upgraded(p, step(OpPatch("t.op", (
        act("add_attr", "keep", value=AttrValue("pir::Int64Attribute", -1, True)),
        act("delete_attr", "gone"),
        act("modify_attr_name", "old", new_name="new"),
    ))))
    first, second = [op for op in p.walk()][1:]
    assert text(p).count("keep:(Int64)") == 2
    assert first.attributes["keep"].value.data == 5 and second.attributes["keep"].value.data == -1
    assert "gone" not in first.attributes and list(first.attributes) == ["keep", "new"]


def test_output_attr_actions_and_a_bool_written_onto_a_result_flag_array():
    p = program('    (%0, %1) = "t.op" () {stop_gradient:[true,true]} : () -> f32, f32')
    upgraded(p, step(OpPatch("t.op", (
        act("modify_output_attr", "stop_gradient", value=AttrValue("pir::BoolAttribute", False, True)),
        act("add_output_attr", "persistable", value=AttrValue(
            "pir::ArrayAttribute", None, True, (AttrValue("pir::BoolAttribute", True, True),) * 2)),
    ))))
    assert "{persistable:[true,true],stop_gradient:[false,false]}" in text(p)


def test_add_output_delete_input_modify_output_type_and_rename():
    p = program('    (%0) = "t.src" () {} : () -> f32\n'
                '    (%1) = "t.op" (%0, %0) {stop_gradient:[true]} : (f32, f32) -> f32')
    upgraded(p, step(OpPatch("t.op", (
        act("add_output", 1, type_name="pir::DenseTensorType",
            type_data=("pir::Float32Type", (-1, 30), "NCHW", (), 0)),
        act("delete_input", 0),
        act("modify_output_type", 0, type_name="pir::Int64Type"),
        act("modify_name", new_name="t.renamed"),
    ))))
    assert '(%1, %2) = "t.renamed" (%0) {stop_gradient:[true,true]} : (f32) -> i64, tensor<-1x30xf32>' in text(p)


def test_add_output_is_idempotent_and_refuses_a_gap():
    patch = step(OpPatch("t.op", (act("add_output", 1, type_name="pir::Int32Type"),)))
    p = program('    (%0) = "t.op" () {} : () -> f32')
    upgraded(p, patch)
    once = text(p)
    upgraded(p, patch)
    assert text(p) == once and once.count("i32") == 1
    with pytest.raises(StepRefused, match="would leave a gap"):
        upgraded(program('    () = "t.op" () {} : () -> '), patch)


# -- op pairs ---------------------------------------------------------------------------


def test_add_value_connects_each_consumer_to_its_own_producer():
    p = program('    (%0) = "t.p" () {} : () -> f32\n'
                '    (%1) = "t.c" (%0) {} : (f32) -> f32\n'
                '    (%2) = "t.p" () {} : () -> f32\n'
                '    (%3) = "t.src" () {} : () -> f32\n'
                '    (%4) = "t.c" (%3) {} : (f32) -> f32')
    patch = step(pairs=[OpPairPatch("t.p", "t.c", (act("add_value", (1, 1), type_name="pir::Int32Type"),))])
    upgraded(p, patch)
    once = text(p)
    # the first consumer is fed by the first producer: that one; the second is fed by no
    # producer: the nearest one before it
    assert '(%0, %1) = "t.p"' in once and '"t.c" (%0, %1) {} : (f32, i32)' in once
    assert '(%3, %4) = "t.p"' in once and '"t.c" (%5, %4) {} : (f32, i32)' in once
    upgraded(p, patch)
    assert text(p) == once  # idempotent


def test_add_value_refuses_a_consumer_without_producer():
    p = program('    (%0) = "t.c" () {} : () -> f32')
    patch = step(pairs=[OpPairPatch("t.p", "t.c", (act("add_value", (0, 0), type_name="pir::Int32Type"),))])
    with pytest.raises(StepRefused, match="no t.p feeds or precedes it"):
        upgraded(p, patch)


def test_delete_value_removes_both_ends_and_refuses_other_uses():
    body = ('    (%0, %1) = "t.p" () {} : () -> f32, i32\n'
            '    (%2) = "t.c" (%0, %1) {} : (f32, i32) -> f32')
    patch = step(pairs=[OpPairPatch("t.p", "t.c", (act("delete_value", (1, 1)),))])
    p = upgraded(program(body), patch)
    assert '(%0) = "t.p"' in text(p) and '"t.c" (%0)' in text(p)
    shared = body + '\n    (%3) = "t.other" (%1) {} : (i32) -> f32'
    with pytest.raises(StepRefused, match=r"result 1 is also used by t.other \(operand 0\)"):
        upgraded(program(shared), patch)


# -- kind renames reach everything --------------------------------------------------------


def test_attr_kind_rename_reaches_nested_arrays_and_regions():
    p = program('    (%0) = "t.op" () {a:(Float)0.5,b:[[(Float)1.5]]} : () -> f32\n'
                '    () = "t.holder" () {} : () ->  ({\n'
                '        () = "t.inner" () {c:(Float)2.5} : () -> \n'
                '    })')
    upgraded(p, step(attr_kinds=[AttrKindPatch("pir::FloatAttribute", (
        act("modify_name", new_name="pir::DoubleAttribute"),))]))
    out = text(p)
    assert "(Float)" not in out
    assert "a:(Double)0.5,b:[[(Double)1.5]]" in out and "c:(Double)2.5" in out


def test_type_kind_rename_reaches_vec_elements_tensor_dtypes_and_block_args():
    p = program('    (%0) = "t.op" () {t:(Type)vec[tensor<2xf32>,f16]} : () -> tensor<2xf32>\n'
                '    (%1) = "t.vec" () {} : () -> vec[tensor<3xf32>,f32]\n'
                '    () = "t.holder" () {} : () ->  ({\n'
                '        ^%a0 : tensor<4xf32>\n'
                '        () = "t.use" (%a0) {} : (tensor<4xf32>) -> \n'
                '    })')
    upgraded(p, step(type_kinds=[TypeKindPatch("pir::Float32Type", (
        act("modify_name", new_name="pir::Float64Type"),))]))
    out = text(p)
    assert "f32" not in out
    assert "(Type)vec[tensor<2xf64>,f16]" in out and "vec[tensor<3xf64>,f64]" in out
    assert "(tensor<4xf64>)" in out


def test_walker_route_and_fast_path_give_the_same_program():
    """The patterns are real xDSL RewritePatterns: PatternRewriteWalker gives what the
    single-walk fast path gives, on Paddle's own test patches (pairs, renames, kinds)."""
    patches = load_patches(PADDLE_TEST_CHAIN)
    a, b = paddle_test_program(), paddle_test_program()
    for n, before in ((2, 1), (0, 2)):
        compile_patch(patches.files[n], before, n).run(a)
        compile_patch(patches.files[n], before, n).run_with_walker(b)
    assert program_differences(a, b) == []
    assert [type(op) for op in a.walk()] == [type(op) for op in b.walk()]


# -- Paddle's own test patches (save_load_version_compat_test.cc) ---------------------------


def paddle_test_program():
    return program(
        '    (%0) = "builtin.parameter" () {is_distributed:[false],is_parameter:[true],need_clip:[true],'
        'parameter_name:"a",persistable:[true],stop_gradient:[true],trainable:[true]} : () -> f32\n'
        '    (%1) = "builtin.constant" () {value:(Float)2.0} : () -> f32\n'
        '    (%2) = "test.operation1" () {op1_attr1:"op1_attr1",op1_attr2:"op1_attr2"} : () -> f32\n'
        '    () = "test.operation2" () {} : () -> \n'
        '    (%3, %4) = "test1.operation4" () {} : () -> f32, f32\n'
        '    (%5) = "test1.operation3" (%3, %4) {} : (f32, f32) -> f32\n'
        '    (%6) = "test1.operation1" () {} : () -> f32\n'
        '    (%7) = "test1.operation2" () {} : () -> f32', version=1)


def test_paddle_test_patches_give_what_paddles_own_test_asserts():
    p = pirc.upgrade(paddle_test_program(), patch_dir=str(PADDLE_TEST_CHAIN))
    assert p.version == 0
    ops = [op for op in p.walk()][1:]
    param, const, op1, op2, op4, op3, op1b, op2b = ops
    # attribute_patch_test1
    assert param.attributes["parameter_name"].data == "fc_0"
    assert text(p).count("stop_gradient:[false]") == 1
    assert "value:(Double)1.0" in text(p)
    assert str(param.results[0].type) == str(const.results[0].type) == "f64"
    # op_patch_test1: renamed, attributes, added output with its attribute
    assert op1.name == "test1.operation1"
    assert {k: v.data for k, v in op1.attributes.items()} == {
        "op1_attr1": "op1_attr1_value", "op1_attr3": "op1_attr3_value"}
    assert len(op2.results) == 1 and op2.attributes["op2_attr1"].data == "op2_attr1_value"
    # op_patch_test2: pair delete_value [0,0] plus delete_input 0 empty operation3
    assert len(op4.results) == 1 and len(op3.operands) == 0
    # op_patch_test3: pair add_value [1,0]
    assert len(op1b.results) == 2 and len(op2b.operands) == 1
    assert op2b.operands[0] is op1b.results[1]
    # Where pirc differs: Paddle drops 0.yaml's parameter add_attr (its merge bug).
    assert param.attributes["new_attribute"].data == "new.attribute"


# -- planner ------------------------------------------------------------------------------


def fake_set(release=4, develop=False, files=(1, 2, 3, 4)):
    return PatchSet("DIR", release, develop, {n: PatchFile(f"{n}.yaml", n) for n in files})


def test_plan_applies_v_plus_1_to_t_and_develop_last():
    plan = make_plan(1, None, fake_set())
    assert [(s.from_version, s.to_version) for s in plan.steps] == [(1, 2), (2, 3), (3, 4)]
    assert make_plan(4, None, fake_set()).steps == ()
    dev = fake_set(develop=True, files=(0, 1, 2, 3, 4))
    plan = make_plan(3, None, dev)
    assert plan.target == 0 and [(s.from_version, s.to_version) for s in plan.steps] == [(3, 4), (4, 0)]
    down = make_plan(0, 2, dev)
    assert [(s.from_version, s.to_version, s.inverse) for s in down.steps] == [
        (0, 4, True), (4, 3, True), (3, 2, True)]


def test_plan_refusals_name_both_versions():
    with pytest.raises(PlanError, match=r"has no 3.yaml \(the step 2 -> 3\)"):
        make_plan(1, 4, fake_set(files=(1, 2, 4)))
    with pytest.raises(PlanError, match="version 0, a develop build's"):
        make_plan(0, None, fake_set())
    with pytest.raises(PlanError, match="cannot reach version 0 .* has no develop patch"):
        make_plan(1, 0, fake_set())
    with pytest.raises(PlanError, match="cannot reach version 9 from version 1"):
        make_plan(1, 9, fake_set())
    with pytest.raises(PlanError, match="version 6, newer than"):
        make_plan(6, None, fake_set())


def test_a_missing_step_names_the_first_op_that_needed_it():
    p = program(LEAKY)
    with pytest.raises(PlanError) as e:
        make_plan(3, 4, fake_set(files=(1, 2, 3)), p)
    assert "has no 4.yaml" in str(e.value) and "ops[1] pd_op.leaky_relu" in str(e.value)


def test_upgrade_twice_changes_nothing_and_upgrade_refuses_to_go_down():
    p = program(LEAKY, version=1)
    pirc.upgrade(p)
    once = text(p)
    pirc.upgrade(p)
    assert text(p) == once
    with pytest.raises(VersionError, match="use downgrade"):
        pirc.upgrade(p, 2)


# -- downgrade ----------------------------------------------------------------------------


def test_downgrade_restores_old_kinds_and_removes_added_defaults():
    p = program(LEAKY + '\n    (%2) = "pd_op.repeat_interleave" (%1) {axis:(Int32)0,output_size:(Int64)-1,'
                        'repeats:(Int32)2,stop_gradient:[false]} : (tensor<2xf32>) -> tensor<4xf32>',
                version=4)
    p.version = 4
    pirc.downgrade(p, 2)
    out = text(p)
    assert "negative_slope:(Float)0.02" in out and "output_size" not in out
    assert type(op_named(p, "pd_op.leaky_relu")) is op_class("pd_op.leaky_relu", 2)
    pirc.verify(p)


def test_downgrade_refuses_what_it_cannot_undo_listing_every_op():
    data = ('    (%0) = "pd_op.data" () {dtype:(pd_op.DataType)float32,name:"x",place:Place(undefined:0),'
            'shape:(pd_op.IntArray)[2],stop_gradient:[true]} : () -> tensor<2xf32>\n')
    interleave = ('    (%{n}) = "pd_op.repeat_interleave" (%0) {{axis:(Int32)0,output_size:(Int64){size},'
                  'repeats:(Int32)2,stop_gradient:[false]}} : (tensor<2xf32>) -> tensor<4xf32>\n')
    p = program(data + interleave.format(n=1, size=4) + interleave.format(n=2, size=-1)
                + interleave.format(n=3, size=6), version=4)
    with pytest.raises(PircError) as e:
        pirc.downgrade(p, 1)
    message = str(e.value)
    assert "cannot be applied: 2 ops block it" in message
    assert "ops[1] pd_op.repeat_interleave (line 4): undo add_attr output_size" in message
    assert "output_size is (Int64)4, not the default (Int64)-1 the patch adds" in message
    assert "ops[3] pd_op.repeat_interleave (line 6)" in message and "ops[2]" not in message


def test_downgrade_refuses_a_value_the_old_kind_cannot_hold():
    p = program('    (%0) = "pd_op.data" () {dtype:(pd_op.DataType)float32,name:"x",place:Place(undefined:0),'
                'shape:(pd_op.IntArray)[2],stop_gradient:[true]} : () -> tensor<2xf32>\n'
                '    (%1, %2) = "pd_op.kthvalue" (%0) {axis:(Int32)0,k:(Int64)5000000000,keepdim:false,'
                'stop_gradient:[false,false]} : (tensor<2xf32>) -> tensor<f32>, tensor<i64>', version=4)
    with pytest.raises(PircError) as e:
        pirc.downgrade(p, 1)
    # pirc's layer (patches/pirc/2.yaml) retypes k at step 2, where the definitions changed,
    # so undoing that step is what refuses.
    assert "ops[1] pd_op.kthvalue (line 4): modify_attr k -> int32" in str(e.value)
    assert "pirc/2.yaml:" in str(e.value)
    assert "does not fit int32" in str(e.value)


def test_inverse_refusals_for_unknown_old_values():
    patch = step(OpPatch("t.op", (act("delete_attr", "x"), act("delete_input", 0))))
    inverse = compile_inverse(patch, 4, 3)
    p = program('    () = "t.op" () {} : () -> ', version=4)
    with pytest.raises(StepRefused) as e:
        inverse.run(p)
    assert "delete_input 0 (t.yaml:7): the removed operand is unknown" in str(e.value)
    assert "delete_attr x (t.yaml:7): the deleted value is unknown" in str(e.value)
    # an op the patch does not touch is not refused
    inverse.run(program('    () = "t.other" () {} : () -> ', version=4))
