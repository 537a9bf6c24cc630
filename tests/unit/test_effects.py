"""Purity and effects from data (dialects/effects.yaml, pirc.ir.effects): every spec gets an
effect, the kinds of ops that must never be removed or merged are not pure, and xDSL's own
dce / cse act on pirc programs through the traits."""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.context import Context
from xdsl.traits import Pure
from xdsl.transforms.common_subexpression_elimination import CommonSubexpressionElimination
from xdsl.transforms.dead_code_elimination import DeadCodeElimination

from pirc.ir.effects import EFFECTS, effect_of
from pirc.ir.registry import op_class
from pirc.ir.specs import get_spec
from pirc.text.paddle_printer import print_paddle
from pirc.text.parser import parse_text


def all_specs():
    import yaml

    from pirc.ir.effects import effects_file

    folder = effects_file().parent
    for dialect in ("builtin", "cf", "pd_op"):
        ops = yaml.safe_load((folder / f"{dialect}.yaml").read_text())["ops"]
        for short in ops:
            spec = get_spec(f"{dialect}.{short}", 4)
            if spec is not None:
                yield spec


def test_every_spec_has_a_known_effect():
    kinds = {effect_of(spec).kind for spec in all_specs()}
    assert kinds <= set(EFFECTS) and "pure" in kinds and "write" in kinds


@pytest.mark.parametrize("name, kind", [
    ("pd_op.relu", "pure"), ("pd_op.matmul", "pure"), ("builtin.combine", "pure"),
    ("pd_op.data", "write"), ("pd_op.fetch", "write"), ("builtin.parameter", "write"),
    ("builtin.shadow_output", "write"), ("pd_op.relu_", "write"), ("pd_op.print", "write"),
    ("pd_op.uniform", "write"), ("pd_op.dropout", "write"), ("pd_op.gaussian", "write"),
    ("pd_op.all_reduce", "write"), ("cf.yield", "write"), ("pd_op.if", "recursive"),
    ("pd_op.while", "recursive"), ("pd_op.array_read", "read"), ("pd_op.memcpy_h2d", "read"),
])
def test_effect_of(name, kind):
    assert effect_of(get_spec(name, 4)).kind == kind


def test_traits_follow_the_effect():
    assert op_class("pd_op.relu", 4).has_trait(Pure)
    assert not op_class("pd_op.uniform", 4).has_trait(Pure)


# The program of tests/lit/passes: a duplicate tanh, an unused relu.
PROGRAM = (Path(__file__).resolve().parents[1] / "lit" / "passes" / "Inputs" / "small.pir").read_text()


def test_xdsl_dce_and_cse_work_on_pirc_programs():
    program = parse_text(PROGRAM, "p.pir", 4)
    CommonSubexpressionElimination().apply(Context(), program.module)
    DeadCodeElimination().apply(Context(), program.module)
    names = [op.name for op in program.block.ops]
    assert names == ["pd_op.data", "pd_op.tanh", "pd_op.add", "pd_op.fetch"]
    assert '(%2) = "pd_op.add" (%1, %1)' in print_paddle(program)


def test_dce_asks_what_xdsl_asks_of_every_corpus_op():
    """pirc's dce restates xDSL's `would_be_trivially_dead` (to spare -p default the import
    of xDSL's rewriter); the two agree on every op of every corpus program, nested ones too."""
    from corpus_files import all_jsons
    from xdsl.transforms.dead_code_elimination import would_be_trivially_dead as xdsl_answer

    from pirc.paddle_json.reader import read_program
    from pirc.passes.dce import would_be_trivially_dead

    answers = set()
    for path in all_jsons():
        program = read_program(path.read_text(), str(path))
        for op in program.module.walk():
            assert would_be_trivially_dead(op) == xdsl_answer(op), (path.name, op.name)
            answers.add(xdsl_answer(op))
    assert answers == {True, False}
