"""The speed paths taken for issue 22's benchmark (tools/bench_run.py --mode fusion) give the bits
of what they replace.

* pd_op.fc's specialiser (matmul on the input as it is, bias and relu in place) against the fc
  kernel, static and dynamic first dim, contiguous or not;
* reshape with copied (0) leading dims that are dynamic: unflatten / flatten against the kernel;
* rsqrt's check-first path against the masked fix of Eigen's denormal lanes;
* max pool: the direct NCHW call on a small map against the channels-last one, and the NaN /
  -inf refold's one-read test against the windows it must refold;
* npu_fusion_attention: the output-only call (chosen where nothing reads the softmax
  statistics) against the full reference's output, and the lowering choosing it;
* the npu references without their no-op float32 conversions against the formulas;
* fused_bias_residual_layernorm's residual form inline against its kernel (boundary inputs,
  every result or only the output);
* npu_linear's parameter weight transposed once against the per-call transpose;
* the npu emitters' weights without a reshape to their own shape against the reshaped ones;
* npu_scaled_masked_softmax without fuse-scaled-softmax's all-False mask against the mask;
* pow by a number, scale by -1 (bias - x), embedding of int64 ids and unsqueeze of several
  axes against their kernels.
"""

from __future__ import annotations

import math
import operator
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.fx as fx
import torch.nn.functional as F

from pirc.lower.kernels import fused, pool
from pirc.lower.kernels.linalg import fc
from pirc.lower.kernels.shape import reshape
from pirc.lower.npu import ops, reference
from pirc.lower.specialize import specialize_calls
from pirc.testing import boundary_inputs
from tensor_bits import bits_equal

g = torch.Generator().manual_seed(22)




def typed_operands(graph, operands, dynamic):
    """Placeholders for the operands with their static types, each read through a clone (a
    value the graph computes); operand i's first dynamic[i] dims are -1 (dynamic)."""
    args = []
    for i, t in enumerate(operands):
        if t is None:
            args.append(None)
            continue
        node = graph.placeholder(f"in{i}")
        shape = list(t.shape)
        shape[:dynamic.get(i, 0)] = [-1] * dynamic.get(i, 0)
        copy = graph.call_function(torch.clone, (node,))
        for n in (node, copy):
            n.meta["pir_shape"], n.meta["pir_dtype"] = tuple(shape), t.dtype
        args.append(copy)
    return args


def one_call(fn, operands, kwargs, dynamic_first_dim):
    """A one-call graph with the operands' static types on its placeholders (the first
    operand's first dim -1 when `dynamic_first_dim`: weights stay static), specialised."""
    graph = fx.Graph()
    args = typed_operands(graph, operands, {0: int(dynamic_first_dim)})
    graph.output(graph.call_function(fn, tuple(args), kwargs))
    gm = fx.GraphModule(torch.nn.Module(), graph)
    return gm, specialize_calls(gm)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("act", ["", "relu"])
@pytest.mark.parametrize("bias_shape", ["1-D", "2-D", None])
@pytest.mark.parametrize("dynamic_first_dim", [False, True])
def test_fc_specialised_is_the_kernel(dtype, act, bias_shape, dynamic_first_dim):
    for shape, k, n in [((3, 5, 7), 7, 9), ((4, 16), 16, 3), ((2, 3, 4, 64), 64, 65)]:
        x = torch.randn(shape, generator=g, dtype=dtype)
        x[0, 0] = float("nan") if x.dim() > 1 else x[0, 0]
        w = torch.randn(k, n, generator=g, dtype=dtype)
        b = None if bias_shape is None else torch.randn(n if bias_shape == "1-D" else (1, n),
                                                        generator=g, dtype=dtype)
        kw = {"in_num_col_dims": x.dim() - 1, "activation_type": act}
        want = fc(x, w, b, **kw)
        gm, done = one_call(fc, [x, w, b], kw, dynamic_first_dim)
        assert done == 1 and fc not in [nd.target for nd in gm.graph.nodes]
        bits_equal(gm(*[t for t in (x, w, b) if t is not None]), want)
        # a transposed (non-contiguous) input: torch.matmul copies it as reshape would
        xt = torch.randn(tuple(reversed(shape[:-1])) + (k,), generator=g, dtype=dtype)
        if xt.dim() == 3:
            xt = xt.transpose(0, 1)
            bits_equal(gm(*[t for t in (xt, w, b) if t is not None]), fc(xt, w, b, **kw))


