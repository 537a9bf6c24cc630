"""The npu dialect (dialects/npu.yaml): each op is its torch_npu schema; npu ops parse,
verify, print, round-trip through Paddle JSON (with one warning per file written) and are
pure for dce / cse."""

from __future__ import annotations

import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import pirc.api as api
from pirc.compat.torch_versions import SUPPORTED_TORCH_NPU
from pirc.ir import specs
from pirc.ir.effects import is_pure
from pirc.ir.equality import program_differences
from pirc.lower.npu.schema_check import load_schemas
from pirc.paddle_json.reader import read_program
from pirc.paddle_json.writer import PaddleCannotLoadWarning, write_program
from pirc.text.canonical_printer import print_canonical

REPO = Path(__file__).resolve().parents[2]
NPU_OPS = sorted(n for n in specs.all_op_names() if n.startswith("npu."))

# torch schema type -> (operand?, optional?, pirc attribute type)
SCHEMA_TYPES = {"Tensor": (True, False, None), "Tensor?": (True, True, None),
                "int": (False, False, "int64"), "float": (False, False, "double"),
                "str": (False, False, "str"), "bool": (False, False, "bool"),
                "int[]": (False, False, "array<int64>"), "int[]?": (False, True, "array<int64>"),
                "Scalar": (False, False, "scalar")}


def schema_defaults(text: str) -> dict:
    """name -> default literal (as text) of a schema line's arguments."""
    inner = text[text.index("(") + 1:text.rindex(") ->")]
    return {m.group(1): m.group(2) for m in re.finditer(r"\b(\w+)=([^,]+)", inner)}


def literal(text: str):
    if text == "None":
        return None
    if text in ("True", "False"):
        return text == "True"
    if text[0] in "'\"":
        return text[1:-1]
    return float(text) if any(c in text for c in ".e") else int(text)


def test_the_dialect_has_every_fused_call_the_lowering_makes():
    from pirc.lower.npu.ops import ENTRY_POINTS
    assert {specs.get_spec(n, 4).kernel for n in NPU_OPS} == set(ENTRY_POINTS)
    assert len(NPU_OPS) == 10


@pytest.mark.parametrize("version", SUPPORTED_TORCH_NPU)
@pytest.mark.parametrize("name", NPU_OPS)
def test_op_is_its_torch_npu_schema(name, version):
    spec = specs.get_spec(name, 4)
    assert all(specs.get_spec(name, v) == spec for v in (1, 2, 3))  # unversioned
    (schema,) = load_schemas(version)[spec.kernel]
    defaults = schema_defaults(schema.text)
    operands = [(o.name, o.optional) for o in spec.operands]
    attributes = {a.name: a for a in spec.attributes}
    want_operands = []
    for arg in schema.arguments:
        is_operand, optional, attr_type = SCHEMA_TYPES[arg.type]
        if is_operand:
            want_operands.append((arg.name, optional))
            continue
        a = attributes.pop(arg.name)
        assert a.type == attr_type, (arg.name, a.type)
        # optional exactly where torch lets the call leave it out; the default is torch's
        assert a.optional == (arg.has_default or optional), arg.name
        if arg.has_default and defaults[arg.name] != "None":
            assert a.default == literal(defaults[arg.name]), arg.name
    assert operands == want_operands
    assert not attributes, f"attributes the schema does not have: {sorted(attributes)}"
    returns = schema.text.rsplit("->", 1)[1].strip()
    n_results = 1 if returns == "Tensor" else len(returns.strip("()").split(","))
    assert len(spec.results) == n_results


def test_npu_ops_are_pure_for_dce_and_cse():
    program = api.parse(PROGRAM, from_version=4)
    assert all(is_pure(op) for op in program.walk() if op.name.startswith("npu."))
    # an unused npu op goes, two identical ones become one
    doubled = PROGRAM.replace(
        '    (%7) = "pd_op.fetch"',
        '    (%20) = "npu.gelu" (%3) {approximate:"tanh"} : (tensor<2x8xf32>) -> tensor<2x8xf32>\n'
        '    (%21) = "npu.gelu" (%3) {approximate:"tanh"} : (tensor<2x8xf32>) -> tensor<2x8xf32>\n'
        '    (%7) = "pd_op.fetch"')
    program = api.parse(doubled, from_version=4)
    api.run_pipeline(program, "cse,dce")
    names = [op.name for op in program.walk()]
    assert names.count("npu.gelu") == 1 and names.count("npu.fusion_attention") == 1


