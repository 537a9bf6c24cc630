"""fuse_for_npu: each rewrite on a small graph of kernel calls, and on a lowered corpus model."""

import operator
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import torch
from torch import fx

from pirc.lower.npu import ops
from pirc.lower.npu.fusion import fuse_for_npu

REPO = Path(__file__).resolve().parents[2]
g = torch.Generator().manual_seed(1)


# Stand-ins for the registered kernels: fusion finds a node's op through a {fn: op name} table.
def matmul(x, y, *, transpose_x=False, transpose_y=False):
    return torch.matmul(x.mT if transpose_x else x, y.mT if transpose_y else y)

def add(x, y):
    return x + y

def gelu(x, *, approximate=False):
    return torch.nn.functional.gelu(x, approximate="tanh" if approximate else "none")

def layer_norm(x, scale=None, bias=None, *, epsilon=1e-5, begin_norm_axis=1):
    shape = x.shape[begin_norm_axis:]
    out = torch.nn.functional.layer_norm(x, shape, scale.reshape(shape), bias.reshape(shape), epsilon)
    return out, None, None

def scale(x, s=1.0, *, bias=0.0, bias_after_scale=True):
    return x * s + bias

def softmax(x, *, axis=-1):
    return torch.softmax(x, axis)

def full(*, shape=(), value=0.0, dtype=torch.float32, place="cpu"):
    return torch.full(shape, value, dtype=dtype)

NAMES = {matmul: "pd_op.matmul", add: "pd_op.add", gelu: "pd_op.gelu", full: "pd_op.full",
         layer_norm: "pd_op.layer_norm", scale: "pd_op.scale", softmax: "pd_op.softmax"}


def module(build, **params):
    root = torch.nn.Module()
    for k, v in params.items():
        root.register_buffer(k, v)
    graph = fx.Graph()
    graph.output(build(graph))
    return fx.GraphModule(root, graph)


def targets(gm):
    return [n.target for n in gm.graph.nodes if n.op == "call_function"]


def check(gm, *inputs):
    before = gm(*inputs)
    fused = fuse_for_npu(gm, NAMES)
    after = fused(*inputs)
    torch.testing.assert_close(after, before, atol=1e-5, rtol=1e-4)
    torch.export.export(fused, inputs)
    return fused


def test_matmul_add_becomes_npu_linear():
    def build(gr):
        x = gr.placeholder("x")
        mm = gr.call_function(matmul, (x, gr.get_attr("w")), {"transpose_x": False, "transpose_y": False})
        return gr.call_function(add, (mm, gr.get_attr("b")))
    gm = module(build, w=torch.randn(6, 5, generator=g), b=torch.randn(5, generator=g))
    fused = check(gm, torch.randn(2, 3, 6, generator=g))
    assert ops.npu_linear in targets(fused) and add not in targets(fused) and matmul not in targets(fused)


def test_matmul_with_transpose_or_non_parameter_weight_is_left_alone():
    def build(gr):
        x, y = gr.placeholder("x"), gr.placeholder("y")
        a = gr.call_function(matmul, (x, gr.get_attr("w")), {"transpose_y": True})
        b = gr.call_function(matmul, (x, y), {})
        return (a, b)
    gm = module(build, w=torch.randn(5, 6, generator=g))
    fused = check(gm, torch.randn(2, 6, generator=g), torch.randn(6, 4, generator=g))
    assert ops.npu_linear not in targets(fused)


def test_bias_of_wrong_shape_is_not_fused_into_linear():
    def build(gr):
        x = gr.placeholder("x")
        mm = gr.call_function(matmul, (x, gr.get_attr("w")), {})
        return gr.call_function(add, (mm, gr.get_attr("b")))
    gm = module(build, w=torch.randn(6, 5, generator=g), b=torch.randn(2, 5, generator=g))
    fused = check(gm, torch.randn(2, 6, generator=g))
    assert add in targets(fused)  # matmul alone fused, bias add kept
    assert ops.npu_linear in targets(fused)


