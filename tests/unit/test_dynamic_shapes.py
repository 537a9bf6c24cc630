"""Programs with dynamic (-1) dims lower once and run at any size (issue 11, item 4).

Fixtures: the `dynamic` op family (tests/fixtures/ops/VER/*.VER.json, builders in
tools/paddle_oracle/op_builders/dynamic.py) and two `paddle.jit.save` models with
InputSpec([None, ...]) (tests/fixtures/dynamic/VER/, tools/paddle_oracle/gen_dynamic_models.py);
each io.npz holds Paddle's inputs and outputs at two sizes (in__ / out__, in2__ / out2__).

- every one runs at both sizes from ONE lowered module with Paddle's numbers;
- a few, chosen to cover the shape patterns (runtime reshape, slice bounds, arange, causal
  mask, the models), go through torch.export.export with every -1 dim a `Dim.DYNAMIC` (the
  export fails if anything makes a dim a constant), and the exported program runs at the
  other size with Paddle's numbers; and through torch.compile(backend="eager",
  fullgraph=True), which fails on any graph break, at both sizes.
"""

import glob
import json
import os

import numpy as np
import pytest
import torch

import pirc
from pirc.lower.execute import feed_tensors, run_module, to_numpy
from pirc.testing.parity import compare_output, load_tolerances

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures")
OPS = os.path.join(FIXTURES, "ops")
TOLERANCES = load_tolerances(os.path.join(OPS, "parity"))
# The models' Linear layers and softmax are GEMMs and sums: their last bits depend on the
# CPU's vector unit (float32).
MODEL_TOL = (1e-5, 1e-5)
SIZES = ("", "2")


def _cases():
    out = []
    for logpath in sorted(glob.glob(os.path.join(OPS, "*", "gen_log.*.dynamic.json"))):
        ver = os.path.basename(os.path.dirname(logpath))
        with open(logpath) as f:
            models = json.load(f)["models"]
        for name, log in sorted(models.items()):
            if log.get("ok") and log.get("alt_out"):
                tol = TOLERANCES.get("pd_op." + name.split("__")[0])
                out.append((f"{ver}/{name}", os.path.join(OPS, ver, f"{name}.{ver}"),
                            bool(log.get("random")), tol.pair if tol else None))
    for logpath in sorted(glob.glob(os.path.join(FIXTURES, "dynamic", "*", "gen_log.json"))):
        ver = os.path.basename(os.path.dirname(logpath))
        with open(logpath) as f:
            models = json.load(f)["models"]
        for name, log in sorted(models.items()):
            if log.get("ok"):
                out.append((f"{ver}/model/{name}", os.path.join(os.path.dirname(logpath), name),
                            False, MODEL_TOL))
    return out


CASES = {c[0]: c for c in _cases()}
# torch.export and torch.compile cost ~0.5-3 s a program (and export a few seconds to start):
# a few that between them cover the patterns the lowering tracks (shape / shape64, slices of
# it, stack, scale and multiply into reshape, full_with_tensor, tril, arange, slice bounds,
# split sections), in both releases.  All of them pass both (checked when
# the fixtures were made).
EXPORTED = ["3.3.1/model/attention", "3.0.0/model/mlp", "3.3.1/slice__dyn", "3.0.0/arange__dyn"]
COMPILED = ["3.3.1/model/attention", "3.0.0/split__dyn"]


def _load(stem):
    program = pirc.load(stem + ".json")
    params = stem + ".pdiparams" if os.path.exists(stem + ".pdiparams") else None
    return pirc.lower(program, params), np.load(stem + ".io.npz")


def _inputs(io, size):
    prefix = f"in{size}__"
    return {k[len(prefix):]: io[k] for k in io.files if k.startswith(prefix)}


def _expected(io, size):
    prefix = f"out{size}__"
    return [io[f"{prefix}{i}"] for i in range(sum(k.startswith(prefix) for k in io.files))]


def _check(got, want, random, tol):
    assert len(got) == len(want)
    bad = [str(r) for r in (compare_output(i, f"out{i}", to_numpy(g), w, random, tol)
                            for i, (g, w) in enumerate(zip(got, want))) if not r.ok]
    assert not bad, "\n".join(bad)


