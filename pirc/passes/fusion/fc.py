"""fuse-fc: `matmul(x, w) + b` (b a 1-D bias, either operand order) -> `pd_op.fc(x, w, b)`,
and `relu(fc(x, w, b))` -> `fc(x, w, b, activation_type="relu")`.

What Paddle's fused op computes (phi fusion/FCKernel, impl/fc_kernel_impl.h, and
funcs/fc_functor.cc, the same in the 3.0.0 and 3.3.1 wheels): x's first `in_num_col_dims`
dims are the rows of a matrix (M x K), one GEMM by w (K x N), then the bias added per row,
then relu when `activation_type` is "relu" (VAddRelu) -- and only then: every other
activation_type is ignored, and without a bias the functor returns after the GEMM (relu
ignored; Paddle's newer sources refuse relu without a bias).  Hence:

* the weight is 2-D with static dims (FCInferMeta); x has rank >= 2 and
  `in_num_col_dims = rank(x) - 1`, so the rows are exactly matmul's broadcast batch rows and
  the output shape is matmul's; no transpose flags (fc has none);
* the bias is 1-D of the weight's width: a 2-D bias broadcast over rows is another op
  (FCInferMeta takes [1, N] only, and an [M, N] add is no bias at all);
* float32 and float64 only: fc's CPU kernel is registered for those alone;
* relu folds only into an fc with a bias and no activation yet; relu6, leaky_relu, gelu ...
  after an fc are near misses ("activation is relu"), never folded.

Numerics: phi's CPU matmul kernel flattens an N-D x times a 2-D y into the same single GEMM
and the elementwise add adds the same bias, so both sides run the same float operations
(BLAS may block the GEMM differently): within float32 rounding of a K-term dot product,
tolerance atol 1e-5, rtol 1e-5 (docs/PARITY.md).  relu(x + b) is max(x + b, 0) either way.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...ir.ops import is_null_value
from ..infra.declarative import Constraint, DeclarativePass, Either, New, Op, Rule
from ..infra.registry import register_pass

FLOATS = ("f32", "f64")   # phi's CPU fc kernel: float, double


def _bias_1d(m) -> bool:
    w, b = m.shape("w"), m.shape("b")
    return len(b) == 1 and b[0] == w[1]


def _no_broadcast(m) -> bool:
    return tuple(m.root.results[0].type.shape) == tuple(m.ops["matmul"].results[0].type.shape)


def _static_2d(shape) -> bool:
    return shape is not None and len(shape) == 2 and all(d >= 0 for d in shape)


FC = Rule(
    "fc",
    source=Op("pd_op.add", (Op("pd_op.matmul", ("x", "w"),
                               attrs={"transpose_x": False, "transpose_y": False},
                               bind="matmul"), "b"), commutative=True),
    versions={"pd_op.add": (1,), "pd_op.matmul": (1,)},
    constraints=(
        Constraint("float32 or float64 (Paddle's CPU fc kernel has no other dtype)",
                   lambda m: m.one_dtype("x", "w", "b") in FLOATS),
        Constraint("weight is 2-D with static dims", lambda m: _static_2d(m.shape("w"))),
        Constraint("input has rank >= 2", lambda m: len(m.shape("x")) >= 2),
        Constraint("bias is 1-D of the weight's width", _bias_1d),
        Constraint("the add does not broadcast the matmul result", _no_broadcast),
    ),
    result=(New("pd_op.fc", {"input": "x", "w": "w", "bias": "b"},
                attrs={"in_num_col_dims": lambda m: len(m.shape("x")) - 1,
                       "activation_type": "", "padding_weights": False}),),
)

# The activations an fc may be followed by: only relu folds; the others are listed so that
# an fc + relu6 (or gelu, ...) shows as a near miss that says why it was not folded.
OTHER_ACTIVATIONS = ("pd_op.relu6", "pd_op.leaky_relu", "pd_op.gelu", "pd_op.sigmoid",
                     "pd_op.tanh", "pd_op.silu", "pd_op.swish", "pd_op.hardswish", "pd_op.elu")


def _after_fc(act: str) -> Op:
    return Op(act, (Op("pd_op.fc", ("x", "w", "b"),
                       attrs={"activation_type": "", "padding_weights": False}, bind="fc"),),
              bind="act")


FC_RELU = Rule(
    "fc-relu",
    source=Either(*(_after_fc(a) for a in ("pd_op.relu",) + OTHER_ACTIVATIONS)),
    versions={"pd_op.fc": (1,), "pd_op.relu": (1,), **{a: (1,) for a in OTHER_ACTIVATIONS}},
    constraints=(
        Constraint("activation is relu (Paddle's CPU fc applies no other activation_type)",
                   lambda m: m.ops["act"].name == "pd_op.relu"),
        Constraint("float32 or float64 (Paddle's CPU fc kernel has no other dtype)",
                   lambda m: m.one_dtype("x", "w", "b") in FLOATS),
        Constraint("the fc has a bias (without one Paddle's CPU fc applies no relu)",
                   lambda m: not is_null_value(m["b"])),
    ),
    result=(New("pd_op.fc", {"input": "x", "w": "w", "bias": "b"},
                attrs={"in_num_col_dims": lambda m: m.attr("fc", "in_num_col_dims"),
                       "activation_type": "relu", "padding_weights": False}),),
)


@register_pass
@dataclass(frozen=True)
class FuseFc(DeclarativePass):
    """Fuses matmul + 1-D bias add (+ relu) into Paddle's fc (float32/float64)."""

    name = "fuse-fc"
    rules = (FC, FC_RELU)
