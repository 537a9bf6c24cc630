"""The LLaMA block's speed paths (issue 22 item 8) give the bits of what they replace.

* transpose whose static shape reorders two dims of size > 1 (a head split or merge):
  `permute_copy` against the kernel's permute + contiguous, and the kept path elsewhere;
* slice of trailing dims as `x[..., a:b]` against the kernel: the same view;
* mean and concat on static axes as their torch call against the kernel;
* npu_fusion_attention_out's direct BNSD / BSND path against the reference's general path
  (_attention_scores + _attention_out), and the general path where it does not apply;
* npu_rms_norm's float32 path against the general formula, and where it does not apply;
* the LLaMA block lowered under `npu` and `fuse` with its specialisers against the same
  module without them (kernel calls), on boundary inputs.
"""

from __future__ import annotations

import importlib
import math
import operator
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.fx as fx
import torch.nn.functional as F

from pirc.lower.kernels import fused
from pirc.lower.number_tensors import number_tensor
from pirc.lower.kernels.reduce import mean
from pirc.lower.kernels.shape import concat, slice_, transpose
from pirc.lower.npu import ops, reference
from pirc.lower.specialize import specialize_calls
from pirc.testing import boundary_inputs
from tensor_bits import bits_equal

g = torch.Generator().manual_seed(228)
ROOT = Path(__file__).resolve().parents[2]




def floats(dtype, shape):
    """pirc.testing.boundary_inputs of `dtype` and `shape` and three random arrays."""
    name = {torch.float32: "f32", torch.float64: "f64", torch.float16: "f16",
            torch.bfloat16: "bf16"}[dtype]
    out = []
    for a in boundary_inputs(name, shape).values():
        t = torch.from_numpy(np.ascontiguousarray(a))
        out.append(t.view(torch.bfloat16) if dtype == torch.bfloat16 else t)
    out += [torch.randn(shape, generator=g).mul(s).to(dtype) for s in (1.0, 1e-3, 300.0)]
    return out


def one_call(fn, operands, kwargs, shapes=None):
    """A graph calling fn once on placeholders with static types (shapes[i] overrides operand
    i's static shape, -1 dynamic), specialised; -> (module, specialised count, targets)."""
    graph = fx.Graph()
    args = []
    for i, t in enumerate(operands):
        node = graph.placeholder(f"in{i}")
        copy = graph.call_function(torch.clone, (node,))
        shape = tuple(shapes[i]) if shapes and shapes[i] is not None else tuple(t.shape)
        for n in (node, copy):
            n.meta["pir_shape"], n.meta["pir_dtype"] = shape, t.dtype
        args.append(copy)
    if fn is concat:
        args = [args]
    graph.output(graph.call_function(fn, tuple(args), kwargs))
    gm = fx.GraphModule(torch.nn.Module(), graph)
    done = specialize_calls(gm)
    return gm, done, [n.target for n in gm.graph.nodes if n.op == "call_function"]


# -- transpose -------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16])
@pytest.mark.parametrize("shape,perm,static", [
    ((2, 32, 4, 16), [0, 2, 1, 3], (-1, 32, 4, 16)),     # head split, dynamic batch
    ((2, 4, 32, 16), [0, 2, 1, 3], (-1, 4, 32, 16)),     # head merge
    ((3, 5, 7), [2, 0, 1], None),
    ((1, 6, 5), [0, 2, 1], (-1, -1, 5)),                  # only one static dim > 1: kept
    ((1, 6, 1, 5), [0, 2, 1, 3], None),                   # 6 and 1 swap: already dense, kept
])
def test_transpose_copy_is_permute_contiguous(dtype, shape, perm, static):
    x0 = floats(dtype, shape)[0]
    gm, done, targets = one_call(transpose, [x0], {"perm": perm}, [static])
    assert done == 1
    moved = [d for d in perm if (static or shape)[d] > 1]
    assert (torch.permute_copy in targets) == (moved != sorted(moved))
    for x in floats(dtype, shape):
        want, got = transpose(x, perm=perm), gm(x)
        assert got.stride() == want.stride()
        assert got.data_ptr() != x.data_ptr() or want.data_ptr() == x.data_ptr()
        bits_equal(got, want)
    # a strided input (a view of a larger tensor) and a runtime batch other than the traced one
    big = torch.randn((4,) + shape[1:], generator=g).to(dtype)[1:3]
    bits_equal(gm(big), transpose(big, perm=perm))


