"""The lowering framework: graph shape, parameters, feeds/fetches, control flow, errors.

Kernels here are private to the test (a registry of its own), so that these tests check the
framework whatever the real kernels do.
"""

from pathlib import Path

import numpy as np
import pytest
import torch

import pirc
from pirc.errors import LoweringError
from pirc.lower import lower
from pirc.lower.execute import run_module
from pirc.runtime.registry import OpRegistry

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
CORPUS = FIXTURES / "corpus"


def make_registry(relu_since4=None) -> OpRegistry:
    r = OpRegistry()

    @r.register("pd_op.matmul")
    def matmul(x, y, *, transpose_x=False, transpose_y=False):
        return torch.matmul(x.mT if transpose_x else x, y.mT if transpose_y else y)

    @r.register("pd_op.add")
    def add(x, y):
        return x + y

    @r.register("pd_op.multiply")
    def multiply(x, y):
        return x * y

    @r.register("pd_op.relu", since=1, until=None if relu_since4 is None else 4)
    def relu(x):
        return torch.relu(x)

    if relu_since4 is not None:
        r.register("pd_op.relu", since=4)(relu_since4)

    @r.register("pd_op.softmax")
    def softmax(x, *, axis=-1):
        return torch.softmax(x, axis)

    @r.register("pd_op.exp")
    def exp(x):
        return torch.exp(x)

    @r.register("pd_op.tanh")
    def tanh(x):
        return torch.tanh(x)

    @r.register("pd_op.scale")
    def scale(x, factor=1.0, *, bias=0.0, bias_after_scale=True):
        out = x * factor + bias if bias_after_scale else (x + bias) * factor
        return out.to(x.dtype)

    @r.register("pd_op.full")
    def full(*, shape, value, dtype, place="cpu"):
        return torch.full(shape, value, dtype=dtype)

    @r.register("pd_op.full_int_array")
    def full_int_array(*, value, dtype, place="cpu"):
        return torch.tensor(value, dtype=dtype)

    @r.register("pd_op.greater_than")
    def greater_than(x, y):
        return x > y

    @r.register("pd_op.less_than")
    def less_than(x, y):
        return x < y

    @r.register("pd_op.sum")
    def sum_(x, axis=None, *, dtype=None, keepdim=False):
        return torch.sum(x, dim=axis or None, keepdim=keepdim, dtype=dtype)

    @r.register("pd_op.cast")
    def cast(x, *, dtype):
        return x.to(dtype)

    return r


def load(name: str, version="3.3.1"):
    return pirc.load(str(CORPUS / version / f"{name}.{version}.json"))


def io(name: str, version="3.3.1") -> dict:
    with np.load(CORPUS / version / f"{name}.{version}.io.npz") as d:
        return {k: d[k] for k in d.files}


def params(name: str, version="3.3.1") -> str:
    return str(CORPUS / version / f"{name}.{version}.pdiparams")


@pytest.mark.parametrize("version", ["3.0.0", "3.3.1"])
def test_mlp_lowers_to_a_readable_graph_with_named_parameters(version):
    gm = lower(load("mlp", version), params("mlp", version), registry=make_registry())
    assert isinstance(gm, torch.fx.GraphModule)
    code = gm.code
    assert "def forward(self, x):" in code
    for name in ("matmul", "relu", "softmax", "linear_0_w_0"):
        assert name in code
    assert gm.pirc_parameters == {"linear_1_b_0": "linear_1.b_0", "linear_1_w_0": "linear_1.w_0",
                                  "linear_0_b_0": "linear_0.b_0", "linear_0_w_0": "linear_0.w_0"}
    assert dict(gm.named_buffers())["linear_0_w_0"].shape == (784, 32)
    data = io("mlp", version)
    out = run_module(gm, data)
    assert list(out) == ["fetch_name_0"]
    np.testing.assert_allclose(out["fetch_name_0"], data["reload_out__0"], rtol=1e-4, atol=1e-6)


def test_parameters_as_a_dict_and_missing_ones():
    program = load("mlp")
    arrays = pirc.read_params(params("mlp"), program)
    gm = lower(program, arrays, registry=make_registry())
    assert torch.equal(gm.linear_1_b_0, torch.from_numpy(arrays["linear_1.b_0"]))
    del arrays["linear_0.w_0"], arrays["linear_1.b_0"]
    with pytest.raises(LoweringError, match="missing parameter linear_0.w_0\n  missing parameter linear_1.b_0"):
        lower(program, arrays, registry=make_registry())


