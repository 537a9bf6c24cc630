"""pirc-migrate's skip list: known failures skipped with their reason until they expire; a
malformed file is an error naming the file and the entry."""

from __future__ import annotations

import datetime

import pytest

from pirc.errors import PircError
from pirc.migrate.skiplist import load_skip_list, skipped_record

TODAY = datetime.date(2026, 12, 4)

GOOD = """\
- path: "legacy/*.json"
  reason: uses an op removed in 3.1
  expires: 2027-03-01
- path: "zoo/old-*.json"
  reason: known drift
  expires: 2026-12-01
- path: "zoo/*"
  reason: the whole zoo is parked
"""


def write(tmp_path, text):
    path = tmp_path / "skip.yaml"
    path.write_text(text)
    return str(path)


def test_a_matching_entry_skips_with_its_reason(tmp_path):
    skips = load_skip_list(write(tmp_path, GOOD))
    assert skips.match("legacy/a/b.json", TODAY) == ("uses an op removed in 3.1", None)
    assert skips.match("other/b.json", TODAY) == (None, None)


def test_an_expired_entry_warns_and_the_model_runs_unless_a_later_entry_skips_it(tmp_path):
    path = write(tmp_path, GOOD.split('- path: "zoo/*"')[0])
    reason, warning = load_skip_list(path).match("zoo/old-bert.json", TODAY)
    assert reason is None
    assert warning == ("line 4: the skip of 'zoo/old-*.json' expired on 2026-12-01: "
                       "zoo/old-bert.json runs")
    assert load_skip_list(write(tmp_path, GOOD)).match("zoo/old-bert.json", TODAY) == (
        "the whole zoo is parked", None)


def test_an_entry_applies_until_the_day_before_it_expires(tmp_path):
    skips = load_skip_list(write(tmp_path, GOOD))
    assert skips.match("legacy/a.json", datetime.date(2027, 2, 28))[0] is not None
    assert skips.match("legacy/a.json", datetime.date(2027, 3, 1))[0] is None


def test_an_empty_file_skips_nothing(tmp_path):
    assert load_skip_list(write(tmp_path, "")).match("a.json", TODAY) == (None, None)


@pytest.mark.parametrize("text, line, words", [
    ("path: a\n", 1, "a YAML list"),
    ("- path: a.json\n  reason: r\n- path: b.json\n", 3, "has no reason"),
    ("- reason: r\n", 1, "has no path"),
    ("- path: a\n  reason: r\n  expires: soon\n", 1, "not a date"),
    ("- path: a\n  reason: r\n  expires: 2027-13-45\n", 1, "does not read"),
    ("- path: a\n  reason: r\n  expiry: 2027-01-01\n", 1, "unknown key 'expiry'"),
    ("- just a string\n", 1, "a mapping"),
    ("- path: a\n  reason: r\n bad: [x\n", 3, "not valid YAML"),
])
def test_a_malformed_file_is_an_error_naming_the_file_and_entry(tmp_path, text, line, words):
    path = write(tmp_path, text)
    with pytest.raises(PircError) as caught:
        load_skip_list(path)
    message = caught.value.render()
    assert message.startswith(f"{path}:{line}: error: ") and words in message, message


def test_a_missing_file_is_an_error_naming_it(tmp_path):
    with pytest.raises(PircError) as caught:
        load_skip_list(str(tmp_path / "nope.yaml"))
    assert caught.value.render().startswith(f"{tmp_path / 'nope.yaml'}: error: cannot read")


def test_a_skipped_record_has_every_field_of_a_report_record():
    from pirc.migrate.schema import RECORD_FIELDS

    record = skipped_record("zoo/a.json", "known drift")
    assert set(record) == set(RECORD_FIELDS)
    assert (record["status"], record["reason"], record["ops_before"]) == (
        "skipped", "known drift", None)
