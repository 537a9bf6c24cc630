"""Patch files: the shipped patches, Paddle's own patches, strict validation, and what
the schema's values build (pirc.versioning.schema, paddle_kinds, policy, pirc-patch)."""

from __future__ import annotations

import math
import sys
import types
from pathlib import Path

import pytest
import yaml

from pirc.errors import ErrorList, PatchError
from pirc.ir import attrs as A
from pirc.ir import program
from pirc.ir import types as T
from pirc.versioning import model, paddle_kinds as K, policy
from pirc.versioning.actions import registry
from pirc.versioning.patch_sets import check_patch_set, load_patch_set
from pirc.versioning.schema import (
    UNKNOWN_VERSION,
    load_patch_file,
    parse_patch_text,
    version_before,
)

ROOT = Path(__file__).resolve().parents[2]
PATCHES = ROOT / "patches"
PADDLE_PATCHES = ROOT / "tests" / "fixtures" / "paddle_patches"
WHEEL = ROOT / "tests" / "fixtures" / "corpus" / "patches-in-3.3.1-wheel"


def parse(text: str, version: int = UNKNOWN_VERSION, release: int | None = None):
    return parse_patch_text(text, "p.yaml", version, release)


def errors_of(text: str, version: int = UNKNOWN_VERSION) -> list[str]:
    return [e.render() for e in parse(text, version)[1]]


def one_action(text: str, version: int = UNKNOWN_VERSION) -> model.Action:
    patch, errors = parse(text, version)
    assert not errors, [e.render() for e in errors]
    entries = patch.op_patches or patch.op_pair_patches or patch.attr_patches or patch.type_patches
    return entries[0].actions[0]


# -- the shipped patches and the version policy ---------------------------------------------


@pytest.mark.parametrize("n, wheel", [(2, "string1.yaml"), (3, "string2.yaml"), (4, "string3.yaml")])
def test_shipped_patches_are_the_3_3_1_wheels_byte_for_byte(n, wheel):
    assert (PATCHES / f"{n}.yaml").read_bytes() == (WHEEL / wheel).read_bytes()


def test_patch_1_is_empty_like_paddles():
    assert (PATCHES / "1.yaml").read_bytes() == b""
    assert load_patch_set().files[1].is_empty()


def test_shipped_set_matches_the_policy_and_every_op_of_the_yaml():
    patch_set = load_patch_set()
    assert (patch_set.release_version, patch_set.develop) == (4, False)
    assert sorted(patch_set.files) == [1, 2, 3, 4]
    for n in (2, 3, 4):
        raw = yaml.safe_load((PATCHES / f"{n}.yaml").read_text())
        got = patch_set.base_files[n]  # Paddle's file, before pirc's layer is merged
        assert got.version == n
        assert [p.op_name for p in got.op_patches] == [p["op_name"] for p in raw["op_patches"]]
        assert [[a.action for a in p.actions] for p in got.op_patches] == \
            [[a["action"] for a in p["actions"]] for p in raw["op_patches"]]
        assert [[a.object for a in p.actions] for p in got.op_patches] == \
            [[a["object"] for a in p["actions"]] for p in raw["op_patches"]]


def test_program_versions_come_from_the_policy_file():
    raw = yaml.safe_load((PATCHES / "versions.yaml").read_text())
    assert policy.RELEASE_VERSION == raw["release"] == program.LATEST_VERSION
    assert policy.DEVELOP is raw["develop"]
    assert program.KNOWN_VERSIONS == policy.KNOWN_VERSIONS == tuple(range(1, raw["release"] + 1))
    assert policy.BUILD_VERSION == (0 if raw["develop"] else raw["release"])
    assert policy.patches_dir() == PATCHES


def test_develop_policy_writes_version_zero(tmp_path):
    (tmp_path / "versions.yaml").write_text("release: 4\ndevelop: true\n")
    read = policy.read_versions_file(tmp_path / "versions.yaml")
    assert (read.release, read.develop, read.build_version, read.known_versions) == (4, True, 0, (1, 2, 3, 4))


