"""The IR watch's fast paths (pirc.passes.infra.ir_watch: an operand edit, or an op inserted
into or removed from the top-level block, inside a rewrite, recorded without `_edit`'s
calls) record what its general path records.  The fast paths run under
`--verify-each=incremental`; under "full" every edit takes the general path: after every pass of `default` on every corpus program and the benchmark's generated
one, the two runs' watches must hold the same edits, top-level ops, touched ops, released
values, readers and op counts, in the same order."""

from __future__ import annotations

from pathlib import Path

import pytest

from pirc.passes import run_pipeline
from pirc.passes.infra import manager
from pirc.passes.infra.ir_watch import IRWatch
from pirc.text.parser import parse_text

from watch_record import RecordedWatch
from pass_programs import PROGRAMS, load_program


class _Recorded(RecordedWatch):
    """What the watch recorded, each pass."""

    FIELDS = ("edits", "tops", "touched", "released", "readers", "counts", "unused")


# Every corpus program by its last folders and stem, and the benchmark's generated one (None).


def _watched(key: str, level: str) -> list:
    """What the watch of each pass of upgrade (for an older program) and default kept."""
    _Recorded.seen = []
    program = load_program(key, verify_each=level)
    run_pipeline(program, "default", verify_each=level)
    return _Recorded.seen


@pytest.mark.parametrize("key", sorted(PROGRAMS))
def test_the_fast_paths_record_what_the_general_one_does(key, monkeypatch):
    monkeypatch.setattr(manager, "IRWatch", _Recorded)
    fast = _watched(key, "incremental")
    general = _watched(key, "full")
    assert len(fast) == len(general)
    for i, (a, b) in enumerate(zip(fast, general)):
        for what in a:
            assert a[what] == b[what], f"pass #{i + 1}: {what}"


def test_the_generated_program_takes_the_fast_paths(monkeypatch):
    """The comparison above is not empty: the benchmark's program has thousands of edits
    inside rewrites, operand edits and removals from the top-level block among them."""
    monkeypatch.setattr(manager, "IRWatch", _Recorded)
    seen = _watched("generated-3000", "incremental")
    assert sum(s["edits"][0] for s in seen) > 1000
    assert sum(len(s["released"]) for s in seen) > 100


def _edited(program, seed: int, watch: IRWatch | None) -> tuple:
    """`program` after a fixed random run of operand sets (in a slot and whole), removals and
    inserts in its top-level block, inside a rewrite of `watch` (None: unwatched); each op and
    value named by its position, each value's uses in use-list order."""
    import random

    rng = random.Random(seed)
    block = program.block

    class Rewrite:
        matched, ops, fingerprint = (), (), "-"

    if watch is not None:
        watch.__enter__()
        watch.opened(Rewrite())
    try:
        for _ in range(60):
            ops = list(block.ops)
            op = rng.choice(ops)
            values = [r for o in ops for r in o.results]
            kind = rng.randrange(3)
            if kind == 0 and op.operands:
                op.operands[rng.randrange(len(op.operands))] = rng.choice(values)
            elif kind == 1 and op.operands:
                op.operands = [rng.choice(values) for _ in op.operands]
            else:   # moved before another op, or to the end (the last op too)
                anchor = rng.choice(ops)
                if anchor is op:
                    block.add_op(block.detach_op(op))
                else:
                    block.insert_op_before(block.detach_op(op), anchor)
    finally:
        if watch is not None:
            watch.__exit__(None, None, None)
    ops = list(block.ops)
    at = {id(o): i for i, o in enumerate(ops)}
    return ([o.name for o in ops],
            [[(at[id(u.operation)], u.index) for u in r.uses] for o in ops for r in o.results],
            [[at.get(id(getattr(v, "op", None))) for v in o.operands] for o in ops])


@pytest.mark.parametrize("seed", range(8))
def test_the_wrappers_edit_the_ir_as_xdsl_does(seed):
    """The watch's wrappers restate xDSL's IRWithUses.add_use and remove_use and
    Block.detach_op (one call per edit, not two): the same edits, watched or not, leave the
    same block and the same use lists, in the same order."""
    text = (Path(__file__).resolve().parents[1] / "lit" / "passes" / "Inputs"
            / "small.pir").read_text()
    watched = parse_text(text, "p.pir", 4)
    assert (_edited(watched, seed, IRWatch(watched))
            == _edited(parse_text(text, "p.pir", 4), seed, None))
