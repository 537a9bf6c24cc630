"""Op-definition diffs, patch drafts and `pirc-patch check` (pirc.versioning.defdiff,
patch_draft, defcheck; pirc/cli/patch_defs.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

import yaml

from pirc.ir import specs
from pirc.ir.specs import AttrSpec, OperandSpec, OpSpec, ResultSpec
from pirc.cli.patch import run as pirc_patch
from pirc.versioning import defcheck
from pirc.versioning.defdiff import diff_op, diff_versions
from pirc.versioning.patch_draft import draft_patch
from pirc.versioning.patch_sets import load_patch_set
from pirc.versioning.schema import load_patch_file

ROOT = Path(__file__).resolve().parents[2]


def _spec(operands=(), attributes=(), results=("out",)):
    return OpSpec(
        name="pd_op.t", dialect="pd_op", since=1,
        operands=tuple(o if isinstance(o, OperandSpec) else OperandSpec(o, "tensor")
                       for o in operands),
        attributes=tuple(attributes),
        results=tuple(ResultSpec(r, "tensor") for r in results))


def _kinds(changes):
    return [(c.kind, c.subject, c.index) for c in changes]


# -- diff_op ----------------------------------------------------------------------------------


def test_attribute_changes_and_what_breaks():
    old = _spec(["x"], [AttrSpec("a", "float"), AttrSpec("gone", "int32"),
                        AttrSpec("same", "bool", default=True, has_default=True)])
    new = _spec(["x"], [AttrSpec("a", "double"), AttrSpec("same", "bool", default=False,
                                                        has_default=True),
                        AttrSpec("req", "int64", default=-1, has_default=True),
                        AttrSpec("opt", "str", optional=True)])
    changes = diff_op("pd_op.t", old, new)
    assert _kinds(changes) == [("attr_removed", "gone", None), ("attr_retyped", "a", None),
                               ("attr_added", "req", None), ("attr_added_optional", "opt", None)]
    assert [c.breaking for c in changes] == [True, True, True, False]
    # A changed default is not a change of the format: programs store the value.
    assert not any(c.subject == "same" for c in changes)


def test_operands_align_by_name_and_renames_are_not_breaking():
    old = _spec(["x", "bias", "residual", "w"])
    new = _spec(["x", "scale", "w", OperandSpec("extra", "tensor", optional=True)])
    changes = diff_op("pd_op.t", old, new)
    assert _kinds(changes) == [("operand_renamed", "scale", 1), ("operand_removed", "residual", 2),
                               ("operand_added", "extra", 3)]
    assert [c.breaking for c in changes] == [False, True, True]


def test_operand_optionality_and_result_changes():
    old = _spec([OperandSpec("x", "tensor"), OperandSpec("y", "tensor", optional=True)],
                results=("out",))
    new = _spec([OperandSpec("x", "tensor", optional=True), OperandSpec("y", "tensor")],
                results=("out", "extra"))
    assert _kinds(diff_op("pd_op.t", old, new)) == [
        ("operand_now_optional", "x", 0), ("operand_now_required", "y", 1),
        ("result_added", "extra", 1)]


def test_same_definition_and_added_or_removed_ops():
    spec = _spec(["x"])
    assert diff_op("pd_op.t", spec, spec) == []
    assert _kinds(diff_op("pd_op.t", None, spec)) == [("op_added", "", None)]
    assert diff_op("pd_op.t", spec, None)[0].breaking


# -- the real definitions ----------------------------------------------------------------------


def test_real_steps_show_what_paddle_changed():
    step2 = {(c.op, c.subject): c for c in diff_versions(1, 2)}
    assert (step2["pd_op.pool2d", "strides"].old, step2["pd_op.pool2d", "strides"].new) == \
        ("array<int32>", "array<int64>")
    step4 = {(c.op, c.subject): c for c in diff_versions(3, 4)}
    assert step4["pd_op.leaky_relu", "negative_slope"].new == "double"
    # Unchanged through 3.3.1 (FORMAT-NOTES section 5): no porder change is invented.
    assert not any(c.op == "pd_op.p_norm" for s in (2, 3, 4) for c in diff_versions(s - 1, s))


def test_draft_matches_paddles_own_patches_where_paddle_patched():
    """Every action of Paddle's patches 2-4 on an op pirc defines is in the draft (same
    object, same kind), except kthvalue (Paddle ships its version-2 change in patch 3) and
    moe_unpermute.using_ue8m0_scale (not in 3.3.1's definition: pirc's layer deletes it)."""
    for n in (2, 3, 4):
        draft = yaml.safe_load(draft_patch(n - 1, n, diff_versions(n - 1, n)))
        drafted = {(p["op_name"], a["action"], str(a.get("object")))
                   for p in draft["op_patches"] for a in p["actions"]}
        paddle = load_patch_file(ROOT / "patches" / f"{n}.yaml")
        for p in paddle.op_patches:
            if specs.get_spec(p.op_name, n) is None:
                continue  # onednn_op.fused_softplus: no definition in pirc's dialects
            for a in p.actions:
                key = (p.op_name, a.action, str(a.object))
                if key in (("pd_op.kthvalue", "modify_attr", "k"),
                           ("pd_op.moe_unpermute", "add_attr", "using_ue8m0_scale")):
                    assert key not in drafted
                    continue
                assert key in drafted, f"patch {n}: {key} not drafted"


def test_draft_shapes():
    draft = draft_patch(3, 4, diff_versions(3, 4))
    assert "  - op_name : pd_op.leaky_relu\n    actions:\n      - action : modify_attr\n" \
           "        object : negative_slope\n        type : pir::DoubleAttribute\n" in draft
    # A rename found by signature is a modify_name, and the new name is not listed as added.
    assert "  - op_name : pd_op.rms_norm\n    actions:\n      - action : modify_name\n" \
           "        data : pd_op.fused_rms_norm_quant\n" in draft
    assert "#   pd_op.fused_rms_norm_quant\n" not in draft
    assert draft == draft_patch(3, 4, diff_versions(3, 4))
    # Removed operands are deleted highest index first, so each index means the old one.
    old = _spec(["x", "bias", "residual", "norm_weight", "norm_bias"])
    synthetic = draft_patch(1, 2, diff_op("pd_op.t", old, _spec(["x", "bias"])))
    assert synthetic.index("object : 4  # norm_bias") < synthetic.index(
        "object : 3  # norm_weight") < synthetic.index("object : 2  # residual")


def test_draft_is_a_valid_patch(tmp_path):
    for n in (2, 3, 4):
        path = tmp_path / f"{n}.yaml"
        path.write_text(draft_patch(n - 1, n, diff_versions(n - 1, n)))
        assert load_patch_file(path).op_patches  # raises on any validation error


# -- pirc-patch diff / check --------------------------------------------------------------------


def test_cli_diff_text_and_errors(capsys):
    assert pirc_patch(["diff", "1", "2", "--format=text"]) == 0
    out = capsys.readouterr().out
    assert ("pd_op.pool2d: attribute strides: array<int32> -> array<int64>  "
            "[breaking, covered by 2.yaml]") in out
    assert ("pd_op.pool2d_grad: attribute strides: array<int32> -> array<int64>  "
            "[breaking, covered by pirc/2.yaml]") in out
    assert "pd_op.ap_facade: op added  [harmless]" in out
    assert pirc_patch(["diff", "4", "3"]) == 1
    assert "must be an older version than NEW" in capsys.readouterr().err
    assert pirc_patch(["diff", "1", "9"]) == 1
    assert "NEW 9 is not a PIR version" in capsys.readouterr().err


def test_check_passes_on_the_tree(capsys):
    assert pirc_patch(["check"]) == 0
    assert "pirc-patch check: ok" in capsys.readouterr().out


def _patch_copy(tmp_path) -> Path:
    folder = tmp_path / "patches"
    shutil.copytree(ROOT / "patches", folder, ignore=shutil.ignore_patterns("__*", "*.md"))
    return folder


def test_check_fails_on_a_breaking_change_no_patch_covers(tmp_path, capsys):
    folder = _patch_copy(tmp_path)
    text = (folder / "4.yaml").read_text()
    start = text.index("  - op_name : pd_op.leaky_relu\n")
    end = text.index("  - op_name : pd_op.softplus\n")
    (folder / "4.yaml").write_text(text[:start] + text[end:])
    assert pirc_patch(["check", "--patch-dir", str(folder)]) == 1
    err = capsys.readouterr().err
    assert ("error: 3 -> 4: pd_op.leaky_relu: attribute negative_slope: float -> double: "
            "no action of 4.yaml or pirc/4.yaml covers it") in err
    assert "1 problem" in err


def test_check_fails_on_unbumped_definitions_and_changed_fingerprints(tmp_path, capsys):
    folder = _patch_copy(tmp_path)
    (folder / "4.yaml").unlink()
    (folder / "pirc" / "4.yaml").unlink()
    versions = folder / "versions.yaml"
    versions.write_text(versions.read_text().replace("release: 4", "release: 3"))
    assert pirc_patch(["check", "--patch-dir", str(folder)]) == 1
    err = capsys.readouterr().err
    assert "pd_op.leaky_relu: a definition for PIR version 4, but the release is 3" in err
    prints = tmp_path / "released.yaml"
    prints.write_text((ROOT / "dialects" / "released.yaml").read_text().replace(
        "  2: ", "  2: 0000"))
    assert pirc_patch(["check", "--fingerprints", str(prints)]) == 1
    assert "the op definitions of released PIR version 2 changed" in capsys.readouterr().err


def test_unmigratable_entries_must_match_and_be_well_formed(tmp_path, capsys):
    folder = _patch_copy(tmp_path)
    listed = folder / "unmigratable.yaml"
    listed.write_text(listed.read_text() + (
        "\n- ops: [pd_op.matmul]\n  version: 4\n  change: attr_retyped\n  reason: none\n"
        "  advice: none\n"))
    assert pirc_patch(["check", "--patch-dir", str(folder)]) == 1
    err = capsys.readouterr().err
    assert "(attr_retyped on pd_op.matmul) matches no uncovered breaking change: remove it" in err
    listed.write_text("- ops: [pd_op.x]\n  version: 4\n  change: renamed\n  reason: r\n"
                      "  advice: a\n")
    assert pirc_patch(["check", "--patch-dir", str(folder)]) == 1
    assert "unmigratable.yaml:1: error: `change: renamed` matches no breaking change kind" \
        in capsys.readouterr().err


def test_unmigratable_entries_each_cover_something():
    """Every entry of the shipped list is needed (the check's stale rule, directly)."""
    patch_set = load_patch_set(ROOT / "patches")
    findings, table = defcheck.run_check(patch_set, Path("f"), defcheck.load_fingerprints(
        ROOT / "dialects" / "released.yaml"))
    assert findings == []
    assert table.count("paddle") == 28 and table.count("unmigratable") == 20