def test_transpose_copy_is_a_new_tensor():
    x = torch.randn(1, 3, 4, 2, generator=g)
    gm, _, targets = one_call(transpose, [x], {"perm": [0, 2, 1, 3]})
    assert torch.permute_copy in targets
    out = gm(x)
    out.add_(1)   # writing the result leaves the input as it was
    bits_equal(x.permute(0, 2, 1, 3) + 1, out)


# -- slice, mean, concat ---------------------------------------------------------------------

@pytest.mark.parametrize("axes,starts,ends,decrease,ellipsis", [
    ([3], [0], [8], [], True),              # rotate-half's first half
    ([3], [8], [2147483647], [], True),     # its second half
    ([-1], [-3], [-1], [], True),
    ([2, 3], [1, 2], [3, 9], [], True),
    ([1], [1], [2], [1], False),            # a trailing full slice: no Ellipsis
    ([0], [1], [2], [], False),             # the first dim: no leading full slice
    ([3], [2], [3], [3], True),             # an integer index at the end
])
def test_slice_with_ellipsis_is_the_kernel(axes, starts, ends, decrease, ellipsis):
    x = torch.randn(3, 4, 6, 16, generator=g)
    kw = {"axes": axes, "decrease_axis": decrease}
    graph = fx.Graph()
    node = graph.placeholder("x")
    copy = graph.call_function(torch.clone, (node,))
    for n in (node, copy):
        n.meta["pir_shape"], n.meta["pir_dtype"] = (-1, 4, 6, 16), x.dtype
    graph.output(graph.call_function(slice_, (copy, starts, ends), kw))
    gm = fx.GraphModule(torch.nn.Module(), graph)
    assert specialize_calls(gm) == 1
    index = [n.args[1] for n in gm.graph.nodes if n.op == "call_function"
             and n.target.__name__ == "getitem"][0]
    assert (isinstance(index, tuple) and index[0] is Ellipsis) == ellipsis
    for t in [x, torch.randn(5, 4, 6, 16, generator=g)] + floats(torch.float32, (2, 4, 6, 16)):
        want = slice_(t, starts, ends, **kw)
        got = t[index]   # the index as the graph applies it
        assert got.shape == want.shape and got.stride() == want.stride()
        bits_equal(got, want)
        bits_equal(gm(t), want)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("axis,keepdim", [([-1], True), ([1, 2], False), ([], False), ([0], True)])
def test_mean_call_is_the_kernel(dtype, axis, keepdim):
    x0 = floats(dtype, (2, 5, 64))[0]
    gm, done, targets = one_call(mean, [x0], {"axis": axis, "keepdim": keepdim},
                                 [(-1, 5, 64)])
    assert done == 1 and mean not in targets and torch.mean in targets
    for x in floats(dtype, (2, 5, 64)) + [floats(dtype, (3, 5, 64))[1]]:
        bits_equal(gm(x), mean(x, axis, keepdim=keepdim))


def test_mean_of_a_0d_tensor_or_a_tensor_axis_keeps_the_kernel():
    _, done, targets = one_call(mean, [torch.tensor(2.0)], {"axis": [], "keepdim": False})
    assert done == 0 and mean in targets
    _, done, targets = one_call(mean, [torch.randn(3, 4)], {"axis": torch.tensor([1]),
                                                            "keepdim": False})
    assert done == 0 and mean in targets


@pytest.mark.parametrize("axis", [-1, 0, 2, -3])
def test_concat_call_is_the_kernel(axis):
    a, b = torch.randn(2, 4, 8, generator=g), torch.randn(2, 4, 8, generator=g)
    gm, done, targets = one_call(concat, [a, b], {"axis": axis})
    assert done == 1 and concat not in targets and torch.cat in targets
    for x, y in zip(floats(torch.float32, (2, 4, 8)), reversed(floats(torch.float32, (2, 4, 8)))):
        bits_equal(gm(x, y), concat([x, y], axis))


def test_concat_with_a_tensor_axis_keeps_the_kernel():
    a = torch.randn(2, 3, generator=g)
    _, done, targets = one_call(concat, [a, a], {"axis": torch.tensor(1)})
    assert done == 0 and concat in targets


# -- the npu references ----------------------------------------------------------------------

def general_attention(q, k, v, layout, scale, mask=None):
    s, vv = reference._attention_scores(q, k, v, 4, layout, None, mask, scale, 1.0, 0, None,
                                        None)
    return reference._attention_out(s, vv, q.dtype, layout)