def test_bad_policy_names_file_line_and_key(tmp_path):
    path = tmp_path / "versions.yaml"
    path.write_text("release: 0\ndevelop: maybe\nreleese: 4\n")
    with pytest.raises(ErrorList) as e:
        policy.read_versions_file(path)
    assert [x.render() for x in e.value.errors] == [
        f"{path}:1: error: `release` must be a PIR version (an integer >= 1), got `0`",
        f"{path}:2: error: `develop` must be true or false, got `maybe`",
        f"{path}:3: error: unknown key `releese` in the version policy (allowed: release, develop, paddle)",
    ]


def test_version_before():
    assert [version_before(n, 4) for n in (0, 1, 2, 3, 4)] == [4, 1, 1, 2, 3]


# -- Paddle's own patches as fixtures --------------------------------------------------------

# Every stored version of Paddle's patch files validates, except these, for these reasons.
KNOWN_INVALID = {
    "prod-rootdir-0.29af85e3.yaml": ":31:14: error: invalid YAML: mapping values are not allowed",
    "prod-src-patch.yaml": ":23: error: unknown top-level key `attr_pathes` (did you mean `attr_patches`?)",
    "test-0.67ace3c9.yaml": ":24: error: unknown top-level key `dialect_patches`",
}
# The step each production file made (prod-0 was the develop patch while 3 was released).
STEPS = {"prod-0.b34bd599.yaml": (0, 1), "prod-0.yaml": (0, 3), "prod-rootdir-0.7f49293c.yaml": (0, 3),
         "prod-2.yaml": (2, 4), "prod-2.d43b7730.yaml": (2, 4), "prod-3.yaml": (3, 4),
         "prod-3.a9560824.yaml": (3, 4), "prod-4.yaml": (4, 4), "prod-4.0370ca91.yaml": (4, 4),
         "test-0.yaml": (0, 1), "test-1.yaml": (1, 1), "test-1.2c8abd87.yaml": (1, 1)}


@pytest.mark.parametrize("path", sorted(PADDLE_PATCHES.glob("*.yaml")), ids=lambda p: p.name)
def test_paddle_patch_fixture(path):
    version, release = STEPS.get(path.name, (None, None))
    if path.name in KNOWN_INVALID:
        with pytest.raises(ErrorList) as e:
            load_patch_file(path)
        assert len(e.value.errors) == 1
        assert KNOWN_INVALID[path.name] in e.value.errors[0].render()
        return
    assert not load_patch_file(path).is_empty()
    if version is not None:  # also checked against the op specs of the version it upgrades from
        load_patch_file(path, version, release)


def test_paddle_test_folder_policy_is_inferred_as_paddle_did():
    patch_set = load_patch_set(PADDLE_PATCHES / "test")
    assert (patch_set.release_version, patch_set.develop, sorted(patch_set.files)) == (1, True, [0, 1])
    pairs = patch_set.files[0].op_pair_patches
    assert [(p.producer, p.consumer) for p in pairs] == [
        ("pd_op.full", "pd_op.scale"), ("test1.operation4", "test1.operation3"),
        ("test1.operation1", "test1.operation2")]
    add = pairs[2].actions[0]
    # object = [producer result index, consumer operand index]: the code's meaning.
    assert (add.action, add.object, add.type_name) == ("add_value", (1, 0), "pir::DenseTensorType")
    assert add.type_data == ("pir::Int32Type", (1,), "NCHW", (), 0)
    one = patch_set.files[1]
    assert one.attr_patches[0].attr_type == "pir::FloatAttribute"
    assert one.attr_patches[0].actions[0].new_name == "pir::DoubleAttribute"
    assert one.type_patches[0].actions[0].new_name == "pir::Float64Type"
    rename = next(p for p in one.op_patches if p.op_name == "test.operation1").actions[-1]
    assert (rename.action, rename.new_name) == ("modify_name", "test1.operation1")


