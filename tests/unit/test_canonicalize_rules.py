"""canonicalize as declarative rules: what the layer's Forward / Update results and the
near-miss rules mean for a user (the pass report), beside tests/lit/passes/canonicalize.pir."""

from __future__ import annotations

from pirc.passes import run_pipeline
from pirc.passes.canonicalize import Canonicalize
from pirc.passes.infra.rewrites import ANY_OP, OpUse
from pirc.text.parser import parse_text

DATA = '(%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[2,3],stop_gradient:[true]} : () -> tensor<2x3xf32>'


def _run(body: str, version: int = 4):
    program = parse_text("{\n    " + DATA + "\n" + body + "\n}\n", "t.pir", version)
    record = run_pipeline(program, "canonicalize", verify_each=False).passes[0]
    return program, record


def _names(program):
    return [op.name for op in program.block.ops]


def test_the_declaration_is_the_hand_written_one():
    # derived from the rules: assign at any version (ANY_OP), casts at semantic version 3
    assert Canonicalize.rewrites == {
        "pd_op.assign": OpUse(ANY_OP), "pd_op.cast": OpUse((3,)), "pd_op.dropout": OpUse((1,)),
        "pd_op.full": OpUse((1,)), "pd_op.reshape": OpUse((1,)), "pd_op.scale": OpUse((1,)),
        "pd_op.transpose": OpUse((1,))}


def test_a_refused_forward_is_a_skip_not_a_near_miss():
    # the assign's result is written in place: may_forward refuses, the report says why
    program, r = _run('''
    (%1) = "pd_op.assign" (%0) {stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    (%2) = "pd_op.relu_" (%1) {stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    (%3) = "pd_op.fetch" (%2) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>''')
    assert "pd_op.assign" in _names(program)
    assert (r.matches, r.rewrites) == (1, 0)
    assert [s.reason for s in r.skips] == ["aliasing: the value is written in place or a fetch would change what it reads"]
    assert r.near_misses == {}


def test_update_keeps_a_first_transpose_that_others_read():
    # compose-transposes edits the second transpose in place to read y; the first one stays
    # for the fetch that reads it (no one-use check: Update swallows nothing)
    program, r = _run('''
    (%1) = "pd_op.data" () {dtype:float32,name:"y",place:Place(undefined:0),shape:[2,3,4],stop_gradient:[true]} : () -> tensor<2x3x4xf32>
    (%2) = "pd_op.relu" (%1) {stop_gradient:[true]} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    (%3) = "pd_op.transpose" (%2) {perm:[1,0,2],stop_gradient:[true]} : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
    (%4) = "pd_op.transpose" (%3) {perm:[0,2,1],stop_gradient:[true]} : (tensor<3x2x4xf32>) -> tensor<3x4x2xf32>
    (%5) = "pd_op.fetch" (%3) {col:0,name:"a",persistable:[true],stop_gradient:[true]} : (tensor<3x2x4xf32>) -> tensor<3x2x4xf32>
    (%6) = "pd_op.fetch" (%4) {col:1,name:"b",persistable:[true],stop_gradient:[true]} : (tensor<3x4x2xf32>) -> tensor<3x4x2xf32>''')
    assert r.rule_rewrites == {"compose-transposes": 1}
    first, second = [op for op in program.block.ops if op.name == "pd_op.transpose"]
    assert second.operands[0] is first.operands[0]          # reads relu(y) directly
    assert [a.value.data for a in second.attributes["perm"].data] == [1, 2, 0]


def test_near_misses_need_a_matched_producer():
    # a reshape to another shape (its root alone) is none; a scale by 2 (its factor's full
    # matched) is one, named by the constraint
    program, r = _run('''
    (%1) = "pd_op.full_int_array" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[3,2]} : () -> tensor<2xi64>
    (%2) = "pd_op.reshape" (%0, %1) {stop_gradient:[true]} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<3x2xf32>
    (%3) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:2} : () -> tensor<1xf32>
    (%4) = "pd_op.scale" (%0, %3) {bias:0,bias_after_scale:true,stop_gradient:[true]} : (tensor<2x3xf32>, tensor<1xf32>) -> tensor<2x3xf32>
    (%5) = "pd_op.fetch" (%2) {col:0,name:"a",persistable:[true],stop_gradient:[true]} : (tensor<3x2xf32>) -> tensor<3x2xf32>
    (%6) = "pd_op.fetch" (%4) {col:1,name:"b",persistable:[true],stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>''')
    assert list(r.near_misses) == ["identity-scale"]
    miss = r.near_misses["identity-scale"]
    assert miss.count == 1
    assert miss.first[0]["op"] == "pd_op.scale"
    assert miss.first[0]["failed"] == "scale factor is 1: constant operand 1 of pd_op.scale is 2.0"


def test_an_upscale_dropout_without_a_constant_p_still_goes():
    # p is a feed, not a full: the rule's optional full is absent, the dropout is x all the same
    program, r = _run('''
    (%1) = "pd_op.data" () {dtype:float32,name:"p",place:Place(undefined:0),shape:[1],stop_gradient:[true]} : () -> tensor<1xf32>
    (%7) = "pd_op.relu" (%0) {stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    (%2, %3) = "pd_op.dropout" (%7, <<NULL VALUE>>, %1) {fix_seed:true,is_test:true,mode:"upscale_in_train",seed:1,stop_gradient:[true,true]} : (tensor<2x3xf32>, <<NULL TYPE>>, tensor<1xf32>) -> tensor<2x3xf32>, tensor<2x3xu8>
    (%4) = "pd_op.fetch" (%2) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>''')
    assert r.rule_rewrites == {"inference-dropout": 1}
    assert "pd_op.dropout" not in _names(program)
    assert "pd_op.data" in _names(program)
