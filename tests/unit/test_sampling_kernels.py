"""Kernel invariants the Paddle fixtures cannot pin: the random branches of the graph / tree
samplers and nce (Paddle's draws come from an unseedable std::random_device engine, so the
fixtures only cover the deterministic cases), the reindexing rules, XXH64 itself, assert's
failure, random's range, and the weight_quantize version split."""

import os

import numpy as np
import pytest
import torch

import pirc
from pirc.lower.kernels import (assertion, graph_sampling, hashing, random_fill, sampled_losses,
                                tree_sampling, weight_only_quant)

FIX = os.path.join(os.path.dirname(__file__), "..", "fixtures", "ops")

# node j's in-neighbours are ROW[COLPTR[j]:COLPTR[j + 1]]
ROW = torch.tensor([1, 2, 3, 4, 5, 0, 2, 0, 1, 3, 4, 5], dtype=torch.int64)
COLPTR = torch.tensor([0, 5, 7, 12, 12, 12, 12], dtype=torch.int64)
EIDS = torch.arange(100, 112)


def _neighbours(node):
    return ROW[COLPTR[node]:COLPTR[node + 1]].tolist()


def test_sample_neighbors_draws_distinct_neighbours_with_their_edge_ids():
    torch.manual_seed(0)
    seen = set()
    for _ in range(50):
        out, count, eids = graph_sampling.graph_sample_neighbors(
            ROW, COLPTR, torch.tensor([0, 2, 3]), EIDS, sample_size=2, return_eids=True)
        assert count.dtype == torch.int32 and count.tolist() == [2, 2, 0]
        a, b = out[:2].tolist(), out[2:].tolist()
        assert len(set(a)) == 2 and set(a) <= set(_neighbours(0))
        assert len(set(b)) == 2 and set(b) <= set(_neighbours(2))
        # each edge id is the id of the edge its neighbour came by
        assert all(int(ROW[e - 100]) == n for n, e in zip(out.tolist(), eids.tolist()))
        seen.add(tuple(a))
    assert len(seen) > 5  # it does sample


def test_sample_neighbors_minus_one_keeps_every_neighbour_in_order():
    out, count, _ = graph_sampling.graph_sample_neighbors(
        ROW, COLPTR, torch.tensor([2, 1]), sample_size=-1)
    assert out.tolist() == _neighbours(2) + _neighbours(1) and count.tolist() == [5, 2]


def test_weighted_sampling_follows_the_weights():
    torch.manual_seed(0)
    w = torch.tensor([1e-4, 1e-4, 1e-4, 1e-4, 1000.0, 1, 1, 1, 1, 1, 1, 1], dtype=torch.float32)
    hits = 0
    for _ in range(200):
        out, count, _ = graph_sampling.weighted_sample_neighbors(
            ROW, COLPTR, w, torch.tensor([0]), sample_size=1)
        assert count.tolist() == [1] and out.numel() == 1
        hits += int(out[0]) == 5  # the heavy edge
    assert hits > 190


def test_khop_edges_are_graph_edges_between_sampled_nodes():
    torch.manual_seed(0)
    src, dst, nodes, rx, _ = graph_sampling.graph_khop_sampler(
        ROW, COLPTR, torch.tensor([0, 2]), sample_sizes=[2, 2])
    nodes = nodes.tolist()
    assert [nodes[i] for i in rx.tolist()] == [0, 2]
    for s, d in zip(src.reshape(-1).tolist(), dst.reshape(-1).tolist()):
        assert nodes[s] in _neighbours(nodes[d])


def test_reindex_keeps_paddles_duplicate_rule():
    # x names node 7 twice: it is listed twice, and both count as its last number
    src, dst, nodes = graph_sampling.reindex_graph(
        torch.tensor([7, 3, 7]), torch.tensor([3, 9, 7, 9]),
        torch.tensor([1, 2, 1], dtype=torch.int32))
    assert nodes.tolist() == [7, 3, 7, 9]
    assert src.tolist() == [1, 3, 2, 3] and dst.tolist() == [2, 1, 1, 2]
    with pytest.raises(ValueError, match="count sums"):
        graph_sampling.reindex_graph(torch.tensor([1]), torch.tensor([2, 3]),
                                     torch.tensor([1], dtype=torch.int32))


@pytest.mark.parametrize("data,seed,want", [
    (b"", 0, 0xEF46DB3751D8E999), (b"abc", 0, 0x44BC2CF5AD770999),
    (b"Nobody inspects the spammish repetition", 0, 0xFBCEA83C8A378BF1)])
def test_xxh64_reference_values(data, seed, want):
    rows = np.frombuffer(data, np.uint8).reshape(1, -1)
    assert int(hashing.xxh64(rows, seed)[0]) == want


def test_hash_rejects_what_the_kernel_cannot_hash():
    with pytest.raises(ValueError, match="2-D"):
        hashing.hash_(torch.zeros(2, 2, 2, dtype=torch.int64))
    with pytest.raises(ValueError, match="int32 or int64"):
        hashing.hash_(torch.zeros(2, 2))


