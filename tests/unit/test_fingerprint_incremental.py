"""The program fingerprint the pass manager takes after each pass is incremental
(pirc.passes.infra.fingerprint.Fingerprinter.update): only what the pass's rewrites matched,
produced or edited, and what lies downstream of it, is hashed again.  Its `pfp1:` values are
those of a fresh look at the program, after every pass of every corpus program (both
releases) under `default`, `fuse` and `npu` and on generated programs, and those pirc wrote
before the fingerprint was incremental (rollout allowlists, canary buckets, graph tags and
migration reports hold them).

tests/fixtures/fingerprints/corpus-pfp1.json was written once by commit effa193, the last one
before the update was incremental: for each program and pipeline, `result.fingerprint` and
each graph tag's `after` of `run_pipeline(program, pipeline, params=params)` (the loop of
the corpus test below).  Never regenerate it to make this test pass: a change of what is
hashed is a new format (`pfp2:`).
"""

from __future__ import annotations

import json
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from xdsl.dialects.builtin import ArrayAttr

import pirc
from pirc.passes import PircPass, register_pass, run_pipeline
from pirc.passes.infra.fingerprint import _RANK, Fingerprinter, _retally, _tally, top_level
from pirc.passes.infra.ir_watch import IRWatch
from pirc.passes.infra.manager import Instrument
from pirc.passes.infra.rewrites import ANY_OP, OpUse
from pirc.testing.strategies import aliasing_programs

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "fixtures" / "corpus"
GOLDEN = ROOT / "tests" / "fixtures" / "fingerprints" / "corpus-pfp1.json"
PROGRAMS = sorted(p for p in CORPUS.glob("3.*/*.json") if not p.name.startswith("gen_log"))
PIPELINES = ("default", "fuse", "npu")
_LOOK = Fingerprinter.program   # a fresh look, not counted by counting()


def fresh(program) -> str:
    return _LOOK(Fingerprinter(program.version), program)


def _load(path: Path):
    program = pirc.load(str(path))
    params_file = path.with_suffix(".pdiparams")
    params = pirc.read_params(str(params_file), program) if params_file.exists() else None
    return program, params


class AgainstAFreshLook(Instrument):
    """After each pass that ran: the manager's idea of the program's fingerprint (the last
    one it took: the pass's own when it changed the program) and op count against a fresh
    Fingerprinter's and Program.op_count."""

    def __init__(self, start: str):
        self.last = start
        self.passes = 0

    def after(self, p, index, program, record):
        if record.fingerprint_after is not None:
            self.last = record.fingerprint_after
        assert self.last == fresh(program), f"after {p.name} (#{index + 1} of the pipeline)"
        assert record.ops_after == program.op_count(), f"after {p.name} (#{index + 1})"
        self.passes += 1


@contextmanager
def counting():
    """Every Fingerprinter.program and .update call of the block, with what each hashed."""
    calls = {"program": 0, "update": [], "fallbacks": 0}
    program, update = Fingerprinter.program, Fingerprinter.update

    def counted_program(self, p):
        calls["program"] += 1
        return program(self, p)

    def counted_update(self, p, seeds, steady=(), detached=None):
        fallbacks = self.fallbacks
        value = update(self, p, seeds, steady, detached)
        calls["update"].append(len(self.touched or ()))
        calls["fallbacks"] += self.fallbacks - fallbacks
        return value

    with mock.patch.object(Fingerprinter, "program", counted_program), \
            mock.patch.object(Fingerprinter, "update", counted_update):
        yield calls


def checked_run(program, pipeline, params=None):
    start = fresh(program)
    check = AgainstAFreshLook(start)
    with counting() as calls:
        result = run_pipeline(program, pipeline, params=params, verify_each="incremental",
                              instruments=[check])
    assert result.fingerprint == start
    assert calls["fallbacks"] == 0, "the update hashed the whole program again"
    return result, check, calls


@pytest.mark.parametrize("pipeline", PIPELINES)
@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.name[: -len(".json")])
def test_every_pass_of_the_corpus_gives_the_fresh_fingerprint(path, pipeline):
    program, params = _load(path)
    result, check, calls = checked_run(program, pipeline, params)
    assert check.passes == sum(r.ran for r in result.passes)
    changed = [r for r in result.passes if r.changed]
    # One look at the program as it entered the pipeline; after that, updates only.
    assert calls["program"] == 1 and len(calls["update"]) == len(changed)
    golden = json.loads(GOLDEN.read_text())[f"{path.parent.name}/{path.name}:{pipeline}"]
    assert [result.fingerprint] + [t.after for t in program.graph_tags] == golden


