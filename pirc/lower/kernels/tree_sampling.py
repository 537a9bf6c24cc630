"""Tree-based deep model (TDM) ops: tdm_child and tdm_sampler, as
phi/kernels/cpu/tdm_child_kernel.cc and tdm_sampler_kernel.cc compute them.

tree_info rows are [item_id, layer_id, ancestor_id, child_0, child_1, ...] per node id; node
0 is padding. tdm_sampler draws its negatives from a uniform sampler per layer (Paddle's
math::UniformSampler, seeded by `seed`, std::random_device when 0): only the distribution can
match Paddle, so a non-zero seed seeds a private torch generator and 0 uses torch's global one.
"""

from __future__ import annotations

import torch

from ...runtime.registry import REGISTRY
from .random import generator

# proto VarType codes of tdm_sampler's `dtype` attribute
_PROTO_INT = {2: torch.int32, 3: torch.int64}


@REGISTRY.register("pd_op.tdm_child", since=1)
def tdm_child(x, tree_info, *, child_nums=2, dtype=torch.int32):
    """The children of each node id of x and whether each child carries an item; a node with
    no child (id 0, or a zero first child) gives zeros."""
    dtype = dtype or torch.int32
    if dtype not in (torch.int32, torch.int64):
        raise ValueError(f"tdm_child: dtype must be int32 or int64, got {dtype}")
    nodes, length = tree_info.shape
    k = int(child_nums)
    if 3 + k > length:
        raise ValueError(f"tdm_child: tree_info rows hold {length - 3} children, "
                         f"child_nums is {k}")
    ids = x.reshape(-1).to(torch.int64)
    if ((ids < 0) | (ids >= nodes)).any():
        raise ValueError(f"tdm_child: node ids must be in [0, {nodes}), got {x.tolist()}")
    info = tree_info.to(torch.int64)
    has_child = (ids != 0) & (info[ids, 3] != 0)
    child = torch.where(has_child[:, None], info[ids, 3:3 + k], 0)
    if ((child < 0) | (child >= nodes)).any():
        raise ValueError(f"tdm_child: tree_info names children outside [0, {nodes})")
    item = torch.where(has_child[:, None], (info[child, 0] != 0).to(torch.int64), 0)
    shape = list(x.shape) + [k]
    return child.to(dtype).reshape(shape), item.to(dtype).reshape(shape)


@REGISTRY.register("pd_op.tdm_sampler", since=1)
def tdm_sampler(x, travel, layer, *, output_positive=True, neg_samples_num_list=(),
                layer_offset=(), seed=0, dtype=2):
    """Per input leaf and per layer: the travel path's node (label 1) when output_positive,
    then neg_samples_num_list[l] distinct other nodes of that layer (label 0); a zero
    (padding) path node gives zeros with mask 0."""
    out_dtype = _PROTO_INT.get(int(dtype))
    if out_dtype is None:
        raise ValueError(f"tdm_sampler: dtype must be 2 (int32) or 3 (int64), got {dtype}")
    negs = [int(n) for n in neg_samples_num_list]
    offs = [int(o) for o in layer_offset]
    if len(offs) != len(negs) + 1:
        raise ValueError(f"tdm_sampler: layer_offset needs {len(negs) + 1} entries for "
                         f"{len(negs)} layers, got {offs}")
    pos = int(bool(output_positive))
    width = sum(n + pos for n in negs)
    ids = x.reshape(-1).tolist()
    paths = travel.reshape(travel.shape[0], -1).tolist()
    layer_nodes = layer.reshape(-1).tolist()
    gen = generator(seed)
    out = [[0] * width for _ in ids]
    label = [[0] * width for _ in ids]
    mask = [[1] * width for _ in ids]
    for i, leaf in enumerate(ids):
        if not 0 <= leaf < len(paths):
            raise ValueError(f"tdm_sampler: input id {leaf} is outside travel's "
                             f"{len(paths)} rows")
        col = 0
        for li, n_neg in enumerate(negs):
            lo, hi = offs[li], offs[li + 1]
            if n_neg > hi - lo - 1:
                raise ValueError(f"tdm_sampler: layer {li} has {hi - lo} nodes, cannot "
                                 f"sample {n_neg} negatives besides the positive")
            positive = paths[leaf][li]
            if positive == 0:
                for c in range(col, col + n_neg + pos):
                    mask[i][c] = 0
                col += n_neg + pos
                continue
            if not lo <= positive <= hi:
                raise ValueError(f"tdm_sampler: path node {positive} of layer {li} is "
                                 f"outside [{lo}, {hi}]")
            if pos:
                out[i][col], label[i][col] = positive, 1
                col += 1
            # Paddle redraws until it has n_neg distinct positions whose node is not the
            # positive: a uniformly random ordered choice among those positions
            cands = [p for p in range(hi - lo) if layer_nodes[lo + p] != positive]
            if len(cands) < n_neg:
                raise ValueError(f"tdm_sampler: layer {li} has only {len(cands)} nodes "
                                 f"other than {positive}, {n_neg} negatives asked")
            for p in torch.randperm(len(cands), generator=gen)[:n_neg].tolist():
                out[i][col] = layer_nodes[lo + cands[p]]
                col += 1
    as_out = dict(dtype=out_dtype)
    return (torch.tensor(out, **as_out).reshape(len(ids), width),
            torch.tensor(label, **as_out).reshape(len(ids), width),
            torch.tensor(mask, **as_out).reshape(len(ids), width))
