"""Issue 22 item 8, cnn and the LLaMA block's norm: value_facts' rules hold on every input, and
the fast paths they open give the bits of the paths they replace.

* each rule of pirc.lower.value_facts (relu, square, pow, mean, scale, add, full): operands
  that meet the rule's premises, boundary values in float16 / bfloat16 / float32 / float64,
  through the op's kernel: the result obeys the facts derived; premises not met give no fact
  (with an input whose result breaks the fact a careless rule would give);
* `_down`: a number of the dtype, never above the number given;
* max pool reading a relu: no NaN refold, the pool2d kernel's bits (and the window-by-window
  path's) on relu'd boundary inputs; a window of padding alone, or an input that is not a
  relu's (abs, a feed), keeps the refold;
* rsqrt: torch.rsqrt alone where the input is >= FLT_MIN (mean(x^2) + 1e-6), and for every
  dtype but float32, against the kernel; a bias of 0 or a denormal keeps the kernel;
* relu's specialiser: threshold + nan_to_num_ (threshold alone on an input never NaN)
  against the kernel, its gradient included; max_pool2d_nchw's direct torch.max_pool2d call
  against F.max_pool2d.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
import torch.fx as fx
import torch.nn.functional as F

import pirc
from pirc.api import lower
from pirc.lower.kernels import activation, creation, elementwise, fused, pool, reduce
from pirc.lower.kernels.eigen_packets import FLT_MIN
from pirc.lower.kernels.losses import square
from pirc.lower.specialize import specialize_calls
from pirc.lower.value_facts import (FACTS_META, KERNEL_META, UNKNOWN, Facts, _down, annotate,
                                    facts_of)
from pirc.testing import boundary_inputs
from tensor_bits import bits_equal

FLOATS = [torch.float32, torch.float64, torch.float16, torch.bfloat16]
_NAMES = {torch.float32: "f32", torch.float64: "f64", torch.float16: "f16", torch.bfloat16: "bf16"}
g = torch.Generator().manual_seed(8)




def boundary(dtype, shape=(3, 11)) -> list[torch.Tensor]:
    """pirc.testing.boundary_inputs as tensors (bf16 arrays are bit patterns)."""
    out = []
    for a in boundary_inputs(_NAMES[dtype], shape).values():
        if dtype == torch.bfloat16:
            out.append(torch.from_numpy(a.view(np.int16).copy()).view(torch.bfloat16))
        else:
            out.append(torch.from_numpy(a.copy()))
    return out


def meeting(t: torch.Tensor, facts: Facts) -> torch.Tensor:
    """t changed to meet `facts`: a value below lo mirrored (>= 0: -0 kept, -inf to +inf) or
    raised to lo; a NaN made lo (or 0) where no NaN is allowed, a -0 +0 where no -0 is."""
    lo = facts.lo
    if lo == 0.0:
        t = torch.where(t < 0, -t, t)
    elif lo > -math.inf:
        t = torch.where(t < lo, torch.full_like(t, lo), t)
    if not facts.nan:
        t = torch.where(torch.isnan(t), torch.full_like(t, max(lo, 0.0)), t)
    if not facts.negzero:
        t = torch.where(t == 0, torch.zeros_like(t), t)
    return t


def obeys(t: torch.Tensor, facts: Facts) -> bool:
    nan = torch.isnan(t)
    if not facts.nan and bool(nan.any()):
        return False
    if not facts.negzero and bool(((t == 0) & torch.signbit(t)).any()):
        return False
    return bool((t.double()[~nan] >= facts.lo).all())


def derive(op: str, kernel, result_dtype, operands: dict, **attrs) -> Facts:
    """The facts annotate gives a call of `kernel` (op `op`) whose tensor operands (Facts
    values) are placeholders with those facts."""
    graph = fx.Graph()
    kwargs = {}
    for name, v in operands.items():
        if isinstance(v, Facts):
            node = graph.placeholder(name)
            node.meta["pir_dtype"] = result_dtype
            if v != UNKNOWN:
                node.meta[FACTS_META] = v
            kwargs[name] = node
        else:
            kwargs[name] = v
    call = graph.call_function(kernel, (), {**kwargs, **attrs})
    call.meta[KERNEL_META], call.meta["pir_dtype"] = op, result_dtype
    graph.output(call)
    annotate(graph)
    return facts_of(call)


NONNEG = Facts(nan=True, lo=0.0)
NONNEG_NUMBER = Facts(nan=False, lo=0.0)
RELU = Facts(nan=False, lo=0.0, negzero=False)


# -- _down -----------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("v", [1e-6, 0.1, -0.1, 1e-40, -1e-40, 3.0, 1e39, -1e39, 0.0, -0.0,
                               math.inf, -math.inf])
def test_down_is_a_number_of_the_dtype_not_above(dtype, v):
    d = _down(v, dtype)
    assert d <= v
    assert torch.tensor(d, dtype=dtype).item() == d          # representable
    if math.isfinite(d) and d != v:  # and the largest such: the next one up is above v
        up = torch.nextafter(torch.tensor(d, dtype=dtype), torch.tensor(math.inf, dtype=dtype))
        assert up.item() > v


# -- the rules -------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", ["pd_op.relu", "pd_op.relu_"])
def test_relu_is_never_nan_and_never_negative(dtype, name):
    facts = derive(name, activation.relu, dtype, {"x": UNKNOWN})
    assert facts == RELU
    for x in boundary(dtype):
        assert obeys(activation.relu(x), facts)


def test_rules_know_nothing_of_other_dtypes_and_unmarked_calls():
    assert derive("pd_op.relu", activation.relu, torch.int32, {"x": UNKNOWN}) == UNKNOWN
    assert derive("pd_op.relu", activation.relu, torch.complex64, {"x": UNKNOWN}) == UNKNOWN
    assert derive("pd_op.tanh", activation.tanh, torch.float32, {"x": UNKNOWN}) == UNKNOWN
    graph = fx.Graph()
    call = graph.call_function(activation.relu, (graph.placeholder("x"),))
    call.meta["pir_dtype"] = torch.float32   # no KERNEL_META: not an op's kernel call
    annotate(graph)
    assert facts_of(call) == UNKNOWN
    # another function called for pd_op.relu (a test registry's kernel): not pirc's relu
    assert derive("pd_op.relu", elementwise.abs_, torch.float32, {"x": UNKNOWN}) == UNKNOWN


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("x_facts", [UNKNOWN, NONNEG_NUMBER])
def test_square_is_never_negative(dtype, x_facts):
    facts = derive("pd_op.square", square, dtype, {"x": x_facts})
    assert facts == Facts(nan=x_facts.nan, lo=0.0, negzero=False)
    for x in boundary(dtype):
        assert obeys(square(meeting(x, x_facts)), facts)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("y", [2, 2.0, 4.0, 0.0, -2.0, 6.0])
@pytest.mark.parametrize("x_facts", [UNKNOWN, NONNEG_NUMBER])
def test_pow_by_an_even_integer_is_never_negative(dtype, y, x_facts):
    facts = derive("pd_op.pow", elementwise.pow_, dtype, {"x": x_facts}, y=y)
    assert facts == Facts(nan=x_facts.nan, lo=0.0, negzero=False)
    for x in boundary(dtype):
        assert obeys(elementwise.pow_(meeting(x, x_facts), y=y), facts)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("y", [3.0, 1.0, -1.0, 2.5, 0.5, 1e39, float("nan")])
def test_pow_by_anything_else_knows_nothing(dtype, y):
    assert derive("pd_op.pow", elementwise.pow_, dtype, {"x": UNKNOWN}, y=y) == UNKNOWN


def test_pow_by_an_odd_integer_is_negative_somewhere():
    # what a rule taking any integer y would have claimed wrongly
    assert elementwise.pow_(torch.tensor([-2.0]), y=3.0).item() < 0


@pytest.mark.parametrize("dtype", FLOATS)
def test_mean_of_values_never_negative_is_never_negative(dtype):
    facts = derive("pd_op.mean", reduce.mean, dtype, {"x": NONNEG}, axis=[-1], keepdim=True)
    assert facts == Facts(nan=True, lo=0.0)
    for x in boundary(dtype):
        x = meeting(x, NONNEG)
        assert obeys(reduce.mean(x, [-1], keepdim=True), facts)
        assert obeys(reduce.mean(x, []), facts)
    empty = torch.zeros(3, 0, dtype=dtype)
    assert obeys(reduce.mean(empty, [-1]), facts)   # 0 / 0: NaN, allowed


@pytest.mark.parametrize("dtype", FLOATS)
def test_mean_keeps_no_bound_above_zero_and_nothing_of_unknown(dtype):
    assert derive("pd_op.mean", reduce.mean, dtype, {"x": Facts(nan=False, lo=0.5)},
                  axis=[-1]) == Facts(nan=True, lo=0.0)
    assert derive("pd_op.mean", reduce.mean, dtype, {"x": UNKNOWN}, axis=[-1]) == UNKNOWN
    assert reduce.mean(torch.tensor([-1.0, 0.5], dtype=dtype), [-1]).item() < 0


SCALES = [1.0, 2.5, 0.0, -0.0, math.inf, 1e-50, 3]
BIASES = [1e-6, 0.0, -3.0, 1e-40, math.inf, -math.inf, 2]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("s", SCALES)
@pytest.mark.parametrize("b", BIASES)
def test_scale_after_of_values_never_negative_is_at_least_the_bias(dtype, s, b):
    facts = derive("pd_op.scale", elementwise.scale, dtype, {"x": NONNEG}, scale=s, bias=b,
                   bias_after_scale=True)
    assert facts == Facts(nan=True, lo=_down(b, dtype))
    for x in boundary(dtype):
        assert obeys(elementwise.scale(meeting(x, NONNEG), s, bias=b), facts)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("s", SCALES)
@pytest.mark.parametrize("b", [0.0, 1e-6, 2.0, -1e-6])
def test_scale_before_of_values_never_negative(dtype, s, b):
    facts = derive("pd_op.scale", elementwise.scale, dtype, {"x": NONNEG}, scale=s, bias=b,
                   bias_after_scale=False)
    assert facts == (Facts(nan=True, lo=0.0) if b >= 0 else UNKNOWN)
    for x in boundary(dtype):
        assert obeys(elementwise.scale(meeting(x, NONNEG), s, bias=b, bias_after_scale=False),
                     facts)


@pytest.mark.parametrize("dtype", FLOATS)
def test_scale_without_its_premises_knows_nothing(dtype):
    def facts(x, s, b):
        return derive("pd_op.scale", elementwise.scale, dtype, {"x": x}, scale=s, bias=b,
                      bias_after_scale=True)
    assert facts(NONNEG, -1.0, 1e-6) == UNKNOWN          # a negative scale
    assert facts(NONNEG, math.nan, 1e-6) == UNKNOWN
    assert facts(UNKNOWN, 1.0, 1e-6) == UNKNOWN          # x may be negative
    assert facts(Facts(nan=False, lo=-1.0), 1.0, 1e-6) == UNKNOWN
    assert facts(NONNEG, 1.0, math.nan) == UNKNOWN
    # a scale tensor (not folded to a number) is not read
    graph = fx.Graph()
    x, s = graph.placeholder("x"), graph.placeholder("s")
    x.meta[FACTS_META] = NONNEG
    call = graph.call_function(elementwise.scale, (x, s), {"bias": 1e-6})
    call.meta[KERNEL_META], call.meta["pir_dtype"] = "pd_op.scale", dtype
    annotate(graph)
    assert facts_of(call) == UNKNOWN
    # what those rules would have got wrong
    two = torch.tensor([2.0], dtype=dtype)
    assert elementwise.scale(two, -1.0, bias=1e-6).item() < 1e-6
    assert elementwise.scale(-two, 1.0, bias=1e-6).item() < 1e-6


ADD_CASES = [
    # x facts, y facts, expected
    (NONNEG, NONNEG, Facts(nan=True, lo=0.0)),
    (NONNEG_NUMBER, NONNEG_NUMBER, Facts(nan=False, lo=0.0)),
    (NONNEG_NUMBER, Facts(nan=False, lo=1e-6), Facts(nan=False, lo=1e-6)),
    (Facts(nan=False, lo=0.25), Facts(nan=False, lo=0.5), Facts(nan=False, lo=0.5)),
    (NONNEG_NUMBER, Facts(nan=False, lo=-3.0), Facts(nan=False, lo=-3.0)),
    (Facts(nan=False, lo=-3.0), NONNEG, Facts(nan=True, lo=-3.0)),
    (NONNEG_NUMBER, Facts(nan=False), Facts(nan=True)),   # +inf + -inf
    (Facts(nan=False, lo=-1.0), Facts(nan=False, lo=-2.0), Facts(nan=False)),
    (UNKNOWN, NONNEG, UNKNOWN),
]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("xf,yf,want", ADD_CASES)
def test_add(dtype, xf, yf, want):
    want = Facts(nan=want.nan, lo=_down(want.lo, dtype))
    assert derive("pd_op.add", elementwise.add, dtype, {"x": xf, "y": yf}) == want
    xs, ys = boundary(dtype), boundary(dtype)
    for x in xs:
        for y in ys[::3]:
            assert obeys(elementwise.add(meeting(x, xf), meeting(y, yf)), want)


def test_add_with_a_side_that_may_be_minus_inf_may_be_nan():
    inf = torch.tensor([math.inf])
    assert torch.isnan(elementwise.add(inf, -inf)).all()   # why Facts(nan=True) above


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("value", [1e-6, 0.0, -0.0, -2.5, 1e-40, -1e-50, 1e-50, math.inf,
                                   -math.inf, math.nan, 70000.0, 3])
def test_full_is_its_value(dtype, value):
    facts = derive("pd_op.full", creation.full, dtype, {}, shape=[3], value=value, dtype=dtype)
    want = Facts(nan=True) if math.isnan(value) else Facts(
        nan=False, lo=_down(value, dtype), negzero=math.copysign(1.0, value) < 0)
    assert facts == want
    try:
        out = creation.full(shape=[3], value=value, dtype=dtype)
    except RuntimeError:   # 70000 in float16: torch refuses, no value to hold the facts
        assert dtype == torch.float16 and value == 70000.0
        return
    assert obeys(out, facts)


def test_full_of_a_string_value_knows_nothing():
    assert derive("pd_op.full", creation.full, torch.float32, {}, shape=[1], value="inf",
                  dtype=torch.float32) == UNKNOWN


# -- max pool after a relu -------------------------------------------------------------------

def _typed(node, shape, dtype):
    node.meta["pir_shape"], node.meta["pir_dtype"] = tuple(shape), dtype
    return node


POOLS = [
    # kernel, strides, paddings, ceil_mode, size, every window holds an input cell,
    # the windows tile the map
    ([2, 2], [2, 2], [0, 0], False, (16, 16), True, True),     # cnn's
    ([3, 3], [3, 3], [0, 0], True, (9, 6), True, True),
    ([2, 3], [2, 3], [0, 0], False, (4, 9), True, True),
    ([2, 2], [2, 2], [0, 0], False, (7, 8), True, False),      # row 7 in no window
    ([3, 3], [2, 2], [1, 1], True, (7, 8), True, False),
    ([2, 3], [2, 1], [1, 0, 0, 1], False, (5, 6), True, False),  # asymmetric: a -inf pad
    ([3, 3], [1, 1], [1, 1], False, (4, 5), True, False),
    ([2, 2], [1, 1], [2, 0, 2, 0], False, (5, 5), False, False),  # first windows: padding alone
]


def _pool_graph(shape, dtype, first, kernel, strides, paddings, ceil_mode, facts=UNKNOWN):
    """x -> `first` (a relu, abs, or nothing: a feed, `facts` on it) -> pool2d(max),
    specialised as the lowering does."""
    attrs = dict(strides=strides, paddings=paddings, ceil_mode=ceil_mode, pooling_type="max")
    first_kernel = {"pd_op.relu": activation.relu, "pd_op.abs": elementwise.abs_,
                    "feed": None}[first]
    graph = fx.Graph()
    x = _typed(graph.placeholder("x"), (-1, *shape[1:]), dtype)
    x = _typed(graph.call_function(torch.clone, (x,)), (-1, *shape[1:]), dtype)
    if facts != UNKNOWN:
        x.meta[FACTS_META] = facts
    if first_kernel is not None:
        x = _typed(graph.call_function(first_kernel, (x,)), (-1, *shape[1:]), dtype)
        x.meta[KERNEL_META] = first
    out = pool.pool2d(torch.zeros(shape, dtype=dtype), kernel, **attrs)
    call = graph.call_function(pool.pool2d, (x, kernel), attrs)
    _typed(call, (-1, *out.shape[1:]), dtype).meta[KERNEL_META] = "pd_op.pool2d"
    graph.output(call)
    gm = fx.GraphModule(torch.nn.Module(), graph)
    specialize_calls(gm)
    return gm, first_kernel, attrs


def _big(shape, dtype):
    """A batch of 64 (past max_pool2d_tiles' small map) with every special value in it."""
    x = torch.randn(64, *shape[1:], generator=g, dtype=torch.float64)
    specials = [math.nan, math.inf, -math.inf, -0.0, 0.0, 1e-310, -1e-310, 1e-40, 3.4e38, -1e300]
    flat = x.view(-1)
    for i, v in enumerate(specials):
        flat[i::37 + i] = v
    return [x.to(dtype), torch.zeros_like(x, dtype=dtype), (-x).to(dtype)]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("kernel,strides,paddings,ceil_mode,size,covered,tiles", POOLS)
def test_max_pool_of_a_relu_needs_no_refold(monkeypatch, dtype, kernel, strides, paddings,
                                            ceil_mode, size, covered, tiles):
    shape = (2, 3, *size)
    gm, relu, attrs = _pool_graph(shape, dtype, "pd_op.relu", kernel, strides, paddings,
                                  ceil_mode)
    assert ("max_pool2d_tiles" in gm.code) == tiles and "pool_pool2d" not in gm.code
    assert ("max_pool2d_nchw" in gm.code) == (not tiles)
    assert ("max_pool_nan_fold" in gm.code) == (not covered)
    cases = boundary(dtype, shape) + _big(shape, dtype)
    with torch.no_grad():
        got = [gm(x) for x in cases]
        want = [pool.pool2d(relu(x), kernel, **attrs) for x in cases]
        monkeypatch.setattr(pool, "_torch_pool", lambda *a, **k: None)  # window by window
        paddle = [pool.pool2d(relu(x), kernel, **attrs) for x in cases]
    for a, b, c in zip(got, want, paddle):
        bits_equal(a, b)
        bits_equal(a, c)
    if not covered:   # the windows of padding alone are Paddle's -FLT_MAX, kept by the refold
        assert (got[0] == -torch.finfo(torch.float32).max).any()


def test_max_pool_tiles_need_no_minus_zero():
    """An input never NaN but maybe -0 keeps torch's pooling and its refold, which takes
    Paddle's zero (the last of equal maxima, pool._max_fold): with a +0 and a -0 in one
    window, neither torch's first zero nor the maxima of rows then columns is Paddle's."""
    shape = (64, 8, 16, 16)
    gm, _, attrs = _pool_graph(shape, torch.float32, "feed", [2, 2], [2, 2], [0, 0], False,
                               facts=Facts(nan=False, lo=0.0))
    assert "max_pool2d_nchw" in gm.code and "tiles" not in gm.code and "nan_fold" in gm.code
    for first_row in (-0.0, 0.0):
        x = torch.zeros(shape)
        x[:, :, 0::2, :] = first_row
        x[:, :, 1::2, :] = -first_row
        with torch.no_grad():
            bits_equal(gm(x), pool.pool2d(x, [2, 2], **attrs))
    x = torch.zeros(shape)
    x[:, :, 1::2, 1::2] = -0.0   # each window +0, +0, +0, -0: Paddle's max is the last, -0
    assert not torch.equal(torch.signbit(pool.max_pool2d_tiles(x, 2, 2)),
                           torch.signbit(pool.pool2d(x, [2, 2], **attrs)))   # why


@pytest.mark.parametrize("first", ["pd_op.abs", "feed"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_max_pool_of_anything_else_keeps_its_refold(first, dtype):
    shape = (2, 3, 8, 8)
    gm, first_kernel, attrs = _pool_graph(shape, dtype, first, [2, 2], [2, 2], [0, 0], False)
    assert "max_pool_nan_fold" in gm.code
    x = torch.randn(shape, generator=g, dtype=dtype)
    x[0, 0, 0, 0] = math.nan                       # a window [NaN, v, w, u]: Paddle's max of v..u
    x[1, 2, 4:6, 4:6] = -math.inf
    before = x if first_kernel is None else first_kernel(x)
    with torch.no_grad():
        got = gm(x)
    bits_equal(got, pool.pool2d(before, [2, 2], **attrs))
    if first_kernel is None:
        assert not torch.isnan(got[0, 0, 0, 0]) and got[1, 2, 2, 2] == -torch.finfo(torch.float32).max


# -- whole programs: lowered with the facts --------------------------------------------------

POOL_PROGRAM = '''{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[-1,3,8,8],stop_gradient:[true]} : () -> tensor<-1x3x8x8xf32>
    (%1) = "FIRST" (%0) {stop_gradient:[true]} : (tensor<-1x3x8x8xf32>) -> tensor<-1x3x8x8xf32>
    (%2) = "pd_op.full_int_array" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[2,2]} : () -> tensor<2xi64>
    (%3) = "pd_op.pool2d" (%1, %2) {adaptive:false,ceil_mode:false,data_format:"NCHW",exclusive:true,global_pooling:false,padding_algorithm:"EXPLICIT",paddings:[0,0],pooling_type:"max",stop_gradient:[true],strides:[2,2]} : (tensor<-1x3x8x8xf32>, tensor<2xi64>) -> tensor<-1x3x4x4xf32>
    (%4) = "pd_op.fetch" (%3) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<-1x3x4x4xf32>) -> tensor<-1x3x4x4xf32>
}'''


@pytest.mark.parametrize("first,refold", [("pd_op.relu", False), ("pd_op.relu_", False),
                                          ("pd_op.abs", True), ("pd_op.tanh", True),
                                          ("pd_op.exp", True)])
def test_lowering_drops_the_refold_after_a_relu_only(first, refold):
    program = pirc.parse(POOL_PROGRAM.replace("FIRST", first), from_version=4)
    gm = lower(program)
    assert ("max_pool_nan_fold" in gm.code) == refold
    kernel = {"pd_op.relu": activation.relu, "pd_op.relu_": activation.relu,
              "pd_op.abs": elementwise.abs_, "pd_op.tanh": activation.tanh,
              "pd_op.exp": elementwise.exp}[first]
    attrs = dict(strides=[2, 2], paddings=[0, 0], pooling_type="max")
    for x in boundary(torch.float32, (2, 3, 8, 8)):
        with torch.no_grad():
            bits_equal(gm(x)[0], pool.pool2d(kernel(x), [2, 2], **attrs))


def test_cnn_lowers_without_a_refold():
    from pathlib import Path
    corpus = Path(__file__).resolve().parents[1] / "fixtures" / "corpus" / "3.3.1"
    program = pirc.load(str(corpus / "cnn.3.3.1.json"))
    params = str(corpus / "cnn.3.3.1.pdiparams")
    for pipeline in ("", "fuse"):
        code = lower(program, params, pipeline=pipeline).code
        assert "max_pool_nan_fold" not in code and "max_pool2d_tiles(" in code
        assert code.count("torch.threshold(") == 2 and "activation_relu" not in code


# -- rsqrt -----------------------------------------------------------------------------------

RMS_PROGRAM = '''{
    (%0) = "pd_op.data" () {dtype:DT,name:"x",place:Place(undefined:0),shape:[-1,8,16],stop_gradient:[true]} : () -> tensor<-1x8x16xT>
    (%1) = "pd_op.pow" (%0) {stop_gradient:[true],y:2} : (tensor<-1x8x16xT>) -> tensor<-1x8x16xT>
    (%2) = "pd_op.full_int_array" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[-1]} : () -> tensor<1xi64>
    (%3) = "pd_op.mean" (%1, %2) {keepdim:true,stop_gradient:[true]} : (tensor<-1x8x16xT>, tensor<1xi64>) -> tensor<-1x8x1xT>
    (%4) = "pd_op.full" () {dtype:DT,place:Place(cpu),shape:[1],stop_gradient:[true],value:1} : () -> tensor<1xT>
    (%5) = "pd_op.scale" (%3, %4) {bias:BIAS,bias_after_scale:true,stop_gradient:[true]} : (tensor<-1x8x1xT>, tensor<1xT>) -> tensor<-1x8x1xT>
    (%6) = "pd_op.rsqrt" (%5) {stop_gradient:[true]} : (tensor<-1x8x1xT>) -> tensor<-1x8x1xT>
    (%7) = "pd_op.fetch" (%6) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<-1x8x1xT>) -> tensor<-1x8x1xT>
}'''
_PIR_TYPES = {torch.float32: ("float32", "f32"), torch.float64: ("float64", "f64"),
              torch.float16: ("float16", "f16"), torch.bfloat16: ("bfloat16", "bf16")}


def _rms_program(dtype, bias):
    name, short = _PIR_TYPES[dtype]
    text = RMS_PROGRAM.replace("DT", name).replace("xT>", f"x{short}>").replace("BIAS", bias)
    return pirc.parse(text, from_version=4)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("bias,checked", [("1e-06", False), ("1e-05", False), ("0", True),
                                          ("1e-40", True), ("-1e-06", True)])
def test_rsqrt_of_mean_square_plus_eps_skips_the_denormal_check(dtype, bias, checked):
    gm = lower(_rms_program(dtype, bias))
    # float32 keeps the kernel (its denormal check) unless the input is proved >= FLT_MIN;
    # every other dtype is torch.rsqrt in the kernel too
    assert ("fused_rsqrt" in gm.code) == (checked and dtype == torch.float32)
    b = float(np.float32(float(bias)))
    cases = boundary(dtype, (2, 8, 16)) + [torch.full((2, 8, 16), 1e-21).to(dtype)]
    for x in cases:
        with torch.no_grad():
            want = fused.rsqrt(elementwise.scale(
                reduce.mean(elementwise.pow_(x, y=2.0), [-1], keepdim=True), 1.0, bias=b))
            bits_equal(gm(x)[0], want)


@pytest.mark.parametrize("dtype", FLOATS)
def test_rsqrt_fast_path_is_the_kernel_where_facts_allow(dtype):
    """The specialised call on a placeholder proved >= FLT_MIN (float32) or of any value
    (other dtypes) against the kernel, on inputs it allows (FLT_MIN itself, NaN, +inf)."""
    graph = fx.Graph()
    x = _typed(graph.placeholder("x"), (-1, 11), dtype)
    if dtype == torch.float32:
        x.meta[FACTS_META] = Facts(nan=True, lo=FLT_MIN)
    call = _typed(graph.call_function(fused.rsqrt, (x,)), (-1, 11), dtype)
    graph.output(call)
    gm = fx.GraphModule(torch.nn.Module(), graph)
    assert specialize_calls(gm) == 1 and "torch.rsqrt" in gm.code
    for x in boundary(dtype):
        if dtype == torch.float32:
            x = meeting(x, Facts(nan=True, lo=FLT_MIN))
        bits_equal(gm(x), fused.rsqrt(x))
    edge = torch.tensor([FLT_MIN, math.nan, math.inf, 3.4e38, 1.0]).to(dtype)
    bits_equal(gm(edge), fused.rsqrt(edge))


def test_rsqrt_without_facts_keeps_the_kernel():
    graph = fx.Graph()
    x = _typed(graph.placeholder("x"), (-1, 11), torch.float32)
    x.meta[FACTS_META] = Facts(nan=False, lo=0.0)   # zeros and denormals allowed
    graph.output(_typed(graph.call_function(fused.rsqrt, (x,)), (-1, 11), torch.float32))
    gm = fx.GraphModule(torch.nn.Module(), graph)
    assert specialize_calls(gm) == 0
    tiny = torch.tensor([FLT_MIN / 4] * 16)
    assert torch.isinf(gm(tiny)).all()   # Eigen's flush, which torch.rsqrt alone would miss
    assert not torch.isinf(torch.rsqrt(tiny)).any()


# -- relu ------------------------------------------------------------------------------------

def _relu_graph(dtype, facts=UNKNOWN):
    graph = fx.Graph()
    x = _typed(graph.placeholder("x"), (-1, 11), dtype)
    x = _typed(graph.call_function(torch.clone, (x,)), (-1, 11), dtype)
    if facts != UNKNOWN:
        x.meta[FACTS_META] = facts
    graph.output(_typed(graph.call_function(activation.relu, (x,)), (-1, 11), dtype))
    gm = fx.GraphModule(torch.nn.Module(), graph)
    return gm, specialize_calls(gm)


@pytest.mark.parametrize("dtype", FLOATS)
def test_relu_specialised_is_the_kernel(dtype):
    gm, done = _relu_graph(dtype)
    assert done == 1 and "torch.threshold(" in gm.code and "nan_to_num_(" in gm.code
    for x in boundary(dtype) + [torch.randn(33, 22, generator=g).to(dtype)[:, ::2]]:
        bits_equal(gm(x), activation.relu(x))


@pytest.mark.parametrize("dtype", FLOATS)
def test_relu_of_a_value_never_nan_is_threshold_alone(dtype):
    gm, done = _relu_graph(dtype, Facts(nan=False))
    assert done == 1 and "torch.threshold(" in gm.code and "nan_to_num" not in gm.code
    for x in boundary(dtype):
        x = meeting(x, Facts(nan=False))   # -inf, -0, denormals and extremes stay
        bits_equal(gm(x), activation.relu(x))


def test_relu_specialised_keeps_the_kernels_gradient():
    gm, _ = _relu_graph(torch.float64)
    x = torch.tensor([math.nan, math.inf, -math.inf, -0.0, 0.0, 1.5, -2.0, 1e-310, -1e-310,
                      3.0, 4.0], dtype=torch.float64)
    dy = torch.linspace(1, 2, 11, dtype=torch.float64)
    a, b = x.clone().requires_grad_(), x.clone().requires_grad_()
    gm(a).backward(dy)
    activation.relu(b).backward(dy)   # the kernel's out-of-place path
    bits_equal(a.grad, b.grad)


def test_relu_of_integers_keeps_the_kernel():
    gm, done = _relu_graph(torch.int32)
    assert done == 0


@pytest.mark.parametrize("shape", [(1, 8, 16, 16), (64, 8, 16, 16), (2, 3, 7, 9)])
def test_max_pool2d_nchw_is_f_max_pool2d(shape):
    x = torch.randn(shape, generator=g)
    x.view(-1)[::7] = math.nan
    x.view(-1)[3::11] = -0.0
    got = pool.max_pool2d_nchw(x, [2, 2], [2, 2], [0, 0])
    want = F.max_pool2d(x.contiguous(memory_format=torch.channels_last), [2, 2], [2, 2],
                        [0, 0]).contiguous() if x.numel() > 4096 else F.max_pool2d(
                            x, [2, 2], [2, 2], [0, 0])
    bits_equal(got, want)
