"""index_elementwise_* refuse what Paddle's CPU kernels leave undefined (misaligned byte
offsets, indices outside x, a value of another dtype) with a ValueError naming the op; the
fixtures (tests/fixtures/ops/3.3.1/index_elementwise_*) check the defined behaviour."""

import pytest
import torch

from pirc.lower.kernels.index_elementwise import (index_elementwise_get,
                                                  index_elementwise_put,
                                                  index_elementwise_put_with_tensor)

X = torch.arange(20, dtype=torch.float32).reshape(5, 4)
ROWS = dict(input_dims=[2, 4], input_strides=[0, 1], index_dims=[5, -1, 2, 1])


def test_get_rows_and_wrap():
    out = index_elementwise_get(X, [torch.tensor([4, -5])], index_stride=[16], **ROWS)
    assert torch.equal(out, X[[4, 0]])


def test_put_keeps_last_write():
    idx = torch.tensor([[1], [1]])
    v = torch.tensor([[1.0], [2.0]])
    out = index_elementwise_put_with_tensor(X, [idx], v, index_strides=[16], **ROWS)
    assert torch.equal(out[1], torch.full((4,), 2.0)) and torch.equal(out[0], X[0])


@pytest.mark.parametrize("kw, match", [
    (dict(index_stride=[16], slice_offset=2), "whole number"),
    (dict(index_stride=[6]), "whole number"),
    (dict(index_stride=[64]), "outside x"),
])
def test_get_refuses_undefined_reads(kw, match):
    with pytest.raises(ValueError, match=match):
        index_elementwise_get(X, [torch.tensor([1, 2])], **ROWS, **kw)


def test_refuses_int32_index_and_mismatched_value():
    with pytest.raises(ValueError, match="int64"):
        index_elementwise_put(X, [torch.tensor([1, 2], dtype=torch.int32)], value=1.0,
                              index_strides=[16], **ROWS)
    with pytest.raises(ValueError, match="value is torch.float64"):
        index_elementwise_put_with_tensor(X, [torch.tensor([1, 2])],
                                          torch.ones(4, dtype=torch.float64),
                                          index_strides=[16], **ROWS)
