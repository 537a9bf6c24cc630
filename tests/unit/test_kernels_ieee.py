"""Kernels of the IEEE audit (docs/LOWERING.md, "IEEE values in per-element kernels"): where
Paddle's C++ computes inf or NaN, the kernel does too; where Paddle refuses the input, the
kernel refuses it with Paddle's reason; no Python arithmetic error (ZeroDivisionError,
OverflowError, a math domain ValueError) ever escapes.

The values Paddle computes (round past 10^308, renorm with p 0, truncated_gaussian with std
0, matrix_nms on degenerate boxes) are in tests/fixtures/kernel_cases (test_kernels.py);
Paddle's refusals, checked on the 3.3.1 wheel, are quoted below.
"""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import pirc.lower.kernels  # noqa: F401 - registers the kernels
from pirc.lower.kernels import c_numerics
from pirc.runtime.registry import REGISTRY

SPECIALS = [0.0, -0.0, math.inf, -math.inf, math.nan, 5e-324, -5e-324, 1e-45, 1.1754944e-38,
            3.4e38, -3.4e38, 1e308, -1e308, 1.0, 0.5, -2.0, 100.0]


def kernel(name, version=4):
    return REGISTRY.resolve("pd_op." + name, version).fn


def deliberate(op, fn):
    """Run fn; a refusal must be the kernel's own ValueError naming the op, never a Python
    arithmetic error."""
    try:
        return fn()
    except ValueError as e:
        assert str(e).startswith(op + ":"), f"{type(e).__name__}: {e}"
        return None


# -- C's arithmetic ------------------------------------------------------------------------

@pytest.mark.parametrize("a,b,want", [(1.0, 0.0, math.inf), (-1.0, 0.0, -math.inf),
                                      (1.0, -0.0, -math.inf), (0.0, 0.0, math.nan),
                                      (math.nan, 0.0, math.nan), (3.0, 2.0, 1.5)])
def test_division_as_c(a, b, want):
    got = c_numerics.div(a, b)
    assert (math.isnan(got) and math.isnan(want)) or got == want


def test_exp_log2_pow10_as_c():
    assert c_numerics.exp(1000.0) == math.inf and c_numerics.exp(-math.inf) == 0.0
    assert c_numerics.log2(0.0) == -math.inf and math.isnan(c_numerics.log2(-1.0))
    assert math.isnan(c_numerics.log2(math.nan)) and c_numerics.log2(8.0) == 3.0
    assert c_numerics.pow10(400) == math.inf and c_numerics.pow10(2) == 100.0
    assert c_numerics.wrap_int32(2 ** 31) == -2 ** 31 and c_numerics.wrap_int32(-5) == -5
    # the float functions (glibc's expf / log2f, or their fallbacks) on IEEE specials
    assert c_numerics.expf(1000.0) == math.inf and c_numerics.expf(-math.inf) == 0.0
    assert math.isnan(c_numerics.expf(math.nan)) and c_numerics.expf(0.0) == 1.0
    assert c_numerics.log2f(0.0) == -math.inf and math.isnan(c_numerics.log2f(-1.0))
    assert c_numerics.log2f(math.inf) == math.inf and c_numerics.log2f(8.0) == 3.0


# -- Paddle's refusals, with Paddle's reason ------------------------------------------------

def test_arange_step_zero_is_refused():
    # Paddle 3.3.1: (InvalidArgument) The step of range op should not be 0.
    with pytest.raises(ValueError, match="step of range op should not be 0"):
        kernel("arange")(torch.tensor(0.0), torch.tensor(5.0), torch.tensor(0.0))


@pytest.mark.parametrize("start,end,step", [(0.0, math.nan, 1.0), (0.0, math.inf, 1.0),
                                            (0.0, 5.0, math.nan)])
def test_arange_without_a_finite_count_is_refused(start, end, step):
    # Paddle 3.3.1: "The value of end must be finite" (API) or, from tensors, the kernel's
    # size is int64's minimum and the allocation fails (PreconditionNotMet)
    with pytest.raises(ValueError, match="no finite number of elements"):
        kernel("arange")(torch.tensor(start), torch.tensor(end), torch.tensor(step))


def test_arange_follows_getsize():
    f = kernel("arange")
    # an infinite step gives no element (Paddle 3.3.1: []), a step away from end none either
    assert f(torch.tensor(0.0), torch.tensor(5.0), torch.tensor(math.inf)).numel() == 0
    assert f(torch.tensor(0.0), torch.tensor(math.inf), torch.tensor(-1.0)).numel() == 0
    assert f(torch.tensor(0), torch.tensor(10), torch.tensor(3),
             dtype=torch.int64).tolist() == [0, 3, 6, 9]