def test_fc_keeps_the_kernel_where_the_rows_are_not_all_leading_dims():
    x, w = torch.randn(2, 3, 4, generator=g), torch.randn(12, 5, generator=g)
    gm, done = one_call(fc, [x, w, None], {"in_num_col_dims": 1}, False)
    assert done == 0
    bits_equal(gm(x, w), fc(x, w, in_num_col_dims=1))


@pytest.mark.parametrize("src,spec", [((3, 5, 64), [0, 0, 4, 16]), ((3, 5, 4, 16), [0, 0, 64]),
                                      ((2, 3, 5, 6), [0, 0, 30]), ((3, 5, 64), [0, 0, 64])])
def test_reshape_of_dynamic_copied_dims_is_the_kernel(src, spec):
    gm, done = one_call(reshape, [torch.randn(src, generator=g)], {"shape": spec}, 2)
    assert done == 1
    for x in (torch.randn(src, generator=g), torch.randn(src[::-1], generator=g).permute(
            *reversed(range(len(src)))), torch.randn((7,) + src[1:], generator=g)[2:5]):
        want, got = reshape(x, spec), gm(x)
        assert got.shape == want.shape and got.stride() == want.stride()
        bits_equal(got, want)


def test_reshape_keeps_the_kernel_where_the_prefix_is_not_copied_dims():
    _, done = one_call(reshape, [torch.randn(3, 5, 6, 4, generator=g)], {"shape": [0, 4, 0, 0]}, 3)
    assert done == 0


def test_rsqrt_check_first_is_the_masked_fix(monkeypatch):
    tiny = torch.finfo(torch.float32).tiny
    cases = [torch.rand(37, generator=g) + 0.5, torch.tensor([0.0, -0.0, 1.0, math.inf]),
             torch.tensor([tiny / 4] * 17 + [-tiny / 8] * 9 + [2.0, 0.0]),
             torch.rand(3, 11, generator=g).mul(1e-37)]
    cases += [torch.from_numpy(a.copy()) for a in boundary_inputs("f32", (3, 11)).values()]
    want = []
    for x in cases:
        want.append(fused.rsqrt(x))
    monkeypatch.setattr("pirc.lower.control_flow._tracing", lambda t: True)  # the full path
    for x, w in zip(cases, want):
        bits_equal(fused.rsqrt(x), w)
    assert torch.isinf(want[2][:16]).all() and want[2][16] > 0  # the lanes still fixed


@pytest.mark.parametrize("shape", [(1, 16, 8, 8), (2, 3, 7, 9), (1, 8, 16, 16), (64, 16, 8, 8)])
def test_small_max_pool_direct_is_channels_last(shape):
    x = torch.randn(shape, generator=g)
    x.view(-1)[::13] = float("nan")
    direct = F.max_pool2d(x, [2, 2], [2, 2], [0, 0])
    got = pool.max_pool2d_nchw(x, [2, 2], [2, 2], [0, 0])
    assert got.is_contiguous()
    assert torch.equal(got.isnan(), direct.isnan())
    bits_equal(got.nan_to_num(), direct.nan_to_num())


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("special", [None, "nan", "-inf", "lowest"])
def test_max_pool_refold_test_reads_once(monkeypatch, dtype, special):
    x = torch.randn(2, 3, 6, 6, generator=g, dtype=dtype)
    if special == "nan":
        x[0, 1, 2, 3] = float("nan")
    elif special == "-inf":
        x[1, 2, :2, :2] = -math.inf
    elif special == "lowest":
        x[1, 0, 4:, 4:] = -1e300 if dtype == torch.float64 else -3e38
    fast = F.max_pool2d(x, [2, 2], [2, 2], [0, 0])
    args = (x, fast, [2, 2], [2, 2], [(0, 0), (0, 0)], [3, 3])
    got = pool.max_pool_nan_fold(*args)
    monkeypatch.setattr("pirc.lower.control_flow._tracing", lambda t: True)  # always refold
    want = pool.max_pool_nan_fold(*args)
    assert torch.equal(got.isnan(), want.isnan())
    bits_equal(got.nan_to_num(), want.nan_to_num())


