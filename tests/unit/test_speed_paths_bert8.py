"""Issue 22 item 8, BERT and transformer: each speed path of the lowering gives the bits of what
it replaces.

* numbers as 0-d tensor operands (Site.scalar) against torch wrapping the Python number, for
  float32 / float64 (and the half types, where they differ, keep the number);
* scale, exact gelu, full_like, subtract, slice with a dropped dim of dynamic size,
  layer_norm and embedding specialised against their kernels, on pirc.testing.boundary_inputs
  and random values;
* the checks again in a subprocess per ATEN_CPU_CAPABILITY (default, avx2, avx512): torch's
  kernels are chosen per CPU, and CI may run without AVX-512.

Not taken, and why (tests below pin the reason): scale(x, s, 0) as torch.add(0, x, alpha=s),
which is a fused multiply-add on AVX2 / AVX-512 and keeps the sign of a product that
underflows to zero where Paddle's x * s + 0 gives +0.
"""

from __future__ import annotations

import math
import operator
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch
import torch.fx as fx

from pirc.lower.kernels.activation import M_SQRT1_2, gelu
from pirc.lower.kernels.creation import full_like
from pirc.lower.kernels.elementwise import scale
from pirc.lower.kernels.grad_nn import embedding
from pirc.lower.kernels.losses import subtract
from pirc.lower.kernels.nn import layer_norm
from pirc.lower.kernels.shape import slice_
from pirc.lower.specialize import specialize_calls
from pirc.testing import boundary_inputs
from tensor_bits import bits_equal

g = torch.Generator().manual_seed(2208)

FLOATS = {torch.float32: "f32", torch.float64: "f64"}
# numbers a program's attributes hold: ordinary, the BERT / transformer ones, and the edges of
# a float32 cast (rounding, overflow to inf, underflow to a denormal or zero, NaN, 2^53)
NUMBERS = [0.25, -10000.0, 0.0, -0.0, 1, 0.5, M_SQRT1_2, 0.35355339059327373, 0.1, 1 / 3, 3,
           -1, 1e300, -1e300, 1e-40, 1e-46, 2.0 ** -149 * 1.5, math.nan, math.inf, -math.inf,
           2 ** 53, -(2 ** 53), 16777217, 0.1 + 2 ** -30]




def operands(dtype, shape=(3, 37)):
    """Boundary arrays of `dtype` and a random one, as tensors."""
    arrays = list(boundary_inputs(FLOATS[dtype], shape).values())
    return [torch.from_numpy(a.copy()) for a in arrays] + [torch.randn(shape, generator=g,
                                                                       dtype=dtype) * 100]


def one_call(fn, args, kwargs, dynamic=None, shapes=None):
    """A graph calling fn once, its tensor operands placeholders with static types (operand i's
    dims in dynamic[i] are -1), read through a clone (a value the graph computes); specialised.
    -> (module, how many calls were specialised, the tensors it takes)."""
    graph = fx.Graph()
    dynamic, shapes = dynamic or {}, shapes or {}
    call_args, feeds = [], []
    for i, a in enumerate(args):
        if not isinstance(a, torch.Tensor):
            call_args.append(a)
            continue
        node = graph.placeholder(f"in{i}")
        shape = list(shapes.get(i, a.shape))
        for d in dynamic.get(i, ()):
            shape[d] = -1
        copy = graph.call_function(torch.clone, (node,))
        for n in (node, copy):
            n.meta["pir_shape"], n.meta["pir_dtype"] = tuple(shape), a.dtype
        call_args.append(copy)
        feeds.append(a)
    graph.output(graph.call_function(fn, tuple(call_args), kwargs))
    gm = fx.GraphModule(torch.nn.Module(), graph)
    return gm, specialize_calls(gm), feeds


def targets(gm):
    return [n.target for n in gm.graph.nodes if n.op in ("call_function", "call_method")]


def scalars(gm):
    return {name: t for name, t in gm.named_buffers() if name.startswith("_scalar")}


# -- numbers as 0-d tensors ------------------------------------------------------------------

