"""Specialised kernel calls (pirc.lower.specialize) compute what the kernels compute.

Every kernel case of tests/fixtures/kernel_cases whose kernel has a specialiser runs twice: as
the kernel call, and as a one-op graph with the operands' static types on its placeholders
(all dims static, and again with a dynamic first dim) after specialisation.  Results must be
bit-identical, except for the specialisations documented as reduction-order-close
(`CLOSE`).  The parity tests (test_parity_corpus, test_op_fixtures) check the specialised
corpus models and op fixtures against Paddle itself.
"""

from __future__ import annotations

import json
import operator
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.fx as fx

import pirc.lower.kernels  # noqa: F401 - registers the kernels
from kernel_case_values import attribute, decode
from pirc.ir.specs import get_spec
from pirc.lower.specialize import specialize_calls
from pirc.runtime.registry import REGISTRY

CASES_DIR = Path(__file__).resolve().parents[1] / "fixtures" / "kernel_cases"
RELEASE_VERSIONS = {"3.0.0": 1, "3.3.1": 4}
CLOSE = {"pd_op.layer_norm"}  # torch's fused layer_norm: reduction order (nn.py says why)
# Operands that are parameters in real programs (batch norm's statistics, scale and bias).
PARAMETER_OPERANDS = {"pd_op.batch_norm_": (1, 2, 3, 4)}


def _cases():
    out = []
    for release, version in RELEASE_VERSIONS.items():
        for case in json.loads((CASES_DIR / f"{release}.json").read_text())["cases"]:
            fn = REGISTRY.resolve(case["op"], version).fn
            if getattr(fn, "specialize", None) is not None:
                out.append(pytest.param(release, case, id=f"{release}-{case['name']}"))
    return out


CASES = _cases()


def _graph_module(op, version, fn, operands, attrs, dynamic_first_dim, tuple_result):
    graph = fx.Graph()
    root = torch.nn.Module()
    feeds = []
    spec = get_spec(op, version)
    folded = {}
    if spec is not None and not spec.variadic_operands and len(spec.operands) == len(operands):
        folded = {i: o.from_attr for i, o in enumerate(spec.operands) if o.from_attr}
    buffers = PARAMETER_OPERANDS.get(op, ())

    def placeholder(t):
        node = graph.placeholder(f"in{len(feeds)}")
        shape = list(t.shape)
        if dynamic_first_dim and shape:
            shape[0] = -1
        node.meta["pir_shape"] = tuple(shape)
        node.meta["pir_dtype"] = t.dtype
        feeds.append(t)
        # through a copy, as a kernel's own result would be (identities need a computed value)
        copy = graph.call_function(torch.clone, (node,))
        copy.meta.update(node.meta)
        return copy

    args = []
    for i, o in enumerate(operands):
        if i in folded and isinstance(o, torch.Tensor):
            # what graph_builder._folded passes for a pd_op.full / full_int_array operand
            flat = o.reshape(-1)
            args.append(flat[0].item() if folded[i] == "scalar" else flat.tolist())
        elif i in buffers and isinstance(o, torch.Tensor):
            root.register_buffer(f"b{i}", o)
            args.append(graph.get_attr(f"b{i}"))
        elif isinstance(o, torch.Tensor):
            args.append(placeholder(o))
        elif isinstance(o, list) and o and all(isinstance(t, torch.Tensor) for t in o):
            args.append([placeholder(t) for t in o])
        else:
            args.append(o)
    node = graph.call_function(fn, tuple(args), attrs)
    if tuple_result:  # programs read result 0 through getitem; specialisers rely on that
        node = graph.call_function(operator.getitem, (node, 0))
    graph.output(node)
    return fx.GraphModule(root, graph), feeds


def _flat(result):
    if isinstance(result, torch.Tensor):
        return [result]
    return [t for t in result]


SPECIALIZED: dict = {}


def test_there_are_specialised_cases():
    assert len(CASES) >= 30


@pytest.mark.parametrize("dynamic_first_dim", [False, True], ids=["static", "dynamic0"])
@pytest.mark.parametrize("release,case", CASES)
def test_specialised_call_matches_the_kernel(release, case, dynamic_first_dim):
    fn = REGISTRY.resolve(case["op"], RELEASE_VERSIONS[release]).fn
    operands = [decode(o) for o in case["operands"]]
    attrs = {k: attribute(v) for k, v in case["attrs"].items()}
    result = fn(*operands, **attrs)
    tuple_result = isinstance(result, tuple)
    want = [result[0]] if tuple_result else _flat(result)
    gm, feeds = _graph_module(case["op"], RELEASE_VERSIONS[release], fn, operands, attrs,
                              dynamic_first_dim, tuple_result)
    specialized = specialize_calls(gm)
    SPECIALIZED[(release, case["name"], dynamic_first_dim)] = specialized
    got = _flat(gm(*feeds))
    for i, (g, w) in enumerate(zip(got, want)):
        if w is None:
            continue  # a result the kernel does not make (Paddle's xshape and the like)
        if g is None:
            continue  # a result the specialised call does not make; no program uses it
        where = f"{case['name']} result {i}"
        assert g.dtype == w.dtype and g.shape == w.shape, where
        if case["op"] in CLOSE:
            torch.testing.assert_close(g, w, rtol=1e-6, atol=1e-6, msg=where)
        else:
            assert torch.equal(g, w) or (g.is_floating_point() and torch.equal(g.isnan(), w.isnan())
                                         and torch.equal(g.nan_to_num(), w.nan_to_num())), where
            np.testing.assert_array_equal(g.numpy().reshape(-1).view(np.uint8),
                                          w.numpy().reshape(-1).view(np.uint8),
                                          err_msg=where + " (bits)")