ATTENTION_CASES = [
    ("BNSD", (2, 4, 5, 8), (2, 4, 5, 8), None),
    ("BSND", (2, 5, 4, 8), (2, 7, 4, 8), "mask"),
    ("BSH", (2, 5, 32), (2, 5, 16), None),          # grouped: 4 query heads, 2 kv heads
    ("SBH", (5, 2, 32), (5, 2, 32), "mask"),
]


@pytest.mark.parametrize("layout,qs,ks,mask", ATTENTION_CASES)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
def test_attention_out_alone_is_the_full_references_output(layout, qs, ks, mask, dtype):
    q = torch.randn(qs, generator=g).to(dtype)
    k, v = torch.randn(ks, generator=g).to(dtype), torch.randn(ks, generator=g).to(dtype)
    s1 = qs[2] if layout == "BNSD" else qs[1] if layout in ("BSND", "BSH") else qs[0]
    s2 = ks[2] if layout == "BNSD" else ks[1] if layout in ("BSND", "BSH") else ks[0]
    atten = torch.rand(s1, s2, generator=g) > 0.7 if mask else None
    if atten is not None:
        atten[:, 0] = False   # no row all masked
    full = reference.npu_fusion_attention(q, k, v, 4, layout, atten_mask=atten, scale=0.3)
    bits_equal(ops.npu_fusion_attention_out(q, k, v, 4, layout, atten_mask=atten, scale=0.3),
               full[0])


def test_lowering_takes_attention_out_only_where_nothing_reads_the_statistics():
    def build(read_max):
        graph = fx.Graph()
        q, k, v = (graph.placeholder(n) for n in "qkv")
        call = graph.call_function(ops.npu_fusion_attention, (q, k, v, 2, "BNSD"),
                                   {"scale": 0.5})
        out = graph.call_function(operator.getitem, (call, 0))
        outs = (out, graph.call_function(operator.getitem, (call, 1))) if read_max else (out,)
        graph.output(outs)
        return fx.GraphModule(torch.nn.Module(), graph)

    q, k, v = (torch.randn(1, 2, 3, 4, generator=g) for _ in range(3))
    want = reference.npu_fusion_attention(q, k, v, 2, "BNSD", scale=0.5)
    alone, both = build(False), build(True)
    assert specialize_calls(alone) == 1 and specialize_calls(both) == 0
    targets = [n.target for n in alone.graph.nodes if n.op == "call_function"]
    assert ops.npu_fusion_attention_out in targets and ops.npu_fusion_attention not in targets
    bits_equal(alone(q, k, v)[0], want[0])
    got = both(q, k, v)
    bits_equal(got[0], want[0])
    bits_equal(got[1], want[1])


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
def test_references_in_float32_compute_the_formulas(dtype):
    x = torch.randn(2, 3, 8, generator=g).to(dtype)
    w = torch.randn(8, generator=g).to(dtype)
    y, rstd = reference.npu_rms_norm(x, w, 1e-6)
    xf = x.float()
    r = torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-6)
    bits_equal(rstd, r)
    bits_equal(y, (xf * r * w.float()).to(dtype))
    a, b = torch.chunk(x, 2, -1)
    bits_equal(reference.npu_swiglu(x), (F.silu(a.float()) * b.float()).to(dtype))
    m = torch.rand(2, 3, 8, generator=g) > 0.5
    bits_equal(reference.npu_scaled_masked_softmax(x, m, 0.5),
               torch.softmax((x.float() * 0.5).masked_fill(m, -1e4), -1).to(dtype))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16])