def test_an_upgrade_looks_at_the_whole_program_and_the_passes_after_it_update():
    path = CORPUS / "3.0.0" / "transformer.3.0.0.json"
    program, params = _load(path)
    result, _, calls = checked_run(program, "upgrade,default", params)
    assert result.passes[0].name == "upgrade" and result.passes[0].changed
    # the fingerprint before the pipeline and the one after the upgrade (a correctness pass
    # may change the program outside the gate, and it changes the program's version)
    assert calls["program"] == 2
    assert len(calls["update"]) == sum(r.changed for r in result.passes[1:]) > 0


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(aliasing_programs(max_ops=10), st.sampled_from(PIPELINES))
def test_generated_programs_give_the_fresh_fingerprint(g, pipeline):
    checked_run(g.parse(), pipeline, g.fresh_params())


@register_pass
@dataclass(frozen=True)
class EmptiesStopGradient(PircPass):
    """An attribute-only rewrite: each relu's stop_gradient emptied, through the gate, with no
    operand, op or block edited (the IR watch sees nothing: only the gate knows)."""

    name = "test-empties-stop-gradient"
    rewrites = {"pd_op.relu": OpUse(ANY_OP)}

    def run(self, pc):
        for op in [o for o in pc.program.block.ops if o.name == "pd_op.relu"]:
            rewrite = pc.begin([op])
            if rewrite is not None:
                op.attributes["stop_gradient"] = ArrayAttr([])
                rewrite.done([op])


def test_an_op_edited_in_place_through_the_gate_is_hashed_again():
    program, _ = _load(CORPUS / "3.3.1" / "mlp.3.3.1.json")
    result, _, calls = checked_run(program, "test-empties-stop-gradient")
    assert result.passes[0].rewrites > 0 and len(calls["update"]) == 1
    assert program.graph_tags[0].before != program.graph_tags[0].after


def test_a_pass_that_changes_nothing_hashes_nothing():
    program, _ = _load(CORPUS / "3.3.1" / "mlp.3.3.1.json")
    run_pipeline(program, "default")
    with counting() as calls:
        result = run_pipeline(program, "cse,dce", verify_each="incremental")
    assert not any(r.changed for r in result.passes)
    assert calls == {"program": 1, "update": [], "fallbacks": 0}


# -- the update itself ----------------------------------------------------------------------


def _mlp():
    program, _ = _load(CORPUS / "3.3.1" / "mlp.3.3.1.json")
    fingerprinter = Fingerprinter(program.version)
    fingerprinter.program(program)
    return program, fingerprinter


def _downstream(op) -> set:
    seen, todo = set(), [op]
    while todo:
        for result in todo.pop().results:
            for use in result.uses:
                if use.operation not in seen:
                    seen.add(use.operation)
                    todo.append(use.operation)
    return seen


def test_no_seeds_no_work():
    program, f = _mlp()
    before = f.program(program)
    assert f.update(program, []) == before and f.touched == []


# `steady`: the seeds only whose operands changed (what the manager passes for the ops the
# watch saw edited and no rewrite matched or produced); the answers are the same.
STEADY = [False, True]


@pytest.mark.parametrize("steady", STEADY)
def test_an_edit_rehashes_the_op_and_its_downstream_cone_only(steady):
    program, f = _mlp()
    ops = list(program.block.ops)
    names = [op.name for op in ops]
    softmax, matmul = ops[names.index("pd_op.softmax")], ops[names.index("pd_op.matmul", 6)]
    softmax.operands = [matmul.results[0]]   # skip the bias add: reads an op hashing otherwise
    value = f.update(program, [softmax], {id(softmax)} if steady else ())
    assert value == fresh(program)
    assert f.touched[0] is softmax
    assert set(f.touched) <= {softmax} | _downstream(softmax)
    assert len(f.touched) < len(ops) // 2


