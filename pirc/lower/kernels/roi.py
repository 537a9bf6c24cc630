"""Region-of-interest pooling: roi_align, roi_pool, psroi_pool.

Each roi's sampling positions, windows and weights depend on the roi's coordinates, so they
are computed per roi when the kernel runs, in numpy with phi's CPU arithmetic (float32 for
float inputs: `boxes * spatial_scale`, bin sizes, sample positions), and the pooled values
come from gathers of the roi's image in Paddle's term order:
- roi_align: each sample is xlyl*v + xhyl*v + xlyh*v + xhyh*v (a sample outside the map is
  the zero-weight sample of cell 0), the bin sums its samples in order from 0 and multiplies
  by T(1.0 / samples);
- roi_pool: the max of each bin of rounded roi coordinates from -max (`>`: the first maximum,
  NaN never), an empty bin 0 and argmax -1;
- psroi_pool: the mean of each bin of a position-sensitive channel, summed in row-major order.
The roi -> image map is boxes_num's counts.
"""

from __future__ import annotations

import functools

import numpy as np
import torch

from ...runtime.registry import REGISTRY
from .c_numerics import round_away, wrap_int32
from .operands import c_int_cast


def _batch_ids(boxes_num, rois):
    if boxes_num is None:
        return [0] * rois
    ids = []
    for n, k in enumerate(boxes_num.reshape(-1).tolist()):
        ids += [n] * int(k)
    return ids


def _quiet(kernel):
    """Run under np.errstate(all="ignore"): a NaN or infinite box makes NaN and inf in the
    numpy scalars, as in the C++; numpy's warnings about it are noise."""
    @functools.wraps(kernel)
    def run(*args, **kwargs):
        with np.errstate(all="ignore"):
            return kernel(*args, **kwargs)
    return run


def _i32(v) -> int:
    """static_cast<int> of a float on x86: NaN, inf and values past int32 give INT_MIN."""
    return c_int_cast(float(v), torch.int32)


def _grid(extent, pooled, sampling_ratio, T) -> int:
    """roi_bin_grid: sampling_ratio, or static_cast<int>(ceil(extent / pooled)) in T (NaN,
    inf and values past int32 give INT_MIN, as on x86)."""
    if sampling_ratio > 0:
        return sampling_ratio
    return _i32(np.ceil(T(extent / T(pooled))))


def _np_type(x):
    return np.float64 if x.dtype == torch.float64 else np.float32


@REGISTRY.register("pd_op.roi_align", since=1)
@_quiet
def roi_align(x, boxes, boxes_num=None, *, pooled_height=1, pooled_width=1, spatial_scale=1.0,
              sampling_ratio=-1, aligned=False):
    T = _np_type(x)
    rois = boxes.detach().cpu().numpy().astype(T)
    ids = _batch_ids(boxes_num, rois.shape[0])
    tables = _align_tables(rois, T, x.shape[2], x.shape[3], pooled_height, pooled_width,
                           spatial_scale, sampling_ratio, aligned)
    if tables is None:   # a box that is not finite, or a grid Paddle rejects: roi by roi
        return _roi_align_rois(x, rois, ids, T, pooled_height, pooled_width, spatial_scale,
                               sampling_ratio, aligned)
    return _roi_align_gather(x, ids, *tables, pooled_height, pooled_width)


# Most floats one gather of roi_align holds (rois are taken in chunks below it).
_ALIGN_CHUNK = 1 << 22