def test_gelu_erf_in_place_steps_are_the_expression(dtype):
    from pirc.lower.kernels.activation import M_SQRT1_2, gelu_erf

    fi = torch.finfo(dtype)
    x = torch.cat([torch.randn(1000, generator=g), torch.tensor(
        [0.0, -0.0, math.nan, math.inf, -math.inf, fi.max, -fi.max, fi.tiny / 2])]).to(dtype)
    want = x * (1 + torch.erf(x * M_SQRT1_2)) * 0.5
    got = gelu_erf(x)
    assert torch.equal(got.isnan(), want.isnan())
    bits_equal(got.nan_to_num(), want.nan_to_num())
    xg = x.float().clone().requires_grad_()
    gelu_erf(xg).sum().backward()   # autograd through the kernel still works
    assert xg.grad is not None


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16])
def test_relu_in_place_nan_step_is_the_expression(dtype):
    from pirc.lower.kernels.activation import relu

    x = torch.cat([torch.randn(999, generator=g), torch.tensor(
        [0.0, -0.0, math.nan, math.inf, -math.inf])]).to(dtype)
    want = torch.nan_to_num(F.threshold(x, 0.0, 0.0), nan=0.0, posinf=math.inf)
    bits_equal(relu(x), want)
    bits_equal(relu(x.reshape(4, -1).t()), want.reshape(4, -1).t())


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16])
def test_silu_is_torchs_kernel_or_the_expression_in_place(dtype):
    """float32 / float64: torch's silu kernel (as close to Paddle's as the expression:
    tools/paddle_oracle/activation_all_floats.log); the half types: Paddle's expression, each step
    rounded, its in-place steps giving the expression's bits."""
    x = torch.cat([torch.randn(999, generator=g) * 30, torch.tensor(
        [0.0, -0.0, math.nan, math.inf, -math.inf])]).to(dtype)
    want = F.silu(x) if dtype in (torch.float32, torch.float64) else x / (1 + torch.exp(-x))
    got = fused.silu(x)
    assert torch.equal(got.isnan(), want.isnan())
    bits_equal(got.nan_to_num(), want.nan_to_num())
    y = x[:1000].reshape(2, 500)
    bits_equal(fused.swiglu(y).nan_to_num(), (fused.silu(y[:, :250]) * y[:, 250:]).nan_to_num())


def specialised_reads(kernel, operands, kwargs, reads, dynamic=()):
    """A graph calling `kernel` on the operands (placeholders with static types; operand i in
    `dynamic` gets a dynamic first dim) and returning its results `reads`, specialised."""
    graph = fx.Graph()
    args = typed_operands(graph, operands, {i: 1 for i in dynamic})
    call = graph.call_function(kernel, tuple(args), kwargs)
    graph.output(tuple(graph.call_function(operator.getitem, (call, i)) for i in reads))
    gm = fx.GraphModule(torch.nn.Module(), graph)
    return gm, specialize_calls(gm)


RESIDUAL_LN_CASES = [((2, 8, 32), 2), ((1, 5, 64), 2), ((3, 4, 6), 1), ((4, 16), 1),
                     ((2, 3, 17), 2)]


