"""Every pass and pipeline keeps a program's outputs, bit for bit, on generated programs that
hold what the pass layer must respect about buffers: in-place ops whose operand is read
again (by the old name and the new), 0-D tensors, to_tensor constant pairs, views written
through either name, repeated pure ops across a write, parameters written in place, and
conv2d + inference batch_norm_ (pirc.testing.strategies.aliasing_programs).

pirc runs each program before and after the pass (pirc.testing.pass_differential); the
parameters go to every pass and pipeline, as `pirc-opt --params` gives them.  conv-bn-fold
(alone or in `default` / `inference`) is compared within float reassociation on programs
with a batch_norm; everything else bit for bit.  A pass that refuses a valid program, or
whose output no longer runs, fails too.  Derandomized (conftest.py): the same examples on
every machine; the fuzzer (`python -m tools.fuzz run --front passes`) explores further.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

import pirc
from pirc.testing.pass_differential import (PASSES, PIPELINES, check_target, compare_outputs,
                                            run_outputs)
from pirc.testing.strategies import aliasing_programs

# ~40 ms an example on one core; the whole file stays well under a minute.
EXAMPLES = {"cse": 60, "dce": 40, "canonicalize": 40, "const-fold": 60, "param-fold": 60,
            "conv-bn-fold": 40, "default": 80, "inference": 60}


def _check(g, target):
    program = g.parse()
    before = run_outputs(program, g.inputs, g.params)
    outcome = check_target(program, target, g.inputs, g.params, before)
    assert outcome.ok, (f"{outcome}\n--- program (PIR version 4, --from-version=4):\n{g.text}"
                        f"--- inputs: {g.inputs}\n--- params: {g.params}\n"
                        f"--- after {target}:\n{outcome.rewritten}")


def _differential_test(target):
    @settings(max_examples=EXAMPLES[target], deadline=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(aliasing_programs(max_ops=8))
    def test(g):
        _check(g, target)

    test.__name__ = f"test_{target.replace('-', '_')}_keeps_outputs"
    test.__doc__ = f"`{target}` on generated aliasing programs: outputs before == after."
    return test


for _target in PASSES + PIPELINES:
    _t = _differential_test(_target)
    globals()[_t.__name__] = _t
del _t, _target


# -- the comparison itself ------------------------------------------------------------------


def test_bit_for_bit_means_bits():
    a = np.array([0.0, 1.0, np.nan], np.float32)
    assert compare_outputs([a], [a.copy()]) == ""
    assert compare_outputs([a], [np.array([-0.0, 1.0, np.nan], np.float32)]) != ""  # sign of zero
    assert compare_outputs([a], [np.nextafter(a, np.float32(2))]) != ""          # one ulp
    assert compare_outputs([a], [a.astype(np.float64)]) != ""                      # dtype
    assert compare_outputs([a], [a.reshape(1, 3)]) != ""                            # shape
    assert compare_outputs([a], [a, a]) != ""                                       # count
    tol = {np.dtype("float32"): (1e-4, 1e-5)}
    assert compare_outputs([a], [np.nextafter(a, np.float32(2))], tol) == ""


_LLAMA_MASK = """{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[2],stop_gradient:[true]} : () -> tensor<2xf32>
    (%1) = "pd_op.full" () {dtype:float32,place:Place(undefined:0),shape:[],stop_gradient:[true],value:0} : () -> tensor<f32>
    (%2) = "pd_op.assign_value_" (%1) {dtype:float32,place:Place(undefined:0),shape:[],stop_gradient:[true],values:[0]} : (tensor<f32>) -> tensor<f32>
    (%3) = "pd_op.full" () {dtype:float32,place:Place(undefined:0),shape:[],stop_gradient:[true],value:0} : () -> tensor<f32>
    (%4) = "pd_op.assign_value_" (%3) {dtype:float32,place:Place(undefined:0),shape:[],stop_gradient:[true],values:[-100]} : (tensor<f32>) -> tensor<f32>
    (%5) = "pd_op.add" (%2, %0) {stop_gradient:[true]} : (tensor<f32>, tensor<2xf32>) -> tensor<2xf32>
    (%6) = "pd_op.add" (%4, %0) {stop_gradient:[true]} : (tensor<f32>, tensor<2xf32>) -> tensor<2xf32>
    (%7) = "pd_op.fetch" (%5) {col:0,name:"a",persistable:[true],stop_gradient:[true]} : (tensor<2xf32>) -> tensor<2xf32>
    (%8) = "pd_op.fetch" (%6) {col:1,name:"b",persistable:[true],stop_gradient:[true]} : (tensor<2xf32>) -> tensor<2xf32>
}
"""


@pytest.mark.parametrize("target", PASSES + PIPELINES)
def test_two_to_tensor_constants_stay_two(target):
    """The LLaMA attention mask's shape: two `full`s of one shape and value, each written by
    its own `assign_value_`.  Merging the `full`s makes both constants one buffer."""
    program = pirc.parse(_LLAMA_MASK, from_version=4)
    inputs = {"x": np.array([1.0, 2.0], np.float32)}
    before = run_outputs(program, inputs)
    np.testing.assert_array_equal(before[1], [-99.0, -98.0])
    outcome = check_target(program, target, inputs, None, before)
    assert outcome.ok, str(outcome)
