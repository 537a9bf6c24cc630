"""`pirc-migrate` as a user runs it, over a few dev-zoo models of both releases: the process
pool and a Dask local cluster give the same report; a run killed at random moments resumes to
the report of an uninterrupted one; SRC is never written; bad usage exits 2, the alarm 3."""

from __future__ import annotations

import hashlib
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pirc.migrate.report import normalised
from tools.zoo_weights import materialise

# small models of both zoos: a recurrent net, a CNN, a detection post-process without
# parameters, a program with control flow
MODELS = ["simple_rnn", "shufflenet_v2_x0_25", "nms_postprocess", "switch_for"]


@pytest.fixture(scope="module")
def src(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("zoo")
    materialise(str(root), names=MODELS)
    return root


def migrate(*argv, check=True, **kw) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, "-m", "pirc.cli.migrate", *map(str, argv)],
                          capture_output=True, text=True, **kw)
    assert "Traceback" not in proc.stderr, proc.stderr
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def report(out: Path) -> dict:
    return json.loads((out / "report.json").read_text())


def hashes(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def outputs(out: Path) -> dict[str, str]:
    """The migrated files (programs, parameters, sample feeds), not the reports or journal."""
    return {k: v for k, v in hashes(out).items()
            if not k.startswith((".pirc-migrate", "report."))}


@pytest.fixture(scope="module")
def baseline(src, tmp_path_factory):
    """One uninterrupted run on the process pool: what every other run must equal."""
    out = tmp_path_factory.mktemp("baseline") / "out"
    before = hashes(src)
    proc = migrate(src, "-o", out, "--jobs", "2", "-p", "default")
    assert hashes(src) == before  # SRC is only read
    return out, proc


def test_every_model_is_migrated_checked_and_written(baseline, src):
    out, proc = baseline
    models = report(out)["models"]
    assert [m["path"] for m in models] == sorted(m["path"] for m in models)
    assert len(models) == 2 * len(MODELS)
    assert {m["status"] for m in models} <= {"upgraded", "unchanged"}
    for m in models:
        assert m["to_version"] == report(out)["target_version"]
        assert m["check"]["ok"] is True
        assert m["worker"].startswith("pool-")
        assert (out / m["path"]).is_file()
    old = [m for m in models if m["from_version"] < m["to_version"]]
    assert old and all(m["status"] == "upgraded" for m in old)
    # not a terminal: one plain line per model
    assert proc.stderr.count("\n") >= len(models)
    assert (out / "report.md").is_file() and (out / "report.html").is_file()


def test_a_dask_local_cluster_gives_the_same_report(baseline, src, tmp_path):
    pytest.importorskip("distributed")
    out = tmp_path / "dask"
    migrate(src, "-o", out, "--jobs", "2", "-p", "default", "--executor", "dask",
            "--progress", "none")
    pool, dask = report(baseline[0]), report(out)
    assert json.dumps(normalised(dask), sort_keys=True) == json.dumps(normalised(pool), sort_keys=True)
    assert all(m["worker"].startswith(("tcp://", "inproc://")) for m in dask["models"])
    assert outputs(out) == outputs(baseline[0])


def finished_models(out: Path) -> int:
    journal = out / ".pirc-migrate" / "journal.jsonl"
    try:
        return max(journal.read_text().count("\n") - 1, 0)   # the first line holds the options
    except FileNotFoundError:
        return 0


def test_a_run_killed_at_random_moments_resumes_to_the_same_report(baseline, src, tmp_path):
    """Killed (SIGKILL to the CLI, its workers and their children at once) at random points of
    its progress - before any model finished, and after a random number of them, which does
    not depend on how fast the machine is - then resumed until it completes."""
    out = tmp_path / "killed"
    rng = random.Random(23)
    total = 2 * len(MODELS)
    argv = [sys.executable, "-m", "pirc.cli.migrate", str(src), "-o", str(out), "--jobs", "2",
            "-p", "default", "--progress", "none"]
    kills = []
    for attempt, wait_for in enumerate([0, *sorted(rng.sample(range(1, total), 3))]):
        run = subprocess.Popen(argv + (["--resume"] if attempt else []), start_new_session=True,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 120
        while run.poll() is None and finished_models(out) < wait_for and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(rng.uniform(0.0, 0.3) if wait_for else rng.uniform(0.2, 1.0))
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)   # the CLI, its pool and every model's child
            kills.append(finished_models(out))
        run.wait()
    assert len(kills) >= 3 and any(0 < k < total for k in kills), kills
    migrate(src, "-o", out, "--jobs", "2", "-p", "default", "--progress", "none", "--resume")
    assert normalised(report(out)) == normalised(report(baseline[0]))
    assert outputs(out) == outputs(baseline[0])


def test_resume_with_other_options_is_bad_usage(baseline, src, tmp_path):
    out = tmp_path / "out"
    migrate(src, "-o", out, "--progress", "none", "--check", "none")
    proc = migrate(src, "-o", out, "--resume", "--check", "self", check=False)
    assert proc.returncode == 2
    assert "check" in proc.stderr and "resume" in proc.stderr.lower()


@pytest.mark.parametrize("argv, words", [
    (["{tmp}/missing", "-o", "{tmp}/out"], "does not exist"),
    (["{src}", "-o", "{src}/out"], "overlap"),
    (["{src}", "-o", "{tmp}/out", "-p", "no-such-pass"], "unknown pass"),
    (["{src}", "-o", "{tmp}/out", "--target-version", "99"], "target version 99"),
    (["{src}"], "-o OUT"),
    (["{src}", "-o", "{tmp}/out", "--jobs", "0"], "whole number >= 1"),
    (["{src}", "-o", "{tmp}/out", "--timeout", "nan"], "seconds > 0"),
    (["--compare", "{tmp}/a.json", "{tmp}/b.json", "--alarm-change-rate", "2"], "between 0 and 1"),
    (["--compare", "{tmp}/a.json", "{tmp}/b.json", "{src}"], "--compare"),
])
def test_bad_usage_exits_2_with_what_to_do(argv, words, src, tmp_path):
    before = hashes(src)
    proc = migrate(*[a.format(tmp=tmp_path, src=src) for a in argv], check=False)
    assert proc.returncode == 2, proc.stderr
    assert words in proc.stderr
    assert hashes(src) == before
    # refused before anything is written: no OUT, no journal, no report
    assert not (tmp_path / "out").exists() and not (src / "out").exists()


def test_every_model_over_its_time_is_a_timeout_and_the_run_says_so(src, tmp_path):
    proc = migrate(src, "-o", tmp_path / "out", "--timeout", "0.001", "--progress", "none",
                   check=False)
    assert proc.returncode == 1
    models = report(tmp_path / "out")["models"]
    # a model can end before the first look at its child; an upgrade and its check cannot
    timeouts = [m for m in models if m["status"] == "timeout"]
    assert {m["path"] for m in models if "/3.0.0/" in m["path"]} <= {m["path"] for m in timeouts}
    assert all(m["status"] in ("timeout", "unchanged", "upgraded") for m in models)
    assert all("0.001" in m["reason"] for m in timeouts), timeouts[0]["reason"]


def test_the_skip_list_keeps_known_failures_visible(src, tmp_path):
    skip = tmp_path / "skip.yaml"
    skip.write_text("- path: 'zoo2/*/switch_for.*'\n  reason: known issue 1234\n"
                    "  expires: 2999-01-01\n"
                    "- path: 'zoo/3.0.0/*'\n  reason: expired\n  expires: 2000-01-01\n")
    proc = migrate(src, "-o", tmp_path / "out", "--skip-list", skip, "--check", "none",
                   "--progress", "none")
    models = {m["path"]: m for m in report(tmp_path / "out")["models"]}
    skipped = {p for p, m in models.items() if m["status"] == "skipped"}
    assert skipped == {p for p in models if "switch_for" in p}
    assert all(models[p]["reason"] == "known issue 1234" for p in skipped)
    assert "warning" in proc.stderr and "expired" in proc.stderr
    assert all(models[p]["status"] != "skipped" for p in models if p.startswith("zoo/3.0.0/"))


def test_compare_raises_the_alarm_when_a_pass_changes_more_models(baseline, tmp_path):
    a = baseline[0] / "report.json"
    wider = report(baseline[0])
    for m in wider["models"]:   # cse now changes every model it ran on
        if "cse" in m["passes_run"] and "cse" not in m["passes_changed"]:
            m["passes_changed"] = m["passes_changed"] + ["cse"]
            m["fingerprint_after"] = "pfp1:" + "0" * 64
    b = tmp_path / "b.json"
    b.write_text(json.dumps(wider))
    quiet = migrate("--compare", a, a, "--alarm-change-rate", "0")
    assert "alarm" not in quiet.stderr
    changed = sum(1 for m in report(baseline[0])["models"]
                  if "cse" in m["passes_run"] and "cse" not in m["passes_changed"])
    proc = migrate("--compare", a, b, "--alarm-change-rate", "0.01", check=False)
    if changed:
        assert proc.returncode == 3, proc.stderr
        assert "cse" in proc.stderr and "alarm" in proc.stderr
    else:
        assert proc.returncode == 0
    bad = tmp_path / "bad.json"
    bad.write_text("{\"models\": 3}")
    proc = migrate("--compare", a, bad, check=False)
    assert proc.returncode != 0 and "bad.json" in proc.stderr


def test_compare_pipelines_runs_both_and_compares(src, tmp_path):
    proc = migrate(src, "-o", tmp_path / "out", "--compare-pipelines", "default", "fuse",
                   "--check", "none", "--progress", "none", "--alarm-change-rate", "0.5")
    for sub in "ab":
        assert (tmp_path / "out" / sub / "report.json").is_file()
    assert report(tmp_path / "out" / "a")["pipeline"] == "default"
    assert report(tmp_path / "out" / "b")["pipeline"] == "fuse"
    assert "cse" in proc.stdout
