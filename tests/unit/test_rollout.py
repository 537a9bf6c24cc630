"""Rollout states (pirc.passes.infra.rollout): each state decides whether a pass runs on a
program, the reason a skipped pass gives, the state a ran pass's graph tag records; the
canary's bucket against an independent computation; the file read again for each program;
the flag over the variable, the kill switch over both; every mistake in a file reported at
its line and column."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from pirc.errors import ErrorList, PircError
from pirc.passes import PipelineError, run_pipeline
from pirc.passes.infra.rollout import bucket
from pirc.passes.infra.rollout_file import RolloutError
from pirc.text.parser import parse_text

SMALL = Path(__file__).resolve().parents[1] / "lit" / "passes" / "Inputs" / "small.pir"


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch):
    monkeypatch.delenv("PIRC_ROLLOUT", raising=False)
    monkeypatch.delenv("PIRC_DISABLE_PASSES", raising=False)


def program():
    return parse_text(SMALL.read_text(), "small.pir", 4)


def rollout_file(tmp_path, text: str, name: str = "rollout.yaml") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def run(path=None, name="small", spec="cse,dce"):
    p = program()
    result = run_pipeline(p, spec, program_name=name, rollout=path)
    return p, result, {r.name: r for r in result.passes}


def independent_bucket(pass_name: str, version: int, fingerprint: str) -> float:
    # the first 8 bytes of the digest as a big-endian integer: the first 16 hex digits
    digest = hashlib.sha256((pass_name + "@" + str(version) + ":" + fingerprint).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def test_no_file_every_pass_is_enabled():
    p, _, records = run()
    assert [(r.ran, r.state) for r in records.values()] == [(True, "enabled"), (True, "enabled")]
    assert [t.rollout for t in p.graph_tags] == ["enabled", "enabled"]


def test_disabled(tmp_path):
    path = rollout_file(tmp_path, "passes:\n  cse: {state: disabled}\n")
    p, _, records = run(path)
    assert (records["cse"].ran, records["cse"].state) == (False, "disabled")
    assert records["cse"].skipped_reason == f"rollout: disabled in {path}"
    assert records["dce"].ran and [t.pass_name for t in p.graph_tags] == ["dce"]


def test_enabled_in_the_file_is_the_default(tmp_path):
    path = rollout_file(tmp_path, "passes: {cse: {state: enabled}}\n")
    _, _, records = run(path)
    assert records["cse"].ran and records["cse"].state == "enabled"


def test_allowlist_by_name_and_by_fingerprint(tmp_path):
    path = rollout_file(tmp_path, "passes:\n  cse: {state: allowlist, programs: [small, other]}\n")
    p, _, records = run(path)
    assert (records["cse"].ran, records["cse"].state) == (True, "allowlist")
    assert p.graph_tags[0].pass_name == "cse" and p.graph_tags[0].rollout == "allowlist"

    _, result, records = run(path, name="elsewhere")
    assert (records["cse"].ran, records["cse"].state) == (False, "allowlist")
    assert records["cse"].skipped_reason == "rollout: allowlist, program elsewhere not listed"

    # by the fingerprint the program had as it entered the pipeline
    path = rollout_file(tmp_path, f'passes:\n  cse: {{state: allowlist, programs: ["{result.fingerprint}"]}}\n')
    _, _, records = run(path, name="elsewhere")
    assert records["cse"].ran and records["cse"].state == "allowlist"


def test_the_bucket_matches_an_independent_computation():
    for name, version, fp in [("cse", 1, "pfp1:" + "0" * 64), ("dce", 3, "pfp1:" + "ab" * 32),
                              ("x", 1, "pfp1:" + "f" * 64)]:
        assert bucket(name, version, fp) == independent_bucket(name, version, fp)
    # a value worked out by hand once: sha256("cse@1:pfp1:000...0")[:16 hex digits]
    fp = "pfp1:" + "0" * 64
    head = hashlib.sha256(f"cse@1:{fp}".encode()).hexdigest()[:16]
    assert bucket("cse", 1, fp) == int(head, 16) / 2**64
    assert 0 <= bucket("cse", 1, fp) < 1


def test_canary_runs_exactly_below_the_fraction(tmp_path):
    _, result, _ = run()
    where = independent_bucket("cse", 1, result.fingerprint)
    inside = rollout_file(tmp_path, f"passes: {{cse: {{state: canary, fraction: {where + 1e-9!r}}}}}\n", "in.yaml")
    p, _, records = run(inside)
    assert (records["cse"].ran, records["cse"].state) == (True, "canary")
    assert p.graph_tags[0].rollout == "canary"
    outside = rollout_file(tmp_path, f"passes: {{cse: {{state: canary, fraction: {where!r}}}}}\n", "out.yaml")
    _, _, records = run(outside)
    assert (records["cse"].ran, records["cse"].state) == (False, "canary")
    assert records["cse"].skipped_reason.startswith(f"rollout: canary {where:g}, program not in it (bucket ")
    for fraction, runs in (("0", False), ("1", True), ("0.0", False), ("1.0", True)):
        path = rollout_file(tmp_path, f"passes: {{cse: {{state: canary, fraction: {fraction}}}}}\n", "f.yaml")
        assert run(path)[2]["cse"].ran is runs


def test_the_canary_reason_names_the_fraction_and_the_bucket(tmp_path):
    _, result, _ = run()
    where = independent_bucket("cse", 1, result.fingerprint)
    fraction = round(where / 2, 3)
    path = rollout_file(tmp_path, f"passes: {{cse: {{state: canary, fraction: {fraction}}}}}\n")
    assert run(path)[2]["cse"].skipped_reason == \
        f"rollout: canary {fraction:g}, program not in it (bucket {where:.2f})"


def test_the_file_is_read_again_for_each_program(tmp_path, monkeypatch):
    path = tmp_path / "rollout.yaml"
    path.write_text("passes: {cse: {state: disabled}}\n")
    assert not run(str(path))[2]["cse"].ran
    path.write_text("passes: {cse: {state: enabled}}\n")  # the same process, the next program
    assert run(str(path))[2]["cse"].ran
    monkeypatch.setenv("PIRC_ROLLOUT", str(path))         # the variable, read as late
    path.write_text("passes: {dce: {state: disabled}}\n")
    records = run()[2]
    assert records["cse"].ran and not records["dce"].ran
    monkeypatch.delenv("PIRC_ROLLOUT")
    assert run()[2]["dce"].ran


def test_the_flag_wins_over_the_variable(tmp_path, monkeypatch):
    monkeypatch.setenv("PIRC_ROLLOUT", rollout_file(tmp_path, "passes: {cse: {state: disabled}}\n", "env.yaml"))
    assert run()[2]["cse"].skipped_reason.startswith("rollout: disabled in ")
    flag = rollout_file(tmp_path, "passes: {dce: {state: disabled}}\n", "flag.yaml")
    records = run(flag)[2]
    assert records["cse"].ran and not records["dce"].ran


def test_the_kill_switch_overrides_the_file(tmp_path, monkeypatch):
    path = rollout_file(tmp_path, "passes:\n  cse: {state: allowlist, programs: [small]}\n  dce: {state: canary, fraction: 1}\n")
    monkeypatch.setenv("PIRC_DISABLE_PASSES", "dce")
    records = run(path)[2]
    assert records["cse"].ran
    assert (records["dce"].ran, records["dce"].state, records["dce"].skipped_reason) == \
        (False, "disabled", "rollout: disabled by PIRC_DISABLE_PASSES")


def test_correctness_passes_are_never_disabled(tmp_path, monkeypatch):
    monkeypatch.setenv("PIRC_DISABLE_PASSES", "all")
    records = run(spec="upgrade,cse")[2]
    assert records["upgrade"].ran and not records["cse"].ran
    monkeypatch.setenv("PIRC_DISABLE_PASSES", "upgrade")
    with pytest.raises(PipelineError, match="'upgrade' is needed for a correct program and is never disabled"):
        run()
    monkeypatch.delenv("PIRC_DISABLE_PASSES")
    path = rollout_file(tmp_path, "passes:\n  upgrade: {state: disabled}\n")
    with pytest.raises(RolloutError) as e:
        run(path)
    assert e.value.render() == (f"{path}:2:3: error: 'upgrade' is needed for a correct program: its "
                                "state is always enabled (remove it from the rollout file)")


def test_unknown_pass_names_list_the_valid_ones_closest_first(tmp_path, monkeypatch):
    path = rollout_file(tmp_path, "passes:\n  dec: {state: disabled}\n")
    with pytest.raises(RolloutError) as e:
        run(path)
    text = e.value.render()
    assert text.startswith(f"{path}:2:3: error: unknown pass 'dec' (did you mean 'dce'?); "
                           "the passes a rollout sets: dce, ")
    assert "cse" in text and "upgrade" not in text
    monkeypatch.setenv("PIRC_DISABLE_PASSES", "csee")
    with pytest.raises(PipelineError) as e:
        run()
    assert str(e.value).startswith("PIRC_DISABLE_PASSES: unknown pass 'csee' (did you mean 'cse'?); "
                                   "the passes it can disable: cse, ")
    assert str(e.value).endswith(", or all")


MALFORMED = [
    ("passes:\n  cse: {state: canery}\n", "2:16", "pass `cse`: `state` must be one of disabled, allowlist, canary, enabled, got `canery`"),
    ("passes:\n  cse: {state: canary}\n", "2:8", "pass `cse`: state canary needs `fraction` (a number from 0 to 1)"),
    ("passes:\n  cse: {state: canary, fraction: 1.5}\n", "2:34", "pass `cse`: `fraction` must be a number from 0 to 1, got `1.5`"),
    ("passes:\n  cse: {state: canary, fraction: lots}\n", "2:34", "`fraction` must be a number from 0 to 1, got `lots`"),
    ("passes:\n  cse: {state: allowlist}\n", "2:8", "pass `cse`: state allowlist needs `programs` (a list of program names or fingerprints)"),
    ("passes:\n  cse: {state: allowlist, programs: small}\n", "2:37", "pass `cse`: `programs` must be a list (`- ...` items), got `small`"),
    ("passes:\n  cse: {state: allowlist, programs: [[a]]}\n", "2:38", "each of `programs` is a program name (its file's stem) or a pfp1: fingerprint, got a list"),
    ("passes:\n  cse: {state: disabled, fraction: 0.5}\n", "2:26", "pass `cse`: state disabled takes no other key, not `fraction`"),
    ("passes:\n  cse: {fraction: 0.5}\n", "2:8", "pass `cse`: expected `state: disabled | allowlist | canary | enabled`"),
    ("passes:\n  cse: disabled\n", "2:8", "pass `cse`'s entry (`{state: ...}`) must be a mapping (`key: value` lines), got `disabled`"),
    ("passes:\n  cse: {state: disabled}\n  cse: {state: enabled}\n", "3:3", "key `cse` appears twice (first at line 2)"),
    ("pases:\n  cse: {state: disabled}\n", "1:1", "unknown key `pases` in a rollout file (expected `passes`)"),
    ("- cse\n", "1:1", "a rollout file must be a mapping (`key: value` lines), got a list"),
    ("", "1", "empty rollout file: expected `passes: {NAME: {state: ...}}`"),
    ("passes: {cse: {state: canary\n", "2:1", "invalid YAML: did not find expected ',' or '}'"),
    ("passes:\n\tcse: {state: disabled}\n", "2:1", "invalid YAML: found character that cannot start any token"),
]


@pytest.mark.parametrize("text,where,message", MALFORMED, ids=[m[2][:40] for m in MALFORMED])
def test_a_malformed_file_is_an_error_at_its_line_and_column(tmp_path, text, where, message):
    path = rollout_file(tmp_path, text)
    with pytest.raises(PircError) as e:
        run(path)
    rendered = e.value.render()
    assert rendered.startswith(f"{path}:{where}: error: "), rendered
    assert message in rendered, rendered


def test_every_mistake_of_a_file_is_reported_at_once(tmp_path):
    path = rollout_file(tmp_path, "passes:\n  cse: {state: canery}\n  dce: {state: canary, fraction: 2}\n")
    with pytest.raises(ErrorList) as e:
        run(path)
    assert [(err.line, err.column) for err in e.value.errors] == [(2, 16), (3, 34)]


def test_a_missing_file_says_who_named_it(tmp_path, monkeypatch):
    missing = str(tmp_path / "nope.yaml")
    with pytest.raises(RolloutError) as e:
        run(missing)
    assert e.value.render() == f"{missing}: error: the rollout file --rollout names does not exist"
    monkeypatch.setenv("PIRC_ROLLOUT", missing)
    with pytest.raises(RolloutError) as e:
        run()
    assert e.value.render() == f"{missing}: error: the rollout file PIRC_ROLLOUT names does not exist"


def test_the_top_level_api_takes_the_name_and_the_file(tmp_path):
    import pirc

    path = rollout_file(tmp_path, "passes: {cse: {state: allowlist, programs: [small]}}\n")
    assert pirc.run_pipeline(program(), "cse,dce", program_name="small", rollout=path).passes[0].ran
    assert not pirc.run_pipeline(program(), "cse,dce", program_name="big", rollout=path).passes[0].ran
