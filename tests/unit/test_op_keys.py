"""cse's keys and walk (pirc.passes.infra.op_keys) against their definition.

The definition, written here the plain way: two ops are one computation when they are the
same pure class, read the same values and carry equal attributes, properties and result
types (dicts compared as dicts: their order does not count); the walk keeps, per key, the
last op that may stand for it, in its block and the enclosing ones.  The pass groups ops by
class and operands before it works a key out, reads xDSL's links, and moves uses with
xDSL's primitives called directly: on hypothesis-made ops, the corpus (control flow and
tensor-array regions included), the benchmark's generated program and hypothesis aliasing
programs, it finds the same pairs in the same order, and the program it leaves is the one
xDSL's `replace_all_uses_with` / `erase_op` leave, down to the order of every use list.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from xdsl.dialects.builtin import ArrayAttr, FloatAttr, IntegerAttr, StringAttr, f32, i64

import pirc
from pirc.ir.aliasing import AliasAnalysis
from pirc.ir.builder import append_op
from pirc.ir.effects import is_pure
from pirc.ir.registry import op_class
from pirc.passes import run_pipeline
from pirc.passes.infra import op_keys
from pirc.passes.infra.invariants import check
from pirc.passes.infra.op_index import OpIndex
from pirc.passes.infra.op_keys import (_NOTHING_WRITTEN, OpKeys, alias_model,
                                       common_subexpressions, common_subexpressions_around,
                                       may_have_common_subexpressions)
from pirc.testing.strategies import aliasing_programs
from pirc.text.parser import parse_text

from corpus_files import FIXTURES, all_jsons
from test_aliasing import BN
from tools.bench_frontend import generate

FAST = settings(max_examples=60, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# ---------------------------------------------------------------- the definition


def definition_key(op):
    """What `op` computes, by value, or None when it may not be merged."""
    if op.regions or not op.results or not is_pure(op):
        return None
    return (type(op), tuple(map(id, op.operands)), frozenset(op.attributes.items()),
            frozenset(op.properties.items()), tuple(r.type for r in op.results))


def definition_pairs(block, aliases, outer=None):
    """(op, earlier) as the definition finds them: one table of keys, copied into each
    nested block."""
    seen = dict(outer) if outer else {}
    for op in list(block.ops):
        key = definition_key(op)
        if key is not None and any(aliases.is_written(r) for r in op.results):
            key = None
        if key is not None:
            earlier = seen.get(key)
            if earlier is not None and not any(
                    aliases.written_between(v, earlier, op) for v in op.operands):
                yield op, earlier
                continue
            seen[key] = op
        for region in op.regions:
            for inner in region.blocks:
                yield from definition_pairs(inner, aliases, seen)


def definition_cse(program) -> int:
    """The merges of the definition's pairs, with xDSL's own primitives."""
    n = 0
    for op, earlier in definition_pairs(program.block, AliasAnalysis(program)):
        for new, old in zip(op.results, earlier.results):
            new.replace_all_uses_with(old)
        op.parent.erase_op(op, safe_erase=False)
        n += 1
    return n


# ---------------------------------------------------------------- keys of hypothesis-made ops

CLASSES = ["pd_op.tanh", "pd_op.exp", "pd_op.scale", "pd_op.uniform", "pd_op.relu_"]
VALUES = {  # attribute name -> values, each made afresh for every op (equal, not identical)
    "bias": [lambda: FloatAttr(0.0, f32), lambda: FloatAttr(1.0, f32)],
    "axis": [lambda: IntegerAttr(0, i64), lambda: IntegerAttr(1, i64)],
    "name": [lambda: StringAttr("a"), lambda: StringAttr("b")],
    "shape": [lambda: ArrayAttr([IntegerAttr(2, i64)]),
              lambda: ArrayAttr([IntegerAttr(2, i64), IntegerAttr(3, i64)])],
}
TYPES = ("tensor<2x3xf32>", "tensor<3x2xf32>")


def _values_and_types():
    """Three values to read, and two equal copies of each result type."""
    lines = ["{"] + [
        f'    (%{i}) = "pd_op.data" () {{dtype:float32,name:"x{i}",place:Place(undefined:0),'
        f'shape:[2,3],stop_gradient:[true]}} : () -> {TYPES[i % 2]}' for i in range(3)] + ["}"]
    first, second = parse_text("\n".join(lines), "v.pir", 4), parse_text("\n".join(lines), "v.pir", 4)
    values = [op.results[0] for op in first.block.ops]
    types = [[p.block.ops.first.results[0].type, list(p.block.ops)[1].results[0].type]
             for p in (first, second)]
    return first, values, list(zip(*types))


@st.composite
def op_drafts(draw):
    """(class, operand numbers, [(attribute name, value number)] in dict order, result type
    numbers, which copy of each type)."""
    names = draw(st.permutations(sorted(VALUES)))
    attrs = [(n, draw(st.integers(0, 1))) for n in names[:draw(st.integers(0, len(names)))]]
    return (draw(st.sampled_from(CLASSES)), draw(st.lists(st.integers(0, 2), max_size=2)),
            attrs, draw(st.lists(st.integers(0, 1), min_size=1, max_size=2)),
            draw(st.integers(0, 1)))


def _drafted(drafts) -> tuple:
    """(the program holding the values read, the drafted ops)."""
    keep, values, types = _values_and_types()
    return keep, [append_op(op_class(name, 4), [values[i] for i in operands],
                            [types[t][copy] for t in result_types],
                            {n: VALUES[n][v]() for n, v in attrs}, None)
                  for name, operands, attrs, result_types, copy in drafts]


@FAST
@given(st.lists(op_drafts(), min_size=2, max_size=12))
def test_keys_are_equal_exactly_when_the_definition_says_one_op_can_stand_for_another(drafts):
    keep, ops = _drafted(drafts)
    keys = OpKeys()
    for op in ops:
        assert (keys.key(op) is None) == (definition_key(op) is None)
        assert keys.mergeable(op) == (definition_key(op) is not None)
    for a in ops:
        for b in ops:
            if definition_key(a) is not None and definition_key(b) is not None:
                assert (keys.key(a) == keys.key(b)) == (definition_key(a) == definition_key(b))


@FAST
@given(st.lists(op_drafts(), min_size=2, max_size=12))
def test_details_looked_up_by_identity_are_the_details_worked_out(drafts):
    # each op twice: as drawn and with its attribute dict reversed (new dict, same objects);
    # the memo by attribute and type objects answers for the ops after the first
    keep, ops = _drafted(drafts)
    ops += [append_op(type(op), list(op.operands), [r.type for r in op.results],
                      dict(reversed(op.attributes.items())), None) for op in ops]
    keys = OpKeys()
    for op in ops + ops:
        assert keys.details(op) == (keys._values(op.attributes), (), keys._types(op.results))
    for a in ops:
        for b in ops:
            assert (keys.details(a) == keys.details(b)) == (
                (a.attributes, [r.type for r in a.results]) == (b.attributes, [r.type for r in b.results]))


def test_a_dicts_order_does_not_change_the_key():
    keep, values, types = _values_and_types()
    tanh = op_class("pd_op.scale", 4)
    one = append_op(tanh, [values[0]], [types[0][0]],
                    {"bias": FloatAttr(1.0, f32), "axis": IntegerAttr(0, i64)}, None)
    other = append_op(tanh, [values[0]], [types[0][1]],
                      {"axis": IntegerAttr(0, i64), "bias": FloatAttr(1.0, f32)}, None)
    apart = append_op(tanh, [values[0]], [types[0][1]],
                      {"axis": IntegerAttr(1, i64), "bias": FloatAttr(1.0, f32)}, None)
    keys = OpKeys()
    assert keys.key(one) == keys.key(other) != keys.key(apart)


# ---------------------------------------------------------------- the walk and the pass

ROOT = Path(__file__).resolve().parents[2]
REGIONS = ROOT / "tests" / "lit" / "passes" / "cse.pir"


def _many_uses() -> str:
    """Two tanh of x, each read several times (once twice by one add), the first before
    the second is: the merge appends to a use list that has uses already."""
    t, sg = "tensor<2x3xf32>", "{stop_gradient:[true]}"
    ops = ["tanh 0", "relu 1", "tanh 0", "add 3 3", "multiply 2 3", "subtract 3 1", "add 4 5",
           "add 7 6"]
    lines = ["{", f'    (%0) = "pd_op.data" () {{dtype:float32,name:"x",place:Place(undefined:0),'
                  f'shape:[2,3],stop_gradient:[true]}} : () -> {t}']
    for n, op in enumerate(ops, 1):
        name, *ins = op.split()
        lines.append(f'    (%{n}) = "pd_op.{name}" ({", ".join("%" + i for i in ins)}) {sg} : '
                     f'({", ".join([t] * len(ins))}) -> {t}')
    lines.append(f'    (%9) = "pd_op.fetch" (%8) {{col:0,name:"out",persistable:[true],'
                 f'stop_gradient:[true]}} : ({t}) -> {t}')
    return "\n".join(lines + ["}", ""])


def _programs():
    paths = all_jsons() + sorted((FIXTURES / "control_flow" / "3.3.1").glob("[!g]*.json")) \
        + sorted((FIXTURES / "array_regions" / "3.3.1").glob("[!g]*.json"))
    out = [pytest.param(lambda p=p: pirc.load(str(p)), id=f"{p.parent.parent.name}/{p.stem}")
           for p in paths]
    out.append(pytest.param(lambda: parse_text(generate(3000), "bench.pir", 4),
                            id="generated-3000"))
    out.append(pytest.param(lambda: parse_text(_many_uses(), "uses.pir", 4), id="many-uses"))
    for i, part in enumerate(REGIONS.read_text().split("// -----")):
        out.append(pytest.param(lambda part=part: parse_text(part, "cse.pir", 4), id=f"cse.pir-{i}"))
    return out


def _upgraded(load):
    program = load()
    if program.version != 4:
        run_pipeline(program, "upgrade", verify_each="full")
    return program


def _ops_text(program) -> str:
    """The program's text less its header (the manifest names the pipeline that ran)."""
    return "\n".join(line for line in pirc.to_text(program, "pir").splitlines()
                     if not line.startswith("pir."))


