"""The random-program strategy draws valid programs: they verify, survive a text round trip,
and run (through pirc.run) to the numpy reference computed while they were built."""

import numpy as np
from hypothesis import HealthCheck, given, settings

import pirc
from pirc.testing.strategies import BINARY, REDUCE, UNARY, programs

FAST = settings(max_examples=40, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(programs())
def test_generated_programs_verify_and_round_trip(g):
    p = g.parse()
    pirc.verify(p, strict=True)
    again = pirc.parse(pirc.to_text(p, "pir"))
    assert pirc.to_text(again, "pir") == pirc.to_text(p, "pir")
    fetches = [op for op in p.block.ops if op.name == "pd_op.fetch"]
    assert len(fetches) == len(g.expected) >= 1
    for op, want in zip(fetches, g.expected):
        assert tuple(d.data for d in op.results[0].type.dims.data) == want.shape


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