@pytest.mark.parametrize("layout,shape", [("BNSD", (2, 4, 32, 16)), ("BNSD", (1, 4, 7, 8)),
                                          ("BSND", (2, 8, 4, 8)), ("BSND", (1, 5, 2, 6))])
def test_attention_direct_is_the_general_path(monkeypatch, layout, shape):
    cases = floats(torch.float32, shape)
    calls = []
    monkeypatch.setattr(reference, "_attention_scores",
                        lambda *a, _f=reference._attention_scores: calls.append(1) or _f(*a))
    for i, q in enumerate(cases):
        k = cases[(i + 3) % len(cases)].flip(-1)
        v = cases[(i + 7) % len(cases)].flip(0)
        if layout == "BSND":   # the transformer's: selects of one packed q/k/v tensor
            qkv = torch.stack([q, k, v], 2)
            q, k, v = qkv.select(2, 0), qkv.select(2, 1), qkv.select(2, 2)
        for scale in (0.25, 0.3535533845424652, 1.0):
            got = ops.npu_fusion_attention_out(q, k, v, 4, layout, scale=scale)
            assert not calls
            want = general_attention(q, k, v, layout, scale)
            assert got.stride() == want.stride()
            bits_equal(got, want)
            calls.clear()


@pytest.mark.parametrize("case", ["f16", "mask", "gqa", "bsh"])
def test_attention_general_path_where_the_direct_one_does_not_apply(monkeypatch, case):
    q, k, v = (torch.randn(2, 4, 6, 8, generator=g) for _ in range(3))
    layout, mask = "BNSD", None
    if case == "f16":
        q, k, v = q.half(), k.half(), v.half()
    elif case == "mask":
        mask = torch.rand(6, 6, generator=g) > 0.6
        mask[:, 0] = False
    elif case == "gqa":
        k, v = k[:, :2].contiguous(), v[:, :2].contiguous()
    else:
        layout = "BSH"
        q, k, v = (t.reshape(2, 6, 32) for t in (q, k, v))
    calls = []
    monkeypatch.setattr(reference, "_attention_scores",
                        lambda *a, _f=reference._attention_scores: calls.append(1) or _f(*a))
    got = ops.npu_fusion_attention_out(q, k, v, 4, layout, atten_mask=mask, scale=0.3)
    assert calls == [1]
    bits_equal(got, reference.npu_fusion_attention(q, k, v, 4, layout, atten_mask=mask,
                                                   scale=0.3)[0])


def general_rms_norm(x, gamma, eps):
    dims = tuple(range(x.dim() - gamma.dim(), x.dim()))
    xf = x.float()
    rstd = torch.rsqrt(xf.pow(2).mean(dim=dims, keepdim=True) + eps)
    return (xf * rstd * gamma.float()).to(x.dtype), rstd


@pytest.mark.parametrize("eps", [1e-6, 1e-5, 0.0])
def test_rms_norm_float32_path_is_the_general_formula(eps):
    xs = floats(torch.float32, (2, 3, 64))
    for i, x in enumerate(xs):
        w = xs[(i + 5) % len(xs)][0, 0]
        y, rstd = ops.npu_rms_norm(x, w, epsilon=eps)
        wy, wr = general_rms_norm(x, w, eps)
        bits_equal(rstd, wr)
        bits_equal(y, wy)
        y2, rstd2, s = ops.npu_add_rms_norm(x, xs[(i + 1) % len(xs)], w, epsilon=eps)
        ws = x + xs[(i + 1) % len(xs)]
        wy2, wr2 = general_rms_norm(ws, w, eps)
        bits_equal(s, ws)
        bits_equal(rstd2, wr2)
        bits_equal(y2, wy2)


@pytest.mark.parametrize("dtype,gamma_dims", [(torch.float16, 1), (torch.bfloat16, 1),
                                              (torch.float32, 2)])
def test_rms_norm_general_path_where_the_float32_one_does_not_apply(dtype, gamma_dims):
    x = torch.randn(2, 3, 8, generator=g).to(dtype)
    w = torch.randn((3, 8)[2 - gamma_dims:], generator=g).to(dtype)
    y, rstd = reference.npu_rms_norm(x, w, 1e-6)
    wy, wr = general_rms_norm(x, w, 1e-6)
    assert y.dtype == dtype and rstd.shape == wr.shape
    bits_equal(y, wy)
    bits_equal(rstd, wr)


# -- the whole block -------------------------------------------------------------------------

