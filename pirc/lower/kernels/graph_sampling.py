"""Graph neighbour sampling on a CSC graph (Paddle's paddle.geometric ops), as the CPU kernels
phi/kernels/cpu/{graph_sample_neighbors,weighted_sample_neighbors,graph_khop_sampler,
graph_reindex}_kernel.cc compute them.

The graph is CSC: node j's in-neighbours are row[colptr[j]:colptr[j + 1]]. A node with at
most `sample_size` neighbours keeps all of them in CSC order (deterministic, bit-exact with
Paddle); a node with more gets a random subset. Paddle draws that subset from a
std::random_device-seeded std::mt19937 that no program can fix, so only the distribution can
match: uniform subsets in a random order (partial Fisher-Yates) for the unweighted ops, and
A-Res weighted reservoir sampling (key log2(u) / w, the sample_size largest keys, given
smallest key first as Paddle's min-heap pops them) for the weighted one. The draws here come
from torch's global generator.

Reindexing (reindex_graph, the last step of graph_khop_sampler) numbers the input nodes
0..n-1 in order and then each new neighbour in order of first appearance; a node given twice
in x keeps the number of its last occurrence (Paddle's unordered_map is overwritten) while
out_nodes lists it twice.
"""

from __future__ import annotations

import torch

from ...runtime.registry import REGISTRY


def _neighbours(row, colptr, node: int) -> tuple[int, int]:
    if not 0 <= node < colptr.numel() - 1:
        raise ValueError(f"node {node} is outside the graph's {colptr.numel() - 1} nodes "
                         f"(colptr has {colptr.numel()} entries)")
    return int(colptr[node]), int(colptr[node + 1])


def _uniform_pick(cap: int, k: int) -> torch.Tensor:
    """Positions of k of cap neighbours, uniform without replacement, in random order."""
    return torch.randperm(cap)[:k]


def _size(sample_size) -> int:
    # -1 (the Python API's default) keeps every neighbour, as the op documents and the GPU
    # kernel does (the CPU kernel would emit a count of -1)
    size = int(sample_size)
    return size if size >= 0 else 2 ** 62


def _sample(row, colptr, nodes, sample_size: int, eids=None, weight=None):
    """The sampled neighbours of each node (and their edge ids), and how many each has."""
    picked, picked_eids, counts = [], [], []
    for node in nodes:
        begin, end = _neighbours(row, colptr, node)
        cap = end - begin
        idx = torch.arange(begin, end)
        if sample_size < cap:
            if weight is None:
                idx = idx[_uniform_pick(cap, sample_size)]
            else:
                # float32 keys as Paddle's: log2(U(0, 1)) * (1 / w)
                u = torch.rand(cap, dtype=torch.float32)
                key = torch.log2(u) * (1 / weight[begin:end].to(torch.float32))
                top = torch.topk(key, sample_size).indices
                idx = idx[top.flip(0)]  # the min-heap pops the smallest kept key first
        picked.append(row[idx])
        if eids is not None:
            picked_eids.append(eids[idx])
        counts.append(int(idx.numel()))
    empty = row.new_empty(0)
    out = torch.cat(picked) if picked else empty
    out_eids = (torch.cat(picked_eids) if picked_eids else empty) if eids is not None else empty
    return out, out_eids, counts


@REGISTRY.register("pd_op.graph_sample_neighbors", since=1)
def graph_sample_neighbors(row, colptr, x, eids=None, perm_buffer=None, *, sample_size=-1,
                           return_eids=False, flag_perm_buffer=False):
    # perm_buffer is the GPU kernel's scratch space: the CPU kernel never reads it
    if return_eids and eids is None:
        raise ValueError("graph_sample_neighbors: return_eids needs the eids operand")
    out, out_eids, counts = _sample(row, colptr, x.tolist(), _size(sample_size),
                                    eids if return_eids else None)
    return out, torch.tensor(counts, dtype=torch.int32), out_eids


