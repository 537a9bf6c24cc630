"""The pass manager catches a pass that changes the IR outside the rewrite gate: cheaply in
every run (a watch on xDSL's structural edits, compared with the gate's open rewrite) and
fully with `--verify-each=full` (fingerprints and attributes before and after), naming the
pass; a correctness pass gets a graph tag and a report entry instead.  Also what the report
and the --print-ir-* dumps say about a pass, and the pipeline and flag errors of the same
area (a repeated option, an unknown pass to print around)."""

from __future__ import annotations

import json
from dataclasses import dataclass
import subprocess
import sys
from pathlib import Path

import pytest

from pirc.ir.program import FINGERPRINT_PREFIX
from pirc.passes import PassFailure, PipelineError, build_pipeline, run_pipeline
from pirc.passes.infra.manager import verify_level
from pirc.text.canonical_printer import print_canonical
from pirc.text.parser import parse_text

import broken_passes  # noqa: F401 - registers the test-* passes
from pirc.passes import PircPass, register_pass


@register_pass
@dataclass(frozen=True)
class _NpuOnly(PircPass):
    name = "test-gate-npu-only"
    devices = ("npu",)

    def run(self, pc):
        pass

SMALL = Path(__file__).resolve().parents[1] / "lit" / "passes" / "Inputs" / "small.pir"


def program():
    # a duplicate tanh, an unused relu
    return parse_text(SMALL.read_text(), str(SMALL), 4)


def names(p):
    return [op.name for op in p.block.ops]


MODES = ["incremental", "full", False]   # False: --no-verify-each, the cheap check stays


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("spec, first", [
    ("test-erases-outside-gate", "1 edit(s), the first: removed pd_op.relu"),
    ("test-rewrites-then-edits-outside-gate", "1 edit(s), the first: removed pd_op.relu"),
    ("test-never-done", "a rewrite of pd_op.relu (pfp1:"),
])
def test_a_structural_edit_outside_the_gate_is_an_error_naming_the_pass(mode, spec, first):
    with pytest.raises(PassFailure) as e:
        run_pipeline(program(), f"canonicalize,{spec}", verify_each=mode)
    assert (e.value.pass_name, e.value.invariant, e.value.index) == (spec, "rewrite-gate", 1)
    message = str(e.value)
    assert message.startswith(f"pass '{spec}' (#2 of the pipeline) changed the IR outside the rewrite gate: ")
    assert first in message
    assert "rewrite = pc.begin(matched_ops), change the IR, rewrite.done(produced_ops)" in message


# The watch cannot see a dict assignment; the fingerprints and the attributes before and
# after the pass do.  A rewrite may set the operands of ops it did not match (cse re-points
# readers), not their attributes: the incremental verifier and the fingerprint update trust
# that, and the full check holds passes to it.
@pytest.mark.parametrize("spec, op", [("test-sets-attribute-outside-gate", "pd_op.fetch"),
                                      ("test-sets-attribute-of-an-edited-reader", "pd_op.add")])
def test_an_attribute_set_outside_the_gate_is_caught_by_the_full_check(spec, op):
    with pytest.raises(PassFailure) as e:
        run_pipeline(program(), spec, verify_each="full")
    assert e.value.pass_name == spec
    assert ("changed the IR outside the rewrite gate (--verify-each=full): 1 op(s) whose "
            f"attributes or result types changed in no rewrite, the first: {op}") in str(e.value)


def test_the_full_check_is_the_test_suites_default(monkeypatch):
    # tests/unit/conftest.py sets PIRC_VERIFY_EACH=full: every pipeline a test runs with the
    # default level is checked fully
    monkeypatch.setenv("PIRC_VERIFY_EACH", "full")
    assert verify_level(True) == "full"
    with pytest.raises(PassFailure):
        run_pipeline(program(), "test-sets-attribute-outside-gate")
    monkeypatch.setenv("PIRC_VERIFY_EACH", "incremental")
    assert verify_level(True) == "incremental"
    assert verify_level(False) is None and verify_level("full") == "full"


def test_the_gate_check_passes_the_real_passes_in_full_mode():
    p = program()
    result = run_pipeline(p, "default", verify_each="full")
    assert names(p) == ["pd_op.data", "pd_op.tanh", "pd_op.add", "pd_op.fetch"]
    assert [r.outside_gate for r in result.passes] == [0] * len(result.passes)


@pytest.mark.parametrize("mode", MODES)
def test_a_correctness_pass_editing_outside_the_gate_gets_a_tag_and_a_report_entry(mode):
    p = program()
    result = run_pipeline(p, "test-correctness-outside-gate", verify_each=mode)
    (record,) = result.passes
    assert record.rewrites == 0 and record.outside_gate == 1 and record.changed
    assert record.as_json()["outside_gate"] == 1
    assert (record.ops_before, record.ops_after) == (6, 5)
    (tag,) = p.graph_tags
    assert tag.pass_name == "test-correctness-outside-gate"
    assert tag.before == result.fingerprint and tag.after.startswith(FINGERPRINT_PREFIX)
    assert tag.after != tag.before


