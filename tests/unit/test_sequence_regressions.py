"""Problems the second zoo's sequence family (tools/paddle_oracle/zoo2/sequence.py) showed, each
on the smallest Paddle program that has it (tests/fixtures/sequence_regressions/, made by
tools/paddle_oracle/gen_sequence_regressions.py with Paddle 3.3.1 and 3.0.0)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import pirc

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "sequence_regressions"


@pytest.mark.parametrize("release", ["3.3.1", "3.0.0"])
@pytest.mark.parametrize("device", ["cpu", "npu"])
@pytest.mark.filterwarnings("ignore::pirc.lower.lower.NpuFallbackWarning")
def test_a_while_counter_read_before_its_increment_is_the_current_step(release, device):
    """paddle.nn.RNN's loop under to_static: a `while` with no carried values whose step
    counter (a pd_op.full before the loop) is read by array_read / slice in the body before
    the body's increment_.  Each step must read the counter as the previous step left it, not
    the full's 0: pirc once wrote every step to element 0 ([[84, 94]] and [8, 9] instead of
    five rows and the sum [20, 25])."""
    program = pirc.load(str(FIXTURES / release / f"while_counter.{release}.json"))
    with np.load(FIXTURES / release / f"while_counter.{release}.io.npz") as io:
        got = list(pirc.run(program, {"x": io["in__x"]}, {}, device=device).values())
        want = [io["out__0"], io["out__1"]]
    assert [g.shape for g in got] == [(5, 2), (2,)]
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def test_a_while_counter_on_one_step():
    """The same loop over one row: one iteration, the running sum is the row."""
    program = pirc.load(str(FIXTURES / "3.3.1" / "while_counter.3.3.1.json"))
    one = list(pirc.run(program, {"x": np.array([[3.0, 4.0]], "float32")}, {}).values())
    np.testing.assert_array_equal(one[0], [[30.0, 40.0]])
    np.testing.assert_array_equal(one[1], [3.0, 4.0])


@pytest.mark.parametrize("release", ["3.3.1", "3.0.0"])
@pytest.mark.parametrize("device", ["cpu", "npu"])
@pytest.mark.filterwarnings("ignore::pirc.lower.lower.NpuFallbackWarning")
def test_ctc_loss_of_a_sample_no_alignment_fits_is_zero_as_in_warp_ctc(release, device):
    """paddle.nn.functional.ctc_loss (warpctc) over 3 steps: [1 2 3] and [2 2] (a blank
    between the equal labels: 3 steps) fit, [1 1 2] and [1 2 3 4] need 4.  warp-ctc gives
    those two loss 0 (cpu_ctc.h: L + repeats > T); pirc once gave torch's inf."""
    program = pirc.load(str(FIXTURES / release / f"ctc_infeasible.{release}.json"))
    with np.load(FIXTURES / release / f"ctc_infeasible.{release}.io.npz") as io:
        feeds = {k[4:]: io[k] for k in io.files if k.startswith("in__")}
        (loss,) = pirc.run(program, feeds, {}, device=device).values()
        want = io["out__0"]
    assert want.ravel()[2:].tolist() == [0.0, 0.0]
    np.testing.assert_allclose(loss, want, rtol=1e-5, atol=1e-5)


def test_warpctc_gradient_of_a_sample_no_alignment_fits_is_zero():
    """The op's second output (warpctcgrad, what Paddle's backward scales) is Paddle's eager
    gradient: 0 for the samples that do not fit, never inf * 0 = nan."""
    import torch

    from pirc.lower.kernels.loss_forward import warpctc

    with np.load(FIXTURES / "3.3.1" / "ctc_infeasible.3.3.1.io.npz") as io:
        args = [torch.from_numpy(io[f"in__{k}"]) for k in ("logits", "labels", "input_lengths",
                                                           "label_lengths")]
        loss, grad = warpctc(*args)
        np.testing.assert_allclose(loss.numpy().ravel(), io["out__0"], rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(grad.numpy(), io["grad__logits"], rtol=1e-4, atol=1e-6)
    assert not grad[:, 2:].any()
