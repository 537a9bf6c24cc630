"""pirc's patch layer and the coverage it gives (pirc.versioning.layers, coverage,
unmigratable; patches/pirc/, patches/unmigratable.yaml).

Paddle's patch N must stay a subset of pirc's merged patch N; the merged patches must
leave no breaking definition change of pd_op, builtin or cf uncovered; the new actions
(add_null_input, attr_to_input) must upgrade to programs the verifier accepts and
downgrade back; an op with no migration must stop an upgrade before anything changes.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import pirc
from pirc.errors import PircError
from pirc.ir.ops import is_null_value
from pirc.ir.specs import AttrSpec, OperandSpec, OpSpec, ResultSpec
from pirc.ir.verifier import collect_problems
from pirc.versioning import layers
from pirc.versioning.coverage import PADDLE, PIRC, UNCOVERED, UNMIGRATABLE, measure
from pirc.versioning.defdiff import find_renames
from pirc.versioning.planner import PlanError
from pirc.versioning.patch_sets import load_patch_set
from pirc.versioning.schema import load_patch_file, parse_patch_text

ROOT = Path(__file__).resolve().parents[2]
PATCHES = load_patch_set(ROOT / "patches")

DATA = ('(%{n}) = "pd_op.data" () {{dtype:(pd_op.DataType)float32,name:"in{n}",'
        'place:Place(cpu),shape:(pd_op.IntArray)[1]}} : () -> tensor<2x3xf32>')


def program(body: str, version: int, inputs: int = 0):
    lines = [DATA.format(n=i) for i in range(inputs)] + body.strip().splitlines()
    return pirc.parse(f"pir.version {version}\n{{\n" + "\n".join(lines) + "\n}\n")


def problems(p) -> list[str]:
    return [str(x) for x in collect_problems(p, strict=True)]


# -- the layer -----------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_paddles_patch_is_a_subset_of_pircs(n):
    paddle = load_patch_file(ROOT / "patches" / f"{n}.yaml")
    assert layers.is_subset(paddle, PATCHES.files[n])
    assert PATCHES.base_files[n] == paddle


def test_subset_is_not_vacuous():
    """Dropping one of Paddle's actions from the merged patch breaks the subset relation."""
    paddle = load_patch_file(ROOT / "patches" / "4.yaml")
    merged = PATCHES.files[4]
    first = merged.op_patches[0]
    from dataclasses import replace
    cut = replace(merged, op_patches=(replace(first, actions=first.actions[1:]),)
                  + merged.op_patches[1:])
    assert not layers.is_subset(paddle, cut)
    assert len(merged.op_patches) > len(paddle.op_patches)


def test_merge_appends_layer_actions_and_refuses_repeats():
    base, errors = parse_patch_text(
        "op_patches:\n  - op_name : pd_op.pool2d\n    actions:\n      - action : modify_attr\n"
        "        object : strides\n        type : pir::ArrayAttribute<pir::Int64Attribute>\n",
        "2.yaml", 2)
    assert errors == []
    layer, errors = parse_patch_text(
        "op_patches:\n  - op_name : pd_op.pool2d\n    actions:\n      - action : modify_attr\n"
        "        object : paddings\n        type : pir::ArrayAttribute<pir::Int64Attribute>\n"
        "      - action : modify_attr\n        object : strides\n"
        "        type : pir::ArrayAttribute<pir::Int64Attribute>\n"
        "  - op_name : pd_op.kthvalue\n    actions:\n      - action : modify_attr\n"
        "        object : k\n        type : pir::Int64Attribute\n", "pirc/2.yaml", 2)
    assert errors == []
    merged, errors = layers.merge(base, layer)
    assert [str(e) for e in errors] == [
        "pirc/2.yaml:7: error: pd_op.pool2d: modify_attr strides is already in 2.yaml:4; the "
        "layer adds to that patch and cannot repeat or change its actions"]
    pool = merged.op_patches[0]
    assert [(a.object, a.path) for a in pool.actions] == [("strides", None),
                                                          ("paddings", "pirc/2.yaml")]
    assert merged.op_patches[1].op_name == "pd_op.kthvalue"
    assert layers.is_subset(base, merged)


