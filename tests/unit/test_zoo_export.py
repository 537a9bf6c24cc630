"""Zoo models lowered by pirc (pirc.lower, the path pirc-run takes) through torch.export with
dynamic dims and torch.compile(backend="eager", fullgraph=True) (issue 11, items 4 and 5).

test_dynamic_shapes.py does this for small op programs and two small saved models; here it is
real architectures as Paddle 3.3.1 saved them (tests/fixtures/zoo, parameters rebuilt by
tools/zoo_weights.py): a CNN with a -1 batch, bert with -1 batch and sequence, gpt (causal
mask sliced to the sequence), and llama, saved at a fixed [2, 8] (exports static).  Every -1
dim is a Dim.DYNAMIC, so the export fails if pirc's module makes one a constant; the exported
program must equal the eager module at the recorded size and at a second size (batch + 1,
sequence - 3: tools/bench_run.second_size).  fullgraph=True fails on any graph break.  The
whole zoo goes through the same checks in `tools/bench_run.py --mode zoo --export`
(docs/PERFORMANCE.md, "Zoo export and compile").
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import pirc
from tools.bench_run import (check_outputs, dynamic_dims, feed_shapes, recorded, second_size,
                             zoo_models, zoo_params)

MODELS = ["resnet18", "bert", "gpt", "llama"]
# export and eager run the same aten kernels: the outputs agree to float32 rounding
ATOL, RTOL = 1e-5, 1e-5


@pytest.fixture(scope="module", params=MODELS)
def zoo(request):
    (model,) = zoo_models("3.3.1", names=[request.param])
    program = pirc.load(model.program)
    gm = pirc.lower(program, zoo_params(program))
    shapes = feed_shapes(program)
    feeds, _ = recorded(model)
    sizes = [feeds, second_size(feeds, shapes)]
    args = [[torch.from_numpy(np.array(a[k])) for k in shapes] for a in sizes]
    with torch.no_grad():
        want = [[o.numpy() for o in gm(*a)] for a in args]
    return request.param, gm, shapes, args, want


def _check(fn, args, want, what):
    with torch.no_grad():
        for a, ref in zip(args, want):
            _, ok, why = check_outputs([o.numpy() for o in fn(*a)], ref, ATOL, RTOL)
            assert ok, f"{what} at {tuple(a[0].shape)}: {why}"


def test_second_size_changes_exactly_the_dynamic_dims(zoo):
    name, _, shapes, args, _ = zoo
    for spec, first, second in zip(shapes.values(), *args):
        for axis, d in enumerate(spec):
            if d == -1:
                assert second.shape[axis] != first.shape[axis] and second.shape[axis] >= 2
            else:
                assert second.shape[axis] == first.shape[axis]
    assert (-1 not in next(iter(shapes.values()))) == (name == "llama")   # llama: saved static


def test_torch_export_with_dynamic_dims(zoo):
    name, gm, shapes, args, want = zoo
    exported = torch.export.export(gm, tuple(args[1]), dynamic_shapes=dynamic_dims(gm))
    feeds = [n for n in exported.graph.nodes if n.op == "placeholder"][-len(shapes):]
    symbolic = [[not isinstance(d, int) for d in n.meta["val"].shape] for n in feeds]
    # each -1 dim stayed a symbol (one program for every size), each fixed dim an int
    assert symbolic == [[d == -1 for d in s] for s in shapes.values()], name
    _check(exported.module(), args, want, f"{name} exported")


def test_torch_compile_eager_fullgraph(zoo):
    name, gm, _, args, want = zoo
    torch._dynamo.reset()
    _check(torch.compile(gm, backend="eager", fullgraph=True), args, want, f"{name} compiled")


def test_full_like_fills_an_integer_tensor_with_an_integer():
    """Paddle's full_like static_casts the double attribute to T; pirc passes torch the int
    (inductor typed bert's int64 token_type_ids by their 0.0 fill: float embedding indices)."""
    from pirc.lower.kernels.creation import fill_value, full_like

    ids = torch.zeros(2, 3, dtype=torch.int64)
    assert [type(fill_value(v, torch.int64)) for v in (0.0, -2.7)] == [int, int]
    assert fill_value(-2.7, torch.int32) == -2 and fill_value(0.5, torch.bool) is True
    assert str(fill_value(-0.0, torch.float32)) == "-0.0"   # a float dtype's fill as given
    out = full_like(ids, 3.9, dtype=torch.int64)
    assert out.dtype == torch.int64 and out.tolist() == [[3] * 3] * 2
