"""Patch YAML that once crashed pirc (tests/fixtures/fuzz_crashes/yaml): a recursive anchor,
`add_value` data holding lists or nulls, a 5,000-digit integer.  Each now gets one clean
`FILE:LINE: error:` from `pirc-patch validate` and from `pirc-opt --upgrade --patch-dir`."""

from __future__ import annotations

import pathlib
import shutil
import subprocess
import sys

import pytest

FIXTURES = pathlib.Path(__file__).resolve().parent.parent / "fixtures" / "fuzz_crashes"
SEEDS = sorted((FIXTURES / "yaml").glob("*.yaml"))
PROGRAM = FIXTURES / "json" / "11-Finding-upgrade-output-fails-verifier.json"  # a version-1 program

EXPECTED = {
    "00": (4, "a recursive anchor: the value anchored here contains an alias to itself"),
    "01": (8, "delete_value: `object` must be two indices"),
    "02": (12, "add_value: `data` does not fit pir::DenseTensorType: dtype `[None]` is not an element type"),
    "03": (5, "input exceeds the integer literal limit of 400 digits (4400 digits)"),
}


def run(*args):
    return subprocess.run([sys.executable, "-m", *map(str, args)], capture_output=True, text=True)


@pytest.mark.parametrize("path", SEEDS, ids=lambda p: p.name[:2])
def test_patch_validate_gives_a_located_error(path):
    line, message = EXPECTED[path.name[:2]]
    done = run("pirc.cli.patch", "validate", path)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith(f"{path}:{line}: error: ")
    assert message in done.stderr.splitlines()[0]


@pytest.mark.parametrize("path", SEEDS, ids=lambda p: p.name[:2])
def test_upgrade_with_the_patch_gives_a_located_error(path, tmp_path):
    line, message = EXPECTED[path.name[:2]]
    patches = tmp_path / "patches"
    patches.mkdir()
    shutil.copy(path, patches / "2.yaml")
    done = run("pirc", PROGRAM, "--upgrade", f"--patch-dir={patches}", "--emit=pir")
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    first = done.stderr.splitlines()[0]
    assert first.startswith(f"{patches / '2.yaml'}:{line}: error: ") and message in first


def test_nesting_limit_applies_to_patch_yaml(tmp_path, monkeypatch):
    monkeypatch.setenv("PIRC_MAX_NESTING", "6")
    path = tmp_path / "2.yaml"
    path.write_text("op_patches:\n  - op_name: pd_op.relu\n    actions:\n"
                    "      - action: add_attr\n        object: x\n        type: pir::Int32Attribute\n"
                    "        data: [[[[[1]]]]]\n")
    done = run("pirc.cli.patch", "validate", path)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert f"{path}:7: error: input exceeds the nesting depth limit of 6 levels" in done.stderr


def test_nesting_through_aliases_counts_at_each_use(tmp_path, monkeypatch):
    # an anchor 3 levels deep (fine where it is defined), used at level 9 of an action's data:
    # 11 levels in the value pirc would build
    monkeypatch.setenv("PIRC_MAX_NESTING", "10")
    path = tmp_path / "2.yaml"
    path.write_text("x: &deep [[[1]]]\nop_patches:\n  - op_name: pd_op.relu\n    actions:\n"
                    "      - action: add_attr\n        object: x\n        type: pir::Int32Attribute\n"
                    "        data: [[[*deep]]]\n")
    done = run("pirc.cli.patch", "validate", path)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert f"{path}:1: error: input exceeds the nesting depth limit of 10 levels (11 levels)" \
        in done.stderr


def test_aliases_count_every_node_they_expand_to(tmp_path, monkeypatch):
    # "Billion laughs": each line repeats the one before ten times.  The nodes pirc would build
    # are counted once per use of an alias, so three short lines are 1,111 nodes.
    monkeypatch.setenv("PIRC_MAX_YAML_NODES", "1000")
    path = tmp_path / "2.yaml"
    path.write_text("op_patches:\n  - op_name: pd_op.relu\n    actions:\n"
                    "      - action: add_attr\n        object: x\n        type: pir::Int32Attribute\n"
                    "        data:\n"
                    "          - &a [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n"
                    "          - &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
                    "          - [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n")
    done = run("pirc.cli.patch", "validate", path)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "error: input exceeds the patch size limit (YAML nodes, aliases expanded) of 1000 nodes" \
        in done.stderr and "PIRC_MAX_YAML_NODES=N" in done.stderr
    monkeypatch.setenv("PIRC_MAX_YAML_NODES", "2000")
    assert "patch size limit" not in run("pirc.cli.patch", "validate", path).stderr
