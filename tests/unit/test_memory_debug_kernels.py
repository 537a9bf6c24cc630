"""The kernels of the memory, debug, metrics and partial families on what their Paddle
fixtures do not reach: the errors Paddle raises, coalesce_tensor's alignment arithmetic and
print's output."""

import pytest
import torch

from pirc.lower.kernels import debug, memory, metrics, partial


def test_accuracy_check_raises_at_the_first_mismatch():
    x = torch.tensor([1.0, 2.0, 3.0])
    assert debug.accuracy_check(x, x.clone(), fn_name="k").all()
    with pytest.raises(ValueError, match="kernel name k, res index 1"):
        debug.accuracy_check(x, torch.tensor([1.0, 2.5, 9.0]), fn_name="k")
    nan = torch.tensor([float("nan")])
    with pytest.raises(ValueError):
        debug.accuracy_check(nan, nan)
    assert debug.accuracy_check(nan, nan, equal_nan=True).all()


def test_check_model_nan_inf_checks_its_result_only_when_on():
    x = torch.tensor([1.0, float("inf")])
    assert torch.equal(debug.disable_check_model_nan_inf(x, flag=0), x)
    with pytest.raises(FloatingPointError):
        debug.enable_check_model_nan_inf(x, flag=1)


def test_print_writes_the_tensor_and_returns_it(capsys):
    x = torch.tensor([[1.5, -2.0]])
    assert debug.print_(x, message="hi", summarize=1) is x
    out = capsys.readouterr().out
    assert "  - message: hi" in out and "  - shape: [1, 2]" in out
    assert "  - data: [1.500000]" in out


def test_coalesce_tensor_aligns_each_input_to_4096_bytes():
    a, b = torch.arange(6.0).reshape(2, 3), torch.ones(5)
    outs, fused = memory._coalesce_tensor([a, b], dtype=torch.float32, copy_data=True)
    assert fused.shape == (2048,)   # two 4 KiB chunks of float32
    assert torch.equal(outs[0], a) and torch.equal(fused[1024:1029], b)
    outs, fused = memory._coalesce_tensor([a], dtype=torch.float32, set_constant=True,
                                          constant=3.0, align_size=64)
    assert fused.shape == (16,) and bool((fused == 3.0).all()) and outs[0].shape == (2, 3)
    with pytest.raises(ValueError, match="no element"):
        memory._coalesce_tensor([torch.ones(0)], dtype=torch.float32)


def test_view_slice_and_partial_ops_refuse_out_of_range():
    with pytest.raises(ValueError, match="begin_idx < end_idx"):
        memory.view_slice(torch.ones(3, 2), begin_idx=2, end_idx=2)
    with pytest.raises(ValueError, match="do not fit"):
        partial.partial_concat([torch.ones(2, 3)], start_index=2, length=4)
    with pytest.raises(ValueError, match="2-D"):
        partial.partial_sum([torch.ones(3)])


def test_auc_refuses_a_probability_outside_0_1():
    stat = torch.zeros(1, 4, dtype=torch.int64)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        metrics.auc(torch.tensor([[1.5]]), torch.tensor([[1]]), stat, stat,
                    num_thresholds=3, slide_steps=0)
    # one positive above one negative: a perfect ranking
    a, pos, neg = metrics.auc(torch.tensor([[0.9], [0.1]]), torch.tensor([[1], [0]]), stat,
                              stat, num_thresholds=3, slide_steps=0)
    assert float(a) == 1.0 and pos.tolist() == [[0, 0, 1, 0]] and neg.tolist() == [[1, 0, 0, 0]]