@pytest.mark.parametrize("steady", STEADY)
def test_an_op_merged_into_its_twin_moves_no_hash_below_it(steady):
    """cse's case: users pointed at an op that hashes like the one they read stay as they are
    (with `steady`, without being hashed again)."""
    program, f = _mlp()
    block = program.block
    relu = next(op for op in block.ops if op.name == "pd_op.relu")
    twin = relu.clone()
    block.insert_op_after(twin, relu)
    f.update(program, [twin])
    users = {use.operation for use in relu.results[0].uses}
    assert users
    relu.results[0].replace_all_uses_with(twin.results[0])
    before = f.update(program, users, set(map(id, users)) if steady else ())
    assert set(f.touched) == users   # hashed again, and the same: nothing below them
    assert before == fresh(program)
    block.erase_op(relu)
    count = f.op_count
    assert f.update(program, [relu]) == fresh(program)
    assert f.touched == [] and f.op_count == count - 1 == program.op_count()


def test_many_ops_inserted_between_the_same_two_ops():
    """Each new op's rank lies between its neighbours'; when floats run out between two
    kept ops the block is numbered afresh, not hashed again."""
    program, f = _mlp()
    block = program.block
    relu = next(op for op in block.ops if op.name == "pd_op.relu")
    anchor = relu.next_op
    for i in range(120):
        op = relu.clone()
        block.insert_op_before(op, anchor)
        anchor = op
        value = f.update(program, [op])
        if i % 20 == 0 or i == 119:
            assert value == fresh(program)
            assert f.op_count == program.op_count()
        assert f.touched == [op]
    assert f.fallbacks == 0


def test_an_edit_inside_a_region_rehashes_the_op_that_holds_it():
    program, _ = _load(CORPUS / "3.3.1" / "control_flow.3.3.1.json")
    f = Fingerprinter(program.version)
    f.program(program)
    holder = next(op for op in program.block.ops if op.regions and any(
        inner.operands for region in op.regions for block in region.blocks for inner in block.ops))
    inner = next(o for region in holder.regions for block in region.blocks for o in block.ops
                 if o.results and o.results[0].uses)
    clone = inner.clone()
    inner.parent.insert_op_after(clone, inner)
    use = next(iter(inner.results[0].uses))
    use.operation.operands = [clone.results[0] if v is inner.results[0] else v
                              for v in use.operation.operands]
    assert top_level(clone, program.block) is holder
    assert f.update(program, [holder]) == fresh(program)
    assert f.touched[0] is holder and f.op_count == program.op_count()


def test_the_watch_names_the_top_level_op_of_each_edit():
    program, _ = _load(CORPUS / "3.3.1" / "control_flow.3.3.1.json")
    holder = next(op for op in program.block.ops if op.regions)
    inner = next(o for region in holder.regions for block in region.blocks for o in block.ops)
    outside = inner.clone()
    some_type = next(op.results[0].type for op in program.block.ops if op.results)
    watch = IRWatch(program)
    with watch:
        outside.operands = list(outside.operands)   # an op not in the program: not counted
        assert watch.tops == {} and not watch.changed
        inner.parent.insert_op_after(outside, inner)
        assert watch.tops == {id(holder): holder} and not watch.whole
        program.block.insert_arg(some_type, 0)
    assert watch.whole



def _ranks_fit(f, program) -> bool:
    """Whether the kept ranks increase along the block (what the update's order relies on)."""
    ranks = [f._kept[id(op)][_RANK] for op in program.block.ops]
    return all(a < b for a, b in zip(ranks, ranks[1:]))


@pytest.mark.parametrize("steady", STEADY)
@pytest.mark.parametrize("detached", [None, 1])
def test_a_seed_moved_in_the_block_is_ranked_where_it_lands(steady, detached):
    """The update checks each seed's rank against its neighbours' as it sorts the seeds; a
    seed moved (here a parameter, moved from the block's start to just before its reader)
    gets a rank that fits where it now stands: skipping the check leaves the rank it had at
    the start, below its new neighbours' (and the climb's order, and _same_inputs' "placed
    before", wrong)."""
    program, f = _mlp()
    block = program.block
    ops = list(block.ops)
    param = ops[0]
    reader = next(iter(param.results[0].uses)).operation
    block.detach_op(param)
    block.insert_op_before(param, reader)
    # `detached` (the watch's count): the parameter left the block once, and no seed is erased
    assert f.update(program, [param], {id(param)} if steady else (), detached) == fresh(program)
    assert _ranks_fit(f, program) and f.fallbacks == 0