def check_scalar_operands():
    """x op number == x op 0-d tensor of x's dtype holding the number, bit for bit."""
    ops = [torch.mul, torch.add, torch.sub, torch.rsub, torch.div,
           lambda x, s: torch.mul(x, 0.25).add_(s), lambda x, s: torch.add(x, 1.5).mul_(s)]
    for dtype in FLOATS:
        for v in NUMBERS:
            held = torch.tensor(float(v), dtype=dtype)
            for x in operands(dtype):
                for op in ops:
                    bits_equal(op(x, held), op(x, v))
                bits_equal(torch.mul(x[0, 0], held), torch.mul(x[0, 0], v))   # a 0-d x too


def test_scalar_operands_are_the_numbers():
    check_scalar_operands()


def test_half_types_keep_the_number():
    """Where a 0-d tensor would differ: float16 computes x * 0.1 with 0.1 in float (not rounded
    to half first), so Site.scalar leaves the number there."""
    x = torch.linspace(1, 2, 257, dtype=torch.float16)
    assert not torch.equal(x * 0.1, x * torch.tensor(0.1, dtype=torch.float16))
    gm, done, feeds = one_call(scale, [x, 0.1], {"bias": 0.0})
    assert not scalars(gm)
    bits_equal(gm(*feeds), scale(x, 0.1, bias=0.0))


def test_scale_as_one_fused_add_is_not_the_kernel():
    """Why scale(x, s, 0) keeps its two calls: torch.add(0, x, alpha=s) is an FMA on AVX2 /
    AVX-512, so -denorm * 0.25 comes back as -0 where x * 0.25 + 0 is +0 (it matches only on
    the default capability)."""
    x = torch.full((33,), -2.0 ** -149)
    want = scale(x, 0.25, bias=0.0)
    assert not want.signbit().any()
    fused = torch.add(torch.zeros(()), x, alpha=0.25)
    if torch.backends.cpu.get_cpu_capability() != "DEFAULT":
        assert fused.signbit().all()


# -- scale ------------------------------------------------------------------------------------

def check_scale():
    for dtype in FLOATS:
        for s, b, after in [(0.25, 0.0, True), (-10000.0, 0, True), (1, 0.5, True),
                            (-1, 0.0, True), (0.35355339059327373, -0.0, False), (3, 2.5, False),
                            (1e-46, 1e300, True), (math.nan, 0.0, True)]:
            kw = {"bias": b, "bias_after_scale": after}
            x0 = operands(dtype)[0]
            gm, done, _ = one_call(scale, [x0, s], kw)
            assert done == 1 and scale not in targets(gm)
            for x in operands(dtype):
                bits_equal(gm(x), scale(x, s, **kw))


def test_scale_with_held_numbers_is_the_kernel():
    check_scale()
    gm, _, _ = one_call(scale, [torch.randn(2, 3, generator=g), 0.25], {"bias": 0.0})
    assert sorted(scalars(gm)) == ["_scalar_0_0", "_scalar_0_25"]
    assert scalars(gm)["_scalar_0_25"].dtype == torch.float32


def test_scale_of_integers_keeps_python_numbers():
    x = torch.tensor([7, -7, 3, 2 ** 40], dtype=torch.int64)
    gm, done, feeds = one_call(scale, [x, 1.5], {"bias": 0.7})
    assert done == 1 and not scalars(gm)
    bits_equal(gm(*feeds), scale(x, 1.5, bias=0.7))


def _graph_of_a_cloned_feed():
    """A graph whose feed x (float32 [2, 3]) is cloned: (graph, the clone's node), the clone
    typed as the feed, for a scale to read (a feed itself is not the specialiser's operand)."""
    graph = fx.Graph()
    node = graph.placeholder("x")
    node.meta["pir_shape"], node.meta["pir_dtype"] = (2, 3), torch.float32
    a = graph.call_function(torch.clone, (node,))
    a.meta.update(node.meta)
    return graph, a


