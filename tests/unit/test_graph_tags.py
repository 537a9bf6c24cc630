"""Graph tags and the version manifest: written by the pass manager, kept by canonical text
and JSON, read back exactly, rejected clearly when malformed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import pirc
from pirc.cli.opt import run
from pirc.errors import PircError
from pirc.passes import build_pipeline, run_pipeline
from pirc.passes.infra.fingerprint import program_fingerprint
from pirc.runtime.op_versions import digest
from pirc.text.parser import parse_text

ROOT = Path(__file__).resolve().parents[2]
SMALL = ROOT / "tests" / "lit" / "passes" / "Inputs" / "small.pir"
CNN_300 = ROOT / "tests" / "fixtures" / "corpus" / "3.0.0" / "cnn.3.0.0.json"


def optimised():
    p = parse_text(SMALL.read_text(), "small.pir", 4)
    start = program_fingerprint(p)
    result = run_pipeline(p, "default")
    return p, start, result


def test_each_changing_pass_appends_a_tag_chaining_fingerprints():
    p, start, result = optimised()
    assert [(t.pass_name, t.pass_version, t.rollout) for t in p.graph_tags] == [
        ("cse", 1, "enabled"), ("dce", 1, "enabled")]
    assert p.graph_tags[0].before == start == result.fingerprint
    assert p.graph_tags[0].after == p.graph_tags[1].before
    assert p.graph_tags[1].after == program_fingerprint(p)


def test_the_manifest_names_pirc_the_op_versions_and_the_pipeline():
    p, _, _ = optimised()
    m = p.manifest
    default = build_pipeline("default")
    assert (m.pirc_version, m.pir_version, m.op_versions, m.pipeline, m.pipeline_version) == (
        pirc.__version__, 4, digest(), default.text(), default.version)


@pytest.mark.parametrize("form", ["pir", "json"])
def test_tags_and_manifest_survive_text_and_json(form, tmp_path):
    p, _, _ = optimised()
    path = tmp_path / f"p.{'json' if form == 'json' else 'pir'}"
    pirc.save(p, str(path))
    again = pirc.load(str(path))
    assert again.graph_tags == p.graph_tags and again.manifest == p.manifest
    if form == "json":  # where Paddle ignores it: one extra base_code key
        meta = json.loads(path.read_text())["base_code"]["pirc"]
        assert set(meta) == {"graph_tags", "manifest"}


def test_tags_of_three_fields_still_read():
    text = pirc.to_text(parse_text(SMALL.read_text(), "s.pir", 4)).replace(
        "pir.graph_tags []", 'pir.graph_tags [("cse", 1, "enabled")]')
    assert parse_text(text, "old.pir").graph_tags[0].before is None


@pytest.mark.parametrize("header, message", [
    ('pir.graph_tags [("cse", 1, "enabled", "pfp1:00", "pfp1:11")]',
     "a graph tag's fingerprint is pfp1: and 64 hex digits, got 'pfp1:00'"),
    ('pir.graph_tags []\npir.manifest {pirc_version: "0.1.0", pir_version: 4}', "pir.manifest lacks op_versions, pipeline"),
    ('pir.graph_tags []\npir.manifest {pirc: "0.1.0"}', "pir.manifest: unknown field 'pirc'"),
    ('pir.graph_tags []\npir.manifest {pirc_version: 1}', "pir.manifest: pirc_version is a string, got 1"),
])
def test_malformed_headers_are_located_errors(header, message):
    text = pirc.to_text(parse_text(SMALL.read_text(), "s.pir", 4)).replace("pir.graph_tags []", header)
    with pytest.raises(PircError) as e:
        parse_text(text, "bad.pir")
    rendered = e.value.render()
    assert message in rendered and "bad.pir:" in rendered


def test_a_malformed_json_manifest_names_its_path(tmp_path):
    p, _, _ = optimised()
    path = tmp_path / "p.json"
    pirc.save(p, str(path))
    doc = json.loads(path.read_text())
    doc["base_code"]["pirc"]["manifest"]["pir_version"] = "four"
    path.write_text(json.dumps(doc))
    with pytest.raises(PircError) as e:
        pirc.load(str(path))
    assert "base_code.pirc.manifest.pir_version" in e.value.render()


def test_upgrade_is_the_first_pass_and_is_tagged(tmp_path, capsys):
    out, report = tmp_path / "cnn.pir", tmp_path / "report.json"
    assert run([str(CNN_300), "--upgrade", "-p", "default", "-o", str(out), "--pass-report", str(report)]) == 0
    doc = json.loads(report.read_text())
    assert [p["name"] for p in doc["passes"]] == ["upgrade"] + [p.name for p in build_pipeline("default").passes]
    assert doc["passes"][0]["rewrites"] == 3  # the version steps 2, 3 and 4
    assert doc["program"]["name"] == "cnn.3.0.0" and doc["program"]["fingerprint"].startswith("pfp1:")
    assert (doc["program"]["pir_version"], doc["program"]["pir_version_after"]) == (1, 4)
    program = pirc.load(str(out))
    assert program.version == 4 and program.graph_tags[0].pass_name == "upgrade"
    assert program.manifest.pipeline.startswith("upgrade{target-version=-1")


def test_a_program_from_another_pirc_is_optimised_conservatively_and_says_so(tmp_path, capsys):
    p, _, _ = optimised()
    text = pirc.to_text(p).replace(f'pirc_version: "{pirc.__version__}"', 'pirc_version: "0.0.9"')
    src = tmp_path / "other.pir"
    src.write_text(text)
    assert run([str(src), "-p", "default", "--pass-stats", "-o", str(tmp_path / "o.pir")]) == 0
    err = capsys.readouterr().err
    assert "conservative mode: the program was optimised by pirc 0.0.9, this is pirc 0.1.0" in err
