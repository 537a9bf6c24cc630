"""Paddle saved-program JSON: reader, writer and the "equal documents" oracle."""

from __future__ import annotations

import copy
import json
import math
import pathlib
import random
import re

import pytest
from xdsl.dialects.builtin import ArrayAttr, FloatAttr, IntegerAttr, StringAttr

from pirc.errors import SourceError, JsonError, PircError, VersionError
from pirc.ir import attrs as A
from pirc.ir.ops import is_null_value
from pirc.ir.program import LATEST_VERSION, GraphTag
from pirc.ir.types import NULL_TYPE, DenseTensorType, ELEMENT_TYPES
from pirc.paddle_json import codes as C
from pirc.paddle_json.equality import documents_equal
from pirc.paddle_json.reader import read_program
from pirc.paddle_json.writer import write_program

CORPUS = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "corpus"
PROGRAM_FILES = sorted(p for p in CORPUS.rglob("*.json") if not p.name.startswith("gen_log"))
# Files Paddle itself wrote (one line, sorted keys): pirc must reproduce them byte for byte.
PADDLE_WRITTEN = [p for p in PROGRAM_FILES if p.name != "docs-example-program.json"]


def corpus(rel: str) -> str:
    return (CORPUS / rel).read_text()


def ops_of(program):
    return [op for op in program.walk() if op.name != "builtin.module"]


def top_ops(program):
    return list(program.block.ops)


def doc(ops, version=1, trainable=True, **base):
    """A minimal document around a list of op JSON objects."""
    return copy.deepcopy(
        {"base_code": {"magic": "pir", "trainable": trainable, "version": version, **base},
         "program": {"regions": [{"#": "region_0", "blocks": [
             {"#": "block_0", "args": [], "ops": ops}]}]}})


F32 = {"#": "0.t_dtensor", "D": [{"#": "0.t_f32"}, [1], "NCHW", [], 0]}


def full_op(vid, value_json, name="value"):
    return {"#": "1.full", "A": [{"AT": value_json, "N": name}], "I": [],
            "O": [{"%": vid, "TT": F32}], "OA": []}


# -- corpus round trips ----------------------------------------------------------