@pytest.mark.parametrize("dtype", ["f32", "f64"])
@pytest.mark.parametrize("shape,begin", RESIDUAL_LN_CASES)
def test_residual_layernorm_specialised_is_the_kernel(dtype, shape, begin):
    """fused_bias_residual_layernorm's residual form, inline: the kernel's bits on every
    boundary input, with and without bias / norm weight / norm bias, alpha 1 or not, every
    result read or only the output, static or dynamic first dim."""
    from pirc.lower.kernels.fused_cpu import fused_bias_residual_layernorm as kernel

    n = math.prod(shape[begin:])
    td = {"f32": torch.float32, "f64": torch.float64}[dtype]

    def rnd(*s):
        return torch.randn(*s, generator=g, dtype=td)

    for label, arr in boundary_inputs(dtype, shape).items():
        x, residual = torch.from_numpy(arr.copy()), rnd(*shape) * 3 + 5
        for weight, nbias, bias, alpha in ((rnd(n), rnd(n), None, 1.0),
                                           (rnd(n), None, rnd(1, n), 0.1),
                                           (None, rnd(n), None, 1.0)):
            kw = {"epsilon": 1e-5, "residual_alpha": alpha, "begin_norm_axis": begin}
            operands = [x, bias, residual, weight, nbias]
            want = kernel(*operands, **kw)
            for reads, dynamic in (((0, 1, 2, 3), ()), ((0,), (0, 2))):
                gm, done = specialised_reads(kernel, operands, kw, reads, dynamic)
                assert done == 1 and kernel not in [nd.target for nd in gm.graph.nodes], label
                got = gm(*[t for t in operands if t is not None])
                for i, r in enumerate(reads):
                    bits_equal(got[i], want[r])


def test_residual_layernorm_keeps_the_kernel_outside_the_residual_form():
    from pirc.lower.kernels.fused_cpu import fused_bias_residual_layernorm as kernel

    x, w = torch.randn(2, 4, 8, generator=g), torch.randn(8, generator=g)
    kw = {"epsilon": 1e-5, "begin_norm_axis": 2}
    for operands in ([x, None, None, w, None],      # no residual: the kernel's other form
                     [x, None, x.half(), w, None],  # a residual of another dtype
                     [x, None, x[0], w, None]):     # a broadcast residual
        gm, done = specialised_reads(kernel, operands, kw, (0,))
        assert done == 0
    gm, done = specialised_reads(kernel, [x, None, x, w, None], kw, (0,), dynamic=(0,))
    assert done == 0   # x's dynamic first dim is not the residual's static one


@pytest.mark.parametrize("shape", [(1, 8, 64), (5, 64), (3, 2, 7, 64)])
def test_npu_linear_weight_transposed_once_is_the_per_call_transpose(shape):
    """A parameter weight is transposed once into a buffer (a view: the same strides as
    torch.t per call, so the same GEMM bits); a runtime weight keeps torch.t per call."""
    def build(weight_is_param):
        root = torch.nn.Module()
        graph = fx.Graph()
        x = graph.placeholder("x")
        if weight_is_param:
            root.register_buffer("w", w)
            wn = graph.get_attr("w")
        else:
            wn = graph.placeholder("w")
        root.register_buffer("b", b)
        out = graph.call_function(ops.npu_linear, (x, graph.call_function(torch.t, (wn,))),
                                  {"bias": graph.get_attr("b")})
        graph.output((out,))
        gm = fx.GraphModule(root, graph)
        return gm, specialize_calls(gm)

    for label, arr in boundary_inputs("f32", shape).items():
        x = torch.from_numpy(arr.copy())
        w, b = torch.randn(64, 48, generator=g), torch.randn(48, generator=g)
        want = reference.npu_linear(x, torch.t(w), b)
        once, done = build(True)
        assert done == 1 and torch.t not in [n.target for n in once.graph.nodes]
        assert once.get_buffer(next(n.target for n in once.graph.nodes if n.op == "get_attr"
                                    and n.target not in ("w", "b"))).data_ptr() == w.data_ptr()
        bits_equal(once(x)[0], want)
        per_call, done = build(False)
        assert done == 0 and torch.t in [n.target for n in per_call.graph.nodes]
        bits_equal(per_call(x, w)[0], want)


