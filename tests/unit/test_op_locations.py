"""op_locations (pirc.ir.locations): the places of many ops from one walk of each block, held
to op_location per op on every corpus program and the benchmark's generated program (as
JSON, where a location is a JSON path, and as text, where it is LINE:COL); and the near
misses a declarative pass lists (which take their locations so) against the per-op path."""

from __future__ import annotations

import random

import pytest

import pirc
from pirc.ir.locations import json_path_of, op_location, op_locations, op_places
from pirc.passes import run_pipeline
from pirc.passes.infra import declarative

from pass_programs import PROGRAMS, load_program


def _ops(program) -> list:
    return [op for op in program.module.walk() if op is not program.module]


def _as_json(program, tmp_path):
    """The program written as Paddle JSON and read back: its locations are JSON paths."""
    path = tmp_path / "program.json"
    pirc.save(program, path, form="json")
    return pirc.load(str(path))


@pytest.mark.parametrize("key", sorted(PROGRAMS))
def test_op_locations_are_op_location_per_op(key, tmp_path):
    program = load_program(key)
    for p in (program, _as_json(program, tmp_path)):
        ops = _ops(p)
        # every op, in print order, then shuffled with repeats: the walk finds each
        # wherever it is and whatever order it is asked in
        asked = ops + random.Random(0).choices(ops, k=min(len(ops), 50))
        random.Random(1).shuffle(asked)
        assert op_locations(p, asked) == [op_location(p, op) for op in asked]


def test_places_are_indices_in_the_block_nested_ops_too(tmp_path):
    program = _as_json(load_program("corpus/3.3.1/control_flow.3.3.1"), tmp_path)
    nested = [op for op in _ops(program) if op.parent_block() is not program.block]
    assert nested, "the control-flow program holds ops in nested blocks"
    places = op_places(nested)
    for op in nested:
        assert places[id(op)] == list(op.parent_block().ops).index(op)
        assert json_path_of(op, places) == json_path_of(op)
    # a path through a nested op names its owner's place in the top block too
    assert any(".regions[" in op_locations(program, [op])[0] for op in nested)


def test_an_op_asked_for_last_in_a_long_block_is_found(tmp_path):
    program = _as_json(load_program("generated-3000"), tmp_path)
    ops = list(program.block.ops)
    assert op_locations(program, [ops[-1], ops[0]]) == [
        f"program.regions[0].blocks[0].ops[{len(ops) - 1}]", "program.regions[0].blocks[0].ops[0]"]


def _near_misses(program) -> dict:
    result = run_pipeline(program, "canonicalize,const-fold,cse", verify_each=True)
    return {r.name: {rule: n.as_json() for rule, n in r.near_misses.items()} for r in result.passes}


def test_near_misses_are_listed_as_with_one_location_per_op(tmp_path, monkeypatch):
    program = _as_json(load_program("generated-3000"), tmp_path)
    fast = _near_misses(program)
    listed = [m for rules in fast.values() for m in rules.values()]
    assert any(m["count"] > len(m["first"]) == declarative.NEAR_MISS_KEEP for m in listed), \
        "a rule with more near misses than it lists"
    monkeypatch.setattr(declarative, "op_locations",
                        lambda program, ops: [op_location(program, op) for op in ops])
    assert _near_misses(_as_json(load_program("generated-3000"), tmp_path)) == fast
