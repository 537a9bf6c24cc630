"""The vectorised paths of roi_align, roi_pool, psroi_pool and generate_proposals' NMS and
expf give every bit the roi-by-roi / candidate-by-candidate loops give (those loops are the
ones checked against Paddle in test_kernels.py, test_kernels_ieee.py and the zoo2 models):
random boxes, tied and NaN values, float32 and float64."""

import numpy as np
import pytest
import torch

from pirc.lower.kernels import c_numerics, detection, roi


def _boxes(rng, n, dt, specials=False):
    b = rng.uniform(-5, 20, (n, 4))
    b[:, 2:] = b[:, :2] + rng.uniform(-4, 15, (n, 2))
    if specials and n:
        b[0, rng.integers(4)] = rng.choice([np.nan, np.inf, -np.inf, 1e12])
    return torch.tensor(np.round(b * 2) / 2 if rng.random() < 0.3 else b, dtype=dt)


def _same(a, b):
    return a.shape == b.shape and a.dtype == b.dtype and a.numpy().tobytes() == b.numpy().tobytes()


@pytest.mark.parametrize("seed", range(4))
def test_roi_align_matches_roi_by_roi(seed):
    rng = np.random.default_rng(seed)
    for trial in range(40):
        dt = [torch.float32, torch.float64][trial % 2]
        h, w = rng.integers(1, 12, 2)
        x = torch.tensor(rng.standard_normal((2, 3, h, w)), dtype=dt)
        n = int(rng.integers(0, 6))
        boxes = _boxes(rng, n, dt)
        k = int(rng.integers(0, n + 1))
        num = torch.tensor([k, n - k], dtype=torch.int32)
        kw = dict(pooled_height=int(rng.integers(1, 4)), pooled_width=int(rng.integers(1, 4)),
                  spatial_scale=float(rng.choice([1.0, 0.5, 0.0625, 0.3])),
                  sampling_ratio=int(rng.choice([-1, 0, 1, 2, 3])), aligned=bool(trial % 3 == 0))
        t = roi._np_type(x)
        try:
            want = roi._roi_align_rois(x, boxes.numpy().astype(t), roi._batch_ids(num, n), t,
                                       *kw.values())
        except ValueError as e:   # an inverted aligned box: Paddle aborts, both paths say so
            with pytest.raises(ValueError, match="Paddle's kernel aborts"):
                roi.roi_align(x, boxes, num, **kw)
            assert "aborts" in str(e)
            continue
        assert _same(roi.roi_align(x, boxes, num, **kw), want)
        assert _same(roi.roi_align(x.clone().requires_grad_(), boxes, num, **kw).detach(), want)


@pytest.mark.parametrize("seed", range(4))
def test_roi_pool_matches_roi_by_roi(seed):
    rng = np.random.default_rng(seed)
    for trial in range(40):
        h, w = rng.integers(1, 12, 2)
        xa = rng.standard_normal((2, 3, h, w))
        xa.flat[rng.integers(xa.size)] = rng.choice([np.nan, -np.inf, 0.0])
        x = torch.tensor(np.round(xa) if trial % 4 == 0 else xa, dtype=torch.float32)
        n = int(rng.integers(1, 6))
        boxes = _boxes(rng, n, torch.float32, specials=trial % 5 == 0)
        k = int(rng.integers(0, n + 1))
        num = torch.tensor([k, n - k], dtype=torch.int32)
        ph, pw = int(rng.integers(1, 4)), int(rng.integers(1, 4))
        scale = float(rng.choice([1.0, 0.5, 0.3]))
        with np.errstate(all="ignore"):
            want = roi._roi_pool_rois(x, boxes.numpy(), roi._batch_ids(num, n), np.float32,
                                      ph, pw, scale)
        got = roi.roi_pool(x, boxes, num, pooled_height=ph, pooled_width=pw, spatial_scale=scale)
        assert all(_same(a, b) for a, b in zip(got, want))


@pytest.mark.parametrize("seed", range(4))
def test_psroi_pool_matches_roi_by_roi(seed):
    rng = np.random.default_rng(seed)
    for trial in range(40):
        dt = [torch.float32, torch.float64][trial % 2]
        h, w = rng.integers(1, 12, 2)
        ph, pw, oc = int(rng.integers(1, 4)), int(rng.integers(1, 4)), int(rng.integers(1, 3))
        x = torch.tensor(rng.standard_normal((2, oc * ph * pw, h, w)), dtype=dt)
        n = int(rng.integers(1, 6))
        boxes = _boxes(rng, n, dt)
        k = int(rng.integers(0, n + 1))
        num = torch.tensor([k, n - k], dtype=torch.int32)
        scale = float(rng.choice([1.0, 0.5, 0.0625, 0.3]))
        t = roi._np_type(x)
        want = roi._psroi_pool_rois(x, boxes.numpy().astype(t), roi._batch_ids(num, n), t,
                                    ph, pw, oc, scale)
        got = roi.psroi_pool(x, boxes, num, pooled_height=ph, pooled_width=pw,
                             output_channels=oc, spatial_scale=scale)
        assert _same(got, want)


@pytest.mark.parametrize("grid", [1024, 0])
def test_proposal_nms_matches_candidate_loop(grid, monkeypatch):
    monkeypatch.setattr(detection, "_NMS_GRID", grid)   # 0: the row-per-kept-box path
    rng = np.random.default_rng(7)
    for trial in range(150):
        t = [np.float32, np.float64][trial % 2]
        n = int(rng.integers(0, 40))
        b = rng.uniform(0, 30, (n, 4))
        b[:, 2:] = b[:, :2] + rng.uniform(-3, 12, (n, 2))
        if trial % 3 == 0:
            b = np.round(b)
        if trial % 7 == 0 and n:
            b[rng.integers(n), rng.integers(4)] = np.nan
        b = b.astype(t)
        sc = (rng.integers(0, 5, n) if trial % 2 else rng.random(n)).astype(t)
        thr, norm = t(rng.choice([0.3, 0.5, 0.7, 0.0, 1.0])), trial % 4 == 0
        with np.errstate(all="ignore"):
            got = detection._nms_suppress(b, sc, thr, norm)
            asc, want = sorted(range(n), key=lambda i: sc[i]), []
            while asc:
                i = asc.pop()
                if all(detection.jaccard(b[i], b[k], norm) <= thr for k in want):
                    want.append(i)
        assert got == want
        top = int(rng.integers(1, 6))
        with np.errstate(all="ignore"):
            assert detection._nms_suppress(b, sc, thr, norm, top) == want[:top]


def test_vectorised_expf_is_the_c_librarys():
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.uniform(-12, 5, 50000), rng.uniform(-105, 90, 20000),
                        np.arange(-4.2, 4.2, 1e-4),
                        [0, -0.0, np.nan, np.inf, -np.inf, 88.72283, 88.7229, -103.9, 1e-8]])
    x = x.astype(np.float32)
    with np.errstate(all="ignore"):
        got = detection._std_exp(x)
    want = np.array([c_numerics.expf(v) for v in x.tolist()], np.float32)
    assert (got.view(np.int32) == want.view(np.int32)).all()
