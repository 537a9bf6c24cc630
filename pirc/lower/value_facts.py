"""Static facts about the values a lowered graph computes: what every element of a tensor is
known to be whatever the feeds hold, a refinement of its static type (MLIR's integer range
analysis, for floats).

A fact is a property of one value, so a kernel's specialiser (specialize.py, `Site.facts`)
may take a cheaper call that computes the same bits on every input the fact allows: a max
pool whose input is never NaN and never below -FLT_MAX needs no refold of NaN windows, a
float32 rsqrt whose input is never a denormal needs no denormal fix.  The lowering still maps
one op to one call; the facts only refine what that call's operands can hold.

`Facts(nan, lo, negzero)`: `nan` False says no element is NaN; `lo` says every element that
is not NaN compares >= lo (as IEEE numbers, so a -0 passes lo = 0; an element may be +inf);
`negzero` False says no element is -0 (with no NaN either, equal elements then have equal
bits: any max of them is the same max).  Each
rule below is one op's semantics, as pirc's kernel computes it, stated from the facts of
the kernel call's operands (its bound arguments, by the kernel's parameter names) and its
attributes; an op without a rule, a value that is not floating point, and a graph input
(a placeholder, a parameter buffer: a user may load other weights) know nothing (`UNKNOWN`).
A bound `lo` is always a number of the value's dtype, rounded down (`_down`): rounding to
nearest is monotone, so an exact result above a representable bound rounds to one above it.

`annotate(graph)` runs once per graph before the specialisers (`specialize_calls`) and puts
each node's facts in `node.meta[FACTS_META]`; a specialiser's replacement carries them on.
The graph is functional (no call writes another node's tensor: storage.py), so a node's
facts hold for every reader.  Captured and loop-carried values of a control-flow region are
placeholders there: nothing is known of them inside.
"""

from __future__ import annotations

import inspect
import math
from dataclasses import dataclass
from typing import Callable

import torch
import torch.fx as fx

from ..runtime.registry import REGISTRY

FACTS_META = "pir_facts"   # node.meta key: the node's Facts (absent: UNKNOWN)
KERNEL_META = "pir_kernel"  # node.meta key: the PIR op name whose kernel the node calls

# the floating dtypes facts are derived for (and a specialiser may read them on)
FLOATS = (torch.float16, torch.bfloat16, torch.float32, torch.float64)


@dataclass(frozen=True)
class Facts:
    """What every element of one value is known to be (see the module docstring)."""

    nan: bool = True            # an element may be NaN
    lo: float = -math.inf       # every element that is not NaN is >= lo
    negzero: bool = True        # an element may be -0

    def at_least(self, bound: float) -> bool:
        return self.lo >= bound


UNKNOWN = Facts()


def facts_of(value) -> Facts:
    """The facts `annotate` put on an operand (a node), UNKNOWN for anything else."""
    return value.meta.get(FACTS_META, UNKNOWN) if isinstance(value, fx.Node) else UNKNOWN


def _down(v: float, dtype: torch.dtype) -> float:
    """The largest number of `dtype` that is <= v (v a Python float, taken exactly)."""
    if math.isnan(v) or math.isinf(v):
        return v
    t = torch.tensor(v, dtype=torch.float64).to(dtype)
    if t.item() > v:  # rounded up (to nearest): one step down
        t = torch.nextafter(t, torch.tensor(-math.inf, dtype=dtype))
    return t.item()


def _number(v) -> float | None:
    """A Python int or float argument (a folded constant) as a float, else None."""
    return float(v) if type(v) in (int, float) else None


class Call:
    """One kernel call as a rule sees it: operands' facts and numbers, the result's dtype."""

    def __init__(self, node: fx.Node):
        bound = inspect.signature(node.target).bind(*node.args, **node.kwargs)
        bound.apply_defaults()
        self.p = bound.arguments
        self.dtype: torch.dtype = node.meta["pir_dtype"]

    def facts(self, name: str) -> Facts:
        return facts_of(self.p[name])

    def number(self, name: str) -> float | None:
        return _number(self.p[name])

    def down(self, v: float) -> float:
        return _down(v, self.dtype)


# op name -> rule(call) -> Facts; each rule holds for every input of the kernel.
RULES: dict[str, Callable[[Call], Facts]] = {}


def rule(*names: str):
    def register(fn):
        for name in names:
            RULES[name] = fn
        return fn
    return register


