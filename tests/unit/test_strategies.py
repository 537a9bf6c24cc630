"""The random-program strategy draws valid programs: they verify, survive a text round trip,
and run (through pirc.run) to the numpy reference computed while they were built."""

import numpy as np
from hypothesis import HealthCheck, given, settings

import pirc
from pirc.testing.strategies import (BINARY, INGREDIENTS, INPLACE_BINARY, INPLACE_UNARY, REDUCE,
                                     UNARY, VIEWS, aliasing_programs, programs)

FAST = settings(max_examples=40, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow])


def _verified_round_tripped(g):
    """The generated program, checked: it verifies strictly, its canonical text reads back to
    the same text, and it fetches one value per expected output, of the expected shape."""
    p = g.parse()
    pirc.verify(p, strict=True)
    again = pirc.parse(pirc.to_text(p, "pir"))
    assert pirc.to_text(again, "pir") == pirc.to_text(p, "pir")
    fetches = [op for op in p.block.ops if op.name == "pd_op.fetch"]
    assert len(fetches) == len(g.expected) >= 1
    for op, want in zip(fetches, g.expected):
        assert tuple(d.data for d in op.results[0].type.dims.data) == want.shape
    return p


@FAST
@given(programs())
def test_generated_programs_verify_and_round_trip(g):
    _verified_round_tripped(g)


@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(programs(max_ops=6))
def test_generated_programs_run_to_the_numpy_reference(g):
    out = pirc.run(g.parse(), g.inputs)
    assert len(out) == len(g.expected)
    for got, want in zip(out.values(), g.expected):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_strategy_reaches_every_op_kind():
    seen = set()

    @settings(max_examples=150, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow])
    @given(programs())
    def collect(g):
        seen.update(g.op_names)

    collect()
    wanted = set(UNARY) | set(BINARY) | set(REDUCE) | {
        "pd_op.scale", "pd_op.matmul", "pd_op.reshape", "pd_op.transpose", "pd_op.data",
        "pd_op.full_int_array", "pd_op.full", "pd_op.fetch"}
    assert wanted <= seen, sorted(wanted - seen)


# -- aliasing programs: in-place ops, 0-D tensors, to_tensor constants, views, parameters ----


@FAST
@given(aliasing_programs())
def test_aliasing_programs_verify_and_round_trip(g):
    p = _verified_round_tripped(g)
    declared = {op.attributes["parameter_name"].data for op in p.block.ops
                if op.name == "builtin.parameter"}
    assert declared == set(g.params)


def test_aliasing_programs_reach_every_ingredient():
    seen, ops = set(), set()

    @settings(max_examples=300, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow])
    @given(aliasing_programs())
    def collect(g):
        seen.update(g.ingredients)
        ops.update(g.op_names)

    collect()
    assert set(INGREDIENTS) <= seen, sorted(set(INGREDIENTS) - seen)
    wanted = set(INPLACE_UNARY) | set(INPLACE_BINARY) | set(VIEWS) | {
        "pd_op.assign_value_", "pd_op.scale_", "pd_op.assign", "pd_op.concat", "builtin.combine",
        "builtin.parameter", "pd_op.conv2d", "pd_op.batch_norm_", "pd_op.cast"}
    assert wanted <= ops, sorted(wanted - ops)


def test_aliasing_reference_follows_paddle_buffers(tmp_path):
    """The numpy reference of the hand-checked shapes (Paddle 3.3.1's static executor): two
    to_tensor constants keep their own values, an in-place write is seen by every name of
    the buffer, a view is a copy; the parameters round-trip through a .pdiparams file."""
    found = {}

    @settings(max_examples=300, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow])
    @given(aliasing_programs())
    def collect(g):
        for key in ("to_tensor-pair", "view-written", "param-written"):
            if key in g.ingredients and key not in found:
                found[key] = g

    collect()
    assert set(found) == {"to_tensor-pair", "view-written", "param-written"}
    g = found["param-written"]
    g.write_params(tmp_path / "w.pdiparams")
    back = pirc.read_params(str(tmp_path / "w.pdiparams"), g.parse())
    assert sorted(back) == sorted(g.params)
    for name, value in g.params.items():
        np.testing.assert_array_equal(back[name], value)
    assert g.fresh_params()[name] is not g.params[name]


@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(aliasing_programs(max_ops=8))
def test_aliasing_programs_run_to_the_numpy_reference(g):
    """pirc runs aliasing programs as Paddle's executor does (the reference's buffer model)."""
    out = pirc.run(g.parse(), g.inputs, params=g.fresh_params() or None)
    assert len(out) == len(g.expected)
    for got, want in zip(out.values(), g.expected):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
