"""fuse-gelu: the erf composition 0.5 * x * (1 + erf(x / sqrt(2))) -> `gelu(x)`, and the tanh
one 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))) -> `gelu(x, approximate=true)`.

The spellings are Paddle's own (tools/paddle_oracle/gen_portable_fusion_fixtures.py builds
them with real Paddle): a Python number times a tensor is a `scale` by a one-element `full`,
`1 + t` a `scale` with bias 1, `x / sqrt(2)` a `scale` by 1/sqrt(2); Paddle's decomposition
(paddle.decomposition) multiplies and adds 0-D `full`s instead; x^3 is `pow(x, 3)` or
x * x * x; BLOOM writes the tanh argument as sqrt(2/pi) * x * (1 + 0.044715 * x * x).  Every
operand order is tried; the 0.5 may sit on x, on (1 + erf), or outside the product.
Constants match within a relative 1e-6 (a float32 spelling of 1/sqrt(2) or of 0.044715);
any other value (0.6 for 0.5, sqrt(2) where 1/sqrt(2) belongs, x^2 for x^3) is a near miss
naming the constant.  The erf and the tanh rules share no op: an erf composition can only
become gelu(approximate=false) and a tanh one only approximate=true.

What Paddle's fused op computes (phi cpu/gelu_kernel.cc GeluFunctor, both wheels, float and
double only -- float16/bfloat16 have no CPU gelu kernel, so they are not fused): exact,
x * 0.5 * (1 + erf(x * M_SQRT1_2)); approximate, x * 0.5 * (1 + tanh(sqrt(2/pi) * (x +
0.044715 * x^3))), all in x's type.  pirc's lowering of the erf form performs the same
roundings as the composition (the 0.5 is exact): bit for bit away from overflow.  In Paddle
3.3.1 the kernels differ (its vectorised erf / tanh are not the erf / tanh ops'): on 300k
float32 values (normal * 4) gelu vs the erf composition differ on 38% of them, by at most
1.4e-6 absolute (relative up to 5 in the tail near x = -5, where 1 + erf cancels to ~1e-7);
the tanh form on 1.6%, by at most 9.5e-7.  Tolerance: atol 1e-5, rtol 1e-5 (docs/PARITY.md).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..infra.declarative import Check, Const, Constraint, DeclarativePass, Either, New, Op, Rule
from ..infra.registry import register_pass

FLOATS = ("f32", "f64")          # phi's CPU gelu kernel: float, double
REL = 1e-6                       # float32 spellings of the constants
INV_SQRT2 = 1 / math.sqrt(2)
SQRT2 = math.sqrt(2)
BETA = math.sqrt(2 / math.pi)    # 0.7978845608...
KAPPA = 0.044715


def c(value: float) -> Const:
    return Const(value, REL)


def times(value: float, operand) -> Either:
    """value * operand: a `scale` by a constant without bias, or a `multiply` by a `full`."""
    return Either(Op("pd_op.scale", (operand, c(value)), attrs={"bias": 0.0}),
                  Op("pd_op.multiply", (operand, c(value)), commutative=True))


def one_plus(operand) -> Either:
    """1 + operand: a `scale` by 1 with bias 1, or an `add` of a `full` 1."""
    return Either(Op("pd_op.scale", (operand, c(1.0)), attrs={"bias": 1.0}),
                  Op("pd_op.add", (operand, c(1.0)), commutative=True))


def gelu_forms(inner: Op) -> Either:
    """0.5 * x * (1 + inner), with the 0.5 on x, on (1 + inner), or outside the product."""
    gate = one_plus(inner)
    return Either(
        Op("pd_op.multiply", (times(0.5, "x"), gate), commutative=True),
        Op("pd_op.multiply", ("x", times(0.5, gate)), commutative=True),
        Op("pd_op.scale", (Op("pd_op.multiply", ("x", gate), commutative=True), c(0.5)),
           attrs={"bias": 0.0}),
        Op("pd_op.multiply", (Op("pd_op.multiply", ("x", gate), commutative=True), c(0.5)),
           commutative=True),
    )


ERF = Op("pd_op.erf", (Either(times(INV_SQRT2, "x"), Op("pd_op.divide", ("x", c(SQRT2)))),))

CUBE = Either(Op("pd_op.pow", ("x",), attrs={"y": Check("pow exponent is 3", lambda v: v == 3)}),
              Op("pd_op.multiply", (Op("pd_op.multiply", ("x", "x")), "x"), commutative=True))
KAPPA_X3 = Either(
    times(KAPPA, CUBE),
    # 0.044715 * x * x * x as Python writes it: ((0.044715 * x) * x) * x
    Op("pd_op.multiply", (Op("pd_op.multiply", (times(KAPPA, "x"), "x"), commutative=True), "x"),
       commutative=True),
)
TANH = Op("pd_op.tanh", (Either(
    times(BETA, Op("pd_op.add", ("x", KAPPA_X3), commutative=True)),
    # BLOOM, PaddleNLP's FastGELUActivation: sqrt(2/pi) * x * (1 + 0.044715 * x * x)
    Op("pd_op.multiply", (times(BETA, "x"), one_plus(
        Op("pd_op.multiply", (times(KAPPA, "x"), "x"), commutative=True))), commutative=True),
),))


def _same_type(m) -> bool:
    """gelu(x) has x's type: the composition must not have broadcast x or changed its dtype."""
    out = m.root.results[0].type
    return m.dtype("x") in FLOATS and out == m["x"].type


_VERSIONS = {"pd_op.multiply": (1,), "pd_op.scale": (1,), "pd_op.add": (1,)}
_DTYPE = Constraint("float32 or float64, result of x's type (Paddle's CPU gelu kernel has no "
                    "other dtype)", _same_type)

GELU_ERF = Rule(
    "gelu-erf",
    source=gelu_forms(ERF),
    versions={**_VERSIONS, "pd_op.erf": (1,), "pd_op.divide": (1,)},
    constraints=(_DTYPE,),
    result=(New("pd_op.gelu", {"x": "x"}, attrs={"approximate": False}),),
)

GELU_TANH = Rule(
    "gelu-tanh",
    source=gelu_forms(TANH),
    versions={**_VERSIONS, "pd_op.tanh": (1,), "pd_op.pow": (1,)},
    constraints=(_DTYPE,),
    result=(New("pd_op.gelu", {"x": "x"}, attrs={"approximate": True}),),
)


@register_pass
@dataclass(frozen=True)
class FuseGelu(DeclarativePass):
    """Fuses the erf and tanh gelu compositions into gelu (float32/float64)."""

    name = "fuse-gelu"
    rules = (GELU_ERF, GELU_TANH)