def test_upgrade_a_correctness_pass_counts_its_steps_and_is_tagged():
    old = parse_text(SMALL.read_text(), str(SMALL), 3)
    result = run_pipeline(old, build_pipeline("upgrade"), verify_each="full")
    (record,) = result.passes
    assert record.rewrites == 1 and old.version == 4
    assert [t.pass_name for t in old.graph_tags] == ["upgrade"]


def test_op_counts_come_from_the_program_after_each_pass():
    p = program()
    result = run_pipeline(p, "test-gate-npu-only,cse,dce,cse")
    npu, cse, dce, again = result.passes
    assert not npu.ran and (npu.ops_before, npu.ops_after) == (6, 6)
    assert (cse.ops_before, cse.ops_after) == (6, 5)
    assert (dce.ops_before, dce.ops_after) == (5, 4)
    assert (again.ops_before, again.ops_after) == (4, 4)
    assert again.ops_after == p.op_count()


def test_a_repeated_option_is_an_error():
    with pytest.raises(PipelineError, match=r"pass 'const-fold': option 'max-iterations' is given "
                                            r"twice in one \{\.\.\.\}"):
        build_pipeline("const-fold{max-iterations=2 max-iterations=3}")
    with pytest.raises(PipelineError, match="option 'max_iterations' is given twice"):
        build_pipeline("const-fold{max-iterations=2 max_iterations=3}")
    # the same option in two passes' braces is two settings, not a repeat
    assert len(build_pipeline("const-fold{max-iterations=2},const-fold{max-iterations=3}").passes) == 2


def _opt(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "pirc.cli.opt", *map(str, args)], capture_output=True,
                          text=True, cwd=cwd)


@pytest.mark.parametrize("flag", ["--print-ir-before", "--print-ir-after"])
def test_printing_around_an_unknown_pass_is_the_unknown_pass_error(flag):
    r = _opt(SMALL, "--from-version=4", "-p", "cse,dce", f"{flag}=dec")
    assert r.returncode == 1, r.stderr
    assert r.stderr.strip().endswith(f"{flag}: unknown pass 'dec' (did you mean 'dce'?); "
                                     "`pirc-opt --list-passes` lists them")
    assert "Traceback" not in r.stderr and r.stdout == ""
    r = _opt(SMALL, "--from-version=4", "-p", "cse,dec")
    assert r.returncode == 1 and "unknown pass 'dec' (did you mean 'dce'?)" in r.stderr


def test_each_dump_after_a_pass_shows_the_tag_of_that_pass():
    r = _opt(SMALL, "--from-version=4", "-p", "cse,dce", "--print-ir-after-all")
    assert r.returncode == 0, r.stderr
    dumps = r.stderr.split("// -----// IR Dump After ")[1:]
    assert [d.split(" ", 1)[0] for d in dumps] == ["cse", "dce"]
    assert '[("cse", 1, "enabled", ' in dumps[0] and '"dce"' not in dumps[0]
    assert '("dce", 1, "enabled", ' in dumps[1]


@pytest.mark.parametrize("args, status", [
    (["--verify-each=full"], 0), (["--verify-each=incremental"], 0), (["--no-verify-each"], 0),
    (["--verify-each=sometimes"], 2),
])
def test_the_verify_each_flag(args, status, tmp_path):
    report = tmp_path / "r.json"
    r = _opt(SMALL, "--from-version=4", "-p", "default", "--pass-report", report, *args)
    assert r.returncode == status, r.stderr
    if status == 0:
        passes = json.loads(report.read_text())["passes"]
        assert [e["outside_gate"] for e in passes] == [0] * len(passes)
    else:
        assert "invalid choice: 'sometimes'" in r.stderr


@pytest.mark.parametrize("mode", ["incremental", "full"])
def test_the_cli_names_a_pass_editing_outside_the_gate(tmp_path, capsys, mode):
    # pirc-opt loads no test passes: run it in-process, with broken_passes registered
    from pirc.cli.opt import run

    status = run([str(SMALL), "--from-version=4", "-p", "canonicalize,test-erases-outside-gate",
                  f"--verify-each={mode}", "-o", str(tmp_path / "out.pir"),
                  "--crash-reproducer", str(tmp_path / "crash.pir")])
    err = capsys.readouterr().err
    assert status == 1
    assert not (tmp_path / "out.pir").exists()
    assert ("pass 'test-erases-outside-gate' (#2 of the pipeline) changed the IR outside the "
            "rewrite gate: 1 edit(s), the first: removed pd_op.relu") in err
    assert "Traceback" not in err and (tmp_path / "crash.pir").exists()


def test_the_watch_leaves_xdsl_as_it_was():
    from xdsl.ir import Block, IRWithUses

    originals = (IRWithUses.add_use, Block.detach_op, Block._attach_op)
    with pytest.raises(PassFailure):
        run_pipeline(program(), "test-erases-outside-gate")
    run_pipeline(program(), "default")
    assert (IRWithUses.add_use, Block.detach_op, Block._attach_op) == originals
    # a program edited between passes (outside any pass) is nobody's business
    p = program()
    p.block.erase_op(next(op for op in p.block.ops if op.name == "pd_op.relu"))
    assert print_canonical(p).count("pd_op.relu") == 0