def _align_tables(rois, T, height, width, pooled_height, pooled_width, spatial_scale,
                  sampling_ratio, aligned):
    """Every roi's sample cells and weights at once, in T, each float step as the roi-by-roi
    loop of _roi_align_rois takes it: (idx [R, P, G, 4], weights [R, P, G, 4], sample count
    per roi [R]); G is the largest grid, a roi's samples past its own grid are padding
    (count says where they start).  None where a box or a sample position is not finite or
    a grid is negative or huge: those go roi by roi (errors and NaN as Paddle has them)."""
    n = rois.shape[0]
    off = T(0.5) if aligned else T(0)
    xy = (rois * T(spatial_scale)).astype(T) - off
    xmin, ymin, xmax, ymax = (xy[:, k] for k in range(4))
    rw, rh = (xmax - xmin).astype(T), (ymax - ymin).astype(T)
    if not aligned:
        rw, rh = np.maximum(rw, T(1)), np.maximum(rh, T(1))
    if not (np.isfinite(xy).all() and np.isfinite(rw).all() and np.isfinite(rh).all()):
        return None

    def grid(extent, pooled):
        if sampling_ratio > 0:
            return np.full(n, sampling_ratio, np.int64)
        return np.ceil((extent / T(pooled)).astype(T)).astype(np.int64)

    gh, gw = grid(rh, pooled_height), grid(rw, pooled_width)
    if n and (gh.min() < 0 or gw.min() < 0 or (gh * gw).max() * pooled_height * pooled_width
              > 1 << 24):
        return None
    bin_w, bin_h = (rw / T(pooled_width)).astype(T), (rh / T(pooled_height)).astype(T)
    count = gh * gw
    g_max = int(count.max()) if n else 0
    g = np.arange(g_max)[None, :]                               # [1, G]
    gw1 = np.maximum(gw, 1)[:, None]
    iy, ix = g // gw1, g % gw1                                  # [R, G]
    fy = ((iy + 0.5).astype(T) / gh[:, None].astype(T)).astype(T)
    fx = ((ix + 0.5).astype(T) / gw[:, None].astype(T)).astype(T)
    py = np.arange(pooled_height, dtype=T)[:, None, None]       # [PH, 1, 1] -> [R, PH, PW, G]
    px = np.arange(pooled_width, dtype=T)[None, :, None]
    yy = (ymin[:, None, None, None] + bin_h[:, None, None, None]
          * (py[None] + fy[:, None, None, :])).astype(T)
    xx = (xmin[:, None, None, None] + bin_w[:, None, None, None]
          * (px[None] + fx[:, None, None, :])).astype(T)
    yy, xx = np.broadcast_arrays(yy, xx)
    if np.isnan(yy).any() or np.isnan(xx).any():
        return None
    inside = ~((yy < -1.0) | (yy > height) | (xx < -1.0) | (xx > width))
    yy = np.where(yy <= 0, T(0), np.minimum(yy, T(height)))
    xx = np.where(xx <= 0, T(0), np.minimum(xx, T(width)))
    xl, yl = xx.astype(np.int64), yy.astype(np.int64)
    xedge, yedge = xl >= width - 1, yl >= height - 1
    xl, yl = np.where(xedge, width - 1, xl), np.where(yedge, height - 1, yl)
    xh, yh = np.where(xedge, xl, xl + 1), np.where(yedge, yl, yl + 1)
    xx, yy = np.where(xedge, xl.astype(T), xx), np.where(yedge, yl.astype(T), yy)
    xr, yr = (xh.astype(T) - xx).astype(T), (yh.astype(T) - yy).astype(T)
    one = T(1)
    idx = np.stack([yl * width + xl, yl * width + xh, yh * width + xl, yh * width + xh], -1)
    wt = np.stack([xr * yr, (one - xr) * yr, xr * (one - yr), (one - xr) * (one - yr)], -1)
    idx = np.where(inside[..., None], idx, 0)   # outside the map: cell 0, weight 0
    wt = np.where(inside[..., None], wt, T(0)).astype(T)
    shape = (n, pooled_height * pooled_width, g_max, 4)
    return idx.reshape(shape), wt.reshape(shape), count


