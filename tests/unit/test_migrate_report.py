"""pirc-migrate's reports (pirc/migrate/report.py, report_html.py): report.json's schema and
its bytes, normalised(), the exit status, report.md's sections, and report.html as a page
that fetches nothing and shows every untrusted string as text.  Records are built by hand
(migrate_records.py), one of every status."""

from __future__ import annotations

import json
import random
import re
from html.parser import HTMLParser

import pytest
from migrate_records import OPTIONS, record, sample_records, sample_report

from pirc.errors import PircError
from pirc.migrate.report import (build_report, exit_status, normalised, read_report, render_markdown,
                                 report_json, write_reports)
from pirc.migrate.report_html import render_html
from pirc.migrate.schema import CHECK_FIELDS, RECORD_FIELDS, STATUSES

FILES = ("report.json", "report.md", "report.html")


def _written(folder, report) -> dict[str, bytes]:
    folder.mkdir()
    write_reports(str(folder), report)
    return {name: (folder / name).read_bytes() for name in FILES}


# -- report.json ---------------------------------------------------------------------------


def test_the_report_has_the_schema_and_records_sorted_by_path():
    report = sample_report()
    assert list(report) == ["pirc_version", "target_version", "pipeline", "check", "models"]
    assert (report["target_version"], report["pipeline"], report["check"]) == (4, "fuse", "auto")
    paths = [r["path"] for r in report["models"]]
    assert paths == sorted(paths) and len(paths) == len(sample_records())
    assert {r["status"] for r in report["models"]} == set(STATUSES)
    for model in report["models"]:
        assert set(RECORD_FIELDS) <= set(model), model["path"]
        assert set(model["check"]) == set(CHECK_FIELDS), model["path"]


def test_a_record_without_results_gets_nobody_learnt_values():
    [timeout] = build_report([{"path": "a.json", "status": "timeout", "reason": "no result after 5 s",
                               "seconds": 5.0, "peak_mb": 90.0, "worker": "pool-7"}],
                             OPTIONS, "0.1.0")["models"]
    assert timeout["from_version"] is None and timeout["fingerprint_after"] is None
    assert timeout["passes_changed"] == [] and timeout["passes_run"] == []
    assert timeout["check"] == {"mode": None, "ok": None, "max_abs": None, "max_rel": None,
                                "first_bad_op": None, "random_outputs": []}
    assert timeout["reason"] == "no result after 5 s" and timeout["worker"] == "pool-7"


def test_same_records_in_any_order_give_byte_identical_files(tmp_path):
    records = sample_records()
    first = _written(tmp_path / "a", sample_report(records))
    shuffled = [dict(reversed(list(r.items()))) for r in records]  # keys in another order, too
    random.Random(7).shuffle(shuffled)
    assert _written(tmp_path / "b", sample_report(shuffled)) == first
    # and any change of a result shows
    records[0] = {**records[0], "ops_after": records[0]["ops_after"] + 1}
    changed = _written(tmp_path / "c", sample_report(records))
    assert all(changed[name] != first[name] for name in FILES)


def test_report_json_is_canonical_json():
    report = sample_report()
    text = report_json(report)
    assert text == json.dumps(json.loads(text), indent=2, sort_keys=True) + "\n"
    assert json.loads(text) == report
    assert text.isascii()


def test_non_finite_numbers_become_null():
    rec = record("m.json", "drifted", max_abs=float("nan"))
    rec["check"]["max_rel"] = float("inf")
    rec["seconds"] = float("-inf")
    text = report_json(build_report([rec], OPTIONS, "0.1.0"))
    assert "NaN" not in text and "Infinity" not in text
    model = json.loads(text)["models"][0]
    assert model["check"]["max_abs"] is None and model["check"]["max_rel"] is None
    assert model["seconds"] is None


def test_a_path_that_is_not_utf8_still_writes_every_file(tmp_path):
    path = b"zoo/caf\xe9.json".decode("utf-8", "surrogateescape")
    report = build_report([record(path)], OPTIONS, "0.1.0")
    files = _written(tmp_path / "out", report)
    assert json.loads(files["report.json"])["models"][0]["path"] == path
    assert b"caf\\udce9.json" in files["report.md"] and b"caf\\udce9.json" in files["report.html"]


def test_normalised_drops_what_describes_the_run():
    records = sample_records()
    other = [{**r, "seconds": 99.0, "peak_mb": 1.0, "worker": "tcp://10.0.0.2:4001"} for r in records]
    a, b = sample_report(records), sample_report(other)
    assert a != b and normalised(a) == normalised(b)
    assert not {"seconds", "peak_mb", "worker"} & set(normalised(a)["models"][0])
    assert a["models"][0]["seconds"] is not None  # the report itself is left alone
    worse = [{**r, "status": "failed"} if r["status"] == "upgraded" else r for r in records]
    assert normalised(sample_report(worse)) != normalised(a)


