"""pirc migrates real old programs across the breaking op changes of Paddle 3.0.0 -> 3.3.1
(issue 5, item 4).  No Paddle needed: the fixtures in tests/fixtures/migrations were saved by
Paddle 3.0.0 (or written by hand as it would, see manifest.json) with the outputs 3.0.0
computed, by tools/paddle_oracle/gen_migration_fixtures.py; whether Paddle 3.3.1 runs the
upgraded files is tools/paddle_oracle/check_migrations.py (RESULTS.md).

Per case of the manifest:
* the upgrade: pirc upgrades the file to version 4, the result verifies there, and each op
  under test has its 3.3.1 name, the 3.3.1 attribute kinds (values kept; added attributes at
  their release default), operand count, inserted operands (null or the wired value) and
  moved attributes (an operand made by pd_op.full with the old value);
* pirc-run: pirc's torch lowering of the upgraded program gives 3.0.0's outputs (float32 bar).
* real Paddle 3.3.1 ran what pirc writes now: results.json (check_migrations.py) holds the
  sha256 of each upgraded file it ran, and a change of pirc's output asks for a rerun.
A case whose pirc patch is `pending` in the manifest, or whose `pirc_run` gives a reason,
is a strict xfail: it flips to a failure when the patch or the lowering lands.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import pirc
from pirc.errors import LoweringError
from pirc.paddle_json.equality import documents_equal
from pirc.testing.parity import compare_output

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "tests" / "fixtures" / "migrations"
MANIFEST = json.loads((FIX / "manifest.json").read_text())
CASES = MANIFEST["cases"]
CLASSES = {"op_renamed", "attr_retyped", "attr_added", "operand_inserted", "attr_moved"}


def _ops(doc):
    return doc["program"]["regions"][0]["blocks"][0]["ops"]


def _json_name(op):
    """pd_op.x -> 1.x (the dialect ids of FORMAT-NOTES 4.3)."""
    assert op.startswith("pd_op."), op
    return "1." + op[len("pd_op."):]


def _results(op):
    return op["O"] if isinstance(op["O"], list) else [op["O"]]


def _kind_ok(at, kind):
    if kind == "scalar":
        return True
    if kind.startswith("0.a_array<"):
        inner = kind[len("0.a_array<"):-1]
        return at["#"] == "0.a_array" and all(_kind_ok(x, inner) for x in at["D"])
    return at["#"] == kind


def _kind_str(at):
    if at["#"] == "0.a_array":
        inner = sorted({_kind_str(x) for x in at["D"]})
        return "0.a_array<" + "|".join(inner) + ">"
    return at["#"]


def _value(at):
    if at["#"] == "0.a_array":
        return [_value(x) for x in at["D"]]
    return at.get("D", at.get("VD"))


def expectation_problems(doc, source, entry, check_version=True):
    """Every way `doc` (an upgraded program) misses what the manifest expects; [] = all met."""
    exp = entry["expect"]
    problems = []
    if check_version and doc["base_code"]["version"] != 4:
        problems.append(f"base_code.version is {doc['base_code']['version']}, not 4")
    old_name, new_name = _json_name(entry["op"]), _json_name(exp["op"])
    src_ops = [o for o in _ops(source) if o["#"] == old_name]
    new_ops = [o for o in _ops(doc) if o["#"] == new_name]
    if not src_ops:
        return [f"the source program has no {entry['op']}"]
    if len(new_ops) != len(src_ops):
        problems.append(f"{len(src_ops)} {entry['op']} in the source, {len(new_ops)} "
                        f"{exp['op']} after the upgrade")
    if old_name != new_name and any(o["#"] == old_name for o in _ops(doc)):
        problems.append(f"{entry['op']} is still there (renamed to {exp['op']} at version 4)")
    producers = {r["%"]: (k, o) for k, o in enumerate(_ops(doc)) for r in _results(o) if r["%"]}
    for n, (src, op) in enumerate(zip(src_ops, new_ops)):
        where = f"{exp['op']} #{n}"
        attrs = {a["N"]: a["AT"] for a in op["A"]}
        src_attrs = {a["N"]: a["AT"] for a in src["A"]}
        for name, kind in exp["attrs"].items():
            if name not in attrs:
                problems.append(f"{where}: attribute {name} missing")
            elif not _kind_ok(attrs[name], kind):
                problems.append(f"{where}: attribute {name} is {_kind_str(attrs[name])}, "
                                f"want {kind}")
        for name in attrs:
            if name not in exp["attrs"]:
                problems.append(f"{where}: attribute {name} is not in the 3.3.1 definition")
        for name in exp.get("retyped_attrs", []):
            if name in attrs and name in src_attrs and _value(attrs[name]) != _value(src_attrs[name]):
                problems.append(f"{where}: {name} changed value: {_value(src_attrs[name])} -> "
                                f"{_value(attrs[name])}")
        for name, default in exp.get("added_attrs", {}).items():
            if name in attrs and default is not None and _value(attrs[name]) != json.loads(default):
                problems.append(f"{where}: added {name} = {_value(attrs[name])}, want the "
                                f"release default {default}")
        if len(op["I"]) != exp["operands"]:
            problems.append(f"{where}: {len(op['I'])} operands, want {exp['operands']}")
            continue
        me = next(k for k, o in enumerate(_ops(doc)) if o is op)
        for i, what in exp.get("inserted_operands", {}).items():
            vid = op["I"][int(i)]["%"]
            if what == "null" and vid != 0:
                problems.append(f"{where}: inserted operand {i} should be a null value")
            if what == "value" and (vid == 0 or producers.get(vid, (me,))[0] >= me):
                problems.append(f"{where}: inserted operand {i} should be a value defined "
                                f"before the op, is {vid}")
        for name, i in exp.get("moved_attrs", {}).items():
            vid = op["I"][i]["%"]
            if vid == 0 or vid not in producers:
                problems.append(f"{where}: operand {i} ({name}) is not a defined value")
                continue
            k, prod = producers[vid]
            full = {a["N"]: a["AT"] for a in prod["A"]} if prod["#"] == "1.full" else {}
            if k >= me or "value" not in full or name not in src_attrs or \
                    _value(full["value"]) != _value(src_attrs[name]):
                problems.append(f"{where}: operand {i} ({name}) should come from a pd_op.full "
                                f"holding the old attribute value {_value(src_attrs.get(name, {}))}")
        if len(_results(op)) != exp["results"]:
            problems.append(f"{where}: {len(_results(op))} results, want {exp['results']}")
    return problems


def _source(entry):
    return FIX / entry["files"]["json"]


def _upgraded(entry):
    program = pirc.load(str(_source(entry)))
    pirc.upgrade(program)
    return program


def _pending(entry, what, raises=None):
    return pytest.mark.xfail(strict=True, reason=f"{entry['case']}: {what}", raises=raises)


def _upgrade_params():
    out = []
    for e in CASES:
        marks = [_pending(e, "pirc's patch is pending (manifest pirc_patch)")] \
            if e["pirc_patch"] != "shipped" else []
        out.append(pytest.param(e, id=e["case"], marks=marks))
    return out


def _run_params():
    out = []
    for e in CASES:
        if not e["files"].get("io") or not e["runs_on_cpu"]:
            continue
        marks = []
        if e["pirc_patch"] != "shipped":
            marks = [_pending(e, "pirc's patch is pending (manifest pirc_patch)")]
        elif e["pirc_run"] != "expected":
            # only "this op cannot be lowered" counts as the expected failure
            marks = [_pending(e, e["pirc_run"], raises=LoweringError)]
        out.append(pytest.param(e, id=e["case"], marks=marks))
    return out


def test_the_fixtures_cover_every_class_and_variant():
    seen = {(e["class"], e["variant"]) for e in CASES}
    assert {c for c, _ in seen} == CLASSES
    assert {v for _, v in seen} == {"forward", "grad", "inplace"}
    for cls in CLASSES:                        # every class has a backward-op case
        assert (cls, "grad") in seen, cls
    # inplace variants exist only for the retyped ops (manifest lists the missing ones)
    assert ("attr_retyped", "inplace") in seen
    assert "pd_op.rms_norm_" in MANIFEST["inplace_variants_that_do_not_exist"]
    for e in CASES:
        assert _source(e).is_file(), e["case"]
        assert e["changes"], e["case"]
        if e["files"].get("io"):
            assert (FIX / e["files"]["io"]).is_file(), e["case"]


@pytest.mark.parametrize("entry", CASES, ids=[e["case"] for e in CASES])
def test_the_source_file_verifies_at_its_own_version(entry):
    program = pirc.load(str(_source(entry)))
    assert program.version == entry["source_version"]
    pirc.verify(program)


@pytest.mark.parametrize("entry", CASES, ids=[e["case"] for e in CASES])
def test_the_checks_see_the_unmigrated_op(entry):
    """The expectations are not vacuous: the source program itself misses them."""
    source = json.loads(_source(entry).read_text())
    assert expectation_problems(source, source, entry, check_version=False)


@pytest.mark.parametrize("entry", _upgrade_params())
def test_upgrade_gives_the_3_3_1_op(entry):
    program = _upgraded(entry)
    assert program.version == 4
    pirc.verify(program)
    doc = json.loads(pirc.to_text(program, "json"))
    problems = expectation_problems(doc, json.loads(_source(entry).read_text()), entry)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("name", ["rms_norm", "instance_norm_grad", "flash_attn_v3_varlen"])
def test_pirc_opt_upgrade_writes_the_same_program(name, tmp_path):
    entry = next(e for e in CASES if e["case"] == name)
    if entry["pirc_patch"] != "shipped":
        pytest.xfail(f"{name}: pirc's patch is pending")
    out = tmp_path / "up.json"
    run = subprocess.run([sys.executable, "-m", "pirc", str(_source(entry)), "--upgrade",
                          "-o", str(out)], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert documents_equal(pirc.to_text(_upgraded(entry), "json"), out.read_text()) == []


@pytest.mark.parametrize("entry", _run_params())
def test_pirc_run_of_the_upgraded_program_gives_3_0_0s_outputs(entry):
    io = np.load(FIX / entry["files"]["io"])
    inputs = {k[len("in__"):]: io[k] for k in io.files if k.startswith("in__")}
    want = [io[f"out__{i}"] for i in range(sum(k.startswith("out__") for k in io.files))]
    assert want, "the fixture has no outputs"
    params = _source(entry).with_suffix(".pdiparams")
    got = pirc.run(_upgraded(entry), inputs, params=str(params) if params.exists() else None)
    assert len(got) == len(want)
    bad = [str(r) for r in (compare_output(i, n, g, w)
                            for i, ((n, g), w) in enumerate(zip(got.items(), want))) if not r.ok]
    assert not bad, "\n".join(bad)


RESULTS = FIX / "results.json"


def _checked():
    if not RESULTS.exists():
        return {}
    return {r["case"]: r for r in json.loads(RESULTS.read_text())["results"]}


@pytest.mark.parametrize("entry", _upgrade_params())
def test_paddle_3_3_1_ran_what_pirc_writes_now(entry):
    """RESULTS.md is about the upgrade pirc does today (rerun check_migrations.py if not)."""
    checked = _checked().get(entry["case"])
    assert checked is not None, "case missing from results.json: rerun check_migrations.py"
    assert checked["pirc_upgrade"]["ok"], checked["pirc_upgrade"].get("error")
    written = pirc.to_text(_upgraded(entry), "json")
    assert hashlib.sha256(written.encode()).hexdigest() == checked["pirc_upgrade"]["sha256"], (
        "pirc's upgrade of this file changed since tools/paddle_oracle/check_migrations.py "
        "ran it in Paddle 3.3.1: rerun it")
    # and what Paddle 3.3.1 made of it: the 3.0.0 outputs wherever the op runs on a CPU
    verdict = checked["with_pirc"]["verdict"]
    if entry["runs_on_cpu"]:
        assert verdict in ("BITEXACT", "CLOSE"), verdict
    else:
        assert not verdict.startswith(("CRASH", "LOAD_FAIL", "WRONG", "MISMATCH")), verdict
