"""The per-fusion tolerances are data (pirc/passes/fusion/tolerances.yaml): every fusion pass
has a bound and a reason per dtype, docs/PARITY.md shows them, and the checker means them."""

from pathlib import Path

import numpy as np
import pytest

from pirc.testing import fusion_tolerance as ft
from pirc.testing.boundary import _bf16_bits

ROOT = Path(__file__).resolve().parents[2]
PASSES = ["fuse-fc", "fuse-rms-norm", "fuse-residual-layer-norm", "fuse-silu", "fuse-swiglu",
          "fuse-gelu", "fuse-rotary", "fuse-attention", "fuse-scaled-softmax"]


def test_every_fusion_pass_has_a_bound_and_reason_per_dtype():
    assert set(PASSES) <= set(ft.passes())
    for name in ft.passes():
        for dtype in ft.DTYPES:
            tol = ft.tolerance(name, dtype)
            assert tol.why, (name, dtype)
            assert not tol.fused or (tol.ulp is not None) != (tol.atol is not None), (name, dtype)


def test_parity_doc_shows_the_data():
    doc = (ROOT / "docs" / "PARITY.md").read_text(encoding="utf-8")
    start, end = doc.find(ft.BEGIN), doc.find(ft.END)
    assert start >= 0 and end > start, "docs/PARITY.md lacks the fusion tolerance table"
    assert doc[start:end + len(ft.END)] + "\n" == ft.section(), \
        "docs/PARITY.md's fusion tolerances are stale: regenerate from pirc.testing.fusion_tolerance.section()"


@pytest.mark.parametrize("dtype,np_dtype", [("f32", np.float32), ("f64", np.float64), ("f16", np.float16)])
def test_ulp_bound(dtype, np_dtype):
    before = np.array([1.0, -2.0, 0.0, 1e-3], dtype=np_dtype)
    one = np.nextafter(before, np_dtype(np.inf))
    two = np.nextafter(one, np_dtype(np.inf))
    bound = ft.tolerance("fuse-silu", dtype).ulp
    at = before
    for _ in range(bound):
        at = np.nextafter(at, np_dtype(np.inf))
    past = np.nextafter(at, np_dtype(np.inf))
    assert ft.within("fuse-silu", dtype, before, at).ok
    assert not ft.within("fuse-silu", dtype, before, past).ok
    if ft.tolerance("fuse-rotary", dtype).fused:
        assert ft.within("fuse-rotary", dtype, before, one).ok and not ft.within("fuse-rotary", dtype, before, two).ok
    else:  # not fused: the program is unchanged, so any difference is one
        assert not ft.within("fuse-rotary", dtype, before, one).ok
    assert not ft.within("fuse-swiglu", dtype, before, one).ok   # bit-exact, or not fused
    assert ft.within("fuse-swiglu", dtype, before, before.copy()).ok


def test_ulp_bound_bf16_bits_and_signed_zero():
    before = _bf16_bits(np.float32([1.0, -3.0, 0.0]))
    after = before + np.uint16(3)
    assert ft.within("fuse-silu", "bf16", before, after).ok
    assert not ft.within("fuse-silu", "bf16", before, after + np.uint16(1)).ok
    minus_zero = _bf16_bits(np.float32([1.0, -3.0, -0.0]))
    assert ft.within("fuse-swiglu", "bf16", before, minus_zero).ok


def test_nan_inf_and_by_design_labels():
    x = np.float32([1.0, np.nan, np.inf])
    assert ft.within("fuse-silu", "f32", x, x.copy()).ok
    assert not ft.within("fuse-silu", "f32", x, np.float32([1.0, 1.0, np.inf])).ok
    assert not ft.within("fuse-silu", "f32", x, np.float32([1.0, np.nan, np.finfo(np.float32).max])).ok
    # fuse-gelu accepts an overflow near max (the product's grouping decides it), nothing else
    big = np.float32([np.finfo(np.float32).max, 1.0])
    assert ft.within("fuse-gelu", "f32", big, np.float32([np.inf, 1.0])).ok
    assert not ft.within("fuse-gelu", "f32", big, np.float32([np.inf, 2.0])).ok
    assert not ft.within("fuse-gelu", "f32", np.float32([1e30]), np.float32([np.inf])).ok
    assert not ft.within("fuse-silu", "f32", big, np.float32([np.inf, 1.0])).ok
    # fuse-fc accepts relu's 0 becoming the fused op's NaN, not a NaN from a number
    assert ft.within("fuse-fc", "f32", np.float32([0.0, 1.0]), np.float32([np.nan, 1.0])).ok
    assert not ft.within("fuse-fc", "f32", np.float32([2.0]), np.float32([np.nan])).ok


def test_reduction_bound_scales_with_the_output():
    before = np.float32([1000.0, 1e-3])
    assert ft.within("fuse-rms-norm", "f32", before, before + np.float32([1e-3, 5e-7])).ok
    assert not ft.within("fuse-rms-norm", "f32", before, before + np.float32([0.0, 1e-5])).ok
    assert not ft.within("fuse-rms-norm", "f32", before, before + np.float32([0.1, 0.0])).ok


def test_a_whole_boundary_input_accepted_by_design():
    # fuse-attention: q holding +-max overflows the scores; the boolean mask's fill and the
    # composition's add part ways (a NaN row before, a finite one after; 0 after a relu)
    before, after = np.float32([0.0, 0.0]), np.float32([0.5, 1.5])
    assert ft.within("fuse-attention", "f32", before, after, label="mixed").ok
    assert not ft.within("fuse-attention", "f32", before, after, label="nan").ok
    assert not ft.within("fuse-attention", "f32", before, after).ok
