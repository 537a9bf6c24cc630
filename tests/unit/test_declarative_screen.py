"""The screen of declarative rules (pirc.passes.infra.declarative `_screen`): a rule whose
forms match the root alone, with constraints on the root (`Constraint.of_root`), has its
candidates tested by the driver before any Match; a candidate failing the test is one the
rule leaves alone (no rewrite, no near miss).  canonicalize with and without the screens
gives the same program and the same report (rewrites, skips, near misses) on every corpus
program, the benchmark's generated one, and transposes and reshapes built to fail each way
(hypothesis: any perm, valid or not, any shapes); a wrong screen is caught.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings, strategies as st

from pirc.formats import format_program
from pirc.passes import run_pipeline
from pirc.passes.canonicalize import Canonicalize
from pirc.passes.infra import declarative, greedy
from pirc.passes.infra.declarative import _pending
from pirc.passes.infra.pass_base import PassContext
from pirc.text.parser import parse_text

from pass_programs import PROGRAMS, load_program



def _tensor(shape) -> str:
    return "tensor<" + "".join(f"{d}x" for d in shape) + "f32>"


def _program(perm, shape, reshaped) -> str:
    """A transpose by `perm` of a relu of data of `shape`, then a reshape to `reshaped`."""
    t = _tensor(shape)
    tshape = [shape[p % len(shape)] for p in perm] if perm and len(perm) == len(shape) else shape
    tt, rt = _tensor(tshape), _tensor(reshaped)
    dims = ",".join(str(d) for d in shape)
    perm_text = ",".join(str(p) for p in perm)
    lines = [
        f'(%0) = "pd_op.data" () {{dtype:float32,name:"x",place:Place(undefined:0),shape:[{dims}],'
        f'stop_gradient:[true]}} : () -> {t}',
        f'(%1) = "pd_op.relu" (%0) {{stop_gradient:[true]}} : ({t}) -> {t}',
        f'(%2) = "pd_op.transpose" (%1) {{perm:[{perm_text}],stop_gradient:[true]}} : ({t}) -> {tt}',
        f'(%3) = "pd_op.full_int_array" () {{dtype:int64,place:Place(cpu),stop_gradient:[true],'
        f'value:[{",".join(str(d) for d in reshaped)}]}} : () -> tensor<{len(reshaped)}xi64>',
        f'(%4) = "pd_op.reshape" (%2, %3) {{stop_gradient:[true]}} : ({tt}, '
        f'tensor<{len(reshaped)}xi64>) -> {rt}',
        f'(%6) = "pd_op.fetch" (%4) {{col:0,name:"out",persistable:[true],stop_gradient:[true]}} : '
        f'({rt}) -> {rt}',
    ]
    return "{\n    " + "\n    ".join(lines) + "\n}\n"


def _canonicalized(program) -> tuple[str, str]:
    record = run_pipeline(program, "canonicalize").passes[0].as_json()
    record.pop("seconds", None)
    return format_program(program, "pir"), json.dumps(record, sort_keys=True, default=str)


def _both(make, monkeypatch):
    """canonicalize's output and report with the screens, then without."""
    monkeypatch.setattr(Canonicalize, "_patterns", None)
    fast = _canonicalized(make())
    with monkeypatch.context() as m:
        m.setattr(declarative, "_screen", lambda rule, forms: None)
        m.setattr(Canonicalize, "_patterns", None)   # compiled again, without them
        general = _canonicalized(make())
    monkeypatch.setattr(Canonicalize, "_patterns", None)
    return fast, general


def test_the_screens_the_rules_get():
    screened = {p.name for p in Canonicalize.patterns() if p.screen is not None}
    # inference-dropout: no constraint on the root alone; identity-scale: a constant operand
    assert screened == {"identity-transpose", "same-shape-reshape"}


@pytest.mark.parametrize("key", sorted(PROGRAMS))
def test_an_op_failing_a_screen_is_one_the_pattern_leaves_alone(key):
    program = load_program(key)
    pc = PassContext(program, pass_obj=Canonicalize())
    patterns = [p for p in Canonicalize.patterns() if p.screen is not None]
    ops, failed = [], 0
    greedy._collect(program.block, {p.root for p in patterns}, ops)
    for op in ops:
        for p in patterns:
            if p.root == op.name and not p.screen(op):
                failed += 1
                assert p.match_and_rewrite(op, pc) is None, (p.name, op.name)
    assert (pc.matches, pc.rewrites, pc.skips, _pending(pc)) == (0, 0, [], {})
    if key == "generated-3000":
        assert failed > 100   # the comparison is not empty


@pytest.mark.parametrize("key", sorted(PROGRAMS))
def test_canonicalize_is_the_same_with_and_without_the_screens(key, monkeypatch):
    fast, general = _both(lambda: load_program(key), monkeypatch)
    assert fast == general


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=1, max_size=4).flatmap(
    lambda shape: st.tuples(
        st.just(shape),
        st.one_of(st.permutations(range(len(shape))),
                  st.lists(st.integers(-5, 5), min_size=0, max_size=5)),
        st.one_of(st.permutations(shape), st.lists(st.integers(-1, 4), min_size=1, max_size=4)))))
def test_transposes_and_reshapes_of_any_perm_and_shape(case):
    shape, perm, reshaped = case
    text = _program(list(perm), shape, list(reshaped))
    with pytest.MonkeyPatch.context() as monkeypatch:
        fast, general = _both(lambda: parse_text(text, "t.pir", 4), monkeypatch)
    assert fast == general


def test_the_identities_are_forwarded_and_a_wrong_screen_is_caught(monkeypatch):
    """An identity transpose and a same-shape reshape are forwarded with the screens; a
    screen that refuses them (a wrong fast path) changes the output, which the comparisons
    above would report."""
    text = _program([0, 1], [2, 3], [2, 3])
    record = run_pipeline(parse_text(text, "t.pir", 4), "canonicalize").passes[0]
    assert record.rule_rewrites == {"identity-transpose": 1, "same-shape-reshape": 1}
    original = declarative._screen
    monkeypatch.setattr(Canonicalize, "_patterns", None)
    monkeypatch.setattr(declarative, "_screen",
                        lambda rule, forms: None if original(rule, forms) is None else (lambda op: False))
    wrong = _canonicalized(parse_text(text, "t.pir", 4))
    monkeypatch.setattr(declarative, "_screen", original)
    monkeypatch.setattr(Canonicalize, "_patterns", None)
    assert _canonicalized(parse_text(text, "t.pir", 4)) != wrong