@REGISTRY.register("pd_op.weighted_sample_neighbors", since=1)
def weighted_sample_neighbors(row, colptr, edge_weight, input_nodes, eids=None, *,
                              sample_size=-1, return_eids=False):
    if return_eids and eids is None:
        raise ValueError("weighted_sample_neighbors: return_eids needs the eids operand")
    out, out_eids, counts = _sample(row, colptr, input_nodes.tolist(), _size(sample_size),
                                    eids if return_eids else None, weight=edge_weight)
    return out, torch.tensor(counts, dtype=torch.int32), out_eids


def _reindex(dst_nodes: list[int], neighbours: list[int], counts: list[int]):
    """(src ids, dst ids, node list) as Paddle's reindex loops make them."""
    node_map: dict[int, int] = {}
    nodes = list(dst_nodes)
    for i, n in enumerate(dst_nodes):
        node_map[n] = i
    src = []
    for n in neighbours:
        if n not in node_map:
            node_map[n] = len(nodes)
            nodes.append(n)
        src.append(node_map[n])
    dst = [node_map[n] for n, c in zip(dst_nodes, counts) for _ in range(c)]
    return src, dst, nodes, node_map


@REGISTRY.register("pd_op.reindex_graph", since=1)
def reindex_graph(x, neighbors, count, hashtable_value=None, hashtable_index=None):
    # the hashtable buffers are the GPU kernel's; the CPU kernel reindexes with a hash map
    counts = count.tolist()
    if sum(counts) != neighbors.numel():
        raise ValueError(f"reindex_graph: count sums to {sum(counts)} but there are "
                         f"{neighbors.numel()} neighbours")
    src, dst, nodes, _ = _reindex(x.tolist(), neighbors.tolist(), counts)
    as_x = dict(dtype=x.dtype)
    return torch.tensor(src, **as_x), torch.tensor(dst, **as_x), torch.tensor(nodes, **as_x)


def _unique_adjacent(values: list[int]) -> list[int]:
    # std::unique: drops only repeats of the previous element
    return [v for i, v in enumerate(values) if i == 0 or v != values[i - 1]]


@REGISTRY.register("pd_op.graph_khop_sampler", since=1)
def graph_khop_sampler(row, colptr, x, eids=None, *, sample_sizes=(), return_eids=False):
    """Sample len(sample_sizes) hops from x and reindex the sampled subgraph.

    Each hop samples the neighbours of its frontier (the first: x with adjacent repeats
    dropped; the next: the sorted new nodes of the hop before, minus that hop's frontier).
    Paddle's CPU kernel loops over len(x) frontier nodes at every hop, reading past a
    smaller frontier and skipping the rest of a larger one; pirc samples the whole frontier,
    which is what the op documents and what the kernel does whenever the sizes agree."""
    if row.numel() == 0 or colptr.numel() == 0 or x.numel() == 0:
        raise ValueError("graph_khop_sampler: row, colptr and x must not be empty")
    if return_eids and eids is None:
        raise ValueError("graph_khop_sampler: return_eids needs the eids operand")
    given = x.tolist()
    frontier = _unique_adjacent(given)
    dst_all, src_all, count_all, eid_parts = [], [], [], []
    for hop, k in enumerate(sample_sizes):
        if not frontier:
            break
        out, out_eids, counts = _sample(row, colptr, frontier, _size(k),
                                        eids if return_eids else None)
        if hop == 0 and out.numel() == 0:
            raise ValueError("graph_khop_sampler: none of the input nodes has a neighbour")
        dst_all += frontier
        src_all += out.tolist()
        count_all += counts
        eid_parts.append(out_eids)
        frontier = sorted(set(out.tolist()) - set(frontier))
    src, dst, nodes, node_map = _reindex(dst_all, src_all, count_all)
    as_x = dict(dtype=x.dtype)
    out_eids = torch.cat(eid_parts) if return_eids else x.new_empty(0)
    return (torch.tensor(src, **as_x).reshape(-1, 1), torch.tensor(dst, **as_x).reshape(-1, 1),
            torch.tensor(nodes, **as_x), torch.tensor([node_map[n] for n in given], **as_x),
            out_eids)