def test_most_static_cases_are_specialised():
    """Runs after the cases (file order): the static variants mostly do take the torch calls."""
    static = [v for (r, n, dyn), v in SPECIALIZED.items() if not dyn]
    if len(static) < len(CASES):
        pytest.skip("run with the whole file")
    assert sum(1 for v in static if v) >= 0.75 * len(static)


# -- pool2d's torch fast path against the window-by-window path it replaces -------------------

POOL_CASES = [
    # kernel, strides, paddings, ceil_mode, exclusive, pooling_type, size
    ([2, 2], [2, 2], [0, 0], False, True, "max", (7, 8)),
    ([3, 3], [2, 2], [1, 1], True, True, "max", (7, 8)),
    ([3, 2], [1, 2], [1, 0], False, False, "avg", (6, 9)),
    ([3, 3], [2, 2], [1, 1], True, False, "avg", (7, 7)),
    ([3, 3], [2, 2], [1, 1], True, True, "avg", (8, 7)),
    ([2, 3], [2, 1], [1, 0, 0, 1], False, True, "max", (5, 6)),
    ([4, 4], [3, 3], [2, 2], True, True, "max", (9, 10)),
    ([5, 5], [1, 1], [0, 0], False, True, "avg", (5, 5)),
]


@pytest.mark.parametrize("kernel,strides,paddings,ceil_mode,exclusive,kind,size", POOL_CASES)
@pytest.mark.parametrize("data_format", ["NCHW", "NHWC"])
def test_pool2d_torch_path_matches_the_window_path(monkeypatch, kernel, strides, paddings,
                                                   ceil_mode, exclusive, kind, size, data_format):
    from pirc.lower.kernels import pool

    g = torch.Generator().manual_seed(7)
    shape = (2, 3, *size) if data_format == "NCHW" else (2, *size, 3)
    x = torch.randn(shape, generator=g)
    attrs = dict(strides=strides, paddings=paddings, ceil_mode=ceil_mode, exclusive=exclusive,
                 data_format=data_format, pooling_type=kind)
    fast = pool.pool2d(x, kernel, **attrs)
    monkeypatch.setattr(pool, "_torch_pool", lambda *a, **k: None)
    slow = pool.pool2d(x, kernel, **attrs)
    assert fast.shape == slow.shape and torch.equal(fast, slow)


def test_corpus_lowering_specialises_and_the_passes_fold_and_share():
    """The lowering specialises by static types; folding parameter-only subgraphs and
    sharing repeated calls are the param-fold and cse passes (pipeline=), visible in the IR."""
    import pirc
    from pirc.api import lower

    corpus = Path(__file__).resolve().parents[1] / "fixtures" / "corpus" / "3.3.1"
    program = pirc.load(str(corpus / "cnn.3.3.1.json"))
    params = str(corpus / "cnn.3.3.1.pdiparams")
    plain = lower(program, params).code
    # the max pool reads a relu: its windows tile the map, no refold (value_facts)
    assert "max_pool2d_tiles(" in plain and "avg_pool2d(" in plain and "pool_pool2d" not in plain
    assert "_bn_scale" in plain and "batch_norm_" not in plain
    assert plain.count("torch.reshape(conv2d_") == 2  # each conv bias, reshaped on every run
    cnn = lower(program, params, pipeline="param-fold,cse,dce").code
    assert "reshape(" not in cnn  # conv biases, folded into new parameters once
    assert "conv2d_0_b_0_reshape" in cnn and "conv2d_1_b_0_reshape" in cnn
    assert any(op.name == "pd_op.reshape" for op in program.walk())  # the program is not changed
    cf = pirc.load(str(corpus / "control_flow.3.3.1.json"))
    assert lower(cf).body_graph.code.count("torch.add(arg_0, 1)") == 2  # one call per op
    body = lower(cf, pipeline="cse").body_graph.code
    # The program's two `i + 1` stay two: the second is yielded into the loop variable, whose
    # buffer the while writes on every iteration, and cse never merges a value whose buffer is
    # written (pirc.ir.aliasing; docs/PASSES.md).  Conservative: sharing it would be safe here.
    assert body.count("torch.add(arg_0, 1)") == 2