"""Where Paddle's distribute_fpn_proposals puts rois whose scale sits on a level boundary
(issue 21 class 4): tests/fixtures/paddle_checks/fpn_levels.npz.

    /tmp/pd331/bin/python tools/paddle_oracle/gen_fpn_levels.py \
        --out tests/fixtures/paddle_checks/fpn_levels.npz          # ~2 s, CPU wheel

The level is floor(log2(sqrt(area) / refer_scale + 1e-6) + refer_level) in the rois' type, so
a roi whose side is within a few ulps of 224 * 2^k lands on one side of a boundary or the
other by the last bits of sqrt, the division, + 1e-6 and log2 (float32: glibc's log2f). For
float32 and float64 rois, pixel_offset off and on: 900 boundary rois (150 consecutive sides
around each of 6 boundaries) and 500 random ones; the npz holds, per configuration, the
rois and Paddle's restore_index and per-level counts.
"""

import argparse

import numpy as np
import paddle

C = paddle._C_ops


def rois(rng, n_random, pixel_offset, dtype):
    """Square rois at the origin whose side steps ulp by ulp (of `dtype`) through 150 values
    around each boundary 224 * 2^k, k = -3..2, then random ones."""
    t = np.dtype(dtype).type
    sides = []
    for k in range(-3, 3):
        s = t(224.0 * 2.0 ** k)
        lo = s
        for _ in range(75):
            lo = np.nextafter(lo, t(0))
        v = lo
        for _ in range(150):
            sides.append(v)
            v = np.nextafter(v, t(np.inf))
    sides = np.concatenate([np.array(sides, dtype), (rng.random(n_random) * 1000).astype(dtype)])
    x1 = sides - t(1) if pixel_offset else sides
    zero = np.zeros_like(sides)
    return np.stack([zero, zero, x1, x1], 1).astype(dtype)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    paddle.set_device("cpu")
    rng = np.random.default_rng(21)
    out = {"paddle": np.array(paddle.__version__)}
    for dtype in ("float32", "float64"):
        for po in (False, True):
            b = rois(rng, 500, po, dtype)
            num = paddle.to_tensor(np.array([len(b)], "int32"))
            multi, nums, restore = C.distribute_fpn_proposals(paddle.to_tensor(b), num, 2, 5, 4,
                                                              224, po)
            key = f"{dtype}_{int(po)}"
            out[f"rois_{key}"] = b
            out[f"restore_{key}"] = restore.numpy()
            out[f"counts_{key}"] = np.array([int(n.numpy()[0]) for n in nums], "int32")
    np.savez_compressed(args.out, **out)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