def test_parameter_with_the_wrong_shape():
    program = load("mlp")
    arrays = pirc.read_params(params("mlp"), program)
    arrays["linear_1.b_0"] = np.zeros(11, np.float32)
    with pytest.raises(LoweringError, match=r"wrong shape for linear_1.b_0: program declares \[10\], got \[11\]"):
        lower(program, arrays, registry=make_registry())


def test_every_op_without_lowering_is_listed_at_once():
    r = OpRegistry()
    r.register("pd_op.add")(lambda x, y: x + y)
    with pytest.raises(LoweringError) as e:
        lower(load("mlp"), params("mlp"), registry=r)
    msg = str(e.value)
    assert msg.startswith("3 op kinds of this program cannot be lowered to torch:")
    for line in ("pd_op.matmul has no lowering (program PIR version 4); no version range is registered (2 ops)",
                 "pd_op.relu has no lowering", "pd_op.softmax has no lowering"):
        assert line in msg
    assert "pd_op.add has" not in msg


def test_missing_range_names_the_registered_ones():
    r = make_registry()
    r2 = OpRegistry()
    for name in r.names():
        if name != "pd_op.relu":
            for e in r.entries(name):
                r2.register(name, e.since, e.until)(e.fn)
    r2.register("pd_op.relu", since=2, until=3)(torch.relu)
    with pytest.raises(LoweringError, match=r"pd_op.relu has no lowering for PIR version 1; registered ranges: \[2, 3\)"):
        lower(load("mlp", "3.0.0"), params("mlp", "3.0.0"), registry=r2)


def test_the_program_version_picks_the_kernel_and_upgrade_switches_it():
    calls = []

    def relu_v4(x):
        calls.append("v4")
        return torch.relu(x)

    r = make_registry(relu_since4=relu_v4)
    old = load("mlp", "3.0.0")
    assert old.version == 1
    gm_old = lower(old, params("mlp", "3.0.0"), registry=r)
    assert "relu_v4" not in gm_old.code
    pirc.upgrade(old)
    gm_new = lower(old, params("mlp", "3.0.0"), registry=r)
    assert "relu_v4" in gm_new.code
    data = io("mlp", "3.0.0")
    a, b = run_module(gm_old, data), run_module(gm_new, data)
    assert calls == ["v4"]
    np.testing.assert_array_equal(a["fetch_name_0"], b["fetch_name_0"])


@pytest.mark.parametrize("version", ["3.0.0", "3.3.1"])
def test_control_flow_lowers_to_cond_and_while_loop_and_exports(version):
    program = load("control_flow", version)
    gm = lower(program, registry=make_registry())
    code = gm.code
    # pirc.lower.control_flow's cond / while_loop: plain Python control flow when run
    # eagerly, torch's higher-order operators under torch.export (checked below).
    assert "pirc_lower_control_flow_cond(" in code and "pirc_lower_control_flow_while_loop(" in code
    data = io("control_flow", version)
    out = run_module(gm, data)
    assert list(out) == [f"fetch_name_{i}" for i in range(4)]
    for i, got in enumerate(out.values()):
        np.testing.assert_allclose(got, data[f"reload_out__{i}"], rtol=1e-6)
        assert got.dtype == data[f"reload_out__{i}"].dtype
    feeds = tuple(torch.from_numpy(data["in__" + feed]) for feed, _ in gm.pirc_feeds)
    exported = torch.export.export(gm, feeds)
    ep_code = exported.graph_module.code
    assert "higher_order.cond" in ep_code and "higher_order.while_loop" in ep_code
    again = exported.module()(*feeds)
    for i, got in enumerate(again):
        np.testing.assert_array_equal(got.numpy(), list(out.values())[i])
    # The false branch too: a negative input sum takes it.
    neg = dict(data, in__x=-np.abs(data["in__x"]) - 1)
    flipped = run_module(gm, neg)
    np.testing.assert_allclose(flipped["fetch_name_0"], np.tanh(neg["in__x"]) - 1, rtol=1e-6)
    np.testing.assert_array_equal(flipped["fetch_name_1"], [0])


def test_mlp_exports():
    gm = lower(load("mlp"), params("mlp"), registry=make_registry())
    x = torch.from_numpy(io("mlp")["in__x"])
    exported = torch.export.export(gm, (x,))
    torch.testing.assert_close(exported.module()(x)[0], gm(x)[0])