@pytest.mark.parametrize("pipe", ["npu", "fuse"])
def test_llama_block_specialised_is_the_kernel_module(monkeypatch, pipe):
    sys.path.insert(0, str(ROOT / "tools"))
    import bench_run as br

    import pirc
    from pirc.api import lower

    lowering = importlib.import_module("pirc.lower.lower")

    fm = [f for f in br.FUSION_MODELS if f.name == "llama_block"][0]
    pn, dev = br.pipeline_device(pipe)

    def build():
        program = pirc.load(fm.program)
        params = br.fusion_params(fm, program)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return lower(program, params, device=dev, pipeline=pn)

    fast = build()
    monkeypatch.setattr(lowering, "specialize_calls", lambda gm, root=True: 0)
    plain = build()
    code = fast.code
    assert "permute_copy" in code
    assert ("torch.mean" in code) == ("torch.cat" in code) == (pipe == "fuse")
    cos, sin = torch.randn(1, 1, 32, 16, generator=g), torch.randn(1, 1, 32, 16, generator=g)
    for x in floats(torch.float32, (3, 32, 64))[::2] + [torch.randn(1, 32, 64, generator=g)]:
        with torch.no_grad():
            bits_equal(fast(x, cos, sin)[0], plain(x, cos, sin)[0])


def test_attention_out_call_leaves_out_its_default_keywords():
    graph = fx.Graph()
    q, k, v = (graph.placeholder(n) for n in "qkv")
    call = graph.call_function(ops.npu_fusion_attention, (q, k, v, 2, "BNSD"),
                               {"scale": 0.5, "keep_prob": 1.0, "pre_tockens": 65536})
    graph.output((graph.call_function(operator.getitem, (call, 0)),))
    gm = fx.GraphModule(torch.nn.Module(), graph)
    assert specialize_calls(gm) == 1
    node = [n for n in gm.graph.nodes if n.target is ops.npu_fusion_attention_out][0]
    assert node.kwargs == {"scale": 0.5, "pre_tockens": 65536}
    q, k, v = (torch.randn(1, 2, 3, 4, generator=g) for _ in range(3))
    bits_equal(gm(q, k, v)[0], reference.npu_fusion_attention(q, k, v, 2, "BNSD", scale=0.5)[0])


# -- the transformer's self_dp_attention on device npu ---------------------------------------

def test_self_dp_attention_unbind_is_the_three_selects(monkeypatch):
    """One unbind for q, k, v: the selects' views (strides, offsets), so the module's bits."""
    import dataclasses

    from pirc.lower.npu import emit

    for x in (torch.randn(2, 8, 3, 4, 8, generator=g),
              torch.randn(2, 8, 5, 4, 8, generator=g)[:, :, 1:4]):
        for i, part in enumerate(torch.unbind(x, 2)):
            sel = torch.select(x, 2, i)
            assert (part.shape, part.stride(), part.storage_offset()) == \
                (sel.shape, sel.stride(), sel.storage_offset())

    def selects(e):   # the emitter before: three selects
        x = e.args[0]
        q, k, v = (e.call(torch.select, (x, 2, i)) for i in range(3))
        fused = e.call(ops.npu_fusion_attention, (q, k, v, e.attrs.get("head_number", 1), "BSND"),
                       {"scale": e.attrs.get("alpha", 1.0)})
        return {0: e.item(fused, 0)}

    import pirc
    from pirc.api import lower

    path = ROOT / "tests/fixtures/corpus/3.3.1/transformer.3.3.1"
    program = pirc.load(str(path) + ".json")
    params = pirc.read_params(str(path) + ".pdiparams", program)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fast = lower(program, params, device="npu", pipeline="npu")
        key = ("pd_op.self_dp_attention", 1)
        monkeypatch.setitem(emit.EMITTERS, key,
                            dataclasses.replace(emit.EMITTERS[key], build=selects))
        plain = lower(pirc.load(str(path) + ".json"), params, device="npu", pipeline="npu")
    assert "torch.unbind" in fast.code and "torch.select" in plain.code
    for x in floats(torch.float32, (3, 8, 32))[::2]:
        bits_equal(fast(x)[0], plain(x)[0])


# -- silu: torch's kernel for float32 / float64, the expression for the half types ----------

def plain_silu(x):
    """Paddle's SiluFunctor written out (x / (1 + exp(-x))), in place on the temporary."""
    t = torch.neg(x)
    t.exp_().add_(1)
    return torch.div(x, t)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16])