def test_a_folder_without_a_layer_is_read_as_it_is(tmp_path):
    for name in ("1.yaml", "2.yaml", "3.yaml", "4.yaml", "versions.yaml"):
        (tmp_path / name).write_bytes((ROOT / "patches" / name).read_bytes())
    plain = load_patch_set(tmp_path)
    assert plain.files == plain.base_files and plain.layer_files == {}
    assert plain.unmigratable == []


# -- coverage ------------------------------------------------------------------------------------


def test_no_breaking_change_is_left_uncovered():
    cov = measure(PATCHES)
    for dialect in ("pd_op", "builtin", "cf"):
        assert cov.count(UNCOVERED, dialect=dialect) == 0
    assert cov.stale == []
    # Paddle's own patches cover what they covered before the layer; the layer the rest,
    # except ops removed with no successor.
    assert cov.count(PADDLE) == 28
    assert cov.count(PIRC) > 0
    removed = {r.change.op for r in cov.rows if r.status == UNMIGRATABLE}
    assert {"pd_op.moe_dispatch", "pd_op.send_and_recv"} <= removed
    assert all(r.change.kind == "op_removed" for r in cov.rows if r.status == UNMIGRATABLE)


def test_renames_are_found_by_signature_within_a_role():
    def spec(name, attrs):
        return OpSpec(name=name, dialect="pd_op", since=1,
                      operands=(OperandSpec("x", "tensor"),),
                      attributes=tuple(AttrSpec(a, "float") for a in attrs),
                      results=(ResultSpec("out", "tensor"),))
    before = {"pd_op.a": spec("pd_op.a", ["eps"]), "pd_op.b": spec("pd_op.b", ["k"])}
    after = {"pd_op.a": spec("pd_op.a", ["other"]),  # the name now holds another op
             "pd_op.fused_a": spec("pd_op.fused_a", ["eps"]),
             "pd_op.b_grad": spec("pd_op.b_grad", ["k"])}  # same shape, another role
    assert find_renames(before, after) == {"pd_op.a": "pd_op.fused_a"}


# -- the new actions through upgrade and downgrade -----------------------------------------------


def test_nanmedian_grad_takes_the_forward_result_and_gives_it_back():
    p = program('''
    (%1, %2) = "pd_op.nanmedian" (%0) {axis:(pd_op.IntArray)[1],keepdim:false,mode:"avg"} : (tensor<2x3xf32>) -> tensor<2xf32>, tensor<2xi64>
    (%3) = "pd_op.nanmedian_grad" (%0, %2, %1) {axis:(pd_op.IntArray)[1],keepdim:false,mode:"avg"} : (tensor<2x3xf32>, tensor<2xi64>, tensor<2xf32>) -> tensor<2x3xf32>
    ''', version=2, inputs=1)
    assert problems(p) == []
    pirc.upgrade(p, 3)
    assert problems(p) == []
    forward, grad = (op for op in p.walk() if op.name.startswith("pd_op.nanmedian"))
    assert [o.op is forward and o.index for o in grad.operands[1:3]] == [0, 1]
    pirc.downgrade(p, 2)
    assert problems(p) == []
    assert len(grad.operands) == 3 and len(forward.results) == 2


def test_a_null_input_with_a_value_cannot_be_downgraded():
    p = program('''
    (%5, %6, %7) = "pd_op.instance_norm_grad" (%0, %1, %2, %3, %4, %0) {epsilon:(Float)1e-05} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
    ''', version=2, inputs=5)
    with pytest.raises(PircError, match=r"undo add_null_input 2 .*pirc/2.yaml:\d+\): operand 2 "
                                         r"holds a value; the older version has no such operand"):
        pirc.downgrade(p, 1)


def test_an_upgraded_null_input_is_a_null_value():
    p = program('''
    (%5, %6, %7) = "pd_op.instance_norm_grad" (%0, %1, %2, %3, %4) {epsilon:(Float)1e-05} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
    ''', version=1, inputs=5)
    pirc.upgrade(p, 2)
    op = next(op for op in p.walk() if op.name == "pd_op.instance_norm_grad")
    assert [is_null_value(v) for v in op.operands] == [False, False, True, False, False, False]
    assert problems(p) == []