def _uses(program) -> list:
    """Every result's name hint and use list, in order: (user's position, operand index)."""
    ops = list(program.walk())
    where = {id(op): i for i, op in enumerate(ops)}
    return [(r.name_hint, [(where[id(u.operation)], u.index) for u in r.uses])
            for op in ops for r in op.results]


def _hinted(program):
    """Every other result named: a merge gives the kept value the hint it lacks."""
    for i, op in enumerate(program.walk()):
        for r in op.results:
            r.name_hint = f"v{i}" if i % 2 else None
    return program


class NothingWritten:
    """The alias model of a program without in-place writes."""

    def is_written(self, value):
        return False

    def written_between(self, value, first_op, last_op):
        return False


def _same_model(program) -> None:
    """cse's alias model leaves the analysis unbuilt exactly when it writes no value, asked
    with the op index (its answer, where it has one, the walk's) or without."""
    aliases = AliasAnalysis(program)
    written = any(aliases.is_written(v) for op in program.walk() for v in op.operands)
    assert (alias_model(program) is not _NOTHING_WRITTEN) == written
    index = OpIndex(program)
    assert (alias_model(program, index) is not _NOTHING_WRITTEN) == written
    _same_writes(program, index)


def _same_writes(program, index) -> None:
    """The op index's answer (op_keys._indexed_writes), where it gives one (a program of
    one block: the benchmark's, the corpus's flat ones), is the walk's (op_keys._writes)."""
    block, version = program.block, program.version
    indexed = op_keys._indexed_writes(block, version, {}, index)
    flat = all(op.parent is block for op in program.walk() if op is not program.module)
    assert (indexed is not None) == flat
    if indexed is not None:
        assert indexed == op_keys._writes(block, version, {})


