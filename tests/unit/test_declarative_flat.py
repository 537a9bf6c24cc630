"""The flat-form binder of declarative rules (pirc.passes.infra.declarative `_bind_flat`):
a form whose operands are variables, `_` and leaf ops (an inference dropout's `full` p) is
bound without a Match frame per operand and without a raise; where it fails past a matched
producer (a near miss) the general match decides.  canonicalize with and without it gives
the same program and the same report (rewrites, skips, near misses and their reasons) on
every corpus program, the benchmark's generated one, and dropouts built to fail each way.
"""

from __future__ import annotations

import json

import pytest

import pirc
from pirc.passes import run_pipeline
from pirc.passes.canonicalize import Canonicalize
from pirc.passes.infra import declarative
from pirc.text.parser import parse_text
from pirc.formats import format_program

from corpus_files import all_jsons
from tools.bench_frontend import generate

DATA = ('(%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[2,3],'
        'stop_gradient:[true]} : () -> tensor<2x3xf32>')
RELU = '(%1) = "pd_op.relu" (%0) {stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>'
FULL = ('(%2) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],'
        'value:{p}} : () -> tensor<1xf32>')
DROPOUT = ('(%3, %4) = "pd_op.dropout" (%1, <<NULL VALUE>>, {p_value}) {is_test:true,mode:"{mode}",'
           'seed:0,fix_seed:false,stop_gradient:[true,true]} : (tensor<2x3xf32>, <<NULL TYPE>>, '
           'tensor<1xf32>) -> tensor<2x3xf32>, tensor<-1xu8>')
TANH = '(%5) = "pd_op.tanh" (%3) {stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>'
FETCH = ('(%6) = "pd_op.fetch" (%5) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : '
         '(tensor<2x3xf32>) -> tensor<2x3xf32>')


def _dropout(mode: str, p: float, p_value: str = "%2") -> str:
    lines = [DATA, RELU, FULL.replace("{p}", repr(p)),
             DROPOUT.replace("{mode}", mode).replace("{p_value}", p_value), TANH, FETCH]
    return "{\n    " + "\n    ".join(lines) + "\n}\n"


# downgrade_in_infer with p = 0.5 scales: the full was matched, the check fails (a near miss)
DROPOUTS = {
    "upscale": _dropout("upscale_in_train", 0.5),
    "downgrade-p0": _dropout("downgrade_in_infer", 0.0),
    "downgrade-p-half": _dropout("downgrade_in_infer", 0.5),
    # p is the relu's result: the form with the full fails its quick check, the form
    # without it binds and fails the check at the root alone (no near miss)
    "p-not-a-full": _dropout("downgrade_in_infer", 0.0, "%1").replace(
        "<<NULL TYPE>>, tensor<1xf32>", "<<NULL TYPE>>, tensor<2x3xf32>"),
}
PROGRAMS = {f"{p.parent.parent.name}/{p.parent.name}/{p.stem}": p for p in all_jsons()}


def _load(key: str):
    if key in DROPOUTS:
        return parse_text(DROPOUTS[key], "t.pir", 4)
    if key == "generated-3000":
        return parse_text(generate(3000), "bench.pir", 4)
    program = pirc.load(str(PROGRAMS[key]))
    if program.version != 4:
        run_pipeline(program, "upgrade")
    return program


def _canonicalized(key: str) -> tuple[str, str]:
    program = _load(key)
    record = run_pipeline(program, "canonicalize").passes[0].as_json()
    record.pop("seconds", None)
    return format_program(program, "pir"), json.dumps(record, sort_keys=True, default=str)


def _general_only(monkeypatch) -> None:
    monkeypatch.setattr(declarative, "_bind_flat", lambda form: None)
    monkeypatch.setattr(Canonicalize, "_patterns", None)   # compiled again, without it


@pytest.mark.parametrize("key", sorted(DROPOUTS) + sorted(PROGRAMS) + ["generated-3000"])
def test_canonicalize_is_the_same_with_and_without_the_flat_binder(key, monkeypatch):
    monkeypatch.setattr(Canonicalize, "_patterns", None)
    fast = _canonicalized(key)
    _general_only(monkeypatch)
    assert _canonicalized(key) == fast


def test_the_dropouts_fail_each_way():
    """The programs above take each exit of the binder: a forward, a near miss past the
    matched full, and a p no full makes (the form without the full)."""
    def run(key):
        program = _load(key)
        return run_pipeline(program, "canonicalize").passes[0]

    assert run("upscale").rule_rewrites == {"inference-dropout": 1}
    assert run("downgrade-p0").rule_rewrites == {"inference-dropout": 1}
    half = run("downgrade-p-half")
    assert half.rewrites == 0
    assert [m["failed"] for m in half.near_misses["inference-dropout"].first] == [
        "mode is upscale_in_train, or p is 0 (downgrade_in_infer scales by 1 - p)"]
    other = run("p-not-a-full")
    assert other.rewrites == 0 and other.near_misses == {}


def test_the_dropout_forms_are_flat():
    (pattern,) = [p for p in Canonicalize.patterns() if p.name == "inference-dropout"]
    assert [bare is not None for _, _, bare in pattern._plans] == [True, True]
    pairs = [p for p in Canonicalize.patterns() if p.name == "compose-transposes"]
    assert all(bare is None for p in pairs for _, _, bare in p._plans)   # a nested op with operands


def test_the_matchers_null_test_is_is_null_value():
    from pirc.ir.ops import NullValueOp, is_null_value

    seen = set()
    for key in sorted(DROPOUTS) + sorted(PROGRAMS):
        for op in _load(key).module.walk():
            for value in op.operands:
                null = NullValueOp in type(getattr(value, "op", None)).__mro__
                assert null == is_null_value(value), (key, op.name)
                seen.add(null)
    assert seen == {True, False}