def test_a_moved_attribute_whose_operand_is_computed_cannot_be_downgraded():
    p = program('''
    (%3, %4) = "pd_op.flash_attn_v3_varlen" (%0, %0, %0, %1, %1, <<NULL VALUE>>, <<NULL VALUE>>, <<NULL VALUE>>, <<NULL VALUE>>, <<NULL VALUE>>, <<NULL VALUE>>, %2, %2) {causal:true,manual_set_pack_gqa:false,num_splits:(Int32)1,pack_gqa:false,sm_margin:(Int32)0,softcap:(Float)0.0,softmax_scale:(Float)0.125,window_size_left:(Int32)-1,window_size_right:(Int32)-1} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, <<NULL TYPE>>, <<NULL TYPE>>, <<NULL TYPE>>, <<NULL TYPE>>, <<NULL TYPE>>, <<NULL TYPE>>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>, tensor<2x3xf32>
    ''', version=4, inputs=3)
    with pytest.raises(PircError, match="operand 12 is not made by a one-element pd_op.full"):
        pirc.downgrade(p, 3)


def test_moe_ops_verify_after_patch_4():
    """Paddle's patch 4 alone leaves moe_permute without its new result and gives
    moe_unpermute an attribute 3.3.1 does not define; the layer fixes both."""
    p = program('''
    (%1, %2, %3, %4) = "pd_op.moe_permute" (%0, <<NULL VALUE>>, %0, %0) {do_gather:true,num_experts:(Int32)2,padding_alignment:(Int32)1,tokens_per_expert:[(Int32)1,(Int32)1]} : (tensor<2x3xf32>, <<NULL TYPE>>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
    (%5, %6) = "pd_op.moe_unpermute" (%1, %2, %0, %3) {num_experts:(Int32)2,total_zipped_tokens_num:(Int32)2,use_mix_precision:false} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>, tensor<2x3xf32>
    ''', version=3, inputs=1)
    assert problems(p) == []
    pirc.upgrade(p, 4)
    assert problems(p) == []
    unpermute = next(op for op in p.walk() if op.name == "pd_op.moe_unpermute")
    assert "using_ue8m0_scale" not in unpermute.attributes
    pirc.downgrade(p, 3)
    assert problems(p) == []


# -- unmigratable ops ----------------------------------------------------------------------------


def test_an_op_removed_with_no_successor_stops_the_upgrade_before_anything_changes():
    body = ('(%2, %3, %4, %5, %6) = "pd_op.moe_dispatch" (%0, %1) {group_moe:false,'
            'moe_topk:(Int32)2,topk_only_mode:false} : (tensor<2x3xf32>, tensor<2x3xf32>) -> '
            'tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>')
    p = program(body, version=1, inputs=2)
    before = pirc.to_text(p)
    with pytest.raises(PlanError) as e:
        pirc.upgrade(p)
    message = str(e.value)
    assert "ops[2] pd_op.moe_dispatch (line 5): cannot be upgraded past PIR version 1: " \
           "Paddle 3.1 (PIR version 2) removed pd_op.moe_dispatch" in message
    assert "What you can do: Keep the program at PIR version 1" in message
    assert pirc.to_text(p) == before
    # The refusal is the list's: a folder without unmigratable.yaml does not know it.
    assert PATCHES.unmigratable and all(e.advice for e in PATCHES.unmigratable)


def test_a_deleted_attribute_the_older_version_requires_cannot_be_downgraded():
    """weight_dequantize.out_dtype: Paddle 3.1 removed it, pirc's layer deletes it, and the
    downgrade cannot invent the value back (tests/unit/test_upgrade_properties.py ONE_WAY)."""
    p = program('''
    (%1) = "pd_op.weight_dequantize" (%0, %0) {algo:"weight_only_int8",group_size:(Int32)-1,out_dtype:(pd_op.DataType)float16} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    ''', version=1, inputs=1)
    assert problems(p) == []
    pirc.upgrade(p, 2)
    assert problems(p) == []
    with pytest.raises(PircError, match="delete_attr out_dtype .*: the deleted value is unknown"):
        pirc.downgrade(p, 1)


