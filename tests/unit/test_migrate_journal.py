"""pirc-migrate's journal: one fsync'd line per finished model, resumable after a kill at any
moment, and never resumed with other options."""

from __future__ import annotations

import json

import pytest

from migrate_fakes import options
from pirc.errors import PircError
from pirc.migrate.journal import JOURNAL_DIR, JOURNAL_NAME, Journal


def record(path, status="upgraded"):
    return {"path": path, "status": status, "reason": "", "seconds": 0.5}


def journal_file(out):
    return out / JOURNAL_DIR / JOURNAL_NAME


def test_a_fresh_journal_starts_with_the_options_and_holds_each_model_on_its_line(tmp_path):
    with Journal.open(str(tmp_path), options(timeout=5), resume=False) as journal:
        journal.append(record("a.json"), "a|1|2")
        journal.append(record("b.json", "failed"), "b|1|2")
        assert set(journal.done()) == {"a|1|2", "b|1|2"}
    lines = [json.loads(line) for line in journal_file(tmp_path).read_text().splitlines()]
    assert lines[0]["options"] == options(timeout=5).as_json()
    assert lines[0]["digest"] == options(timeout=5).digest()
    assert lines[2] == {"key": "b|1|2", "record": record("b.json", "failed")}


def test_resume_returns_what_finished_and_appends_after_it(tmp_path):
    with Journal.open(str(tmp_path), options(), resume=False) as journal:
        journal.append(record("a.json"), "a")
    with Journal.open(str(tmp_path), options(), resume=True) as journal:
        assert journal.done() == {"a": record("a.json")}
        journal.append(record("b.json"), "b")
    with Journal.open(str(tmp_path), options(), resume=True) as journal:
        assert set(journal.done()) == {"a", "b"}


def test_a_line_cut_by_a_kill_is_ignored_and_cut_off_before_the_next_append(tmp_path):
    with Journal.open(str(tmp_path), options(), resume=False) as journal:
        journal.append(record("a.json"), "a")
        journal.append(record("b.json"), "b")
    path = journal_file(tmp_path)
    whole = path.read_bytes()
    path.write_bytes(whole[:-9])          # killed in the middle of writing b's line
    with Journal.open(str(tmp_path), options(), resume=True) as journal:
        assert set(journal.done()) == {"a"}
        journal.append(record("b.json", "timeout"), "b")
    with Journal.open(str(tmp_path), options(), resume=True) as journal:
        assert journal.done()["b"]["status"] == "timeout"
    assert all(json.loads(line) for line in path.read_text().splitlines())


def test_resume_with_other_options_names_them(tmp_path):
    Journal.open(str(tmp_path), options(timeout=5), resume=False).close()
    with pytest.raises(PircError) as caught:
        Journal.open(str(tmp_path), options(timeout=9, max_memory_mb=512), resume=True)
    message = caught.value.render()
    assert "max_memory_mb" in message and "timeout" in message and "target_version" not in message
    assert str(journal_file(tmp_path)) in message


def test_without_resume_an_old_journal_is_replaced(tmp_path):
    with Journal.open(str(tmp_path), options(timeout=5), resume=False) as journal:
        journal.append(record("a.json"), "a")
    with Journal.open(str(tmp_path), options(), resume=False) as journal:
        assert journal.done() == {}
    assert len(journal_file(tmp_path).read_text().splitlines()) == 1


def test_resume_without_a_journal_starts_fresh(tmp_path):
    with Journal.open(str(tmp_path), options(), resume=True) as journal:
        assert journal.done() == {}
    assert journal_file(tmp_path).exists()


def test_a_damaged_line_before_the_last_is_an_error_with_its_line(tmp_path):
    with Journal.open(str(tmp_path), options(), resume=False) as journal:
        journal.append(record("a.json"), "a")
        journal.append(record("b.json"), "b")
    path = journal_file(tmp_path)
    lines = path.read_text().splitlines(keepends=True)
    path.write_text(lines[0] + "{not json\n" + lines[2])
    with pytest.raises(PircError) as caught:
        Journal.open(str(tmp_path), options(), resume=True)
    assert caught.value.render().startswith(f"{path}:2: error: this line is not JSON")