def test_npu_emitters_skip_a_reshape_to_the_operands_own_shape(monkeypatch):
    """npu_layer_norm_eval's weight and bias (the corpus transformer: [32] for
    normalized_shape [32]) reach the call as they are; the module's outputs are the bits of
    the emitters reshaping them anyway."""
    import warnings

    import pirc.api as api
    from pirc.lower.npu import emit

    base = Path(__file__).resolve().parents[2] / "tests/fixtures/corpus/3.3.1/transformer.3.3.1"
    program = api.load(f"{base}.json")
    io = np.load(f"{base}.io.npz")
    feeds = [torch.from_numpy(io[k]) for k in io.files if k.startswith("in__")]

    def lowered():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return api.lower(program, f"{base}.pdiparams", device="npu")

    gm = lowered()
    calls = [n for n in gm.graph.nodes if n.target is ops.npu_layer_norm_eval]
    assert calls and all(n.kwargs[k].target is not torch.reshape for n in calls
                         for k in ("weight", "bias"))
    monkeypatch.setattr(emit.Emit, "reshaped",
                        lambda self, t, operand, dims: self.call(torch.reshape, (t, dims)))
    always = lowered()
    assert any(n.target is torch.reshape and n.users and next(iter(n.users)).target
               is ops.npu_layer_norm_eval for n in always.graph.nodes)
    for got, want in zip(gm(*feeds), always(*feeds)):
        bits_equal(got, want)


@pytest.mark.parametrize("fill", [False, True])
def test_scaled_softmax_without_a_built_mask_is_the_all_false_mask(fill, monkeypatch):
    """fuse-scaled-softmax's all-False `full_like(x, 0, bool)` mask is not built per run: the
    call's output keeps the bits of the reference with that mask (boundary inputs); a mask
    filled True stays built.  On an NPU, torch_npu still gets an all-False bool mask."""
    from pirc.lower.kernels.creation import full_like

    def build():
        graph = fx.Graph()
        x = graph.placeholder("x")
        mask = graph.call_function(full_like, (x, fill), {"dtype": torch.bool,
                                                          "place": "undefined"})
        graph.output((graph.call_function(ops.npu_scaled_masked_softmax, (),
                                          {"x": x, "mask": mask, "scale": 0.25,
                                           "fixed_triu_mask": False}),))
        gm = fx.GraphModule(torch.nn.Module(), graph)
        return gm, specialize_calls(gm)

    gm, done = build()
    assert done == int(not fill)
    assert (full_like in [n.target for n in gm.graph.nodes]) == fill
    for label, arr in boundary_inputs("f32", (2, 4, 8, 8)).items():
        x = torch.from_numpy(arr.copy())
        want = reference.npu_scaled_masked_softmax(x, torch.full_like(x, fill, dtype=torch.bool),
                                                   0.25)
        bits_equal(gm(x)[0], want)
    seen = []
    monkeypatch.setattr(ops, "on_npu", lambda t: True)
    monkeypatch.setattr(ops, "npu_call", lambda name, x, mask, **kw: seen.append(mask) or x)
    x = torch.randn(1, 2, 32, 32, generator=g)
    gm(x)
    assert seen[0].dtype is torch.bool and seen[0].shape == x.shape and bool(seen[0].any()) == fill


@pytest.mark.parametrize("dtype", ["f32", "f64"])
@pytest.mark.parametrize("y", [2, 2.0, 1.5, -2.0, 0.0, 1.0, 0.1, 3.0, 0.5, -0.5, -3])
def test_pow_by_a_number_specialised_is_the_kernel(dtype, y):
    """pd_op.pow by a number, its exponent's float32 value taken once: x * x for 2, the
    double pow rounded back for the others, the kernel itself for an odd integer and +-0.5
    (its special cases); the kernel's bits on every boundary input."""
    from pirc.lower.kernels.elementwise import pow_

    kept = y in (0.5, -0.5) or (y == int(y) and int(y) % 2 == 1 and y != 1)
    for label, arr in boundary_inputs(dtype, (3, 37)).items():
        x = torch.from_numpy(arr.copy())
        gm, done = one_call(pow_, [x], {"y": y}, False)
        assert done == int(not kept), label
        assert (pow_ in [n.target for n in gm.graph.nodes]) == kept
        bits_equal(gm(x), pow_(x, y=y))


