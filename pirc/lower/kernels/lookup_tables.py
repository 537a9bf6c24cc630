"""The fluid-era embedding lookups: lookup_table (v1: ids end in a dim of 1) and
lookup_table_dequant (rows stored as 8-bit codes), as Paddle's CPU kernels compute them
(fluid/operators/lookup_table_op.h, phi/kernels/cpu/lookup_table_dequant_kernel.cc)."""

from __future__ import annotations

import torch

from ...runtime.registry import REGISTRY

_NO_PADDING = -1


def _check(flat, rows: int, padding_idx: int, op: str) -> torch.Tensor:
    """Row of each id; padding ids may be anything (their rows are zeros)."""
    pad = (flat == padding_idx) if padding_idx != _NO_PADDING else torch.zeros_like(flat).bool()
    bad = ~pad & ((flat < 0) | (flat >= rows))
    if bad.any():
        raise ValueError(f"{op}: ids must be in [0, {rows}), got {flat[bad].tolist()}")
    return pad


def _out_shape(ids, width: int) -> list[int]:
    # v1 ids carry a trailing dim of 1 that the output replaces by the row width
    shape = list(ids.shape)
    return (shape[:-1] if shape and shape[-1] == 1 else shape) + [width]


@REGISTRY.register("pd_op.lookup_table", since=1)
def lookup_table(w, ids, *, is_sparse=False, is_distributed=False, padding_idx=-1,
                 remote_prefetch=False, entry_config="", is_test=False, entry="none",
                 table_class="none", table_names=(), trainer_id=0, slot=0, grad_inplace=False,
                 epmap=(), height_sections=()):
    flat = ids.reshape(-1).to(torch.int64)
    pad = _check(flat, w.shape[0], int(padding_idx), "lookup_table")
    rows = w[torch.where(pad, 0, flat)]
    rows = torch.where(pad[:, None], torch.zeros((), dtype=w.dtype), rows)
    return rows.reshape(_out_shape(ids, w.shape[1]))


@REGISTRY.register("pd_op.lookup_table_dequant", since=1)
def lookup_table_dequant(w, ids, *, padding_idx=-1):
    """Each row of w is [min, max, codes...]: float32 words whose bytes are the uint8 codes,
    four to a word; an embedding value is (max - min) / 256 * code + min, in float32."""
    if w.dtype != torch.float32:
        raise ValueError(f"lookup_table_dequant: w must be float32, got {w.dtype}")
    flat = ids.reshape(-1).to(torch.int64)
    pad = _check(flat, w.shape[0], int(padding_idx), "lookup_table_dequant")
    table = w[torch.where(pad, 0, flat)]
    lo, hi = table[:, :1], table[:, 1:2]
    codes = table[:, 2:].contiguous().view(torch.uint8).to(torch.float32)
    scale = (hi - lo) / 256.0
    out = scale * codes + lo
    out = torch.where(pad[:, None], torch.zeros((), dtype=out.dtype), out)
    return out.reshape(_out_shape(ids, codes.shape[1]))
