"""An op's JSON path counts the ops before it through xDSL's links (locations._place), not
with the block's iterator: the same path as the one-walk table (`json_paths`) for every op
of the corpus programs (nested regions included), and a miscount would show."""

from __future__ import annotations

import pytest

import pirc
from pirc.ir import locations
from pirc.ir.locations import json_path_of, json_paths

from corpus_files import FIXTURES, all_jsons

PROGRAMS = sorted(all_jsons()) + sorted(p for p in (FIXTURES / "control_flow").rglob("*.json")
                                           if not p.name.startswith("gen_log"))[:6]


@pytest.mark.parametrize("path", PROGRAMS[::4] + PROGRAMS[-6:], ids=lambda p: p.name)
def test_each_ops_path_is_the_walks(path):
    program = pirc.load(str(path))
    table = json_paths(program)
    ops = [op for op in program.walk() if op is not program.module]
    assert ops
    for op in ops:
        assert locations._place(op) == locations._index_of(op, op.parent.ops)
        assert json_path_of(op) == table[op]


def test_a_miscounted_place_would_show(monkeypatch):
    program = pirc.load(str(PROGRAMS[0]))
    table = json_paths(program)
    place = locations._place
    monkeypatch.setattr(locations, "_place", lambda op: place(op) + 1)
    assert any(json_path_of(op) != table[op] for op in program.block.ops)


@pytest.mark.parametrize("path", PROGRAMS[::8] + PROGRAMS[-3:], ids=lambda p: p.name)
def test_the_places_found_in_one_walk_are_each_ops_own(path):
    """op_locations (one walk of the top-level block for all the ops it locates) against
    op_location of each op, over every op (nested ones too), in a shuffled order."""
    import random

    program = pirc.load(str(path))
    ops = [op for op in program.walk() if op is not program.module]
    random.Random(7).shuffle(ops)
    assert locations.op_locations(program, ops) == [locations.op_location(program, op) for op in ops]
    assert locations.op_locations(program, ops[:3]) == [locations.op_location(program, op) for op in ops[:3]]


def test_a_text_programs_ops_keep_their_line_and_column():
    from pirc.text.parser import parse_text

    text = """{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[2],stop_gradient:[true]} : () -> tensor<2xf32>
    (%1) = "pd_op.relu" (%0) {stop_gradient:[true]} : (tensor<2xf32>) -> tensor<2xf32>
    (%2) = "pd_op.fetch" (%1) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<2xf32>) -> tensor<2xf32>
}
"""
    program = parse_text(text, "t.pir", 4)
    ops = list(program.block.ops)
    places = locations.op_locations(program, ops[::-1])
    assert places == [locations.op_location(program, op) for op in ops[::-1]]
    assert all(":" in place and "ops[" not in place for place in places)
