"""softmax_last: torch.softmax over the last axis, by whole-tensor calls where rows are short
and many (pirc/lower/softmax_rows.py).  The route is forced here (SHORT_ROW patched), so these
tests check the same thing on every capability torch may dispatch to."""

import numpy as np
import pytest
import torch

from pirc.lower import softmax_rows
from pirc.lower.softmax_rows import MANY_ROWS, short_rows, softmax_last
from pirc.testing import boundary_inputs

# ulp-level: the two routes round the same formula differently
TOL = {torch.float32: dict(rtol=6e-7, atol=1e-37), torch.float64: dict(rtol=1e-15, atol=1e-300)}


@pytest.fixture
def routed(monkeypatch):
    monkeypatch.setattr(softmax_rows, "SHORT_ROW", 16)


def _same(got, want, dtype):
    assert got.shape == want.shape and got.dtype == want.dtype
    assert torch.equal(torch.isnan(got), torch.isnan(want))
    torch.testing.assert_close(got, want, equal_nan=True, **TOL[dtype])


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("d", [1, 2, 5, 8, 15])
def test_the_whole_tensor_route_is_torchs_softmax(routed, dtype, d):
    x = torch.randn(4, MANY_ROWS // 4, d, dtype=dtype, generator=torch.Generator().manual_seed(d))
    assert short_rows(x)
    _same(softmax_last(x), torch.softmax(x, -1), dtype)


@pytest.mark.parametrize("dtype", ["f32", "f64"])
def test_boundary_rows_give_what_torch_gives(routed, dtype):
    """NaN, +-inf, +-0, denormals, extremes: the same NaN rows and the same values."""
    for label, arr in boundary_inputs(dtype, (MANY_ROWS, 8)).items():
        x = torch.from_numpy(np.ascontiguousarray(arr))
        assert short_rows(x), label
        _same(softmax_last(x), torch.softmax(x, -1), x.dtype)


def test_rows_of_all_minus_inf_or_a_plus_inf_are_nan_as_in_torch(routed):
    x = torch.randn(MANY_ROWS, 4)
    x[0] = -torch.inf
    x[1, 2] = torch.inf
    x[2, 1] = -torch.inf
    got = softmax_last(x)
    _same(got, torch.softmax(x, -1), torch.float32)
    assert torch.isnan(got[:2]).all() and not torch.isnan(got[2:]).any()


def test_autograd_goes_through_without_in_place_steps(routed):
    x = torch.randn(MANY_ROWS, 6, dtype=torch.float64, requires_grad=True)
    y = torch.randn(MANY_ROWS, 6, dtype=torch.float64)
    (g,) = torch.autograd.grad((softmax_last(x) * y).sum(), x)
    (want,) = torch.autograd.grad((torch.softmax(x, -1) * y).sum(), x)
    torch.testing.assert_close(g, want, rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("x, routed_", [
    (torch.randn(MANY_ROWS - 1, 8), False),        # too few rows: torch's one call is faster
    (torch.randn(MANY_ROWS, 16), False),           # a full vector: torch's kernel is fast
    (torch.randn(MANY_ROWS, 8), True),
    (torch.randn(MANY_ROWS, 8).half(), False),     # only float32 and float64 were measured
    (torch.randn(MANY_ROWS, 0), False),
    (torch.randn(2, 3, MANY_ROWS, 3), True),
])
def test_the_route_is_chosen_by_row_length_count_and_dtype(routed, x, routed_):
    assert short_rows(x) is routed_


def test_without_a_measured_capability_torchs_kernel_runs(monkeypatch):
    monkeypatch.setattr(softmax_rows, "SHORT_ROW", 0)
    assert not short_rows(torch.randn(MANY_ROWS * 4, 8))


def test_a_lowered_softmax_over_short_rows_keeps_its_numbers(routed):
    """pd_op.softmax's kernel takes the route too (the specialiser emits softmax_last for a
    last axis that may be short), and a softmax over another axis stays torch's."""
    from pirc.lower.kernels.activation import softmax

    x = torch.randn(8, MANY_ROWS, 4)
    _same(softmax(x, axis=-1), torch.softmax(x, -1), torch.float32)
    _same(softmax(x, axis=2), torch.softmax(x, -1), torch.float32)
    assert torch.equal(softmax(x, axis=1), torch.softmax(x, 1))