def test_a_pair_step_runs_alone_only_when_its_ops_are_there(monkeypatch):
    """Step 3's pair (nanmedian -> nanmedian_grad) makes it run in its own walk only for a
    program that has one of the two ops; the result is the same either way."""
    from pirc.versioning import compiler
    walks = []
    real = compiler.run_steps
    monkeypatch.setattr("pirc.versioning.upgrade.run_steps",
                        lambda program, steps, *a, **k: walks.append(len(steps))
                        or real(program, steps, *a, **k))
    grad = program('''
    (%1, %2) = "pd_op.nanmedian" (%0) {axis:(pd_op.IntArray)[1],keepdim:false,mode:"avg"} : (tensor<2x3xf32>) -> tensor<2xf32>, tensor<2xi64>
    (%3) = "pd_op.nanmedian_grad" (%0, %2, %1) {axis:(pd_op.IntArray)[1],keepdim:false,mode:"avg"} : (tensor<2x3xf32>, tensor<2xi64>, tensor<2xf32>) -> tensor<2x3xf32>
    ''', version=1, inputs=1)
    pirc.upgrade(grad)
    assert walks == [1, 1, 1] and problems(grad) == []
    assert len(next(op for op in grad.walk() if op.name == "pd_op.nanmedian_grad").operands) == 4
    walks.clear()
    plain = program('(%1) = "pd_op.relu" (%0) {} : (tensor<2x3xf32>) -> tensor<2x3xf32>',
                    version=1, inputs=1)
    pirc.upgrade(plain)
    assert walks == [3] and problems(plain) == []


def test_the_new_rms_norm_has_no_older_form():
    """3.3's rms_norm is not 3.2's (which 3.3 calls fused_rms_norm_quant): downgrading the
    new op is refused, while a fused_rms_norm_quant goes back to 3.2's rms_norm."""
    new = program('''
    (%1, %2) = "pd_op.rms_norm" (%0, <<NULL VALUE>>) {epsilon:(Double)1e-06,normalized_shape:[(Int64)3]} : (tensor<2x3xf32>, <<NULL TYPE>>) -> tensor<2x3xf32>, tensor<2xf32>
    ''', version=4, inputs=1)
    assert problems(new) == []
    with pytest.raises(PircError, match=r"pd_op.rms_norm .*: at version 4 pd_op.rms_norm is "
                                         r"another op than at version 3"):
        pirc.downgrade(new, 3)
    old = program('''
    (%2, %3, %4) = "pd_op.rms_norm" (%0, <<NULL VALUE>>, <<NULL VALUE>>, %1, <<NULL VALUE>>) {begin_norm_axis:(Int32)1,epsilon:(Float)1e-06,quant_max_bound:(Float)0.0,quant_min_bound:(Float)0.0,quant_round_type:(Int32)0,quant_scale:(Float)-1.0} : (tensor<2x3xf32>, <<NULL TYPE>>, <<NULL TYPE>>, tensor<2x3xf32>, <<NULL TYPE>>) -> tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
    ''', version=3, inputs=2)
    before = pirc.to_text(old)
    pirc.upgrade(old)
    assert "pd_op.fused_rms_norm_quant" in pirc.to_text(old) and problems(old) == []
    pirc.downgrade(old, 3)
    assert pirc.to_text(old) == before


def test_attr_to_input_keeps_each_kind_and_its_inverse_restores_it():
    """A bool and an Int64 attribute become one-element tensors of their dtype (True is 1.0,
    not an i1's raw -1) and come back unchanged."""
    from pirc.ir.registry import op_class
    from pirc.versioning.actions.attr_to_input import AttrToInput, InputToAttr
    from pirc.versioning.step_context import StepContext
    p = program('(%1) = "test.op" (%0) {flag:true,n:(Int64)7} : (tensor<2x3xf32>) -> tensor<2x3xf32>',
                version=4, inputs=1)
    before = pirc.to_text(p)
    op = next(o for o in p.walk() if o.name == "test.op")
    ctx = StepContext(3, 4, "test")
    full = op_class("pd_op.full", 4)
    assert AttrToInput("flag", 1, 1, full).apply(op, ctx)
    assert AttrToInput("n", 2, 2, full).apply(op, ctx)
    assert not AttrToInput("n", 2, 2, full).apply(op, ctx)  # done already: left alone
    text = pirc.to_text(p)
    assert 'dtype:(pd_op.DataType)bool,place:Place(cpu),shape:(pd_op.IntArray)[1],' \
           'stop_gradient:[true],value:(Double)1.0} : () -> tensor<1xb>' in text
    assert 'value:(Double)7.0} : () -> tensor<1xi64>' in text
    assert InputToAttr("n", 2, 3, "int64").apply(op, ctx)
    assert InputToAttr("flag", 1, 2, "bool").apply(op, ctx)
    assert ctx.problems == [] and pirc.to_text(p) == before