def _same_pairs(program) -> None:
    _same_model(program)
    aliases = AliasAnalysis(program)
    got = list(common_subexpressions(program.block, OpKeys(), aliases))
    want = list(definition_pairs(program.block, aliases))
    assert [(id(a), id(b)) for a, b in got] == [(id(a), id(b)) for a, b in want]
    # the incremental form, asked about every op, sees every op the walk merges
    around = common_subexpressions_around(list(program.walk()), OpKeys(), program, aliases)
    assert {id(op) for op, _ in got} <= {id(op) for op, _ in around}
    _same_around(program, aliases)
    writes_aside = bool(list(definition_pairs(program.block, NothingWritten())))
    assert may_have_common_subexpressions(program.block, OpKeys()) == writes_aside
    assert writes_aside or not want


def _same_around(program, aliases) -> None:
    """The incremental form's look through a value's first few readers before grouping
    them (op_keys._FEW_READERS) finds what grouping every reader finds: asked of all ops,
    and of each op with operands alone (one without is matched by a walk, not its readers)."""
    def around(ops, few):
        saved, op_keys._FEW_READERS = op_keys._FEW_READERS, few
        try:
            return [(id(a), id(b)) for a, b in
                    common_subexpressions_around(ops, OpKeys(), program, aliases)]
        finally:
            op_keys._FEW_READERS = saved
    ops = list(program.walk())
    assert around(ops, op_keys._FEW_READERS) == around(ops, 0)
    for op in ops:
        if op.operands:
            assert around([op], op_keys._FEW_READERS) == around([op], 0), op.name


def _same_merges(load) -> int:
    program, reference = _hinted(_upgraded(load)), _hinted(_upgraded(load))
    report = run_pipeline(program, "cse", verify_each="full")
    merged = definition_cse(reference)
    assert report.passes[0].matches == report.passes[0].rewrites == merged
    assert _ops_text(program) == _ops_text(reference)
    assert _uses(program) == _uses(reference)
    return merged


@pytest.mark.parametrize("load", _programs())
def test_the_walk_and_the_pass_merge_what_the_definition_merges(load):
    _same_pairs(_upgraded(load))
    _same_merges(load)


@FAST
@given(aliasing_programs(max_ops=10))
def test_on_aliasing_programs_too(g):
    _same_pairs(g.parse())
    _same_merges(g.parse)


