"""A failing pass stops `pirc-opt` with its error and a crash reproducer (the IR before the
pass, the pipeline from it, the pirc version) that `--run-reproducer` replays; the
--print-ir-* flags dump the IR around passes."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pirc.cli.opt import run
from pirc.passes import PircPass, register_pass

import broken_passes  # noqa: F401 - registers test-breaks-verifier

SMALL = Path(__file__).resolve().parents[1] / "lit" / "passes" / "Inputs" / "small.pir"


@register_pass
@dataclass(frozen=True)
class _Raises(PircPass):
    """Raises: a crash, reported like a broken invariant."""

    name = "test-repro-raises"

    def run(self, pc):
        raise ZeroDivisionError("the pass divided by zero")


def test_a_failing_pass_writes_a_reproducer_that_replays(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    status = run([str(SMALL), "--from-version=4", "-p", "cse,test-breaks-verifier,dce", "-o", "out.pir"])
    err = capsys.readouterr().err
    assert status == 1 and not (tmp_path / "out.pir").exists()
    assert "error: pass 'test-breaks-verifier' (#2 of the pipeline) broke the invariant 'verified': op #3 pd_op.add" in err
    assert "replay with: pirc-opt --run-reproducer=pirc-crash.pir" in err
    text = (tmp_path / "pirc-crash.pir").read_text()
    assert "// pipeline: test-breaks-verifier,dce\n" in text
    assert "// pirc crash reproducer, written by pirc 0.1.0" in text
    # the IR before the failing pass: cse has already merged the two tanh ops
    assert text.count('"pd_op.tanh"') == 1 and '"pd_op.add" (%2, %2)' in text
    # replaying fails the same way, and writes its own reproducer where asked
    status = run(["--run-reproducer=pirc-crash.pir", "--crash-reproducer=again.pir", "-o", "x.pir"])
    assert status == 1
    assert "pass 'test-breaks-verifier' (#1 of the pipeline) broke the invariant 'verified'" in capsys.readouterr().err
    assert "// pipeline: test-breaks-verifier,dce\n" in (tmp_path / "again.pir").read_text()


def test_a_crashing_pass_is_named_with_its_exception(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert run([str(SMALL), "--from-version=4", "-p", "test-repro-raises", "--crash-reproducer=c.pir"]) == 1
    err = capsys.readouterr().err
    assert "pass 'test-repro-raises' (#1 of the pipeline) crashed: ZeroDivisionError: the pass divided by zero" in err
    assert "Traceback" not in err and (tmp_path / "c.pir").exists()


def test_not_a_reproducer(tmp_path, capsys):
    assert run(["--run-reproducer", str(SMALL)]) == 1
    assert "not a pirc reproducer (no `// pipeline: ...` line)" in capsys.readouterr().err


def test_print_ir_flags(tmp_path, capsys):
    assert run([str(SMALL), "--from-version=4", "-p", "cse,dce", "--print-ir-before=dce",
                "--print-ir-after-change", "-o", str(tmp_path / "out.pir")]) == 0
    err = capsys.readouterr().err
    headers = [line for line in err.splitlines() if line.startswith("// -----// IR Dump")]
    assert headers == ["// -----// IR Dump After cse (#1) //----- //",
                       "// -----// IR Dump Before dce (#2) //----- //",
                       "// -----// IR Dump After dce (#2) //----- //"]


def test_print_ir_after_failure(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    run([str(SMALL), "--from-version=4", "-p", "test-breaks-verifier", "--print-ir-after-failure"])
    assert "// -----// IR Dump After Failure test-breaks-verifier (#1) //----- //" in capsys.readouterr().err


def test_a_crash_reproducer_keeps_what_is_left_of_the_bisect_limit(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    # cse's one rewrite uses the limit's first; the failing pass and dce get what is left
    status = run([str(SMALL), "--from-version=4", "-p", "cse,test-breaks-verifier,dce", "--bisect-limit=2"])
    assert status == 1
    assert "BISECT: running pass (1) cse on pfp1:" in capsys.readouterr().err
    text = (tmp_path / "pirc-crash.pir").read_text()
    assert "// pipeline: test-breaks-verifier,dce\n// bisect-limit: 1\n" in text
    assert text.count('"pd_op.tanh"') == 1  # the IR as cse left it under the limit
