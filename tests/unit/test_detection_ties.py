"""Detection kernels where the answer hinges on ties and layouts, against Paddle 3.3.1
(tests/fixtures/detection_ties/, tools/paddle_oracle/gen_detection_ties.py), and libstdc++'s
std::stable_sort / std::sort orders (recorded from g++ 12's libstdc++) that the kernels replay.

Found by the second zoo's detection models (tests/fixtures/zoo2: faster_rcnn_head on a uniform
image, nms_postprocess on tied scores): multiclass_nms3 on a two-stage head's [R, C, 4] boxes
and [R, C] scores with rois_num; collect_fpn_proposals' `a.score >= b.score` stable sort;
generate_proposals' std::nth_element / std::sort of tied scores; argsort's std::sort."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

import pirc.lower.kernels  # noqa: F401  (registers the kernels)
from pirc.lower.kernels import stl_order
from pirc.runtime.registry import REGISTRY

CASES = Path(__file__).resolve().parents[1] / "fixtures" / "detection_ties" / "cases.3.3.1.npz"


@pytest.fixture(scope="module")
def paddle_cases():
    with np.load(CASES) as data:
        return {k: data[k] for k in data.files}


def kernel(name):
    return REGISTRY.resolve("pd_op." + name, 4).fn


def t(a):
    return torch.as_tensor(np.asarray(a))


def test_multiclass_nms3_on_a_two_stage_heads_rois(paddle_cases):
    c = paddle_cases
    out, index, count = kernel("multiclass_nms3")(
        t(c["mc_boxes"]), t(c["mc_scores"]), t(c["mc_num"]), score_threshold=0.1, nms_top_k=-1,
        keep_top_k=5, nms_threshold=0.3, normalized=False, nms_eta=1.0, background_label=0)
    assert np.array_equal(out.numpy(), c["mc_out"])
    assert np.array_equal(index.numpy(), c["mc_index"])  # (first roi of the image + roi) * C + class
    assert np.array_equal(count.numpy(), c["mc_count"])  # the empty image counts 0


def test_collect_fpn_proposals_orders_tied_scores_as_paddle(paddle_cases):
    c = paddle_cases
    rois, count = kernel("collect_fpn_proposals")(
        [t(c["cf_rois0"]), t(c["cf_rois1"])], [t(c["cf_s0"]), t(c["cf_s1"])],
        [t(c["cf_n0"]), t(c["cf_n1"])], post_nms_topn=7)
    assert np.array_equal(rois.numpy(), c["cf_out"])
    assert np.array_equal(count.numpy(), c["cf_count"])


def test_generate_proposals_takes_tied_scores_in_nth_element_order(paddle_cases):
    c = paddle_cases
    rois, probs, num = kernel("generate_proposals")(
        t(c["gp_scores"]), t(c["gp_deltas"]), t(c["gp_im"]), t(c["gp_anchors"]), torch.ones(48, 4),
        pre_nms_top_n=20, post_nms_top_n=10, nms_thresh=0.5, min_size=0.0, pixel_offset=False)
    assert np.array_equal(rois.numpy(), c["gp_rois"])
    assert np.array_equal(probs.numpy(), c["gp_probs"])
    assert np.array_equal(num.numpy(), c["gp_num"])


def test_argsort_unstable_replays_std_sort_on_ties(paddle_cases):
    c = paddle_cases
    values, index = kernel("argsort")(t(c["as_x"]), axis=-1, descending=True, stable=False)
    assert np.array_equal(index.numpy(), c["as_index"])
    stable = kernel("argsort")(t(c["as_x"]), axis=-1, descending=True, stable=True)[1]
    assert not np.array_equal(stable.numpy(), c["as_index"])  # the case does hinge on the ties


# std::stable_sort(v, v + n, [](a, b) { return a.first >= b.first; }) on (key, position)
# pairs, printed positions, libstdc++ of g++ 12.2: the comparator is not a strict weak order,
# so equal keys come out in an order only the algorithm's own steps give.
STABLE_GE = [
    ([1, 1, 1], [2, 1, 0]),
    ([0, 1, 0, 1, 1, 0, 1, 0, 0], [6, 4, 3, 1, 8, 7, 5, 2, 0]),
    ([2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2], [16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0]),
    ([3, 3, 1, 3, 2, 3, 3, 1, 1, 3, 2, 3, 3, 3, 0, 3, 1, 3, 3, 3],
     [19, 18, 17, 15, 13, 12, 11, 9, 6, 5, 3, 1, 0, 10, 4, 16, 8, 7, 2, 14]),
]


@pytest.mark.parametrize("keys,order", STABLE_GE)
def test_stable_sort_with_a_non_strict_comparator_is_libstdcxx(keys, order):
    v = [(k, i) for i, k in enumerate(keys)]
    stl_order.stable_sort(v, lambda a, b: a[0] >= b[0])
    assert [i for _, i in v] == order


def test_stable_sort_with_a_strict_comparator_is_a_stable_sort():
    rng = np.random.default_rng(0)
    for n in range(0, 60):
        keys = rng.integers(0, 4, n).tolist()
        v = [(k, i) for i, k in enumerate(keys)]
        stl_order.stable_sort(v, lambda a, b: a[0] < b[0])
        assert v == sorted(((k, i) for i, k in enumerate(keys)), key=lambda p: p[0])
