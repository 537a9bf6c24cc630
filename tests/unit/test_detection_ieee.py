"""Detection kernels on IEEE inputs (issue 21, classes 3 and 4).

matrix_nms's degenerate cases (identical and zero-area boxes, NaN / inf scores and boxes) are
checked against real Paddle in tests/fixtures/kernel_cases (test_kernels.py); here:
distribute_fpn_proposals against Paddle's fixtures on the npu reference too, its forms Paddle's
fixtures cannot show, and a property test that no kernel touched by the IEEE audit lets a
Python arithmetic exception out on special values.
"""

from __future__ import annotations

import glob
import math
import os

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import pirc.lower.kernels  # noqa: F401 - registers the kernels
from pirc.runtime.registry import REGISTRY
from pirc.testing.parity import fixture_parity

OPS = os.path.join(os.path.dirname(__file__), "..", "fixtures", "ops")
FPN = sorted(glob.glob(os.path.join(OPS, "*", "distribute_fpn_proposals*.json")))


def kernel(name):
    return REGISTRY.resolve("pd_op." + name, 4).fn


@pytest.mark.parametrize("path", FPN, ids=[os.path.basename(p) for p in FPN])
@pytest.mark.parametrize("device", ["cpu", "npu"])
def test_distribute_fpn_proposals_matches_paddle(path, device):
    # both releases, an image with no rois (3.3.1; 3.0.0's kernel raises on it), NaN and inf
    # corners, boxes on level boundaries, pixel_offset on and off: bit for bit
    res = fixture_parity(path, device=device)
    # 18 outputs and the LoD Paddle's fetch gave each (fetched with return_numpy=False)
    assert len(res) == 36 and sum("lod of" in str(r) for r in res) == 18, [str(r) for r in res]
    assert all(r.verdict == "bitexact" for r in res), [str(r) for r in res]


def test_distribute_fpn_proposals_without_rois_num_is_one_image():
    # Paddle takes the images from the rois' LoD then; the level rois and restore_index do
    # not depend on how rows split into images
    rois = torch.tensor([[0, 0, 500, 500], [0, 0, 10, 10], [0, 0, 224, 224], [1, 1, 2, 2]],
                        dtype=torch.float32)
    fn = kernel("distribute_fpn_proposals")
    multi, nums, restore = fn(rois, None, min_level=2, max_level=5, refer_level=4,
                              refer_scale=224)
    multi2, nums2, restore2 = fn(rois, torch.tensor([1, 3], dtype=torch.int32), min_level=2,
                                 max_level=5, refer_level=4, refer_scale=224)
    assert [m.tolist() for m in multi] == [m.tolist() for m in multi2]
    assert torch.equal(restore, restore2)
    assert [n.tolist() for n in nums] == [[2], [0], [1], [1]]
    assert [n.tolist() for n in nums2] == [[0, 2], [0, 0], [0, 1], [1, 0]]
    assert restore.flatten().tolist() == [3, 0, 2, 1]


def test_distribute_fpn_proposals_no_rois():
    multi, nums, restore = kernel("distribute_fpn_proposals")(
        torch.zeros(0, 4), torch.tensor([0, 0], dtype=torch.int32), min_level=2, max_level=3,
        refer_level=4, refer_scale=224)
    assert [tuple(m.shape) for m in multi] == [(0, 4), (0, 4)]
    assert restore.shape == (0, 1) and restore.dtype == torch.int32
    assert [n.tolist() for n in nums] == [[0, 0], [0, 0]]


def test_matrix_nms_identical_boxes_used_to_divide_by_zero():
    # (1 - iou) / (1 - max_iou) with max_iou == 1: Python raised ZeroDivisionError; the C++
    # gives inf (and 0 / 0 = NaN), which std::min leaves out of the decay
    boxes = torch.tensor([[[0.1, 0.1, 0.5, 0.5]] * 3], dtype=torch.float32)
    scores = torch.tensor([[[0.0, 0.0, 0.0], [0.9, 0.8, 0.7]]], dtype=torch.float32)
    out, index, num = kernel("matrix_nms")(boxes, scores, score_threshold=0.0, nms_top_k=-1,
                                           keep_top_k=-1, post_threshold=0.0)
    assert num.tolist() == [1] and index.flatten().tolist() == [0]
    assert out[0, :2].tolist() == pytest.approx([1.0, 0.9])


# -- no Python arithmetic exception on IEEE specials ---------------------------------------

SPECIALS = [0.0, -0.0, math.inf, -math.inf, math.nan, 1e-45, -1e-45, 1.1754944e-38, 3.4e38,
            -3.4e38, 1.0, 0.5, 2.0, 100.0, -7.0]
F32 = st.sampled_from(SPECIALS)


def _boxes(draw_values, n):
    return torch.tensor(draw_values, dtype=torch.float32).reshape(n, 4)


