"""pirc.passes.infra.same_dim: a -1 dim is proved the same as another only where both are
copied from one dim of one value; never where a broadcast could make them differ.  And on
the LLaMA block saved with a dynamic batch (tests/fixtures/bench), fuse-swiglu and
fuse-attention now fire and keep the numbers."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

import pirc
import pirc.api as api
from pirc.passes.infra.same_dim import origin, same_dim

REPO = Path(__file__).resolve().parents[2]


def t(*dims):
    return "tensor<" + "x".join(map(str, dims)) + "xf32>"


def data(i, name, *dims):
    return (f'(%{i}) = "pd_op.data" () {{dtype:float32,name:"{name}",place:Place(undefined:0),'
            f'shape:[{",".join(map(str, dims))}],stop_gradient:[true]}} : () -> {t(*dims)}')


def program(*lines):
    return pirc.parse("{\n" + "\n".join(f"    {ln}" for ln in lines) + "\n}\n", from_version=4)


def results(prog):
    return [r for op in prog.module.walk() for r in op.results]


def test_two_feeds_are_not_one_dim_and_one_feed_is():
    p = program(data(0, "x", -1, 16), data(1, "y", -1, 16),
                f'(%2) = "pd_op.relu" (%0) {{stop_gradient:[true]}} : ({t(-1, 16)}) -> {t(-1, 16)}')
    x, y, r = results(p)
    assert same_dim(x, 0, r, 0) and not same_dim(x, 0, y, 0)
    assert same_dim(x, 1, y, 1)            # static 16 both
    assert origin(r, 0) == (x, 0) and origin(r, 1) == 16


def test_broadcast_takes_the_other_dim_only_past_a_static_one():
    p = program(data(0, "x", -1, 4, 16), data(1, "y", -1, 4, 16), data(2, "w", 16),
                data(3, "c", 1, 4, 16),
                f'(%4) = "pd_op.multiply" (%0, %2) {{stop_gradient:[true]}} : ({t(-1, 4, 16)}, {t(16)}) -> {t(-1, 4, 16)}',
                f'(%5) = "pd_op.add" (%4, %3) {{stop_gradient:[true]}} : ({t(-1, 4, 16)}, {t(1, 4, 16)}) -> {t(-1, 4, 16)}',
                f'(%6) = "pd_op.add" (%0, %1) {{stop_gradient:[true]}} : ({t(-1, 4, 16)}, {t(-1, 4, 16)}) -> {t(-1, 4, 16)}',
                f'(%7) = "pd_op.add" (%0, %4) {{stop_gradient:[true]}} : ({t(-1, 4, 16)}, {t(-1, 4, 16)}) -> {t(-1, 4, 16)}')
    x, y, _, _, xw, xwc, xy, xx = results(p)
    assert same_dim(x, 0, xwc, 0) and same_dim(xw, 0, xx, 0)
    # x + y: either -1 may be 1 and broadcast the other -- the sum's batch is neither's
    assert not same_dim(xy, 0, x, 0) and not same_dim(xy, 0, y, 0) and origin(xy, 0) == (xy, 0)


def test_matmul_reshape_transpose_and_slice_copy_their_dims():
    p = program(data(0, "x", -1, 4, 16), data(1, "w", 16, 16),
                f'(%2) = "pd_op.matmul" (%0, %1) {{stop_gradient:[true],transpose_x:false,transpose_y:false}} : ({t(-1, 4, 16)}, {t(16, 16)}) -> {t(-1, 4, 16)}',
                '(%3) = "pd_op.full_int_array" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[0,0,2,8]} : () -> tensor<4xi64>',
                f'(%4) = "pd_op.reshape" (%2, %3) {{stop_gradient:[true]}} : ({t(-1, 4, 16)}, tensor<4xi64>) -> {t(-1, 4, 2, 8)}',
                f'(%5) = "pd_op.transpose" (%4) {{perm:[0,2,1,3],stop_gradient:[true]}} : ({t(-1, 4, 2, 8)}) -> {t(-1, 2, 4, 8)}',
                '(%6) = "pd_op.full_int_array" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[-1,2,4,8]} : () -> tensor<4xi64>',
                f'(%7) = "pd_op.reshape" (%2, %6) {{stop_gradient:[true]}} : ({t(-1, 4, 16)}, tensor<4xi64>) -> {t(-1, 2, 4, 8)}',
                '(%8) = "pd_op.full_int_array" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[0]} : () -> tensor<1xi64>',
                '(%9) = "pd_op.full_int_array" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[4]} : () -> tensor<1xi64>',
                f'(%10) = "pd_op.slice" (%5, %8, %9) {{axes:[3],decrease_axis:[],infer_flags:[1],stop_gradient:[true]}} : ({t(-1, 2, 4, 8)}, tensor<1xi64>, tensor<1xi64>) -> {t(-1, 2, 4, 4)}',
                f'(%11) = "pd_op.matmul" (%5, %10) {{stop_gradient:[true],transpose_x:false,transpose_y:true}} : ({t(-1, 2, 4, 8)}, {t(-1, 2, 4, 4)}) -> {t(-1, 2, 4, 4)}')
    r = results(p)
    x, heads, inferred, sliced, scores = r[0], r[5], r[7], r[10], r[11]
    assert same_dim(heads, 0, x, 0) and same_dim(sliced, 0, x, 0) and same_dim(scores, 0, x, 0)
    # a -1 in the reshape target is inferred from the element count, not copied
    assert not same_dim(inferred, 0, x, 0)


def test_a_value_written_in_place_is_only_itself():
    p = program(data(0, "x", -1, 16),
                f'(%1) = "pd_op.relu" (%0) {{stop_gradient:[true]}} : ({t(-1, 16)}) -> {t(-1, 16)}',
                f'(%2) = "pd_op.relu_" (%1) {{stop_gradient:[true]}} : ({t(-1, 16)}) -> {t(-1, 16)}',
                f'(%3) = "pd_op.exp" (%1) {{stop_gradient:[true]}} : ({t(-1, 16)}) -> {t(-1, 16)}')
    x, r, _, e = results(p)
    assert not same_dim(r, 0, x, 0) and not same_dim(e, 0, x, 0)


BENCH = REPO / "tests" / "fixtures" / "bench" / "3.3.1" / "llama_block.3.3.1"


def test_llama_block_with_a_dynamic_batch_fuses_swiglu_and_attention():
    prog = pirc.load(str(BENCH) + ".json")
    params = pirc.read_params(str(BENCH) + ".pdiparams", prog)
    work = pirc.load(str(BENCH) + ".json")
    result = pirc.run_pipeline(work, "npu", params=params, device="npu", report=False)
    rewrites = {p.name: p.rewrites for p in result.passes if p.rewrites}
    assert rewrites.get("fuse-swiglu") == 1 and rewrites.get("fuse-attention") == 1
    names = {op.name for op in work.walk()}
    assert {"pd_op.swiglu", "npu.fusion_attention"} <= names
    io = np.load(str(BENCH) + ".io.npz")
    feeds = {k[4:]: io[k] for k in io.files if k.startswith("in__")}
    unfused = api.lower(prog, params, device="npu", pipeline="")
    fused = api.lower(prog, params, device="npu")
    for batch in (1, 3):
        args = [torch.from_numpy(np.ascontiguousarray(
            np.repeat(feeds[n][:1], batch, 0) if n == "x" else feeds[n])) for n in ("x", "cos", "sin")]
        for a, b in zip(fused(*args), unfused(*args)):
            torch.testing.assert_close(a, b, atol=1e-5, rtol=1e-4)