@pytest.mark.parametrize("status", STATUSES)
def test_exit_status_is_1_unless_every_model_is_fine(status):
    fine = [record("a.json"), record("b.json", "unchanged"), record("c.json", "skipped")]
    assert exit_status(build_report(fine, OPTIONS, "0.1.0")) == 0
    report = build_report(fine + [record("d.json", status)], OPTIONS, "0.1.0")
    assert exit_status(report) == (0 if status in ("upgraded", "unchanged", "skipped") else 1)


@pytest.mark.parametrize("records, message", [
    ([record("a.json", "exploded")], "unknown status 'exploded'"),
    ([record("a.json"), record("a.json", "failed")], "two records for 'a.json'"),
    ([{"status": "upgraded"}], "without a 'path'"),
    ([record("a.json", passes_changed="dce")], "'passes_changed' is not a list"),
])
def test_a_record_pirc_got_wrong_is_refused_before_writing(records, message):
    with pytest.raises(PircError, match=re.escape(message)):
        build_report(records, OPTIONS, "0.1.0")


# -- reading a report back -----------------------------------------------------------------


def test_a_written_report_reads_back_equal(tmp_path):
    report = sample_report()
    _written(tmp_path / "out", report)
    assert read_report(str(tmp_path / "out" / "report.json")) == report


@pytest.mark.parametrize("text, where, message", [
    ("{not json", "", "not JSON (Expecting property name"),
    ("[1, 2]", "", "the document is a JSON list, not an object"),
    ('{"models": []}', "", "no 'pirc_version', 'target_version', 'pipeline', 'check' fields"),
    ('{"pirc_version": "0.1.0", "target_version": 4, "pipeline": null, "check": "auto", "models": {}}',
     "models", "'models' is a JSON object, not a list"),
    ('{"pirc_version": "0.1.0", "target_version": 4, "pipeline": null, "check": "auto",'
     ' "models": [{"path": "a.json", "status": "upgraded"}, {"path": "b.json", "status": "ok"}]}',
     "models[1].status", "unknown status 'ok'"),
    ('{"pirc_version": "0.1.0", "target_version": 4, "pipeline": null, "check": "auto",'
     ' "models": [{"path": "a.json", "status": "upgraded", "seconds": "fast"}]}',
     "models[0].seconds", "'seconds' is a JSON string, not a number or null"),
])
def test_a_file_that_is_not_a_report_is_named_with_what_is_wrong(tmp_path, text, where, message):
    path = tmp_path / "other.json"
    path.write_text(text)
    with pytest.raises(PircError) as info:
        read_report(str(path))
    shown = info.value.render()
    assert shown.startswith(f"{path}: {where + ': ' if where else ''}error: not a pirc-migrate report: "), shown
    assert message in shown


def test_a_missing_report_file_is_an_error_naming_it(tmp_path):
    with pytest.raises(PircError) as info:
        read_report(str(tmp_path / "nope.json"))
    assert info.value.render() == f"{tmp_path / 'nope.json'}: error: cannot read this report: No such file or directory"


# -- report.md -----------------------------------------------------------------------------


def test_markdown_has_summary_table_drift_failures_slowest_and_passes():
    report = sample_report()
    md = render_markdown(report)
    assert "target version 4, pipeline `fuse`, check `auto`, 14 models." in md
    for status in STATUSES:
        assert f"| {status} | 1 |" in md or f"| {status} | 6 |" in md, status
    assert "| **total** | **14** |" in md
    models = md.split("## Models")[1].split("## Drifting")[0]
    rows = [line for line in models.splitlines() if line.startswith("| `")]
    assert [re.match(r"\| `([^`]*)`", row).group(1) for row in rows] == [r["path"] for r in report["models"]]
    assert ("| `zoo/3.0.0/llama.3.0.0.json` | drifted | 1 -> 4 | 530 -> 377 | canonicalize, "
            "fuse-attention, cse, dce | DRIFT, max_abs 0.0123 | 9.80 |") in rows
    drift = md.split("## Drifting models")[1].split("## Failures")[0]
    assert "`pd_op.softmax #88`" in drift and "0.0123" in drift and "vgg11" not in drift
    failures = md.split("## Failures")[1].split("## Skipped")[0]
    assert "| `zoo/3.0.0/googlenet.3.0.0.json` | crashed | `killed by signal 11 (SIGSEGV)` |" in failures
    assert len([line for line in failures.splitlines() if line.startswith("| `")]) == 5
    slowest = md.split("## Slowest models")[1].split("## Passes")[0]
    order = re.findall(r"\| `zoo/3.0.0/(\w+)\.", slowest)
    assert order[:3] == ["densenet121", "inception_v3", "llama"] and len(order) == 10
    assert "| `dce` | 6 | 8 | 75.0% |" in md and "| `const-fold` | 0 | 8 | 0.0% |" in md


