"""A lowered module reads its weights without nn.Module.__getattr__ (pirc/lower/module_class.py),
and is still an nn.Module in every way a user touches its weights."""

import copy
import io as bytes_io
from pathlib import Path

import numpy as np
import pytest
import torch

import pirc
from pirc.lower import lower
from pirc.lower.module_class import direct_attribute_reads

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "corpus" / "3.3.1"


def _mlp():
    gm = lower(pirc.load(str(CORPUS / "mlp.3.3.1.json")), str(CORPUS / "mlp.3.3.1.pdiparams"))
    with np.load(CORPUS / "mlp.3.3.1.io.npz") as d:
        x = torch.from_numpy(d["in__x"])
    return gm, x


def _weight_names(gm):
    return [n.target for n in gm.graph.nodes if n.op == "get_attr"]


def _exact(a, b):
    torch.testing.assert_close(a, b, rtol=0, atol=0)


def test_the_forward_reads_no_weight_through_nn_modules_getattr(monkeypatch):
    gm, x = _mlp()
    names = set(_weight_names(gm))
    assert len(names) >= 4
    want = gm(x)
    looked_up = []
    real = torch.nn.Module.__getattr__

    def counting(self, name):
        looked_up.append(name)
        return real(self, name)

    monkeypatch.setattr(torch.nn.Module, "__getattr__", counting)
    _exact(gm(x), want)
    assert not names & set(looked_up)


def test_a_weight_converted_loaded_or_assigned_is_the_one_read():
    gm, x = _mlp()
    first = _weight_names(gm)[0]
    # .to(): nn.Module puts new tensors in its buffer dict
    gm64 = gm.double()
    assert getattr(gm64, first).dtype == torch.float64
    assert getattr(gm64, first) is gm64._buffers[first]
    gm = gm64.float()
    want = gm(x)
    # load_state_dict writes into the buffers; assignment replaces one
    state = {k: torch.zeros_like(v) for k, v in gm.state_dict().items()}
    gm.load_state_dict(state)
    assert not torch.equal(gm(x)[0], want[0])
    fresh, _ = _mlp()
    gm.load_state_dict(fresh.state_dict())
    _exact(gm(x), want)
    replaced = torch.full_like(getattr(gm, first), 2.0)
    setattr(gm, first, replaced)
    assert getattr(gm, first) is replaced and gm._buffers[first] is replaced


def test_a_deleted_weight_is_gone_and_a_plain_attribute_takes_its_name():
    gm, _ = _mlp()
    first = _weight_names(gm)[0]
    delattr(gm, first)
    assert first not in gm._buffers
    with pytest.raises(AttributeError):
        getattr(gm, first)
    assert not hasattr(gm, first)
    setattr(gm, first, "a note")        # not a tensor: nn.Module makes it a plain attribute
    assert getattr(gm, first) == "a note"
    delattr(gm, first)
    assert not hasattr(gm, first)
    gm.register_buffer(first, torch.ones(3))   # the name is free again
    assert getattr(gm, first) is gm._buffers[first]


def test_copies_and_pickles_compute_the_same():
    gm, x = _mlp()
    want = gm(x)
    _exact(copy.deepcopy(gm)(x), want)
    buffer = bytes_io.BytesIO()
    torch.save(gm, buffer)
    buffer.seek(0)
    _exact(torch.load(buffer, weights_only=False)(x), want)


def test_parameters_read_from_the_parameter_dict_and_class_names_are_left_alone():
    class Small(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = torch.nn.Parameter(torch.full((3,), 2.0))
            self.register_buffer("b", torch.ones(3))

        def forward(self, x):
            return x * self.w + self.b

    gm = torch.fx.symbolic_trace(Small())
    code_before = type(gm).__dict__.get("code")
    direct_attribute_reads(gm)
    cls = type(gm)
    assert isinstance(cls.__dict__["w"], property) and isinstance(cls.__dict__["b"], property)
    assert cls.__dict__.get("code") is code_before
    assert gm.w is gm._parameters["w"]
    _exact(gm(torch.ones(3)), torch.full((3,), 3.0))
    # another GraphModule of the same source keeps nn.Module's lookup
    other = torch.fx.symbolic_trace(Small())
    assert "w" not in type(other).__dict__


def test_submodules_and_their_weights_are_read_from_nn_modules_dicts():
    class Inner(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("b", torch.full((3,), 5.0))

        def forward(self, x):
            return x + self.b

    root = torch.nn.Module()
    root.inner = torch.fx.symbolic_trace(Inner())
    graph = torch.fx.Graph()
    x = graph.placeholder("x")
    graph.output(graph.call_module("inner", (x,)))
    gm = torch.fx.GraphModule(root, graph)
    direct_attribute_reads(gm)
    assert isinstance(type(gm.inner).__dict__["b"], property)
    assert isinstance(type(gm).__dict__["inner"], property) and gm.inner is gm._modules["inner"]
    _exact(gm(torch.zeros(3)), torch.full((3,), 5.0))
    gm.inner = torch.nn.Identity()      # a submodule replaced is the one called
    _exact(gm(torch.zeros(3)), torch.zeros(3))