def test_scalar_buffers_are_shared_and_unread_ones_dropped():
    x = torch.randn(2, 3, generator=g)
    graph, a = _graph_of_a_cloned_feed()
    b = graph.call_function(scale, (a, 0.25), {"bias": 0.0})
    b.meta.update(a.meta)
    c = graph.call_function(scale, (b, 0.25), {"bias": 0.0})
    graph.output(c)
    gm = fx.GraphModule(torch.nn.Module(), graph)
    assert specialize_calls(gm) == 2
    assert sorted(scalars(gm)) == ["_scalar_0_0", "_scalar_0_25"]
    bits_equal(gm(x), scale(scale(x, 0.25, bias=0.0), 0.25, bias=0.0))


def test_a_subgraph_keeps_python_numbers():
    """No buffer in a control-flow subgraph (torch's operators take their branches' tensors
    as operands): the numbers stay numbers there."""
    x = torch.randn(2, 3, generator=g)
    graph, a = _graph_of_a_cloned_feed()
    graph.output(graph.call_function(scale, (a, 0.25), {"bias": 0.0}))
    gm = fx.GraphModule(torch.nn.Module(), graph)
    assert specialize_calls(gm, root=False) == 1
    assert not scalars(gm) and 0.25 in [a for n in gm.graph.nodes for a in n.args]
    bits_equal(gm(x), scale(x, 0.25, bias=0.0))


# -- gelu -------------------------------------------------------------------------------------

def check_gelu():
    for dtype in FLOATS:
        for shape in [(3, 37), (2, 8, 128)]:
            gm, done, _ = one_call(gelu, [torch.zeros(shape, dtype=dtype)], {"approximate": False},
                                   dynamic={0: (0, 1)})
            assert done == 1 and gelu not in targets(gm)
            for x in operands(dtype, shape):
                bits_equal(gm(x), gelu(x))


def test_exact_gelu_in_the_graph_is_the_kernel():
    check_gelu()


def test_gelu_in_the_graph_keeps_autograd():
    """erf is out of place: its gradient reads its input, which the kernel's erf_ overwrites
    (the kernel takes that step only without autograd)."""
    x = torch.randn(4, 5, generator=g, dtype=torch.float64)
    gm, _, _ = one_call(gelu, [x], {"approximate": False})
    xg = x.clone().requires_grad_()
    gm(xg).sum().backward()
    xk = x.clone().requires_grad_()
    gelu(xk).sum().backward()
    bits_equal(xg.grad, xk.grad)


# -- full_like, subtract ----------------------------------------------------------------------

def check_full_like():
    ids = torch.randint(0, 100, (3, 8), generator=g)
    for dtype, value in [(torch.int64, 1.0), (torch.int64, 0.0), (torch.int32, math.nan),
                         (torch.int32, math.inf), (torch.int32, -2.7), (torch.uint8, 255.0),
                         (torch.float32, -0.0), (torch.float64, 1e300),
                         (torch.float32, 1e300), (None, 3.0), (torch.int32, 2147483647.0)]:
        kw = {"dtype": dtype}
        gm, done, feeds = one_call(full_like, [ids, value], kw, dynamic={0: (0, 1)})
        assert done == 1 and full_like not in targets(gm)
        for x in (ids, ids[:1], torch.zeros(0, 5, dtype=torch.int64)):
            try:
                want = full_like(x, value, **kw)
            except RuntimeError:   # torch refuses the cast (1e300 to float32): both do
                with pytest.raises(RuntimeError):
                    gm(x)
                continue
            bits_equal(gm(x), want)


def test_full_like_of_a_number_is_the_kernel():
    check_full_like()


def test_full_like_of_bool_keeps_the_kernel():
    """npu_scaled_masked_softmax's specialiser reads a bool full_like kernel call as a mask
    fixed at lowering: a bool fill is left to it."""
    ids = torch.zeros(2, 3)
    gm, done, feeds = one_call(full_like, [ids, 0.0], {"dtype": torch.bool})
    assert done == 0 and full_like in targets(gm)