@pytest.mark.parametrize("is_test, built", [("true", False), ("false", True)])
def test_the_alias_model_is_built_when_an_op_changes_a_buffer(is_test, built):
    # an inference batch norm writes its statistics back unchanged: no write the walks see
    program = pirc.parse("{\n" + BN.replace("IS_TEST", is_test) + "\n}", from_version=4)
    assert isinstance(alias_model(program), AliasAnalysis) is built
    assert isinstance(alias_model(parse_text(_write_between(), "w.pir", 4)), AliasAnalysis)
    assert alias_model(parse_text(_many_uses(), "uses.pir", 4)) is _NOTHING_WRITTEN


def test_the_op_index_answers_for_the_ops_still_in_the_program():
    """The index's walk keeps the ops removed since: a writer among them writes nothing
    any more, and a writer's class among the program's is not yet a write (an inference
    batch norm's attributes say it keeps the values; a training one's say it does not)."""
    training = pirc.parse("{\n" + BN.replace("IS_TEST", "false") + "\n}", from_version=4)
    index = OpIndex(training)
    assert op_keys._indexed_writes(training.block, 4, {}, index) is True
    (bn,) = [op for op in training.walk() if op.name == "pd_op.batch_norm_"]
    for result in bn.results:
        assert result.first_use is None
    training.block.detach_op(bn)   # as a pass removes it (no watch: the index is not told)
    assert index.walked(training.block) is not None
    assert op_keys._indexed_writes(training.block, 4, {}, index) is False
    assert op_keys._writes(training.block, 4, {}) is False
    inference = pirc.parse("{\n" + BN.replace("IS_TEST", "true") + "\n}", from_version=4)
    assert op_keys._indexed_writes(inference.block, 4, {}, OpIndex(inference)) is False
    written = parse_text(_write_between(), "w.pir", 4)
    assert op_keys._indexed_writes(written.block, 4, {}, OpIndex(written)) is True


def test_what_an_op_in_a_region_stands_for_ends_with_its_block():
    # cse.pir's region case: the exp in each branch of the if and after it stand apart;
    # the tanh in the then-branch merges with the one before the if, as does the one after
    program = parse_text(REGIONS.read_text().split("// -----")[2], "cse.pir", 4)
    ops = list(program.walk())
    pairs = list(common_subexpressions(program.block, OpKeys(), AliasAnalysis(program)))
    names = [(ops.index(op), ops.index(earlier)) for op, earlier in pairs]
    exps = [i for i, op in enumerate(ops) if op.name == "pd_op.exp"]
    tanhs = [i for i, op in enumerate(ops) if op.name == "pd_op.tanh"]
    assert names == [(tanhs[1], tanhs[0]), (exps[1], exps[0]), (exps[3], exps[2]),
                     (tanhs[2], tanhs[0]), (exps[5], exps[4])]


def _write_between() -> str:
    """Two tanh of x's buffer with an in-place relu_ of it between them (one key, two
    computations)."""
    t, sg = "tensor<2x3xf32>", "{stop_gradient:[true]}"
    return "\n".join([
        "{", f'    (%0) = "pd_op.data" () {{dtype:float32,name:"x",place:Place(undefined:0),'
             f'shape:[2,3],stop_gradient:[true]}} : () -> {t}',
        f'    (%1) = "pd_op.tanh" (%0) {sg} : ({t}) -> {t}',
        f'    (%2) = "pd_op.relu_" (%0) {sg} : ({t}) -> {t}',
        f'    (%3) = "pd_op.tanh" (%0) {sg} : ({t}) -> {t}',
        f'    (%4) = "pd_op.add" (%1, %3) {sg} : ({t}, {t}) -> {t}',
        f'    (%5) = "pd_op.fetch" (%4) {{col:0,name:"out",persistable:[true],'
        f'stop_gradient:[true]}} : ({t}) -> {t}', "}", ""])


def test_the_whole_check_builds_the_alias_model_only_for_two_ops_of_one_key_and_a_write(
        monkeypatch):
    built = []
    original = AliasAnalysis.__init__

    def counted(self, *args, **kwargs):
        built.append(1)
        original(self, *args, **kwargs)

    monkeypatch.setattr(AliasAnalysis, "__init__", counted)
    program = parse_text(_many_uses(), "uses.pir", 4)
    assert check("no-common-subexpressions", program) == [
        "pd_op.tanh computes what an earlier pd_op.tanh computes"]
    assert built == []  # no op writes in place: nothing for the model to tell
    run_pipeline(program, "cse", verify_each=False)
    built.clear()
    assert check("no-common-subexpressions", program) == []
    assert built == []
    # the relu_ keeps the two tanh apart: the model is needed to tell
    assert check("no-common-subexpressions", parse_text(_write_between(), "w.pir", 4)) == []
    assert len(built) == 1
