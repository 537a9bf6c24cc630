"""`Either` in the declarative layer (pirc.passes.infra.declarative): one value spelled several
ways (0.5 * x as a `scale` or as a `multiply` by a `full`), a rule whose root may be one of
several ops, how forms are ordered, and ops declared with no semantic versions."""

from __future__ import annotations

from dataclasses import dataclass

import pirc
from pirc.passes import register_pass
from pirc.passes.infra.declarative import (ANY_OP, Const, Constraint, DeclarativePass,
                                           Either, New, Op, Rule, _size, declared_rewrites)

T = "tensor<2x3xf32>"
HEAD = (f'    (%0) = "pd_op.data" () {{dtype:float32,name:"x",place:Place(undefined:0),'
        f'shape:[2,3],stop_gradient:[true]}} : () -> {T}\n')

# relu(0.5 * x), the half spelled as a scale or as a multiply by a full  ==>  relu(scale(x)):
# checks an operand Either (either option matches; a wrong constant is a near miss naming it)
HALF = Either(Op("pd_op.scale", ("x", Const(0.5)), attrs={"bias": 0.0}),
              Op("pd_op.multiply", ("x", Const(0.5)), commutative=True))
HALF_RELU = Rule(
    "half-relu",
    source=Op("pd_op.relu", (HALF,)),
    versions={"pd_op.relu": (1,), "pd_op.scale": (1,), "pd_op.multiply": (1,)},
    result=(New("pd_op.leaky_relu", {"x": "x"}, attrs={"negative_slope": 0.0}, bind="r"),
            New("pd_op.scale", {"x": "r.0", "scale": lambda m: m.consts[0].results[0]},
                attrs={"bias": 0.0, "bias_after_scale": True})),
)

# relu(x) or relu6(x) at the root; only relu is rewritten: a root Either is one form per root
ACT = Rule(
    "act",
    source=Either(Op("pd_op.relu", (Op("pd_op.abs", ("x",)),), bind="act"),
                  Op("pd_op.relu6", (Op("pd_op.abs", ("x",)),), bind="act")),
    versions={"pd_op.relu": (1,), "pd_op.relu6": (1,), "pd_op.abs": (1,)},
    constraints=(Constraint("activation is relu", lambda m: m.ops["act"].name == "pd_op.relu"),),
    result=(New("pd_op.abs", {"x": "x"}),),
)


@register_pass
@dataclass(frozen=True)
class HalfRelu(DeclarativePass):
    """Test pass: relu of a half spelled two ways."""

    name = "test-either-half-relu"
    rules = (HALF_RELU,)


@register_pass
@dataclass(frozen=True)
class Act(DeclarativePass):
    """Test pass: relu(abs(x)) -> abs(x), relu6 a near miss."""

    name = "test-either-act"
    rules = (ACT,)


def run(body: str, pipeline: str):
    program = pirc.parse("{\n" + HEAD + body + "}\n", from_version=4)
    result = pirc.run_pipeline(program, pipeline)
    ops = [op.name for op in program.module.body.block.ops]
    misses = [m["failed"] for p in result.passes for n in p.near_misses.values() for m in n.first]
    return ops, misses


def full(n, value):
    return (f'    (%{n}) = "pd_op.full" () {{dtype:float32,place:Place(cpu),shape:[1],'
            f'stop_gradient:[true],value:{value}}} : () -> tensor<1xf32>\n')


def tail(n, v):
    return (f'    (%{n}) = "pd_op.relu" (%{v}) {{stop_gradient:[true]}} : ({T}) -> {T}\n'
            f'    (%{n + 1}) = "pd_op.fetch" (%{n}) {{col:0,name:"out",persistable:[true],'
            f'stop_gradient:[true]}} : ({T}) -> {T}\n')


def test_operand_either_takes_each_spelling():
    scale = full(1, 0.5) + (f'    (%2) = "pd_op.scale" (%0, %1) {{bias:0,bias_after_scale:true,'
                            f'stop_gradient:[true]}} : ({T}, tensor<1xf32>) -> {T}\n')
    mul = full(1, 0.5) + (f'    (%2) = "pd_op.multiply" (%1, %0) {{stop_gradient:[true]}} : '
                          f'(tensor<1xf32>, {T}) -> {T}\n')
    for body in (scale, mul):
        ops, misses = run(body + tail(3, 2), "test-either-half-relu")
        assert "pd_op.leaky_relu" in ops and "pd_op.relu" not in ops, body
        assert misses == []


def test_operand_either_near_miss_names_the_constant():
    mul = full(1, 0.25) + (f'    (%2) = "pd_op.multiply" (%0, %1) {{stop_gradient:[true]}} : '
                           f'({T}, tensor<1xf32>) -> {T}\n')
    ops, misses = run(mul + tail(3, 2), "test-either-half-relu")
    assert "pd_op.leaky_relu" not in ops
    assert misses == ["constant operand 1 of pd_op.multiply is 0.25, not 0.5"]


def test_root_either():
    body = (f'    (%1) = "pd_op.abs" (%0) {{stop_gradient:[true]}} : ({T}) -> {T}\n'
            f'    (%2) = "pd_op.relu6" (%1) {{stop_gradient:[true]}} : ({T}) -> {T}\n'
            f'    (%3) = "pd_op.abs" (%0) {{stop_gradient:[true]}} : ({T}) -> {T}\n'
            + tail(4, 3))
    body = body.replace('name:"out"', 'name:"a"') + (
        f'    (%6) = "pd_op.fetch" (%2) {{col:1,name:"b",persistable:[true],'
        f'stop_gradient:[true]}} : ({T}) -> {T}\n')
    ops, misses = run(body, "test-either-act")
    assert ops.count("pd_op.relu6") == 1 and "pd_op.relu" not in ops
    assert misses == ["activation is relu"]
    assert [f.name for f in ACT.variants()] == ["pd_op.relu", "pd_op.relu6"]


def test_size_counts_the_largest_option_and_versions_any():
    assert _size(HALF_RELU.source) == 2
    assert _size(Op("pd_op.add", (HALF, Op("pd_op.abs", ("x",))))) == 3
    rule = Rule("split", source=Op("pd_op.abs", (Op("builtin.split", ("x",)),)),
                versions={"pd_op.abs": (1,), "builtin.split": ANY_OP},
                result=(New("pd_op.abs", {"x": "x"}),))
    declared = declared_rewrites((rule, HALF_RELU))
    assert declared["builtin.split"].semantic == "*"
    assert declared["pd_op.full"].semantic == (1,)           # the Const inside the Either
    assert declared["pd_op.multiply"].semantic == (1,)
