"""`pirc-migrate --compare A.json B.json` (pirc/migrate/compare.py): per-pass change rates,
changed output programs, numeric regressions and the alarm, on reports built by hand."""

from __future__ import annotations

import json

import pytest
from migrate_records import OPTIONS, record, sample_report

from pirc.errors import PircError
from pirc.migrate.compare import alarms, compare_reports, format_comparison
from pirc.migrate.report import build_report, read_report, write_reports

RAN = ["fuse-fc", "dce"]


def _report(records):
    return build_report(records, OPTIONS, "0.1.0")


def _zoo(n: int, fc_changes: int, **extra) -> list[dict]:
    """n models that both passes ran on; fuse-fc changed the first fc_changes, dce all."""
    return [record(f"m{i:02}.json", ran=RAN, changed=("fuse-fc", "dce") if i < fc_changes else ("dce",),
                   **extra) for i in range(n)]


def _rates(cmp) -> dict[str, tuple]:
    return {c.name: (c.a, c.b, c.delta) for c in cmp.passes}


def test_change_rates_per_pass_and_their_delta():
    cmp = compare_reports(_report(_zoo(4, 1)), _report(_zoo(4, 3)))
    assert _rates(cmp) == {"fuse-fc": ((1, 4), (3, 4), 0.5), "dce": ((4, 4), (4, 4), 0)}
    [fc, dce] = cmp.passes
    assert (fc.rate_a, fc.rate_b) == (0.25, 0.75)
    assert cmp.models == 4 and cmp.regressions == () and cmp.only_in_a == cmp.only_in_b == ()


def test_the_alarm_fires_when_a_rate_moves_by_more_than_x():
    cmp = compare_reports(_report(_zoo(4, 1)), _report(_zoo(4, 3)))
    [message] = alarms(cmp, 0.4)
    assert message == ("pass fuse-fc: change rate moved from 1/4 (25.0%) to 3/4 (75.0%) "
                       "(+50.0 pt, more than the 40.0 pt allowed)")
    assert alarms(cmp, 0.5) == []  # by exactly X is not more than X
    assert alarms(cmp, None) == []  # no alarm asked for
    # a rate that falls moves too
    assert len(alarms(compare_reports(_report(_zoo(4, 3)), _report(_zoo(4, 1))), 0.4)) == 1


def test_rate_deltas_are_exact():
    # 8/10 - 7/10 in floats is 0.10000000000000009: more than 0.1, which it is not
    cmp = compare_reports(_report(_zoo(10, 7)), _report(_zoo(10, 8)))
    assert alarms(cmp, 0.1) == []
    assert len(alarms(cmp, 0.099)) == 1


def test_rates_count_only_models_both_reports_hold():
    a = _zoo(4, 1)
    b = _zoo(4, 1) + [record("new.json", ran=RAN, changed=("fuse-fc",)),
                      record("new2.json", ran=RAN, changed=("fuse-fc",))]
    cmp = compare_reports(_report(a + [record("gone.json", ran=RAN)]), _report(b))
    assert _rates(cmp)["fuse-fc"] == ((1, 4), (1, 4), 0)
    assert cmp.only_in_a == ("gone.json",) and cmp.only_in_b == ("new.json", "new2.json")
    assert alarms(cmp, 0.0) == []


def test_a_pass_in_one_report_only_has_no_delta_and_no_alarm():
    a = _zoo(3, 1)
    b = [record(r["path"], ran=RAN + ["fuse-attention"], changed=r["passes_changed"] + ["fuse-attention"])
         for r in a]
    cmp = compare_reports(_report(a), _report(b))
    assert _rates(cmp)["fuse-attention"] == (None, (3, 3), None)
    assert alarms(cmp, 0.0) == []
    line = next(line for line in format_comparison(cmp).splitlines() if line.startswith("fuse-attention"))
    assert line.split() == ["fuse-attention", "-", "3/3", "(100.0%)", "-"]


def test_a_pass_that_changed_a_program_counts_as_run_on_it():
    cmp = compare_reports(_report([record("a.json", ran=[], changed=("dce",))]),
                          _report([record("a.json", ran=["dce"], changed=())]))
    assert _rates(cmp)["dce"] == ((1, 1), (0, 1), -1)


def test_output_programs_that_differ():
    a = [record("same.json"), record("diff.json"), record("gone.json", "failed"), record("both_failed.json", "crashed")]
    b = [record("same.json"), record("diff.json", output="f" * 64), record("gone.json"),
         record("both_failed.json", "crashed")]
    assert compare_reports(_report(a), _report(b)).output_changed == ("diff.json", "gone.json")


