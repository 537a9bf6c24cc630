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