def _roi_align_gather(x, ids, idx, wt, count, pooled_height, pooled_width):
    """roi_align's values from _align_tables: each sample's four terms in Paddle's order, the
    samples of a bin summed one by one from 0 (padding adds +0.0, which changes no sum that
    starts at +0.0), times T(1.0 / samples)."""
    T = wt.dtype.type
    n_img, channels, height, width = x.shape
    n, bins, g_max = idx.shape[:3]
    if n == 0:
        return x.new_zeros((0, channels, pooled_height, pooled_width))
    scale = np.array([T(1.0 / c) if c else T(np.inf) for c in count.tolist()], T)
    step = max(1, _ALIGN_CHUNK // max(1, bins * max(g_max, 1) * 4 * channels))
    if x.device.type == "cpu" and x.dtype in (torch.float32, torch.float64) \
            and not (torch.is_grad_enabled() and x.requires_grad):
        # the same IEEE products and sums in numpy (a few us an op where torch takes ~10)
        return torch.from_numpy(_roi_align_numpy(x.numpy(), ids, idx, wt, count, scale, step,
                                                 pooled_height, pooled_width))
    flat = x.reshape(n_img, channels, height * width).transpose(1, 2)   # [N, HW, C]
    b_all = torch.as_tensor(np.asarray(ids, np.int64))
    outs = []
    for lo in range(0, n, step):
        hi = min(n, lo + step)
        v = flat[b_all[lo:hi, None, None, None], torch.as_tensor(idx[lo:hi])]  # [r,P,G,4,C]
        w = torch.as_tensor(wt[lo:hi])[..., None]
        samples = w[..., 0, :] * v[..., 0, :] + w[..., 1, :] * v[..., 1, :] \
            + w[..., 2, :] * v[..., 2, :] + w[..., 3, :] * v[..., 3, :]      # [r, P, G, C]
        pad = torch.as_tensor(np.arange(g_max)[None, :] >= count[lo:hi, None])  # [r, G]
        samples = samples.masked_fill(pad[:, None, :, None], 0.0)
        total = torch.zeros((hi - lo, bins, channels), dtype=x.dtype, device=x.device)
        for g in range(g_max):
            total = total + samples[:, :, g]
        total = total * torch.as_tensor(scale[lo:hi])[:, None, None]
        outs.append(total.transpose(1, 2).reshape(hi - lo, channels, pooled_height,
                                                  pooled_width))
    return torch.cat(outs)


def _roi_align_numpy(x, ids, idx, wt, count, scale, step, pooled_height, pooled_width):
    """_roi_align_gather's arithmetic on a numpy x, op for op."""
    n_img, channels, height, width = x.shape
    n, bins, g_max = idx.shape[:3]
    # [N * HW, C] rows: one take of whole rows per sample cell
    flat = np.ascontiguousarray(x.reshape(n_img, channels, height * width).transpose(0, 2, 1)
                                ).reshape(n_img * height * width, channels)
    b_all = np.asarray(ids, np.int64)
    outs = []
    for lo in range(0, n, step):
        hi = min(n, lo + step)
        rows = (b_all[lo:hi, None, None, None] * (height * width) + idx[lo:hi])
        v = flat.take(rows.transpose(3, 0, 1, 2), axis=0)                # [4, r, P, G, C]
        w = wt[lo:hi].transpose(3, 0, 1, 2)[..., None]                    # [4, r, P, G, 1]
        samples = w[0] * v[0] + w[1] * v[1] + w[2] * v[2] + w[3] * v[3]     # [r, P, G, C]
        pad = np.arange(g_max)[None, :] >= count[lo:hi, None]                # [r, G]
        samples[np.broadcast_to(pad[:, None, :, None], samples.shape)] = 0
        total = np.zeros((hi - lo, bins, channels), x.dtype)
        for g in range(g_max):
            total = total + samples[:, :, g]
        total = total * scale[lo:hi, None, None]
        outs.append(total.transpose(0, 2, 1).reshape(hi - lo, channels, pooled_height,
                                                      pooled_width))
    return np.ascontiguousarray(np.concatenate(outs))


def _roi_align_rois(x, rois, ids, T, pooled_height, pooled_width, spatial_scale,
                    sampling_ratio, aligned):
    """roi_align roi by roi (boxes that are not finite, grids Paddle rejects)."""
    n_img, channels, height, width = x.shape
    outs = []
    flat = x.reshape(n_img, channels, height * width)
    for r, b in zip(rois, ids):
        off = T(0.5) if aligned else T(0)
        xmin, ymin, xmax, ymax = (T(v * T(spatial_scale)) - off for v in r)
        rw, rh = T(xmax - xmin), T(ymax - ymin)
        if not aligned:
            rw, rh = max(rw, T(1)), max(rh, T(1))
        gh = _grid(rh, pooled_height, sampling_ratio, T)
        gw = _grid(rw, pooled_width, sampling_ratio, T)
        if gh < 0 or gw < 0 or wrap_int32(wrap_int32(wrap_int32(gh * gw) * pooled_width)
                                          * pooled_height) < 0:
            raise ValueError(f"roi_align: roi {len(outs)} {r.tolist()} gives a sampling grid of "
                             f"{gh} x {gw} (its size is not finite or too large): Paddle's "
                             f"kernel aborts on it (std::length_error)")
        bin_w, bin_h = T(rw / T(pooled_width)), T(rh / T(pooled_height))
        idx = np.zeros((pooled_height * pooled_width, gh * gw, 4), np.int64)
        wt = np.zeros((pooled_height * pooled_width, gh * gw, 4), T)
        for py in range(pooled_height):
            for px in range(pooled_width):
                p = py * pooled_width + px
                for iy in range(gh):
                    y0 = T(ymin + bin_h * (T(py) + T(T(iy + 0.5) / T(gh))))
                    for ix in range(gw):
                        xx = T(xmin + bin_w * (T(px) + T(T(ix + 0.5) / T(gw))))
                        yy, g = y0, iy * gw + ix
                        if yy < -1.0 or yy > height or xx < -1.0 or xx > width:
                            continue  # offsets 0, ratios 0
                        yy, xx = (T(0) if yy <= 0 else yy), (T(0) if xx <= 0 else xx)
                        if xx != xx or yy != yy:
                            raise ValueError(f"roi_align: roi {len(outs)} {r.tolist()} has a "
                                             f"NaN sample position: Paddle's kernel reads "
                                             f"outside the feature map there")
                        xl = int(xx)
                        if xl >= width - 1:
                            xl = xh = width - 1
                            xx = T(xl)
                        else:
                            xh = xl + 1
                        yl = int(yy)
                        if yl >= height - 1:
                            yl = yh = height - 1
                            yy = T(yl)
                        else:
                            yh = yl + 1
                        xr, yr = T(T(xh) - xx), T(T(yh) - yy)
                        idx[p, g] = [yl * width + xl, yl * width + xh, yh * width + xl,
                                     yh * width + xh]
                        wt[p, g] = [xr * yr, T(T(1) - xr) * yr, xr * T(T(1) - yr),
                                    T(T(1) - xr) * T(T(1) - yr)]
        v = flat[b][:, torch.as_tensor(idx, device=x.device)]          # (C, P, G, 4)
        w = torch.as_tensor(wt, device=x.device)
        samples = w[..., 0] * v[..., 0] + w[..., 1] * v[..., 1] + w[..., 2] * v[..., 2] \
            + w[..., 3] * v[..., 3]
        total = torch.zeros(samples.shape[:2], dtype=x.dtype, device=x.device)
        for g in range(samples.shape[2]):
            total = total + samples[..., g]
        count = torch.tensor(T(1.0 / (gh * gw)) if gh * gw else T(np.inf), device=x.device)
        outs.append((total * count).reshape(channels, pooled_height, pooled_width))
    if not outs:
        return x.new_zeros((0, channels, pooled_height, pooled_width))
    return torch.stack(outs)


@REGISTRY.register("pd_op.roi_pool", since=1)
@_quiet
def roi_pool(x, boxes, boxes_num=None, *, pooled_height=1, pooled_width=1, spatial_scale=1.0):
    T = _np_type(x)
    rois = boxes.detach().cpu().numpy().astype(T)
    ids = _batch_ids(boxes_num, rois.shape[0])
    if rois.shape[0]:
        return _roi_pool_all(x, rois, ids, T, pooled_height, pooled_width, spatial_scale)
    return _roi_pool_rois(x, rois, ids, T, pooled_height, pooled_width, spatial_scale)


def _wrap_all(v):
    """wrap_int32 of every element of an int64 array."""
    return (v + (1 << 31)) % (1 << 32) - (1 << 31)


# Most values one gather of roi_pool holds (rois are taken in chunks below it).
_POOL_CHUNK = 1 << 22


def _roi_pool_all(x, rois, ids, T, pooled_height, pooled_width, spatial_scale):
    """roi_pool of every roi at once: the same int and T steps as _roi_pool_rois (round,
    static_cast<int>, wrapping sums, floor / ceil of the bin edges), then the same first-max
    search over each bin's cells in row-major order, padded with -inf cells."""
    n_img, channels, height, width = x.shape
    n = rois.shape[0]
    lowest = float(-np.finfo(T).max)
    q = _i32_all(_round_away_all((rois * T(spatial_scale)).astype(T)))
    sw, sh, ew, eh = (q[:, k] for k in range(4))
    rh = np.maximum(_wrap_all(_wrap_all(eh - sh) + 1), 1)
    rw = np.maximum(_wrap_all(_wrap_all(ew - sw) + 1), 1)
    bh = (rh.astype(T) / T(pooled_height)).astype(T)
    bw = (rw.astype(T) / T(pooled_width)).astype(T)
    ph = np.arange(pooled_height, dtype=T)[None]
    pw = np.arange(pooled_width, dtype=T)[None]

    def edge(fn, b, k, start, size):
        return np.clip(_wrap_all(_i32_all(fn((k * b[:, None]).astype(T))) + start[:, None]),
                       0, size)

    hs, he = edge(np.floor, bh, ph, sh, height), edge(np.ceil, bh, ph + T(1), sh, height)
    ws, we = edge(np.floor, bw, pw, sw, width), edge(np.ceil, bw, pw + T(1), sw, width)
    shape = (n, pooled_height, pooled_width)
    hs, he = (np.broadcast_to(a[:, :, None], shape) for a in (hs, he))
    ws, we = (np.broadcast_to(a[:, None, :], shape) for a in (ws, we))
    hh, ww = np.maximum(he - hs, 0), np.maximum(we - ws, 0)
    area = (hh * ww).reshape(n, -1)                                 # [R, P]
    k_max = max(int(area.max()), 1)
    k = np.arange(k_max)
    ww1 = np.maximum(ww, 1).reshape(n, -1, 1)
    table = (hs.reshape(n, -1, 1) + k // ww1) * width + ws.reshape(n, -1, 1) + k % ww1
    table = np.where(k < area[..., None], table, -1)                # [R, P, K]
    bins = area.shape[1]
    step = max(1, _POOL_CHUNK // max(1, channels * bins * k_max))
    if x.device.type == "cpu" and x.dtype == torch.float32 \
            and not (torch.is_grad_enabled() and x.requires_grad):
        # the same comparisons and first-max search in numpy (torch's per-op overhead
        # dominated the small maps)
        out, arg = _roi_pool_numpy(x.numpy(), ids, table, area, step, lowest, height * width)
        shape = (n, channels, pooled_height, pooled_width)
        return torch.from_numpy(out.reshape(shape)), torch.from_numpy(arg.reshape(shape))
    img = torch.cat([x.reshape(n_img, channels, height * width),
                     torch.full((n_img, channels, 1), -torch.inf, dtype=x.dtype)], 2)
    b_all = torch.as_tensor(np.asarray(ids, np.int64))
    t_all = torch.as_tensor(table)
    cells = torch.as_tensor(np.where(table >= 0, table, height * width))
    empty_all = torch.as_tensor(area == 0)
    outs, args = [], []
    for lo in range(0, n, step):
        hi = min(n, lo + step)
        vals = img[b_all[lo:hi, None, None, None], torch.arange(channels)[None, :, None, None],
                   cells[lo:hi, None]]                              # [r, C, P, K]
        cand = torch.where(vals > lowest, vals, -torch.inf)
        pick = cand.argmax(-1, keepdim=True)
        found = cand.gather(-1, pick).squeeze(-1) > -torch.inf
        best = vals.gather(-1, pick).squeeze(-1)
        empty = empty_all[lo:hi, None]
        outs.append(torch.where(found, best, torch.where(empty, 0.0, lowest).to(x.dtype)))
        index = t_all[lo:hi, None].expand(-1, channels, -1, -1).gather(-1, pick).squeeze(-1)
        args.append(torch.where(found, index, -1))
    shape = (n, channels, pooled_height, pooled_width)
    return torch.cat(outs).reshape(shape), torch.cat(args).to(torch.int64).reshape(shape)


def _roi_pool_numpy(x, ids, table, area, step, lowest, cells_per_map):
    """_roi_pool_all's search on a numpy x, op for op: (max [R, C, PH, PW], argmax int64)."""
    n_img, channels = x.shape[:2]
    T = x.dtype.type
    img = np.concatenate([x.reshape(n_img, channels, cells_per_map),
                          np.full((n_img, channels, 1), -np.inf, x.dtype)], 2)
    cells = np.where(table >= 0, table, cells_per_map)
    b_all = np.asarray(ids, np.int64)
    c_idx = np.arange(channels)[None, :, None, None]
    n = table.shape[0]
    outs, args = [], []
    for lo in range(0, n, step):
        hi = min(n, lo + step)
        vals = img[b_all[lo:hi, None, None, None], c_idx, cells[lo:hi, None]]  # [r, C, P, K]
        # the first maximum of the cells above -max (NaN never): a strict `>` scan over the
        # bin's cells in order keeps the first of equal maxima, as argmax does
        best = np.full(vals.shape[:-1], -np.inf, x.dtype)
        index = np.full(vals.shape[:-1], -1, np.int64)
        for k in range(vals.shape[-1]):
            v = vals[..., k]
            better = (v > lowest) & (v > best)
            best = np.where(better, v, best)
            index = np.where(better, table[lo:hi, None, :, k], index)
        found = index >= 0
        empty = (area[lo:hi] == 0)[:, None]
        outs.append(np.where(found, best, np.where(empty, T(0), T(lowest))).astype(x.dtype))
        args.append(index)
    return np.concatenate(outs), np.concatenate(args)


def _roi_pool_rois(x, rois, ids, T, pooled_height, pooled_width, spatial_scale):
    """roi_pool roi by roi (no roi: the empty results)."""
    n_img, channels, height, width = x.shape
    lowest = float(-np.finfo(T).max)
    outs, args = [], []
    for r, b in zip(rois, ids):
        # int = round(...): NaN, inf and values past int32 are INT_MIN (x86), and the int
        # sums wrap, as the C++ leaves them
        sw, sh, ew, eh = (_i32(round_away(T(v * T(spatial_scale)))) for v in r)
        rh = max(wrap_int32(wrap_int32(eh - sh) + 1), 1)
        rw = max(wrap_int32(wrap_int32(ew - sw) + 1), 1)
        bh, bw = T(T(rh) / T(pooled_height)), T(T(rw) / T(pooled_width))
        cells = []
        for ph in range(pooled_height):
            hs = min(max(wrap_int32(_i32(np.floor(T(ph) * bh)) + sh), 0), height)
            he = min(max(wrap_int32(_i32(np.ceil(T(ph + 1) * bh)) + sh), 0), height)
            for pw in range(pooled_width):
                ws = min(max(wrap_int32(_i32(np.floor(T(pw) * bw)) + sw), 0), width)
                we = min(max(wrap_int32(_i32(np.ceil(T(pw + 1) * bw)) + sw), 0), width)
                cells.append([h * width + w for h in range(hs, he) for w in range(ws, we)])
        k = max([len(c) for c in cells] + [1])
        table = np.full((len(cells), k), -1, np.int64)
        for i, c in enumerate(cells):
            table[i, :len(c)] = c
        img = x[b].reshape(channels, height * width)
        img = torch.cat([img, torch.full((channels, 1), -torch.inf, dtype=x.dtype)], 1)
        vals = img[:, torch.as_tensor(np.where(table >= 0, table, height * width))]
        cand = torch.where(vals > lowest, vals, -torch.inf)
        pick = cand.argmax(-1, keepdim=True)
        found = cand.gather(-1, pick).squeeze(-1) > -torch.inf
        empty = torch.as_tensor([not c for c in cells])
        best = vals.gather(-1, pick).squeeze(-1)
        out = torch.where(found, best, torch.where(empty, 0.0, lowest).to(x.dtype))
        index = torch.as_tensor(table)[torch.arange(len(cells))[None], pick.squeeze(-1)]
        arg = torch.where(found, index, -1)
        outs.append(out.reshape(channels, pooled_height, pooled_width))
        args.append(arg.reshape(channels, pooled_height, pooled_width))
    if not outs:
        z = x.new_zeros((0, channels, pooled_height, pooled_width))
        return z, z.to(torch.int64)
    return torch.stack(outs), torch.stack(args).to(torch.int64)


@REGISTRY.register("pd_op.psroi_pool", since=1)
@_quiet
def psroi_pool(x, boxes, boxes_num=None, *, pooled_height=1, pooled_width=1, output_channels=1,
               spatial_scale=1.0):
    T = _np_type(x)
    rois = boxes.detach().cpu().numpy().astype(T)
    ids = _batch_ids(boxes_num, rois.shape[0])
    if np.isfinite(rois).all() and rois.shape[0]:
        return _psroi_pool_all(x, rois, ids, T, pooled_height, pooled_width, output_channels,
                               spatial_scale)
    return _psroi_pool_rois(x, rois, ids, T, pooled_height, pooled_width, output_channels,
                            spatial_scale)


_INT_MIN = -(1 << 31)


def _i32_all(v):
    """_i32 of every element of a float array (integral values: floor or ceil results)."""
    ok = np.isfinite(v) & (v >= -2.0 ** 31) & (v < 2.0 ** 31)
    return np.where(ok, np.where(ok, v, 0).astype(np.int64), _INT_MIN)


def _round_away_all(v):
    """round_away of every element of a float array, in its type."""
    t = np.trunc(v)
    return np.where(np.abs(v - t) >= 0.5, t + np.sign(v), t).astype(v.dtype)


def _psroi_pool_all(x, rois, ids, T, pooled_height, pooled_width, output_channels,
                    spatial_scale):
    """psroi_pool of finite boxes, every roi and bin at once: the bin edges in T as
    _psroi_pool_rois takes them, each bin's window summed element by element in row-major
    order (padding adds +0.0, which changes no sum that starts at +0.0), then / area."""
    n_img, channels, height, width = x.shape
    n = rois.shape[0]
    scale = T(spatial_scale)
    rnd = _round_away_all(rois)
    sw, sh = (rnd[:, 0] * scale).astype(T), (rnd[:, 1] * scale).astype(T)
    ew = ((rnd[:, 2] + T(1)).astype(T) * scale).astype(T)
    eh = ((rnd[:, 3] + T(1)).astype(T) * scale).astype(T)
    rh = np.maximum((eh - sh).astype(T), T(0.1))
    rw = np.maximum((ew - sw).astype(T), T(0.1))
    bh, bw = (rh / T(pooled_height)).astype(T), (rw / T(pooled_width)).astype(T)
    ph = np.arange(pooled_height, dtype=T)[None]
    pw = np.arange(pooled_width, dtype=T)[None]

    def edge(fn, b, k, start, size):
        return np.clip(_i32_all(fn((b[:, None] * k).astype(T) + start[:, None])), 0, size)

    hs, he = edge(np.floor, bh, ph, sh, height), edge(np.ceil, bh, ph + T(1), sh, height)
    ws, we = edge(np.floor, bw, pw, sw, width), edge(np.ceil, bw, pw + T(1), sw, width)
    shape = (n, output_channels, pooled_height, pooled_width)
    hs, he = (np.broadcast_to(a[:, None, :, None], shape) for a in (hs, he))
    ws, we = (np.broadcast_to(a[:, None, None, :], shape) for a in (ws, we))
    hh, ww = np.maximum(he - hs, 0), np.maximum(we - ws, 0)
    empty = (he <= hs) | (we <= ws)
    area = hh * ww
    k_max = int(area.max())
    ic = np.arange(output_channels * pooled_height * pooled_width).reshape(shape[1:])
    base = (np.asarray(ids, np.int64)[:, None, None, None] * channels + ic[None]) \
        * (height * width)
    k = np.arange(k_max)
    ww1 = np.maximum(ww, 1)[..., None]
    cell = base[..., None] + (hs[..., None] + k // ww1) * width + ws[..., None] + k % ww1
    pad = x.numel()
    cell = np.where(k < area[..., None], cell, pad).reshape(area.size, k_max)
    if x.device.type == "cpu" and x.dtype in (torch.float32, torch.float64) \
            and not (torch.is_grad_enabled() and x.requires_grad):
        # the same sums and division in numpy (torch's per-op overhead dominated)
        vals = np.concatenate([x.numpy().reshape(-1), np.zeros(1, x.numpy().dtype)])[cell]
        acc = np.zeros(vals.shape[0], vals.dtype)
        for i in range(k_max):
            acc = acc + vals[:, i]
        div = np.where(empty, 1, area).reshape(-1).astype(T)
        out = np.where(empty.reshape(-1), T(0), acc / div).astype(vals.dtype)
        return torch.from_numpy(out.reshape(shape))
    flat = torch.cat([x.reshape(-1), x.new_zeros(1)])
    vals = flat[torch.as_tensor(cell)]
    total = torch.zeros(vals.shape[0], dtype=x.dtype, device=x.device)
    for i in range(k_max):
        total = total + vals[:, i]
    div = torch.as_tensor(np.where(empty, 1, area).reshape(-1).astype(T))
    out = torch.where(torch.as_tensor(empty.reshape(-1)), torch.zeros((), dtype=x.dtype),
                      total / div)
    return out.reshape(shape)


def _psroi_pool_rois(x, rois, ids, T, pooled_height, pooled_width, output_channels,
                     spatial_scale):
    """psroi_pool roi by roi (boxes that are not finite)."""
    n_img, channels, height, width = x.shape
    outs = []
    for r, b in zip(rois, ids):
        rnd = [T(round_away(v)) for v in r]  # std::round: 2.5 -> 3
        sw, sh = T(rnd[0] * T(spatial_scale)), T(rnd[1] * T(spatial_scale))
        ew, eh = T(T(rnd[2] + T(1)) * T(spatial_scale)), T(T(rnd[3] + T(1)) * T(spatial_scale))
        rh, rw = max(T(eh - sh), T(0.1)), max(T(ew - sw), T(0.1))
        bh, bw = T(rh / T(pooled_height)), T(rw / T(pooled_width))
        vals = []
        for c in range(output_channels):
            for ph in range(pooled_height):
                hs = min(max(_i32(np.floor(T(bh * T(ph) + sh))), 0), height)
                he = min(max(_i32(np.ceil(T(bh * T(ph + 1) + sh))), 0), height)
                for pw in range(pooled_width):
                    ws = min(max(_i32(np.floor(T(bw * T(pw) + sw))), 0), width)
                    we = min(max(_i32(np.ceil(T(bw * T(pw + 1) + sw))), 0), width)
                    ic = (c * pooled_height + ph) * pooled_width + pw
                    if he <= hs or we <= ws:
                        vals.append(torch.zeros((), dtype=x.dtype))
                        continue
                    win = x[b, ic, hs:he, ws:we].reshape(-1)
                    total = torch.zeros((), dtype=x.dtype)
                    for i in range(win.shape[0]):
                        total = total + win[i]
                    vals.append(total / torch.tensor(float((he - hs) * (we - ws)), dtype=x.dtype))
        outs.append(torch.stack(vals).reshape(output_channels, pooled_height, pooled_width))
    if not outs:
        return x.new_zeros((0, output_channels, pooled_height, pooled_width))
    return torch.stack(outs)
