"""The program fingerprint's first look (pirc.passes.infra.fingerprint.Fingerprinter._first)
hashes most ops inline, from their static key and their producers' hashes, and hands the
others (ops with regions or properties, a block argument read, a producer after its user,
a producer outside the block) to the general code.  Each top-level op's hash it keeps must
be the one the general subgraph walk gives, on every corpus program, on generated ones and
on programs built to take each way out of the inline path; and the multiset of op hashes it
keeps (`_tally`, `_retally`) must combine to what the sorted list of hashes gives.  Twins
reading other results of one producer, free inputs or block arguments must hash as the
general walk hashes them."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pirc
from xdsl.ir import Block
from pirc.passes.infra.fingerprint import (_DIGEST, _KEY, _OP, _PREFIX, _RANK, _RESORT, Fingerprinter, _block_ops,
                                           _combine_counted, _combine_sorted, _retally, _static_key, _tally)
from pirc.testing.strategies import aliasing_programs

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "corpus"
PROGRAMS = sorted(p for p in CORPUS.glob("3.*/*.json") if not p.name.startswith("gen_log"))


def _walked(program) -> tuple[dict, str]:
    """Each top-level op's hash and the program's fingerprint by the general walk."""
    ops = _block_ops(program.block)
    memo: dict = {}
    Fingerprinter(program.version)._hash_all(ops, {id(op) for op in ops}, memo)
    return {id(op): memo[id(op)] for op in ops}, Fingerprinter(program.version)._subgraph(ops)


def _check(program) -> Fingerprinter:
    """A first look against the general walk: the value, each op's hash, the op count, what
    is kept of each op (the op, its static key: the tuple its `_statics` entry holds, equal
    to the op's own; ranks in block order), the walk it hands over (`_check_walked`); and a
    second look (which compares every op with what the first kept) the same, hashing again
    only the ops hashed whole (with regions, or read before they are produced)."""
    f = Fingerprinter(program.version)
    value = f.program(program)
    _check_walked(f, program)
    hashes, walked = _walked(program)
    assert value == walked
    assert {key: entry[_DIGEST] for key, entry in f._kept.items()} == hashes
    assert f.op_count == program.op_count()
    assert f.touched is None
    ops = _block_ops(program.block)
    assert len(f._kept) == len(ops)
    for rank, op in enumerate(ops):
        entry = f._kept[id(op)]
        assert entry[_OP] is op and entry[_RANK] == rank
        assert entry[_KEY] == _static_key(op) and entry[_KEY] is f._statics[entry[_KEY]][3]
    assert f.program(program) == value
    assert all(f._kept[id(op)][_PREFIX] is None for op in f.touched)
    assert f.walked(program.block) is None   # a second look: no walk to hand over
    return f


def _check_walked(f: Fingerprinter, program) -> None:
    """What the first look hands over (`walked`, for the pass manager's op index and block
    order; dce): the block's ops in order, their names, their ids and the ops none of whose
    results has a use, as a walk of the block finds them; None where an op holds regions (the walk is then not every op the block
    holds), for another block, and once handed out."""
    ops = _block_ops(program.block)
    assert f.walked(Block()) is None   # another block: and the walk stays for its own
    walk = f.walked(program.block)
    if any(op.regions for op in ops):
        assert walk is None
    else:
        walked_ops, names, ids, unused = walk
        assert len(walked_ops) == len(ops) and all(a is b for a, b in zip(walked_ops, ops))
        assert names == [op.name for op in ops]
        assert ids == [id(op) for op in ops]
        assert list(map(id, unused)) == [id(op) for op in ops
                                         if all(r.first_use is None for r in op.results)]
    assert f.walked(program.block) is None   # handed out once


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: f"{p.parent.name}/{p.name[: -len('.json')]}")
def test_the_first_look_is_the_general_walk_on_the_corpus(path):
    _check(pirc.load(str(path)))


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(aliasing_programs(max_ops=10))
def test_the_first_look_is_the_general_walk_on_generated_programs(g):
    _check(g.parse())


def _mlp():
    return pirc.load(str(CORPUS / "3.3.1" / "mlp.3.3.1.json"))


def _reader_of_a_producer(block):
    """An op of `block` reading a result of an op of `block` that has operands itself."""
    for op in _block_ops(block):
        for value in op.operands:
            owner = getattr(value, "op", None)
            if owner is not None and owner.parent is block and owner.operands:
                return op, owner
    raise AssertionError("no such op")


def test_a_producer_after_its_user():
    """Only a graph region or a broken program has one: the inline path cannot hash the
    user (its producer's hash is not known yet) and hands it on, with the block's ops."""
    program = _mlp()
    block = program.block
    user, producer = _reader_of_a_producer(block)
    block.detach_op(producer)
    block.insert_op_after(producer, user)
    f = _check(program)
    assert f._kept[id(user)][_PREFIX] is None   # hashed whole, with its producer first
    # and an update after it: the general code's answer again
    assert f.update(program, [producer]) == _walked(program)[1]


def test_the_walk_is_handed_over_only_until_the_next_look():
    program = _mlp()
    f = Fingerprinter(program.version)
    f.program(program)
    f.update(program, [])          # nothing changed: still no walk after an update
    assert f.walked(program.block) is None
    f = Fingerprinter(program.version)
    f.program(program)
    f.program(program)             # a second look
    assert f.walked(program.block) is None


def test_a_block_argument_and_a_producer_outside_the_block_are_free_inputs():
    program = _mlp()
    block = program.block
    user, producer = _reader_of_a_producer(block)
    argument = block.insert_arg(producer.results[0].type, 0)
    user.operands = [argument if v is producer.results[0] else v for v in user.operands]
    _check(program)
    # a producer no longer in any block (an erased op still read: a broken program)
    other, owner = _reader_of_a_producer(block)
    for use in list(owner.results[0].uses):
        if use.operation is not other:
            use.operation.operands = [other.results[0] if v is owner.results[0] else v
                                      for v in use.operation.operands]
    block.detach_op(owner)
    _check(program)


def test_ops_after_an_op_with_regions():
    """Once an op with regions is hashed, the memo holds the ops inside it too: every op
    after it goes through the general code (which asks where each producer is)."""
    program = pirc.load(str(CORPUS / "3.3.1" / "control_flow.3.3.1.json"))
    ops = _block_ops(program.block)
    assert any(op.regions for op in ops[:-1])
    _check(program)


def test_a_producer_outside_the_block_and_one_after_its_user_read_by_one_op():
    """The inline path hands the op to `_hash_top` (a free input), which meets the late
    producer: the op is hashed whole, with its producers, as the general code does."""
    program = _mlp()
    block = program.block
    user = next(op for op in _block_ops(block) if op.name == "pd_op.matmul")
    first, second = (v.op for v in user.operands)
    block.detach_op(first)                     # no longer in any block: a free input
    block.detach_op(second)
    block.insert_op_after(second, user)        # after its user
    _check(program)


def _twin(op, attributes: dict):
    """A copy of `op` reading what it reads, with `attributes`, placed after it."""
    twin = op.clone()
    twin.attributes = attributes
    op.parent.insert_op_after(twin, op)
    return twin


def test_ops_a_cheaper_static_key_would_confuse():
    """The static key names what an op's prefix spells by identity, so the first look's
    memo (`_statics`) hands an op the prefix of another only when both spell the same.
    Pairs of ops that a key without attribute names, without their order, without result
    types or by equality of attribute values would take for one another: each is hashed
    as the general walk hashes it, and keeps its own key."""
    program = _mlp()
    ops = _block_ops(program.block)
    matmul = next(op for op in ops if op.name == "pd_op.matmul")
    names, values = list(matmul.attributes), list(matmul.attributes.values())
    # The same values in the same order under other names: `transpose_x` reads "/Linear/".
    swapped = _twin(matmul, dict(zip([names[2], names[1], names[0], *names[3:]], values)))
    # The same names and values, in another order: spelled alike, another key.
    reordered = _twin(matmul, dict(reversed(matmul.attributes.items())))
    # The same attribute objects, another result type (a parameter of another shape).
    bias, weight = ops[0], ops[1]
    assert bias.results[0].type != weight.results[0].type
    retyped = _twin(bias, dict(weight.attributes))
    # An attribute equal to the original but another object: another key, the same text.
    copied = _twin(matmul, {**matmul.attributes, "struct_name": type(values[2])(values[2].data)})
    assert copied.attributes["struct_name"] == values[2] and copied.attributes["struct_name"] is not values[2]
    f = _check(program)
    digest = {op: f._kept[id(op)][_DIGEST] for op in (matmul, swapped, reordered, weight, retyped, copied)}
    assert digest[swapped] != digest[matmul] == digest[reordered] == digest[copied]
    assert digest[retyped] != digest[weight]
    assert len({f._kept[id(op)][_KEY] for op in digest}) == len(digest)


def _transformer():
    return pirc.load(str(CORPUS / "3.3.1" / "transformer.3.3.1.json"))


def test_twins_read_the_same_another_result_or_a_free_input():
    """The first look reads a free input's bytes inline (`_inputs`): a twin of an op
    reading what it reads hashes as the op; a twin reading another result of the same
    producer, one reading a free input of that result's type (a producer outside the
    block) and one reading a block argument each hash as the general walk hashes them."""
    program = _transformer()
    block = program.block
    reader = next(op for op in _block_ops(block) if any(
        getattr(v, "op", None) is not None and len(v.op.results) > 1 and v.index == 0 for v in op.operands))
    at, value = next((i, v) for i, v in enumerate(reader.operands) if len(v.op.results) > 1 and v.index == 0)
    producer = value.op

    def twin(new):
        copy = reader.clone()
        copy.operands = [new if i == at else v for i, v in enumerate(reader.operands)]
        block.insert_op_after(copy, reader)
        return copy

    same = twin(value)
    other = twin(producer.results[1])
    outside = twin(producer.clone().results[0])   # an op in no block: a free input
    argument = twin(block.insert_arg(value.type, 0))
    f = _check(program)
    digest = {op: f._kept[id(op)][_DIGEST] for op in (reader, same, other, outside, argument)}
    assert digest[same] == digest[reader]
    assert len({digest[reader], digest[other], digest[outside]}) == 3
    assert digest[argument] == digest[outside]   # both the free input's type


# -- the multiset of op hashes ---------------------------------------------------------------


def _digest(i: int) -> bytes:
    return i.to_bytes(20, "big")


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 12), min_size=1, max_size=60), st.data())
def test_the_kept_multiset_combines_as_the_sorted_hashes(values, data):
    hashes = [_digest(v) for v in values]
    counts, distinct = _tally(hashes)
    assert _combine_counted(distinct, counts) == _combine_sorted(sorted(hashes))
    removed = data.draw(st.lists(st.sampled_from(hashes), unique_by=id, max_size=len(hashes)))
    added = [_digest(v) for v in data.draw(st.lists(st.integers(0, 20), max_size=20))]
    left = list(hashes)
    for digest in removed:
        left.remove(digest)
    distinct = _retally(counts, distinct, removed, added)
    assert _combine_counted(distinct, counts) == _combine_sorted(sorted(left + added))
    assert distinct == sorted(set(left + added)) and all(counts.values())


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 10**6), unique=True, min_size=1, max_size=300), st.data())
def test_a_multiset_with_few_repeated_hashes_combines_as_the_sorted_hashes(values, data):
    """A model whose layers are chained: many hashes once, a few (parameters, constants) many
    times; `_combine_counted` then joins the hashes between the repeated ones as they stand.
    The repeated ones anywhere: first, last, side by side."""
    hashes = [_digest(v) for v in values]
    repeated = data.draw(st.lists(st.sampled_from(hashes), max_size=max(1, len(hashes) // 5)))
    extra = [digest for digest in repeated for _ in range(data.draw(st.integers(1, 4)))]
    counts, distinct = _tally(hashes + extra)
    assert _combine_counted(distinct, counts) == _combine_sorted(sorted(hashes + extra))


def test_a_few_hashes_that_come_and_go_are_edited_in():
    rng = random.Random(3)
    hashes = [_digest(rng.randrange(10**9)) for _ in range(4 * _RESORT)]
    counts, distinct = _tally(hashes + hashes[:10])
    before = distinct
    new, old = _digest(10**9 + 1), hashes[5]
    distinct = _retally(counts, distinct, [old], [new, hashes[7]])
    assert distinct is before   # edited in place, not sorted afresh
    expected = hashes + hashes[:10] + [new, hashes[7]]
    expected.remove(old)
    assert _combine_counted(distinct, counts) == _combine_sorted(sorted(expected))