def test_lp_pool2d_norm_type_zero_is_refused():
    # Paddle 3.3.1: (InvalidArgument) norm_type of LPPool op cannot be 0.
    with pytest.raises(ValueError, match="norm_type of LPPool op cannot be 0"):
        kernel("lp_pool2d")(torch.ones(1, 1, 2, 2), kernel_size=(2, 2), strides=(2, 2),
                            norm_type=0.0)


@pytest.mark.parametrize("box", [[math.nan, 0, 2, 2], [0, 0, math.inf, 2],
                                 [-math.inf, 0, 2, 2], [0, 0, 3e38, 2]])
def test_roi_align_on_a_box_paddle_aborts_on(box):
    # Paddle 3.3.1 aborts the process (std::length_error from vector::reserve) on each
    feat = torch.arange(32, dtype=torch.float32).reshape(1, 2, 4, 4)
    with pytest.raises(ValueError, match="roi_align: roi 0 .* Paddle's kernel aborts"):
        kernel("roi_align")(feat, torch.tensor([box], dtype=torch.float32),
                            torch.tensor([1], dtype=torch.int32), pooled_height=2,
                            pooled_width=2)


@pytest.mark.parametrize("scale,reason", [(math.inf, "out_h in Attr"), (1e30, "out_h in Attr"),
                                          (math.nan, "should be greater than 0"),
                                          (0.0, "should be greater than 0")])
def test_interpolate_scale_paddle_refuses(scale, reason):
    # Paddle 3.3.1: (InvalidArgument) out_h in Attr(out_shape) of Op(interpolate) should be
    # greater than 0 / The scale_w in input 'Scale' Tensor ... should be greater than 0
    x = torch.arange(16, dtype=torch.float32).reshape(1, 1, 4, 4)
    for f in (lambda: kernel("bilinear_interp")(x, None, None, torch.tensor([scale, scale]),
                                                out_h=-1, out_w=-1, align_corners=False),
              lambda: kernel("nearest_interp")(x, out_h=-1, out_w=-1, scale=[scale, scale],
                                               align_corners=False)):
        with pytest.raises(ValueError, match=reason):
            f()


# -- no Python arithmetic error on IEEE specials -------------------------------------------

VAL = st.sampled_from(SPECIALS)
# a float attribute (pir::FloatAttribute) holds float32 values only
F32_ATTR = st.sampled_from([v for v in SPECIALS if not math.isfinite(v) or v == 0
                            or 1e-45 <= abs(v) <= 3.4e38])


@settings(max_examples=60)
@given(st.lists(VAL, min_size=1, max_size=6), st.sampled_from([0, 1, 2, -3, 40, 308, 309, 400,
                                                               -400]),
       st.sampled_from([torch.float32, torch.float64]), st.sampled_from([1, 4]))
def test_round_on_specials(values, decimals, dtype, version):
    x = torch.tensor(values, dtype=torch.float64).to(dtype)
    out = kernel("round", version)(x, decimals=decimals)
    assert out.shape == x.shape and out.dtype == dtype


@settings(max_examples=60)
@given(st.lists(VAL, min_size=4, max_size=4), VAL, VAL)
def test_renorm_on_specials(values, p, max_norm):
    x = torch.tensor(values, dtype=torch.float32).reshape(2, 2)
    assert kernel("renorm")(x, p=p, axis=0, max_norm=max_norm).shape == (2, 2)


@settings(max_examples=60)
@given(F32_ATTR, F32_ATTR, F32_ATTR, F32_ATTR)
def test_truncated_gaussian_on_specials(mean, std, a, b):
    out = kernel("truncated_gaussian_random")(shape=[3], mean=mean, std=std, seed=1, a=a, b=b,
                                              dtype=torch.float32)
    assert out.shape == (3,)


@settings(max_examples=60)
@given(VAL, VAL, VAL)
def test_arange_on_specials(start, end, step):
    deliberate("arange", lambda: kernel("arange")(
        torch.tensor(start, dtype=torch.float64), torch.tensor(end, dtype=torch.float64),
        torch.tensor(step, dtype=torch.float64)) if abs(end - start) / max(abs(step), 1e-300)
        < 1e6 or not math.isfinite(end - start) else None)


@settings(max_examples=60)
@given(VAL)
def test_lp_pool2d_on_specials(norm_type):
    deliberate("lp_pool2d", lambda: kernel("lp_pool2d")(
        torch.tensor([[[[1.0, -2.0], [0.0, math.inf]]]]), kernel_size=(2, 2), strides=(2, 2),
        norm_type=norm_type))