# -- `detached`: no op moved, no neighbour checks (Fingerprinter.update) ---------------------


def _erase_one_and_move_one(program):
    """An unread op erased and a parameter moved to just before its reader: two ops left
    the block, one of them for good."""
    block = program.block
    ops = list(block.ops)
    param = ops[0]
    reader = next(iter(param.results[0].uses)).operation
    dead = next(op for op in ops if op.name == "builtin.parameter" and op is not param)
    dead.results[0].replace_all_uses_with(param.results[0])   # its readers read the first one
    block.erase_op(dead)
    block.detach_op(param)
    block.insert_op_before(param, reader)
    return param, dead


def test_a_move_beside_an_erasure_is_seen_by_the_count():
    """Two ops left the block and one seed is gone: the count says an op may have moved,
    and the seeds' neighbours are compared (the moved parameter is ranked anew)."""
    program, f = _mlp()
    readers = {use.operation for op in list(program.block.ops)[1:] if op.name == "builtin.parameter"
               for use in op.results[0].uses}
    param, dead = _erase_one_and_move_one(program)
    readers = {r for r in readers if r.parent is program.block}
    assert f.update(program, [param, dead, *readers], set(map(id, readers)), 2) == fresh(program)
    assert _ranks_fit(f, program) and f.fallbacks == 0


def test_the_count_is_what_says_no_op_moved():
    """The mutation check: told that only the erased op left the block (a count that
    leaves the move out), the update keeps the moved parameter's old rank, below its new
    neighbours': the test above holds the comparison that the count turns off."""
    program, f = _mlp()
    readers = {use.operation for op in list(program.block.ops)[1:] if op.name == "builtin.parameter"
               for use in op.results[0].uses}
    param, dead = _erase_one_and_move_one(program)
    readers = {r for r in readers if r.parent is program.block}
    f.update(program, [param, dead, *readers], set(map(id, readers)), 1)
    assert not _ranks_fit(f, program)


@register_pass
@dataclass(frozen=True)
class MovesParameters(PircPass):
    """Each parameter read once, moved through the gate to just before its reader (the IR
    watch counts each detach)."""

    name = "test-moves-parameters"
    rewrites = {"builtin.parameter": OpUse(ANY_OP)}

    def run(self, pc):
        block = pc.program.block
        for op in [o for o in block.ops if o.name == "builtin.parameter"]:
            uses = list(op.results[0].uses)
            if len(uses) != 1 or uses[0].operation.parent is not block:
                continue
            rewrite = pc.begin([op])
            if rewrite is not None:
                block.detach_op(op)
                block.insert_op_before(op, uses[0].operation)
                rewrite.done([op])


@pytest.mark.parametrize("pipeline", ["test-moves-parameters", "test-moves-parameters,cse,dce"])
def test_a_pass_that_moves_ops_gives_the_fresh_fingerprint(pipeline):
    program, _ = _load(CORPUS / "3.3.1" / "mlp.3.3.1.json")
    result, _, calls = checked_run(program, pipeline)
    assert result.passes[0].rewrites > 0 and calls["update"]


def test_a_steady_seed_reading_a_block_argument_is_hashed_again():
    """A seed only whose operands changed, now reading a block argument (a free input,
    spelled by its type): the inline hash in the update's climb hands it to _hash_top, which
    spells it as a fresh look does; the ops below it are hashed again too."""
    program, f = _mlp()
    block = program.block
    relu = next(op for op in block.ops if op.name == "pd_op.relu")
    arg = block.insert_arg(relu.operands[0].type, 0)
    f.update(program, [])   # the argument alone changes no op's hash
    relu.operands = [arg]
    value = f.update(program, [relu], {id(relu)})
    assert value == fresh(program) and f.fallbacks == 0
    assert f.touched[0] is relu and set(f.touched) <= {relu} | _downstream(relu)
    assert len(f.touched) > 1   # its hash moved: its readers were hashed again


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 40), max_size=600), st.data())
def test_the_multiset_edit_is_a_recount(start, data):
    """_retally (the program's op hashes as counts and sorted distinct hashes) against a
    recount, with hashes that come and go, repeat, and come back: both the in-place edit and
    the fresh sort."""
    digests = [b"%03d" % n for n in start]
    counts, distinct = _tally(digests)
    pool = digests + [b"%03d" % n for n in range(41, 60)]
    removed = data.draw(st.lists(st.sampled_from(digests), unique_by=lambda _: object(),
                                 max_size=len(digests))) if digests else []
    # each removed one is an op the program had: at most as many as it has of each
    keep = Counter(digests)
    removed = [d for d in removed if keep[d] > 0 and not keep.subtract([d])]
    added = data.draw(st.lists(st.sampled_from(pool), max_size=50))
    distinct = _retally(counts, distinct, list(removed), list(added))
    expected = Counter(digests)
    expected.subtract(removed)
    expected.update(added)
    expected = +expected
    assert dict(counts) == dict(expected) and distinct == sorted(expected)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from([3, 40, 700, 1500]), st.data())