@rule("pd_op.relu", "pd_op.relu_")
def _relu(call: Call) -> Facts:
    # phi ReluCPUFunctor `v > 0 ? v : 0`: NaN and -0 become +0 (kernels/activation.py)
    return Facts(nan=False, lo=0.0, negzero=False)


@rule("pd_op.square")
def _square(call: Call) -> Facts:
    # x * x: the product of two equal signs (a zero is +0); NaN only from a NaN
    return Facts(nan=call.facts("x").nan, lo=0.0, negzero=False)


@rule("pd_op.pow")
def _pow(call: Call) -> Facts:
    # x ** y for an even integer y: never negative nor -0 (-0 ** 2 is +0, -inf ** 2 is
    # +inf, 0 ** -2 is +inf, an underflow +0); NaN only from a NaN.  The kernel takes y as a float32 (an odd y
    # is generic_pow's special case and a y that rounds to inf is no integer: no fact).
    y = call.number("y")
    if y is None:
        return UNKNOWN
    y = float(torch.tensor(y, dtype=torch.float32))
    if not (math.isfinite(y) and y == math.floor(y) and y % 2 == 0):
        return UNKNOWN
    return Facts(nan=call.facts("x").nan, lo=0.0, negzero=False)


@rule("pd_op.mean")
def _mean(call: Call) -> Facts:
    # a sum of values >= 0 is >= 0 (or +inf), divided by a count: >= 0; an empty axis is
    # 0 / 0, NaN.  A bound above 0 is not kept: the rounded sum may fall below n * lo.
    return Facts(nan=True, lo=0.0) if call.facts("x").at_least(0.0) else UNKNOWN


@rule("pd_op.scale")
def _scale(call: Call) -> Facts:
    # bias_after_scale: x * s + b; x >= 0 and s >= 0 (s = -0 too) make x * s >= 0 (or NaN,
    # 0 * inf), so the sum is >= b, rounded: >= b's dtype value below it.  Otherwise
    # (x + b) * s: >= 0 when all three are.  NaN is not ruled out (0 * inf, inf - inf).
    x, s, b = call.facts("x"), call.number("scale"), call.number("bias")
    if s is None or b is None or math.isnan(b) or not (s >= 0.0) or not x.at_least(0.0):
        return UNKNOWN
    if call.p["bias_after_scale"]:
        return Facts(nan=True, lo=call.down(b))
    return Facts(nan=True, lo=0.0) if b >= 0.0 else UNKNOWN


@rule("pd_op.add")
def _add(call: Call) -> Facts:
    # x + y with one side >= 0 is >= the other side's bound (both >= 0: >= the larger
    # bound); NaN only from a NaN or from +inf + -inf, which needs a side that may be -inf.
    x, y = call.facts("x"), call.facts("y")
    nan = x.nan or y.nan or x.lo == -math.inf or y.lo == -math.inf
    if x.at_least(0.0) and y.at_least(0.0):
        lo = max(x.lo, y.lo)
    elif x.at_least(0.0):
        lo = y.lo
    elif y.at_least(0.0):
        lo = x.lo
    else:
        lo = -math.inf
    return Facts(nan=nan, lo=call.down(lo))


@rule("pd_op.full")
def _full(call: Call) -> Facts:
    # every element is the attribute's number, rounded to the dtype (a tiny one may round
    # to a zero of its sign)
    v = call.number("value")
    if v is None:
        return UNKNOWN
    if math.isnan(v):
        return Facts(nan=True)
    return Facts(nan=False, lo=call.down(v), negzero=math.copysign(1.0, v) < 0)


def annotate(graph: fx.Graph) -> None:
    """Put each kernel call's facts on its node (FACTS_META), in graph order; a node that
    already has them (a specialiser's replacement, annotated before) keeps them."""
    for node in graph.nodes:
        if node.op != "call_function" or FACTS_META in node.meta:
            continue
        name = node.meta.get(KERNEL_META)
        fn = RULES.get(name)
        if fn is None or node.meta.get("pir_dtype") not in FLOATS:
            continue
        if not any(e.fn is node.target for e in REGISTRY.entries(name)):
            continue  # another registry's kernel (a test's): the rules speak of pirc's
        got = fn(Call(node))
        if got != UNKNOWN:
            node.meta[FACTS_META] = got
