"""Test passes written on the declarative layer (registered on import): each exercises one
feature of pirc.passes.infra.declarative that the real fusion passes rely on."""

from __future__ import annotations

from dataclasses import dataclass

from pirc.passes import register_pass
from pirc.passes.infra.declarative import (Capture, Check, Const, Constraint, DeclarativePass, New,
                                           Op, Rule)

# scale(x, 2.0) [-> dropout(is_test) optional] -> relu  ==>  one relu of a new scale: checks
# optional ops, constants and captured attributes.
SCALE_RELU = Rule(
    "scale-relu",
    source=Op("pd_op.relu", (Op("pd_op.dropout", (Op("pd_op.scale", ("x", Const(Capture("s", Check("factor > 0 and finite", lambda v: 0 < v < float("inf"))))),
                                                     attrs={"bias": 0.0}, bind="scale"), "_", "_"),
                                  attrs={"is_test": True}, optional=True),)),
    versions={"pd_op.relu": (1,), "pd_op.dropout": (1,), "pd_op.scale": (1,)},
    constraints=(Constraint("x is float32", lambda m: m.dtype("x") == "f32"),),
    result=(New("pd_op.relu", {"x": "x"}, bind="r"),
            New("pd_op.scale", {"x": "r.0", "scale": lambda m: m.ops["scale"].operands[1]},
                attrs={"bias": 0.0, "bias_after_scale": True})),
)


# add(a, b) -> relu, with the add's result also used elsewhere: the result replaces both the
# relu (by leaky_relu with slope 0: the same values) and the add (by a new add), so the
# add's other uses are allowed.
ADD_RELU = Rule(
    "add-relu",
    source=Op("pd_op.relu", (Op("pd_op.add", ("a", "b"), bind="add"),)),
    versions={"pd_op.relu": (1,), "pd_op.add": (1,)},
    result=(New("pd_op.add", {"x": "a", "y": "b"}, bind="sum", types=("a",)),
            New("pd_op.leaky_relu", {"x": "sum.0"}, {"negative_slope": 0.0}, bind="r")),
    replace={"root": ("r.0",), "add": ("sum.0",)},
)

# The target checked against the program's version: `pd_op.rms_norm` has operands (x,
# bias, residual, norm_weight, norm_bias) at PIR 1-3 and (x, scale) at 4.
RMS_V1 = Rule(
    "tanh-to-rms-v1",
    source=Op("pd_op.tanh", (Op("pd_op.sigmoid", ("x",)),)),
    versions={"pd_op.tanh": (1,), "pd_op.sigmoid": (1,)},
    result=(New("pd_op.rms_norm", {"x": "x", "norm_weight": "x"},
                attrs={"epsilon": 1e-6, "begin_norm_axis": 1, "quant_scale": -1.0,
                       "quant_round_type": 0, "quant_max_bound": 0.0, "quant_min_bound": 0.0},
                types=("x", "x", "x")),),
)


@register_pass
@dataclass(frozen=True)
class ScaleRelu(DeclarativePass):
    """Test: scale [-> inference dropout] -> relu becomes relu then scale."""

    name = "test-decl-scale-relu"
    rules = (SCALE_RELU,)


@register_pass
@dataclass(frozen=True)
class AddRelu(DeclarativePass):
    """Test: add -> relu rebuilt, the add's other uses moved to the new add."""

    name = "test-decl-add-relu"
    rules = (ADD_RELU,)


@register_pass
@dataclass(frozen=True)
class RmsV1(DeclarativePass):
    """Test: a target whose signature changes at PIR 4."""

    name = "test-decl-rms-v1"
    rules = (RMS_V1,)