# -- the schema ----------------------------------------------------------------------------------


# Paddle's vocabulary (notes/paddle-pir-source.md) and pirc's extensions, in the order the
# schema's messages list them.
ACCEPTED = {
    "op_patches": ("add_attr", "modify_attr", "delete_attr", "add_output_attr", "modify_output_attr",
                   "delete_output_attr", "modify_attr_name", "modify_output_attr_name", "add_output",
                   "delete_input", "modify_output_type", "modify_name", "add_null_input",
                   "attr_to_input"),
    "op_pair_patches": ("add_value", "delete_value"),
    "attr_patches": ("modify_name",),
    "type_patches": ("modify_name", "add_type_attr", "delete_type_attr"),
}
REFUSED_ACTIONS = {("op_patches", "add_input"), ("op_patches", "delete_output"),
                   ("attr_patches", "delete_attr"), ("type_patches", "delete_type")}


def test_the_registry_holds_each_action_once_in_listing_order():
    for section, names in ACCEPTED.items():
        assert tuple(registry.accepted(section)) == names
        for name in names:
            act = registry.lookup(section, name)
            assert (act.section, act.name, act.refused) == (section, name, None)
    assert set(registry.refused()) == REFUSED_ACTIONS
    assert all(reason.endswith(("together", "modify_name", "delete_attr"))
               for reason in registry.refused().values())


def test_every_accepted_action_compiles_and_explains_itself():
    base = registry.PatchAction
    for section, names in ACCEPTED.items():
        for name in names:
            cls = type(registry.lookup(section, name))
            assert cls.compile is not base.compile, (section, name)
            assert cls.explain is not base.explain, (section, name)
            assert cls.__doc__ or cls.__mro__[1].__doc__, (section, name)


def test_two_actions_of_one_name_in_one_section_are_refused():
    class Twice(registry.PatchAction):
        name = "add_attr"
        section = "op_patches"
    with pytest.raises(registry.ActionRegistryError, match="two op_patches actions are named 'add_attr'"):
        registry.action(Twice)
    class Nameless(registry.PatchAction):
        section = "op_patches"
    with pytest.raises(registry.ActionRegistryError, match="declares `name"):
        registry.action(Nameless)


MODIFY = """op_patches:
  - op_name : pd_op.pool2d
    actions:
      - action : modify_attr
        object : strides
        type : pir::ArrayAttribute
        {key} :
          - type: pir::Int64Attribute
            {key}: 3
"""


def test_default_is_the_older_name_of_data():
    assert one_action(MODIFY.format(key="data")) == one_action(MODIFY.format(key="default"))
    value = one_action(MODIFY.format(key="data")).value
    assert value.type == K.ARRAY and value.elements[0].data == 3 and value.elements[0].has_data


@pytest.mark.parametrize("kind, written, expected", [
    ("pir::Int64Attribute", "-1", -1),
    ("pir::Int64Attribute", '"-1"', -1),  # a scalar counts by its text, as in yaml-cpp
    ("pir::BoolAttribute", '"false"', False),
    ("pir::BoolAttribute", "true", True),
    ("pir::DoubleAttribute", "1e-6", 1e-6),  # PyYAML reads 1e-6 as a string
    ("pir::FloatAttribute", ".inf", math.inf),
    ("pir::StrAttribute", "5", "5"),
    ("pir::Int32Attribute", "2147483647", 2147483647),
    ("paddle::dialect::DataTypeAttribute", "float32", "float32"),
    ("paddle::dialect::PlaceAttribute", "gpu:1", (2, 1, "")),
    ("paddle::dialect::IntArrayAttribute", "[1, -1]", (1, -1)),
    ("pir::Complex64Attribute", "[1.0, 2]", (1.0, 2.0)),
])
def test_data_is_read_for_its_kind(kind, written, expected):
    action = one_action(f"op_patches:\n  - op_name: my.op\n    actions:\n"
                        f"      - action: add_attr\n        object: a\n        type: {kind}\n"
                        f"        data: {written}\n")
    assert action.value.data == expected