def test_pylayer_forward_is_inlined():
    program = pirc.load(str(FIXTURES / "generated" / "3.3.1" / "pylayer.3.3.1.json"))
    gm = lower(program, registry=make_registry())
    assert "pylayer" not in gm.code and "tanh" in gm.code
    with np.load(FIXTURES / "generated" / "3.3.1" / "pylayer.3.3.1.io.npz") as d:
        out = run_module(gm, {"x": d["in__x"]})
        np.testing.assert_allclose(out["fetch_name_0"], d["out__0"], rtol=1e-6)


def test_without_fetch_ops_outputs_are_the_unused_values():
    program = load("mlp")
    for op in list(program.block.ops):
        if op.name == "pd_op.fetch":
            program.block.detach_op(op)
            op.erase()
    gm = lower(program, params("mlp"), registry=make_registry())
    assert gm.pirc_fetch_names == ["out0"]
    out = run_module(gm, io("mlp"))
    np.testing.assert_allclose(out["out0"], io("mlp")["reload_out__0"], rtol=1e-4, atol=1e-6)


def test_feeds_by_name_or_corpus_key_and_a_missing_feed():
    gm = lower(load("control_flow"), registry=make_registry())
    data = io("control_flow")
    by_name = run_module(gm, {"x": data["in__x"], "n": data["in__n"]})
    by_key = run_module(gm, data)
    for k in by_name:
        np.testing.assert_array_equal(by_name[k], by_key[k])
    with pytest.raises(LoweringError, match=r"no input for feed n \(inputs given: x\)"):
        run_module(gm, {"x": data["in__x"]})


def test_constant_shape_operands_are_folded():
    # full_int_array feeding sum's axis becomes a Python list: shapes stay static for export.
    gm = lower(load("control_flow"), registry=make_registry())
    assert "full_int_array" not in gm.code and "sum_(x, []" in gm.code


def test_unknown_device_is_an_error():
    with pytest.raises(LoweringError, match="unknown device 'tpu'"):
        lower(load("mlp"), params("mlp"), device="tpu", registry=make_registry())


def test_real_kernels_lower_the_corpus_models():
    """The shared registry (pirc.lower.kernels) covers every corpus model's ops."""
    from pirc.lower.lower import load_kernels, missing_lowerings

    load_kernels()
    for name in ("mlp", "cnn", "transformer", "control_flow"):
        for version in ("3.0.0", "3.3.1"):
            assert missing_lowerings(load(name, version)) == []


@pytest.mark.parametrize("name", ["mlp", "cnn", "transformer", "control_flow"])
def test_torch_export_accepts_every_corpus_model_with_the_real_kernels(name):
    base = CORPUS / "3.3.1" / f"{name}.3.3.1"
    program = pirc.load(str(base) + ".json")
    weights = Path(str(base) + ".pdiparams")
    gm = pirc.lower(program, str(weights) if weights.exists() else None)
    data = io(name)
    feeds = tuple(torch.from_numpy(data["in__" + feed]) for feed, _ in gm.pirc_feeds)
    exported = torch.export.export(gm, feeds)
    for a, b in zip(exported.module()(*feeds), gm(*feeds)):
        assert torch.equal(a, b)


def test_pirc_lower_stays_callable_after_importing_the_package():
    import pirc.lower.values  # noqa: F401  (rebinds the attribute pirc.lower to the package)

    gm = pirc.lower(load("control_flow"))
    assert isinstance(gm, torch.fx.GraphModule)


def test_calling_a_lowered_module_is_nn_modules_call(capfd):
    """A lowered module (and its control-flow submodules) is called as any nn.Module: no fx
    wrapper that prints the generated code to stderr when the forward raises (pirc.run names
    the failing op itself).  The outputs are the forward's; fx's `recompile()` puts its
    wrapper back."""
    gm = lower(load("mlp"), params("mlp"))
    x = torch.from_numpy(io("mlp")["in__x"])
    torch.testing.assert_close(gm(x), gm.forward(x), rtol=0, atol=0)
    with pytest.raises(RuntimeError):
        gm(x[:, :100])   # 100 features where the first matmul takes 784
    assert capfd.readouterr().err == ""
    gm.recompile()
    with pytest.raises(RuntimeError):
        gm(x[:, :100])
    assert "generated forward" in capfd.readouterr().err
    cf = lower(load("control_flow"))
    subs = [m for m in cf.modules() if isinstance(m, torch.fx.GraphModule)]
    assert len(subs) > 1 and all(type(m).__call__ is torch.nn.Module.__call__ for m in subs)