def test_the_multiset_edit_is_a_recount_when_hashes_come_and_go_in_one_update(size, data):
    """An op hashed twice in one climb (its rank out of date) adds its passing hash and
    removes it again: that hash, never among the distinct ones, is neither inserted nor
    taken out (the in-place edit would take out its neighbour).  Against a recount, with
    few distinct hashes (the fresh merge) and many (the in-place edit for a few changes)."""
    digests = [b"%05d" % n for n in range(size)] + [b"%05d" % n for n in range(0, size, 3)]
    counts, distinct = _tally(digests)
    passing = data.draw(st.lists(st.sampled_from([b"p%04d" % n for n in range(20)]), min_size=1,
                                 max_size=6, unique=True))
    fresh = data.draw(st.lists(st.sampled_from([b"q%04d" % n for n in range(20)]), max_size=3, unique=True))
    olds = data.draw(st.lists(st.sampled_from(digests), max_size=3, unique_by=lambda _: object()))
    keep = Counter(digests)
    olds = [d for d in olds if keep[d] > 0 and not keep.subtract([d])]
    added, removed = passing + fresh, passing + olds
    order = data.draw(st.randoms(use_true_random=False))
    order.shuffle(added)
    order.shuffle(removed)
    distinct = _retally(counts, distinct, removed, added)
    expected = Counter(digests)
    expected.subtract(olds)
    expected.update(fresh)
    expected = +expected
    assert dict(counts) == dict(expected) and distinct == sorted(expected)


# -- steady seeds settled before the climb (Fingerprinter._settle) ---------------------------


def _merged_twin(program, f, move_twin: bool):
    """cse's case on the mlp: a twin of a relu inserted after it, the relu's readers pointed
    at the twin (steady seeds) and the relu erased, all in one update; with `move_twin` the
    twin also reads another value (a seed whose hash moves in the same update)."""
    block = program.block
    relu, twin, users = _relu_readers_moved_to_a_twin(program, f)
    assert users
    block.erase_op(relu)
    seeds = [relu, *users]
    if move_twin:
        # the twin reads another value: an earlier result of the same type
        source = twin.operands[0]
        other = next(r for op in block.ops if op is not source.op and op.name != "builtin.parameter"
                     for r in op.results if r.type == source.type and op.next_op is not None
                     and _before(op, twin))
        twin.operands = [other]
        seeds.append(twin)
    return f.update(program, seeds, set(map(id, users))), users, twin


def _before(a, b) -> bool:
    while a is not None:
        if a is b:
            return True
        a = a.next_op
    return False


def test_readers_of_a_merged_op_are_settled_without_the_climb():
    program, f = _mlp()
    value, users, _ = _merged_twin(program, f, move_twin=False)
    assert value == fresh(program) and f.op_count == program.op_count()
    assert f.touched == users and f.fallbacks == 0   # each settled once, nothing below them


def test_a_settled_reader_whose_new_producer_moves_is_hashed_again():
    """_settle compares with the hashes the update started with; the twin's hash moves in
    the climb after, and its readers, settled, are queued then and hashed again."""
    program, f = _mlp()
    value, users, twin = _merged_twin(program, f, move_twin=True)
    assert value == fresh(program) and f.fallbacks == 0
    assert twin in f.touched and set(users) <= set(f.touched)
    assert len(f.touched) == len(set(map(id, f.touched)))   # each op once