@pytest.mark.parametrize("path", PROGRAM_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_corpus_round_trip_is_an_equal_document(path):
    text = path.read_text()
    written = write_program(read_program(text, str(path)))
    assert documents_equal(text, written) == []


@pytest.mark.parametrize("path", PADDLE_WRITTEN, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_corpus_round_trip_is_byte_identical(path):
    text = path.read_text().strip()
    assert write_program(read_program(text)) == text


def test_readable_output_is_indented_and_equal():
    text = corpus("3.0.0/control_flow.3.0.0.json")
    out = write_program(read_program(text), readable=True)
    assert out.startswith('{\n    "base_code": {\n        "magic": "pir",')
    assert json.loads(out) == json.loads(text)


# -- what the reader builds (checks that echoing could not pass) ---------------


@pytest.mark.parametrize("model, n_ops, n_args", [
    ("mlp", 12, 0),
    ("cnn", 30, 0),
    ("transformer", 53, 0),
    ("control_flow", 34, 2),
])
def test_reader_builds_every_op_and_value(model, n_ops, n_args):
    text = corpus(f"3.0.0/{model}.3.0.0.json")
    program = read_program(text)
    ops = ops_of(program)
    assert len(ops) == n_ops == program.op_count()
    # Paddle numbers results 1..N: the largest id is the number of results
    n_results = max(int(m) for m in re.findall(r'"%":(\d+)', text))
    assert sum(len(op.results) for op in ops) == n_results
    args = [a for op in ops for r in op.regions for b in r.blocks for a in b.args]
    assert len(args) == n_args
    assert program.version == 1 and program.trainable and program.graph_tags == []


def test_f32_and_f64_attributes_keep_their_kind():
    for version in ("3.0.0", "3.3.1"):
        program = read_program(corpus(f"{version}/cnn.{version}.json"))
        bn = next(op for op in ops_of(program) if op.name == "pd_op.batch_norm_")
        eps = bn.attributes["epsilon"]
        assert A.attr_kind(eps) == "float"
        assert eps.value.data == 9.999999747378752e-06
    transformer = read_program(corpus("3.0.0/transformer.3.0.0.json"))
    full = next(op for op in ops_of(transformer) if op.name == "pd_op.full")
    assert A.attr_kind(full.attributes["value"]) == "double"
    assert isinstance(full.attributes["shape"], A.IntArrayAttr)
    assert isinstance(full.attributes["place"], A.PlaceAttr)


def test_pool2d_strides_are_i32_in_3_0_and_i64_in_3_3():
    def strides(version):
        program = read_program(corpus(f"{version}/cnn.{version}.json"))
        pool = next(op for op in ops_of(program) if op.name == "pd_op.pool2d")
        return [A.attr_kind(a) for a in pool.attributes["strides"].data]
    assert strides("3.0.0") == ["int32", "int32"]
    assert strides("3.3.1") == ["int64", "int64"]


def test_dropout_optional_operand_is_a_null_value():
    program = read_program(corpus("3.0.0/transformer.3.0.0.json"))
    dropouts = [op for op in ops_of(program) if op.name == "pd_op.dropout"]
    assert dropouts
    for op in dropouts:
        assert [is_null_value(v) for v in op.operands] == [False, True, False]
        assert op.operands[1].type == NULL_TYPE
        assert op.operand_is_null(1)
    # each null operand is its own value, as each PIR null Value is unowned
    assert dropouts[0].operands[1] is not dropouts[-1].operands[1] or len(dropouts) == 1


def test_parameter_attributes_are_what_paddle_prints():
    program = read_program(corpus("3.0.0/mlp.3.0.0.json"))
    p = top_ops(program)[0]
    assert p.name == "builtin.parameter"
    names = list(p.attributes)
    assert names == ["is_distributed", "is_parameter", "need_clip", "parameter_name",
                     "persistable", "stop_gradient", "trainable"]

    def flag(name):
        v = p.attributes[name]
        assert isinstance(v, ArrayAttr) and len(v.data) == 1
        return A.scalar_value(v.data[0])

    assert (flag("is_distributed"), flag("is_parameter"), flag("need_clip")) == (False, True, True)
    assert (flag("persistable"), flag("stop_gradient"), flag("trainable")) == (True, False, True)
    assert isinstance(p.attributes["parameter_name"], StringAttr)
    assert isinstance(p.results[0].type, DenseTensorType)


def test_control_flow_structure_and_block_arguments():
    program = read_program(corpus("3.0.0/control_flow.3.0.0.json"))
    ops = top_ops(program)
    if_op = next(op for op in ops if op.name == "pd_op.if")
    while_op = next(op for op in ops if op.name == "pd_op.while")
    assert len(if_op.regions) == 2 and len(while_op.regions) == 1
    body = while_op.regions[0].blocks[0]
    assert [t.shape for t in body.arg_types] == [(1,), (2, 3)]
    assert body.arg_types[0].dtype == ELEMENT_TYPES["i64"]
    scale = next(op for op in body.ops if op.name == "pd_op.scale")
    assert scale.operands[0] is body.args[0]
    assert [op.name for op in body.ops][-1] == "cf.yield"
    # the if's true branch reads the first feed, defined outside the region
    exp = next(iter(if_op.regions[0].blocks[0].ops))
    assert exp.operands[0] is ops[0].results[0]


def test_undefined_dtype_uses_the_printed_name():
    program = read_program(corpus("3.0.0/control_flow.3.0.0.json"))
    s = next(op for op in ops_of(program) if op.name == "pd_op.sum")
    assert s.attributes["dtype"] == A.dtype_attr("Undefined")
    assert '"1.a_dtype","D":"Undefined(ALL_DTYPE)"' in write_program(program)


def test_result_attribute_order_is_kept_per_file():
    native = read_program(corpus("3.3.1/mlp.3.3.1.json"))
    crossed = read_program(corpus("crossload/mlp.3.0.0-loaded-in-3.3.1.json"))
    fetch_n = next(op for op in ops_of(native) if op.name == "pd_op.fetch")
    fetch_c = next(op for op in ops_of(crossed) if op.name == "pd_op.fetch")
    assert list(fetch_n.attributes)[-2:] == ["persistable", "stop_gradient"]
    assert list(fetch_c.attributes)[-2:] == ["stop_gradient", "persistable"]


def test_version_comes_from_base_code():
    assert read_program(corpus("3.3.1/mlp.3.3.1.json")).version == 4
    assert read_program(corpus("3.0.0/mlp.3.0.0.json")).version == 1


# -- value numbering ------------------------------------------------------------


def _region(args, ops):
    return {"#": "region_x", "blocks": [{"#": "block_x", "args": args, "ops": ops}]}


def test_writer_renumbers_values_results_before_regions_and_args_globally():
    cond = {"#": "0.t_dtensor", "D": [{"#": "0.t_bool"}, [1], "NCHW", [], 0]}
    loop = {
        "#": "1.while", "A": [], "I": [{"%": 70}, {"%": 50}],
        "O": [{"%": 80, "TT": F32}],
        "OA": [],
        "regions": [_region([{"#": -7, "TT": F32}], [
            {"#": "1.exp", "A": [], "I": [{"%": -7}], "O": [{"%": 90, "TT": F32}], "OA": []},
            {"#": "2.yield", "A": [], "I": [{"%": 70}, {"%": 90}], "O": [], "OA": []},
        ])],
    }
    loop2 = copy.deepcopy(loop)
    loop2["O"][0]["%"] = 81
    loop2["regions"][0]["blocks"][0]["args"] = [{"#": -9, "TT": F32}, {"#": -8, "TT": F32}]
    body = loop2["regions"][0]["blocks"][0]["ops"]
    body[0]["I"] = [{"%": -8}]
    body[0]["O"][0]["%"] = 91
    body[1]["I"] = [{"%": 70}, {"%": 91}]
    ops = [
        full_op(50, {"#": "0.a_f64", "D": 1.0}),
        {"#": "1.data", "A": [], "I": [], "O": [{"%": 70, "TT": cond}], "OA": []},
        loop,
        loop2,
        {"#": "1.add", "A": [], "I": [{"%": 80}, {"%": 81}], "O": [{"%": 99, "TT": F32}],
         "OA": []},
    ]
    original = doc(ops)
    out = json.loads(write_program(read_program(original)))
    assert documents_equal(original, out) == []
    w_ops = out["program"]["regions"][0]["blocks"][0]["ops"]
    assert [o["%"] for o in w_ops[0]["O"] + w_ops[1]["O"] + w_ops[2]["O"]] == [1, 2, 3]
    b1 = w_ops[2]["regions"][0]["blocks"][0]
    assert [a["#"] for a in b1["args"]] == [-1]
    assert b1["ops"][0]["I"] == [{"%": -1}] and b1["ops"][0]["O"][0]["%"] == 4
    assert w_ops[3]["O"][0]["%"] == 5  # after the first while's region
    b2 = w_ops[3]["regions"][0]["blocks"][0]
    assert [a["#"] for a in b2["args"]] == [-2, -3]  # one counter across blocks
    assert b2["ops"][0]["I"] == [{"%": -3}] and b2["ops"][0]["O"][0]["%"] == 6
    assert w_ops[4]["I"] == [{"%": 3}, {"%": 5}]
    assert [r["#"] for r in (out["program"]["regions"][0], w_ops[2]["regions"][0],
                             w_ops[3]["regions"][0])] == ["region_0", "region_1", "region_2"]
    assert [b1["#"], b2["#"]] == ["block_1", "block_2"]


# -- floats ----------------------------------------------------------------------


@pytest.mark.parametrize("code", ["0.a_f64", "0.a_f32"])
def test_non_finite_floats_round_trip(code):
    spellings = ["INF", "-INF", "NaN", "NAN", "nan"]
    ops = [full_op(i + 1, {"#": code, "VD": s}) for i, s in enumerate(spellings)]
    original = doc(ops)
    program = read_program(original)
    values = [op.attributes["value"].value.data for op in top_ops(program)]
    assert values[:2] == [math.inf, -math.inf]
    assert all(math.isnan(v) for v in values[2:])
    out = json.loads(write_program(program))
    vds = [o["A"][0]["AT"] for o in out["program"]["regions"][0]["blocks"][0]["ops"]]
    assert vds == [{"#": code, "VD": s} for s in
                   ["INF", "-INF"] + [C.NAN_SPELLING] * 3]
    assert documents_equal(original, out) == []


def test_f32_keeps_the_widened_double_and_rounds_what_is_not_f32():
    ops = [full_op(1, {"#": "0.a_f32", "D": 0.019999999552965164}),
           full_op(2, {"#": "0.a_f32", "D": 0.02}),
           full_op(3, {"#": "0.a_f64", "D": 0.02}),
           full_op(4, {"#": "0.a_f64", "D": -0.0}),
           full_op(5, {"#": "0.a_f64", "D": 1})]
    text = write_program(read_program(doc(ops)))
    assert '{"#":"0.a_f32","D":0.019999999552965164}' in text
    assert text.count("0.019999999552965164") == 2  # 0.02 rounded to f32 on read
    assert '{"#":"0.a_f64","D":0.02}' in text
    assert '{"#":"0.a_f64","D":-0.0}' in text
    assert '{"#":"0.a_f64","D":1.0}' in text
    diffs = documents_equal(doc(ops), text)
    assert len(diffs) == 1 and "ops[1]" in diffs[0] and "0.a_f32" in diffs[0]


# -- every attribute and type kind -------------------------------------------------


ALL_ATTRS = [
    {"#": "0.a_bool", "D": True},
    {"#": "0.a_i32", "D": -7},
    {"#": "0.a_i64", "D": 2**40},
    {"#": "0.a_index", "D": 3},
    {"#": "0.a_f32", "D": 1.5},
    {"#": "0.a_f64", "D": 1e-300},
    {"#": "0.a_str", "D": "héllo \"q\"\n"},
    {"#": "0.a_tensorname", "D": "t0"},
    {"#": "0.a_c64", "D": [1.5, -2.0]},
    {"#": "0.a_c128", "D": [0.1, 0.2]},
    {"#": "0.a_array", "D": [{"#": "0.a_i32", "D": 1}, {"#": "0.a_str", "D": "x"}]},
    {"#": "0.a_array", "D": []},
    {"#": "0.a_type", "D": F32},
    {"#": "1.a_intarray", "D": [-1, 784]},
    {"#": "1.a_dtype", "D": "bfloat16"},
    {"#": "1.a_place", "D": [2, 1, "npu"]},
    {"#": "1.a_layout", "D": "NHWC"},
    {"#": "1.a_scalar", "D": ["float32", 2.5]},
    {"#": "NULL"},
]

ALL_TYPES = [
    {"#": c} for c in C.ELEMENT_TYPE_CODES
] + [
    {"#": "0.t_vec", "D": [F32, {"#": "0.t_i64"}]},
    {"#": "0.t_dtensor", "D": [{"#": "0.t_f16"}, [], "NHWC", [[0, 2, 5], [0, 1]], 3]},
    {"#": "1.t_selected_rows", "D": [{"#": "0.t_f32"}, [-1, 8], "NCHW", [], 0]},
    {"#": "1.t_dense_tensor_array", "D": [{"#": "0.t_f32"}, [2], "NCHW"]},
    {"#": "NULL"},
]


def test_every_attribute_kind_round_trips_exactly():
    op = {"#": "1.custom_thing", "A": [{"AT": a, "N": f"a{i}"} for i, a in enumerate(ALL_ATTRS)],
          "I": [], "O": [], "OA": []}
    original = doc([op])
    program = read_program(original)
    attrs = top_ops(program)[0].attributes
    assert [A.attr_kind(a) for a in attrs.values()] == [
        C.ATTR_KIND_BY_CODE[a["#"]] for a in ALL_ATTRS]
    assert attrs["a15"] == A.place_attr(2, 1, "npu")
    out = json.loads(write_program(program))
    assert out == original


def test_every_type_kind_round_trips_exactly():
    op = {"#": "1.custom_thing", "A": [], "I": [],
          "O": [{"%": i + 1, "TT": t} for i, t in enumerate(ALL_TYPES)], "OA": []}
    original = doc([op])
    program = read_program(original)
    assert json.loads(write_program(program)) == original


def test_unknown_dialect_names_are_kept():
    op = {"#": "mydialect.frob", "A": [], "I": [], "O": [{"%": 1, "TT": F32}], "OA": []}
    custom = {"#": "3.my_custom", "A": [], "I": [{"%": 1}], "O": [], "OA": []}
    original = doc([op, custom])
    program = read_program(original)
    assert [o.name for o in top_ops(program)] == ["mydialect.frob", "custom_op.my_custom"]
    assert json.loads(write_program(program)) == original


def test_dist_and_quant_lists_round_trip():
    da = [{"AT": {"#": "0.a_i32", "D": 1}, "N": "op_role"}]
    qa = [{"AT": {"#": "0.a_str", "D": "/Lin/"}, "N": "struct_name"}]
    ops = [
        {"#": "1.relu", "A": [], "DA": da, "I": [], "O": [{"%": 1, "TT": F32}], "OA": [],
         "QA": qa},
        {"#": "1.relu", "A": [], "DA": [], "I": [{"%": 1}], "O": [{"%": 2, "TT": F32}],
         "OA": []},
        {"#": "p", "A": [0, 1, 0, "w"], "O": {"%": 3, "TT": F32}, "OA": [1, 1, 1]},
        {"#": "p", "A": [0, 1, 0, "v"], "DA": da, "O": {"%": 4, "TT": F32}, "OA": [1, 1, 1],
         "QA": []},
    ]
    original = doc(ops)
    program = read_program(original)
    assert json.loads(write_program(program)) == original


def test_parameter_built_in_ir_without_a_flag_is_written_so_that_it_reads_back():
    # The compact "p" form has a slot for every flag: written there, an absent is_distributed
    # would read back as present (a fuzzed program found it), so it goes generic instead.
    original = doc([{"#": "p", "A": [0, 1, 0, "w"], "DA": [], "O": {"%": 1, "TT": F32},
                     "OA": [1, 0, 1], "QA": []}])
    program = read_program(original)
    p = top_ops(program)[0]
    p.properties.clear()
    del p.attributes["is_distributed"]
    text = write_program(program)
    assert json.loads(text)["program"]["regions"][0]["blocks"][0]["ops"][0]["#"] != "p"
    back = top_ops(read_program(json.loads(text)))[0]
    assert back.name == "builtin.parameter" and "is_distributed" not in back.attributes
    assert set(back.attributes) == set(p.attributes)


def test_parameter_that_does_not_fit_the_compact_form_is_written_generically():
    original = doc([{"#": "p", "A": [0, 1, 0, "w"], "DA": [], "O": {"%": 1, "TT": F32},
                     "OA": [1, 0, 1], "QA": []}])
    program = read_program(original)
    top_ops(program)[0].attributes["extra"] = A.int32_attr(1)
    out = json.loads(write_program(program))
    op = out["program"]["regions"][0]["blocks"][0]["ops"][0]
    assert op["#"] == "0.parameter"
    assert {"AT": {"#": "0.a_i32", "D": 1}, "N": "extra"} in op["A"]
    again = read_program(out)
    assert list(top_ops(again)[0].attributes)[:4] == [
        "is_distributed", "is_parameter", "need_clip", "parameter_name"]
    diffs = documents_equal(original, out)
    assert diffs == ['program.regions[0].blocks[0].ops[0] (builtin.parameter): attribute '
                     '"extra": expected (absent), got 0.a_i32 1']


# -- program-level data ----------------------------------------------------------


def test_trainable_false_writes_no_OA_and_keeps_result_attributes_in_A():
    # Paddle's writer drops OA when trainable=false; pirc keeps the attributes (in A, which
    # every reader merges), so that what pirc writes reads back to the same program.
    text = corpus("3.0.0/mlp.3.0.0.json")
    program = read_program(text)
    program.trainable = False
    out = json.loads(write_program(program))
    assert out["base_code"]["trainable"] is False
    for op in out["program"]["regions"][0]["blocks"][0]["ops"]:
        assert "OA" not in op
    again = read_program(out)
    assert not again.trainable
    assert [dict(op.attributes) for op in ops_of(again)] == [
        dict(op.attributes) for op in ops_of(program)]


def test_graph_tags_and_unknown_keys_round_trip():
    original = doc([], extra_base="kept")
    original["top_extra"] = {"x": [1, 2]}
    original["base_code"]["pirc"] = {"graph_tags": [["fold", 2, "stable"]]}
    program = read_program(original)
    assert program.graph_tags == [GraphTag("fold", 2, "stable")]
    assert program.extra == {"top": {"top_extra": {"x": [1, 2]}},
                             "base_code": {"extra_base": "kept"}}
    out = json.loads(write_program(program))
    assert out == original
    program.graph_tags = []
    out = json.loads(write_program(program))
    assert "pirc" not in out["base_code"]
    assert documents_equal(original, out) == []  # base_code.pirc is pirc's own


def test_graph_tags_sit_inside_base_code_in_key_order():
    program = read_program(doc([]))
    program.graph_tags = [GraphTag("dce", 1, "canary")]
    text = write_program(program)
    assert text.startswith('{"base_code":{"magic":"pir","pirc":{"graph_tags":[["dce",1,"canary"]]}'
                           ',"trainable":true,"version":1}')


def test_newer_version_is_refused_before_reading():
    bad = doc([{"#": "1.nonsense"}], version=7)  # the op would not read either
    with pytest.raises(VersionError) as e:
        read_program(bad)
    assert str(e.value) == ("program is PIR version 7; this pirc reads versions up to "
                            f"{LATEST_VERSION} (Paddle 3.3); upgrade pirc")


@pytest.mark.parametrize("version", [-1, "1", 1.0, True, None])
def test_bad_version_is_a_json_error(version):
    with pytest.raises(JsonError) as e:
        read_program(doc([], version=version))
    assert e.value.path == "base_code.version"


def test_develop_version_zero_is_read():
    assert read_program(doc([], version=0)).version == 0


# -- errors ----------------------------------------------------------------------------


def error_of(document) -> JsonError:
    with pytest.raises(JsonError) as e:
        read_program(document if isinstance(document, str) else json.dumps(document),
                     "model.json")
    return e.value


def test_malformed_json_reports_line_and_column():
    with pytest.raises(SourceError) as raised:
        read_program('{"base_code": {"magic": "pir",\n  "version": 1,, }}', "model.json")
    e = raised.value
    assert (e.line, e.column) == (2, 16)
    assert e.render().startswith("model.json:2:16: error: malformed JSON: Expecting property name")


def test_unknown_attribute_kind_names_path_and_known_kinds():
    ops = [full_op(1, {"#": "0.a_f64", "D": 1.0})]
    ops[0]["A"].append({"AT": {"#": "0.a_foo", "D": 1}, "N": "bad"})
    e = error_of(doc([ops[0]]))
    assert e.path == "program.regions[0].blocks[0].ops[0].A[1].AT"
    assert 'unknown attribute kind "0.a_foo"; expected one of 0.a_bool, 0.a_i32' in e.message
    assert e.render().startswith("model.json: program.regions[0].blocks[0].ops[0].A[1].AT: error:")


@pytest.mark.parametrize("tt, words", [
    ({"#": "1.t_sparse_csr_tensor", "D": []}, "sparse CSR tensors"),
    ({"#": "4.t_dist_dense_tensor", "D": []}, "dist dialect"),
    ({"#": "0.t_f128"}, 'unknown type kind "0.t_f128"'),
])
def test_unsupported_type_kinds_are_named(tt, words):
    op = {"#": "1.relu", "A": [], "I": [], "O": [{"%": 1, "TT": F32}, {"%": 2, "TT": tt}]}
    e = error_of(doc([op]))
    assert e.path == "program.regions[0].blocks[0].ops[0].O[1].TT"
    assert words in e.message and (tt["#"] in e.message)


def test_dist_attribute_kind_is_named():
    op = full_op(1, {"#": "4.a_process_mesh", "D": []})
    e = error_of(doc([op]))
    assert e.path.endswith("ops[0].A[0].AT") and "4.a_process_mesh" in e.message


def test_nested_error_paths_go_through_regions():
    text = corpus("3.0.0/control_flow.3.0.0.json")
    d = json.loads(text)
    while_op = d["program"]["regions"][0]["blocks"][0]["ops"][10]
    assert while_op["#"] == "1.while"
    while_op["regions"][0]["blocks"][0]["ops"][1]["A"][0]["AT"]["D"] = "x"
    e = error_of(d)
    assert e.path == ("program.regions[0].blocks[0].ops[10].regions[0].blocks[0].ops[1]"
                      ".A[0].AT.D")


def test_unknown_operand_id_is_refused():
    op = {"#": "1.relu", "A": [], "I": [{"%": 42}], "O": [{"%": 1, "TT": F32}], "OA": []}
    e = error_of(doc([op]))
    assert e.path == "program.regions[0].blocks[0].ops[0].I[0]"
    assert "value id 42" in e.message and "null value" in e.message


def test_op_result_is_not_visible_inside_its_own_region():
    op = {"#": "1.if", "A": [], "I": [], "O": [{"%": 1, "TT": F32}], "OA": [],
          "regions": [_region([], [{"#": "2.yield", "A": [], "I": [{"%": 1}], "O": []}])]}
    e = error_of(doc([op]))
    assert e.path.endswith("ops[0].regions[0].blocks[0].ops[0].I[0]")


@pytest.mark.parametrize("mutate, path, words", [
    (lambda d: d["base_code"].update(magic="pdmodel"), "base_code.magic", "not a Paddle PIR"),
    (lambda d: d.pop("base_code"), "", "missing \"base_code\""),
    (lambda d: d["program"]["regions"].append({}), "program.regions", "exactly one region"),
    (lambda d: d["program"]["regions"][0]["blocks"][0].update(kwargs=[{"#": -1}]),
     "program.regions[0].blocks[0].kwargs", "keyword block arguments"),
    (lambda d: d["program"]["regions"][0]["blocks"][0]["ops"][0].update({"#": "9.relu"}),
     "program.regions[0].blocks[0].ops[0].#", "unknown dialect id 9"),
    (lambda d: d["program"]["regions"][0]["blocks"][0]["ops"][0].update({"#": "relu"}),
     "program.regions[0].blocks[0].ops[0].#", "<dialect id>.<name>"),
    (lambda d: d["program"]["regions"][0]["blocks"][0]["ops"][1]["O"][0].update({"%": 1}),
     "program.regions[0].blocks[0].ops[1].O[0].%", "defined twice"),
    (lambda d: d["program"]["regions"][0]["blocks"][0]["ops"][0]["A"][0].update(
        AT={"#": "0.a_f64", "VD": "Infinity"}),
     "program.regions[0].blocks[0].ops[0].A[0].AT.VD", "non-finite"),
    (lambda d: d["program"]["regions"][0]["blocks"][0]["ops"][0]["A"].append(
        {"AT": {"#": "1.a_dtype", "D": "float33"}, "N": "dtype"}),
     "program.regions[0].blocks[0].ops[0].A[1].AT.D", "unknown data type \"float33\""),
    (lambda d: d["program"]["regions"][0]["blocks"][0]["ops"][0]["A"].append(
        {"AT": {"#": "0.a_i32", "D": 2**31}, "N": "big"}),
     "program.regions[0].blocks[0].ops[0].A[1].AT.D", "int32"),
    (lambda d: d["program"]["regions"][0]["blocks"][0]["ops"][0]["A"].append(
        {"AT": {"#": "0.a_i32", "D": 1}, "N": "value"}),
     "program.regions[0].blocks[0].ops[0].A[1]", "appears twice"),
    (lambda d: d["program"]["regions"][0]["blocks"][0]["ops"][0].update(
        OA=[{"AT": {"#": "0.a_i32", "D": 1}, "N": "value"}]),
     "program.regions[0].blocks[0].ops[0].OA", "both \"A\" and \"OA\""),
    (lambda d: d["program"]["regions"][0]["blocks"][0]["ops"].append(
        {"#": "p", "A": [0, 1, "name"], "O": {"%": 9, "TT": F32}}),
     "program.regions[0].blocks[0].ops[2].A", "compact \"A\""),
    (lambda d: d["program"]["regions"][0]["blocks"][0]["ops"][0]["O"][0]["TT"].update(
        D=[{"#": "0.t_f32"}, [1], "NCHW", [], 0, 9]),
     "program.regions[0].blocks[0].ops[0].O[0].TT.D", "[element type, dims, layout, lod"),
    (lambda d: d["program"]["regions"][0]["blocks"][0]["ops"][1].update(I={"%": 1}),
     "program.regions[0].blocks[0].ops[1].I", "list of operands"),
])
def test_schema_errors_name_the_path(mutate, path, words):
    d = doc([full_op(1, {"#": "0.a_f64", "D": 1.0}),
             {"#": "1.relu", "A": [], "I": [{"%": 1}], "O": [{"%": 2, "TT": F32}], "OA": []}])
    mutate(d)
    e = error_of(d)
    assert e.path == path
    assert words in e.message


def test_random_damage_never_escapes_as_a_python_exception():
    """Mutate real files at random: every failure must be a PircError."""
    rng = random.Random(1234)
    base = json.loads(corpus("3.0.0/control_flow.3.0.0.json"))
    junk = [None, 0, -3, 2**70, 1.5, "x", "", [], {}, [1, "a"], {"#": "?"}, True]

    def containers(node, out):
        if isinstance(node, (dict, list)):
            out.append(node)
            for v in (node.values() if isinstance(node, dict) else node):
                containers(v, out)
        return out

    for _ in range(400):
        d = copy.deepcopy(base)
        nodes = containers(d, [])
        for _ in range(rng.randint(1, 3)):
            node = rng.choice(nodes)
            if isinstance(node, dict) and node:
                key = rng.choice(list(node))
                if rng.random() < 0.3:
                    del node[key]
                else:
                    node[key] = rng.choice(junk)
            elif isinstance(node, list) and node:
                node[rng.randrange(len(node))] = rng.choice(junk)
        try:
            program = read_program(d)
        except PircError:
            continue
        write_program(program)  # whatever was accepted can be written


def test_writer_refuses_a_use_before_definition():
    program = read_program(corpus("3.0.0/mlp.3.0.0.json"))
    ops = top_ops(program)
    last = ops[-1]
    last.detach()
    program.block.insert_op_before(last, ops[0])
    with pytest.raises(PircError) as e:
        write_program(program)
    assert "program.regions[0].blocks[0].ops[0]" in str(e.value)


def test_writer_refuses_attributes_without_a_pir_kind():
    program = read_program(corpus("3.0.0/mlp.3.0.0.json"))
    top_ops(program)[5].attributes["weird"] = IntegerAttr(3, 16)
    with pytest.raises(PircError) as e:
        write_program(program)
    assert "ops[5]" in str(e.value) and '"weird"' in str(e.value)


# -- documents_equal ----------------------------------------------------------------


def test_documents_equal_reports_path_expected_and_got():
    a = json.loads(corpus("3.0.0/cnn.3.0.0.json"))
    b = json.loads(corpus("3.3.1/cnn.3.3.1.json"))
    diffs = documents_equal(a, b)
    assert diffs[0] == "base_code.version: expected 1, got 4"
    assert ('program.regions[0].blocks[0].ops[18] (pd_op.pool2d): attribute "strides": '
            'expected [0.a_i32 2, 0.a_i32 2], got [0.a_i64 2, 0.a_i64 2]') in diffs


def test_documents_equal_ignores_numbering_and_spelling_but_not_wiring():
    a = json.loads(corpus("3.0.0/control_flow.3.0.0.json"))
    b = json.loads(write_program(read_program(a)))
    # renumber b's values: equal
    shifted = json.loads(json.dumps(b).replace('"%": 1}', '"%": 1000}')
                         .replace('"%": 1,', '"%": 1000,'))
    assert documents_equal(a, shifted) == []
    # swap two operands: a difference naming both definition sites
    b2 = copy.deepcopy(b)
    add = b2["program"]["regions"][0]["blocks"][0]["ops"][3]
    add["I"].reverse()
    diffs = documents_equal(a, b2)
    assert diffs and diffs[0].startswith("program.regions[0].blocks[0].ops[3] (pd_op.sum).I[0]: "
                                         "expected the value defined at program.regions[0]"
                                         ".blocks[0].ops[0].O[0]")


def test_documents_equal_nan_spellings_and_number_kinds():
    x = doc([full_op(1, {"#": "0.a_f64", "VD": "NaN"}), full_op(2, {"#": "0.a_f64", "D": 1})])
    y = doc([full_op(1, {"#": "0.a_f64", "VD": "NAN"}), full_op(2, {"#": "0.a_f64", "D": 1.0})])
    assert documents_equal(x, y) == []
    z = doc([full_op(1, {"#": "0.a_f64", "VD": "NaN"}), full_op(2, {"#": "0.a_f32", "D": 1.0})])
    assert documents_equal(x, z) == [
        'program.regions[0].blocks[0].ops[1] (pd_op.full): attribute "value": '
        "expected 0.a_f64 1.0, got 0.a_f32 1.0"]


def test_documents_equal_attribute_order_and_placement_do_not_matter():
    a = json.loads(corpus("3.3.1/mlp.3.3.1.json"))
    b = json.loads(corpus("crossload/mlp.3.0.0-loaded-in-3.3.1.json"))
    assert documents_equal(a, b) == []
    c = copy.deepcopy(a)
    op = c["program"]["regions"][0]["blocks"][0]["ops"][-1]
    op["A"].append(op["OA"].pop())
    assert documents_equal(a, c) == []


def test_documents_equal_reports_missing_ops_and_types():
    a = json.loads(corpus("3.0.0/mlp.3.0.0.json"))
    b = copy.deepcopy(a)
    b["program"]["regions"][0]["blocks"][0]["ops"].pop()
    b["program"]["regions"][0]["blocks"][0]["ops"][4]["O"][0]["TT"]["D"][1] = [-1, 785]
    diffs = documents_equal(a, b)
    assert "program.regions[0].blocks[0].ops: expected 12 ops, got 11" in diffs
    assert any(d.startswith("program.regions[0].blocks[0].ops[4] (pd_op.data).O[0]: type: "
                            "expected 0.t_dtensor<0.t_f32, [[-1, 784]")
               and "got 0.t_dtensor<0.t_f32, [[-1, 785]" in d for d in diffs)


def test_documents_equal_on_malformed_input_reports_instead_of_raising():
    assert documents_equal("{", "{}")[0].startswith("expected: malformed JSON")
    diffs = documents_equal({"base_code": {}, "program": {}}, {"base_code": {}, "program": {}})
    assert diffs and "malformed document" in diffs[0]


def test_nan_literals_are_not_json():
    text = json.dumps(doc([full_op(1, {"#": "0.a_f64", "D": 1.0})])).replace("1.0", "NaN")
    e = error_of(text)
    assert "NaN is not JSON" in e.message and '"VD"' in e.message


def test_duplicate_block_argument_ids_are_refused():
    op = {"#": "1.while", "A": [], "I": [], "O": [], "OA": [],
          "regions": [_region([{"#": -1, "TT": F32}, {"#": -1, "TT": F32}], [])]}
    e = error_of(doc([op]))
    assert e.path == "program.regions[0].blocks[0].ops[0].regions[0].blocks[0].args[1].#"


def test_attribute_order_hook_orders_a():
    program = read_program(corpus("3.0.0/mlp.3.0.0.json"))

    def reverse_order(op):
        return [n for n in reversed(op.attributes) if n not in ("stop_gradient", "persistable")]

    out = json.loads(write_program(program, attribute_names=reverse_order))
    data = next(o for o in out["program"]["regions"][0]["blocks"][0]["ops"] if o["#"] == "1.data")
    assert [e["N"] for e in data["A"]] == ["place", "dtype", "shape", "name"]
    assert documents_equal(corpus("3.0.0/mlp.3.0.0.json"), out) == []

    def bad_order(op):
        return ["no_such_attribute"]

    with pytest.raises(PircError) as e:
        write_program(program, attribute_names=bad_order)
    assert "no_such_attribute" in str(e.value)


def test_generic_parameter_with_an_operand_stays_generic():
    original = doc([
        full_op(1, {"#": "0.a_f64", "D": 1.0}),
        {"#": "0.parameter", "A": [{"AT": {"#": "0.a_str", "D": "w"}, "N": "parameter_name"}],
         "I": [{"%": 1}], "O": [{"%": 2, "TT": F32}], "OA": []},
    ])
    out = json.loads(write_program(read_program(original)))
    assert out == original