def test_full_like_out_of_range_keeps_the_kernel():
    """The kernel refuses 3e9 for int32 when it runs (Paddle's InvalidArgument): the call
    stays, so the module still refuses it then, not when it is lowered."""
    ids = torch.zeros(2, 3, dtype=torch.int32)
    gm, done, feeds = one_call(full_like, [ids, 3e9], {"dtype": torch.int32})
    assert done == 0 and full_like in targets(gm)
    with pytest.raises(ValueError, match="out of range"):
        gm(ids)


def test_subtract_is_the_torch_call():
    for x, y in [(torch.arange(24).reshape(3, 8), torch.ones(3, 8, dtype=torch.int64)),
                 (operands(torch.float32)[3], operands(torch.float32)[-1][:1])]:
        gm, done, feeds = one_call(subtract, [x, y], {})
        assert done == 1 and targets(gm)[-1] is torch.sub
        bits_equal(gm(*feeds), subtract(x, y))


# -- slice with a dropped dim of dynamic size (BERT's pooler) --------------------------------

SLICES = [dict(starts=[0], ends=[1], axes=[1], infer_flags=[1], decrease_axis=[1]),
          dict(starts=[-1], ends=[1000], axes=[1], infer_flags=[1], decrease_axis=[1]),
          dict(starts=[1, 0], ends=[3, 1], axes=[2, 1], infer_flags=[1, 1], decrease_axis=[1]),
          dict(starts=[2], ends=[3], axes=[0], infer_flags=[1], decrease_axis=[0])]


@pytest.mark.parametrize("kw", SLICES)
@pytest.mark.parametrize("dynamic", [(0, 1), (1,), (0,)])
def test_slice_dropping_a_dynamic_dim_is_the_kernel(kw, dynamic):
    kw = dict(kw)
    starts, ends = kw.pop("starts"), kw.pop("ends")
    base = torch.randn(4, 5, 6, generator=g)
    gm, done, _ = one_call(slice_, [base, starts, ends], kw, dynamic={0: dynamic})
    assert done == 1 and slice_ not in targets(gm)
    for x in (base, base[:1], base[:, :1], base[:3, :2].transpose(0, 1).contiguous()[:, :, :6],
              base.transpose(0, 1)):
        if any(x.shape[d] != base.shape[d] for d in range(3) if d not in dynamic):
            continue   # not of the static type
        try:   # on the clone the graph reads (clone keeps a dense layout's strides)
            want = slice_(torch.clone(x), starts, ends, **kw)
        except RuntimeError:
            with pytest.raises(RuntimeError):
                gm(x)
            continue
        got = gm(x)
        if any(d in dynamic for d in kw["decrease_axis"]):   # the kernel's own view
            assert got.stride() == want.stride()
            assert got.storage_offset() == want.storage_offset()
        bits_equal(got, want)


def test_slice_of_an_empty_dropped_dim_fails_as_the_kernel_does():
    """x[:, 0:1] of a sequence of length 0 has no element to keep: the kernel's reshape
    refuses it (an integer index would raise IndexError instead, and take [0, 0, 64])."""
    kw = dict(SLICES[0])
    starts, ends = kw.pop("starts"), kw.pop("ends")
    gm, done, _ = one_call(slice_, [torch.randn(2, 3, 4), starts, ends], kw, dynamic={0: (0, 1)})
    assert done == 1
    x = torch.randn(2, 0, 4)
    with pytest.raises(RuntimeError):
        slice_(x, starts, ends, **kw)
    with pytest.raises(RuntimeError):
        gm(x)
    empty = torch.randn(0, 0, 4)
    bits_equal(gm(empty), slice_(empty, starts, ends, **kw))
    assert gm(empty).shape == (0, 4)


# -- layer_norm and embedding: the aten calls behind F.layer_norm / F.embedding --------------

