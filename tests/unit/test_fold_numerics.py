"""canonicalize and const-fold keep what a program computes, bit for bit, on random programs
(pirc.testing.strategies) run through pirc's kernels (pirc.testing.numerical_diff):

* const-fold: each feed of a random program becomes a constant holding its input (a full +
  assign_value_, as paddle.to_tensor makes), so every elementwise op, scale, reshape and
  transpose on them folds in numpy; the folded program must give exactly what the torch
  kernels give on the unfolded one;
* canonicalize: identity ops (assign, scale by 1, same-type cast, inference dropout, a
  transpose pair, a reshape to the same shape) are inserted after random ops; canonicalize
  + dce must remove every one and keep the outputs exact.

And the rewrite cache: identical constant subgraphs are evaluated once."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pirc.ir import attrs as A
from pirc.ir.builder import append_op
from pirc.ir.ops import null_value
from pirc.ir.registry import op_class
from pirc.ir.types import ELEMENT_TYPE_NAMES, ELEMENT_TYPES, DenseTensorType
from pirc.passes import run_pipeline
from pirc.passes.infra.rewrites import CACHE
from pirc.testing.numerical_diff import numerical_diff
from pirc.testing.strategies import VERSION, programs
from pirc.text.parser import parse_text

SETTINGS = settings(max_examples=30, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])
TRUE = A.array_attr([A.bool_attr(True)])


def _op(name, operands, result_type, attributes):
    return append_op(op_class(name, VERSION), operands, [result_type], attributes, None)


def _constant_feeds(program, inputs):
    """Each pd_op.data becomes full + assign_value_ holding its input's values."""
    for data in [op for op in program.block.ops if op.name == "pd_op.data"]:
        value = inputs[data.attributes["name"].data]
        t = data.results[0].type
        dtype = str(value.dtype)
        buffer = _op("pd_op.full", [], t, {"dtype": A.dtype_attr(dtype), "place": A.place_attr(0),
                                           "shape": A.int_array_attr(value.shape), "stop_gradient": TRUE,
                                           "value": A.float_attr(0.0, double=True)})
        assign = _op("pd_op.assign_value_", [buffer.results[0]], t, {
            "dtype": A.dtype_attr(dtype), "place": A.place_attr(0),
            "shape": A.array_attr([A.int32_attr(d) for d in value.shape]), "stop_gradient": TRUE,
            "values": A.array_attr([A.float_attr(float(v), double=True) for v in value.reshape(-1)])})
        data.parent.insert_op_before(buffer, data)
        data.parent.insert_op_before(assign, data)
        data.results[0].replace_all_uses_with(assign.results[0])
        data.parent.erase_op(data)


@SETTINGS
@given(programs(max_ops=8))
def test_const_fold_keeps_the_outputs_exactly(g):
    before, after = g.parse(), g.parse()
    _constant_feeds(before, g.inputs)
    _constant_feeds(after, g.inputs)
    result = run_pipeline(after, "canonicalize,const-fold,dce")
    report = numerical_diff(before, after, {}, atol=0.0, rtol=0.0)
    assert report.equal, f"{report}\nfolded {result.passes[1].rewrites} ops"


def _identity(kind, value, block, before_op):
    """Insert an identity op of `kind` on `value` (before `before_op`); its result."""
    t = value.type
    ops = []
    if kind == "assign":
        ops = [_op("pd_op.assign", [value], t, {"stop_gradient": TRUE})]
    elif kind == "cast":
        dtype = {"f32": "float32", "f64": "float64"}[_element(t)]
        ops = [_op("pd_op.cast", [value], t, {"dtype": A.dtype_attr(dtype), "stop_gradient": TRUE})]
    elif kind == "scale":
        one = _op("pd_op.full", [], DenseTensorType.make(A.f32, (1,)), {
            "dtype": A.dtype_attr("float32"), "place": A.place_attr(1), "shape": A.int_array_attr((1,)),
            "stop_gradient": TRUE, "value": A.float_attr(1.0, double=True)})
        # bias -0.0: x * 1 + -0.0 is x bit for bit (with +0.0 a -0.0 would become +0.0,
        # and canonicalize rightly keeps that scale)
        ops = [one, _op("pd_op.scale", [value, one.results[0]], t, {
            "bias": A.float_attr(-0.0), "bias_after_scale": A.bool_attr(True), "stop_gradient": TRUE})]
    elif kind == "dropout":
        p = _op("pd_op.full", [], DenseTensorType.make(A.f32, (1,)), {
            "dtype": A.dtype_attr("float32"), "place": A.place_attr(1), "shape": A.int_array_attr((1,)),
            "stop_gradient": TRUE, "value": A.float_attr(0.5, double=True)})
        mask = DenseTensorType.make(ELEMENT_TYPES["u8"], t.shape)
        drop = append_op(op_class("pd_op.dropout", VERSION), [value, null_value(), p.results[0]],
                         [t, mask], {"fix_seed": A.bool_attr(True), "is_test": A.bool_attr(True),
                                     "mode": A.str_attr("upscale_in_train"), "seed": A.int32_attr(1),
                                     "stop_gradient": A.array_attr([A.bool_attr(True)] * 2)}, None)
        ops = [p, drop]
    elif kind == "transposes":
        rank = len(t.shape)
        perm = list(range(1, rank)) + [0]
        inverse = [perm.index(i) for i in range(rank)]
        mid = DenseTensorType.make(t.dtype, [t.shape[p] for p in perm])
        first = _op("pd_op.transpose", [value], mid, {"perm": A.array_attr([A.int32_attr(p) for p in perm]),
                                                      "stop_gradient": TRUE})
        ops = [first, _op("pd_op.transpose", [first.results[0]], t, {
            "perm": A.array_attr([A.int32_attr(p) for p in inverse]), "stop_gradient": TRUE})]
    else:  # reshape to the same static shape
        shape = _op("pd_op.full_int_array", [], DenseTensorType.make(A.i64, (len(t.shape),)), {
            "dtype": A.dtype_attr("int64"), "place": A.place_attr(1), "stop_gradient": TRUE,
            "value": A.array_attr([A.int64_attr(d) for d in t.shape])})
        ops = [shape, _op("pd_op.reshape", [value, shape.results[0]], t, {"stop_gradient": TRUE})]
    for op in ops:
        block.insert_op_before(op, before_op)
    return ops[-1].results[0]


