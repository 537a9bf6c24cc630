"""tools/opdefs/extract.py without Paddle: the header scanner and the record builder run on
committed excerpts of Paddle 3.3.1's headers and of op_dump.cc's raw output
(tests/fixtures/opdefs/), and must give the records of the committed opdefs-3.3.1.json."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
OPDEFS = ROOT / "tools" / "opdefs"
FIXTURES = ROOT / "tests" / "fixtures" / "opdefs"
sys.path.insert(0, str(OPDEFS))
sys.path.insert(0, str(OPDEFS / "extract"))
sys.path.insert(0, str(ROOT / "tools"))

import add_release  # noqa: E402
import cpp_headers  # noqa: E402
import extract  # noqa: E402
import opdef_records  # noqa: E402


@pytest.fixture(scope="module")
def reference() -> dict:
    return json.loads((OPDEFS / "opdefs-3.3.1.json").read_text())


@pytest.fixture(scope="module")
def op_classes() -> dict:
    return cpp_headers.scan_include_dir(FIXTURES / "include" / "paddle")


@pytest.fixture(scope="module")
def records(op_classes) -> dict:
    raw = json.loads((FIXTURES / "raw_ops-3.3.1.json").read_text())
    return opdef_records.build_records(raw, op_classes)


# -- C++ lexing ---------------------------------------------------------------------------------


def test_strip_comments_keeps_string_literals():
    text = 'a // x "y"\nb /* c\n d */ e "f // g" \'/\''
    assert cpp_headers.strip_comments(text) == 'a  \nb   e "f // g" \'/\''


@pytest.mark.parametrize("text,expected", [
    ("pir::Value input_", ("pir::Value", "input_", None)),
    ("const std::vector<int>& strides={1, 1}", ("const std::vector<int>&", "strides", "{1, 1}")),
    ('const std::string& padding_algorithm="EXPLICIT"',
     ("const std::string&", "padding_algorithm", '"EXPLICIT"')),
    ("phi::DataType dtype=phi::DataType::FLOAT32",
     ("phi::DataType", "dtype", "phi::DataType::FLOAT32")),
    ("const phi::Place& place={}", ("const phi::Place&", "place", "{}")),
    ("int num_thresholds=(2 << 12) - 1", ("int", "num_thresholds", "(2 << 12) - 1")),
    ("std::vector<pir::Type> &&output_types", ("std::vector<pir::Type> &&", "output_types", None)),
    ("int backward_function_id = -1", ("int", "backward_function_id", "-1")),
    ("OperationArgument &argument", ("OperationArgument &", "argument", None)),
])
def test_parse_param(text, expected):
    param = cpp_headers.parse_param(text)
    assert (param.type, param.name, param.default) == expected


def test_parse_params_splits_only_top_level_commas():
    params = cpp_headers.parse_params(
        'pir::Value x_, const std::map<std::string, int>& m={}, const std::string& s="a,b", '
        "const std::vector<int64_t>& v={1, 2}, int n=(2 << 12) - 1, int k=1, "
        "float f=1.0f/3")
    assert [(p.name, p.default) for p in params] == [
        ("x_", None), ("m", "{}"), ("s", '"a,b"'), ("v", "{1, 2}"), ("n", "(2 << 12) - 1"),
        ("k", "1"), ("f", "1.0f/3")]


def test_value_type():
    assert cpp_headers.value_type("const std::string &") == "std::string"
    assert cpp_headers.value_type("int") == "int"
    assert cpp_headers.value_type("Attribute") == "Attribute"


# -- header scan --------------------------------------------------------------------------------


def test_scan_finds_each_op_class_and_its_header(op_classes):
    assert op_classes["pd_op.conv2d"].header == "fluid/pir/dialect/operator/ir/pd_op.h"
    assert op_classes["pd_op.conv2d"].class_name == "Conv2dOp"
    assert op_classes["cf.has_elements"].header == \
        "fluid/pir/dialect/operator/ir/control_flow_op.h"
    assert op_classes["builtin.slice"].header == "pir/include/core/builtin_op.h"
    assert len(op_classes) == 28


def test_build_defaults_over_overloads(op_classes):
    uniform = op_classes["pd_op.uniform"]
    assert len(uniform.builds) == 3  # attribute, mutable-attribute and AttributeMap forms
    assert uniform.default_of("place") == "{}"
    assert uniform.default_of("seed") is None
    conv = op_classes["pd_op.conv2d"]
    assert conv.default_of("strides") == "{1, 1}"
    assert conv.default_of("data_format") == '"NCHW"'
    pylayer = op_classes["pd_op.pylayer"]
    assert pylayer.default_of("backward_function_id") == "-1"
    assert pylayer.build_param("backward_function_id").type == "int"


def test_accessors(op_classes):
    stack = op_classes["cf.stack_create"]
    # container() and stack() both return result(0); the later accessor names it.
    assert stack.results == ["stack", "inlet", "outlet"]
    pop = op_classes["cf.tuple_pop"]
    assert pop.operands == ["outlet"] and pop.results == [] and pop.variadic_results
    push = op_classes["cf.tuple_push"]
    assert push.operands == ["inlet"] and not push.variadic_operands
    combine = op_classes["builtin.combine"]
    assert combine.variadic_operands and combine.results == ["out"]
    assert op_classes["pd_op.while"].operands == []  # cond() is only declared


# -- records ------------------------------------------------------------------------------------


def test_records_match_committed_opdefs(records, reference):
    """Every record but pd_op.auc is the committed one (tools/opdefs/README.md says why)."""
    assert len(records) == 31
    for name, record in records.items():
        if name != "pd_op.auc":
            assert record == reference[name], name


def test_auc_default_split_at_the_right_comma(records, reference):
    attrs = {a["name"]: a for a in records["pd_op.auc"]["attributes"]}
    assert attrs["num_thresholds"]["default"] == "(2 << 12) - 1"
    assert attrs["slide_steps"]["default"] == "1"
    # ../shared/paddle-opdefs came from an extractor that read `<<` as template brackets
    # ("(2 << 12) - 1, int slide_steps=1", and no slide_steps default); tools/opdefs holds
    # this extractor's corrected record (tools/opdefs/README.md).
    assert records["pd_op.auc"] == reference["pd_op.auc"]


def test_record_shapes(records):
    assert records["pd_op.exp_"]["inplace"] == [["out", "x"]]
    assert "inplace" not in records["pd_op.conv2d"]
    assert records["pd_op.split_grad"]["registered_attributes_name"] == ["axis"]
    assert "registered_attributes_name" not in records["pd_op.conv2d"]
    assert "header" not in records["onednn_op.relu"]
    assert records["dist_op.shard_tensor"] == {
        "attributes": [{"name": "op_dist_attr", "type": "unknown"}], "dialect": "pd_dist",
        "inputs": [], "outputs": [], "source": opdef_records.NO_OP_INFO}
    slice_attrs = records["builtin.slice"]["attributes"]
    assert slice_attrs == [{"name": "index", "type": "int"}]


def test_dumps_reproduces_the_committed_file_bytes():
    text = (OPDEFS / "opdefs-3.3.1.json").read_text()
    assert opdef_records.dumps(json.loads(text)) == text


def test_differences_names_the_fields(records, reference):
    subset = {name: reference[name] for name in records}
    assert extract.differences(records, subset) == []
    damaged = dict(subset, **{"pd_op.auc": dict(subset["pd_op.auc"], attributes=[])})
    assert extract.differences(records, damaged) == ["pd_op.auc: attributes differ"]
    assert extract.differences({}, {"a.b": {}}) == ["a.b: only in reference"]


# -- release list -------------------------------------------------------------------------------


def test_release_list_round_trips():
    entries = add_release.read_releases()
    assert entries[:4] == [("3.0.0", 1), ("3.1.1", 2), ("3.2.2", 3), ("3.3.1", 4)]
    assert add_release.render_releases(entries) == (OPDEFS / "releases.yaml").read_text()
    import gen_dialects
    assert gen_dialects.load_releases() == dict(entries)


def test_with_release_checks_versions():
    entries = [("3.0.0", 1), ("3.3.1", 4)]
    assert add_release.with_release(entries, "3.4.0", 5, False)[-1] == ("3.4.0", 5)
    assert add_release.with_release(entries, "3.3.1", 4, True) == entries
    with pytest.raises(SystemExit, match="already listed"):
        add_release.with_release(entries, "3.3.1", 4, False)
    with pytest.raises(SystemExit, match="must be above"):
        add_release.with_release(entries, "3.4.0", 4, False)
    with pytest.raises(SystemExit, match="PIR version 4, not 5"):
        add_release.with_release(entries, "3.3.1", 5, True)
    assert add_release.default_venv("3.4.0") == Path("/tmp/pd340")