def test_fixtures_exist():
    names = set(CASES)
    assert {n.split("/")[0] for n in names} == {"3.0.0", "3.3.1"}
    assert {"3.3.1/model/mlp", "3.3.1/model/attention", "3.0.0/model/mlp",
            "3.0.0/model/attention"} <= names
    assert len(names) >= 30
    assert set(EXPORTED + COMPILED) <= names


@pytest.mark.parametrize("case", sorted(CASES))
def test_one_module_runs_at_two_sizes(case):
    _, stem, random, tol = CASES[case]
    gm, io = _load(stem)
    torch.manual_seed(0)
    sizes = {tuple(v.shape) for k, v in io.items() if k.startswith("in")}
    for size in SIZES:
        got = run_module(gm, _inputs(io, size))
        _check(list(got.values()), _expected(io, size), random, tol)
    assert len(sizes) > len(_inputs(io, "")), "the two sizes must differ"


def _dynamic_shapes(gm):
    """Every -1 dim of every feed a torch.export Dim.DYNAMIC (None: a fully static feed)."""
    Dim = torch.export.Dim
    return {s.arg: ({i: Dim.DYNAMIC for i, d in enumerate(s.shape) if d == -1} or None)
            for s in gm.pirc_feed_specs}


@pytest.mark.parametrize("case", EXPORTED)
def test_torch_export_with_dynamic_dims(case):
    _, stem, random, tol = CASES[case]
    gm, io = _load(stem)
    first, second = feed_tensors(gm, _inputs(io, "")), feed_tensors(gm, _inputs(io, "2"))
    exported = torch.export.export(gm, (), first, dynamic_shapes=_dynamic_shapes(gm))
    # the batch (and sequence) dims stayed symbolic: one program for every size
    placeholders = [n for n in exported.graph.nodes if n.op == "placeholder"]
    symbolic = [d for n in placeholders for d in n.meta["val"].shape if not isinstance(d, int)]
    assert symbolic
    run = exported.module()
    for size, feeds in zip(SIZES, (first, second)):
        _check(list(run(**feeds)), _expected(io, size), random, tol)


@pytest.mark.parametrize("case", COMPILED)
def test_torch_compile_fullgraph(case):
    _, stem, random, tol = CASES[case]
    gm, io = _load(stem)
    torch._dynamo.reset()
    compiled = torch.compile(gm, backend="eager", fullgraph=True, dynamic=True)
    with torch.no_grad():
        for size in SIZES:
            _check(list(compiled(**feed_tensors(gm, _inputs(io, size)))), _expected(io, size),
                   random, tol)


def test_shape_arithmetic_is_ints_in_the_graph():
    """The shape64 / slice / stack / multiply chain that builds reshape's shape in reshape__dyn
    leaves no tensor op behind: reshape gets `x.size(i)` and their products (shape_values), so
    no kernel turns a tensor back into ints at run time (what torch.export cannot trace)."""
    gm, _ = _load(CASES["3.3.1/reshape__dyn"][1])
    names = {getattr(n.target, "__name__", str(n.target)) for n in gm.graph.nodes}
    assert not names & {"shape64", "slice_", "stack", "concat", "multiply"}, names
    assert any(n.op == "call_method" and n.target == "size" for n in gm.graph.nodes)


def test_shape_broadcast_kernel():
    # no Paddle fixture: its Python API has no shape_broadcast (gen_log.VER.dynamic.json);
    # Paddle's decompositions emit it for two shapes, aligned from the right, 1 taking the other
    from pirc.lower.kernels.dynamic_shape import shape_broadcast
    from pirc.lower.shape_values import broadcast_dim

    got = shape_broadcast(torch.tensor([2, 1, 4]), torch.tensor([3, 1]))
    assert got.tolist() == [2, 3, 4] and got.dtype == torch.int64
    assert shape_broadcast(torch.tensor([0, 1], dtype=torch.int32),
                           torch.tensor([5], dtype=torch.int32)).tolist() == [0, 5]
    assert [broadcast_dim(1, 7), broadcast_dim(7, 1), broadcast_dim(7, 7)] == [7, 7, 7]
