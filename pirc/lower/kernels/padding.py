"""Paddle's padding rules for convolution and pooling (phi UpdatePaddingAndDilation).

`paddings` comes as one value per spatial dim (symmetric) or two (before, after);
padding_algorithm SAME pads so that out = ceil(in / stride) (convolution also resets the
dilation to 1), VALID pads nothing.
"""

from __future__ import annotations


def pairs(paddings, spatial: int) -> list[tuple[int, int]]:
    """(before, after) per spatial dim from Paddle's flat paddings list."""
    p = [int(v) for v in paddings]
    if len(p) == spatial:
        return [(v, v) for v in p]
    if len(p) == 2 * spatial:
        return [(p[2 * i], p[2 * i + 1]) for i in range(spatial)]
    raise ValueError(f"paddings {p} fit neither {spatial} nor {2 * spatial} values")


def resolve(paddings, algorithm: str, sizes, kernel, strides) -> list[tuple[int, int]]:
    """The (before, after) padding of each spatial dim after applying padding_algorithm."""
    spatial = len(sizes)
    if algorithm == "VALID":
        return [(0, 0)] * spatial
    if algorithm == "SAME":
        out = []
        for size, k, s in zip(sizes, kernel, strides):
            total = max((-(-size // s) - 1) * s + k - size, 0)
            out.append((total // 2, total - total // 2))
        return out
    return pairs(paddings, spatial)


def torch_pad_list(pads: list[tuple[int, int]]) -> list[int]:
    """F.pad's argument: last dim first, (before, after) each."""
    flat: list[int] = []
    for before, after in reversed(pads):
        flat += [before, after]
    return flat