@pytest.mark.parametrize("approximate", [False, True])
def test_gelu_becomes_npu_gelu_with_paddle_approximate(approximate):
    def build(gr):
        return gr.call_function(gelu, (gr.placeholder("x"),), {"approximate": approximate})
    fused = check(module(build), torch.randn(10, generator=g) * 3)
    (node,) = [n for n in fused.graph.nodes if n.target is ops.npu_gelu]
    assert node.kwargs == {"approximate": "tanh" if approximate else "none"}


def test_layer_norm_with_unused_statistics_becomes_npu_layer_norm_eval():
    def build(gr):
        x = gr.placeholder("x")
        ln = gr.call_function(layer_norm, (x, gr.get_attr("w"), gr.get_attr("b")),
                              {"epsilon": 1e-6, "begin_norm_axis": 1})
        return gr.call_function(operator.getitem, (ln, 0))
    gm = module(build, w=torch.randn(12, generator=g), b=torch.randn(12, generator=g))
    fused = check(gm, torch.randn(2, 3, 4, generator=g))  # normalised over 3x4, flat scale
    assert ops.npu_layer_norm_eval in targets(fused) and layer_norm not in targets(fused)


def test_layer_norm_whose_mean_is_used_is_left_alone():
    def build(gr):
        x = gr.placeholder("x")
        ln = gr.call_function(layer_norm, (x, gr.get_attr("w"), gr.get_attr("b")), {})
        return (gr.call_function(operator.getitem, (ln, 0)), gr.call_function(operator.getitem, (ln, 1)))
    gm = module(build, w=torch.randn(4, generator=g), b=torch.randn(4, generator=g))
    fuse_for_npu(gm, NAMES)
    assert layer_norm in targets(gm)


def test_softmax_of_scale_becomes_scaled_masked_softmax():
    def build(gr):
        x = gr.placeholder("x")
        s = gr.call_function(full, (), {"shape": [1], "value": 0.25})
        sc = gr.call_function(scale, (x, s), {"bias": 0.0, "bias_after_scale": True})
        return gr.call_function(softmax, (sc,), {"axis": -1})
    fused = check(module(build), torch.randn(2, 2, 4, 4, generator=g))
    (node,) = [n for n in fused.graph.nodes if n.target is ops.npu_scaled_masked_softmax]
    assert node.kwargs == {"scale": 0.25}


@pytest.mark.parametrize("kw", [{"bias": 1.0}, {}])
def test_softmax_not_fused_with_scale_bias_or_other_axis(kw):
    def build(gr):
        x = gr.placeholder("x")
        sc = gr.call_function(scale, (x, 2.0), kw or {"bias": 0.0})
        return gr.call_function(softmax, (sc,), {"axis": 1} if not kw else {"axis": -1})
    fused = check(module(build), torch.randn(2, 3, generator=g))
    assert ops.npu_scaled_masked_softmax not in targets(fused)


def test_transformer_on_npu_device_runs_references_and_matches_cpu():
    import pirc.api as api
    import pirc.lower.kernels  # noqa: F401
    base = REPO / "tests/fixtures/corpus/3.3.1/transformer.3.3.1"
    program = api.load(str(base) + ".json")
    io = np.load(str(base) + ".io.npz")
    feeds = {k[4:]: torch.from_numpy(io[k]) for k in io.files if k.startswith("in__")}
    cpu = api.lower(program, str(base) + ".pdiparams", device="cpu")
    npu = api.lower(program, str(base) + ".pdiparams", device="npu")
    used = Counter(t.__name__ for t in targets(npu) if getattr(t, "__module__", "") == ops.__name__)
    # the attention core (matmul, scale, softmax, inference dropout, matmul) is one call now,
    # its attention_out alone (the only result read: no softmax statistics, ops.py)
    assert used == {"npu_linear": 4, "npu_layer_norm_eval": 2, "npu_gelu": 1,
                    "npu_fusion_attention_out": 1}
    a, b = cpu(**feeds), npu(**feeds)
    for x, y in zip(a, b):
        torch.testing.assert_close(y, x, atol=1e-5, rtol=1e-4)
    np.testing.assert_allclose(b[0].numpy(), io["reload_out__0"], atol=1e-5, rtol=1e-4)
    torch.export.export(npu, (), feeds)