def test_tdm_sampler_negatives_are_distinct_layer_nodes_other_than_the_positive():
    travel = torch.tensor([[1, 3], [2, 6]])
    layer = torch.tensor([1, 2, 3, 4, 5, 6, 7])
    for _ in range(30):
        out, lab, mask = tree_sampling.tdm_sampler(
            torch.tensor([[0], [1]]), travel, layer, neg_samples_num_list=[1, 3],
            layer_offset=[0, 2, 7], dtype=3)
        for row, path in zip(out.tolist(), travel.tolist()):
            assert row[0] == path[0] and row[1] in (1, 2) and row[1] != path[0]
            negs = row[3:]
            assert row[2] == path[1] and len(set(negs)) == 3
            assert set(negs) <= {3, 4, 5, 6, 7} - {path[1]}
        assert lab.tolist() == [[1, 0, 1, 0, 0, 0]] * 2 and mask.min() == 1
    a = tree_sampling.tdm_sampler(torch.tensor([[0]]), travel, layer, neg_samples_num_list=[1, 3],
                                  layer_offset=[0, 2, 7], seed=5)
    b = tree_sampling.tdm_sampler(torch.tensor([[0]]), travel, layer, neg_samples_num_list=[1, 3],
                                  layer_offset=[0, 2, 7], seed=5)
    assert all(torch.equal(x, y) for x, y in zip(a, b))  # a seed fixes the draw
    with pytest.raises(ValueError, match="cannot sample"):
        tree_sampling.tdm_sampler(torch.tensor([[0]]), travel, layer, neg_samples_num_list=[2, 3],
                                  layer_offset=[0, 2, 7])


@pytest.mark.parametrize("sampler", [0, 1])
def test_nce_noise_labels_are_classes(sampler):
    torch.manual_seed(0)
    x, w = torch.randn(8, 3), torch.randn(10, 3)
    cost, logits, labels = sampled_losses.nce(
        x, torch.zeros(8, 1, dtype=torch.int64), w, num_total_classes=10, num_neg_samples=50,
        sampler=sampler)
    assert labels.shape == (8, 51) and labels[:, 0].eq(0).all()
    assert labels.min() >= 0 and labels.max() < 10 and cost.shape == (8, 1)
    assert torch.isfinite(cost).all() and ((logits > 0) & (logits < 1)).all()
    if sampler == 1:  # log-uniform: small classes are drawn more often
        noise = labels[:, 1:].reshape(-1)
        assert (noise == 0).sum() > (noise == 8).sum()


def test_random_draws_in_range_and_dtype():
    torch.manual_seed(0)
    out = random_fill.random(torch.zeros(4000, dtype=torch.float16), from_=-3, to=3)
    assert out.dtype == torch.float16 and set(out.tolist()) == {-3.0, -2.0, -1.0, 0.0, 1.0, 2.0}
    # above 2048 float16 holds every 4th integer from 4096: a `to` that would round up
    # (4103 - 1 -> 4104) moves down to the float16 below it, so no draw reaches it
    assert random_fill._update_to(4103, 11) == 4100
    assert random_fill._update_from(-4103, 11) == -4100
    with pytest.raises(ValueError, match="less than"):
        random_fill.random(torch.zeros(2, dtype=torch.int64), from_=5, to=5)


def test_assert_stops_the_program_when_the_condition_fails():
    prog = pirc.load(os.path.join(FIX, "3.3.1", "assert.3.3.1.json"))
    x = np.ones((2, 3), np.float32)
    assert np.array_equal(list(pirc.run(prog, {"x": x}).values())[0], 2 * x)
    x[0, 1] = np.nan
    with pytest.raises(Exception, match="condition is false"):
        pirc.run(prog, {"x": x})
    with pytest.raises(assertion.AssertionFailed, match=r"first values \[1\.0, 2\.0\]"):
        assertion.assert_(torch.tensor([False]), [torch.tensor([1.0, 2.0, 3.0])], summarize=2)


def test_weight_quantize_scale_rounding_is_split_by_version():
    # Paddle 3.0 (PIR 1) rounds the float16 scale toward zero, 3.3 (PIR 4) to nearest: each
    # kernel matches its own wheel and not the other
    for ver, own, other in (("3.0.0", weight_only_quant.weight_quantize_v1,
                             weight_only_quant.weight_quantize),
                            ("3.3.1", weight_only_quant.weight_quantize,
                             weight_only_quant.weight_quantize_v1)):
        io = np.load(os.path.join(FIX, ver, f"weight_quantize.{ver}.io.npz"))
        w = torch.from_numpy(io["in__w"])
        assert np.array_equal(own(w)[1].numpy(), io["out__1"])
        assert not np.array_equal(other(w)[1].numpy(), io["out__1"])
        assert np.array_equal(own(w)[0].numpy(), io["out__0"])
    with pytest.raises(NotImplementedError, match="group-wise"):
        weight_only_quant.weight_quantize(w, group_size=64)