def test_markdown_keeps_a_hostile_path_in_one_cell():
    path = "zoo/a|b`c<img src=x>.json"
    md = render_markdown(build_report([record(path, "failed", reason="bad | reason\nsecond line")],
                                      OPTIONS, "0.1.0"))
    row = next(line for line in md.split("## Models")[1].splitlines() if "a\\|b" in line)
    assert len(re.findall(r"(?<!\\)\|", row)) == 8  # 7 cells
    assert "``zoo/a\\|b`c<img src=x>.json``" in row
    failure = next(line for line in md.split("## Failures")[1].splitlines() if "a\\|b" in line)
    assert "`bad \\| reason second line`" in failure


# -- report.html ---------------------------------------------------------------------------


class _Page(HTMLParser):
    """Every element with its attributes, the models table's rows, and the text."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict]] = []
        self.rows: list[dict] = []
        self.cells: list[list[str]] = []
        self._in_models = self._in_body = False
        self._cell = None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.elements.append((tag, attrs))
        if tag == "table":
            self._in_models = attrs.get("id") == "models"
        if self._in_models and tag == "tbody":
            self._in_body = True
        if self._in_body and tag == "tr":
            self.rows.append(attrs)
            self.cells.append([])
        if self._in_body and tag == "td":
            self._cell = []

    def handle_endtag(self, tag):
        if tag == "td" and self._cell is not None:
            self.cells[-1].append("".join(self._cell))
            self._cell = None
        if tag == "tbody":
            self._in_body = False

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def test_html_is_self_contained():
    page = render_html(sample_report())
    for needle in ("http://", "https://", "@import", "url(", "<link", "<iframe", "<object", "<embed"):
        assert needle not in page.lower(), needle
    parsed = _Page(page)
    for tag, attrs in parsed.elements:
        assert "src" not in attrs, (tag, attrs)
        assert attrs.get("href", "#").startswith("#"), (tag, attrs)
        assert "srcset" not in attrs and "action" not in attrs and "poster" not in attrs
    csp = [a["content"] for t, a in parsed.elements if a.get("http-equiv") == "Content-Security-Policy"]
    assert csp and csp[0].startswith("default-src 'none';")
    assert [t for t, _ in parsed.elements].count("script") == 1
    assert [t for t, _ in parsed.elements].count("svg") == 1  # the status chart, inline


def test_html_table_has_one_row_per_model_in_the_html_itself():
    report = sample_report()
    parsed = _Page(render_html(report))
    assert [row["data-status"] for row in parsed.rows] == [r["status"] for r in report["models"]]
    assert [cells[0] for cells in parsed.cells] == [r["path"] for r in report["models"]]
    # readable without JS: the table is there; the controls only appear where the script runs
    controls = next(a for t, a in parsed.elements if a.get("id") == "controls")
    assert "hidden" in controls
    headers = [a for t, a in parsed.elements if t == "th" and "aria-sort" in a]
    assert len(headers) == len(parsed.cells[0])


def test_html_shows_chart_passes_slowest_and_drifting_models():
    page = render_html(sample_report())
    parsed = _Page(page)
    ids = {a.get("id") for _, a in parsed.elements}
    assert {"statuses", "passes", "drifting", "slowest", "failures", "models-table", "filter", "status"} <= ids
    options = [a["value"] for t, a in parsed.elements if t == "option"]
    assert options == [""] + list(STATUSES)  # the sample has every status
    chart = page[page.index("<svg"):page.index("</svg>")]
    assert all(f">{status}</text>" in chart for status in STATUSES)
    assert chart.count("<rect") == len(STATUSES)
    drift = page[page.index('id="drifting"'):page.index('id="failures"')]
    assert "pd_op.softmax #88" in drift and "0.0123" in drift
    assert "<code>fuse-attention</code></td><td class=\"num\">3</td><td class=\"num\">8</td>" in page


def test_html_escapes_every_string_from_a_record():
    evil = '"><script>alert(1)</script><img src=//evil.example/x.png onerror=alert(2)>.json'
    rec = record(evil, "drifted", first_bad_op="<b>op</b>", worker="<i>w</i>", seconds=500.0,
                 reason="</td><script>alert(3)</script>")
    report = build_report([rec, record("ok.json")], OPTIONS, "0.1.0<svg onload=alert(4)>")
    page = render_html(report)
    for raw in ("<script>alert", "<img", "<b>op", "<i>w", "<svg onload"):
        assert raw not in page, raw
    parsed = _Page(page)
    assert [t for t, _ in parsed.elements].count("script") == 1
    assert not [a for _, a in parsed.elements if any(k.startswith("on") for k in a)]
    assert not [a for _, a in parsed.elements if "src" in a]
    assert len(parsed.rows) == 2
    assert parsed.cells[0][0] == evil  # shown as text, whole
    assert evil.lower() in parsed.rows[0]["data-text"]


def test_html_of_an_empty_run_still_renders():
    page = render_html(build_report([], OPTIONS, "0.1.0"))
    assert "No model drifted." in page and "No pass ran." in page and "No model was timed." in page
    assert _Page(page).rows == []
