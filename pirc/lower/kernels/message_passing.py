"""Graph message passing (paddle.geometric): send_u_recv, send_ue_recv and send_uv, as phi's
CPU kernels (graph_send_recv_kernel.cc, graph_send_ue_recv_kernel.cc,
graph_send_uv_kernel.cc) compute them.

Edge i carries x[src[i]] (combined with the edge feature y[i] by send_ue_recv, ADD or MUL,
broadcast over the feature dims) to row dst[i] of the output. SUM and MEAN add the messages in
edge order; MEAN then divides each row by its message count (dst_count, int32, which the
kernel writes for MEAN only); MIN and MAX start from the row's first message. A row no
message reaches stays 0. The output has out_size rows when out_size[0] > 0, else x's row
count. send_uv gives one row per edge: x[src[i]] combined with y[dst[i]].
"""

from __future__ import annotations

import torch

from ...runtime.registry import REGISTRY
from .operands import int_list


def _rows(x, out_size):
    # out_size: an int array (a constant folded to a list, or a tensor)
    sizes = int_list(out_size) if out_size is not None else []
    n = sizes[0] if sizes else 0
    return n if n > 0 else x.shape[0]


def _message(a, b, op):
    return a * b if op.upper() == "MUL" else a + b


def _reduce(msg, dst, rows, reduce_op, dtype):
    """The messages (edge-major) reduced into `rows` rows by dst; (out, dst_count)."""
    ids = dst.long()
    shape = (rows,) + tuple(msg.shape[1:])
    out = torch.zeros(shape, dtype=dtype, device=msg.device)
    reduce_op = reduce_op.upper()
    count = torch.zeros(rows, dtype=torch.int32, device=msg.device).index_add_(
        0, ids, torch.ones_like(ids, dtype=torch.int32))
    if reduce_op in ("SUM", "MEAN"):
        # one edge after another, as the CPU loop adds them
        for i in range(ids.numel()):
            out[ids[i]] += msg[i]
        if reduce_op == "MEAN":
            c = count.to(dtype).reshape((rows,) + (1,) * (msg.dim() - 1))
            out = torch.where(c > 0, out / torch.clamp_min(c, 1), out)
            return out, count
        return out, None
    reduce = "amax" if reduce_op == "MAX" else "amin"
    index = ids.reshape((-1,) + (1,) * (msg.dim() - 1)).expand(msg.shape)
    out = out.scatter_reduce(0, index, msg, reduce, include_self=False)
    return out, None


@REGISTRY.register("pd_op.send_u_recv", since=1)
def send_u_recv(x, src_index, dst_index, out_size=None, *, reduce_op="SUM"):
    msg = x[src_index.long()]
    return _reduce(msg, dst_index, _rows(x, out_size), reduce_op, x.dtype)


@REGISTRY.register("pd_op.send_ue_recv", since=1)
def send_ue_recv(x, y, src_index, dst_index, out_size=None, *, message_op="ADD",
                 reduce_op="SUM"):
    msg = _message(x[src_index.long()], y, message_op)
    return _reduce(msg, dst_index, _rows(x, out_size), reduce_op, x.dtype)


@REGISTRY.register("pd_op.send_uv", since=1)
def send_uv(x, y, src_index, dst_index, *, message_op="ADD"):
    return _message(x[src_index.long()], y[dst_index.long()], message_op)
