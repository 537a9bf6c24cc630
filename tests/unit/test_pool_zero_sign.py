"""A max pool whose max is a zero has Paddle's sign: Paddle's CPU kernel folds each window
with `y = y > x ? y : x` from -FLT_MAX, so of equal maxima the last cell wins (+0 then -0 gives
-0; tools/paddle_oracle/max_pool_zero_sign.log: 262 pools in Paddle 3.3.1, bit for bit),
where torch's pooling takes the first.  Each path of pirc's max pool (torch's pooling with the
refold, the window-by-window fold, the lowering's specialised call) against that fold written
out in Python, and the gradient still at the first cell equal to the max (MaxPoolGrad)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import torch

import pirc
from pirc.lower import lower
from pirc.lower.kernels import pool
from tensor_bits import bits_equal

FLT_MAX = float(np.finfo(np.float32).max)


def paddle_fold(window):
    """phi funcs::MaxPool over one window's cells in row-major order."""
    y = -FLT_MAX
    for x in window:
        y = y if y > x else x
    return y


def paddle_pool2d(x, k, s):
    n, c, h, w = x.shape
    oh, ow = (h - k) // s + 1, (w - k) // s + 1
    out = np.empty((n, c, oh, ow), dtype=x.dtype)
    for i, j, a, b in itertools.product(range(n), range(c), range(oh), range(ow)):
        out[i, j, a, b] = paddle_fold(x[i, j, a * s:a * s + k, b * s:b * s + k].ravel().tolist())
    return out


WINDOWS = list(itertools.product([0.0, -0.0, -1.0], repeat=4))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_each_2x2_window_of_signed_zeros(dtype):
    x = np.array(WINDOWS, dtype=dtype).reshape(len(WINDOWS), 1, 2, 2)
    got = pool.pool2d(torch.from_numpy(x), [2, 2], strides=[2, 2], paddings=[0, 0])
    bits_equal(got, torch.from_numpy(paddle_pool2d(x, 2, 2)))
    minus_zero = sum(1 for w in WINDOWS if paddle_fold(w) == 0 and math.copysign(1, paddle_fold(w)) < 0)
    assert minus_zero and ((got == 0) & torch.signbit(got)).sum() == minus_zero


@pytest.mark.parametrize("window_by_window", [False, True])
@pytest.mark.parametrize("k,s", [(2, 2), (3, 1), (3, 2)])
def test_random_maps_of_zeros_nan_and_negatives(monkeypatch, window_by_window, k, s):
    rng = np.random.default_rng(k * 10 + s)
    x = rng.choice([0.0, -0.0, -1.0, 2.0, np.nan], size=(2, 3, 7, 7),
                   p=[0.4, 0.4, 0.1, 0.05, 0.05]).astype(np.float32)
    if window_by_window:
        monkeypatch.setattr(pool, "_torch_pool", lambda *a, **kw: None)
    got = pool.pool2d(torch.from_numpy(x), [k, k], strides=[s, s], paddings=[0, 0])
    bits_equal(got, torch.from_numpy(paddle_pool2d(x, k, s)))


def test_a_map_without_minus_zero_keeps_torchs_pooling(monkeypatch):
    """The refold is asked for only where x holds a -0: zeros of one sign are torch's."""
    x = torch.zeros(1, 2, 4, 4)
    x[0, 1] = -1.0
    monkeypatch.setattr(pool, "_max_fold", lambda *a: pytest.fail("refolded"))
    bits_equal(pool.pool2d(x, [2, 2], strides=[2, 2], paddings=[0, 0]), torch.zeros(1, 2, 2, 2)
               .index_fill_(1, torch.tensor([1]), -1.0))


PROGRAM = '''{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[-1,1,2,2],stop_gradient:[true]} : () -> tensor<-1x1x2x2xf32>
    (%1) = "pd_op.full_int_array" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[2,2]} : () -> tensor<2xi64>
    (%2) = "pd_op.pool2d" (%0, %1) {adaptive:false,ceil_mode:false,data_format:"NCHW",exclusive:true,global_pooling:false,padding_algorithm:"EXPLICIT",paddings:[0,0],pooling_type:"max",stop_gradient:[true],strides:[2,2]} : (tensor<-1x1x2x2xf32>, tensor<2xi64>) -> tensor<-1x1x1x1xf32>
    (%3) = "pd_op.fetch" (%2) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<-1x1x1x1xf32>) -> tensor<-1x1x1x1xf32>
}'''


def test_the_lowered_pool_has_paddles_zero():
    gm = lower(pirc.parse(PROGRAM, from_version=4))
    x = np.array(WINDOWS, dtype=np.float32).reshape(len(WINDOWS), 1, 2, 2)
    with torch.no_grad():
        got = gm(torch.from_numpy(x))[0]
    bits_equal(got, torch.from_numpy(paddle_pool2d(x, 2, 2)))


def test_the_gradient_reaches_the_first_cell_equal_to_the_max():
    """Paddle's MaxPoolGrad stops at the first cell equal to the max; under autograd the
    window-by-window fold gathers from that cell, and the value still has the last zero's
    sign, as without autograd."""
    for cells, sign in (([0.0, -0.0, -1.0, 0.0], False), ([0.0, 0.0, -1.0, -0.0], True),
                        ([-0.0, -1.0, 0.0, -2.0], False), ([-1.0, -0.0, -2.0, -3.0], True)):
        x = torch.tensor(cells, requires_grad=True)
        out = pool._max_fold(x.reshape(1, 1, 4), torch.ones((), dtype=torch.bool))
        assert out.item() == 0 and bool(torch.signbit(out).item()) is sign, cells
        with torch.no_grad():
            plain = pool._max_fold(x.reshape(1, 1, 4), torch.ones((), dtype=torch.bool))
        bits_equal(out.detach(), plain)
        out.sum().backward()
        first = next(i for i, c in enumerate(cells) if c == 0)
        assert x.grad.tolist() == [1.0 if i == first else 0.0 for i in range(4)], cells


def test_a_nonzero_max_under_autograd_is_the_value_and_gradient_of_its_cell():
    x = torch.tensor([[-1.0, 3.0, 3.0, 2.0], [float("nan"), 1.0, 0.5, -0.0]], requires_grad=True)
    out = pool._max_fold(x.reshape(2, 1, 4), torch.ones((), dtype=torch.bool))
    assert out.reshape(-1).tolist() == [3.0, 1.0]
    out.sum().backward()
    assert x.grad.tolist() == [[0.0, 1.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]]