@settings(max_examples=150)
@given(st.integers(1, 5).flatmap(lambda n: st.tuples(
    st.just(n), st.lists(F32, min_size=4 * n, max_size=4 * n),
    st.lists(F32, min_size=2 * n, max_size=2 * n))), st.booleans(), st.booleans(),
    st.sampled_from([2.0, 0.0, 1e30, -1e30, math.inf, math.nan]))
def test_nms_kernels_raise_no_python_arithmetic_error(case, gaussian, normalized, sigma):
    n, box_values, score_values = case
    boxes = _boxes(box_values, n)
    scores = torch.tensor(score_values, dtype=torch.float32).reshape(1, 2, n)
    for dtype in (torch.float32, torch.float64):
        b, s = boxes.to(dtype)[None], scores.to(dtype)
        kernel("matrix_nms")(b, s, score_threshold=-math.inf, nms_top_k=-1, keep_top_k=-1,
                             post_threshold=-math.inf, use_gaussian=gaussian,
                             gaussian_sigma=sigma, background_label=-1, normalized=normalized)
        kernel("multiclass_nms3")(b, s, None, score_threshold=-math.inf, nms_threshold=0.3,
                                  normalized=normalized, background_label=-1)
        kernel("nms")(boxes.to(dtype), threshold=0.3)


@settings(max_examples=150)
@given(st.integers(0, 6).flatmap(lambda n: st.lists(F32, min_size=4 * n, max_size=4 * n)),
       st.booleans(), st.sampled_from([1, 224, 0, -3]))
def test_distribute_fpn_proposals_raises_no_python_arithmetic_error(values, pixel_offset,
                                                                    refer_scale):
    n = len(values) // 4
    rois = _boxes(values, n)
    for dtype in (torch.float32, torch.float64):
        multi, nums, restore = kernel("distribute_fpn_proposals")(
            rois.to(dtype), torch.tensor([n], dtype=torch.int32), min_level=2, max_level=5,
            refer_level=4, refer_scale=refer_scale, pixel_offset=pixel_offset)
        assert sum(m.shape[0] for m in multi) == n
        assert sorted(restore.flatten().tolist()) == list(range(n))


@settings(max_examples=100)
@given(st.lists(F32, min_size=2, max_size=2), st.lists(F32, min_size=8, max_size=8),
       st.lists(F32, min_size=8, max_size=8), st.lists(F32, min_size=2, max_size=2),
       st.booleans())
def test_generate_proposals_raises_no_python_arithmetic_error(scores, deltas, anchors, im,
                                                               pixel_offset):
    t = lambda v, *shape: torch.tensor(v, dtype=torch.float32).reshape(*shape)  # noqa: E731
    rois, probs, num = kernel("generate_proposals")(
        t(scores, 1, 2, 1, 1), t(deltas, 1, 8, 1, 1), t(im, 1, 2), t(anchors, 1, 1, 2, 4),
        torch.ones(1, 1, 2, 4), pre_nms_top_n=10, post_nms_top_n=5, nms_thresh=0.5,
        min_size=0.1, pixel_offset=pixel_offset)
    assert rois.shape[0] == probs.shape[0] == int(num.sum())


def test_matrix_nms_top_k_zero_is_refused():
    # Paddle 3.3.1 dies in MatrixNMSKernel (SIGSEGV) on nms_top_k 0; pirc raised IndexError
    boxes = torch.tensor([[[0.1, 0.1, 0.5, 0.5], [0.2, 0.2, 0.6, 0.6]]])
    scores = torch.tensor([[[0.1, 0.1], [0.3, 0.9]]])
    with pytest.raises(ValueError, match="matrix_nms: nms_top_k 0"):
        kernel("matrix_nms")(boxes, scores, score_threshold=0.0, nms_top_k=0, keep_top_k=-1,
                             post_threshold=0.0)


def test_distribute_fpn_proposals_rois_num_past_the_rows():
    with pytest.raises(ValueError, match="rois_num \\[2, 3\\] asks for 5 rois but fpn_rois "
                                         "has 4 rows"):
        kernel("distribute_fpn_proposals")(torch.ones(4, 4), torch.tensor([2, 3]))


FPN_LEVELS = os.path.join(os.path.dirname(__file__), "..", "fixtures", "paddle_checks",
                          "fpn_levels.npz")


@pytest.mark.parametrize("key", ["float32_0", "float32_1", "float64_0", "float64_1"])
def test_distribute_fpn_proposals_level_boundaries(key):
    # rois whose side steps ulp by ulp through 224 * 2^k: each lands on Paddle 3.3.1's side
    # of the level boundary (tools/paddle_oracle/gen_fpn_levels.py)
    data = np.load(FPN_LEVELS)
    rois = torch.from_numpy(data[f"rois_{key}"])
    multi, nums, restore = kernel("distribute_fpn_proposals")(
        rois, torch.tensor([rois.shape[0]], dtype=torch.int32), min_level=2, max_level=5,
        refer_level=4, refer_scale=224, pixel_offset=key.endswith("1"))
    assert [int(n[0]) for n in nums] == data[f"counts_{key}"].tolist()
    assert np.array_equal(restore.numpy(), data[f"restore_{key}"])