@pytest.mark.parametrize("dtype", ["f32", "f64"])
@pytest.mark.parametrize("bias", [0.0, -0.0, 1.5])
def test_scale_by_minus_one_is_one_subtraction(dtype, bias):
    """scale(x, -1, bias) (rotate-half's negation) as bias - x: the kernel's bits on every
    boundary input, -0 turned +0 and NaN payloads kept; bias before the scale keeps mul."""
    from pirc.lower.kernels.elementwise import scale

    for label, arr in boundary_inputs(dtype, (3, 37)).items():
        x = torch.from_numpy(arr.copy())
        for after in (True, False):
            kw = {"scale": -1.0, "bias": bias, "bias_after_scale": after}
            gm, done = one_call(scale, [x], kw, False)
            assert done == 1
            assert (torch.rsub in [n.target for n in gm.graph.nodes]) == after
            bits_equal(gm(x), scale(x, **kw))
    nan = torch.tensor([-5], dtype=torch.int32).view(torch.float32)  # a negative NaN, payload
    gm, _ = one_call(scale, [nan.to(x.dtype)], {"scale": -1.0, "bias": bias}, False)
    bits_equal(gm(nan.to(x.dtype)), scale(nan.to(x.dtype), scale=-1.0, bias=bias))


def test_embedding_of_int64_ids_is_the_kernel():
    """int64 ids without a padding row: F.embedding on the ids as they are; int32 ids and a
    padding row keep the kernel."""
    from pirc.lower.kernels.grad_nn import embedding

    w = torch.randn(11, 6, generator=g)
    ids = torch.randint(0, 11, (3, 7), generator=g)
    for x, kw, taken in ((ids, {}, True), (ids.int(), {}, False),
                         (ids, {"padding_idx": 2}, False)):
        gm, done = one_call(embedding, [x, w], kw, True)
        assert done == int(taken)
        bits_equal(gm(x, w), embedding(x, w, **kw))


@pytest.mark.parametrize("axes,shape", [([1, 2], (3, 7)), ([-1, 0], (2, 5)), ([0, 3, 1], (4, 6)),
                                        ([2, 2], (3, 2, 5)), ([1, 2], (0, 4))])
@pytest.mark.parametrize("dynamic", [0, 1, 2])
def test_unsqueeze_of_several_axes_is_one_reshape(axes, shape, dynamic):
    """unsqueeze over several axes as one reshape, dynamic dims read from x's shape: the
    kernel's shape and values, a view of x as the kernel's."""
    from pirc.lower.kernels.shape import unsqueeze

    x = torch.randn(shape, generator=g)
    gm, done = one_call(unsqueeze, [x], {"axis": axes}, dynamic)
    assert done == 1
    assert [n.target for n in gm.graph.nodes if n.target in (torch.reshape, torch.unsqueeze)] \
        == [torch.reshape]
    want = unsqueeze(x, axes)
    got = gm(x)
    assert got.shape == want.shape and got._base is not None
    bits_equal(got, want)


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32])
def test_integer_cumsum_is_one_call(dtype):
    """An integer cumsum (BERT's position ids) is torch.cumsum in x's dtype: the kernel's
    values, wrapping included; exclusive, reversed and float scans keep the kernel."""
    from pirc.lower.kernels.scan import cumsum

    info = torch.iinfo(dtype)
    x = torch.randint(-50, 50, (3, 9), generator=g, dtype=dtype)
    x[0, :2] = info.max   # wraps
    for axis in (-1, 0, 1):
        gm, done = one_call(cumsum, [x], {"axis": axis}, True)
        assert done == 1 and cumsum not in [n.target for n in gm.graph.nodes]
        bits_equal(gm(x), cumsum(x, axis))
    for kw in ({"exclusive": True}, {"reverse": True}, {"flatten": True}):
        assert one_call(cumsum, [x], {"axis": 1, **kw}, False)[1] == 0
    assert one_call(cumsum, [x.float()], {"axis": 1}, False)[1] == 0