def test_silu_is_one_call_where_torchs_kernel_is_as_close_to_paddle(dtype):
    xs = floats(dtype, (3, 37))
    if dtype == torch.float32:   # every 65537th float32 bit pattern
        xs.append(torch.arange(-2 ** 31, 2 ** 31 - 1, 65537).to(torch.int32).view(torch.float32))
    want = F.silu if dtype in (torch.float32, torch.float64) else plain_silu
    for i, x in enumerate(xs):
        bits_equal(fused.silu(x), want(x))
        y = xs[(i + 2) % len(xs)].reshape(-1)[:x.numel()].reshape(x.shape) \
            if xs[(i + 2) % len(xs)].numel() >= x.numel() else x
        bits_equal(fused.swiglu(x, y), want(x) * y)


def test_silu_under_autograd_is_torchs_silu_with_its_gradient():
    x = torch.randn(4, 5, generator=g, dtype=torch.float64, requires_grad=True)
    out = fused.silu(x)
    bits_equal(out.detach(), F.silu(x.detach()))
    out.sum().backward()
    s = torch.sigmoid(x.detach())
    torch.testing.assert_close(x.grad, s * (1 + x.detach() * (1 - s)))
    h = torch.randn(4, 5, generator=g).to(torch.bfloat16).requires_grad_()
    bits_equal(fused.silu(h).detach(), h.detach() / (1 + torch.exp(-h.detach())))


# -- per CPU capability ----------------------------------------------------------------------

CAPABILITY_CHECK = """
import torch, numpy as np
from pirc.lower.npu import ops, reference
from pirc.testing import boundary_inputs
import test_speed_paths_llama8 as t
arrays = [torch.from_numpy(np.ascontiguousarray(a))
          for a in boundary_inputs("f32", (2, 4, 8, 16)).values()]
for i, x in enumerate(arrays):
    w = arrays[(i + 3) % len(arrays)][0, 0, 0]
    y, r = ops.npu_rms_norm(x, w, epsilon=1e-6)
    wy, wr = t.general_rms_norm(x, w, 1e-6)
    t.bits_equal(y, wy); t.bits_equal(r, wr)
    k, v = arrays[(i + 5) % len(arrays)], arrays[(i + 7) % len(arrays)]
    for layout in ("BNSD", "BSND"):
        t.bits_equal(ops.npu_fusion_attention_out(x, k, v, 4, layout, scale=0.3),
                     t.general_attention(x, k, v, layout, 0.3))
for x in arrays + [torch.arange(-2 ** 31, 2 ** 31 - 1, 65537).to(torch.int32).view(torch.float32)]:
    for h in (x.to(torch.bfloat16), x.to(torch.float16)):   # the half types' in-place steps
        t.bits_equal(t.fused.silu(h), h / (1 + torch.exp(-h)))
print(torch.backends.cpu.get_cpu_capability())
"""


@pytest.mark.parametrize("capability", ["default", "avx2", "avx512"])
def test_npu_reference_paths_per_cpu_capability(capability):
    """torch picks a kernel per CPU (DEFAULT / AVX2 / AVX512; CI may lack AVX-512): the
    written-out references keep the general path's bits under each."""
    import os
    import subprocess

    env = dict(os.environ, ATEN_CPU_CAPABILITY=capability,
               PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "tests" / "unit"),
                                           os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, "-c", CAPABILITY_CHECK], env=env, cwd=str(ROOT),
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]


@pytest.mark.parametrize("value", [1e-6, 1e-5, 1e-12, 0.25, 0.3535533845424652, 0.1, 1 / 3,
                                   1e-45, 3e-39, 1, 0.0, -2.5, math.inf, 3.5e38])
def test_float32_number_tensor_is_the_number(value):
    x = floats(torch.float32, (4, 33))
    n = number_tensor(value, torch.float32)
    for t in x:
        bits_equal(t * n, t * value)
        bits_equal(t.clone().add_(n), t.clone().add_(value))


def test_float32_number_cache_takes_no_nan():
    assert number_tensor(math.nan, torch.float32) != number_tensor(math.nan, torch.float32)
    assert not isinstance(number_tensor(math.nan, torch.float32), torch.Tensor)


def test_number_tensors_keep_the_sign_of_zero():
    """Cached by the number's bits: -0.0 (equal to 0.0, hashing alike) is its own tensor."""
    assert not torch.signbit(number_tensor(0.0, torch.float32))
    assert torch.signbit(number_tensor(-0.0, torch.float32))
    assert not torch.signbit(number_tensor(0.0, torch.float32))
