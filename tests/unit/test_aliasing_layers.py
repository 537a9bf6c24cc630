"""The alias model works out its answers on first need (pirc.ir.aliasing.AliasAnalysis: the
walk keeps a record, positions and buffers follow from it when a query asks), and answers
every query as if everything had been worked out when it was built.

Checked before and after each pass of the default pipeline, on every corpus and dev-zoo
program (with their parameters too, so the weight passes run) and on the programs with
in-place writes, views, parameters written back and loops: an analysis left untouched
until the pass has edited the program answers every query kind (knows, knows_op, order,
loops_of, buffer_of, names, writers, is_written, aliased, written_after, written_before,
written_between) exactly as one whose every layer was made when both were built; and two
fresh analyses asked in opposite orders agree.  The same on random programs with in-place
ops, views and parameters written in place (pirc.testing.strategies)."""

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

import pirc
from pirc.ir.aliasing import AliasAnalysis
from pirc.passes import run_pipeline
from pirc.passes.infra.manager import Instrument
from pirc.testing.corpus_reports import corpus_programs
from pirc.testing.strategies import aliasing_programs

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
# programs whose buffers are written in place, viewed, written back to a parameter or
# carried through a loop (the fuzzer's miscompiles, the alias model's own fixtures)
WRITTEN = sorted(FIXTURES.glob("fuzz_passes/miscompile-*.pir.txt")) + \
    sorted(FIXTURES.glob("aliasing/*.pir.txt")) + \
    [FIXTURES / "corpus" / "3.3.1" / "control_flow.3.3.1.pir.txt"]
CASES = [(key, path, params) for key, path, params in corpus_programs()] + \
    [(str(path.relative_to(FIXTURES)), path, None) for path in WRITTEN]


def _load(path: Path, params_path: Path | None):
    program = pirc.load(str(path), from_version=4) if path.name.endswith(".txt") else pirc.load(str(path))
    params = pirc.read_params(str(params_path), program) if params_path is not None else None
    return program, params


class _Snapshot:
    """The program's values and ops when it was taken, each value with the ops that
    defined and read it then (where order queries are asked), and two analyses: one made
    whole at once (every layer asked for), one left untouched."""

    def __init__(self, program):
        self.ops = list(program.walk())
        self.values = []
        for op in self.ops:
            for region in op.regions:
                for block in region.blocks:
                    self.values += [(a, [block.first_op] if block.first_op else []) for a in block.args]
            self.values += [(r, [op]) for r in op.results]
        for value, at in self.values:
            at += [use.operation for use in value.uses]
        self.whole = AliasAnalysis(program)
        first = self.values[0][0] if self.values else None
        if first is not None:  # each query that makes a layer, once
            self.whole.knows(first), self.whole.buffer_of(first), self.whole.names(first)
            self.whole.writers(first)
        self.lazy = AliasAnalysis(program)


def _ids(items) -> tuple:
    return tuple(map(id, items))


def _answers(aliases, snapshot: _Snapshot, buffers_first: bool = False) -> list:
    """Every query kind, on every value and op of `snapshot` (order queries around each
    value's definition, its readers and its writers)."""
    out = []
    values = snapshot.values
    if buffers_first:
        out.append([aliases.writers(v) and _ids(aliases.names(v)) for v, _ in values if aliases.knows(v)])
    for op in snapshot.ops:
        known = aliases.knows_op(op)
        out.append((known, aliases.order(op) if known else None, _ids(aliases.loops_of(op))))
    for value, at in values:
        if not aliases.knows(value):
            out.append(None)
            continue
        writers = aliases.writers(value)
        row = [aliases.buffer_of(value), _ids(aliases.names(value)), _ids(writers),
               aliases.is_written(value), aliases.aliased(value)]
        at = [op for op in at + list(writers) if aliases.knows_op(op)]
        for op in at:
            row += [aliases.written_after(value, op), aliases.written_before(value, op)]
        for first in at[:1]:
            row += [aliases.written_between(value, first, last) for last in at[1:]]
        out.append(tuple(row))
    return out


class _Compare(Instrument):
    def __init__(self):
        self.snapshot = None
        self.passes = 0

    def before(self, p, index, program):
        self.snapshot = _Snapshot(program)

    def after(self, p, index, program, record):
        # the pass has edited the program: both analyses answer for it as it was
        snapshot = self.snapshot
        assert _answers(snapshot.lazy, snapshot) == _answers(snapshot.whole, snapshot), p.name
        now = _Snapshot(program)
        assert _answers(now.lazy, now, buffers_first=True)[1:] == _answers(now.whole, now), p.name
        self.passes += 1


@pytest.mark.parametrize("key,path,params_path", CASES, ids=[c[0] for c in CASES])
def test_answers_do_not_depend_on_when_they_are_worked_out(key, path, params_path):
    program, params = _load(path, None)
    compare = _Compare()
    run_pipeline(program, "default", instruments=[compare])
    assert compare.passes >= 4
    if params_path is not None:
        program, params = _load(path, params_path)
        compare = _Compare()
        run_pipeline(program, "default", params=params, instruments=[compare])
        assert compare.passes == 6


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(aliasing_programs(max_ops=10))
def test_answers_on_generated_programs_do_not_depend_on_when_they_are_worked_out(g):
    compare = _Compare()
    run_pipeline(g.parse(), "default", params=g.fresh_params(), instruments=[compare])
    assert compare.passes >= 4


def _parse(body: str):
    return pirc.parse("{\n" + body + "\n}", from_version=4)


DATA = '(%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[3],stop_gradient:[true]} : () -> tensor<3xf32>'
RELU_ = '(%1) = "pd_op.relu_" (%0) {stop_gradient:[true]} : (tensor<3xf32>) -> tensor<3xf32>'
EXP = '(%2) = "pd_op.exp" (%0) {stop_gradient:[true]} : (tensor<3xf32>) -> tensor<3xf32>'


def test_an_analysis_answers_for_the_program_as_it_was_built():
    program = _parse("\n".join((DATA, RELU_, EXP)))
    data, relu_, exp = program.block.ops
    x, x2, y = data.results[0], relu_.results[0], exp.results[0]
    aliases = AliasAnalysis(program)  # nothing asked yet
    # an edit after the build: relu_ now writes exp's result, and data's result is unused
    relu_.operands = [y]
    relu_.detach()
    program.block.add_op(relu_)
    assert aliases.names(x) == (x, x2) and aliases.writers(x) == (relu_,)
    assert aliases.writers(y) == () and aliases.order(relu_) == 1
    assert aliases.written_between(x, relu_, exp) is False
    assert aliases.written_after(x, data)


def test_a_value_read_before_it_is_defined_names_no_buffer():
    # the walk meets relu_ before the op defining its operand (not a valid program, but
    # the analysis is asked mid-pass too): that operand is no storage for it
    program = _parse("\n".join((DATA, RELU_, EXP)))
    data, relu_, exp = program.block.ops
    data.detach()
    program.block.insert_op_after(data, relu_)
    x, x2 = data.results[0], relu_.results[0]
    aliases = AliasAnalysis(program)
    assert aliases.names(x) == (x,) and aliases.names(x2) == (x2,)
    assert aliases.writers(x) == () and not aliases.is_written(x2)
    assert aliases.order(relu_) == 0 and aliases.order(data) == 1