PROGRAM = """{
    (%0) = "builtin.parameter" () {is_distributed:[false],is_parameter:[true],need_clip:[true],parameter_name:"w",persistable:[true],stop_gradient:[false],trainable:[true]} : () -> tensor<8xf32>
    (%1) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[2,8],stop_gradient:[true]} : () -> tensor<2x8xf32>
    (%2) = "pd_op.data" () {dtype:bool,name:"m",place:Place(undefined:0),shape:[2,2,4,4],stop_gradient:[true]} : () -> tensor<2x2x4x4xb>
    (%3, %4) = "npu.rms_norm" (%1, %0) {epsilon:1e-06} : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>, tensor<2x1xf32>
    (%5) = "npu.gelu" (%3) {approximate:"tanh"} : (tensor<2x8xf32>) -> tensor<2x8xf32>
    (%6) = "npu.swiglu" (%5) {} : (tensor<2x8xf32>) -> tensor<2x4xf32>
    (%8, %9, %10) = "npu.add_rms_norm" (%1, %1, %0) {} : (tensor<2x8xf32>, tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>, tensor<2x1xf32>, tensor<2x8xf32>
    (%27, %28, %29, %30) = "npu.add_layer_norm" (%1, %8, %0, %0) {additional_output:true} : (tensor<2x8xf32>, tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8xf32>, tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x8xf32>
    (%11) = "npu.linear" (%8, %10, <<NULL VALUE>>) {} : (tensor<2x8xf32>, tensor<2x8xf32>, <<NULL TYPE>>) -> tensor<2x2xf32>
    (%12) = "npu.layer_norm_eval" (%8, %0, <<NULL VALUE>>) {eps:1e-05,normalized_shape:[8]} : (tensor<2x8xf32>, tensor<8xf32>, <<NULL TYPE>>) -> tensor<2x8xf32>
    (%13) = "pd_op.reshape" (%12, %14) {stop_gradient:[true]} : (tensor<2x8xf32>, tensor<4xi64>) -> tensor<2x2x4x1xf32>
    (%15, %16, %17, %18, %19, %22, %23) = "npu.fusion_attention" (%13, %13, %13, <<NULL VALUE>>, <<NULL VALUE>>, %2, <<NULL VALUE>>, <<NULL VALUE>>) {head_num:2,input_layout:"BNSD",scale:0.35} : (tensor<2x2x4x1xf32>, tensor<2x2x4x1xf32>, tensor<2x2x4x1xf32>, <<NULL TYPE>>, <<NULL TYPE>>, tensor<2x2x4x4xb>, <<NULL TYPE>>, <<NULL TYPE>>) -> tensor<2x2x4x1xf32>, tensor<2x2x4x8xf32>, tensor<2x2x4x8xf32>, tensor<0xf32>, tensor<i64>, tensor<i64>, tensor<i64>
    (%24) = "npu.rotary_mul" (%15, %15, %15, <<NULL VALUE>>) {rotary_mode:"half"} : (tensor<2x2x4x1xf32>, tensor<2x2x4x1xf32>, tensor<2x2x4x1xf32>, <<NULL TYPE>>) -> tensor<2x2x4x1xf32>
    (%25) = "npu.scaled_masked_softmax" (%24, %2) {fixed_triu_mask:false,scale:0.25} : (tensor<2x2x4x1xf32>, tensor<2x2x4x4xb>) -> tensor<2x2x4x1xf32>
    (%7) = "pd_op.fetch" (%6) {col:0,name:"y",persistable:[true],stop_gradient:[false]} : (tensor<2x4xf32>) -> tensor<2x4xf32>
    (%26) = "pd_op.fetch" (%25) {col:1,name:"z",persistable:[true],stop_gradient:[false]} : (tensor<2x2x4x1xf32>) -> tensor<2x2x4x1xf32>
}
""".replace('(%13) = "pd_op.reshape" (%12, %14)',
            '(%14) = "pd_op.full_int_array" () {dtype:int64,place:Place(cpu),stop_gradient:[true],'
            'value:[2,2,4,1]} : () -> tensor<4xi64>\n    (%13) = "pd_op.reshape" (%12, %14)')


def test_every_npu_op_parses_verifies_and_prints_in_both_text_forms():
    program = api.parse(PROGRAM, from_version=4)
    api.verify(program, strict=True)
    assert {op.name for op in program.walk() if op.name.startswith("npu.")} == set(NPU_OPS)
    canonical = print_canonical(program)
    assert "epsilon:(Double)1e-06" in canonical and "head_num:(Int64)2" in canonical
    assert print_canonical(api.parse(canonical)) == canonical
    paddle = api.to_text(program, "paddle")
    assert '"npu.fusion_attention"' in paddle
    assert print_canonical(api.parse(paddle, from_version=4)) == canonical


def test_json_holding_npu_ops_warns_once_and_reads_back():
    program = api.parse(PROGRAM, from_version=4)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        written = write_program(program)
    mine = [w for w in caught if issubclass(w.category, PaddleCannotLoadWarning)]
    assert len(mine) == 1  # one per file, not one per op
    message = str(mine[0].message)
    assert "Paddle cannot load it" in message and "npu.fusion_attention" in message
    assert '"#":"npu.rms_norm"' in written  # a dialect Paddle has no id for keeps its name
    again = read_program(written, "written.json")
    assert program_differences(program, again) == []
    assert print_canonical(again) == print_canonical(program)
    # and it still runs: the npu ops lower to their CPU references
    assert set(api.lower(again, {"w": __import__("numpy").ones(8, "float32")}).pirc_fetch_names) == {"y", "z"}


def test_json_without_npu_ops_does_not_warn():
    program = api.parse(PROGRAM.split('    (%3, %4)')[0] + '    (%3) = "pd_op.relu" (%1) {} : '
                        '(tensor<2x8xf32>) -> tensor<2x8xf32>\n}\n', from_version=4)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PaddleCannotLoadWarning)
        write_program(program)


def test_pirc_opt_writing_npu_json_prints_one_warning_line(tmp_path):
    source = tmp_path / "npu.pir"
    source.write_text(PROGRAM)
    out = tmp_path / "npu.json"
    run = subprocess.run([sys.executable, "-m", "pirc", str(source), "--from-version", "4",
                          "-o", str(out)], capture_output=True, text=True, cwd=REPO)
    assert run.returncode == 0, run.stderr
    lines = run.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("warning: ") and "Paddle cannot load it" in lines[0]
    back = subprocess.run([sys.executable, "-m", "pirc", str(out), "--emit", "pir"],
                          capture_output=True, text=True, cwd=REPO)
    assert back.returncode == 0 and back.stderr == ""  # reading warns nothing, text neither
    assert back.stdout == print_canonical(api.parse(PROGRAM, from_version=4))
    assert print_canonical(api.load(str(out))) == print_canonical(api.parse(PROGRAM, from_version=4))