def _element(t):
    return ELEMENT_TYPE_NAMES[t.dtype]


KINDS = ("assign", "cast", "scale", "dropout", "transposes", "reshape")


@SETTINGS
@given(programs(max_ops=6), st.data())
def test_canonicalize_removes_inserted_identities_and_keeps_the_outputs(g, data):
    before, after = g.parse(), g.parse()
    names = [op.name for op in before.block.ops]
    inserted = 0
    for op in list(after.block.ops):
        if op.name in ("pd_op.data", "pd_op.fetch") or len(op.results) != 1 \
                or ELEMENT_TYPE_NAMES.get(getattr(op.results[0].type, "dtype", None)) not in ("f32", "f64") \
                or not data.draw(st.booleans()):
            continue
        result = op.results[0]
        kind = data.draw(st.sampled_from(KINDS if result.type.shape else KINDS[:4]))
        users = [u for u in result.uses]
        new = _identity(kind, result, op.parent, op.next_op)
        for use in users:  # every old user now reads the identity's result
            use.operation.operands = [new if v is result else v for v in use.operation.operands]
        inserted += 1
    result = run_pipeline(after, "canonicalize,dce")
    # Every inserted op goes, unless a forwarding rule keeps it (counted as a skip: an identity
    # the program already had may go first and leave a fetch reading a feed); canonicalize
    # may remove ops the program already had too.
    assert len(list(after.block.ops)) <= len(names) + len(result.passes[0].skips)
    assert result.passes[0].rewrites >= inserted - len(result.passes[0].skips)
    report = numerical_diff(before, after, g.inputs, atol=0.0, rtol=0.0)
    assert report.equal, str(report)


CONSTANT_LAYERS = """{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[4],stop_gradient:[true]} : () -> tensor<4xf32>
    (%1) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[4],stop_gradient:[true],value:0.7} : () -> tensor<4xf32>
    (%2) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[4],stop_gradient:[true],value:1.3} : () -> tensor<4xf32>
    (%3) = "pd_op.multiply" (%1, %2) {stop_gradient:[true]} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    (%4) = "pd_op.add" (%0, %3) {stop_gradient:[true]} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    (%5) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[4],stop_gradient:[true],value:0.7} : () -> tensor<4xf32>
    (%6) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[4],stop_gradient:[true],value:1.3} : () -> tensor<4xf32>
    (%7) = "pd_op.multiply" (%5, %6) {stop_gradient:[true]} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    (%8) = "pd_op.add" (%4, %7) {stop_gradient:[true]} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    (%9) = "pd_op.fetch" (%8) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<4xf32>) -> tensor<4xf32>
}
"""


def test_identical_constant_subgraphs_are_evaluated_once():
    from pirc.passes.folding import rules

    calls = []
    multiply = rules.RULES["pd_op.multiply"]
    rules.RULES["pd_op.multiply"] = rules.Rule(multiply.operands, lambda *a: calls.append(1) or multiply.fold(*a))
    CACHE._plans.clear()
    try:
        p = parse_text(CONSTANT_LAYERS, "layers.pir", 4)
        result = run_pipeline(p, "const-fold{max-elements=1}")
    finally:
        rules.RULES["pd_op.multiply"] = multiply
    assert result.passes[0].rewrites == 2 and len(calls) == 1
    values = [A.scalar_value(op.attributes["value"]) for op in p.block.ops
              if op.name == "pd_op.full" and op.results[0].first_use is not None]
    assert values == [float(np.float32(0.7) * np.float32(1.3))] * 2


def test_the_output_is_byte_identical_across_processes(tmp_path):
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    source = root / "tests" / "lit" / "passes" / "const_fold.pir"
    outs = []
    for seed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=seed, PYTHONPATH=str(root))
        subprocess.run([sys.executable, "-m", "pirc", str(source), "--from-version=4", "--split-input-file",
                        "-p", "default", "-o", str(tmp_path / f"{seed}.pir")], check=True, env=env, cwd=root)
        outs.append((tmp_path / f"{seed}.pir").read_bytes())
    assert outs[0] == outs[1] and b"pd_op.assign_value_" in outs[0]


@settings(SETTINGS, max_examples=15)
@given(programs(max_ops=8), st.data())
def test_the_default_pipeline_keeps_the_outputs_exactly(g, data):
    """The whole default pipeline on random programs with repeated and unused ops added (a
    copy of a random op beside it, so cse has something to merge and dce something to
    remove): outputs bit for bit."""
    before, after = g.parse(), g.parse()
    copies = 0
    for op in list(after.block.ops):
        if op.name in ("pd_op.data", "pd_op.fetch") or not data.draw(st.booleans()):
            continue
        op.parent.insert_op_after(op.clone(), op)  # the same op again: nobody reads the copy
        copies += 1
    result = run_pipeline(after, "default")
    report = numerical_diff(before, after, g.inputs, atol=0.0, rtol=0.0)
    assert report.equal, str(report)
    # each copy went: merged by cse, removed by dce, or by canonicalize with the identity it
    # copied
    assert sum(r.rewrites for r in result.passes) >= copies
