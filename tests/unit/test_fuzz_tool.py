"""The fuzzer's own guarantees (tools/fuzz): reproducible inputs, the watchdog, minimizing, replay."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tools.fuzz import checks, cli, engine  # noqa: E402
from tools.fuzz.cases import Case, make_case  # noqa: E402
from tools.fuzz.checks import PropertyFailure  # noqa: E402
from tools.fuzz.minimize import minimize  # noqa: E402
from tools.fuzz.signature import signature  # noqa: E402


@pytest.mark.parametrize("front", ["text", "json", "yaml"])
def test_the_same_seed_gives_the_same_inputs(front):
    first = [make_case(front, 5, k) for k in range(30)]
    again = [make_case(front, 5, k) for k in reversed(range(30))][::-1]
    assert [c.data for c in first] == [c.data for c in again]
    assert [c.options() for c in first] == [c.options() for c in again]
    other = [make_case(front, 6, k).data for k in range(30)]
    assert other != [c.data for c in first]


def test_a_run_does_not_depend_on_the_number_of_workers():
    one = engine.run_campaign("json", 2, 40, 1, None, 10.0, 2048, log=lambda m: None)
    two = engine.run_campaign("json", 2, 40, 2, None, 10.0, 2048, log=lambda m: None)
    assert (one.inputs, one.accepted, one.verified) == (two.inputs, two.accepted, two.verified) == \
        (40, one.accepted, one.verified)
    assert {s: (f.count, f.index) for s, f in one.findings.items()} == \
        {s: (f.count, f.index) for s, f in two.findings.items()}


def test_a_check_past_the_time_limit_is_a_hang(monkeypatch):
    def slow(case):
        time.sleep(5)

    monkeypatch.setattr(engine, "check_case", slow)
    engine.limit_process(None)
    started = time.monotonic()
    result = engine.run_one(Case("text", "{\n}\n", from_version=4), hang_s=0.3)
    assert time.monotonic() - started < 3
    assert result.sig is not None and result.sig.startswith("Hang @ ")
    assert "Hang" in result.traceback


def test_an_accepted_program_passes_every_property():
    program = (ROOT / "examples" / "cnn.3.0.0.json").read_text()
    outcome = checks.check_case(Case("json", program))
    assert outcome.accepted and outcome.verified  # read, verified, written 3 ways, upgraded


def test_a_property_failure_has_its_own_class():
    sig = signature(PropertyFailure("json-write-does-not-read", "input verified", "details"))
    assert sig == "Finding json-write-does-not-read [input verified]"


def test_minimizing_keeps_the_signature_and_shrinks():
    data = "\n".join(f"line {i} " + "x" * 30 for i in range(200)) + "\nthe needle\n" + "[" * 500 + "]" * 500
    case = Case("text", data, from_version=4)

    def run(c):
        return "S" if "needle" in c.data and c.data.count("[") == c.data.count("]") >= 4 else "other"

    small = minimize(case, "S", run, budget_s=20)
    assert run(small) == "S"
    assert len(small.data) < 40, small.data


def test_replay_says_ok_for_an_input_pirc_reads(capsys):
    status = cli.main(["replay", str(ROOT / "examples" / "cnn.3.0.0.json")])
    out = capsys.readouterr().out
    assert status == 0
    assert "ok: accepted, verifies; every write reads back" in out


def test_replay_says_ok_for_an_input_pirc_refuses(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text('{"base_code": 1}')
    status = cli.main(["replay", str(bad)])
    out = capsys.readouterr().out
    assert status == 0
    assert "ok: refused with pirc's own error" in out


# -- the pass layer: differential mode and surfaces ----------------------------------------

from tools.fuzz.cases import PASS_FRONTS  # noqa: E402
from tools.fuzz.findings import load_case, save_class  # noqa: E402


@pytest.mark.parametrize("front", PASS_FRONTS)
def test_pass_layer_inputs_are_reproducible(front):
    first = [make_case(front, 5, k) for k in range(6)]
    again = [make_case(front, 5, k) for k in reversed(range(6))][::-1]
    assert [c.data for c in first] == [c.data for c in again]
    assert [c.options() for c in first] == [c.options() for c in again]
    assert [make_case(front, 6, k).data for k in range(6)] != [c.data for c in first]


_TANH = """{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[3],stop_gradient:[true]} : () -> tensor<3xf32>
    (%1) = "pd_op.tanh" (%0) {stop_gradient:[true]} : (tensor<3xf32>) -> tensor<3xf32>
    (%2) = "pd_op.fetch" (%1) {col:0,name:"y",persistable:[true],stop_gradient:[true]} : (tensor<3xf32>) -> tensor<3xf32>
}
"""


def test_differential_mode_reports_a_pass_that_changes_the_numbers(monkeypatch):
    import pirc

    class Result:
        params = None

    def wrong_pass(program, pipeline, **kw):  # "optimises" tanh into abs
        program.module = pirc.parse(_TANH.replace("pd_op.tanh", "pd_op.abs"), from_version=4).module
        return Result()

    case = Case("passes", _TANH, from_version=4, targets=["cse"], origin={"seed_file": "t"})
    assert checks.check_case(case).accepted  # the real cse keeps the numbers
    monkeypatch.setattr(pirc, "run_pipeline", wrong_pass)
    result = engine.run_one(case, hang_s=30)
    assert result.sig == "Finding miscompile [cse]", result.traceback
    assert "max difference" in result.traceback


def test_a_surface_internal_error_is_a_finding_and_a_pirc_error_is_not(monkeypatch):
    import pirc.cli.run as run_cli
    from pirc.errors import PircError

    case = make_case("inputs", 1, 0)
    monkeypatch.setattr(run_cli, "load_inputs", lambda path: {}["missing"])
    result = engine.run_one(case, hang_s=30)
    assert result.sig is not None and result.sig.startswith("KeyError @ "), result.sig

    def refuse(path):
        raise PircError(f"{path}: refused")
    monkeypatch.setattr(run_cli, "load_inputs", refuse)
    result = engine.run_one(case, hang_s=30)
    assert result.sig is None and "refused" in result.note


def test_binary_cases_are_saved_as_bytes(tmp_path):
    case = make_case("params", 2, 3)
    folder = save_class(tmp_path, "Sig", 1, case, case, "tb", "", False)
    raw = (folder / "input.pdiparams").read_bytes()
    assert raw == case.data.encode("latin-1")
    back = load_case(folder)
    assert back.front == "params" and back.data == case.data and back.pool_index == case.pool_index
