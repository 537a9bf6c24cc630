"""The declarative rewrite layer (pirc.passes.infra.declarative): matching, built-in checks,
near misses, version gates on the target, and what --pass-report / --explain show."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest

import declarative_passes  # noqa: F401 - registers the test-decl-* passes
import pirc
from pirc.cli.pass_report import print_explain, report_json
from pirc.passes.infra.declarative import Op, Rule, New, declared_rewrites

HEAD = '    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[2,3],stop_gradient:[true]} : () -> tensor<2x3xf32>\n'
T = "tensor<2x3xf32>"


def program(body: str, version: int = 4):
    return pirc.parse("{\n" + HEAD + body + "}\n", from_version=version)


def names(p) -> list[str]:
    return [op.name for op in p.module.body.block.ops]


def full(n: int, value) -> str:
    return (f'    (%{n}) = "pd_op.full" () {{dtype:float32,place:Place(cpu),shape:[1],'
            f'stop_gradient:[true],value:{value}}} : () -> tensor<1xf32>\n')


def fetch(n: int, v: int, col: int = 0, name: str = "out") -> str:
    return (f'    (%{n}) = "pd_op.fetch" (%{v}) {{col:{col},name:"{name}",persistable:[true],'
            f'stop_gradient:[true]}} : ({T}) -> {T}\n')


SCALE = f'    (%2) = "pd_op.scale" (%0, %1) {{bias:0,bias_after_scale:true,stop_gradient:[true]}} : ({T}, tensor<1xf32>) -> {T}\n'


def dropout(n: int, v: int, p: int, is_test: str = "true") -> str:
    return (f'    (%{n}, %{n + 1}) = "pd_op.dropout" (%{v}, <<NULL VALUE>>, %{p}) {{fix_seed:true,'
            f'is_test:{is_test},mode:"upscale_in_train",seed:0,stop_gradient:[true,true]}} : '
            f'({T}, <<NULL TYPE>>, tensor<1xf32>) -> {T}, tensor<2x3xu8>\n')


def relu(n: int, v: int) -> str:
    return f'    (%{n}) = "pd_op.relu" (%{v}) {{stop_gradient:[true]}} : ({T}) -> {T}\n'


def run(p, pipeline):
    before = pirc.run(pirc.parse(pirc.to_text(p), from_version=p.version), {"x": _x()})
    result = pirc.run_pipeline(p, pipeline)
    after = pirc.run(p, {"x": _x()})
    for k in before:
        np.testing.assert_array_equal(after[k], before[k])
    return result


def _x():
    return np.linspace(-2, 2, 6, dtype=np.float32).reshape(2, 3)


def test_optional_op_present_and_absent():
    with_dropout = program(full(1, 2.0) + SCALE + full(3, 0.1) + dropout(4, 2, 3) + relu(6, 4) + fetch(7, 6))
    run(with_dropout, "test-decl-scale-relu")
    # the dropout's p was not matched (an `_` operand): it stays for dce
    assert names(with_dropout)[1:] == ["pd_op.full", "pd_op.full", "pd_op.relu", "pd_op.scale", "pd_op.fetch"]
    without = program(full(1, 2.0) + SCALE + relu(3, 2) + fetch(4, 3))
    run(without, "test-decl-scale-relu")
    assert names(without)[1:] == ["pd_op.full", "pd_op.relu", "pd_op.scale", "pd_op.fetch"]


def test_attribute_and_constant_checks_are_near_misses():
    training = program(full(1, 2.0) + SCALE + full(3, 0.1) + dropout(4, 2, 3, "false") + relu(6, 4) + fetch(7, 6))
    result = pirc.run_pipeline(training, "test-decl-scale-relu")
    (record,) = result.passes
    assert record.rewrites == 0
    (miss,) = record.near_misses["scale-relu"].first
    assert miss["failed"] == "attribute is_test of pd_op.dropout is False, not True"
    assert miss["op"] == "pd_op.relu" and miss["location"] == "7:5"
    negative = program(full(1, -2.0) + SCALE + relu(3, 2) + fetch(4, 3))
    (record,) = pirc.run_pipeline(negative, "test-decl-scale-relu").passes
    assert record.near_misses["scale-relu"].first[0]["failed"] == \
        "factor > 0 and finite: constant operand 1 of pd_op.scale is -2.0"


def test_root_only_failures_are_not_near_misses():
    p = program(relu(1, 0) + fetch(2, 1))
    (record,) = pirc.run_pipeline(p, "test-decl-scale-relu").passes
    assert record.near_misses == {}


def test_constraint_failure_named():
    p = pirc.parse("{\n" + HEAD.replace("float32", "float64").replace("xf32", "xf64")
                   + full(1, 2.0) + SCALE.replace("2x3xf32", "2x3xf64")
                   + relu(3, 2).replace("2x3xf32", "2x3xf64")
                   + fetch(4, 3).replace("2x3xf32", "2x3xf64") + "}\n", from_version=4)
    (record,) = pirc.run_pipeline(p, "test-decl-scale-relu").passes
    assert record.rewrites == 0
    assert record.near_misses["scale-relu"].first[0]["failed"] == "x is float32"


def test_intermediate_used_elsewhere_is_refused():
    p = program(full(1, 2.0) + SCALE + relu(3, 2) + fetch(4, 3) + fetch(5, 2, 1, "s"))
    (record,) = pirc.run_pipeline(p, "test-decl-scale-relu").passes
    assert record.rewrites == 0
    assert record.near_misses["scale-relu"].first[0]["failed"].startswith("one use: the pd_op.scale result")


def test_replace_moves_other_uses_and_keeps_order():
    # the add's result is fetched BEFORE the relu: the new ops go before that fetch
    body = (f'    (%1) = "pd_op.add" (%0, %0) {{stop_gradient:[true]}} : ({T}, {T}) -> {T}\n'
            + fetch(2, 1, 0, "sum") + relu(3, 1) + fetch(4, 3, 1, "r"))
    p = program(body)
    run(p, "test-decl-add-relu")
    assert names(p)[1:] == ["pd_op.add", "pd_op.leaky_relu", "pd_op.fetch", "pd_op.fetch"]


def test_target_checked_against_the_program_version():
    body = (f'    (%1) = "pd_op.sigmoid" (%0) {{stop_gradient:[true]}} : ({T}) -> {T}\n'
            f'    (%2) = "pd_op.tanh" (%1) {{stop_gradient:[true]}} : ({T}) -> {T}\n' + fetch(3, 2))
    v3 = program(body, version=3)
    (record,) = pirc.run_pipeline(v3, "test-decl-rms-v1").passes
    assert record.rewrites == 1 and "pd_op.rms_norm" in names(v3)
    v4 = program(body, version=4)
    (record,) = pirc.run_pipeline(v4, "test-decl-rms-v1").passes
    assert record.rewrites == 0 and "pd_op.rms_norm" not in names(v4)
    (skip,) = record.skips
    assert skip.reason.startswith("version: target pd_op.rms_norm at PIR version 4 has operands (x, scale)")


def test_rewrites_declaration_is_derived():
    assert declarative_passes.ScaleRelu.rewrites["pd_op.full"].semantic == (1,)
    assert set(declarative_passes.ScaleRelu.rewrites) == {"pd_op.relu", "pd_op.dropout", "pd_op.scale", "pd_op.full"}
    assert declared_rewrites([declarative_passes.ADD_RELU])["pd_op.add"].semantic == (1,)


def test_rule_must_declare_every_source_op():
    with pytest.raises(ValueError, match="no semantic versions declared for pd_op.exp"):
        Rule("bad", source=Op("pd_op.relu", (Op("pd_op.exp", ("x",)),)),
             versions={"pd_op.relu": (1,)}, result=(New("pd_op.relu", {"x": "x"}),))


def test_report_and_explain():
    text = "{\n" + HEAD + full(1, 2.0) + SCALE + relu(3, 2) + fetch(4, 3) + fetch(5, 2, 1, "s") + "}\n"
    p = pirc.parse(text, from_version=4)
    result = pirc.run_pipeline(p, "test-decl-scale-relu")
    data = report_json(result, p, "m.pir")
    (entry,) = data["passes"]
    assert entry["near_misses"] == {"scale-relu": {"count": 1, "first": [
        {"op": "pd_op.relu", "location": "5:5",
         "failed": "one use: the pd_op.scale result is also used by pd_op.fetch"}]}}
    assert entry["rule_rewrites"] == {}
    json.dumps(data)
    out = io.StringIO()
    print_explain(result, {"test-decl-scale-relu"}, "m.pir", out)
    assert out.getvalue().splitlines() == [
        "test-decl-scale-relu: 0 rewrites, 1 near miss",
        "  rule scale-relu: 0 rewrites, 1 near misses",
        "    pd_op.relu at m.pir:5:5: one use: the pd_op.scale result is also used by pd_op.fetch",
    ]


@pytest.mark.parametrize("value", ["nan", "inf", "-inf"])
def test_ieee_constants_are_near_misses_never_crashes(value):
    # a check on a constant (`factor > 0`, or an int() a rule takes of it) meets NaN and
    # infinities: it fails, and the candidate is a near miss
    p = program(full(1, value) + SCALE + relu(3, 2) + fetch(4, 3))
    (record,) = pirc.run_pipeline(p, "test-decl-scale-relu").passes
    # (relu(x * inf) is not relu(x) * inf at x < 0: the test rule wants a finite factor)
    assert record.rewrites == 0
    assert record.near_misses["scale-relu"].first[0]["failed"].startswith("factor > 0 and finite")


def test_cli_errors_name_what_to_change_and_write_nothing(tmp_path, capsys):
    from pirc.cli.opt import run as pirc_opt

    src = tmp_path / "m.pir"
    src.write_text("{\n" + HEAD + relu(1, 0) + fetch(2, 1) + "}\n")
    out = tmp_path / "out.pir"
    assert pirc_opt([str(src), "--from-version=4", "-p", "fuse-silu", "--explain=fuse-silx",
                     "-o", str(out)]) == 1
    assert "--explain: unknown pass 'fuse-silx' (did you mean 'fuse-silu'?)" in capsys.readouterr().err
    assert pirc_opt([str(src), "--from-version=4", "-p", "npu", "--device", "cpu", "-o", str(out)]) == 1
    assert ("pipeline 'npu' is for device npu; device cpu contradicts it (drop --device or pick "
            "another pipeline)") in capsys.readouterr().err
    assert not out.exists()
    # without --device, -p npu optimises for the NPU: its device fusions run
    report = tmp_path / "r.json"
    assert pirc_opt([str(src), "--from-version=4", "-p", "npu", f"--pass-report={report}",
                     "-o", str(out)]) == 0
    assert all(p["ran"] for p in json.loads(report.read_text())["passes"] if p["name"] == "fuse-attention")