def test_layer_norm_and_embedding_are_the_aten_calls():
    x = operands(torch.float32, (2, 8, 64))
    w, b = torch.randn(64, generator=g), torch.randn(64, generator=g)
    graph = fx.Graph()
    args = [graph.placeholder(n) for n in ("x", "w", "b")]
    for a, shape in zip(args, [(-1, -1, 64), (64,), (64,)]):
        a.meta["pir_shape"], a.meta["pir_dtype"] = shape, torch.float32
    copy = graph.call_function(torch.clone, (args[0],))
    copy.meta.update(args[0].meta)
    norm = graph.call_function(layer_norm, (copy, args[1], args[2]),
                               {"epsilon": 1e-12, "begin_norm_axis": 2})
    graph.output(graph.call_function(operator.getitem, (norm, 0)))
    gm = fx.GraphModule(torch.nn.Module(), graph)
    assert specialize_calls(gm) == 1 and torch.layer_norm in targets(gm)
    for t in x:
        bits_equal(gm(t, w, b), torch.nn.functional.layer_norm(t, [64], w, b, 1e-12))
    ids = torch.randint(0, 100, (3, 8), generator=g)
    table = torch.randn(100, 64, generator=g)
    gm, done, feeds = one_call(embedding, [ids, table], {})
    assert done == 1 and torch.embedding in targets(gm)
    bits_equal(gm(*feeds), embedding(ids, table))


# -- every check again under each CPU capability ----------------------------------------------

CHECKS = ("check_scalar_operands", "check_scale", "check_gelu", "check_full_like")


@pytest.mark.parametrize("capability", ["default", "avx2", "avx512"])
def test_checks_under_each_cpu_capability(capability):
    """torch picks its kernels per CPU capability (ATEN_CPU_CAPABILITY, read once at start):
    the checks above in a fresh process for each (a CPU without AVX-512 runs its best)."""
    here = Path(__file__).resolve().parent
    code = ("import sys; sys.path.insert(0, %r); import test_speed_paths_bert8 as t; "
            "[getattr(t, c)() for c in %r]" % (str(here), CHECKS))
    env = dict(os.environ, ATEN_CPU_CAPABILITY=capability)
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]


# -- casts by keyword, matmul's transposes as .mT, npu_layer_norm_eval's aten call -----------

def test_cast_by_keyword_is_the_kernel():
    from pirc.lower.kernels.elementwise import cast

    for src, dst in [(torch.bool, torch.float32), (torch.float32, torch.float64),
                     (torch.float64, torch.float32), (torch.float32, torch.int32),
                     (torch.float32, torch.float32)]:
        x = (torch.randn(3, 8, generator=g) * 100).to(src)
        gm, done, feeds = one_call(cast, [x], {"dtype": dst})
        assert done == 1
        got, want = gm(*feeds), cast(torch.clone(x), dtype=dst)
        bits_equal(got, want)
    # the same dtype: an identity (the kernel returns its input, the graph the clone it read)
    assert targets(one_call(cast, [x], {"dtype": torch.float32})[0])[-1] is torch.clone


@pytest.mark.parametrize("tx,ty", [(False, True), (True, False), (True, True)])
def test_matmul_transposes_as_mT_are_the_kernel(tx, ty):
    from pirc.lower.kernels.linalg import matmul

    for xs, ys in [((2, 4, 5, 16), (2, 4, 5, 16)), ((5, 7), (5, 7)), ((3, 6, 6), (6, 6))]:
        x, y = torch.randn(xs, generator=g), torch.randn(ys, generator=g)
        kw = {"transpose_x": tx, "transpose_y": ty}
        try:
            want = matmul(torch.clone(x), torch.clone(y), **kw)
        except RuntimeError:
            continue
        gm, done, feeds = one_call(matmul, [x, y], kw)
        assert done == 1 and matmul not in targets(gm)
        bits_equal(gm(*feeds), want)


def test_npu_layer_norm_eval_reference_is_f_layer_norm():
    from pirc.lower.npu import reference

    w, b = torch.randn(64, generator=g), torch.randn(64, generator=g)
    for x in operands(torch.float32, (2, 8, 64)):
        for shape in ([64], (64,), torch.Size([64])):
            bits_equal(reference.npu_layer_norm_eval(x, shape, w, b, 1e-12),
                       torch.nn.functional.layer_norm(x, [64], w, b, 1e-12))
