"""Device npu: each Paddle fused op lowers to its one torch_npu call, chosen from the op alone
(pirc/lower/npu/emit.py), on the per-op Paddle fixtures; every fx node names its PIR op and
where it stands; lower(device="npu") runs the npu pipeline unless told otherwise."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import torch

import pirc.api as api
from npu_calls import fused_calls
from pirc.lower.failures import OP_META, OpOrigin
from pirc.lower.npu import emit, ops, reference
from pirc.lower.npu.schema_check import check_call, load_schemas

REPO = Path(__file__).resolve().parents[2]
OPS = REPO / "tests" / "fixtures" / "ops"
RELEASES = ("3.0.0", "3.3.1")


def op_fixture(name, release):
    base = OPS / release / f"{name}.{release}"
    io = np.load(f"{base}.io.npz")
    feeds = {k[4:]: torch.from_numpy(io[k]) for k in io.files if k.startswith("in__")}
    outs = [io[f"out__{i}"] for i in range(sum(k.startswith("out__") for k in io.files))]
    params = f"{base}.pdiparams" if Path(f"{base}.pdiparams").exists() else None
    return api.load(f"{base}.json"), params, feeds, outs


# fixture -> the calls device npu makes of it (what each op's emitter accepts, and why not)
EXPECTED = {
    # fc: four of five fold every dim but the last (in_num_col_dims = rank - 1); one is relu;
    # fetch 3 (rank 3, in_num_col_dims 1) folds two dims into the row: its kernel
    "fc": {"npu_linear": 4},
    "gelu": {"npu_gelu": 2},  # erf and tanh
    "layer_norm": {"npu_layer_norm_eval": 4},  # no statistics fetched
    # a bias, alpha 0.5, no residual, no norm weights, and every mean / variance fetched:
    # each keeps its kernel (test_fused_bias_residual_layernorm_declines_with_its_reason)
    "fused_bias_residual_layernorm": {},
    "self_dp_attention": {"npu_fusion_attention": 2},  # q, k, v views of x, layout BSND
}


@pytest.mark.parametrize("release", RELEASES)
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_fused_op_lowers_to_its_torch_npu_call_and_keeps_paddles_numbers(name, release, monkeypatch):
    program, params, feeds, paddle_out = op_fixture(name, release)
    npu = api.lower(program, params, device="npu")
    assert fused_calls(npu) == EXPECTED[name]
    assert not fused_calls(api.lower(program, params))
    # the NPU branch forced, torch_npu replaced by a recorder: each call binds to the schemas
    calls = []

    def record(fn, *args, **kwargs):
        calls.append((fn, len(args), tuple(kwargs)))
        return getattr(reference, fn)(*args, **kwargs)

    monkeypatch.setattr(ops, "on_npu", lambda t: isinstance(t, torch.Tensor))
    monkeypatch.setattr(ops, "npu_call", record)
    out = npu(**feeds)
    assert Counter(c[0] for c in calls) == EXPECTED[name]
    for version in ("2.13.0", "2.14.0"):
        for call in calls:
            assert check_call(load_schemas(version), *call) == [], (version, call)
    assert len(out) == len(paddle_out)
    for got, want in zip(out, paddle_out):
        np.testing.assert_allclose(got.numpy(), want, atol=1e-5, rtol=1e-4)


def test_fc_relu_is_the_linear_call_then_relu():
    program, params, feeds, _ = op_fixture("fc", "3.3.1")
    npu = api.lower(program, params, device="npu")
    relus = [n for n in npu.graph.nodes if n.target is torch.relu]
    assert len(relus) == 1 and relus[0].args[0].target is ops.npu_linear
    declined = [op for op in program.walk() if op.name == "pd_op.fc"
                and emit.why_not(op, 1) is not None]
    assert [emit.why_not(op, 1) for op in declined] == [
        "in_num_col_dims does not fold every dim but the last (npu_linear does)"]


# -- decisions from the op alone: result uses, attributes, static types ---------------------

DATA = ('"pd_op.data" () {{dtype:float32,name:"{name}",place:Place(undefined:0),shape:[{dims}],'
        'stop_gradient:[true]}} : () -> tensor<{shape}xf32>')


def data(name, *dims):
    return DATA.format(name=name, dims=",".join(map(str, dims)), shape="x".join(map(str, dims)))


def fetch(v, col, t):
    return (f'"pd_op.fetch" ({v}) {{col:{col},name:"f{col}",persistable:[true],'
            f'stop_gradient:[true]}} : ({t}) -> {t}')


def parse(lines, version=4):
    return api.parse("{\n" + "\n".join(f"    {ln}" for ln in lines) + "\n}\n", from_version=version)


LN = ('"pd_op.layer_norm" (%0, <<NULL VALUE>>, <<NULL VALUE>>) {begin_norm_axis:1,epsilon:1e-05,'
      'stop_gradient:[true,true,true]} : (tensor<2x6xf32>, <<NULL TYPE>>, <<NULL TYPE>>) -> '
      'tensor<2x6xf32>, tensor<2xf32>, tensor<2xf32>')


def test_layer_norm_whose_statistics_are_used_or_returned_keeps_its_kernel():
    x = torch.randn(2, 6, generator=torch.Generator().manual_seed(1))
    used = parse(["(%0) = " + data("x", 2, 6), "(%1, %2, %3) = " + LN,
                  "(%4) = " + fetch("%1", 0, "tensor<2x6xf32>"), "(%5) = " + fetch("%2", 1, "tensor<2xf32>")])
    assert fused_calls(api.lower(used, device="npu")) == {}
    # no fetch ops: the mean and variance are unused, so not outputs either (only a bound
    # value is returned, and a multi-result op's unused results are never bound)
    fetchless = parse(["(%0) = " + data("x", 2, 6), "(%1, %2, %3) = " + LN,
                       '(%4) = "pd_op.relu" (%1) {stop_gradient:[true]} : (tensor<2x6xf32>) -> tensor<2x6xf32>'])
    npu = api.lower(fetchless, device="npu", pipeline="")  # (dce would remove it all)
    assert fused_calls(npu) == {"npu_layer_norm_eval": 1} and len(npu(x)) == 1
    torch.testing.assert_close(npu(x)[0], api.lower(fetchless)(x)[0], atol=1e-6, rtol=1e-5)
    only_out = parse(["(%0) = " + data("x", 2, 6), "(%1, %2, %3) = " + LN,
                      "(%4) = " + fetch("%1", 0, "tensor<2x6xf32>")])
    npu = api.lower(only_out, device="npu")
    assert fused_calls(npu) == {"npu_layer_norm_eval": 1}
    torch.testing.assert_close(npu(x)[0], api.lower(only_out)(x)[0], atol=1e-6, rtol=1e-5)


def swiglu(with_y):
    t, h = "tensor<2x8xf32>", "tensor<2x4xf32>"
    if with_y:
        return parse(["(%0) = " + data("x", 2, 8),
                      f'(%1) = "pd_op.swiglu" (%0, %0) {{stop_gradient:[true]}} : ({t}, {t}) -> {t}',
                      "(%2) = " + fetch("%1", 0, t)])
    return parse(["(%0) = " + data("x", 2, 8),
                  f'(%1) = "pd_op.swiglu" (%0, <<NULL VALUE>>) {{stop_gradient:[true]}} : ({t}, <<NULL TYPE>>) -> {h}',
                  "(%2) = " + fetch("%1", 0, h)])


@pytest.mark.parametrize("with_y", [False, True])
def test_swiglu_without_y_is_npu_swiglu(with_y):
    x = torch.randn(2, 8, generator=torch.Generator().manual_seed(2))
    program = swiglu(with_y)
    npu = api.lower(program, device="npu")
    assert fused_calls(npu) == ({} if with_y else {"npu_swiglu": 1})
    torch.testing.assert_close(npu(x)[0], api.lower(program)(x)[0])


RMS4 = ('"pd_op.rms_norm" (%1, %0) {epsilon:1e-06,normalized_shape:[3,8],stop_gradient:[false,false]} '
        ': (tensor<2x3x8xf32>, tensor<3x8xf32>) -> tensor<2x3x8xf32>, tensor<2xf32>')
PARAM = ('"builtin.parameter" () {is_distributed:[false],is_parameter:[true],need_clip:[true],'
         'parameter_name:"w",persistable:[true],stop_gradient:[false],trainable:[true]} : () -> tensor<3x8xf32>')


@pytest.mark.parametrize("fetch_invvar", [False, True])
def test_version_4_rms_norm_is_npu_rms_norm_unless_invvar_is_used(fetch_invvar):
    g = torch.Generator().manual_seed(5)
    x, w = torch.randn(2, 3, 8, generator=g), torch.randn(3, 8, generator=g)
    lines = ["(%0) = " + PARAM, "(%1) = " + data("x", 2, 3, 8), "(%2, %3) = " + RMS4,
             "(%4) = " + fetch("%2", 0, "tensor<2x3x8xf32>")]
    if fetch_invvar:
        lines.append("(%5) = " + fetch("%3", 1, "tensor<2xf32>"))
    program = parse(lines)
    npu = api.lower(program, {"w": w.numpy()}, device="npu")
    assert fused_calls(npu) == ({} if fetch_invvar else {"npu_rms_norm": 1})
    torch.testing.assert_close(npu(x)[0], torch.nn.functional.rms_norm(x, (3, 8), w, 1e-6))


def test_fused_rms_norm_of_both_releases_and_upgraded():
    """PIR 1-3's pd_op.rms_norm (3.3.1's fused_rms_norm_quant): the fixture's plain and
    two-dim forms are npu_rms_norm, the residual one npu_add_rms_norm, residual + bias stays."""
    base = REPO / "tests" / "fixtures" / "fusion"
    want = {"npu_rms_norm": 2, "npu_add_rms_norm": 1}
    for release in RELEASES:
        stem = base / release / f"fused_rms_norm.{release}"
        io = np.load(f"{stem}.io.npz")
        feeds = {k[4:]: torch.from_numpy(io[k]) for k in io.files if k.startswith("in__")}
        program = api.load(f"{stem}.json")
        for p in (program, api.upgrade(program, 4)):
            npu = api.lower(p, f"{stem}.pdiparams", device="npu")
            assert fused_calls(npu) == want
            for i, y in enumerate(npu(**feeds)):
                np.testing.assert_allclose(y.numpy(), io[f"out__{i}"], atol=1e-5, rtol=1e-4)


# -- node.meta["pir_op"] ---------------------------------------------------------------------


def test_every_node_names_its_op_and_line_in_text_input():
    text = (REPO / "tests" / "fixtures" / "ops" / "3.3.1" / "gelu.3.3.1.pir.txt").read_text()
    program = api.parse(text, from_version=4)
    lines = text.splitlines()
    for device in ("cpu", "npu"):
        gm = api.lower(program, device=device)
        calls = [n for n in gm.graph.nodes if n.op in ("call_function", "get_attr")]
        assert calls and all(isinstance(n.meta.get(OP_META), OpOrigin) for n in calls)
        for n in calls:
            origin = n.meta[OP_META]
            assert origin.line > 0 and not origin.path
            # the line really holds that op, even after the npu pipeline ran on a copy
            assert f'"{origin.name}"' in lines[origin.line - 1], (device, origin)
        names = {n.meta[OP_META].name for n in calls}
        assert "pd_op.gelu" in names and str(calls[-1].meta[OP_META]).startswith("pd_op.")


@pytest.mark.parametrize("name", ["if_elif", "while_break"])
def test_nodes_name_their_json_path_in_json_input_nested_ones_too(name):
    from pirc.ir.locations import json_path_of
    program = api.load(str(REPO / "tests" / "fixtures" / "control_flow" / "3.3.1" / f"{name}.json"))
    expected = {json_path_of(op): op.name for op in program.walk() if op is not program.module}
    gm = api.lower(program, pipeline="")
    seen = []
    for m in gm.modules():
        if isinstance(m, torch.fx.GraphModule):
            for n in m.graph.nodes:
                if n.op == "call_function":
                    origin = n.meta[OP_META]
                    assert origin.line == 0 and expected[origin.path] == origin.name
                    seen.append(origin.path)
    assert any(".regions[" in p[len("program.regions[0]"):] for p in seen)  # a nested op


def test_a_kernel_failure_on_device_npu_names_the_line_of_the_program_given(tmp_path):
    # reshape to a size the input does not have: fails at run time, at line 4
    src = tmp_path / "bad.pir"
    src.write_text("{\n    (%0) = " + data("x", 2, 3) + "\n"
                   '    (%1) = "pd_op.full_int_array" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[4,4]} : () -> tensor<2xi64>\n'
                   '    (%2) = "pd_op.reshape" (%0, %1) {stop_gradient:[true]} : (tensor<-1x3xf32>, tensor<2xi64>) -> tensor<4x4xf32>\n'
                   "    (%3) = " + fetch("%2", 0, "tensor<4x4xf32>") + "\n}\n")
    src.write_text(src.read_text().replace("shape:[2,3]", "shape:[-1,3]").replace("tensor<2x3xf32>", "tensor<-1x3xf32>"))
    np.savez(tmp_path / "in.npz", x=np.ones((2, 3), "float32"))
    run = subprocess.run([sys.executable, "-m", "pirc.cli.run", str(src), "--from-version", "4",
                          "--inputs", str(tmp_path / "in.npz"), "--outputs", str(tmp_path / "out.npz"),
                          "--device", "npu"], capture_output=True, text=True, cwd=REPO)
    assert run.returncode == 1
    assert f"{src}:4:" in run.stderr and "pd_op.reshape failed" in run.stderr, run.stderr


# -- lower(device="npu") runs the npu pipeline ---------------------------------------------


def test_lower_on_npu_runs_the_npu_pipeline_on_a_copy_unless_told_otherwise():
    t = "tensor<2x8xf32>"
    relu = f'"pd_op.relu" (%0) {{stop_gradient:[true]}} : ({t}) -> {t}'
    program = parse(["(%0) = " + data("x", 2, 8), "(%1) = " + relu, "(%2) = " + relu,
                     f'(%3) = "pd_op.add" (%1, %2) {{stop_gradient:[true]}} : ({t}, {t}) -> {t}',
                     "(%4) = " + fetch("%3", 0, t)])
    before = api.to_text(program)

    def relus(gm):  # relu ops lowered (one op may be several calls: threshold, nan_to_num_)
        return len({n.meta[OP_META] for n in gm.graph.nodes if n.meta.get(OP_META) is not None
                    and n.meta[OP_META].name == "pd_op.relu" and n.op == "call_function"})

    assert relus(api.lower(program)) == 2  # cpu: no pipeline
    assert relus(api.lower(program, device="npu")) == 1  # npu includes default's cse
    assert relus(api.lower(program, device="npu", pipeline="")) == 2
    assert relus(api.lower(program, device="npu", pipeline="dce")) == 2
    assert api.to_text(program) == before  # the copy was optimised, not the program


def rope(neox=False, dtype="f32", table="1x4x1x8"):
    q, t = f"tensor<2x4x3x8x{dtype}>", f"tensor<{table}x{dtype}>"
    dims = table.split("x")
    data_t = ('"pd_op.data" () {{dtype:{d},name:"{n}",place:Place(undefined:0),shape:[{s}],'
              'stop_gradient:[true]}} : () -> {t}')
    d = {"f32": "float32", "f16": "float16"}[dtype]
    return parse([
        "(%0) = " + data_t.format(d=d, n="q", s="2,4,3,8", t=q),
        "(%1) = " + data_t.format(d=d, n="sin", s=",".join(dims), t=t),
        "(%2) = " + data_t.format(d=d, n="cos", s=",".join(dims), t=t),
        f'(%3, %4, %5) = "pd_op.fused_rotary_position_embedding" (%0, <<NULL VALUE>>, <<NULL VALUE>>, '
        f'%1, %2, <<NULL VALUE>>) {{rotary_emb_base:10000,stop_gradient:[true,true,true],time_major:false,'
        f'use_neox_rotary_style:{str(neox).lower()}}} : ({q}, <<NULL TYPE>>, <<NULL TYPE>>, {t}, {t}, '
        f'<<NULL TYPE>>) -> {q}, <<NULL TYPE>>, <<NULL TYPE>>',
        "(%6) = " + f'"pd_op.fetch" (%3) {{col:0,name:"out",persistable:[true],stop_gradient:[true]}} : ({q}) -> {q}'])


@pytest.mark.parametrize("table", ["1x4x1x8", "4x8"])
def test_fused_rotary_embedding_of_q_alone_is_npu_rotary_mul(table):
    g = torch.Generator().manual_seed(9)
    q = torch.randn(2, 4, 3, 8, generator=g)
    sin, cos = torch.rand(*map(int, table.split("x")), generator=g), torch.rand(*map(int, table.split("x")), generator=g)
    program = rope(table=table)
    npu = api.lower(program, device="npu")
    assert fused_calls(npu) == {"npu_rotary_mul": 1}
    q1, q2 = q[..., :4], q[..., 4:]
    want = q * cos.reshape(1, 4, 1, 8) + torch.cat((-q2, q1), -1) * sin.reshape(1, 4, 1, 8)
    torch.testing.assert_close(npu(q, sin, cos)[0], want, atol=0, rtol=0)  # same ops, float32
    torch.testing.assert_close(npu(q, sin, cos)[0], api.lower(program)(q, sin, cos)[0], atol=0, rtol=0)
    # the interleaved style or another dtype: the kernel
    assert fused_calls(api.lower(rope(neox=True, table=table), device="npu")) == {}
    assert fused_calls(api.lower(rope(dtype="f16", table=table), device="npu")) == {}


# -- fused_bias_residual_layernorm -> npu_add_layer_norm --------------------------------------


def test_fused_bias_residual_layernorm_declines_with_its_reason():
    program, _, _, _ = op_fixture("fused_bias_residual_layernorm", "3.3.1")
    reasons = [emit.why_not(op, 1) for op in program.walk()
               if op.name == "pd_op.fused_bias_residual_layernorm"]
    assert reasons == ["a bias (npu_add_layer_norm's schema takes none)",
                       "residual_alpha is not 1 (npu_add_layer_norm adds x1 + x2)",
                       "no residual (the kernel then normalises x alone and ignores the bias)",
                       "a bias (npu_add_layer_norm's schema takes none)"]


ADD_LN = ('"pd_op.layer_norm" (%4, %2, %3) {{begin_norm_axis:2,epsilon:1e-05,'
          'stop_gradient:[true,true,true]}} : ({t}, tensor<8xf32>, tensor<8xf32>) -> {t}, '
          'tensor<{rows}xf32>, tensor<{rows}xf32>')


def residual_layer_norm(batch=2, fetch_sum=True, fetch_mean=False):
    """layer_norm(x + r, w, b) over the last dim of [batch, 3, 8] (-1: a dynamic batch), the
    sum fetched too where asked (the residual stream: fused_bias_residual_layernorm's
    residual_out), the mean where asked (the fusion then declines)."""
    t = f"tensor<{batch}x3x8xf32>"
    rows = -1 if batch < 0 else batch * 3
    lines = ["(%0) = " + data("x", batch, 3, 8), "(%1) = " + data("r", batch, 3, 8),
             "(%2) = " + data("w", 8), "(%3) = " + data("b", 8),
             f'(%4) = "pd_op.add" (%0, %1) {{stop_gradient:[true]}} : ({t}, {t}) -> {t}',
             "(%5, %6, %7) = " + ADD_LN.format(t=t, rows=rows),
             "(%8) = " + fetch("%5", 0, t)]
    if fetch_sum:
        lines.append("(%9) = " + fetch("%4", 1, t))
    if fetch_mean:
        lines.append("(%10) = " + fetch("%6", 2, f"tensor<{rows}xf32>"))
    return parse(lines)


def add_ln_inputs(x, seed=11):
    g = torch.Generator().manual_seed(seed)
    return (torch.as_tensor(x), torch.randn(x.shape, generator=g) * 0.5,
            torch.randn(8, generator=g), torch.randn(8, generator=g))


@pytest.mark.parametrize("batch", [2, -1])
@pytest.mark.parametrize("fetch_sum", [False, True])
def test_residual_layer_norm_is_npu_add_layer_norm(batch, fetch_sum, monkeypatch):
    """fuse-residual-layer-norm's op on device npu is one npu_add_layer_norm: the unfused
    program's bits on device npu (add, then layer_norm as npu_layer_norm_eval), x + r as
    residual_out where it is read (additional_output only then); the call binds to both
    schemas."""
    program = residual_layer_norm(batch, fetch_sum)
    npu = api.lower(program, device="npu")
    assert fused_calls(npu) == {"npu_add_layer_norm": 1}
    unfused = api.lower(program, device="npu", pipeline="")
    assert fused_calls(unfused) == {"npu_layer_norm_eval": 1}
    x = torch.randn(2, 3, 8, generator=torch.Generator().manual_seed(3)) * 4 + 2
    feeds = add_ln_inputs(x)
    got, want = npu(*feeds), unfused(*feeds)
    assert len(got) == len(want) == (2 if fetch_sum else 1)
    for a, b in zip(got, want):
        assert torch.equal(a, b)
    calls = []

    def record(fn, *args, **kwargs):
        calls.append((fn, len(args), tuple(kwargs)))
        # epsilon: layer_norm's float32 attribute, as npu_layer_norm_eval gets it
        assert kwargs == {"epsilon": float(np.float32(1e-5)), "additional_output": fetch_sum}
        return getattr(reference, fn)(*args, **kwargs)

    monkeypatch.setattr(ops, "on_npu", lambda t: isinstance(t, torch.Tensor))
    monkeypatch.setattr(ops, "npu_call", record)
    for a, b in zip(npu(*feeds), want):
        assert torch.equal(a, b)
    assert [c[0] for c in calls] == ["npu_add_layer_norm"]
    for version in ("2.13.0", "2.14.0"):
        assert check_call(load_schemas(version), *calls[0]) == [], version


def test_residual_layer_norm_on_npu_keeps_the_unfused_numbers_on_boundary_inputs():
    """Every boundary input as x: device npu's fused program against the unfused program on
    the CPU (pd_op.add, pd_op.layer_norm's kernel), within fuse-residual-layer-norm's
    recorded tolerance; against the unfused program on device npu, bit for bit."""
    from pirc.testing import boundary_inputs
    from pirc.testing import fusion_tolerance as ft

    program = residual_layer_norm(-1)
    npu = api.lower(program, device="npu")
    assert fused_calls(npu) == {"npu_add_layer_norm": 1}
    cpu, unfused_npu = api.lower(program), api.lower(program, device="npu", pipeline="")
    failures = []
    for label, x in boundary_inputs("f32", (2, 3, 8)).items():
        feeds = add_ln_inputs(x)
        after = npu(*feeds)
        for i, (a, b, c) in enumerate(zip(cpu(*feeds), after, unfused_npu(*feeds))):
            verdict = ft.within("fuse-residual-layer-norm", "f32", a.numpy(), b.numpy(), label)
            if not verdict.ok:
                failures.append(f"{label}, output {i}: {verdict.detail}")
            try:
                torch.testing.assert_close(b, c, atol=0, rtol=0, equal_nan=True)
            except AssertionError:
                failures.append(f"{label}, output {i}: not the unfused npu bits")
    assert not failures, "\n".join(failures)


def test_near_constant_rows_keep_layer_norms_numbers_on_npu_and_the_kernels_on_cpu():
    """Rows within 1e-3 of 1000.7, where Paddle's CPU kernel's E[v^2] - mean^2 cancels
    (docs/FUSION.md): npu_add_layer_norm's variance is layer_norm's, so device npu keeps the
    unfused program's numbers; the fused op on device cpu (a program holding it) still runs
    Paddle's kernel, NaN included."""
    program = residual_layer_norm(-1, fetch_sum=False)
    fused = program.clone()
    api.run_pipeline(fused, "fuse-residual-layer-norm", device="npu", report=False)
    assert "pd_op.fused_bias_residual_layernorm" in {op.name for op in fused.walk()}
    g = torch.Generator().manual_seed(4)
    x = 1000.7 + (torch.rand(2, 3, 8, generator=g) - 0.5) * 1e-3
    feeds = (x, torch.zeros(2, 3, 8), torch.ones(8), torch.zeros(8))
    on_npu = api.lower(fused, device="npu", pipeline="")
    assert fused_calls(on_npu) == {"npu_add_layer_norm": 1}
    want = api.lower(program, device="npu", pipeline="")(*feeds)[0]
    assert torch.equal(on_npu(*feeds)[0], want) and not want.isnan().any()
    on_cpu = api.lower(fused, device="cpu", pipeline="")
    assert fused_calls(on_cpu) == {}
    assert not torch.allclose(on_cpu(*feeds)[0], want, atol=1e-2, equal_nan=False)


def test_residual_layer_norm_whose_mean_is_read_is_not_fused():
    """The mean fetched: fuse-residual-layer-norm declines (its near miss), nothing for the
    emitter to take; and a fused op whose statistics are read keeps its kernel."""
    program = residual_layer_norm(2, fetch_mean=True)
    assert fused_calls(api.lower(program, device="npu")) == {}
    fused = residual_layer_norm(2, fetch_mean=True)
    result = api.run_pipeline(fused, "npu", device="npu", report=False)
    assert "pd_op.fused_bias_residual_layernorm" not in {op.name for op in fused.walk()}
    near = [m["failed"] for r in result.passes if r.name == "fuse-residual-layer-norm"
            for n in r.near_misses.values() for m in n.first]
    assert near == ["layer_norm statistics unused (the fused op's variance holds "
                    "1/sqrt(var + eps))"]