@pytest.mark.parametrize("kind, written, message", [
    ("pir::Int64Attribute", '"abc"', "`abc` is not an integer"),
    ("pir::Int32Attribute", "2147483648", "`2147483648` does not fit int32"),
    ("pir::Int64Attribute", "1.5", "`1.5` is not an integer"),
    ("pir::BoolAttribute", "1", "`1` is not a boolean"),
    ("pir::FloatAttribute", "1e40", "overflows a float (f32) attribute"),
    ("paddle::dialect::DataTypeAttribute", "float", "`float` is not a data type"),
    ("pir::Complex128Attribute", "1.0", "expected [real, imag]"),
])
def test_data_that_does_not_fit_is_an_error_at_its_line(kind, written, message):
    got = errors_of(f"op_patches:\n  - op_name: my.op\n    actions:\n"
                    f"      - action: add_attr\n        object: a\n        type: {kind}\n"
                    f"        data: {written}\n")
    assert len(got) == 1
    assert got[0].startswith(f"p.yaml:7: error: my.op: add_attr: `data` does not fit {kind}: ")
    assert message in got[0]


def test_array_shorthand_and_its_plain_value_extension():
    retype = one_action("op_patches:\n  - op_name: my.op\n    actions:\n      - action: modify_attr\n"
                        "        object: scale\n        type: pir::ArrayAttribute<pir::DoubleAttribute>\n")
    assert (retype.value.type, retype.value.element_type, retype.value.elements) == \
        (K.ARRAY, "pir::DoubleAttribute", None)
    values = one_action("op_patches:\n  - op_name: my.op\n    actions:\n      - action: add_attr\n"
                        "        object: scale\n        type: pir::ArrayAttribute<pir::DoubleAttribute>\n"
                        "        data: [0.5, 2]\n")
    assert [(e.type, e.data) for e in values.value.elements] == \
        [("pir::DoubleAttribute", 0.5), ("pir::DoubleAttribute", 2.0)]
    assert K.make_attr(values.value) == A.array_attr([A.float_attr(0.5, True), A.float_attr(2.0, True)])


@pytest.mark.parametrize("text, expected", [
    ("op_patches:\n  - op_name: my.op\n    actions:\n      - action: add_input\n        object: 0\n",
     "p.yaml:4: error: my.op: add_input: a lone add_input would break the graph"),
    ("op_patches:\n  - op_name: my.op\n    actions:\n      - action: delete_output\n        object: 0\n",
     "p.yaml:4: error: my.op: delete_output: a lone delete_output would break the graph"),
    ("op_patches:\n  - op_name: my.op\n    actions:\n      - action: modify_attr\n        object: a\n",
     "p.yaml:4: error: my.op: modify_attr: needs `type:`"),
    ("op_patches:\n  - op_name: my.op\n    actions:\n      - action: add_attr\n        object: a\n"
     "        type: pir::Int64Attribute\n", "p.yaml:4: error: my.op: add_attr: needs `data:`"),
    ("op_patches:\n  - op_name: my.op\n    actions:\n      - action: add_output\n        object: 0\n"
     "        type: pir::DenseTensorType\n", "p.yaml:4: error: my.op: add_output: needs `data:` for pir::DenseTensorType"),
    ("op_pair_patches:\n  - op_pair: [my.a, my.b]\n    actions:\n      - action: delete_value\n        object: [0, x]\n",
     "p.yaml:5: error: [my.a, my.b]: delete_value: `object` must be two indices"),
    ("op_pair_patches:\n  - op_pair: my.a\n    actions: []\n", "p.yaml:2: error: `op_pair` must be two op names"),
    ("op_patches:\n  - op_name: my.op\n    actions:\n      - action: modify_name\n        data: nodialect\n",
     "p.yaml:5: error: `data`: op name `nodialect` has no dialect"),
    ("type_patches:\n  - type_name: pir::Float32Type\n    actions:\n      - action: modify_name\n"
     "        type: pir::DenseTensorType\n", "p.yaml:5: error: pir::Float32Type: modify_name: pir::Float32Type cannot be renamed"),
    ("attr_patches:\n  - attr_name: pir::FloatAttribute\n    actions:\n      - action: delete_attr\n",
     "p.yaml:4: error: pir::FloatAttribute: delete_attr: deleting an attribute kind"),
    ("op_patches:\n  - op_name: my.op\n    actions:\n      - action: delete_attr\n        object: a\n"
     "      - action: delete_attr\n        object: a\n", "p.yaml:6: error: my.op: delete_attr a already appears at line 4"),
    ("- op_patches\n", "p.yaml:1: error: a patch file must be a mapping"),
    ("op_patches:\n  - op_name: my.op\n", "p.yaml:2: error: my.op: no `actions:`"),
])
def test_validation_errors_name_line_action_and_problem(text, expected):
    got = errors_of(text)
    assert any(e.startswith(expected) for e in got), got