def test_numeric_regressions():
    a = [record("drifts.json"), record("fails.json", "unchanged"), record("crashes.json"),
         record("was_bad.json", "drifted"), record("skipped_now.json"), record("check_worse.json", "failed", ok=True),
         record("fine.json"), record("was_skipped.json", "skipped")]
    b = [record("drifts.json", "drifted", max_abs=0.5, first_bad_op="pd_op.gelu #3"),
         record("fails.json", "failed"), record("crashes.json", "crashed", reason="killed by signal 11 (SIGSEGV)"),
         record("was_bad.json", "failed"), record("skipped_now.json", "skipped"),
         record("check_worse.json", "failed", ok=False), record("fine.json"), record("was_skipped.json", "timeout")]
    cmp = compare_reports(_report(a), _report(b))
    assert [r.path for r in cmp.regressions] == ["check_worse.json", "crashes.json", "drifts.json", "fails.json"]
    drifts = next(r for r in cmp.regressions if r.path == "drifts.json")
    assert (drifts.before, drifts.after) == ("upgraded, ok, max_abs 2.4e-07", "drifted, DRIFT, max_abs 0.5")
    messages = alarms(cmp, 1.0)  # no rate can move by more than 1: only the regressions
    assert messages == [f"model {r.path}: numeric regression: {r.before} -> {r.after}" for r in cmp.regressions]
    assert alarms(cmp, None) == []


def test_format_comparison_lists_everything():
    a = sample_report()
    records = [dict(r) for r in a["models"]]
    for r in records:
        if r["path"].endswith("vgg11.3.0.0.json"):
            r.update(status="drifted", fingerprint_after="0" * 64, passes_changed=["dce"])
            r["check"] = {**r["check"], "ok": False, "max_abs": 0.25}
    b = build_report(records[1:], OPTIONS.__class__(4, "npu", "auto", 120.0, 4096), "0.2.0")
    text = format_comparison(compare_reports(a, b))
    assert text.startswith("A: pirc 0.1.0, target version 4, pipeline fuse\n"
                           "B: pirc 0.2.0, target version 4, pipeline npu\n"
                           "13 models in both reports; 1 only in A\n")
    assert "output programs that differ: 1\n  zoo/3.0.0/vgg11.3.0.0.json\n" in text
    assert ("numeric regressions: 1\n  zoo/3.0.0/vgg11.3.0.0.json: upgraded, ok, max_abs 2.4e-07 -> "
            "drifted, DRIFT, max_abs 0.25\n") in text
    assert "only in A: 1\n  zoo/3.0.0/alexnet.3.0.0.json\n" in text
    assert "\nfuse-fc              3/7 (42.9%)       2/7 (28.6%)  -14.3 pt\n" in text
    assert "\ndce                  6/7 (85.7%)       6/7 (85.7%)   +0.0 pt\n" in text


def test_compare_reads_written_reports(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    write_reports(str(tmp_path / "a"), _report(_zoo(4, 1)))
    write_reports(str(tmp_path / "b"), _report(_zoo(4, 2)))
    cmp = compare_reports(read_report(str(tmp_path / "a" / "report.json")),
                          read_report(str(tmp_path / "b" / "report.json")))
    assert _rates(cmp)["fuse-fc"] == ((1, 4), (2, 4), 0.25)


@pytest.mark.parametrize("doc, message", [
    ({"pirc_version": "0.1.0"}, "no 'target_version', 'pipeline', 'check', 'models' fields"),
    ({"pirc_version": "0.1.0", "target_version": 4, "pipeline": None, "check": "auto",
      "models": [{"path": "a.json", "status": "upgraded", "passes_run": "dce"}]},
     "models[0].passes_run: error: not a pirc-migrate report: 'passes_run' is not a list of pass names"),
    ({"pirc_version": "0.1.0", "target_version": 4, "pipeline": None, "check": "auto",
      "models": [{"path": "a.json", "status": "upgraded", "check": {"ok": "yes"}}]},
     "models[0].check.ok: error: not a pirc-migrate report: 'check.ok' is not true, false or null"),
])
def test_a_file_that_is_not_a_report_cannot_be_compared(tmp_path, doc, message):
    path = tmp_path / "journal.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(PircError) as info:
        read_report(str(path))
    assert info.value.render().startswith(f"{path}: ")
    assert message in info.value.render()
