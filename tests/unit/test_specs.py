"""Dialect specs per PIR version, and the op classes generated from them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from pirc.ir import registry, specs
from pirc.ir.ops import PirOp

ROOT = Path(__file__).resolve().parents[2]
# The releases dialects/ is generated from (tools/opdefs/releases.yaml, the generator's list).
RELEASES = {str(e["paddle"]): int(e["pir_version"]) for e in
            yaml.safe_load((ROOT / "tools" / "opdefs" / "releases.yaml").read_text())["releases"]}


def attr(name: str, version: int, attribute: str) -> specs.AttrSpec:
    spec = specs.get_spec(name, version)
    assert spec is not None, f"{name} unknown at {version}"
    found = spec.attribute(attribute)
    assert found is not None, f"{name} has no attribute {attribute} at {version}"
    return found


# -- what changed between releases -------------------------------------------------------


def test_leaky_relu_negative_slope_float_then_double():
    assert attr("pd_op.leaky_relu", 1, "negative_slope").type == "float"
    assert attr("pd_op.leaky_relu", 3, "negative_slope").type == "float"
    assert attr("pd_op.leaky_relu", 4, "negative_slope").type == "double"
    assert attr("pd_op.leaky_relu", 4, "negative_slope").default == pytest.approx(0.02)
    assert specs.get_spec("pd_op.leaky_relu", 4).since == 4
    assert specs.get_spec("pd_op.leaky_relu", 3).since == 1


def test_pool2d_strides_int32_array_then_int64():
    assert attr("pd_op.pool2d", 1, "strides").type == "array<int32>"
    assert attr("pd_op.pool2d", 1, "paddings").type == "array<int32>"
    assert attr("pd_op.pool2d", 2, "strides").type == "array<int64>"
    assert attr("pd_op.pool2d", 4, "strides").type == "array<int64>"
    kernel_size = specs.get_spec("pd_op.pool2d", 1).operands[1]
    assert (kernel_size.name, kernel_size.type, kernel_size.from_attr) == (
        "kernel_size", "tensor", "int_array")


def test_rms_norm_means_a_different_op_at_4():
    old, new = specs.get_spec("pd_op.rms_norm", 1), specs.get_spec("pd_op.rms_norm", 4)
    assert [o.name for o in old.operands] == ["x", "bias", "residual", "norm_weight",
                                              "norm_bias"]
    assert [o.name for o in new.operands] == ["x", "scale"]
    assert "quant_scale" in old.attribute_map and "quant_scale" not in new.attribute_map
    assert new.attribute("epsilon").type == "double"
    # 3.0.0's rms_norm lives on as fused_rms_norm_quant.
    fused = specs.get_spec("pd_op.fused_rms_norm_quant", 4)
    assert fused is not None and "quant_scale" in fused.attribute_map
    assert [r.since for r in specs.revisions("pd_op.rms_norm")] == [1, 4]


def test_new_attribute_arrives_at_its_version():
    assert specs.get_spec("pd_op.repeat_interleave", 2).attribute("output_size") is None
    assert attr("pd_op.repeat_interleave", 3, "output_size").type == "int64"


def test_revisions_only_when_definition_changes():
    assert [r.since for r in specs.revisions("pd_op.matmul")] == [1]
    assert [r.since for r in specs.revisions("pd_op.leaky_relu")] == [1, 4]
    revs = specs.revisions("pd_op.pool2d")
    assert all(a != b for a, b in zip(revs, revs[1:]))


def test_removed_op_has_no_spec_after_removal():
    name = "pd_op.send_and_recv"  # in 3.0.0, gone by 3.3.1
    assert specs.get_spec(name, 1) is not None
    assert specs.get_spec(name, 4) is None
    assert name in specs.op_names(1) and name not in specs.op_names(4)
    assert specs.removed_since(name, 4) is not None


def test_develop_version_uses_latest_specs():
    assert specs.get_spec("pd_op.leaky_relu", 0) is specs.get_spec("pd_op.leaky_relu", 4)
    assert specs.op_names(0) == specs.op_names(4)
    with pytest.raises(ValueError, match="PIR version 9"):
        specs.get_spec("pd_op.relu", 9)


@pytest.mark.parametrize("release,version", sorted(RELEASES.items()))
def test_every_opdefs_op_exists_at_its_version(release, version):
    data = json.loads((ROOT / "tools" / "opdefs" / f"opdefs-{release}.json").read_text())
    wanted = {n for n in data if n.split(".", 1)[0] in ("pd_op", "builtin", "cf")}
    assert paddle_op_names(version) == wanted
    # Every input and attribute Paddle registers is in the spec, in Paddle's order.
    for name in wanted:
        record, spec = data[name], specs.get_spec(name, version)
        if not record["source"].startswith("OpYamlInfo"):
            continue
        assert [o.name for o in spec.operands] == [i["name"] for i in record["inputs"]], name
        assert [a.name for a in spec.attributes] == [a["name"] for a in record["attributes"]]
        assert [r.name for r in spec.results] == [o["name"] for o in record["outputs"]], name


def paddle_op_names(version):
    """The ops of Paddle's dialects at `version` (pirc's own npu dialect left out)."""
    return {n for n in specs.op_names(version) if n.split(".", 1)[0] in specs.PADDLE_DIALECTS}


def test_op_counts():
    assert [len(paddle_op_names(v)) for v in specs.SPEC_VERSIONS] == [1533, 1575, 1595, 1631]
    # pirc's npu dialect: the same ten ops at every version (dialects/npu.yaml)
    assert all(len(specs.op_names(v)) - len(paddle_op_names(v)) == 10 for v in specs.SPEC_VERSIONS)


# -- details of the format -----------------------------------------------------------------


def test_defaults_converted_from_cpp():
    assert attr("pd_op.matmul", 1, "transpose_x").default is False
    assert attr("pd_op.matmul", 1, "transpose_x").has_default
    assert attr("pd_op.conv2d", 1, "data_format").default == "NCHW"
    full = specs.get_spec("pd_op.full", 1)
    assert full.attribute("dtype").default == "float32"
    assert full.attribute("place").default == "cpu"
    assert full.attribute("value").type == "scalar"
    assert full.attribute("value").data_type == "double"
    assert attr("pd_op.assign_value_", 1, "place").default == "undefined"


def test_unconvertible_default_kept_as_cpp():
    found = [a for n in specs.op_names(4) for a in specs.get_spec(n, 4).attributes
             if a.default_cpp is not None]
    assert found, "some C++ defaults (1.0f/3 ...) have no unambiguous value"
    assert all(not a.has_default for a in found)
    assert any(a.default_cpp == "1.0f/3" for a in found)


def test_operand_kinds():
    concat = specs.get_spec("pd_op.concat", 1)
    assert concat.operands[0].type == "vec<tensor>"
    assert concat.operands[1].from_attr == "scalar"
    layer_norm = specs.get_spec("pd_op.layer_norm", 1)
    assert layer_norm.operands[1].optional  # scale
    assert not layer_norm.operands[0].optional
    dropout = specs.get_spec("pd_op.dropout", 1)
    assert any(r.intermediate for r in dropout.results) or any(
        r.optional for r in dropout.results)
    assert dict(specs.get_spec("pd_op.relu_", 1).inplace) == {"out": "x"}


def test_handwritten_control_flow_specs():
    if_ = specs.get_spec("pd_op.if", 1)
    assert [r.name for r in if_.regions] == ["true_region", "false_region"]
    assert if_.variadic_results and [o.name for o in if_.operands] == ["cond"]
    while_ = specs.get_spec("pd_op.while", 4)
    assert [o.name for o in while_.operands] == ["cond", "inputs"]
    assert while_.operands[1].variadic and while_.regions[0].block_args == "inputs"
    assert specs.get_spec("cf.yield", 1).variadic_operands
    param = specs.get_spec("builtin.parameter", 1)
    assert param.attribute("parameter_name").type == "str"
    assert param.attribute("trainable").type == "array<bool>"
    assert specs.get_spec("builtin.slice", 1).attribute("index").type == "int32"
    assert specs.get_spec("pd_op.pylayer", 1).regions[0].name == "fwd_region"


def test_universal_attributes_are_data():
    assert specs.UNIVERSAL_ATTRIBUTES["stop_gradient"].type == "array<bool>"
    assert specs.UNIVERSAL_ATTRIBUTES["struct_name"].type == "str"
    assert set(specs.UNIVERSAL_ATTRIBUTES) == {
        "stop_gradient", "persistable", "struct_name", "op_role", "op_dist_attr",
        "op_callstack", "sym_shape_str"}


def test_unknown_op():
    assert specs.get_spec("pd_op.no_such_op", 4) is None
    assert specs.revisions("pd_op.no_such_op") == []


def test_generated_files_are_up_to_date():
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "gen_dialects.py"), "--check"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_loads_without_a_writable_cache(tmp_path, monkeypatch):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    # Skip the real 0.7 s parse: what matters is that a failed cache write is silent.
    tiny = {"pd_op.relu": [{"since": 1, "operands": [{"name": "x", "type": "tensor"}]}]}
    monkeypatch.setattr(specs, "_parse", lambda texts: tiny)
    specs.reload()
    try:
        assert [o.name for o in specs.get_spec("pd_op.relu", 4).operands] == ["x"]
    finally:
        specs.reload()


def test_cache_is_written_and_reused(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    specs.reload()
    try:
        specs.get_spec("pd_op.relu", 1)
        cached = list((tmp_path / "pirc").glob("specs-*.marshal"))
        assert len(cached) == 1
        specs.reload()

        def no_parse(texts):
            raise AssertionError("the cache should have been used")

        monkeypatch.setattr(specs, "_parse", no_parse)
        assert specs.get_spec("pd_op.leaky_relu", 4).attribute("negative_slope").type == "double"
    finally:
        specs.reload()


# -- op classes ------------------------------------------------------------------------------


def test_class_per_revision():
    v1 = registry.op_class("pd_op.leaky_relu", 1)
    assert v1 is registry.op_class("pd_op.leaky_relu", 3)  # unchanged 1..3
    assert v1 is not registry.op_class("pd_op.leaky_relu", 4)
    assert registry.op_class("pd_op.matmul", 1) is registry.op_class("pd_op.matmul", 4)
    assert registry.op_class("pd_op.rms_norm", 1) is not registry.op_class("pd_op.rms_norm", 4)
    assert issubclass(v1, PirOp)
    assert v1.name == "pd_op.leaky_relu" and v1.pir_version == 1
    assert v1.spec == specs.get_spec("pd_op.leaky_relu", 1)
    assert registry.op_class("pd_op.leaky_relu", 4).pir_version == 4


def test_unknown_names_get_a_generic_class():
    cls = registry.op_class("pd_op.no_such_op", 4)
    assert cls.spec is None and cls.name == "pd_op.no_such_op"
    assert cls is registry.op_class("pd_op.no_such_op", 1)
    assert not registry.is_known("pd_op.no_such_op", 4)
    assert registry.is_known("pd_op.matmul", 1)
    assert not registry.is_known("pd_op.send_and_recv", 4)


def test_generated_properties():
    from xdsl.dialects.builtin import Float32Type

    from pirc.ir.attrs import bool_attr, float_attr
    from pirc.ir.builder import append_op
    from pirc.ir.ops import null_value
    from pirc.ir.types import DenseTensorType

    t = DenseTensorType.make(Float32Type(), [2, 3])
    src = append_op(registry.op_class("pd_op.data", 4), [], [t], {}, None)
    matmul_cls = registry.op_class("pd_op.matmul", 4)
    mm = append_op(matmul_cls, [src.results[0], src.results[0]], [t],
                   {"transpose_x": bool_attr(False)}, None)
    assert mm.x is src.results[0] and mm.y is src.results[0]
    assert mm.out is mm.results[0]
    assert mm.transpose_x == bool_attr(False)
    assert mm.transpose_y is None  # absent attribute
    ln = append_op(registry.op_class("pd_op.layer_norm", 4),
                   [src.results[0], null_value(), null_value()], [t, t, t],
                   {"epsilon": float_attr(1e-5)}, None)
    assert ln.x is src.results[0] and ln.scale is None and ln.bias is None
    # Clashing names get a trailing underscore: pd_op.data's attribute `name`.
    data_cls = registry.op_class("pd_op.data", 4)
    assert isinstance(vars(data_cls)["name_"], property) and data_cls.name == "pd_op.data"


def test_variadic_properties():
    from xdsl.dialects.builtin import Float32Type

    from pirc.ir.builder import append_op
    from pirc.ir.types import DenseTensorType

    t = DenseTensorType.make(Float32Type(), [1])
    a = append_op(registry.op_class("pd_op.data", 4), [], [t], {}, None).results[0]
    b = append_op(registry.op_class("pd_op.data", 4), [], [t], {}, None).results[0]
    c = append_op(registry.op_class("pd_op.data", 4), [], [t], {}, None).results[0]
    w = append_op(registry.op_class("pd_op.while", 4), [a, b, c], [t, t], {}, None)
    assert w.cond is a and w.inputs == (b, c) and w.outputs == tuple(w.results)
    y = append_op(registry.op_class("cf.yield", 4), [], [], {}, None)
    assert y.inputs == ()


def test_every_class_generates():
    # (its speed is measured by tools/bench_frontend.py's start-up figure, not asserted here)
    classes = {registry.op_class(n, v) for v in specs.SPEC_VERSIONS for n in specs.op_names(v)}
    assert len(classes) > 1700