@settings(max_examples=60)
@given(st.lists(VAL, min_size=4, max_size=4), st.booleans(), st.sampled_from([-1, 2]))
def test_roi_align_on_specials(box, aligned, sampling_ratio):
    feat = torch.arange(32, dtype=torch.float32).reshape(1, 2, 4, 4)
    # a finite box of a huge extent samples a huge grid, as in Paddle: keep the grid small
    if all(math.isfinite(v) and abs(v) < 1e3 for v in box) or not all(
            math.isfinite(v) for v in box):
        deliberate("roi_align", lambda: kernel("roi_align")(
            feat, torch.tensor([box], dtype=torch.float32), torch.tensor([1], dtype=torch.int32),
            pooled_height=2, pooled_width=2, sampling_ratio=sampling_ratio, aligned=aligned))
    boxes, num = torch.tensor([box], dtype=torch.float32), torch.tensor([1], dtype=torch.int32)
    # roi_pool and psroi_pool clamp every bin to the map: any box runs (Paddle: the same)
    kernel("roi_pool")(feat, boxes, num, pooled_height=2, pooled_width=2)
    kernel("psroi_pool")(torch.ones(1, 8, 4, 4), boxes, num, pooled_height=2, pooled_width=2,
                         output_channels=2)


@settings(max_examples=60)
@given(VAL, VAL)
def test_interpolate_on_specials(sh, sw):
    x = torch.arange(16, dtype=torch.float32).reshape(1, 1, 4, 4)
    if all(math.isfinite(s) and abs(s) < 50 for s in (sh, sw)) or not all(
            math.isfinite(s) for s in (sh, sw)) or min(sh, sw) <= 0:
        deliberate("interpolate", lambda: kernel("bilinear_interp")(
            x, None, None, torch.tensor([sh, sw]), out_h=-1, out_w=-1, align_corners=False))


@pytest.mark.parametrize("ratio", [-0.25, math.nan, math.inf, 0.75])
def test_temporal_shift_ratio_paddle_refuses(ratio):
    # Paddle 3.3.1: (InvalidArgument) Attr(shift_ratio) should be greater than 0 / less than
    # 0.5; pirc raised int()'s ValueError / OverflowError, or a reshape error, or (0.75) ran
    with pytest.raises(ValueError, match="temporal_shift: Attr\\(shift_ratio\\) should be"):
        kernel("temporal_shift")(torch.ones(2, 8, 1, 1), seg_num=2, shift_ratio=ratio)


@pytest.mark.parametrize("window", [math.nan, math.inf, -math.inf])
def test_average_accumulates_window_of_specials(window):
    # std::min<int64_t>(max_window, updates * window) casts the double as x86 does
    # (INT64_MIN for NaN and +-inf), so the window test passes; int() of it raised.  Paddle
    # 3.3.1 on these inputs: sums 0, 0, 3; num_accumulates 0, old 2, updates 6
    f = kernel("average_accumulates_")
    one = lambda v: torch.tensor([v], dtype=torch.int64)  # noqa: E731
    p = torch.ones(3)
    s1, s2, s3, na, ona, nu = f(p, p, p, p, one(1), one(0), one(5), average_window=window,
                                min_average_window=1)
    assert na.tolist() == [0] and ona.tolist() == [2] and nu.tolist() == [6]
    assert s1.tolist() == s2.tolist() == [0.0] * 3 and s3.tolist() == [3.0] * 3


@pytest.mark.parametrize("op,dtype,value", [("full_like", torch.int32, 3e9),
                                            ("full_like", torch.int32, 2147483904.0),
                                            ("full_like", torch.uint8, 300.0),
                                            ("full_like", torch.uint8, -1.0),
                                            ("full_like", torch.int64, 1e19),
                                            ("full_batch_size_like", torch.int32, 3e9)])
def test_full_like_range_check(op, dtype, value):
    # Paddle 3.0.0 and 3.3.1: (InvalidArgument) The filled value is out of range for target
    # type (compared as float: 2147483648.0 passes for int32 and is cast to INT_MIN); NaN and
    # inf pass the check (kernel_cases full_like_int32_nan ...). pirc's torch raised
    # "value cannot be converted ... without overflow" for all of them, NaN included
    x = torch.ones(2, dtype=dtype)
    with pytest.raises(ValueError, match=f"{op}: the filled value .* is out of range"):
        if op == "full_like":
            kernel(op)(x, value, dtype=dtype)
        else:
            kernel(op)(x, shape=[1, 2], dtype=dtype, value=value)


def test_fill_nan_is_refused():
    # Paddle 3.3.1: (InvalidArgument) fill value should not be NaN, but received NaN (any
    # dtype); a finite or infinite value is cast without full_like's range check
    with pytest.raises(ValueError, match="fill: fill value should not be NaN"):
        kernel("fill")(torch.ones(2), torch.tensor([math.nan]))