def test_every_error_is_reported_not_just_the_first():
    got = errors_of("op_patches:\n"
                    "  - op_name: pool2d\n    actions: [{action: delete_attr, object: a}]\n"
                    "  - op_name: my.op\n    actions:\n"
                    "      - {action: frobnicate}\n"
                    "      - {action: add_attr, object: a, type: pir::Int64Attribute, data: x}\n"
                    "type_patches:\n  - type_name: Float32Type\n    actions: [{action: modify_name, type: pir::Float64Type}]\n")
    assert [e.split(": error: ")[0] for e in got] == ["p.yaml:2", "p.yaml:6", "p.yaml:7", "p.yaml:9"]


def test_spec_checks_use_the_version_the_patch_upgrades_from():
    text = ("op_patches:\n  - op_name: pd_op.repeat_interleave\n    actions:\n"
            "      - action: modify_attr\n        object: output_size\n        type: pir::Int32Attribute\n")
    # output_size arrived with PIR version 3: absent before 3.yaml, present before 4.yaml.
    assert errors_of(text, 3) == [
        "p.yaml:4: error: pd_op.repeat_interleave: modify_attr: pd_op.repeat_interleave has no "
        "attribute `output_size` at PIR version 2 (it has repeats, axis)"]
    assert errors_of(text, 4) == []
    assert errors_of(text) == []  # step unknown: no spec checks


def test_patch_error_renders_file_and_line():
    assert PatchError("bad", "x.yaml", 3).render() == "x.yaml:3: error: bad"
    assert PatchError("bad", "x.yaml", 3, 7).render() == "x.yaml:3:7: error: bad"
    assert PatchError("bad", "dir").render() == "dir: error: bad"


def test_patch_set_folder_rules(tmp_path):
    (tmp_path / "versions.yaml").write_text("release: 2\ndevelop: false\n")
    (tmp_path / "2.yaml").write_text("")
    (tmp_path / "3.yaml").write_text("")
    (tmp_path / "02.yaml").write_text("")
    (tmp_path / "README.md").write_text("not a patch")
    _, errors = check_patch_set(tmp_path)
    got = sorted(e.render() for e in errors)
    assert len(got) == 3
    assert any("02.yaml: error: patch files are named N.yaml" in e for e in got)
    assert any(e.startswith(f"{tmp_path}: error: no 1.yaml") for e in got)
    assert any("3.yaml: error: patch for PIR version 3, but the release version is 2" in e for e in got)


def test_missing_folder_is_an_error(tmp_path):
    with pytest.raises(ErrorList) as e:
        load_patch_set(tmp_path / "nope")
    assert e.value.render() == f"{tmp_path / 'nope'}: error: no such patch folder"


# -- building attributes and types -------------------------------------------------------------


