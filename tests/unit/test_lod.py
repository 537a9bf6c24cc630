"""LoD as a runtime value (pirc/lower/lod.py): a feed's sequence offsets given as input
`lod__<feed>` (and `lod1__<feed>`), carried through the ops that share it to the kernels that
read it, and a fetched value's LoD handed back as output `lod__<fetch>`, on programs Paddle
saved (tests/fixtures/ops/VER/*__lod*, made by tools/paddle_oracle/gen_lod_fixtures.py)."""

import os

import numpy as np
import pytest

import pirc
from pirc.cli.run import run as pirc_run
from pirc.lower.feeds import FeedError

OPS = os.path.join(os.path.dirname(__file__), "..", "fixtures", "ops", "3.3.1")


def fixture(name):
    path = os.path.join(OPS, f"{name}.3.3.1.json")
    io = np.load(path[:-len(".json")] + ".io.npz")
    feeds = {k[len("in__"):]: io[k] for k in io.files if k.startswith("in__")}
    lods = {k: io[k] for k in io.files if k.startswith(("lod__", "lod1__"))}
    return path, feeds, lods, io


def test_a_fetched_lod_is_paddles_and_a_lod_free_fetch_has_none():
    path, feeds, lods, io = fixture("sequence_expand__lod")
    got = pirc.run(pirc.load(path), {**feeds, **lods})
    # x has a LoD: the expanded result's is the offsets of the repeated sequences
    assert got["lod__fetch_name_0"].tolist() == io["outlod__0"].tolist() == [0, 1, 2, 2, 2, 2]
    assert "lod__fetch_name_1" not in got and "outlod__1" not in io.files
    assert got["fetch_name_1"].tobytes() == io["out__1"].tobytes()


def test_a_lod_passes_through_an_op_that_shares_it():
    # scale sits between the feed and sequence_pool
    path, feeds, lods, io = fixture("sequence_pool__lod")
    got = pirc.run(pirc.load(path), {**feeds, **lods})
    for i in range(6):
        assert got[f"fetch_name_{i}"].tobytes() == io[f"out__{i}"].tobytes()


def test_two_levels_in_and_the_pooled_level_dropped_out():
    path, feeds, lods, io = fixture("sequence_pool__lod_two_levels")
    assert set(lods) == {"lod__x", "lod1__x"}
    got = pirc.run(pirc.load(path), {**feeds, **lods})
    assert got["lod__fetch_name_0"].tolist() == io["outlod__0"].tolist() == [0, 2, 3]
    assert "lod1__fetch_name_0" not in got


@pytest.mark.parametrize("lod,why", [
    ({"lod__x": np.array([0, 1, 2])}, "the last offset is 2, but feed x has 3 rows"),
    ({"lod__x": np.array([0, 2, 1, 3])}, "must start at 0 and never decrease"),
    ({"lod__x": np.array([[0, 3]])}, "1-D integer array"),
    ({"lod__q": np.array([0, 3])}, "the LoD of no feed of the program"),
    ({"lod1__x": np.array([0, 3])}, "without lod__x"),
])
def test_a_bad_lod_is_refused_naming_it(lod, why):
    path, feeds, lods, _ = fixture("sequence_expand__lod")
    with pytest.raises(FeedError, match=why):
        pirc.run(pirc.load(path), {**feeds, "lod__y": lods["lod__y"], **lod})


def test_a_lod_kernel_without_its_lod_says_which_input_to_give():
    path, feeds, _, _ = fixture("sequence_softmax__lod")
    with pytest.raises(FeedError, match="operand x has no LoD: .* input lod__<feed>"):
        pirc.run(pirc.load(path), feeds)


def test_pirc_run_reads_and_writes_lod_keys(tmp_path, capsys):
    path, feeds, lods, io = fixture("sequence_conv__lod")
    np.savez(tmp_path / "in.npz", **feeds, **lods)
    assert pirc_run([path, "--inputs", str(tmp_path / "in.npz"),
                     "--outputs", str(tmp_path / "out.npz")]) == 0
    out = np.load(tmp_path / "out.npz")
    assert out["lod__fetch_name_0"].tolist() == io["outlod__0"].tolist() == [0, 1, 4, 6]
    np.savez(tmp_path / "nolod.npz", **feeds)
    assert pirc_run([path, "--inputs", str(tmp_path / "nolod.npz"),
                     "--outputs", str(tmp_path / "o2.npz")]) == 1
    assert "has no LoD" in capsys.readouterr().err


def test_pyramid_hash_xxh32_is_the_reference_hash():
    # XXH32's published test values (empty input, "abc", a 16-byte-plus input's lane path)
    from pirc.lower.kernels.pyramid_hash import xxh32
    assert xxh32(b"", 0) == 0x02CC5D05
    assert xxh32(b"abc", 0) == 0x32D153FF
    assert xxh32(b"Nobody inspects the spammish repetition", 0) == 0xE2293B2F