def test_settling_is_what_keeps_the_readers_hashes():
    """The mutation check: a _same_inputs that settles a reader of another value (here, of
    an op hashing otherwise: every reader of the relu, pointed at the relu's input) gives
    another fingerprint than a fresh look, so the tests above hold the real one."""
    program, f = _mlp()
    block = program.block
    relu = next(op for op in block.ops if op.name == "pd_op.relu")
    users = [use.operation for use in relu.results[0].uses]
    relu.results[0].replace_all_uses_with(relu.operands[0])
    block.erase_op(relu)
    with mock.patch.object(Fingerprinter, "_same_inputs", lambda self, entry, gone: True):
        value = f.update(program, [relu, *users], set(map(id, users)))
    assert value != fresh(program)


# -- steady seeds settled as the update takes them (Fingerprinter._update, _unsettle) --------


def test_readers_settled_beside_a_moved_op_are_settled_once_after_the_ranking():
    """An op moved among the seeds (ranked anew by _place) undoes the settling done as the
    seeds came, and _settle takes the steady seeds afresh: each once in `touched` (nothing
    is hashed again, so no climb would make them unique), the fingerprint a fresh look's."""
    program, f = _mlp()
    block = program.block
    relu, twin, users = _relu_readers_moved_to_a_twin(program, f)
    block.erase_op(relu)
    param = next(iter(block.ops))   # moved to just before its reader: steady, and it settles
    reader = next(iter(param.results[0].uses)).operation
    block.detach_op(param)
    block.insert_op_before(param, reader)
    value = f.update(program, [*users, relu, param], set(map(id, [*users, param])), 2)
    assert value == fresh(program) and f.op_count == program.op_count() and f.fallbacks == 0
    assert f.touched == [*users, param]
    assert _ranks_fit(f, program)


def _read_after_erasure(program, f):
    """A relu's twin, hashed, then its readers pointed at the twin and the twin taken out of
    the block while they still read it (a broken program): the readers come before the twin
    among the seeds, so when each is taken the twin's entry is still kept, hashing like the
    relu they read before."""
    relu, twin, users = _relu_readers_moved_to_a_twin(program, f)
    program.block.detach_op(twin)
    return users, twin


def _relu_readers_moved_to_a_twin(program, f):
    """A twin of the program's relu inserted after it and hashed, then the relu's readers
    pointed at the twin: (relu, twin, the readers)."""
    block = program.block
    relu = next(op for op in block.ops if op.name == "pd_op.relu")
    twin = relu.clone()
    block.insert_op_after(twin, relu)
    f.update(program, [twin])
    users = [use.operation for use in relu.results[0].uses]
    relu.results[0].replace_all_uses_with(twin.results[0])
    return relu, twin, users


def test_readers_of_an_op_taken_out_are_hashed_again_though_settled_as_they_came():
    """The settling as the seeds come is undone when an erased op is still read: its
    readers, steady seeds here, are then hashed with the twin as a free input, as a fresh
    look hashes them."""
    program, f = _mlp()
    users, twin = _read_after_erasure(program, f)
    value = f.update(program, [*users, twin], set(map(id, users)), 1)
    assert value == fresh(program) and f.fallbacks == 0
    assert set(users) <= set(f.touched) and len(f.touched) == len(set(map(id, f.touched)))


def test_the_undo_is_what_hashes_those_readers_again():
    """The mutation check: without the undo the readers keep the hashes they had when the
    twin was in the block, and the fingerprint is not a fresh look's."""
    program, f = _mlp()
    users, twin = _read_after_erasure(program, f)
    with mock.patch.object(Fingerprinter, "_unsettle", lambda *args: None):
        value = f.update(program, [*users, twin], set(map(id, users)), 1)
    assert value != fresh(program)


def test_a_cycle_ends_in_a_fresh_look():
    """Only a broken program has a cycle (a relu reading its reader's result): the climb
    would hash the two ops again and again; past its budget (counted where a reader is
    queued below the rank taken last, which a cycle does at each turn) it hashes the
    program from scratch."""
    program, f = _mlp()
    block = program.block
    relu = next(op for op in block.ops if op.name == "pd_op.relu")
    reader = next(iter(relu.results[0].uses)).operation
    relu.operands = [reader.results[0]]
    assert f.update(program, [relu]) == fresh(program)
    assert f.fallbacks == 1