def test_element_type_only_array_retypes_existing_values_like_paddle():
    pool = load_patch_set().files[2].op_patches[1].actions[0].value  # pool2d.strides
    old = A.array_attr([A.int32_attr(2), A.int32_attr(2), A.int32_attr(1)])  # any length
    assert K.make_attr(pool, old) == A.array_attr([A.int64_attr(2), A.int64_attr(2), A.int64_attr(1)])


def test_float_becomes_double_keeping_the_f32_rounded_value():
    leaky = load_patch_set().files[4].op_patches[0].actions[0].value
    got = K.make_attr(leaky, A.float_attr(0.02))
    assert A.attr_kind(got) == "double"
    assert A.scalar_value(got) == 0.019999999552965164  # what Paddle 3.3.1 writes after upgrading


def test_add_attr_builds_its_value():
    output_size = load_patch_set().base_files[3].op_patches[1].actions[0].value
    assert K.make_attr(output_size) == A.int64_attr(-1)
    flag = load_patch_set().base_files[4].op_patches[-1].actions[0].value
    assert K.make_attr(flag) == A.bool_attr(False)


@pytest.mark.parametrize("existing, kind, message", [
    (A.str_attr("x"), "pir::DoubleAttribute", "a str attribute cannot become double"),
    (A.float_attr(1.5), "pir::Int64Attribute", "1.5 is not a whole number"),
    (A.int64_attr(1 << 40), "pir::Int32Attribute", "does not fit int32"),
    (None, "pir::Int64Attribute", "there is none"),
])
def test_conversions_that_cannot_keep_the_value_raise(existing, kind, message):
    with pytest.raises(ValueError, match=message):
        K.make_attr(model.AttrValue(kind), existing)


def test_make_type():
    assert K.make_type("pir::Float64Type") == T.ELEMENT_TYPES["f64"]
    dense = K.make_type("pir::DenseTensorType", ("pir::Float32Type", (-1, 30), "NCHW", (), 0))
    assert dense == T.DenseTensorType.make(T.ELEMENT_TYPES["f32"], (-1, 30))
    vec = K.make_type("pir::VectorType", (("pir::Int64Type", None),))
    assert vec == T.VectorType.make([T.ELEMENT_TYPES["i64"]])


def test_every_cpp_name_maps_to_a_pirc_kind_or_type():
    assert set(K.ATTRIBUTE_KINDS.values()) <= set(A.SCALAR_KINDS) | {
        "str", "array", "type", "tensor_name", "complex64", "complex128", "int_array", "dtype",
        "place", "layout", "scalar"}
    assert all(short in T.ELEMENT_TYPES for short in K.ELEMENT_TYPES.values())


# -- pirc-patch --------------------------------------------------------------------------------


def test_cli_validate_exit_status_and_output(capsys):
    from pirc.cli.patch import run
    assert run(["validate", str(PATCHES)]) == 0
    assert capsys.readouterr().out.startswith(f"{PATCHES}: ok (release 4; 1.yaml: empty; ")
    assert run(["validate", str(PADDLE_PATCHES / "prod-src-patch.yaml"), str(PATCHES / "2.yaml")]) == 1
    out, err = capsys.readouterr()
    assert "prod-src-patch.yaml:23: error: unknown top-level key `attr_pathes`" in err
    assert "Traceback" not in err
    assert out == f"{PATCHES / '2.yaml'}: ok (4 entries, 8 actions)\n"


def test_cli_takes_subcommands_from_registered_modules(monkeypatch, capsys):
    from pirc.cli import patch as cli
    fake = types.ModuleType("pirc_test_fake_subcommands")
    fake.SUBCOMMANDS = [cli.Subcommand("hello", "say hello", lambda p: p.add_argument("who"),
                                       lambda args: print(f"hello {args.who}") or 0)]
    monkeypatch.setitem(sys.modules, fake.__name__, fake)
    monkeypatch.setattr(cli, "SUBCOMMAND_MODULES", ("pirc_test_absent_module", fake.__name__))
    assert cli.run(["hello", "world"]) == 0
    assert capsys.readouterr().out == "hello world\n"
